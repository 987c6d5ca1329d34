/* ABC's counterexample into vectors.  When dprove refutes a survivor
 * (mutants.c), it writes the run that tells the mutant from the unit:
 * each primary input's value at each cycle (write_cex -n: "pi<i>@<f>=v"),
 * and Yosys's map (write_aiger -map: "input <i> <bit> in_<port>") names
 * the inputs.  Every cycle in which the unit takes an input (in_valid
 * high, out of reset) gives the operands the unit took: read back through
 * the testbench's layout of the mode (the plan's a, b and c lines), they
 * become a vector that the search (augment.c) tries before its random
 * draws.  A vector is only a candidate: the kill is the simulation's.
 * Units whose operands reach the ports straight (one packed port, or one
 * port per element; no delays, scales, tiles or lanes) only. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATHLEN 1200
#define MAXFRAMES 64

typedef struct {
    char name[DUT_NAME + 8];        /* the port, without Yosys's "in_" */
    int bit;
} pi_name;

/* the port values of one cycle, bit by bit, by port */
typedef struct {
    const vfy_ports *ps;
    unsigned char *bits[MAXFRAMES];  /* [frame][port offset + bit] */
    int *off;                        /* per port: its first bit in bits[f] */
    int nframes;
} run;

static uint64_t port_bits(const run *r, int f, const vfy_port *p, int lo, int n)
{
    uint64_t v = 0;
    int base = r->off[p - r->ps->p];
    for (int i = 0; i < n && lo + i < p->width; i++) v |= (uint64_t)r->bits[f][base + lo + i] << i;
    return v;
}

static const vfy_port *named(const vfy_ports *ps, const char *name)
{
    return name[0] ? vfy_port_find(ps, name) : NULL;
}

/* bits [lo, lo+n) of an operand's bus: its ports side by side from bit 0
 * (one packed port, or one port per element, as design.c wires them) */
static uint64_t bus_bits(const run *r, int f, const dut_port *ports, int lo, int n)
{
    int elem = vfy_port_find(r->ps, ports[0].name)->width;
    return port_bits(r, f, vfy_port_find(r->ps, ports[lo / elem].name), lo % elem, n);
}

/* does the unit take its operands straight from ports? */
static int direct(const dut_desc *d, const vfy_ports *ps)
{
    if (d->shape_line || d->lanes || d->sa.line || d->a.delay_line || d->b.delay_line || d->cop.delay_line) return 0;
    if (d->a.pattern || d->b.pattern || !d->in_valid.line) return 0;
    const dut_operand *ops[] = {&d->a, &d->b};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < ops[k]->nports; i++) {
            const vfy_port *p = vfy_port_find(ps, ops[k]->ports[i].name);
            if (!p || p->unpacked) return 0;
        }
    const vfy_port *c = named(ps, d->c.name);
    return c && !c->unpacked;
}

/* the offsets of the mode's a and b elements from the plan's mode lines
 * ("a <slot> <box> <offset>..."; the slot is wider than the format where
 * the box pads it, and only the format's bits are read) */
static int mode_layout(const char *modes, const char *name, int off[2][MMA_MAX_K], int K)
{
    const char *m = modes;
    size_t nl = strlen(name);
    while (m && !(strncmp(m, "mode ", 5) == 0 && strncmp(m + 5, name, nl) == 0 && m[5 + nl] == ' ')) {
        m = strchr(m, '\n');
        if (m) m++;
    }
    if (!m) return -1;
    for (int k = 0; k < 2; k++) {
        m = strchr(m, '\n');
        if (!m || m[1] != "ab"[k] || m[2] != ' ') return -1;
        m += 3;
        int used = -1;
        sscanf(m, "%*d %*s%n", &used);
        if (used < 0) return -1;
        m += used;
        for (int e = 0; e < K; e++) {
            if (sscanf(m, "%d%n", &off[k][e], &used) != 1) return -1;
            m += used;
        }
    }
    return 0;
}

static int read_run(const char *cexf, const char *mapf, run *r)
{
    const vfy_ports *ps = r->ps;
    int nbits = 0;
    r->off = calloc((size_t)ps->n + 1, sizeof *r->off);
    for (int i = 0; i < ps->n; i++) { r->off[i] = nbits; nbits += ps->p[i].width; }
    FILE *f = fopen(mapf, "r");
    if (!f) return -1;
    int cap = 0, n = 0;
    pi_name *pis = NULL;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        int i, bit;
        char name[DUT_NAME + 8];
        if (sscanf(line, "input %d %d %127s", &i, &bit, name) != 3 || i < 0 || i > 1000000 || strncmp(name, "in_", 3)) continue;
        while (i >= cap) { cap = cap ? 2 * cap : 256; pis = realloc(pis, (size_t)cap * sizeof *pis); }
        for (; n <= i; n++) pis[n].name[0] = 0;
        snprintf(pis[i].name, sizeof pis[i].name, "%s", name + 3);
        pis[i].bit = bit;
    }
    fclose(f);
    f = fopen(cexf, "r");
    if (!f) { free(pis); return -1; }
    r->nframes = 0;
    while (fgets(line, sizeof line, f)) {
        int i, fr, v;
        if (sscanf(line, "pi%d@%d=%d", &i, &fr, &v) != 3 || i < 0 || i >= n || fr < 0 || fr >= MAXFRAMES) continue;
        while (r->nframes <= fr) r->bits[r->nframes++] = calloc((size_t)nbits + 1, 1);
        const vfy_port *p = pis[i].name[0] ? vfy_port_find(ps, pis[i].name) : NULL;
        if (p && pis[i].bit >= 0 && pis[i].bit < p->width) r->bits[fr][r->off[p - ps->p] + pis[i].bit] = v == 1;
    }
    fclose(f);
    free(pis);
    return r->nframes ? 0 : -1;
}

int vfy_cex_vectors(const vfy_campaign *c, const char *run_stem, int *mode, mma_vec *out, int max)
{
    const dut_desc *d = c->d;
    if (!direct(d, c->ps)) return 0;
    run r = {c->ps, {0}, NULL, 0};
    int n = 0;
    char cexf[PATHLEN], mapf[PATHLEN];
    vfy_path(cexf, sizeof cexf, "%s.cex", run_stem);
    vfy_path(mapf, sizeof mapf, "%s.map", run_stem);
    if (read_run(cexf, mapf, &r)) goto out;
    const vfy_port *valid = vfy_port_find(c->ps, d->in_valid.name), *reset = named(c->ps, d->reset.name);
    for (int f = 0; f < r.nframes && n < max; f++) {
        if (!valid || !port_bits(&r, f, valid, 0, 1)) continue;
        if (reset && d->reset.line && port_bits(&r, f, reset, 0, 1) == (uint64_t)(d->reset_low ? 0 : 1)) continue;
        /* the mode whose values the mode ports hold */
        int m = -1;
        for (int k = 0; k < d->nmodes && m < 0; k++) {
            int same = 1;
            for (int i = 0; i < d->nmode_ports; i++) {
                const vfy_port *p = vfy_port_find(c->ps, d->mode_ports[i].name);
                same &= p && port_bits(&r, f, p, 0, p->width) == d->modes[k].value[i];
            }
            if (same) m = k;
        }
        if (m < 0) continue;
        const mma_unit *u = &d->modes[m].u;
        int off[2][MMA_MAX_K];
        if (mode_layout(c->g->modes, d->modes[m].name, off, u->k)) continue;
        mma_vec *v = &out[n];
        memset(v, 0, sizeof *v);
        const dut_operand *ops[] = {&d->a, &d->b};
        for (int k = 0; k < 2; k++) {
            int w = mma_format(k ? u->b : u->a)->width;
            for (int e = 0; e < u->k; e++) (k ? v->b : v->a)[e] = bus_bits(&r, f, ops[k]->ports, off[k][e], w);
        }
        v->c = bus_bits(&r, f, &d->c, 0, mma_format(u->c)->width);
        mode[n++] = m;
    }
out:
    for (int f = 0; f < r.nframes; f++) free(r.bits[f]);
    free(r.off);
    return n;
}
