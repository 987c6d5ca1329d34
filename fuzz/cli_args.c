/* libFuzzer target: the command line of mmaref.  The input is an argument
 * list (arguments separated by NUL bytes) for the commands that parse and
 * compute without files (list, describe, eval, version, help) and for the
 * argument parsers every command shares (counts, shards, thread counts,
 * hex operands, option errors).  Every call must return 0 or 2 (never crash,
 * never another status), and a refusal must come with a message. */
#include "fuzz.h"

#define main mmaref_cli_main
#include "../cli/main.c"
#undef main

static char msg[4096];

/* stderr into a buffer, to see that a refusal said something */
static FILE *capture(void)
{
    FILE *f = fmemopen(msg, sizeof msg, "w");
    if (f) setvbuf(f, NULL, _IONBF, 0);
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null_out;
    if (!null_out) null_out = fopen("/dev/null", "w");
    enum { MAXARG = 16 };
    char buf[2048], *argv[MAXARG + 2];
    if (size >= sizeof buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    int argc = 1;
    argv[0] = "mmaref";
    for (char *p = buf; p < buf + size && argc < MAXARG; p += strlen(p) + 1) argv[argc++] = p;
    argv[argc] = NULL;
    if (argc < 2) return 0;
    /* only commands that neither read nor write files nor run for long */
    static const char *const safe[] = {"list", "describe", "eval", "version", "help", "--help", "--version", "-h"};
    int ok = 0;
    for (size_t i = 0; i < sizeof safe / sizeof safe[0]; i++) ok |= !strcmp(argv[1], safe[i]);
    FILE *saved_err = stderr, *saved_out = stdout;
    memset(msg, 0, sizeof msg);
    FILE *cap = capture();
    if (!cap) return 0;
    stderr = cap;
    stdout = null_out;
    if (ok) {
        char *copy[MAXARG + 2];                 /* (main takes --quiet out of its argv) */
        memcpy(copy, argv, sizeof copy);
        int rc = mmaref_cli_main(argc, copy);
        FUZZ_CHECK(rc == 0 || rc == 2, "'%s %s' returned %d", argv[1], argc > 2 ? argv[2] : "", rc);
        FUZZ_CHECK(rc == 0 || msg[0], "'%s %s' refused without a message", argv[1], argc > 2 ? argv[2] : "");
    }
    /* the shared parsers on every argument */
    for (int i = 1; i < argc; i++) {
        long a, b;
        uint64_t h;
        msg[0] = 0;
        rewind(cap);
        long c = cli_count_arg("fuzz", "--count", argv[i], 1L << 40);
        FUZZ_CHECK(c >= 0 || msg[0], "count '%s' refused without a message", argv[i]);
        FUZZ_CHECK(c < 0 || c <= (1L << 40), "count '%s' gave %ld", argv[i], c);
        if (!cli_shard_arg(argv[i], &a, &b)) FUZZ_CHECK(a >= 0 && a < b, "shard '%s' gave %ld/%ld", argv[i], a, b);
        int t = cli_threads(argv[i]);
        FUZZ_CHECK(t == -1 || (t >= 1 && t <= 1024), "threads '%s' gave %d", argv[i], t);
        if (!cli_parse_hex(argv[i], 16, &h)) FUZZ_CHECK(strlen(argv[i]) <= 18, "hex '%s' accepted", argv[i]);
    }
    stderr = saved_err;
    stdout = saved_out;
    fclose(cap);
    return 0;
}
