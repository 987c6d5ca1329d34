/* mmaref._core: the C library as a Python extension module.
 *
 * Translation only: arguments in, library calls, results out.  Arrays come
 * as C-contiguous buffers (the Python side, mmaref/__init__.py, checks their
 * dtypes and shapes and names the argument at fault); encodings may be
 * unsigned integers of 1, 2, 4 or 8 bytes, handed to the library as they
 * are (mma_batch_dot widens them a vector at a time), so that a million
 * uint8 dot products need no uint64 copy.  Long loops run with the GIL
 * released, on all cores, through the library's deterministic parallel
 * loop (mma_batch_dot / mma_parallel_for). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaref.h"
#include "mmaref_metrics.h"
#include "mmaref_parallel.h"
#include "mmaref_vec.h"

static PyObject *Error;            /* mmaref.Error: the library's messages */

/* ---- the Unit type --------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    mma_unit u;
} UnitObject;

static int unit_init(UnitObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"text", NULL};
    const char *text;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s", kwlist, &text)) return -1;
    char err[1024];
    if (mma_unit_parse(text, &self->u, err, sizeof err)) {
        PyErr_SetString(Error, err);
        return -1;
    }
    return 0;
}

static PyObject *fmt_name(mma_fmt f)
{
    if (f == MMA_FMT_NONE) Py_RETURN_NONE;
    return PyUnicode_FromString(mma_format(f)->name);
}

static const char *tree_names[] = {"fused", "evenodd", "groups", "pairwise", "fma", "exact", "ieee", "chains"};
static const char *rnd_names[] = {"rz", "rne", "rd", "ru", "rmm", "rodd"};

static PyObject *unit_info(UnitObject *self, PyObject *noargs)
{
    (void)noargs;
    const mma_unit *u = &self->u;
    char cfg[1024], ex[4096];
    mma_unit_config(u, cfg, sizeof cfg);
    mma_unit_explain(u, ex, sizeof ex);
    return Py_BuildValue("{s:s,s:s,s:s,s:s,s:N,s:N,s:N,s:N,s:N,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:s,s:s,s:s,s:i,s:i,s:i}",
                         "name", u->name, "config", cfg, "explain", ex,
                         "algorithm", mma_unit_algorithm(u),
                         "a", fmt_name(u->a), "b", fmt_name(u->b), "c", fmt_name(u->c), "d", fmt_name(u->d),
                         "scale", fmt_name(u->scale),
                         "k", u->k, "block", u->block, "nscales", mma_unit_nscales(u),
                         "lmax", u->lmax, "f", u->f, "p", u->p, "g", u->g,
                         "tree", tree_names[u->tree], "align", rnd_names[u->align], "round", rnd_names[u->rho],
                         "ezero", u->ezero, "nan_any", (u->flags & MMA_F_NAN_ANY) != 0,
                         "has_flags", mma_unit_has_flags(u));
}

static PyMethodDef unit_methods[] = {
    {"info", (PyCFunction)unit_info, METH_NOARGS, "The unit's fields as a dict."},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject UnitType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mmaref._core.Unit",
    .tp_basicsize = sizeof(UnitObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A parsed unit (instruction name or configuration string).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)unit_init,
    .tp_methods = unit_methods,
};

static const mma_unit *as_unit(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &UnitType)) {
        PyErr_SetString(PyExc_TypeError, "expected an mmaref unit");
        return NULL;
    }
    return &((UnitObject *)o)->u;
}

/* ---- buffers ------------------------------------------------------------------ */
typedef struct {
    Py_buffer v;
    int held;
    int isz;          /* bytes per element */
    size_t n;         /* elements */
} buf;

/* An unsigned-integer (kind 'u') or double ('d') C-contiguous buffer; None
 * gives an empty one when allowed. */
static int get_buf(PyObject *o, buf *b, char kind, int writable, int allow_none, const char *name)
{
    memset(b, 0, sizeof *b);
    if (o == Py_None) {
        if (allow_none) return 0;
        PyErr_Format(PyExc_TypeError, "%s: an array is needed, not None", name);
        return -1;
    }
    if (PyObject_GetBuffer(o, &b->v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
    b->held = 1;
    b->isz = (int)b->v.itemsize;
    b->n = b->v.itemsize ? (size_t)(b->v.len / b->v.itemsize) : 0;
    const char *f = b->v.format ? b->v.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok = kind == 'd' ? (b->isz == 8 && *f == 'd')
           : kind == 'f' ? (b->isz == 4 && *f == 'f')
                         : ((b->isz == 1 || b->isz == 2 || b->isz == 4 || b->isz == 8) && strchr("BHILQ", *f) && f[1] == 0);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous array of %s, got format '%s' (%d bytes)", name,
                     kind == 'd' ? "float64" : kind == 'f' ? "float32" : "unsigned integers",
                     b->v.format ? b->v.format : "?", b->isz);
        PyBuffer_Release(&b->v);
        b->held = 0;
        return -1;
    }
    return 0;
}

static void rel(buf *b)
{
    if (b->held) PyBuffer_Release(&b->v);
    b->held = 0;
}

static inline uint64_t load(const buf *b, size_t i)
{
    const void *p = b->v.buf;
    switch (b->isz) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

static inline void store(buf *b, size_t i, uint64_t x)
{
    void *p = b->v.buf;
    switch (b->isz) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)x; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)x; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)x; break;
    default: ((uint64_t *)p)[i] = x; break;
    }
}

/* Do all encodings in b fit `width` bits?  Otherwise a ValueError naming
 * the argument (the model would otherwise ignore the excess bits). */
#define OR_LOOP(T) { const T *p = b->v.buf; T o0 = 0, o1 = 0, o2 = 0, o3 = 0; size_t i = 0;           \
        for (; i + 4 <= b->n; i += 4) { o0 |= p[i]; o1 |= p[i + 1]; o2 |= p[i + 2]; o3 |= p[i + 3]; } \
        for (; i < b->n; i++) o0 |= p[i];                                                             \
        return (uint64_t)(o0 | o1 | o2 | o3); }
__attribute__((optimize("O3")))
static uint64_t or_all(const buf *b)
{
    switch (b->isz) {
    case 1: OR_LOOP(uint8_t)
    case 2: OR_LOOP(uint16_t)
    case 4: OR_LOOP(uint32_t)
    default: OR_LOOP(uint64_t)
    }
}
#undef OR_LOOP

static int check_fit(const buf *b, mma_fmt f, const char *name)
{
    int w = mma_format(f)->width;
    if (!b->held || w >= 64 || b->isz * 8 <= w) return 0;
    if (!(or_all(b) >> w)) return 0;
    size_t first = 0, count = 0;
    for (size_t i = b->n; i-- > 0;)
        if (load(b, i) >> w) { first = i; count++; }
    /* (PyErr_Format has no %llx: it printed the format itself) */
    char hex[24];
    snprintf(hex, sizeof hex, "%#llx", (unsigned long long)load(b, first));
    PyErr_Format(PyExc_ValueError, "%s: %zu values do not fit %s's %d bits (the first, at flat index %zu: %s)",
                 name, count, mma_format(f)->name, w, first, hex);
    return -1;
}

/* ---- dot products ---------------------------------------------------------------- */
/* exact=True: the exact value of each chain of k/u->k dot products, on a
 * Kulisch accumulator per thread (the encodings widened by the library's
 * mma_widen into a per-thread scratch: k may exceed one dot product) */
typedef struct {
    const mma_unit *u;
    size_t k, ns;
    const buf *c, *a, *b, *sa, *sb;
    double *d;
    uint64_t *scratch;     /* per thread: a, b, sa, sb */
    mma_acc *acc;
} exact_ctx;

static const void *at(const buf *b, size_t i) { return (const char *)b->v.buf + i * (size_t)b->isz; }

static void exact_chunk(void *vctx, int tid, long lo, long hi)
{
    exact_ctx *x = vctx;
    size_t k = x->k, ns = x->ns;
    uint64_t *wa = x->scratch + (size_t)tid * (2 * k + 2 * ns), *wb = wa + k, *wsa = wb + k, *wsb = wsa + ns;
    mma_acc *acc = &x->acc[tid];
    for (long i = lo; i < hi; i++) {
        size_t s = (size_t)i;
        mma_widen(wa, at(x->a, s * k), x->a->isz, k);
        mma_widen(wb, at(x->b, s * k), x->b->isz, k);
        if (ns) {
            mma_widen(wsa, at(x->sa, s * ns), x->sa->isz, ns);
            mma_widen(wsb, at(x->sb, s * ns), x->sb->isz, ns);
        }
        mma_acc_reset(acc);
        mma_acc_chain(acc, x->u, load(x->c, s), wa, wb, ns ? wsa : NULL, ns ? wsb : NULL, (int)k);
        x->d[s] = mma_xval_double(mma_acc_value(acc));
    }
}

/* dot(unit, c, a, b, sa, sb, d, threads, exact[, flags]): n = len(c)
 * vectors of len(a)/n products; d gets the encodings (or, exact, the exact
 * values), flags (when given, not None) the exception flags of each */
static PyObject *py_dot(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *uo, *co, *ao, *bo, *sao, *sbo, *dout, *flo = Py_None;
    int threads, exact;
    if (!PyArg_ParseTuple(args, "OOOOOOOip|O", &uo, &co, &ao, &bo, &sao, &sbo, &dout, &threads, &exact, &flo))
        return NULL;
    const mma_unit *u = as_unit(uo);
    if (!u) return NULL;
    buf c, a, b, sa, sb, d, fl;
    memset(&c, 0, sizeof c); memset(&a, 0, sizeof a); memset(&b, 0, sizeof b);
    memset(&sa, 0, sizeof sa); memset(&sb, 0, sizeof sb); memset(&d, 0, sizeof d); memset(&fl, 0, sizeof fl);
    PyObject *ret = NULL;
    if (get_buf(co, &c, 'u', 0, 0, "c") || get_buf(ao, &a, 'u', 0, 0, "a") || get_buf(bo, &b, 'u', 0, 0, "b") ||
        get_buf(sao, &sa, 'u', 0, 1, "sa") || get_buf(sbo, &sb, 'u', 0, 1, "sb") ||
        get_buf(dout, &d, exact ? 'd' : 'u', 1, 0, "d") || get_buf(flo, &fl, 'u', 1, 1, "flags")) goto out;
    if (fl.held && fl.isz != 1) { PyErr_SetString(PyExc_ValueError, "flags: a uint8 array expected"); goto out; }
    size_t n = c.n, ns = (size_t)mma_unit_nscales(u), k = n ? a.n / n : (size_t)u->k;
    if ((fl.held && (exact || fl.n != n)) ||
        d.n != n || a.n != n * k || b.n != a.n || (!exact && k != (size_t)u->k) || (exact && (k == 0 || k % (size_t)u->k)) ||
        (ns && (sa.n != n * ns * (k / (size_t)u->k) || sb.n != sa.n)) || (!ns && (sa.held || sb.held))) {
        PyErr_SetString(PyExc_ValueError, "dot: array sizes do not agree with the unit");
        goto out;
    }
    if (ns) ns = sa.n / (n ? n : 1);
    if (check_fit(&c, u->c, "c") || check_fit(&a, u->a, "a") || check_fit(&b, u->b, "b") ||
        (ns && (check_fit(&sa, u->scale, "sa") || check_fit(&sb, u->scale, "sb")))) goto out;
    if (!n) { ret = Py_None; Py_INCREF(ret); goto out; }
    if (!exact) {
        mma_batch x;
        mma_batch_init(&x);
        x.n = n; x.threads = threads;
        x.c = c.v.buf; x.a = a.v.buf; x.b = b.v.buf; x.d = d.v.buf; x.flags = fl.held ? fl.v.buf : NULL;
        x.c_size = c.isz; x.a_size = a.isz; x.b_size = b.isz; x.d_size = d.isz;
        if (ns) { x.sa = sa.v.buf; x.sb = sb.v.buf; x.sa_size = sa.isz; x.sb_size = sb.isz; }
        char err[256];
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = mma_batch_dot(u, &x, err, sizeof err);
        Py_END_ALLOW_THREADS
        if (rc) { PyErr_SetString(PyExc_ValueError, err); goto out; }
    } else {
        int t = threads > 0 ? threads : mma_default_threads();
        exact_ctx x = {u, k, ns, &c, &a, &b, &sa, &sb, d.v.buf, NULL, NULL};
        x.scratch = malloc(sizeof(uint64_t) * (size_t)t * (2 * k + 2 * ns));
        x.acc = malloc(sizeof *x.acc * (size_t)t);
        if (!x.scratch || !x.acc) { free(x.scratch); free(x.acc); PyErr_NoMemory(); goto out; }
        for (int i = 0; i < t; i++) mma_acc_clear(&x.acc[i]);
        Py_BEGIN_ALLOW_THREADS
        /* chunks of 256: an exact chain is many dot products long */
        mma_parallel_for((long)n, 256, t, exact_chunk, &x, NULL, NULL);
        Py_END_ALLOW_THREADS
        free(x.scratch);
        free(x.acc);
    }
    ret = Py_None;
    Py_INCREF(ret);
out:
    rel(&c); rel(&a); rel(&b); rel(&sa); rel(&sb); rel(&d); rel(&fl);
    return ret;
}

/* result_equal(unit, x, y, out): out[i] = 1 where x[i] and y[i] match
 * under the unit's rules (NaN payload freedom) */
static PyObject *py_result_equal(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *uo, *xo, *yo, *oo;
    if (!PyArg_ParseTuple(args, "OOOO", &uo, &xo, &yo, &oo)) return NULL;
    const mma_unit *u = as_unit(uo);
    if (!u) return NULL;
    buf x, y, o;
    memset(&x, 0, sizeof x); memset(&y, 0, sizeof y); memset(&o, 0, sizeof o);
    PyObject *ret = NULL;
    if (get_buf(xo, &x, 'u', 0, 0, "x") || get_buf(yo, &y, 'u', 0, 0, "y") || get_buf(oo, &o, 'u', 1, 0, "out")) goto out;
    if (x.n != y.n || o.n != x.n) { PyErr_SetString(PyExc_ValueError, "result_equal: sizes differ"); goto out; }
    for (size_t i = 0; i < x.n; i++) store(&o, i, (uint64_t)mma_result_equal(u, load(&x, i), load(&y, i)));
    ret = Py_None;
    Py_INCREF(ret);
out:
    rel(&x); rel(&y); rel(&o);
    return ret;
}

/* ---- formats -------------------------------------------------------------------- */
static PyObject *py_formats(PyObject *self, PyObject *noargs)
{
    (void)self; (void)noargs;
    PyObject *l = PyList_New(0);
    for (int f = 1; l && f < MMA_FMT_COUNT; f++) {
        const mma_format_info *fi = mma_format((mma_fmt)f);
        PyObject *e = Py_BuildValue("{s:i,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:O,s:O,s:d}", "id", f, "name", fi->name,
                                    "width", fi->width, "hexdigits", fi->hexdigits, "ebits", fi->ebits,
                                    "mbits", fi->mbits, "bias", fi->bias, "emin", fi->emin,
                                    "has_sign", fi->has_sign ? Py_True : Py_False,
                                    "has_inf", fi->has_inf ? Py_True : Py_False,
                                    "max", mma_to_double((mma_fmt)f, mma_from_double((mma_fmt)f, 1e308, MMA_OVF_SATURATE)));
        if (!e || PyList_Append(l, e)) { Py_XDECREF(e); Py_DECREF(l); return NULL; }
        Py_DECREF(e);
    }
    return l;
}

static int fmt_arg(int f)
{
    if (f <= MMA_FMT_NONE || f >= MMA_FMT_COUNT) { PyErr_SetString(PyExc_ValueError, "unknown format id"); return -1; }
    return 0;
}

/* encode(fmt, values float64, out uint, overflow) */
static PyObject *py_encode(PyObject *self, PyObject *args)
{
    (void)self;
    int f, ovf;
    PyObject *vo, *oo;
    if (!PyArg_ParseTuple(args, "iOOi", &f, &vo, &oo, &ovf) || fmt_arg(f)) return NULL;
    buf v, o;
    if (get_buf(vo, &v, 'd', 0, 0, "x")) return NULL;
    if (get_buf(oo, &o, 'u', 1, 0, "out")) { rel(&v); return NULL; }
    if (v.n != o.n) { rel(&v); rel(&o); PyErr_SetString(PyExc_ValueError, "encode: sizes differ"); return NULL; }
    const double *x = v.v.buf;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < v.n; i++) store(&o, i, mma_from_double((mma_fmt)f, x[i], (mma_overflow)ovf));
    Py_END_ALLOW_THREADS
    rel(&v); rel(&o);
    Py_RETURN_NONE;
}

/* decode(fmt, encodings uint, out float64) */
static PyObject *py_decode(PyObject *self, PyObject *args)
{
    (void)self;
    int f;
    PyObject *eo, *oo;
    if (!PyArg_ParseTuple(args, "iOO", &f, &eo, &oo) || fmt_arg(f)) return NULL;
    buf e, o;
    if (get_buf(eo, &e, 'u', 0, 0, "x")) return NULL;
    if (get_buf(oo, &o, 'd', 1, 0, "out")) { rel(&e); return NULL; }
    if (e.n != o.n) { rel(&e); rel(&o); PyErr_SetString(PyExc_ValueError, "decode: sizes differ"); return NULL; }
    double *x = o.v.buf;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < e.n; i++) x[i] = mma_to_double((mma_fmt)f, load(&e, i));
    Py_END_ALLOW_THREADS
    rel(&e); rel(&o);
    Py_RETURN_NONE;
}

/* block_quantize(scale fmt, block, fmt, values float64 (rows of length
 * `row`), out uint64, scales uint64, overflow): blocks never cross rows */
static PyObject *py_block_quantize(PyObject *self, PyObject *args)
{
    (void)self;
    int sf, block, f, ovf;
    Py_ssize_t row;
    PyObject *vo, *oo, *so;
    if (!PyArg_ParseTuple(args, "iiinOOOi", &sf, &block, &f, &row, &vo, &oo, &so, &ovf) || fmt_arg(sf) || fmt_arg(f)) return NULL;
    buf v, o, s;
    memset(&v, 0, sizeof v); memset(&o, 0, sizeof o); memset(&s, 0, sizeof s);
    PyObject *ret = NULL;
    if (get_buf(vo, &v, 'd', 0, 0, "x") || get_buf(oo, &o, 'u', 1, 0, "out") || get_buf(so, &s, 'u', 1, 0, "scales")) goto out;
    if (block < 1 || row < 1 || row % block || v.n % (size_t)row || o.n != v.n || o.isz != 8 || s.isz != 8 ||
        s.n != v.n / (size_t)block) {
        PyErr_SetString(PyExc_ValueError, "block_quantize: sizes do not agree");
        goto out;
    }
    size_t rows = v.n / (size_t)row;
    Py_BEGIN_ALLOW_THREADS
    for (size_t r = 0; r < rows; r++)
        mma_block_quantize((mma_fmt)sf, block, (mma_fmt)f, (const double *)v.v.buf + r * (size_t)row, row,
                           (uint64_t *)o.v.buf + r * (size_t)row, (uint64_t *)s.v.buf + r * (size_t)(row / block),
                           (mma_overflow)ovf);
    Py_END_ALLOW_THREADS
    ret = Py_None;
    Py_INCREF(ret);
out:
    rel(&v); rel(&o); rel(&s);
    return ret;
}

/* ---- GEMM ----------------------------------------------------------------------- */
/* gemm(unit, mode, nc, m, n, k, A, Bt, sa, sb, C, D, X, threads): uint64
 * buffers; D (uint64) or, when X is not None, X (float64, exact values) */
static PyObject *py_gemm(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *uo, *Ao, *Bo, *sao, *sbo, *Co, *Do, *Xo;
    int mode, nc, k, threads;
    Py_ssize_t m, n;
    if (!PyArg_ParseTuple(args, "OiinniOOOOOOOi", &uo, &mode, &nc, &m, &n, &k, &Ao, &Bo, &sao, &sbo, &Co, &Do, &Xo, &threads))
        return NULL;
    const mma_unit *u = as_unit(uo);
    if (!u) return NULL;
    buf A, B, sa, sb, C, D, X;
    buf *all[] = {&A, &B, &sa, &sb, &C, &D, &X};
    for (int i = 0; i < 7; i++) memset(all[i], 0, sizeof *all[i]);
    PyObject *ret = NULL;
    int ns = mma_unit_nscales(u) && k > 0 ? k / u->block : 0;
    if (get_buf(Ao, &A, 'u', 0, 0, "A") || get_buf(Bo, &B, 'u', 0, 0, "B") || get_buf(sao, &sa, 'u', 0, 1, "sa") ||
        get_buf(sbo, &sb, 'u', 0, 1, "sb") || get_buf(Co, &C, 'u', 0, 1, "C") || get_buf(Do, &D, 'u', 1, 1, "D") ||
        get_buf(Xo, &X, 'd', 1, 1, "exact")) goto out;
    size_t mn = (size_t)m * (size_t)n;
    int bad = A.isz != 8 || B.isz != 8 || A.n != (size_t)m * (size_t)k || B.n != (size_t)n * (size_t)k ||
              (C.held && (C.isz != 8 || C.n != mn)) || (X.held ? X.n != mn : (!D.held || D.isz != 8 || D.n != mn)) ||
              (ns && (!sa.held || !sb.held || sa.isz != 8 || sb.isz != 8 || sa.n != (size_t)m * (size_t)ns ||
                      sb.n != (size_t)n * (size_t)ns));
    if (bad) { PyErr_SetString(PyExc_ValueError, "gemm: array sizes do not agree with m, n, k"); goto out; }
    char err[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mma_gemm(u, (mma_gemm_mode)mode, nc, (long)m, (long)n, k, A.v.buf, B.v.buf, ns ? sa.v.buf : NULL,
                  ns ? sb.v.buf : NULL, C.held ? C.v.buf : NULL, D.held ? D.v.buf : NULL,
                  X.held ? X.v.buf : NULL, threads, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) { PyErr_SetString(PyExc_ValueError, err); goto out; }
    ret = Py_None;
    Py_INCREF(ret);
out:
    for (int i = 0; i < 7; i++) rel(all[i]);
    return ret;
}

/* gemm_scaled(unit, mode, nc, w, m, n, k, A, Bt, sa, sb, xa, xb, C, D, threads):
 * uint64 buffers, float32 scales xa (m x k/w) and xb (n x k/w); D uint64 */
static PyObject *py_gemm_scaled(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *uo, *Ao, *Bo, *sao, *sbo, *xao, *xbo, *Co, *Do;
    int mode, nc, w, k, threads;
    Py_ssize_t m, n;
    if (!PyArg_ParseTuple(args, "OiiinniOOOOOOOOi", &uo, &mode, &nc, &w, &m, &n, &k, &Ao, &Bo, &sao, &sbo, &xao, &xbo,
                          &Co, &Do, &threads))
        return NULL;
    const mma_unit *u = as_unit(uo);
    if (!u) return NULL;
    buf A, B, sa, sb, xa, xb, C, D;
    buf *all[] = {&A, &B, &sa, &sb, &xa, &xb, &C, &D};
    for (int i = 0; i < 8; i++) memset(all[i], 0, sizeof *all[i]);
    PyObject *ret = NULL;
    int ns = mma_unit_nscales(u) && k > 0 ? k / u->block : 0;
    size_t nw = w > 0 && k > 0 ? (size_t)(k / w) : 0;
    if (get_buf(Ao, &A, 'u', 0, 0, "A") || get_buf(Bo, &B, 'u', 0, 0, "B") || get_buf(sao, &sa, 'u', 0, 1, "sa") ||
        get_buf(sbo, &sb, 'u', 0, 1, "sb") || get_buf(xao, &xa, 'f', 0, 0, "scale_a") ||
        get_buf(xbo, &xb, 'f', 0, 0, "scale_b") || get_buf(Co, &C, 'u', 0, 1, "C") || get_buf(Do, &D, 'u', 1, 0, "D"))
        goto out;
    size_t mn = (size_t)m * (size_t)n;
    int bad = A.isz != 8 || B.isz != 8 || A.n != (size_t)m * (size_t)k || B.n != (size_t)n * (size_t)k ||
              xa.isz != 4 || xb.isz != 4 || xa.n != (size_t)m * nw || xb.n != (size_t)n * nw ||
              (C.held && (C.isz != 8 || C.n != mn)) || D.isz != 8 || D.n != mn ||
              (ns && (!sa.held || !sb.held || sa.isz != 8 || sb.isz != 8 || sa.n != (size_t)m * (size_t)ns ||
                      sb.n != (size_t)n * (size_t)ns));
    if (bad) { PyErr_SetString(PyExc_ValueError, "gemm_scaled: array sizes do not agree with m, n, k, w"); goto out; }
    char err[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mma_gemm_scaled(u, (mma_gemm_mode)mode, nc, w, (long)m, (long)n, k, A.v.buf, B.v.buf, ns ? sa.v.buf : NULL,
                         ns ? sb.v.buf : NULL, xa.v.buf, xb.v.buf, C.held ? C.v.buf : NULL, D.v.buf, threads, err,
                         sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) { PyErr_SetString(PyExc_ValueError, err); goto out; }
    ret = Py_None;
    Py_INCREF(ret);
out:
    for (int i = 0; i < 8; i++) rel(all[i]);
    return ret;
}

/* ---- metrics runs ------------------------------------------------------------------- */
static int units_of(PyObject *seq, mma_unit **out, Py_ssize_t *nu)
{
    PyObject *f = PySequence_Fast(seq, "units: a sequence of units");
    if (!f) return -1;
    *nu = PySequence_Fast_GET_SIZE(f);
    *out = calloc((size_t)(*nu ? *nu : 1), sizeof **out);
    if (!*out) { Py_DECREF(f); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < *nu; i++) {
        const mma_unit *u = as_unit(PySequence_Fast_GET_ITEM(f, i));
        if (!u) { Py_DECREF(f); free(*out); return -1; }
        (*out)[i] = *u;
    }
    Py_DECREF(f);
    return 0;
}

static PyObject *row_tuple(const mma_row *r, int gemm)
{
    int nf = gemm ? MMA_GEMM_NFIG : MMA_METRICS_NFIG;
    double v[MMA_GEMM_NFIG > MMA_METRICS_NFIG ? MMA_GEMM_NFIG : MMA_METRICS_NFIG];
    if (gemm) mma_gemm_figures(r, v); else mma_metrics_figures(r, v);
    PyObject *figs = PyTuple_New(nf);
    if (!figs) return NULL;
    for (int i = 0; i < nf; i++) PyTuple_SET_ITEM(figs, i, PyFloat_FromDouble(v[i]));
    return Py_BuildValue("(sssiN)", r->config, r->mode, mma_format(r->out)->name, r->nc, figs);
}

/* metrics_run(units, gemm, dist, scale, k, count, seed, zero_c, quant,
 * threads, modes, nc, ntrun) -> (k, rows) or (k, tmax, sweeps) */
static PyObject *py_metrics_run(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *units, *modes;
    int gemm, dist, k, zero_c, quant, threads, nc, ntrun;
    double scale;
    long count;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OpidilKpiiOip", &units, &gemm, &dist, &scale, &k, &count, &seed, &zero_c, &quant,
                          &threads, &modes, &nc, &ntrun)) return NULL;
    if (quant < 0 || quant >= MMA_FMT_COUNT) { PyErr_SetString(PyExc_ValueError, "quant: unknown format id"); return NULL; }
    mma_unit *u;
    Py_ssize_t nu;
    if (units_of(units, &u, &nu)) return NULL;
    mma_metrics_opts o;
    mma_metrics_defaults(&o);
    o.dist = (mma_dist)dist; o.scale = scale; o.k = k; o.count = count; o.seed = seed; o.zero_c = zero_c;
    o.quant = (mma_fmt)quant; o.threads = threads; o.nc = nc; o.ntrun = ntrun;
    PyObject *mf = PySequence_Fast(modes, "modes: a sequence");
    if (!mf) { free(u); return NULL; }
    o.nmodes = (int)PySequence_Fast_GET_SIZE(mf);
    for (int i = 0; i < o.nmodes && i < MMA_GEMM_NMODES; i++) o.modes[i] = (mma_gemm_mode)PyLong_AsLong(PySequence_Fast_GET_ITEM(mf, i));
    Py_DECREF(mf);
    if (o.nmodes > MMA_GEMM_NMODES || PyErr_Occurred()) { free(u); if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "modes: at most 3"); return NULL; }
    if (!o.k) for (Py_ssize_t j = 0; j < nu; j++) if (u[j].k > o.k) o.k = u[j].k;
    int nr = gemm && !ntrun ? (int)nu * o.nmodes : (int)nu;
    mma_row *rows = calloc((size_t)(nr ? nr : 1), sizeof *rows);
    float **chg = calloc((size_t)(nu ? nu : 1), sizeof *chg);
    char err[1024] = "";
    int rc = -1, tmax = 0;
    PyObject *ret = NULL;
    if (!rows || !chg) { PyErr_NoMemory(); goto out; }
    Py_BEGIN_ALLOW_THREADS
    rc = gemm ? mma_gemm_run(&o, u, (int)nu, rows, chg, &tmax, err, sizeof err)
              : mma_metrics_run(&o, u, (int)nu, rows, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (rc) { PyErr_SetString(PyExc_ValueError, err); goto out; }
    PyObject *l = PyList_New(0);
    if (!l) goto out;
    if (gemm && ntrun) {
        double *fr = malloc(sizeof(double) * (size_t)(tmax + 1) * 3);
        for (Py_ssize_t j = 0; fr && j < nu; j++) {
            int first = mma_ntrun_summary(chg[j], count, tmax, fr, fr + tmax + 1, fr + 2 * (tmax + 1));
            PyObject *sw = PyList_New(0);
            for (int t = 0; sw && t <= tmax; t++) {
                PyObject *e = Py_BuildValue("(iddd)", t, fr[t], fr[tmax + 1 + t], fr[2 * (tmax + 1) + t]);
                if (e) { PyList_Append(sw, e); Py_DECREF(e); }
            }
            PyObject *e = sw ? Py_BuildValue("(iN)", first, sw) : NULL;
            if (e) { PyList_Append(l, e); Py_DECREF(e); }
        }
        free(fr);
        ret = Py_BuildValue("(iiN)", o.k, tmax, l);
    } else {
        for (int r = 0; r < nr; r++) {
            PyObject *e = row_tuple(&rows[r], gemm);
            if (!e || PyList_Append(l, e)) { Py_XDECREF(e); Py_DECREF(l); l = NULL; break; }
            Py_DECREF(e);
        }
        if (l) ret = Py_BuildValue("(iiN)", o.k, 0, l);
    }
out:
    if (rc == 0 && !(gemm && ntrun)) for (int r = 0; r < nr; r++) mma_row_free(&rows[r]);
    if (chg) for (Py_ssize_t j = 0; j < nu; j++) free(chg[j]);
    free(chg); free(rows); free(u);
    return ret;
}

static PyObject *figure_names(const mma_figure *f, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, Py_BuildValue("(sO)", f[i].name, f[i].is_count ? Py_True : Py_False));
    return t;
}

/* ---- vector files ------------------------------------------------------------------ */
typedef struct { uint64_t *p; size_t n, cap; } vec64;

static int push(vec64 *v, const uint64_t *x, size_t n)
{
    if (v->n + n > v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4096;
        while (cap < v->n + n) cap *= 2;
        uint64_t *p = realloc(v->p, cap * sizeof *p);
        if (!p) return -1;
        v->p = p;
        v->cap = cap;
    }
    memcpy(v->p + v->n, x, n * sizeof *x);
    v->n += n;
    return 0;
}

static PyObject *bytes_of(const vec64 *v)
{
    return PyBytes_FromStringAndSize((const char *)v->p, (Py_ssize_t)(v->n * sizeof(uint64_t)));
}

/* read_vectors(path, instr or None) -> dict(unit, c, a, b, sa, sb, d, line,
 * n, has_d, headers): arrays as bytes of uint64 */
static PyObject *py_read_vectors(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path, *instr = NULL;
    if (!PyArg_ParseTuple(args, "s|z", &path, &instr)) return NULL;
    char err[1024];
    mma_vec_reader *r;
    Py_BEGIN_ALLOW_THREADS
    r = mma_vec_open(path, instr, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (!r) { PyErr_SetString(Error, err); return NULL; }
    const mma_unit *u = mma_vec_unit(r);
    int ns = mma_unit_nscales(u);
    vec64 c = {0}, a = {0}, b = {0}, sa = {0}, sb = {0}, d = {0}, ln = {0}, fl = {0};
    mma_vec *v = malloc(sizeof *v);
    int rc = v ? 0 : -1, oom = 0;
    size_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    while (v && (rc = mma_vec_next(r, v, err, sizeof err)) == 1) {
        uint64_t line = (uint64_t)v->line, flags = v->flags;
        if (push(&c, &v->c, 1) || push(&a, v->a, (size_t)u->k) || push(&b, v->b, (size_t)u->k) ||
            push(&sa, v->sa, (size_t)ns) || push(&sb, v->sb, (size_t)ns) || push(&d, &v->d, 1) || push(&ln, &line, 1) ||
            push(&fl, &flags, 1)) {
            oom = 1;
            break;
        }
        n++;
    }
    Py_END_ALLOW_THREADS
    PyObject *ret = NULL;
    if (oom || !v) PyErr_NoMemory();
    else if (rc < 0) PyErr_SetString(Error, err);
    else {
        char cfg[1024];
        mma_unit_config(u, cfg, sizeof cfg);
        const char **extra;
        int ne = mma_vec_extra_headers(r, &extra);
        PyObject *hl = PyList_New(0);
        for (int i = 0; hl && i < ne; i++) {
            PyObject *s = PyUnicode_FromString(extra[i]);
            if (s) { PyList_Append(hl, s); Py_DECREF(s); }
        }
        ret = Py_BuildValue("{s:s,s:s,s:n,s:O,s:O,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "name", u->name, "config", cfg,
                            "n", (Py_ssize_t)n, "has_d", mma_vec_has_d(r) ? Py_True : Py_False,
                            "has_flags", mma_vec_has_flags(r) ? Py_True : Py_False,
                            "c", bytes_of(&c), "a", bytes_of(&a), "b", bytes_of(&b), "sa", bytes_of(&sa),
                            "sb", bytes_of(&sb), "d", bytes_of(&d), "line", bytes_of(&ln), "flags", bytes_of(&fl),
                            "headers", hl);
    }
    free(v);
    free(c.p); free(a.p); free(b.p); free(sa.p); free(sb.p); free(d.p); free(ln.p); free(fl.p);
    mma_vec_close(r);
    return ret;
}

/* format_vectors(unit, c, a, b, sa, sb, d[, flags]) -> str: the header and
 * one line per vector (uint64 arrays; flags for a unit with flags) */
static PyObject *py_format_vectors(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *uo, *co, *ao, *bo, *sao, *sbo, *dout, *flo = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOOOO|O", &uo, &co, &ao, &bo, &sao, &sbo, &dout, &flo)) return NULL;
    const mma_unit *u = as_unit(uo);
    if (!u) return NULL;
    buf c, a, b, sa, sb, d, fl;
    buf *all[] = {&c, &a, &b, &sa, &sb, &d, &fl};
    for (int i = 0; i < 7; i++) memset(all[i], 0, sizeof *all[i]);
    PyObject *ret = NULL;
    char *text = NULL;
    size_t len = 0;
    int ns = mma_unit_nscales(u);
    if (get_buf(co, &c, 'u', 0, 0, "c") || get_buf(ao, &a, 'u', 0, 0, "a") || get_buf(bo, &b, 'u', 0, 0, "b") ||
        get_buf(sao, &sa, 'u', 0, 1, "sa") || get_buf(sbo, &sb, 'u', 0, 1, "sb") || get_buf(dout, &d, 'u', 0, 0, "d") ||
        get_buf(flo, &fl, 'u', 0, 1, "flags")) goto out;
    size_t n = c.n, k = (size_t)u->k;
    if (a.n != n * k || b.n != n * k || d.n != n || (ns && (sa.n != n * (size_t)ns || sb.n != sa.n)) ||
        (mma_unit_has_flags(u) ? fl.n != n : fl.held)) {
        PyErr_SetString(PyExc_ValueError, "format_vectors: sizes do not agree with the unit");
        goto out;
    }
    FILE *f = open_memstream(&text, &len);
    if (!f) { PyErr_NoMemory(); goto out; }
    mma_vec_write_header(f, u);
    fprintf(f, "# source: mmaref %s (Python)\n", MMAREF_VERSION);
    mma_vec *v = malloc(sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        memset(v, 0, sizeof *v);
        v->c = load(&c, i);
        v->d = load(&d, i);
        for (size_t j = 0; j < k; j++) { v->a[j] = load(&a, i * k + j); v->b[j] = load(&b, i * k + j); }
        for (int j = 0; j < ns; j++) { v->sa[j] = load(&sa, i * (size_t)ns + (size_t)j); v->sb[j] = load(&sb, i * (size_t)ns + (size_t)j); }
        if (fl.held) v->flags = (unsigned)load(&fl, i);
        mma_vec_write(f, u, v);
    }
    int bad = !v;
    free(v);
    fclose(f);
    if (bad) PyErr_NoMemory();
    else ret = PyUnicode_FromStringAndSize(text, (Py_ssize_t)len);
out:
    free(text);
    for (int i = 0; i < 7; i++) rel(all[i]);
    return ret;
}

/* ---- the module ------------------------------------------------------------------------ */
static PyObject *py_default_threads(PyObject *self, PyObject *noargs)
{
    (void)self; (void)noargs;
    return PyLong_FromLong(mma_default_threads());
}

static PyObject *py_catalogue(PyObject *self, PyObject *noargs)
{
    (void)self; (void)noargs;
    PyObject *l = PyList_New(0);
    size_t n = mma_catalogue_size();
    for (size_t i = 0; l && i < n; i++) {
        mma_catalogue_entry e;
        mma_unit u;
        mma_catalogue_get(i, &e, &u);
        PyObject *s = PyUnicode_FromFormat("%s:%s", e.arch, e.qualifier);
        if (s) { PyList_Append(l, s); Py_DECREF(s); }
    }
    return l;
}

/* ---- DLPack (for the CUDA backend's module, _cuda.c) ------------------------ */

/* The DLPack structures (dlpack.h, the stable ABI of its 0.x / legacy
 * "dltensor" capsules), for reading a producer's tensor: no ownership is
 * taken (the capsule keeps its name, so its destructor frees it). */
typedef struct { int32_t device_type, device_id; } dl_device;
typedef struct { uint8_t code, bits; uint16_t lanes; } dl_dtype;
typedef struct {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_dtype dtype;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} dl_tensor;

/* dlpack(capsule) -> (pointer, device_type, device_id, code, bits, lanes,
 * shape, strides or None) */
static PyObject *py_dlpack(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap;
    if (!PyArg_ParseTuple(args, "O", &cap)) return NULL;
    if (!PyCapsule_IsValid(cap, "dltensor")) {
        PyErr_SetString(PyExc_TypeError, "expected a DLPack capsule (from __dlpack__())");
        return NULL;
    }
    const dl_tensor *t = PyCapsule_GetPointer(cap, "dltensor");   /* (DLManagedTensor starts with it) */
    if (!t) return NULL;
    if (t->ndim < 0 || t->ndim > 64) { PyErr_SetString(PyExc_ValueError, "DLPack: bad ndim"); return NULL; }
    PyObject *shape = PyTuple_New(t->ndim), *strides = t->strides ? PyTuple_New(t->ndim) : (Py_INCREF(Py_None), Py_None);
    if (!shape || !strides) { Py_XDECREF(shape); Py_XDECREF(strides); return NULL; }
    for (int i = 0; i < t->ndim; i++) {
        PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->shape[i]));
        if (t->strides) PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t->strides[i]));
    }
    return Py_BuildValue("(KiiiiiNN)", (unsigned long long)((uintptr_t)t->data + t->byte_offset),
                         (int)t->device.device_type, (int)t->device.device_id, (int)t->dtype.code, (int)t->dtype.bits,
                         (int)t->dtype.lanes, shape, strides);
}


static PyMethodDef methods[] = {
    {"dot", py_dot, METH_VARARGS, "dot products (or exact values) of a batch"},
    {"result_equal", py_result_equal, METH_VARARGS, "elementwise result equality under a unit's rules"},
    {"formats", py_formats, METH_NOARGS, "the formats"},
    {"encode", py_encode, METH_VARARGS, "float64 to encodings"},
    {"decode", py_decode, METH_VARARGS, "encodings to float64"},
    {"block_quantize", py_block_quantize, METH_VARARGS, "block-scaled quantization"},
    {"gemm", py_gemm, METH_VARARGS, "a whole GEMM"},
    {"gemm_scaled", py_gemm_scaled, METH_VARARGS, "a whole GEMM with scales applied in FP32 outside the unit"},
    {"metrics_run", py_metrics_run, METH_VARARGS, "the runs of mmaref metrics / gemm"},
    {"read_vectors", py_read_vectors, METH_VARARGS, "read a vector file"},
    {"format_vectors", py_format_vectors, METH_VARARGS, "vector file text"},
    {"default_threads", py_default_threads, METH_NOARGS, "online cores"},
    {"catalogue", py_catalogue, METH_NOARGS, "instruction names"},
    {"dlpack", py_dlpack, METH_VARARGS, "a DLPack capsule's tensor: pointer, device, dtype, shape, strides"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The mmaref C library.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&UnitType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Error = PyErr_NewExceptionWithDoc("mmaref.Error",
                                      "An error the mmaref library reported: an unknown unit, a bad configuration "
                                      "string, a malformed vector file (the message names file, line and field).",
                                      PyExc_ValueError, NULL);
    Py_INCREF(&UnitType);
    if (PyModule_AddObject(m, "Unit", (PyObject *)&UnitType) || PyModule_AddObject(m, "Error", Error) ||
        PyModule_AddStringConstant(m, "VERSION", MMAREF_VERSION) ||
        PyModule_AddObject(m, "METRICS_FIGURES", figure_names(mma_metrics_figure, MMA_METRICS_NFIG)) ||
        PyModule_AddObject(m, "GEMM_FIGURES", figure_names(mma_gemm_figure, MMA_GEMM_NFIG)) ||
        PyModule_AddIntConstant(m, "OVF_INF", MMA_OVF_INF) || PyModule_AddIntConstant(m, "OVF_SATURATE", MMA_OVF_SATURATE) ||
        PyModule_AddIntConstant(m, "OVF_NAN", MMA_OVF_NAN) ||
        PyModule_AddIntConstant(m, "FLAG_INEXACT", MMA_FLAG_INEXACT) ||
        PyModule_AddIntConstant(m, "FLAG_UNDERFLOW", MMA_FLAG_UNDERFLOW) ||
        PyModule_AddIntConstant(m, "FLAG_OVERFLOW", MMA_FLAG_OVERFLOW) ||
        PyModule_AddIntConstant(m, "FLAG_INFINITE", MMA_FLAG_INFINITE) ||
        PyModule_AddIntConstant(m, "FLAG_INVALID", MMA_FLAG_INVALID)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
