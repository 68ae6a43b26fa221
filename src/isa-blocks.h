/* The blocked inner-product kernels of isa.c (doubles) and kernel-float.c
 * (floats), written once: each inclusion generates them for the element
 * type and vector width its KC_BLOCK_* parameters name, then forgets those.
 * Every kernel sums the p products of a value in feature order with fused
 * multiply-adds, so a value is the same whichever kernel computed it.
 *
 * Parameters (all #undef'd at the end):
 *   KC_BLOCK_T       element type of the panels (double, float)
 *   KC_BLOCK_V       vector type (__m256d, __m512, ...)
 *   KC_BLOCK_OP(op)  the intrinsic for op: setzero, loadu, set1, fmadd
 *   KC_BLOCK_STORE(out, v)  v's lanes as doubles at out
 *   KC_BLOCK_LANES   elements a vector
 *   KC_BLOCK_W       rows of b a panel (a panel's feature: W elements)
 *   KC_BLOCK_TARGET  the instruction sets, as __attribute__((target)) takes them
 *   KC_BLOCK_MICRO   name of the MR x 2 LANES block: one panel of b where
 *                    it is two vectors wide, else two adjacent panels
 *   KC_BLOCK_ROW, KC_BLOCK_ROWS4  (optional, panels one vector wide) names
 *                    of one and four rows of a against four panels of b */

#ifndef KERNCLASS_ISA_BLOCKS_H
#define KERNCLASS_ISA_BLOCKS_H
/* Each loop over the MR rows is written out (KC_FOR_ROWS) so that the
 * accumulators are named by constants: left as a loop, R's -O2 does not
 * unroll it and keeps the accumulators on the stack, a store and a reload
 * around every multiply-add (measured: 34 GFLOP/s a core for the AVX-512
 * kernel, against 106 written out). */
#define KC_FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define KC_FOR_4ROWS(X) X(0) X(1) X(2) X(3)
#endif

/* MR x 2 LANES in 12 registers: per feature 2 loads, MR broadcasts and 12
 * fused multiply-adds. */
__attribute__((target(KC_BLOCK_TARGET)))
static void KC_BLOCK_MICRO(const KC_BLOCK_T *ap, const KC_BLOCK_T *bp, int p, double *out, int ld)
{
    /* the second vector of feature k at second + k W */
    const KC_BLOCK_T *second = bp + (KC_BLOCK_LANES == KC_BLOCK_W ? (size_t) KC_BLOCK_W * p
                                                                  : (size_t) KC_BLOCK_LANES);
    KC_BLOCK_V c[MR][2];
#define ZERO_ROW(r) c[r][0] = c[r][1] = KC_BLOCK_OP(setzero)();
    KC_FOR_ROWS(ZERO_ROW)
#undef ZERO_ROW
    for (int k = 0; k < p; k++) {
        const KC_BLOCK_T *a = ap + (size_t) k * MR;
        KC_BLOCK_V b0 = KC_BLOCK_OP(loadu)(bp + (size_t) k * KC_BLOCK_W);
        KC_BLOCK_V b1 = KC_BLOCK_OP(loadu)(second + (size_t) k * KC_BLOCK_W);
#define FMA_ROW(r) {                                        \
            KC_BLOCK_V ar = KC_BLOCK_OP(set1)(a[r]);        \
            c[r][0] = KC_BLOCK_OP(fmadd)(ar, b0, c[r][0]);  \
            c[r][1] = KC_BLOCK_OP(fmadd)(ar, b1, c[r][1]);  \
        }
        KC_FOR_ROWS(FMA_ROW)
#undef FMA_ROW
    }
#define STORE_ROW(r)                                                  \
    KC_BLOCK_STORE(out + (size_t) r * ld, c[r][0]);                   \
    KC_BLOCK_STORE(out + (size_t) r * ld + KC_BLOCK_LANES, c[r][1]);
    KC_FOR_ROWS(STORE_ROW)
#undef STORE_ROW
}

#ifdef KC_BLOCK_ROW
/* One row of a against four panels of b: out[0 .. 4 W).  A single kernel
 * row (the SMO with a small cache) would waste five of the six rows of the
 * block kernel.  Four independent chains of fused multiply-adds. */
__attribute__((target(KC_BLOCK_TARGET)))
static void KC_BLOCK_ROW(const KC_BLOCK_T *ap, const KC_BLOCK_T *bp, int p, double *out)
{
    const size_t panel = (size_t) KC_BLOCK_W * p;
    KC_BLOCK_V c0 = KC_BLOCK_OP(setzero)(), c1 = c0, c2 = c0, c3 = c0;
    for (int k = 0; k < p; k++) {
        KC_BLOCK_V a = KC_BLOCK_OP(set1)(ap[(size_t) k * MR]);
        const KC_BLOCK_T *b = bp + (size_t) k * KC_BLOCK_W;
        c0 = KC_BLOCK_OP(fmadd)(a, KC_BLOCK_OP(loadu)(b), c0);
        c1 = KC_BLOCK_OP(fmadd)(a, KC_BLOCK_OP(loadu)(b + panel), c1);
        c2 = KC_BLOCK_OP(fmadd)(a, KC_BLOCK_OP(loadu)(b + 2 * panel), c2);
        c3 = KC_BLOCK_OP(fmadd)(a, KC_BLOCK_OP(loadu)(b + 3 * panel), c3);
    }
    KC_BLOCK_STORE(out, c0);
    KC_BLOCK_STORE(out + KC_BLOCK_W, c1);
    KC_BLOCK_STORE(out + 2 * KC_BLOCK_W, c2);
    KC_BLOCK_STORE(out + 3 * KC_BLOCK_W, c3);
}

/* Four rows of a against four panels of b in 16 registers, for the SMO's
 * batches of up to 4 kernel rows (the 6-row block kernel would compute two
 * rows of zeros). */
__attribute__((target(KC_BLOCK_TARGET)))
static void KC_BLOCK_ROWS4(const KC_BLOCK_T *ap, const KC_BLOCK_T *bp, int p, double *out, int ld)
{
    const size_t panel = (size_t) KC_BLOCK_W * p;
    KC_BLOCK_V c[4][4];
#define ZERO_ROW(r) c[r][0] = c[r][1] = c[r][2] = c[r][3] = KC_BLOCK_OP(setzero)();
    KC_FOR_4ROWS(ZERO_ROW)
#undef ZERO_ROW
    for (int k = 0; k < p; k++) {
        const KC_BLOCK_T *b = bp + (size_t) k * KC_BLOCK_W, *a = ap + (size_t) k * MR;
        KC_BLOCK_V b0 = KC_BLOCK_OP(loadu)(b), b1 = KC_BLOCK_OP(loadu)(b + panel);
        KC_BLOCK_V b2 = KC_BLOCK_OP(loadu)(b + 2 * panel), b3 = KC_BLOCK_OP(loadu)(b + 3 * panel);
#define FMA_ROW(r) {                                        \
            KC_BLOCK_V ar = KC_BLOCK_OP(set1)(a[r]);        \
            c[r][0] = KC_BLOCK_OP(fmadd)(ar, b0, c[r][0]);  \
            c[r][1] = KC_BLOCK_OP(fmadd)(ar, b1, c[r][1]);  \
            c[r][2] = KC_BLOCK_OP(fmadd)(ar, b2, c[r][2]);  \
            c[r][3] = KC_BLOCK_OP(fmadd)(ar, b3, c[r][3]);  \
        }
        KC_FOR_4ROWS(FMA_ROW)
#undef FMA_ROW
    }
#define STORE_ROW(r)                                                       \
    KC_BLOCK_STORE(out + (size_t) r * ld, c[r][0]);                        \
    KC_BLOCK_STORE(out + (size_t) r * ld + KC_BLOCK_W, c[r][1]);           \
    KC_BLOCK_STORE(out + (size_t) r * ld + 2 * KC_BLOCK_W, c[r][2]);       \
    KC_BLOCK_STORE(out + (size_t) r * ld + 3 * KC_BLOCK_W, c[r][3]);
    KC_FOR_4ROWS(STORE_ROW)
#undef STORE_ROW
}
#endif

#undef KC_BLOCK_T
#undef KC_BLOCK_V
#undef KC_BLOCK_OP
#undef KC_BLOCK_STORE
#undef KC_BLOCK_LANES
#undef KC_BLOCK_W
#undef KC_BLOCK_TARGET
#undef KC_BLOCK_MICRO
#undef KC_BLOCK_ROW
#undef KC_BLOCK_ROWS4
