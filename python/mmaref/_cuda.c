/* mmaref._cuda: the CUDA backend (cuda/mmaref_cuda.h) for Python, built by
 * setup.py where nvcc is found.  A module of its own, imported only when a
 * CUDA array is given: it needs the CUDA runtime (libcudart, linked
 * dynamically: its static form cannot be loaded into a process after start,
 * its thread-local storage being of the static model), which a CPU-only
 * installation of mmaref must not need.  Translation only: device pointers
 * in (mmaref/_tensors.py reads them through DLPack), mma_batch_dot_cuda. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>

#include "mmaref.h"
#include "mmaref_cuda.h"

/* (the CUDA runtime: the process's current device is the framework's too) */
int cudaGetDevice(int *device);
int cudaSetDevice(int device);

static PyObject *Error;

/* dot(unit_text, n, device, stream, c, cs, a, as, b, bs, sa, ss, sb, d, ds, flags):
 * pointers (int) into the memory of CUDA device `device`, element sizes;
 * the batch queued on stream (not waited for) */
static PyObject *py_dot(PyObject *self, PyObject *args)
{
    (void)self;
    const char *text;
    unsigned long long n, stream, c, a, b, sa, sb, d, fl;
    int dev, cs, as, bs, ss, ds;
    if (!PyArg_ParseTuple(args, "sKiKKiKiKiKiKKiK", &text, &n, &dev, &stream, &c, &cs, &a, &as, &b, &bs, &sa, &ss,
                          &sb, &d, &ds, &fl))
        return NULL;
    mma_unit u;
    char err[1024];
    if (mma_unit_parse(text, &u, err, sizeof err)) { PyErr_SetString(Error, err); return NULL; }
    mma_batch x;
    mma_batch_init(&x);
    x.n = n;
    x.c = (const void *)(uintptr_t)c; x.a = (const void *)(uintptr_t)a; x.b = (const void *)(uintptr_t)b;
    x.sa = (const void *)(uintptr_t)sa; x.sb = (const void *)(uintptr_t)sb;
    x.d = (void *)(uintptr_t)d; x.flags = (uint8_t *)(uintptr_t)fl;
    x.c_size = cs; x.a_size = as; x.b_size = bs; x.sa_size = x.sb_size = ss; x.d_size = ds;
    int rc = -1, old = 0;
    Py_BEGIN_ALLOW_THREADS
    if (cudaGetDevice(&old) || cudaSetDevice(dev)) snprintf(err, sizeof err, "CUDA device %d cannot be used", dev);
    else {
        rc = mma_batch_dot_cuda(&u, &x, (void *)(uintptr_t)stream, err, sizeof err);
        cudaSetDevice(old);
    }
    Py_END_ALLOW_THREADS
    if (rc) { PyErr_SetString(Error, err); return NULL; }
    Py_RETURN_NONE;
}

static PyObject *py_device(PyObject *self, PyObject *noargs)
{
    (void)self; (void)noargs;
    char name[512], err[512];
    if (mma_cuda_device(name, sizeof name, err, sizeof err)) { PyErr_SetString(Error, err); return NULL; }
    return PyUnicode_FromString(name);
}

static PyMethodDef methods[] = {
    {"dot", py_dot, METH_VARARGS, "a batch on the GPU (device pointers)"},
    {"device", py_device, METH_NOARGS, "the CUDA device, or Error"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cuda", "The mmaref CUDA backend.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cuda(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *core = PyImport_ImportModule("mmaref._core");     /* its Error, for one exception type */
    Error = core ? PyObject_GetAttrString(core, "Error") : NULL;
    Py_XDECREF(core);
    if (!Error) { Py_DECREF(m); return NULL; }
    return m;
}
