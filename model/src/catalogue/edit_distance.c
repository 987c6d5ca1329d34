/* The edit (Levenshtein) distance between a name a user typed and a
 * catalogue name, for suggesting the nearest names: bit-parallel, one
 * column of the dynamic programme per step as two 128-bit vectors of +-1
 * vertical differences (Myers 1999, "A fast bit-vector algorithm for
 * approximate string matching", in Hyyroe's form for the global distance).
 * The typed name is prepared once and compared with every catalogue name;
 * a comparison stops as soon as the distance cannot stay below a limit. */
#include "../core/internal.h"

#include <string.h>

void mma_edit_prepare(mma_edit_pattern *p, const char *s)
{
    size_t m = strlen(s);
    memset(p->peq, 0, sizeof p->peq);
    p->m = m > MMA_EDIT_MAX ? -1 : (int)m;
    if (p->m < 0) return;
    for (size_t i = 0; i < m; i++) p->peq[(unsigned char)s[i]] |= (mma_edit_word)1 << i;
}

int mma_edit_distance(const mma_edit_pattern *p, const char *t, int limit)
{
    int m = p->m, n = (int)strlen(t);
    if (m < 0 || n > MMA_EDIT_MAX) return MMA_EDIT_FAR;
    if ((m > n ? m - n : n - m) >= limit) return limit;    /* the length difference is a lower bound */
    if (m == 0) return n;
    mma_edit_word all = m == 128 ? ~(mma_edit_word)0 : ((mma_edit_word)1 << m) - 1;
    mma_edit_word top = (mma_edit_word)1 << (m - 1);
    mma_edit_word pv = all, mv = 0;
    int score = m;                                         /* D[m][0] */
    for (int j = 0; j < n; j++) {
        mma_edit_word eq = p->peq[(unsigned char)t[j]];
        mma_edit_word xv = eq | mv;
        mma_edit_word xh = (((eq & pv) + pv) ^ pv) | eq;
        mma_edit_word ph = mv | ~(xh | pv);
        mma_edit_word mh = pv & xh;
        if (ph & top) score++;
        else if (mh & top) score--;
        ph = (ph << 1) | 1;                                /* D[0][j] = j: row 0 grows by one */
        mh <<= 1;
        pv = (mh | ~(xv | ph)) & all;
        mv = ph & xv & all;
        if (score - (n - 1 - j) >= limit) return limit;    /* each column lowers it by one at most */
    }
    return score;
}
