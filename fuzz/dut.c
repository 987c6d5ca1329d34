/* libFuzzer target: .dut descriptions of `mmaref verify` (verify/dut.c),
 * read as if from fuzz.dut in the current directory (the repository's
 * root: the seed corpus names the examples' sources from there).  The
 * reader returns 0, or -1 with a message naming the description and the
 * line; a description it accepts has the keys every unit needs. */
#include "fuzz.h"
#include "../verify/dut.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static dut_desc d;
    static char text[1 << 16];
    char err[2048] = "";
    if (size >= sizeof text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    FILE *f = fmemopen(text, size + 1, "r");
    FUZZ_CHECK(f, "fmemopen");
    int rc = dut_read_stream(f, "fuzz.dut", &d, err, sizeof err);
    fclose(f);
    if (rc) FUZZ_CHECK(!strncmp(err, "fuzz.dut:", 9), "a rejection without file and line: '%s'", err);
    else FUZZ_CHECK(d.top.line && d.nmodes && d.a.line && d.b.line && d.c.line && d.d.line && d.nsources,
                    "a description accepted without its top, unit or ports");
    dut_free(&d);
    return 0;
}
