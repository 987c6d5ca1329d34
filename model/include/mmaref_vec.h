/* Reading and writing vector files (docs/vector-format.md): one dot product per
 * line, raw encodings in lowercase hex, '# key: value' header lines. */
#ifndef MMAREF_VEC_H
#define MMAREF_VEC_H

#include <stdio.h>
#include "mmaref.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MMA_VEC_MAX_SCALES MMA_MAX_SCALES
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
/* The line of the file's '# instr:' header; 0 when it has none. */
long mma_vec_instr_line(const mma_vec_reader *r);
/* Whether the file carries the exception flags of each vector: an optional
 * 'flags' field after d (two hex digits, TestFloat's flag byte), for units
 * that define flags (mma_unit_has_flags). */
int mma_vec_has_flags(const mma_vec_reader *r);
/* Header lines other than mmavec/arch/instr/k/fields, verbatim ("# key: value"). */
int mma_vec_extra_headers(const mma_vec_reader *r, const char ***lines);
/* 1: a vector was read; 0: end of file; -1: error (message in err). */
int mma_vec_next(mma_vec_reader *r, mma_vec *v, char *err, size_t len);
/* One line of the file's body (no newline), line number lineno, parsed
 * without touching the reader (threads may parse lines of one file at
 * once): 1 a vector; 0 a blank or comment line; -1 error (message in err,
 * naming file, line and field). */
int mma_vec_parse(const mma_vec_reader *r, const char *line, long lineno, mma_vec *v, char *err, size_t len);
/* The stream the body is read from (positioned after the lines read so
 * far), and the number of lines read so far (the header's, after open). */
FILE *mma_vec_stream(const mma_vec_reader *r);
long mma_vec_lineno(const mma_vec_reader *r);
/* For a caller that read the body itself through mma_vec_stream: reads what
 * is left, and for a compressed file waits for the decompressor: 0, or -1
 * with its complaint in err when the file was damaged or cut short. */
int mma_vec_finish(mma_vec_reader *r, char *err, size_t len);
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
