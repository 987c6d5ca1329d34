/* Shared declarations of the verify flow (the files of verify/). */
#ifndef MMAREF_VERIFY_INTERNAL_H
#define MMAREF_VERIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "dut.h"
#include "mmaref_verify.h"
#include "mmaref_vec.h"

/* ---- processes (proc.c) ---------------------------------------------------- */
/* Runs argv with stdout and stderr into log (appended; NULL: inherited), in
 * directory cwd (NULL: here).  The exit status, or -1 when it could not
 * start (message in err). */
int vfy_run(char *const argv[], const char *cwd, const char *log, char *err, size_t len);
/* vfy_run with a status line on stderr naming what (NULL: none; shown only
 * on a terminal) while the child runs */
int vfy_run_status(char *const argv[], const char *cwd, const char *log, const char *what, char *err, size_t len);
/* The first lines of log that carry %Error (Verilator), else its tail. */
void vfy_log_errors(const char *log, char *out, size_t len);
int vfy_mkdirs(const char *path);
int vfy_write_if_changed(const char *path, const char *text);   /* 1 changed, 0 same, -1 error */
char *vfy_read_file(const char *path, size_t *len);
uint64_t vfy_hash(uint64_t h, const void *p, size_t n);
uint64_t vfy_hash_stat(uint64_t h, const char *path);   /* its name, time and size */
/* snprintf for messages (cut to fit) and for paths (a path that does not
 * fit ends the command with a message) */
void vfy_fmt(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void vfy_path(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* the last component of a path */
const char *vfy_base_name(const char *path);

typedef struct { char *s; size_t n, cap; } vfy_text;
void vfy_tprintf(vfy_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
pid_t vfy_spawn(char *const argv[], const char *log);
#define VFY_TIMED_OUT 1000
int vfy_run_limited(char *const argv[], const char *log, double seconds);

/* ---- JSON (json.c): Verilator's --json-only tree ----------------------------- */
typedef struct vfy_json {
    int kind;                       /* 'o' object, 'a' array, 's' string, 'n' number,
                                       't' true, 'f' false, '0' null */
    char *str;
    double num;
    int n;                          /* members or elements */
    char **keys;                    /* of an object's members */
    struct vfy_json **kids;
} vfy_json;
vfy_json *vfy_json_parse(const char *text, size_t len);   /* NULL: malformed */
void vfy_json_free(vfy_json *n);
const vfy_json *vfy_json_get(const vfy_json *o, const char *key);
const char *vfy_json_str(const vfy_json *o, const char *key);

/* The Verilator's version (kit.c): 0, or -1 with a message */
int vfy_kit_version(mma_verify_kit *kit, const char *workdir, char *err, size_t len);

/* ---- the design's ports (ports.c) --------------------------------------------- */
enum { VP_IN, VP_OUT, VP_INOUT };
typedef struct {
    char name[DUT_NAME];
    int dir, width;                 /* all bits of the port */
    int unpacked;                   /* an unpacked array: elements of elem bits */
    int elem, ulo, uhi, uleft, uright;
} vfy_port;

typedef struct {
    int n;
    vfy_port *p;
} vfy_ports;

/* Elaborates the description's sources with Verilator (--xml-only) and
 * reads the top module's ports.  0, or -1 with the Verilator error (or the
 * description's line) in err. */
int vfy_ports_read(const dut_desc *d, const mma_verify_kit *kit, const char *workdir,
                   vfy_ports *ports, char *err, size_t len);
const vfy_port *vfy_port_find(const vfy_ports *ps, const char *name);

/* ---- the testbench (design.c) ------------------------------------------------------ */
typedef struct {
    int aw, bw, cw, dw, fw, mw, tw;
    int flagbits[64];
    int lmax;                       /* the largest latency the testbench waits for
                                       (0: the unit has out_valid) */
    char *instance;                 /* the SystemVerilog that instantiates the unit */
    char *modes;                    /* the plan's mode and layout lines */
    const char **mapped_by;         /* per port of the unit: the description's key
                                       that maps it (NULL: the testbench leaves it) */
} vfy_design;

/* Checks the description's ports against the design and lays the operands
 * out per mode.  0, or -1 with "file:line: key 'k': ..." in err. */
int vfy_design_make(const dut_desc *d, const vfy_ports *ps, vfy_design *out, char *err, size_t len);
void vfy_design_free(vfy_design *g);


/* ---- the flow's steps (flow.c), for the campaigns built on it ------------------- */
/* VFY_BUILD_STATUS: a status line on a terminal while Verilator builds */
enum { VFY_BUILD_TRACE = 1, VFY_BUILD_COVERAGE = 2, VFY_BUILD_STATUS = 4 };
/* Verilates and compiles the testbench of d into <workdir>/<obj> (cached):
 * 0, or -1 with the error in err. */
int vfy_build(const dut_desc *d, const mma_verify_kit *kit, const char *workdir, const char *obj,
              int flags, int jobs, char *err, size_t len);
/* the plan's item lines (suites, random stimulus, files) and their vectors */
int vfy_plan_items(const dut_desc *d, const mma_verify_opts *o, const char *workdir, vfy_text *plan,
                   long *total, char *err, size_t len);
int vfy_write_plan(const char *path, const vfy_design *g, const char *rundir, const mma_verify_opts *o,
                   const dut_desc *d, int latency, int measure, const char *items);
/* runs the testbench exe on plan (extra: more plusargs, NULL-ended): its status, or -1 */
int vfy_simulate(const char *exe, const char *plan, const mma_verify_opts *o, const dut_desc *d,
                 int latency, const char *fst, const char *const *extra, const char *log, char *err, size_t len);
void vfy_work_dir(const mma_verify_opts *o, const char *suffix, char *out, size_t len);
int vfy_kit_at_least(const mma_verify_kit *kit, int major, int minor);

/* What a campaign beside the plain one gets (coverage.c, mutants.c). */
typedef struct {
    dut_desc *d;
    const mma_verify_kit *kit;
    const vfy_design *g;
    const vfy_ports *ps;
    const mma_verify_opts *o;
    const char *workdir;
    const char *items;              /* the plan's item lines */
    int latency;
    long total;                     /* their vectors (vfy_plan_items) */
} vfy_campaign;
int vfy_coverage(const vfy_campaign *c);
int vfy_mutants(const vfy_campaign *c);

/* ---- mutants (mutants.c) and the suite that kills them (augment.c) ------------- */
enum { VFY_MUT_SURVIVED, VFY_MUT_KILLED, VFY_MUT_NORESULT, VFY_MUT_TIMEOUT, VFY_MUT_ERROR };
/* a survivor's check: VFY_EQ_READY_HIGH, equivalent only while the ready
 * input is held high, is not counted as equivalent */
enum { VFY_EQ_UNKNOWN, VFY_EQ_EQUIVALENT, VFY_EQ_LIVE, VFY_EQ_UNDECIDED, VFY_EQ_READY_HIGH };
typedef struct {
    char cmd[512];                  /* the mutate line, without its -ctrl */
    char mode[32], src[256];
    int outcome, equiv;
    char first[1200];               /* the first mismatching vector's file */
    char first_mode[64];            /* and its mode */
} vfy_mutant;
/* where the mutants run: the netlist's description and testbench */
typedef struct {
    const vfy_campaign *c;
    const dut_desc *md;
    const char *exe, *dir;
    int jobs;                       /* runs at a time */
    double limit;                   /* seconds a run: beyond, killed by the time limit */
} vfy_mut_env;
/* Runs mutants sel[0 .. n) (indices: the select value is index + 1) on the
 * plan items, each in <dir>/<tag><index + 1>, stop: at its first mismatch;
 * out[i]: sel[i]'s outcome and first mismatch. */
void vfy_mut_run(const vfy_mut_env *e, const char *tag, const char *items, int stop, const int *sel, int n,
                 vfy_mutant *out);
/* --augment: vectors searched for the survivors of mu[0 .. n) (the
 * campaign's outcomes), a minimized suite written to o->augment.  0 when
 * every mutant not proven equivalent is killed, 1 when some live on, 2
 * when no suite was written. */
int vfy_augment(const vfy_mut_env *e, vfy_mutant *mu, int n);
/* Where ABC's run that refutes survivor `index` lies (mutants.c): the
 * stem of <stem>.cex (write_cex -n) and <stem>.map (write_aiger -map). */
void vfy_abc_run(char *out, size_t len, const char *dir, int index);
/* Vectors from that run (cex.c): the operands the unit took in each cycle
 * of it, at most max, each with its mode in mode[]; d left for the model.
 * Their number (0 for a unit whose operands do not reach its ports
 * straight, or no run). */
int vfy_cex_vectors(const vfy_campaign *c, const char *run_stem, int *mode, mma_vec *out, int max);
/* before the campaign: --augment's output can be written, the unit and
 * options take it; 0, or -1 after a message */
int vfy_augment_check(const vfy_campaign *c);

#endif
