/* libFuzzer target: xz-compressed vector files (the input is the .vec.xz
 * file, read through xz): opened, or refused with a message naming it. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_compressed(data, size, ".xz");
    return 0;
}
