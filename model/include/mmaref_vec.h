/* Reading and writing vector files (BRIEF section 6): one dot product per
 * line, raw encodings in lowercase hex, '# key: value' header lines. */
#ifndef MMAREF_VEC_H
#define MMAREF_VEC_H

#include <stdio.h>
#include "mmaref.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MMA_VEC_MAX_SCALES 16
#define MMA_VEC_MAX_HEADER 32

typedef struct {
    uint64_t c, d;
    uint64_t a[MMA_MAX_K], b[MMA_MAX_K];
    uint64_t sa[MMA_VEC_MAX_SCALES], sb[MMA_VEC_MAX_SCALES];
    long line;
    unsigned flags;      /* the 'flags' field (MMA_FLAG_*), when the file has it */
} mma_vec;

typedef struct mma_vec_reader mma_vec_reader;

/* Opens path (plain, .xz or .gz); instr overrides the file's '# instr:'.
 * On error returns NULL with a message "file:line: ..." in err. */
mma_vec_reader *mma_vec_open(const char *path, const char *instr, char *err, size_t len);
/* The same on an open stream (not closed by mma_vec_close); name is used
 * in messages. */
mma_vec_reader *mma_vec_open_stream(FILE *f, const char *name, const char *instr, char *err, size_t len);
const mma_unit *mma_vec_unit(const mma_vec_reader *r);
int mma_vec_has_d(const mma_vec_reader *r);
/* Whether the file carries the exception flags of each vector: an optional
 * 'flags' field after d (two hex digits, TestFloat's flag byte), for units
 * that define flags (mma_unit_has_flags). */
int mma_vec_has_flags(const mma_vec_reader *r);
/* Header lines other than mmavec/arch/instr/k/fields, verbatim ("# key: value"). */
int mma_vec_extra_headers(const mma_vec_reader *r, const char ***lines);
/* 1: a vector was read; 0: end of file; -1: error (message in err). */
int mma_vec_next(mma_vec_reader *r, mma_vec *v, char *err, size_t len);
void mma_vec_close(mma_vec_reader *r);

/* The '# fields:' value for u, e.g. "c a[0..31] b[0..31] d" ("... d flags"
 * for a unit with exception flags). */
void mma_vec_fields(const mma_unit *u, char *buf, size_t len);
/* Writes the standard header for u (mmavec, arch, instr, k, fields). */
void mma_vec_write_header(FILE *f, const mma_unit *u);
/* Writes one vector line (with d, and flags for a unit with flags). */
void mma_vec_write(FILE *f, const mma_unit *u, const mma_vec *v);
/* Formats one vector line into buf (as mma_vec_write); returns its length. */
size_t mma_vec_format(char *buf, const mma_unit *u, const mma_vec *v);

#ifdef __cplusplus
}
#endif
#endif
