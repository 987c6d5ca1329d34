/* libFuzzer target: .dut descriptions of a unit to verify (verify/dut.c,
 * dut_read_stream): the input is the file.  It is read, or refused with a
 * message naming the file and line; either way everything is freed. */
#include "fuzz.h"
#include "dut.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static dut_desc d;               /* large: not on the stack */
    char err[1024] = "";
    FILE *f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
    FUZZ_CHECK(f, "fmemopen");
    int rc = dut_read_stream(f, "fuzz.dut", &d, err, sizeof err);
    FUZZ_CHECK(rc == 0 || !strncmp(err, "fuzz.dut", 8), "refused without a message naming the file: '%s'", err);
    dut_free(&d);
    fclose(f);
    return 0;
}
