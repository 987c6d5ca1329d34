/* The description checked against the elaborated design's ports, and what
 * the testbench needs from it: the bus widths, the SystemVerilog that
 * instantiates the unit, and per mode the layout of the operands in the
 * unit's ports (the plan's mode lines, read by mmaref_harness.c). */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* growing text */
typedef struct { char *s; size_t n, cap; } buf;
static void bprintf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (w >= 0 && b->s && b->n + (size_t)w < b->cap) { b->n += (size_t)w; return; }
        b->cap = (b->cap + (size_t)w + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
}

static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 60 || lb > 60) return 99;
    int row[64];
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int prev = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int cur = row[j];
            int sub = prev + (a[i - 1] != b[j - 1]);
            int del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            prev = cur;
        }
    }
    return row[lb];
}

typedef struct {
    const dut_desc *d;
    const vfy_ports *ps;
    char *err;
    size_t len;
    const char **used_by;           /* per port: the key that maps it */
} ctx;

#define FAIL(line, key, ...) do { dut_err(c->d, line, key, c->err, c->len, __VA_ARGS__); return -1; } while (0)

static const char *dir_name(int dir) { return dir == VP_IN ? "input" : dir == VP_OUT ? "output" : "inout"; }

/* port name of the top module for key, with the direction and (when
 * width > 0) the width the key needs */
static const vfy_port *need(ctx *c, int line, const char *key, const char *name, int dir, int width)
{
    const vfy_port *p = vfy_port_find(c->ps, name);
    if (!p) {
        char list[1500] = "", near[200] = "";
        size_t o = 0;
        int best = 99;
        for (int i = 0; i < c->ps->n; i++) {
            const char *n = c->ps->p[i].name;
            if (o + strlen(n) + 2 < sizeof list) o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? " " : "", n);
            int dist = edit_distance(name, n);
            if (dist < best && dist <= 2 + (int)strlen(name) / 4) {
                best = dist;
                snprintf(near, sizeof near, "; did you mean '%s'?", n);
            }
        }
        dut_err(c->d, line, key, c->err, c->len, "the top module %s has no port '%s'%s (its ports: %s)", c->d->top.name, name, near, list);
        return NULL;
    }
    if (p->dir != dir) {
        dut_err(c->d, line, key, c->err, c->len, "port %s is an %s of %s; %s needs an %s", name, dir_name(p->dir), c->d->top.name, key, dir_name(dir));
        return NULL;
    }
    if (width > 0 && (p->width != width || p->unpacked)) {
        dut_err(c->d, line, key, c->err, c->len, "port %s has %d bits; %s needs %d", name, p->width, key, width);
        return NULL;
    }
    int i = (int)(p - c->ps->p);
    if (c->used_by[i]) {
        dut_err(c->d, line, key, c->err, c->len, "port %s is already mapped by '%s'", name, c->used_by[i]);
        return NULL;
    }
    c->used_by[i] = key;
    return p;
}

/* ---- operands ------------------------------------------------------------------ */
typedef struct {
    int bits;                       /* of the bus in the testbench */
    int single;                     /* one port (packed or unpacked array) */
    const vfy_port *ports[MMA_MAX_K];
    int n;                          /* ports, or elements of an unpacked array */
    int elem;                       /* bits of a port per element; 0 packed single */
} oper;

static int operand(ctx *c, const char *key, const dut_operand *o, oper *op, buf *inst, buf *decl)
{
    memset(op, 0, sizeof *op);
    char name[DUT_NAME + 16];
    /* elements entering late come from the skewed copy of the bus */
    const char *src = o->delay_line ? "s" : "r";
    if (o->pattern) {
        const char *pat = o->ports[0].name, *at = strstr(pat, "{k}");
        for (int k = 0; k < MMA_MAX_K; k++) {
            snprintf(name, sizeof name, "%.*s%d%s", (int)(at - pat), pat, k, at + 3);
            if (!vfy_port_find(c->ps, name)) break;
            op->n++;
        }
        if (!op->n) {
            snprintf(name, sizeof name, "%.*s0%s", (int)(at - pat), pat, at + 3);
            FAIL(o->line, key, "the top module %s has no port '%s' (the pattern %s, element 0)", c->d->top.name, name, pat);
        }
    } else {
        op->n = o->nports;
    }
    op->single = !o->pattern && o->nports == 1;
    for (int i = 0; i < op->n; i++) {
        const char *nm = o->ports[op->single ? 0 : i].name;
        if (o->pattern) {
            const char *pat = o->ports[0].name, *at = strstr(pat, "{k}");
            snprintf(name, sizeof name, "%.*s%d%s", (int)(at - pat), pat, i, at + 3);
            nm = name;
        }
        if (!(op->ports[i] = need(c, o->line, key, nm, VP_IN, 0))) return -1;
        if (!op->single) {
            if (op->ports[i]->unpacked) FAIL(o->line, key, "port %s is an unpacked array; one port per element must be plain vectors", nm);
            if (i && op->ports[i]->width != op->ports[0]->width)
                FAIL(o->line, key, "port %s has %d bits, port %s %d: element ports must be of one width", nm, op->ports[i]->width, op->ports[0]->name, op->ports[0]->width);
        }
        if (op->single) break;
    }
    const vfy_port *p0 = op->ports[0];
    if (op->single && p0->unpacked) {
        op->n = p0->uhi - p0->ulo + 1;
        op->elem = p0->elem;
        op->bits = op->n * op->elem;
        bprintf(decl, "  logic [%d:0] %s_u [%d:%d];\n", op->elem - 1, key, p0->uleft, p0->uright);
        bprintf(decl, "  for (genvar i = 0; i < %d; i++) begin : g_%s\n    assign %s_u[%d + i] = %s_%s[i*%d +: %d];\n  end\n",
                op->n, key, key, p0->ulo, key, src, op->elem, op->elem);
        bprintf(inst, "    .%s(%s_u),\n", p0->name, key);
    } else if (op->single) {
        op->bits = p0->width;
        bprintf(inst, "    .%s(%s_%s[%d:0]),\n", p0->name, key, src, op->bits - 1);
    } else {
        op->elem = p0->width;
        op->bits = op->n * op->elem;
        for (int i = 0; i < op->n; i++)
            bprintf(inst, "    .%s(%s_%s[%d:%d]),\n", op->ports[i]->name, key, src, (i + 1) * op->elem - 1, i * op->elem);
    }
    return 0;
}

/* the plan line of operand key for mode m: slot, box, offset per element */
static int layout(ctx *c, const char *key, const dut_operand *o, const oper *op, const dut_mode *m, buf *plan,
                  int *slot_out, int *offs)
{
    int K = m->u.k, fw = mma_format(key[0] == 'a' ? m->u.a : m->u.b)->width;
    const char *fname = mma_format(key[0] == 'a' ? m->u.a : m->u.b)->name;
    int slot;
    if (op->elem) {
        slot = op->elem;
        if (o->slot && o->slot != slot) FAIL(o->line, key, "slot %d: the element ports have %d bits", o->slot, slot);
        if (K != op->n) FAIL(m->line, "match", "the unit has K=%d but operand %s has %d element%s (line %d)", K, key, op->n, op->n == 1 ? "" : "s", o->line);
    } else if (o->slot) {
        slot = o->slot;
        if (K * slot > op->bits) FAIL(o->line, key, "port %s has %d bits, fewer than K=%d elements of %d bits (mode %s)", op->ports[0]->name, op->bits, K, slot, m->name);
    } else {
        if (op->bits % K) FAIL(o->line, key, "port %s has %d bits, not a multiple of K=%d (mode %s); give the bits per element with 'slot'", op->ports[0]->name, op->bits, K, m->name);
        slot = op->bits / K;
    }
    if (slot < fw) FAIL(o->line, key, "elements of %d bits cannot hold %s (%d bits; mode %s)", slot, fname, fw, m->name);
    if (slot > 64) FAIL(o->line, key, "elements of %d bits: at most 64", slot);
    bprintf(plan, "%s %d %s", key, slot, dut_box_names[o->box]);
    for (int k = 0; k < K; k++) {
        /* element ports (or array elements) in the bus from bit 0 up; a
         * packed port's elements fill it from bit 0, or from the top */
        int off = op->elem ? (o->msb_first ? op->n - 1 - k : k) * slot
                           : o->msb_first ? op->bits - (k + 1) * slot : k * slot;
        bprintf(plan, " %d", off);
        offs[k] = off;
    }
    bprintf(plan, "\n");
    *slot_out = slot;
    return 0;
}

/* ---- chains: elements entering late, flags of each element ------------------- */
/* The skewed copy <key>_s of the bus <key>_r: element k's slot delayed by
 * its delay (the same slots in every mode), from a history of the bus. */
static int skew_bus(ctx *c, const char *key, const dut_operand *o, int bits, int K, int slot, const int *offs, buf *decl)
{
    int delay[MMA_MAX_K], dmax = 0;
    if (o->ndelay && o->ndelay != K)
        FAIL(o->delay_line, key, "delay names %d element%s but the unit has K=%d", o->ndelay, o->ndelay == 1 ? "" : "s", K);
    for (int k = 0; k < K; k++) {
        delay[k] = o->ndelay ? o->delay[k] : k * o->skew;
        if (delay[k] > dmax) dmax = delay[k];
    }
    bprintf(decl, "  // operand %s: element k reaches the unit its delay after element 0 (the description's %s)\n",
            key, o->ndelay ? "delay" : "skew");
    bprintf(decl, "  logic [%d:0] %s_s;\n", bits - 1, key);
    if (dmax) {
        bprintf(decl, "  logic [%d:0] %s_h [1:%d];\n", bits - 1, key, dmax);
        bprintf(decl, "  always_ff @(posedge clk) begin\n    %s_h[1] <= %s_r;\n", key, key);
        if (dmax > 1) bprintf(decl, "    for (int i = 2; i <= %d; i++) %s_h[i] <= %s_h[i-1];\n", dmax, key, key);
        bprintf(decl, "  end\n");
    }
    bprintf(decl, "  always_comb begin\n    %s_s = %s_r;\n", key, key);
    for (int k = 0; k < K; k++)
        if (delay[k]) bprintf(decl, "    %s_s[%d +: %d] = %s_h[%d][%d +: %d];\n", key, offs[k], slot, key, delay[k], offs[k], slot);
    bprintf(decl, "  end\n");
    return 0;
}

/* the plan line of the block scales of key (sa, sb) for mode m: one
 * element per block, at offsets from bit base of the operand's bus */
static int scale_layout(ctx *c, const char *key, const dut_operand *o, const oper *op, const dut_mode *m, int base, buf *plan)
{
    int ns = mma_unit_nscales(&m->u), slot;
    if (op->elem) {
        slot = op->elem;
        if (ns != op->n) FAIL(m->line, "match", "the unit has %d block scale%s per operand but %s has %d element%s (line %d)", ns, ns == 1 ? "" : "s", key, op->n, op->n == 1 ? "" : "s", o->line);
    } else if (o->slot) {
        slot = o->slot;
        if (ns * slot > op->bits) FAIL(o->line, key, "port %s has %d bits, fewer than %d scales of %d bits (mode %s)", op->ports[0]->name, op->bits, ns, slot, m->name);
    } else {
        if (op->bits % ns) FAIL(o->line, key, "port %s has %d bits, not a multiple of the %d scales (mode %s); give the bits per scale with 'slot'", op->ports[0]->name, op->bits, ns, m->name);
        slot = op->bits / ns;
    }
    if (slot < 8 || slot > 64) FAIL(o->line, key, "scales of %d bits: %s takes 8 to 64 (mode %s)", slot, mma_format(m->u.scale)->name, m->name);
    bprintf(plan, "%s %d %s", key, slot, dut_box_names[o->box]);
    for (int k = 0; k < ns; k++) {
        int off = op->elem ? (o->msb_first ? op->n - 1 - k : k) * slot
                           : o->msb_first ? op->bits - (k + 1) * slot : k * slot;
        bprintf(plan, " %d", base + off);
    }
    bprintf(plan, "\n");
    return 0;
}

/* a matrix unit: the plan line of matrix key (rows x cols) for mode m:
 * slot, box, then per element in row-major order its beat and offset */
static int tile_layout(ctx *c, const char *key, const dut_operand *o, int bits, int rows, int cols,
                       const mma_format_info *f, const dut_mode *m, buf *plan)
{
    int total = rows * cols, beats = o->beats ? o->beats : 1;
    if (total % beats) FAIL(o->line, key, "%d beats do not divide the %d x %d elements (mode %s)", beats, rows, cols, m->name);
    int per = total / beats, slot = o->slot;
    if (!slot) {
        if (bits % per) FAIL(o->line, key, "port %s has %d bits, not a multiple of the %d elements a beat carries (mode %s); give the bits per element with 'slot'",
                             o->ports[0].name, bits, per, m->name);
        slot = bits / per;
    }
    if (per * slot > bits) FAIL(o->line, key, "port %s has %d bits, fewer than %d elements of %d bits a beat (mode %s)", o->ports[0].name, bits, per, slot, m->name);
    if (slot < f->width) FAIL(o->line, key, "elements of %d bits cannot hold %s (%d bits; mode %s)", slot, f->name, f->width, m->name);
    if (slot > 64) FAIL(o->line, key, "elements of %d bits: at most 64", slot);
    bprintf(plan, "%s %d %s", key, slot, dut_box_names[o->box]);
    for (int r = 0; r < rows; r++)
        for (int q = 0; q < cols; q++) {
            int flat = o->col_major ? q * rows + r : r * cols + q, pos = flat % per;
            bprintf(plan, " %d %d", flat / per, o->msb_first ? bits - (pos + 1) * slot : pos * slot);
        }
    bprintf(plan, "\n");
    return 0;
}

/* The flags ports: one, a list, or a pattern with {k} (as far as the
 * ports go); outputs of one width */
static int flag_ports(ctx *c, const vfy_port **fp, int *n)
{
    const dut_desc *d = c->d;
    char name[DUT_NAME + 16];
    *n = 0;
    for (int i = 0; i < (d->flag_pattern ? MMA_MAX_K : d->nflag_ports); i++) {
        const char *nm = d->flag_ports[i < d->nflag_ports ? i : 0].name;
        if (d->flag_pattern) {
            const char *at = strstr(nm, "{k}");
            snprintf(name, sizeof name, "%.*s%d%s", (int)(at - nm), nm, i, at + 3);
            if (!vfy_port_find(c->ps, name)) {
                if (i) break;
                FAIL(d->flags.line, "flags", "the top module %s has no port '%s' (the pattern %s, element 0)", d->top.name, name, nm);
            }
            nm = name;
        }
        if (!(fp[*n] = need(c, d->flags.line, "flags", nm, VP_OUT, 0))) return -1;
        if (fp[*n]->width != fp[0]->width)
            FAIL(d->flags.line, "flags", "port %s has %d bits, port %s %d: flag ports must be of one width", nm, fp[*n]->width, fp[0]->name, fp[0]->width);
        (*n)++;
    }
    return 0;
}

/* The flags of a chain: each port read its `early` edges before d (from
 * a history of the port), or-ed into the testbench's f_o; one port read
 * with d is wired straight. */
static int flag_chain(ctx *c, const vfy_port *const *fp, int n, buf *inst, buf *decl)
{
    const dut_desc *d = c->d;
    int early[MMA_MAX_K];
    if (d->nflag_early && d->nflag_early != n)
        FAIL(d->flag_timing_line, "flags", "early names %d port%s but there %s %d flag port%s", d->nflag_early,
             d->nflag_early == 1 ? "" : "s", n == 1 ? "is" : "are", n, n == 1 ? "" : "s");
    int any = 0;
    for (int i = 0; i < n; i++) any |= early[i] = d->nflag_early ? d->flag_early[i] : (n - 1 - i) * d->flag_skew;
    if (n == 1 && !any) {
        bprintf(inst, "    .%s(f_o),\n", fp[0]->name);
        return 0;
    }
    int w = fp[0]->width;
    bprintf(decl, "  // the flags of the chain: port i read its early edges before d, or-ed\n");
    buf sum = {0};
    for (int i = 0; i < n; i++) {
        bprintf(inst, "    .%s(fl_%d),\n", fp[i]->name, i);
        bprintf(decl, "  logic [%d:0] fl_%d;\n", w - 1, i);
        if (early[i]) {
            bprintf(decl, "  logic [%d:0] fl_%d_h [1:%d];\n  always_ff @(posedge clk) begin\n    fl_%d_h[1] <= fl_%d;\n",
                    w - 1, i, early[i], i, i);
            if (early[i] > 1) bprintf(decl, "    for (int i = 2; i <= %d; i++) fl_%d_h[i] <= fl_%d_h[i-1];\n", early[i], i, i);
            bprintf(decl, "  end\n");
            bprintf(&sum, "%sfl_%d_h[%d]", i ? " | " : "", i, early[i]);
        } else {
            bprintf(&sum, "%sfl_%d", i ? " | " : "", i);
        }
    }
    bprintf(decl, "  assign f_o = %s;\n", sum.s);
    free(sum.s);
    return 0;
}

/* a unit of lanes: the plan line of matrix key as tile_layout writes it,
 * A's row i and B's column j lane i's and j's elements, C and D their
 * diagonal (the other elements absent: offset -1); each port's lanes
 * side by side from bit 0, a lane's elements in it per order and slot */
static int lane_layout(ctx *c, const char *key, const dut_operand *o, int bits, int lanes, const mma_format_info *f,
                       const dut_mode *m, buf *plan)
{
    int K = m->u.k, vec = key[0] == 'a' || key[0] == 'b', per = vec ? K : 1;
    if (bits % lanes) FAIL(o->line, key, "port %s has %d bits, not a multiple of the %d lanes", o->ports[0].name, bits, lanes);
    int lw = bits / lanes, slot = vec && o->slot ? o->slot : lw / per;
    if (vec && !o->slot && lw % K)
        FAIL(o->line, key, "a lane of port %s has %d bits, not a multiple of K=%d (mode %s); give the bits per element with 'slot'", o->ports[0].name, lw, K, m->name);
    if (per * slot > lw) FAIL(o->line, key, "a lane of port %s has %d bits, fewer than K=%d elements of %d bits (mode %s)", o->ports[0].name, lw, K, slot, m->name);
    if (slot < f->width) FAIL(o->line, key, "elements of %d bits cannot hold %s (%d bits; mode %s)", slot, f->name, f->width, m->name);
    if (slot > 64) FAIL(o->line, key, "elements of %d bits: at most 64", slot);
    int box = key[0] == 'c' ? c->d->c_box : key[0] == 'd' ? c->d->d_box : o->box;
    bprintf(plan, "%s %d %s", key, slot, dut_box_names[box]);
    int rows = key[0] == 'b' ? K : lanes, cols = key[0] == 'a' ? K : lanes;
    for (int r = 0; r < rows; r++)
        for (int q = 0; q < cols; q++) {
            int lane = key[0] == 'a' ? r : q, e = key[0] == 'a' ? q : r;
            if (!vec) { bprintf(plan, r == q ? " 0 %d" : " 0 -1", lane * lw); continue; }
            bprintf(plan, " 0 %d", lane * lw + (o->msb_first ? lw - (e + 1) * slot : e * slot));
        }
    bprintf(plan, "\n");
    return 0;
}

static int value_fits(uint64_t v, int w) { return w >= 64 || (v >> w) == 0; }

int vfy_design_make(const dut_desc *d, const vfy_ports *ps, vfy_design *g, char *err, size_t len)
{
    memset(g, 0, sizeof *g);
    ctx cc = {d, ps, err, len, calloc((size_t)ps->n + 1, sizeof(const char *))}, *c = &cc;
    buf inst = {0}, decl = {0}, plan = {0};
    const vfy_port *p;
    int rc = -1;
#define NEED(var, port, key, dir, w) do { if (!((var) = need(c, (port).line, key, (port).name, dir, w))) goto out; } while (0)
    bprintf(&inst, "  // ---- the unit -------------------------------------------------------------\n");
    bprintf(&inst, "  %s ", d->top.name);
    if (d->nparams) {
        bprintf(&inst, "#(");
        for (int i = 0; i < d->nparams; i++) bprintf(&inst, "%s.%s(%s)", i ? ", " : "", d->params[i].name, d->params[i].value);
        bprintf(&inst, ") ");
    }
    bprintf(&inst, "dut (\n");
    if (d->clock.line) { NEED(p, d->clock, "clock", VP_IN, 1); bprintf(&inst, "    .%s(clk),\n", p->name); }
    if (d->reset.line) { NEED(p, d->reset, "reset", VP_IN, 1); bprintf(&inst, "    .%s(%srst_a),\n", p->name, d->reset_low ? "!" : ""); }
    if (d->in_valid.line) { NEED(p, d->in_valid, "in_valid", VP_IN, 1); bprintf(&inst, "    .%s(v_r),\n", p->name); }
    if (d->in_ready.line) { NEED(p, d->in_ready, "in_ready", VP_OUT, 1); bprintf(&inst, "    .%s(i_ready),\n", p->name); }
    else bprintf(&decl, "  assign i_ready = 1'b1;\n");
    if (d->out_valid.line) { NEED(p, d->out_valid, "out_valid", VP_OUT, 1); bprintf(&inst, "    .%s(o_valid),\n", p->name); }
    else {
        /* no out_valid: results `lat` edges after the unit took their input;
         * lat is a plusarg (the description's latency, or the one measured),
         * so that a new latency needs no new build */
        g->lmax = d->latency + 8 > 64 ? d->latency + 8 : 64;
        bprintf(&decl, "  // no out_valid: results +latency edges after the unit took their input\n");
        bprintf(&decl, "  logic [%d:0] lat_v = '0;\n", g->lmax - 1);
        bprintf(&decl, "  always_ff @(posedge clk) lat_v <= {lat_v[%d:0], v_r && i_ready};\n", g->lmax - 2);
        bprintf(&decl, "  assign o_valid = lat == 0 ? v_r && i_ready : lat_v[lat - 1];\n");
    }
    if (d->out_ready.line) { NEED(p, d->out_ready, "out_ready", VP_IN, 1); bprintf(&inst, "    .%s(o_ready),\n", p->name); }
    oper oa, ob, osa = {0}, osb = {0};
    if (d->shape_line) {
        /* a matrix unit: one packed port per matrix */
        const vfy_port *pa, *pb;
        NEED(pa, d->a.ports[0], "a", VP_IN, 0);
        NEED(pb, d->b.ports[0], "b", VP_IN, 0);
        if (pa->unpacked || pb->unpacked) {
            dut_err(d, pa->unpacked ? d->a.line : d->b.line, pa->unpacked ? "a" : "b", err, len, "port %s is an unpacked array; a matrix unit takes packed ports", pa->unpacked ? pa->name : pb->name);
            goto out;
        }
        g->aw = pa->width;
        g->bw = pb->width;
        bprintf(&inst, "    .%s(a_r),\n    .%s(b_r),\n", pa->name, pb->name);
    } else {
        if (operand(c, "a", &d->a, &oa, &inst, &decl) || operand(c, "b", &d->b, &ob, &inst, &decl)) goto out;
        g->aw = oa.bits;
        g->bw = ob.bits;
        if (d->sa.line) {
            /* the block scales travel on the operand buses, above the elements */
            if (operand(c, "sa", &d->sa, &osa, &inst, &decl) || operand(c, "sb", &d->sb, &osb, &inst, &decl)) goto out;
            bprintf(&decl, "  wire [%d:0] sa_r = a_r[%d:%d];\n", osa.bits - 1, g->aw + osa.bits - 1, g->aw);
            bprintf(&decl, "  wire [%d:0] sb_r = b_r[%d:%d];\n", osb.bits - 1, g->bw + osb.bits - 1, g->bw);
            g->aw += osa.bits;
            g->bw += osb.bits;
        }
    }
    NEED(p, d->c, "c", VP_IN, 0);
    if (p->unpacked) { dut_err(d, d->c.line, "c", err, len, "port %s is an unpacked array; c needs a vector", p->name); goto out; }
    g->cw = p->width;
    if (d->cop.delay_line && d->cop.delay[0]) {
        int dc = d->cop.delay[0];
        bprintf(&inst, "    .%s(c_s),\n", p->name);
        bprintf(&decl, "  // c reaches the unit %d edge%s after element 0 (the description's delay)\n", dc, dc > 1 ? "s" : "");
        bprintf(&decl, "  logic [%d:0] c_h [1:%d];\n  wire [%d:0] c_s = c_h[%d];\n", g->cw - 1, dc, g->cw - 1, dc);
        bprintf(&decl, "  always_ff @(posedge clk) begin\n    c_h[1] <= c_r;\n");
        if (dc > 1) bprintf(&decl, "    for (int i = 2; i <= %d; i++) c_h[i] <= c_h[i-1];\n", dc);
        bprintf(&decl, "  end\n");
    } else {
        bprintf(&inst, "    .%s(c_r),\n", p->name);
    }
    NEED(p, d->d, "d", VP_OUT, 0);
    if (p->unpacked) { dut_err(d, d->d.line, "d", err, len, "port %s is an unpacked array; d needs a vector", p->name); goto out; }
    g->dw = p->width;
    bprintf(&inst, "    .%s(d_o),\n", p->name);
    if (!d->shape_line && (g->cw > 64 || g->dw > 64)) {
        dut_err(d, g->cw > 64 ? d->c.line : d->d.line, g->cw > 64 ? "c" : "d", err, len, "port %s has %d bits; at most 64", g->cw > 64 ? d->c.name : d->d.name, g->cw > 64 ? g->cw : g->dw);
        goto out;
    }
    if (d->flags.line) {
        int any = 0;
        for (int m = 0; m < d->nmodes; m++) any |= mma_unit_has_flags(&d->modes[m].u);
        if (!any) {
            dut_err(d, d->flags.line, "flags", err, len, "the unit%s to match define%s no exception flags (the ieee tree does: docs/algorithms.md)",
                    d->nmodes > 1 ? "s" : "", d->nmodes > 1 ? "" : "s");
            goto out;
        }
        const vfy_port *fp[MMA_MAX_K];
        int nfp;
        if (flag_ports(c, fp, &nfp)) goto out;
        p = fp[0];
        g->fw = p->width;
        if (g->fw > 64) { dut_err(d, d->flags.line, "flags", err, len, "port %s has %d bits; at most 64", p->name, g->fw); goto out; }
        if (d->nflag_order) {
            if (d->nflag_order != g->fw) {
                dut_err(d, d->flag_order_line, "flags", err, len, "order names %d bits but port %s has %d", d->nflag_order, p->name, g->fw);
                goto out;
            }
            for (int i = 0; i < g->fw; i++) g->flagbits[i] = d->flag_order[i];
        } else if (g->fw == 5) {
            for (int i = 0; i < 5; i++) g->flagbits[i] = i;   /* nv dz of uf nx, as TestFloat and RISC-V */
        } else {
            dut_err(d, d->flags.line, "flags", err, len, "port %s has %d bits: say which flag each holds (order nv dz of uf nx ..., from the most significant bit down; - for a bit to ignore)", p->name, g->fw);
            goto out;
        }
        if (flag_chain(c, fp, nfp, &inst, &decl)) goto out;
    } else {
        bprintf(&decl, "  assign f_o = '0;\n");
    }
    if (d->tag_in.line) {
        const vfy_port *ti, *to;
        NEED(ti, d->tag_in, "tag", VP_IN, 0);
        NEED(to, d->tag_out, "tag", VP_OUT, 0);
        if (ti->width != to->width || ti->width > 16) {
            dut_err(d, d->tag_in.line, "tag", err, len, "ports %s (%d bits) and %s (%d bits) must be of one width, at most 16", ti->name, ti->width, to->name, to->width);
            goto out;
        }
        g->tw = ti->width;
        bprintf(&inst, "    .%s(t_r),\n    .%s(t_o),\n", ti->name, to->name);
    } else {
        bprintf(&decl, "  assign t_o = '0;\n");
    }
    int mpos[DUT_MAX_MODE_PORTS];
    for (int i = 0; i < d->nmode_ports; i++) {
        NEED(p, d->mode_ports[i], "mode", VP_IN, 0);
        mpos[i] = g->mw;
        for (int m = 0; m < d->nmodes; m++)
            if (!value_fits(d->modes[m].value[i], p->width)) {
                dut_err(d, d->modes[m].line, "match", err, len, "value %llu does not fit mode port %s (%d bits)", (unsigned long long)d->modes[m].value[i], p->name, p->width);
                goto out;
            }
        bprintf(&inst, "    .%s(m_r[%d:%d]),\n", p->name, g->mw + p->width - 1, g->mw);
        g->mw += p->width;
        if (g->mw > 64) { dut_err(d, d->mode_ports[i].line, "mode", err, len, "the mode ports have more than 64 bits"); goto out; }
    }
    for (int i = 0; i < d->nsets; i++) {
        dut_port sp = {d->sets[i].line, ""};
        snprintf(sp.name, sizeof sp.name, "%s", d->sets[i].port);
        NEED(p, sp, "set", VP_IN, 0);
        if (d->sets[i].fill >= 0) {
            if (p->unpacked) bprintf(&inst, "    .%s('{default: '%d}),\n", p->name, d->sets[i].fill);
            else bprintf(&inst, "    .%s('%d),\n", p->name, d->sets[i].fill);
            continue;
        }
        if (!value_fits(d->sets[i].v, p->width)) {
            dut_err(d, d->sets[i].line, "set", err, len, "value %s does not fit port %s (%d bits)", d->sets[i].value, p->name, p->width);
            goto out;
        }
        if (p->unpacked) bprintf(&inst, "    .%s('{default: %d'h%llx}),\n", p->name, p->elem, (unsigned long long)d->sets[i].v);
        else bprintf(&inst, "    .%s(%d'h%llx),\n", p->name, p->width, (unsigned long long)d->sets[i].v);
    }
    /* every input driven */
    for (int i = 0; i < ps->n; i++) {
        if (cc.used_by[i]) continue;
        if (ps->p[i].dir == VP_IN) {
            dut_err(d, d->ports_line ? d->ports_line : d->top.line, "set", err, len,
                    "input %s of %s is not in the description: map it, or give it a constant (set %s <value>)",
                    ps->p[i].name, d->top.name, ps->p[i].name);
            goto out;
        }
        if (ps->p[i].dir == VP_INOUT) {
            dut_err(d, d->top.line, "top", err, len, "port %s of %s is an inout; the testbench drives inputs and reads outputs only", ps->p[i].name, d->top.name);
            goto out;
        }
    }
    /* close the port list: drop the last comma */
    if (inst.n >= 2 && inst.s[inst.n - 2] == ',') { inst.s[inst.n - 2] = '\n'; inst.n--; inst.s[inst.n] = 0; }
    bprintf(&inst, "  );\n");
    /* per mode: the layouts */
    int slot0[2] = {0, 0}, k0 = 0;
    static int off0[2][MMA_MAX_K];
    for (int m = 0; m < d->nmodes; m++) {
        const dut_mode *md = &d->modes[m];
        uint64_t v = 0;
        for (int i = 0; i < d->nmode_ports; i++) v |= md->value[i] << mpos[i];
        int wc = mma_format(md->u.c)->width, wd = mma_format(md->u.d)->width;
        if (d->shape_line) {
            int M = d->tile_m, N = d->tile_n, K = md->u.k;
            bprintf(&plan, "mode %s %llx %s\ntile %d %d %d %d%s\n", md->name, (unsigned long long)v, md->spec, M, N,
                    d->a.beats ? d->a.beats : 1, d->dop.beats ? d->dop.beats : 1, d->lanes ? " lanes" : "");
            if (d->lanes) {
                if (lane_layout(c, "a", &d->a, g->aw, M, mma_format(md->u.a), md, &plan) ||
                    lane_layout(c, "b", &d->b, g->bw, M, mma_format(md->u.b), md, &plan) ||
                    lane_layout(c, "c", &d->cop, g->cw, M, mma_format(md->u.c), md, &plan) ||
                    lane_layout(c, "d", &d->dop, g->dw, M, mma_format(md->u.d), md, &plan)) goto out;
                continue;
            }
            if (tile_layout(c, "a", &d->a, g->aw, M, K, mma_format(md->u.a), md, &plan) ||
                tile_layout(c, "b", &d->b, g->bw, K, N, mma_format(md->u.b), md, &plan) ||
                tile_layout(c, "c", &d->cop, g->cw, M, N, mma_format(md->u.c), md, &plan) ||
                tile_layout(c, "d", &d->dop, g->dw, M, N, mma_format(md->u.d), md, &plan)) goto out;
            continue;
        }
        if (wc > g->cw) { dut_err(d, md->line, "match", err, len, "c is %s (%d bits) but port %s has %d", mma_format(md->u.c)->name, wc, d->c.name, g->cw); goto out; }
        if (wd > g->dw) { dut_err(d, md->line, "match", err, len, "d is %s (%d bits) but port %s has %d", mma_format(md->u.d)->name, wd, d->d.name, g->dw); goto out; }
        bprintf(&plan, "mode %s %llx %s\n", md->name, (unsigned long long)v, md->spec);
        int sa, sb, offa[MMA_MAX_K], offb[MMA_MAX_K];
        if (layout(c, "a", &d->a, &oa, md, &plan, &sa, offa) || layout(c, "b", &d->b, &ob, md, &plan, &sb, offb)) goto out;
        if (d->sa.line && (scale_layout(c, "sa", &d->sa, &osa, md, oa.bits, &plan) ||
                           scale_layout(c, "sb", &d->sb, &osb, md, ob.bits, &plan))) goto out;
        /* elements entering late: the slots of every mode must be mode 0's */
        if (!m) {
            slot0[0] = sa; slot0[1] = sb; k0 = md->u.k;
            memcpy(off0[0], offa, sizeof offa);
            memcpy(off0[1], offb, sizeof offb);
        } else if ((d->a.delay_line || d->b.delay_line) &&
                   (md->u.k != k0 || sa != slot0[0] || sb != slot0[1] || memcmp(offa, off0[0], sizeof(int) * (size_t)k0) ||
                    memcmp(offb, off0[1], sizeof(int) * (size_t)k0))) {
            dut_err(d, md->line, "match", err, len, "mode %s lays its elements out otherwise than mode %s: elements entering late (skew, delay) need one layout in every mode",
                    md->name, d->modes[0].name);
            goto out;
        }
        bprintf(&plan, "c %s\nd %s\n", dut_box_names[d->c_box], dut_box_names[d->d_box]);
    }
    if (!d->shape_line && ((d->a.delay_line && skew_bus(c, "a", &d->a, g->aw, k0, slot0[0], off0[0], &decl)) ||
                           (d->b.delay_line && skew_bus(c, "b", &d->b, g->bw, k0, slot0[1], off0[1], &decl))))
        goto out;
    bprintf(&inst, "%s", decl.s ? decl.s : "");
    g->instance = inst.s;
    g->modes = plan.s;
    g->mapped_by = cc.used_by;
    inst.s = plan.s = NULL;
    cc.used_by = NULL;
    rc = 0;
out:
#undef NEED
    free(inst.s);
    free(decl.s);
    free(plan.s);
    free(cc.used_by);
    return rc;
}

void vfy_design_free(vfy_design *g)
{
    free(g->instance);
    free(g->modes);
    free(g->mapped_by);
    g->instance = g->modes = NULL;
    g->mapped_by = NULL;
}
