/* The .dut description of a unit to verify (docs/verify.md): sections
 * [files], [unit], [ports] and [run], one `key value...` a line, `#`
 * comments, in the manner of SymbiYosys's .sby files.  The reader checks
 * the syntax and the values it can check alone; the port names and widths
 * are checked against the elaborated design (ports.c, design.c).  Every
 * setting keeps its line, so that later errors name file, line and key. */
#ifndef MMAREF_DUT_H
#define MMAREF_DUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mmaref.h"

#define DUT_MAX_SOURCES 128
#define DUT_MAX_MODES 256
#define DUT_MAX_MODE_PORTS 4
#define DUT_MAX_SETS 32
#define DUT_MAX_LATENCY 4096
#define DUT_NAME 128
#define DUT_PATH 1024

enum { DUT_BOX_ZERO, DUT_BOX_NAN, DUT_BOX_SIGN, DUT_BOX_ANY };
extern const char *const dut_box_names[4];

typedef struct {
    int line;                       /* 0: not given */
    char name[DUT_NAME];
} dut_port;

/* an operand: one packed (or unpacked-array) port of K elements, a list
 * of one port per element, or a pattern with {k} standing for the index */
typedef struct {
    int line;
    int nports;
    dut_port *ports;                /* nports entries */
    int pattern;                    /* ports[0] holds "{k}" */
    int msb_first;                  /* element 0 in the most significant slot */
    int slot;                       /* bits per element in the port; 0: its width / K */
    int box;
    /* matrix units (a 'shape' line): the matrix's elements in row-major
     * (0) or column-major (1) order, cut into `beats` consecutive beats of
     * equal size, each beat's elements in the port per order and slot */
    int col_major, beats, tile_line;
    /* elements entering a chain late (systolic rows, chained FMAs): element
     * k's bits reach the unit delay[k] edges after element 0's (skew n:
     * delay k*n); the c line's delay[0] is c's */
    int delay_line, skew, ndelay;
    int delay[MMA_MAX_K];
} dut_operand;

typedef struct {
    int line;
    uint64_t value[DUT_MAX_MODE_PORTS];
    char spec[512];                 /* instruction or configuration */
    char name[64];                  /* label in reports */
    mma_unit u;
} dut_mode;

typedef struct {
    int line;
    char port[DUT_NAME];
    char value[80];                 /* as written */
    uint64_t v;
    int fill;                       /* '0 or '1: every bit of the port (-1: v) */
} dut_set;

typedef struct {
    char path[DUT_PATH];            /* the .dut file */
    char dir[DUT_PATH];             /* its directory: sources are relative to it */
    /* [files] */
    int nsources;
    struct { int line; char path[DUT_PATH]; } sources[DUT_MAX_SOURCES];
    int nincludes;
    struct { int line; char path[DUT_PATH]; } includes[32];
    int ndefines;
    struct { int line; char text[256]; } defines[32];
    int nparams;
    struct { int line; char name[64], value[128]; } params[32];
    int files_line;
    /* [unit] */
    dut_port top;
    int nmode_ports;
    dut_port mode_ports[DUT_MAX_MODE_PORTS];
    int nmodes;
    dut_mode modes[DUT_MAX_MODES];
    /* a matrix unit: D (m x n) = A (m x k) B (k x n) + C, element by
     * element a dot product of the mode's unit (k its K); 0: a dot product */
    int tile_m, tile_n, tile_k, shape_line;
    /* a unit of independent lanes (SIMD): each port holds `lanes` dot
     * products side by side, lane 0 in the low bits (a matrix unit whose
     * A rows and B columns are the lanes' a and b, D its diagonal) */
    int lanes, lanes_line;
    /* [ports] */
    dut_port clock, reset, in_valid, in_ready, out_valid, out_ready, tag_in, tag_out, flags;
    int reset_low, reset_cycles;
    int latency, latency_line;      /* -1: not given */
    int latency_auto;               /* latency auto: measured before the campaign */
    dut_operand a, b;
    dut_operand sa, sb;             /* block scales, one per block (block-scaled units) */
    dut_operand cop, dop;           /* the c and d lines (one port each) */
    dut_port c, d;
    int c_box, d_box;
    int flag_order[64];             /* from the port's bit 0 up: TestFloat bit or -1 */
    int nflag_order, flag_order_line;
    /* flags of a chain: one port per element (a list, or a pattern with
     * {k}; flags above is the first), or-ed; port i read early[i] edges
     * before d (skew n: the last with d, each one n before the next) */
    int nflag_ports, flag_pattern;
    dut_port *flag_ports;
    int flag_timing_line, flag_skew, nflag_early;
    int flag_early[MMA_MAX_K];
    int nsets;
    dut_set sets[DUT_MAX_SETS];
    int ports_line;
    /* [build] */
    int nvargs, vargs_line;
    char **vargs;                   /* verilator-args: passed to Verilator as they are */
    int timing;                     /* --timing among them */
    /* [run] */
    char suites[512];
    int suites_line;
    long count, random;             /* vectors per suite, constrained-random vectors per mode */
    char distribution[16];          /* of the constrained-random stimulus (mix) */
    uint64_t seed;
    int gaps, backpressure;         /* percent of cycles */
    long max_wait;                  /* cycles without progress */
} dut_desc;

/* Reads path into d.  0, or -1 with "file:line: key 'k': message" in err.
 * dut_read_stream reads an open stream, path naming it (and the directory
 * that relative source paths start from).  Free d with dut_free either way. */
int dut_read(const char *path, dut_desc *d, char *err, size_t len);
int dut_read_stream(FILE *f, const char *path, dut_desc *d, char *err, size_t len);
void dut_free(dut_desc *d);

/* An error about the setting at line of key, in the house style. */
void dut_err(const dut_desc *d, int line, const char *key, char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#endif
