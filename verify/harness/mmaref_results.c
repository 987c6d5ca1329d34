/* mmaref_results: writing, merging and printing the outcome of a verify
 * campaign (mmaref_results.h). */
#include "mmaref_results.h"

#include <stdlib.h>
#include <string.h>

/* strings into fixed fields, cut to fit */
static void scopy(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len) n = len - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

const char *const mmaref_cls_names[MMAREF_CLS_COUNT] = {
    "NaN payload", "sign of zero", "flags only", "other", "no result", "unexpected result"};

mmaref_res_item *mmaref_res_item_get(mmaref_results *r, const char *mode, const char *label)
{
    for (int i = 0; i < r->nitems; i++)
        if (!strcmp(r->items[i].mode, mode) && !strcmp(r->items[i].label, label)) return &r->items[i];
    if (r->nitems == MMAREF_RES_MAX_ITEMS) return NULL;
    mmaref_res_item *it = &r->items[r->nitems++];
    memset(it, 0, sizeof *it);
    scopy(it->mode, sizeof it->mode, mode);
    scopy(it->label, sizeof it->label, label);
    return it;
}

void mmaref_res_note(mmaref_results *r, const char *text)
{
    if (r->nnotes < MMAREF_RES_MAX_LINES) scopy(r->notes[r->nnotes++], sizeof r->notes[0], text);
}

static void add_file(mmaref_results *r, const char *path)
{
    for (int i = 0; i < r->nfiles; i++) if (!strcmp(r->files[i], path)) return;
    if (r->nfiles < MMAREF_RES_MAX_LINES) scopy(r->files[r->nfiles++], sizeof r->files[0], path);
}

int mmaref_res_write(const mmaref_results *r, const char *path)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fprintf(f, "mmaref-results 1\n");
    for (int i = 0; i < r->nitems; i++) {
        const mmaref_res_item *it = &r->items[i];
        fprintf(f, "item %s %s %ld %ld", it->mode, it->label, it->n, it->mism);
        for (int c = 0; c < MMAREF_CLS_COUNT; c++) fprintf(f, " %ld", it->cls[c]);
        fprintf(f, "\n");
    }
    for (int i = 0; i < r->ncov; i++) fprintf(f, "cov %s %ld %ld\n", r->cov[i].mode, r->cov[i].hit, r->cov[i].bins);
    if (r->has_first)
        fprintf(f, "first %s %s %ld %s\n", r->first_mode, r->first_label, r->first_index, r->first_file);
    for (int i = 0; i < r->nfiles; i++) fprintf(f, "file %s\n", r->files[i]);
    for (int i = 0; i < r->nnotes; i++) fprintf(f, "note %s\n", r->notes[i]);
    fprintf(f, "time %lld %.3f %.3f\n", r->cycles, r->seconds, r->cpu);
    int bad = ferror(f);
    if (fclose(f) || bad || rename(tmp, path)) { remove(tmp); return -1; }
    return 0;
}

int mmaref_res_merge(mmaref_results *r, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, len, "%s: cannot open", path); return -1; }
    char line[2048];
    long ln = 0;
    int magic = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\n")] = 0;
        char mode[64], label[96];
        long v[2 + MMAREF_CLS_COUNT];
        int off = 0;
        if (!strcmp(line, "mmaref-results 1")) { magic = 1; continue; }
        if (!magic) break;
        if (sscanf(line, "item %63s %95s %ld %ld %ld %ld %ld %ld %ld %ld%n", mode, label, &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &off) == 10 && !line[off]) {
            mmaref_res_item *it = mmaref_res_item_get(r, mode, label);
            if (!it) { snprintf(err, len, "%s:%ld: more than %d items", path, ln, MMAREF_RES_MAX_ITEMS); fclose(f); return -1; }
            it->n += v[0];
            it->mism += v[1];
            for (int c = 0; c < MMAREF_CLS_COUNT; c++) it->cls[c] += v[2 + c];
        } else if (sscanf(line, "cov %63s %ld %ld", mode, &v[0], &v[1]) == 3) {
            int i = 0;
            while (i < r->ncov && strcmp(r->cov[i].mode, mode)) i++;
            if (i == r->ncov && r->ncov < MMAREF_RES_MAX_COV) {
                scopy(r->cov[r->ncov].mode, sizeof r->cov[0].mode, mode);
                r->cov[r->ncov].hit = v[0];
                r->cov[r->ncov++].bins = v[1];
            } else if (i < r->ncov && v[0] > r->cov[i].hit) {
                r->cov[i].hit = v[0];   /* shards hit different bins: at least the best shard's */
            }
        } else if (sscanf(line, "first %63s %95s %ld %n", mode, label, &v[0], &off) == 3 && off) {
            if (!r->has_first) {
                r->has_first = 1;
                scopy(r->first_mode, sizeof r->first_mode, mode);
                scopy(r->first_label, sizeof r->first_label, label);
                scopy(r->first_file, sizeof r->first_file, line + off);
                r->first_index = v[0];
            }
        } else if (!strncmp(line, "file ", 5)) {
            add_file(r, line + 5);
        } else if (!strncmp(line, "note ", 5)) {
            mmaref_res_note(r, line + 5);
        } else if (sscanf(line, "time %ld %*f %*f", &v[0]) == 1) {
            double s = 0, cpu = 0;
            sscanf(line, "time %*d %lf %lf", &s, &cpu);
            r->cycles += v[0];
            r->seconds += s;
            r->cpu += cpu;
        } else {
            snprintf(err, len, "%s:%ld: not a results line: '%.60s'", path, ln, line);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (!magic) { snprintf(err, len, "%s:1: not a results file (no 'mmaref-results 1')", path); return -1; }
    return 0;
}

void mmaref_res_totals(const mmaref_results *r, long *n, long *mism, long cls[MMAREF_CLS_COUNT])
{
    *n = *mism = 0;
    for (int c = 0; c < MMAREF_CLS_COUNT; c++) cls[c] = 0;
    for (int i = 0; i < r->nitems; i++) {
        *n += r->items[i].n;
        *mism += r->items[i].mism;
        for (int c = 0; c < MMAREF_CLS_COUNT; c++) cls[c] += r->items[i].cls[c];
    }
}

void mmaref_res_print_item(FILE *f, const mmaref_res_item *it)
{
    char name[170];
    snprintf(name, sizeof name, "%s %s:", it->mode, it->label);
    fprintf(f, "%-28s %ld vectors, %ld mismatches\n", name, it->n, it->mism);
}

void mmaref_res_print_summary(FILE *f, const mmaref_results *r, const char *dut)
{
    long n, mism, cls[MMAREF_CLS_COUNT];
    mmaref_res_totals(r, &n, &mism, cls);
    for (int i = 0; i < r->ncov; i++)
        fprintf(f, "coverage of %s: %ld of %ld bins hit\n", r->cov[i].mode, r->cov[i].hit, r->cov[i].bins);
    for (int i = 0; i < r->nnotes; i++) fprintf(f, "%s\n", r->notes[i]);
    if (mism) {
        fprintf(f, "mismatches by class:");
        for (int c = 0, first = 1; c < MMAREF_CLS_COUNT; c++) {
            if (c >= MMAREF_CLS_NORESULT && !cls[c]) continue;
            fprintf(f, "%s %s %ld", first ? "" : ",", mmaref_cls_names[c], cls[c]);
            first = 0;
        }
        fprintf(f, "\n");
        for (int i = 0; i < r->nfiles; i++) fprintf(f, "mismatching vectors: %s\n", r->files[i]);
        if (r->has_first) {
            fprintf(f, "first mismatch: %s %s vector %ld, in %s\n", r->first_mode, r->first_label,
                    r->first_index, r->first_file);
            fprintf(f, "replay it: mmaref check %s", r->first_file);
            if (dut) fprintf(f, "; mmaref verify %s --vec %s", dut, r->first_file);
            fprintf(f, "\n");
        }
    }
    if (r->cpu >= 0.01 && n > 0)
        fprintf(f, "simulated %lld cycles in %.2f s (CPU %.2f s): %.0f vectors/s (%.0f vectors/s CPU)\n",
                r->cycles, r->seconds, r->cpu, (double)n / r->seconds, (double)n / r->cpu);
    fprintf(f, "%ld vectors, %ld mismatches\n", n, mism);
}
