/* The status line of long work: on stderr, only when stderr is a terminal
 * (a log or a pipe gets none), off with --quiet.  One line, redrawn at most
 * four times a second, erased when the work ends so that the command's own
 * output starts on a clean line. */
#include "cli.h"

#include <stdlib.h>
#include <unistd.h>

int cli_quiet;

static struct {
    int on;
    const char *what, *unit;
    double total, t0, last;
    int drawn;
} pl;

void cli_progress_begin(const char *what, double total, const char *unit)
{
    pl.on = !cli_quiet && isatty(2);
    pl.what = what;
    pl.unit = unit;
    pl.total = total;
    pl.t0 = pl.last = mma_now();
    pl.drawn = 0;
}

static void amount(char *buf, size_t n, double x)
{
    if (x >= 1e9) snprintf(buf, n, "%.2fG", x / 1e9);
    else if (x >= 1e6) snprintf(buf, n, "%.2fM", x / 1e6);
    else if (x >= 1e3) snprintf(buf, n, "%.1fk", x / 1e3);
    else snprintf(buf, n, "%.0f", x);
}

static void clock_text(char *buf, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

void cli_progress_update(double done, double fraction)
{
    if (!pl.on) return;
    double now = mma_now();
    if (now - pl.last < 0.25 && pl.drawn) return;
    pl.last = now;
    double el = now - pl.t0;
    if (el < 0.5) return;                   /* short work shows nothing */
    if (pl.total > 0) fraction = done / pl.total;
    char d[32], t[32], r[32], left[32] = "";
    amount(d, sizeof d, done);
    amount(r, sizeof r, el > 0 ? done / el : 0);
    if (fraction > 0.001 && fraction <= 1) {
        char c[24];
        clock_text(c, sizeof c, el / fraction - el);
        snprintf(left, sizeof left, ", %s left", c);
    }
    if (pl.total > 0) {
        amount(t, sizeof t, pl.total);
        fprintf(stderr, "\r%s: %s of %s %s (%.0f%%), %s/s%s   ", pl.what, d, t, pl.unit, 100 * fraction, r, left);
    } else if (fraction > 0) {
        fprintf(stderr, "\r%s: %s %s (%.0f%% of the file), %s/s%s   ", pl.what, d, pl.unit, 100 * fraction, r, left);
    } else {
        fprintf(stderr, "\r%s: %s %s, %s/s   ", pl.what, d, pl.unit, r);
    }
    pl.drawn = 1;
}

void cli_progress_end(void)
{
    if (pl.on && pl.drawn) fprintf(stderr, "\r%*s\r", 79, "");
    pl.on = 0;
}
