/* libFuzzer target: plain vector files (mma_vec_open_stream, mma_vec_next):
 * the input is the file.  It must open or be refused with a message naming
 * the file; every vector read is computed, and the first ones written back
 * out read back the same. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024] = "";
    FILE *f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
    FUZZ_CHECK(f, "fmemopen");
    mma_vec_reader *r = mma_vec_open_stream(f, "fuzz.vec", NULL, err, sizeof err);
    if (r) {
        fuzz_read_vectors(r, "fuzz.vec");
        mma_vec_close(r);
    } else
        FUZZ_CHECK(!strncmp(err, "fuzz.vec", 8), "not opened, without a message naming the file: '%s'", err);
    fclose(f);
    return 0;
}
