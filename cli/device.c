/* --device: where gen, run, check and bench compute their dot products.
 * cpu is the library (mma_dot, mma_batch_dot); cuda is the CUDA backend
 * (cuda/mmaref_cuda.h), linked in when the command is built with
 * MMAREF_CUDA=1 (mk/cuda.mk), else refused with a message that says so.
 * MMAREF_CUDA_EMULATE=1 in the environment runs the GPU kernel's body on
 * the host instead of the GPU (tests of the command's batching on machines
 * without a GPU). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#ifdef MMAREF_CUDA
#include "mmaref_cuda.h"
#endif

int cli_device_arg(const char *cmd, const char *arg, int *device)
{
    if (!strcmp(arg, "cpu")) { *device = CLI_DEV_CPU; return 0; }
    if (strcmp(arg, "cuda")) {
        fprintf(stderr, "mmaref %s: --device: '%s' is none of cpu, cuda\n", cmd, arg);
        return -1;
    }
#ifdef MMAREF_CUDA
    *device = CLI_DEV_CUDA;
    return 0;
#else
    fprintf(stderr, "mmaref %s: --device cuda: this mmaref was built without the CUDA backend "
                    "(build it with make MMAREF_CUDA=1 where nvcc is installed)\n", cmd);
    return -1;
#endif
}

#ifdef MMAREF_CUDA
static int emulate(void)
{
    const char *e = getenv("MMAREF_CUDA_EMULATE");
    return e && !strcmp(e, "1");
}

struct cli_dev { mma_cuda_ctx *c; };

cli_dev *cli_dev_open(char *err, size_t len)
{
    cli_dev *d = calloc(1, sizeof *d);
    if (!d) { snprintf(err, len, "out of memory"); return NULL; }
    if (!emulate() && !(d->c = mma_cuda_ctx_new(err, len))) { free(d); return NULL; }
    return d;
}

int cli_dev_batch(cli_dev *d, const mma_unit *u, const mma_batch *x, char *err, size_t len)
{
    if (d->c) return mma_batch_dot_cuda_ctx(d->c, u, x, err, len);
    mma_batch y = *x;
    y.threads = 1;
    return mma_batch_dot_cuda_host(u, &y, err, len);
}

void cli_dev_close(cli_dev *d)
{
    if (!d) return;
    mma_cuda_ctx_free(d->c);
    free(d);
}

void cli_dev_launch(int block, int per_sm) { mma_cuda_launch(block, per_sm); }

int cli_dev_name(char *buf, size_t len, char *err, size_t errlen)
{
    if (emulate()) { snprintf(buf, len, "the GPU kernel's body on the host (MMAREF_CUDA_EMULATE=1)"); return 0; }
    return mma_cuda_device(buf, len, err, errlen);
}

int cli_dev_bench(const mma_unit *u, const mma_batch *x, int reps, double *seconds, char *info, size_t infolen,
                  char *err, size_t errlen)
{
    if (emulate()) {
        double t0 = mma_now();
        for (int r = 0; r < reps; r++)
            if (mma_batch_dot_cuda_host(u, x, err, errlen)) return -1;
        *seconds = mma_now() - t0;
        snprintf(info, infolen, "host");
        return 0;
    }
    if (mma_cuda_bench(u, x, reps, seconds, err, errlen)) return -1;
    mma_cuda_kernel_info(u, info, infolen);
    return 0;
}
#else
struct cli_dev { int unused; };
cli_dev *cli_dev_open(char *err, size_t len)
{
    snprintf(err, len, "built without the CUDA backend");
    return NULL;
}
int cli_dev_batch(cli_dev *d, const mma_unit *u, const mma_batch *x, char *err, size_t len)
{
    (void)d; (void)u; (void)x;
    snprintf(err, len, "built without the CUDA backend");
    return -1;
}
void cli_dev_close(cli_dev *d) { (void)d; }
void cli_dev_launch(int block, int per_sm) { (void)block; (void)per_sm; }
int cli_dev_name(char *buf, size_t len, char *err, size_t errlen)
{
    (void)buf; (void)len;
    snprintf(err, errlen, "built without the CUDA backend");
    return -1;
}
int cli_dev_bench(const mma_unit *u, const mma_batch *x, int reps, double *seconds, char *info, size_t infolen,
                  char *err, size_t errlen)
{
    (void)u; (void)x; (void)reps; (void)seconds; (void)info; (void)infolen;
    snprintf(err, errlen, "built without the CUDA backend");
    return -1;
}
#endif
