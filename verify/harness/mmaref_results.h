/* mmaref_results: the outcome of a `mmaref verify` campaign, as the
 * testbench's harness (mmaref_harness.c) writes it and the command reads,
 * merges (shards of one campaign) and prints it.  Plain C, no simulator
 * types.
 *
 * The file is text, one record a line:
 *   mmaref-results 1
 *   item <mode> <label> <vectors> <mismatches> <one count per class>
 *   cov <mode> <bins hit> <bins>
 *   first <mode> <label> <vector index> <replay file>
 *   file <mode> <mismatch vector file>
 *   note <text>
 *   time <cycles> <seconds> <CPU seconds>
 */
#ifndef MMAREF_RESULTS_H
#define MMAREF_RESULTS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mismatch classes: the obvious ones (a finer triage may refine "other"),
 * and the two protocol failures. */
enum {
    MMAREF_CLS_NAN,         /* both NaN, payloads differ (the unit fixes the payload) */
    MMAREF_CLS_ZERO,        /* both zero, signs differ */
    MMAREF_CLS_FLAGS,       /* d right, exception flags wrong */
    MMAREF_CLS_OTHER,
    MMAREF_CLS_NORESULT,    /* in flight when the unit stopped answering */
    MMAREF_CLS_UNEXPECTED,  /* a result for no vector in flight (or an unknown tag) */
    MMAREF_CLS_COUNT
};
extern const char *const mmaref_cls_names[MMAREF_CLS_COUNT];

typedef struct {
    char mode[64], label[96];
    long n, mism, cls[MMAREF_CLS_COUNT];
} mmaref_res_item;

#define MMAREF_RES_MAX_ITEMS 4096
#define MMAREF_RES_MAX_COV 256
#define MMAREF_RES_MAX_LINES 64
typedef struct {
    int nitems;
    mmaref_res_item items[MMAREF_RES_MAX_ITEMS];
    int ncov;
    struct { char mode[64]; long hit, bins; } cov[MMAREF_RES_MAX_COV];
    int has_first;
    char first_mode[64], first_label[96], first_file[1024];
    long first_index;
    int nfiles;
    char files[MMAREF_RES_MAX_LINES][1024];
    int nnotes;
    char notes[MMAREF_RES_MAX_LINES][512];
    long long cycles;
    double seconds, cpu;            /* wall clock and CPU time of the simulation */
} mmaref_results;

/* the item (mode, label), added when new; NULL when the table is full */
mmaref_res_item *mmaref_res_item_get(mmaref_results *r, const char *mode, const char *label);
void mmaref_res_note(mmaref_results *r, const char *text);
int  mmaref_res_write(const mmaref_results *r, const char *path);
/* Reads path and adds it to r (shards of one campaign add up in order;
 * the first mismatch is the first file's that has one).  0, or -1 with a
 * message "file:line: ..." in err. */
int  mmaref_res_merge(mmaref_results *r, const char *path, char *err, size_t len);
void mmaref_res_totals(const mmaref_results *r, long *n, long *mism, long cls[MMAREF_CLS_COUNT]);
/* The line of one item: "<mode> <label>: <N> vectors, <M> mismatches" */
void mmaref_res_print_item(FILE *f, const mmaref_res_item *it);
/* The summary: mismatches by class, the files, the notes, how to replay
 * the first mismatch (with description dut, when given), and last the line
 * "<N> vectors, <M> mismatches". */
void mmaref_res_print_summary(FILE *f, const mmaref_results *r, const char *dut);

#ifdef __cplusplus
}
#endif
#endif
