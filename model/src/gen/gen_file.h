/* Between the suites and the file suite (gen_file.c): mma_gen_operands
 * hands a suite read from a file to it. */
#ifndef MMAREF_GEN_FILE_H
#define MMAREF_GEN_FILE_H
#include "mmaref_gen.h"

/* vector i of a file suite into v: c, a, b and the block scales */
void gen_file_operands(const mma_gen *g, long i, mma_vec *v);

#endif
