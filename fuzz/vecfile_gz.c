/* libFuzzer target: gzip-compressed vector files (the input is the .vec.gz
 * file, read through gzip): opened, or refused with a message naming it. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_compressed(data, size, ".gz");
    return 0;
}
