/* Probe: do AVX-512 BF16 split-precision inner products (VDPBF16PS) beat
 * the float FMA micro-kernels of src/kernel-float.c on this CPU, at equal
 * accuracy?  Standalone, not part of the package build (.Rbuildignore
 * drops tools/).  Results and conclusion: tools/bf16-probe.md.
 *
 *   gcc -O3 -march=native -o /tmp/bf16-probe tools/bf16-probe.c -lm
 *   /tmp/bf16-probe
 *
 * Kernels, each an MR x 16 tile (one panel of b) and an MR x 32 tile (two
 * adjacent panels), p = 784 features:
 *   float    one fused multiply-add per feature and row, as fmicro_avx512
 *            and fwide_avx512 (broadcast a[r], 16 columns of b in a zmm);
 *   bf16x3   x = hi + lo, hi = bf16(x), lo = bf16(x - hi); a'b by
 *            hi*hi' + hi*lo' + lo*hi': the hi*hi' of two features in one
 *            VDPBF16PS (pairs over features), hi*lo' + lo*hi' of one
 *            feature in another (pairs over terms), so 3 VDPBF16PS per two
 *            features where float needs 2 FMAs;
 *   bf16x1   hi*hi' only: 1 VDPBF16PS per two features (bf16 accuracy);
 *   bf16x6   x = hi + mid + lo; the six terms down to 2^-16:
 *            hh + mm, hm + mh, hl + lh: 3 VDPBF16PS per feature.
 * Every kernel keeps the large and the small terms in separate accumulators
 * (the hi*hi' chain and the correction chain), which also gives the
 * VDPBF16PS twice the independent chains. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MR 6
#define NF 16
#define P 784

typedef void (*tile_fn)(const void *ap, const void *bp, int p, double *out, int ld);

/* ---------------------------------------------------------------- bf16 */

/* float -> bf16 bits, round to nearest even (as VCVTNEPS2BF16) */
static uint16_t bf16_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t) (u >> 16);
}

static float bf16_value(uint16_t h)
{
    uint32_t u = (uint32_t) h << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* x split into n bf16 parts, each the rounding of what the others left */
static void split(float x, int n, uint16_t *part)
{
    float rest = x;
    for (int i = 0; i < n; i++) {
        part[i] = bf16_bits(rest);
        rest -= bf16_value(part[i]); /* exact: a rounding's error is a float */
    }
}

static uint32_t pair(uint16_t lo_lane, uint16_t hi_lane)
{
    return (uint32_t) lo_lane | ((uint32_t) hi_lane << 16);
}

/* ----------------------------------------------------------- the tiles */

__attribute__((target("avx512f")))
static inline void store16(double *out, __m512 v)
{
    _mm512_storeu_pd(out, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    _mm512_storeu_pd(out + 8, _mm512_cvtps_pd(hi));
}

#define FOR_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

/* float: a panel ap[k MR + r], b panel bp[k NF + s]; the next b panel
 * NF p floats on (as kernel-float.c) */
__attribute__((target("avx512f")))
static void float_micro(const void *apv, const void *bpv, int p, double *out, int ld)
{
    const float *ap = apv, *bp = bpv;
    __m512 c[MR];
#define Z(r) c[r] = _mm512_setzero_ps();
    FOR_ROWS(Z)
#undef Z
    for (int k = 0; k < p; k++) {
        const float *a = ap + (size_t) k * MR;
        __m512 b0 = _mm512_loadu_ps(bp + (size_t) k * NF);
#define F(r) c[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r]), b0, c[r]);
        FOR_ROWS(F)
#undef F
    }
#define S(r) store16(out + (size_t) r * ld, c[r]);
    FOR_ROWS(S)
#undef S
}

__attribute__((target("avx512f")))
static void float_wide(const void *apv, const void *bpv, int p, double *out, int ld)
{
    const float *ap = apv, *bp = bpv, *bp2 = bp + (size_t) NF * p;
    __m512 c[MR][2];
#define Z(r) c[r][0] = c[r][1] = _mm512_setzero_ps();
    FOR_ROWS(Z)
#undef Z
    for (int k = 0; k < p; k++) {
        const float *a = ap + (size_t) k * MR;
        __m512 b0 = _mm512_loadu_ps(bp + (size_t) k * NF), b1 = _mm512_loadu_ps(bp2 + (size_t) k * NF);
#define F(r) {                                          \
            __m512 ar = _mm512_set1_ps(a[r]);           \
            c[r][0] = _mm512_fmadd_ps(ar, b0, c[r][0]); \
            c[r][1] = _mm512_fmadd_ps(ar, b1, c[r][1]); \
        }
        FOR_ROWS(F)
#undef F
    }
#define S(r) store16(out + (size_t) r * ld, c[r][0]); store16(out + (size_t) r * ld + NF, c[r][1]);
    FOR_ROWS(S)
#undef S
}

/* bf16 panels, 32-bit lanes of two bf16 each (make_panels):
 *   hh[(k/2) w + s]  = (hi_k, hi_k+1)   pairs over features, both sides
 *   x1, x2, x3[k w + s]                 pairs over terms, per kernel kind
 *                                       (bf16_view): bf16x3 a (hi, lo),
 *                                       b (lo, hi); bf16x6 in its comment
 * The tiles take a struct of these pointers; a b panel's arrays are
 * followed by the next panel's at a fixed stride. */
typedef struct {
    const uint32_t *hh, *x1, *x2, *x3;
    size_t next; /* from one b panel's x arrays to the next panel's, in
                  * lanes (hh: next / 2) */
} bf16_panel;

#define BH(v) ((__m512bh) (v))
#define LOAD(p) BH(_mm512_loadu_si512((const void *) (p)))
#define BCAST(v) BH(_mm512_set1_epi32((int) (v)))

__attribute__((target("avx512f,avx512bf16")))
static void bf16x3_micro(const void *apv, const void *bpv, int p, double *out, int ld)
{
    const bf16_panel *A = apv, *B = bpv;
    __m512 c[MR], d[MR];
#define Z(r) c[r] = d[r] = _mm512_setzero_ps();
    FOR_ROWS(Z)
#undef Z
    for (int k2 = 0; k2 < p / 2; k2++) {
        const uint32_t *ah = A->hh + (size_t) k2 * MR, *ax = A->x1 + (size_t) 2 * k2 * MR;
        __m512bh bh = LOAD(B->hh + (size_t) k2 * NF), bx0 = LOAD(B->x1 + (size_t) 2 * k2 * NF),
                 bx1 = LOAD(B->x1 + (size_t) (2 * k2 + 1) * NF);
#define F(r) c[r] = _mm512_dpbf16_ps(c[r], BCAST(ah[r]), bh);      \
             d[r] = _mm512_dpbf16_ps(d[r], BCAST(ax[r]), bx0);     \
             d[r] = _mm512_dpbf16_ps(d[r], BCAST(ax[MR + r]), bx1);
        FOR_ROWS(F)
#undef F
    }
#define S(r) store16(out + (size_t) r * ld, _mm512_add_ps(c[r], d[r]));
    FOR_ROWS(S)
#undef S
}

__attribute__((target("avx512f,avx512bf16")))
static void bf16x3_wide(const void *apv, const void *bpv, int p, double *out, int ld)
{
    const bf16_panel *A = apv, *B = bpv;
    const size_t nx = B->next;
    __m512 c[MR][2], d[MR][2];
#define Z(r) c[r][0] = c[r][1] = d[r][0] = d[r][1] = _mm512_setzero_ps();
    FOR_ROWS(Z)
#undef Z
    for (int k2 = 0; k2 < p / 2; k2++) {
        const uint32_t *ah = A->hh + (size_t) k2 * MR, *ax = A->x1 + (size_t) 2 * k2 * MR;
        const uint32_t *bh = B->hh + (size_t) k2 * NF, *bx = B->x1 + (size_t) 2 * k2 * NF;
        __m512bh bh0 = LOAD(bh), bh1 = LOAD(bh + nx / 2);
        __m512bh bx00 = LOAD(bx), bx01 = LOAD(bx + NF), bx10 = LOAD(bx + nx), bx11 = LOAD(bx + nx + NF);
#define F(r) {                                                           \
            __m512bh h = BCAST(ah[r]), x0 = BCAST(ax[r]), x1 = BCAST(ax[MR + r]); \
            c[r][0] = _mm512_dpbf16_ps(c[r][0], h, bh0);                 \
            c[r][1] = _mm512_dpbf16_ps(c[r][1], h, bh1);                 \
            d[r][0] = _mm512_dpbf16_ps(d[r][0], x0, bx00);               \
            d[r][1] = _mm512_dpbf16_ps(d[r][1], x0, bx10);               \
            d[r][0] = _mm512_dpbf16_ps(d[r][0], x1, bx01);               \
            d[r][1] = _mm512_dpbf16_ps(d[r][1], x1, bx11);               \
        }
        FOR_ROWS(F)
#undef F
    }
#define S(r) store16(out + (size_t) r * ld, _mm512_add_ps(c[r][0], d[r][0])); \
             store16(out + (size_t) r * ld + NF, _mm512_add_ps(c[r][1], d[r][1]));
    FOR_ROWS(S)
#undef S
}

__attribute__((target("avx512f,avx512bf16")))
static void bf16x1_micro(const void *apv, const void *bpv, int p, double *out, int ld)
{
    const bf16_panel *A = apv, *B = bpv;
    __m512 c[MR];
#define Z(r) c[r] = _mm512_setzero_ps();
    FOR_ROWS(Z)
#undef Z
    for (int k2 = 0; k2 < p / 2; k2++) {
        const uint32_t *ah = A->hh + (size_t) k2 * MR;
        __m512bh bh = LOAD(B->hh + (size_t) k2 * NF);
#define F(r) c[r] = _mm512_dpbf16_ps(c[r], BCAST(ah[r]), bh);
        FOR_ROWS(F)
#undef F
    }
#define S(r) store16(out + (size_t) r * ld, c[r]);
    FOR_ROWS(S)
#undef S
}

__attribute__((target("avx512f,avx512bf16")))
static void bf16x1_wide(const void *apv, const void *bpv, int p, double *out, int ld)
{
    const bf16_panel *A = apv, *B = bpv;
    const size_t nx = B->next;
    __m512 c[MR][2];
#define Z(r) c[r][0] = c[r][1] = _mm512_setzero_ps();
    FOR_ROWS(Z)
#undef Z
    for (int k2 = 0; k2 < p / 2; k2++) {
        const uint32_t *ah = A->hh + (size_t) k2 * MR, *bh = B->hh + (size_t) k2 * NF;
        __m512bh bh0 = LOAD(bh), bh1 = LOAD(bh + nx / 2);
#define F(r) {                                               \
            __m512bh h = BCAST(ah[r]);                       \
            c[r][0] = _mm512_dpbf16_ps(c[r][0], h, bh0);     \
            c[r][1] = _mm512_dpbf16_ps(c[r][1], h, bh1);     \
        }
        FOR_ROWS(F)
#undef F
    }
#define S(r) store16(out + (size_t) r * ld, c[r][0]); store16(out + (size_t) r * ld + NF, c[r][1]);
    FOR_ROWS(S)
#undef S
}

/* bf16x6: c += (hi,mid).(hi',mid') = hh + mm; d += (hi,mid).(mid',hi') =
 * hm + mh, and (hi,lo).(lo',hi') = hl + lh */
__attribute__((target("avx512f,avx512bf16")))
static void bf16x6_micro(const void *apv, const void *bpv, int p, double *out, int ld)
{
    const bf16_panel *A = apv, *B = bpv;
    __m512 c[MR], d[MR];
#define Z(r) c[r] = d[r] = _mm512_setzero_ps();
    FOR_ROWS(Z)
#undef Z
    for (int k = 0; k < p; k++) {
        const uint32_t *am = A->x2 + (size_t) k * MR, *al = A->x1 + (size_t) k * MR;
        __m512bh bhm = LOAD(B->x3 + (size_t) k * NF), bmh = LOAD(B->x2 + (size_t) k * NF),
                 blh = LOAD(B->x1 + (size_t) k * NF);
#define F(r) {                                                \
            __m512bh m = BCAST(am[r]);                        \
            c[r] = _mm512_dpbf16_ps(c[r], m, bhm);            \
            d[r] = _mm512_dpbf16_ps(d[r], m, bmh);            \
            d[r] = _mm512_dpbf16_ps(d[r], BCAST(al[r]), blh); \
        }
        FOR_ROWS(F)
#undef F
    }
#define S(r) store16(out + (size_t) r * ld, _mm512_add_ps(c[r], d[r]));
    FOR_ROWS(S)
#undef S
}

/* --------------------------------------------------------------- data */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;
static double unif(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (rng >> 11) * 0x1.0p-53;
}

/* n rows like a centred image set: pixels in [0, 1], most of them 0 near
 * the border, moved by the feature means, so values in [-1, 1] */
static void image_rows(float *x, int n, int p)
{
    double *mean = calloc(p, sizeof *mean);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p; k++) {
            int row = k / 28, col = k % 28;
            double centre = (row - 13.5) * (row - 13.5) + (col - 13.5) * (col - 13.5);
            double ink = centre < 90 ? 0.45 : centre < 160 ? 0.15 : 0.01;
            double v = unif() < ink ? (unif() < 0.6 ? 1.0 : unif()) : 0.0;
            x[(size_t) i * p + k] = (float) v;
            mean[k] += v / n;
        }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p; k++) x[(size_t) i * p + k] = (float) (x[(size_t) i * p + k] - mean[k]);
    free(mean);
}

/* The rows of x (n x p, row-major) as panels of w rows, feature by
 * feature: floats, and the bf16 term pairs (hi, mid, lo the three-part
 * split; the two-part split's lo = bf16(x - hi) is mid) */
typedef struct {
    float *f;
    uint32_t *hh;                 /* (hi_k, hi_k+1) */
    uint32_t *hm, *hl, *mh, *lh;  /* (hi, mid), (hi, lo), (mid, hi), (lo, hi) */
    int w, p, count;
} panels;

static void make_panels(const float *x, int n, int p, int w, panels *q)
{
    size_t lanes = (size_t) n * p;
    q->w = w, q->p = p, q->count = n / w;
    q->f = malloc(lanes * 4), q->hh = malloc(lanes * 2);
    q->hm = malloc(lanes * 4), q->hl = malloc(lanes * 4);
    q->mh = malloc(lanes * 4), q->lh = malloc(lanes * 4);
    for (int j = 0; j < q->count; j++)
        for (int k = 0; k < p; k++)
            for (int s = 0; s < w; s++) {
                const float *row = x + (size_t) (j * w + s) * p;
                uint16_t t[3], u[3];
                split(row[k], 3, t);
                size_t at = (size_t) j * w * p + (size_t) k * w + s;
                q->f[at] = row[k];
                q->hm[at] = pair(t[0], t[1]), q->hl[at] = pair(t[0], t[2]);
                q->mh[at] = pair(t[1], t[0]), q->lh[at] = pair(t[2], t[0]);
                if (k % 2 == 0) {
                    split(row[k + 1], 3, u);
                    q->hh[(size_t) j * w * p / 2 + (size_t) (k / 2) * w + s] = pair(t[0], u[0]);
                }
            }
}

enum { FLOAT, BF16X3, BF16X1, BF16X6, NKIND };
static const char *kind_name[NKIND] = {"float FMA", "bf16x3 (hi/lo split)", "bf16x1 (hi only)",
                                       "bf16x6 (hi/mid/lo)"};

/* the bf16 pointers of panel j for a kernel kind, on the a side or b side */
static bf16_panel bf16_view(const panels *q, int j, int kind, int b_side)
{
    size_t off = (size_t) j * q->w * q->p;
    bf16_panel v = {q->hh + off / 2, NULL, NULL, NULL, (size_t) q->w * q->p};
    if (kind == BF16X3) v.x1 = (b_side ? q->mh : q->hm) + off;
    if (kind == BF16X6) {
        v.x1 = (b_side ? q->lh : q->hl) + off;
        v.x2 = (b_side ? q->mh : q->hm) + off;
        v.x3 = b_side ? q->hm + off : NULL;
    }
    return v;
}

static tile_fn kernel_of(int kind, int wide)
{
    switch (kind) {
    case FLOAT: return wide ? float_wide : float_micro;
    case BF16X3: return wide ? bf16x3_wide : bf16x3_micro;
    case BF16X1: return wide ? bf16x1_wide : bf16x1_micro;
    default: return wide ? NULL : bf16x6_micro;
    }
}

/* all inner products of a's rows with b's: out (na x nb, row-major) */
static void products(const panels *a, const panels *b, int kind, int wide, double *out)
{
    tile_fn fn = kernel_of(kind, wide);
    int ld = b->count * NF;
    for (int i = 0; i < a->count; i++) {
        bf16_panel av = bf16_view(a, i, kind, 0);
        const void *ap = kind == FLOAT ? (const void *) (a->f + (size_t) i * MR * a->p) : &av;
        for (int j = 0; j < b->count; j += wide ? 2 : 1) {
            bf16_panel bv = bf16_view(b, j, kind, 1);
            const void *bp = kind == FLOAT ? (const void *) (b->f + (size_t) j * NF * b->p) : &bv;
            fn(ap, bp, a->p, out + (size_t) i * MR * ld + (size_t) j * NF, ld);
        }
    }
}

/* ------------------------------------------------------------ accuracy */

typedef struct {
    double rel, scaled, kernel; /* max |v - ref| / |ref|, / sum |a_k b_k|, |k - k_ref| */
} errors;

static errors accuracy(const float *xa, int na, const float *xb, int nb, int p, const double *v)
{
    errors e = {0, 0, 0};
    double gamma = 1.0 / P;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            const float *a = xa + (size_t) i * p, *b = xb + (size_t) j * p;
            double ref = 0, mag = 0, asq = 0, bsq = 0, d2ref = 0;
            for (int k = 0; k < p; k++) {
                ref += (double) a[k] * b[k], mag += fabs((double) a[k] * b[k]);
                asq += (double) a[k] * a[k], bsq += (double) b[k] * b[k];
                d2ref += ((double) a[k] - b[k]) * ((double) a[k] - b[k]);
            }
            double got = v[(size_t) i * nb + j], err = fabs(got - ref);
            if (ref != 0 && err / fabs(ref) > e.rel) e.rel = err / fabs(ref);
            if (mag > 0 && err / mag > e.scaled) e.scaled = err / mag;
            /* as the float tiles: norms in double, d2 = |a|^2 + |b|^2 - 2 a'b */
            double d2 = fmax(asq + bsq - 2 * got, 0);
            double kerr = fabs(exp(-gamma * d2) - exp(-gamma * d2ref));
            if (kerr > e.kernel) e.kernel = kerr;
        }
    return e;
}

/* --------------------------------------------------------------- speed */

/* GFLOP/s-equivalent (2 p per value), best of `repeats` blocks of about
 * 50 ms, single-threaded */
static double speed(const panels *a, const panels *b, int kind, int wide, double *out, int repeats)
{
    double values = (double) a->count * MR * b->count * NF, best = 0;
    int passes = 1;
    for (;; passes *= 2) { /* passes to a block of 50 ms */
        double t0 = now();
        for (int i = 0; i < passes; i++) products(a, b, kind, wide, out);
        if (now() - t0 > 0.05) break;
    }
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        for (int i = 0; i < passes; i++) products(a, b, kind, wide, out);
        double rate = 2.0 * a->p * values * passes / (now() - t0) / 1e9;
        if (rate > best) best = rate;
    }
    return best;
}

/* Core cycles per ns from a chain of dependent integer adds (1 cycle each
 * on current x86 cores) */
static double cycles_per_ns(void)
{
    long n = 100000000, x = 0;
    double t0 = now();
    __asm__ volatile("1:\n\t"
                     "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                     "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                     "dec %1\n\tjnz 1b"
                     : "+r"(x), "+r"(n));
    return 8e8 / ((now() - t0) * 1e9);
}

/* Instructions per ns of 12 independent chains (throughput) or one chain
 * (latency, ns per instruction) of VFMADD231PS zmm / VDPBF16PS zmm */
static volatile float seed = 1.0f;

__attribute__((target("avx512f,avx512bf16")))
static double zmm_rate(int bf16, int chains, double *sink)
{
    __m512 x = _mm512_set1_ps(seed * 0.999f), y = _mm512_set1_ps(seed * 1e-3f), c[12];
    for (int i = 0; i < 12; i++) c[i] = _mm512_set1_ps(seed * i);
    long n = 20000000 / (chains == 1 ? 4 : 1);
    double t0 = now();
    if (bf16) {
        __m512bh xb = BH(_mm512_castps_si512(x)), yb = BH(_mm512_castps_si512(y));
        if (chains == 1)
            for (long i = 0; i < n; i++) c[0] = _mm512_dpbf16_ps(c[0], xb, yb);
        else
            for (long i = 0; i < n; i++) {
#define D(j) c[j] = _mm512_dpbf16_ps(c[j], xb, yb);
                D(0) D(1) D(2) D(3) D(4) D(5) D(6) D(7) D(8) D(9) D(10) D(11)
#undef D
            }
    } else {
        if (chains == 1)
            for (long i = 0; i < n; i++) c[0] = _mm512_fmadd_ps(c[0], x, y);
        else
            for (long i = 0; i < n; i++) {
#define D(j) c[j] = _mm512_fmadd_ps(c[j], x, y);
                D(0) D(1) D(2) D(3) D(4) D(5) D(6) D(7) D(8) D(9) D(10) D(11)
#undef D
            }
    }
    double t = now() - t0;
    __m512 s = c[0];
    for (int i = 1; i < 12; i++) s = _mm512_add_ps(s, c[i]);
    *sink += _mm512_reduce_add_ps(s);
    return (double) n * (chains == 1 ? 1 : 12) / (t * 1e9);
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 7;
    setvbuf(stdout, NULL, _IOLBF, 0);
    double sink = 0;

    /* instruction rates, best of 5 */
    double ghz = 0, rate[2][2] = {{0, 0}, {0, 0}};
    for (int r = 0; r < 5; r++) {
        double g = cycles_per_ns();
        if (g > ghz) ghz = g;
        for (int bf = 0; bf < 2; bf++)
            for (int lat = 0; lat < 2; lat++) {
                double v = zmm_rate(bf, lat ? 1 : 12, &sink);
                if (v > rate[bf][lat]) rate[bf][lat] = v;
            }
    }
    printf("core clock (dependent adds): %.2f GHz\n", ghz);
    printf("VFMADD231PS zmm: %.2f per cycle (12 chains), latency %.1f cycles\n", rate[0][0] / ghz,
           ghz / rate[0][1]);
    printf("VDPBF16PS   zmm: %.2f per cycle (12 chains), latency %.1f cycles\n\n", rate[1][0] / ghz,
           ghz / rate[1][1]);

    /* speed: 24 rows of a against 64 of b (b panels in L2, as the tiles) */
    int na = 4 * MR, nb = 4 * NF;
    float *xa = malloc((size_t) na * P * 4), *xb = malloc((size_t) nb * P * 4);
    image_rows(xa, na, P), image_rows(xb, nb, P);
    panels pa, pb;
    make_panels(xa, na, P, MR, &pa), make_panels(xb, nb, P, NF, &pb);
    double *out = malloc((size_t) na * nb * sizeof *out);
    printf("p = %d, %d x %d values a pass, best of %d, single thread\n", P, na, nb, repeats);
    printf("%-22s %12s %12s\n", "kernel", "MRx16 GF/s", "MRx32 GF/s");
    double base[2] = {0, 0};
    for (int kind = 0; kind < NKIND; kind++) {
        double s16 = speed(&pa, &pb, kind, 0, out, repeats);
        double s32 = kernel_of(kind, 1) ? speed(&pa, &pb, kind, 1, out, repeats) : 0;
        if (kind == FLOAT) base[0] = s16, base[1] = s32;
        printf("%-22s %7.1f (%3.2fx)", kind_name[kind], s16, s16 / base[0]);
        if (s32 > 0) printf(" %6.1f (%3.2fx)", s32, s32 / base[1]);
        printf("\n");
    }

    /* accuracy: 96 x 512 image-like rows, and uniform [-1, 1] rows */
    int ma = 16 * MR, mb = 32 * NF;
    for (int set = 0; set < 2; set++) {
        float *ya = malloc((size_t) ma * P * 4), *yb = malloc((size_t) mb * P * 4);
        if (set == 0) image_rows(ya, ma, P), image_rows(yb, mb, P);
        else {
            for (size_t i = 0; i < (size_t) ma * P; i++) ya[i] = (float) (2 * unif() - 1);
            for (size_t i = 0; i < (size_t) mb * P; i++) yb[i] = (float) (2 * unif() - 1);
        }
        panels qa, qb;
        make_panels(ya, ma, P, MR, &qa), make_panels(yb, mb, P, NF, &qb);
        double *v = malloc((size_t) ma * mb * sizeof *v);
        printf("\naccuracy, %d x %d %s rows, gamma = 1/%d, against double\n", ma, mb,
               set ? "uniform [-1, 1]" : "centred image-like", P);
        printf("%-22s %12s %14s %14s\n", "kernel", "max rel", "max err/sum|ab|", "max |k - k_ref|");
        for (int kind = 0; kind < NKIND; kind++)
            for (int wide = 0; wide < 2; wide++) {
                if (!kernel_of(kind, wide)) continue;
                products(&qa, &qb, kind, wide, v);
                errors e = accuracy(ya, ma, yb, mb, P, v);
                printf("%-18s %s %12.2e %14.2e %14.2e\n", kind_name[kind], wide ? "x32" : "x16", e.rel,
                       e.scaled, e.kernel);
            }
        free(ya), free(yb), free(v);
    }
    return sink == 12345.678 ? 1 : 0;
}
