/* The walk over a tile's blocks that kernel.c (double panels) and
 * kernel-float.c (float panels) share: each inclusion generates
 * KC_WALK_NAME(apack, bpack, p, na, nb, tile), the na x nb inner products
 * of a's MR panels and b's KC_WALK_W panels into the row-major tile, from
 * the instruction-set kernels it names; then forgets its parameters.
 *   KC_WALK_T      element type of the panels
 *   KC_WALK_W      rows of b a panel
 *   KC_WALK_ROW, KC_WALK_ROWS4, KC_WALK_WIDE, KC_WALK_MICRO  the kernels
 *                  (kc_isa's fields: the first three may be NULL) */
static void KC_WALK_NAME(const KC_WALK_T *apack, const KC_WALK_T *bpack, int p, int na, int nb,
                         double *tile)
{
    double edge[MR * 4 * KC_WALK_W];
    int j0 = 0;
    if (na == 1 && KC_WALK_ROW)
        for (; j0 + 4 * KC_WALK_W <= nb; j0 += 4 * KC_WALK_W)
            KC_WALK_ROW(apack, bpack + (size_t) j0 * p, p, tile + j0);
    if (na > 1 && na <= 4 && KC_WALK_ROWS4)
        for (; j0 + 4 * KC_WALK_W <= nb; j0 += 4 * KC_WALK_W) {
            double *out = na == 4 ? tile + j0 : edge;
            int ld = na == 4 ? nb : 4 * KC_WALK_W;
            KC_WALK_ROWS4(apack, bpack + (size_t) j0 * p, p, out, ld);
            if (na < 4)
                for (int r = 0; r < na; r++)
                    memcpy(tile + (size_t) r * nb + j0, edge + r * 4 * KC_WALK_W,
                           sizeof(double) * 4 * KC_WALK_W);
        }
    while (j0 < nb) {
        /* two panels at once where the wide kernel exists and both exist */
        int wide = KC_WALK_WIDE && nb - j0 > KC_WALK_W, width = wide ? 2 * KC_WALK_W : KC_WALK_W;
        int nj = nb - j0 < width ? nb - j0 : width;
        for (int i0 = 0; i0 < na; i0 += MR) {
            int ni = na - i0 < MR ? na - i0 : MR;
            const KC_WALK_T *ap = apack + (size_t) i0 * p, *bp = bpack + (size_t) j0 * p;
            /* whole blocks go straight into the tile, edge blocks via edge[] */
            int whole = ni == MR && nj == width;
            double *out = whole ? tile + (size_t) i0 * nb + j0 : edge;
            int ld = whole ? nb : width;
            if (wide) KC_WALK_WIDE(ap, bp, p, out, ld);
            else KC_WALK_MICRO(ap, bp, p, out, ld);
            if (!whole)
                for (int r = 0; r < ni; r++)
                    memcpy(tile + (size_t) (i0 + r) * nb + j0, edge + r * width, sizeof(double) * nj);
        }
        j0 += width;
    }
}

#undef KC_WALK_NAME
#undef KC_WALK_T
#undef KC_WALK_W
#undef KC_WALK_ROW
#undef KC_WALK_ROWS4
#undef KC_WALK_WIDE
#undef KC_WALK_MICRO
