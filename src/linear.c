/* A linear SVM by dual coordinate descent with shrinking (Hsieh, Chang,
 * Lin, Keerthi and Sundararajan 2008, the algorithm of LIBLINEAR's L1-loss
 * SVC): minimise (1/2) a'Qa - sum(a), 0 <= a_i <= C_i, Q_ij = y_i y_j x_i'x_j,
 * with x_i a row of features followed by the constant `bias`, so that the
 * offset is the weight of that constant (regularised with the others, as
 * LIBLINEAR's).  One coordinate at a time, in a random order each pass
 * (R's RNG, or a problem's own generator when problems run side by side),
 * keeping w = sum a_i y_i x_i.  Coordinates at a bound whose gradient
 * points outside by more than last pass's extremes leave the active set;
 * when the active ones meet the tolerance, all are checked once more before
 * stopping.  Each coordinate reads its row of the store (r floats), so the
 * next row is prefetched while this one computes (45 pairs of 12,000 x
 * 1,500 features: 5.5 against 4.2 CPU seconds). */
#include <math.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "linear.h"
#include "isa.h"
#include "units.h"

/* z'w in four interleaved sums (so the additions need not wait on one
 * another: several times faster than one running sum at r in the
 * hundreds), then added in a fixed order. */
static double dot(const float *z, const double *w, int r)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int t = 0;
    for (; t + 4 <= r; t += 4) {
        s0 += z[t] * w[t];
        s1 += z[t + 1] * w[t + 1];
        s2 += z[t + 2] * w[t + 2];
        s3 += z[t + 3] * w[t + 3];
    }
    for (; t < r; t++) s0 += z[t] * w[t];
    return (s0 + s1) + (s2 + s3);
}

/* splitmix64 (Steele, Lea and Flood 2014): a uniform on [0, 1) from the
 * top 53 bits. */
static double rng_uniform(kc_linear_rng *g)
{
    unsigned long long x = (g->state += 0x9E3779B97F4A7C15ULL);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return (double) (x >> 11) * (1.0 / 9007199254740992.0);
}

/* w += d z (the update of a coordinate's move). */
static void axpy(double d, const float *z, double *w, int r)
{
    for (int t = 0; t < r; t++) w[t] += d * z[t];
}

/* The same two with AVX2 and FMA, four floats widened to doubles at a time
 * (R builds without -march: compiled for their target alone, used where the
 * engine chose AVX2 or AVX-512, src/isa.c); the dot in four interleaved
 * sums of four lanes, added in a fixed order. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KC_LINEAR_AVX2 1

__attribute__((target("avx2,fma")))
static double dot_avx2(const float *z, const double *w, int r)
{
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    int t = 0;
    for (; t + 16 <= r; t += 16) {
        s0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps(z + t)), _mm256_loadu_pd(w + t), s0);
        s1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps(z + t + 4)), _mm256_loadu_pd(w + t + 4), s1);
        s2 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps(z + t + 8)), _mm256_loadu_pd(w + t + 8), s2);
        s3 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps(z + t + 12)), _mm256_loadu_pd(w + t + 12),
                             s3);
    }
    double lane[4];
    _mm256_storeu_pd(lane, _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)));
    double s = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (; t < r; t++) s += z[t] * w[t];
    return s;
}

__attribute__((target("avx2,fma")))
static void axpy_avx2(double d, const float *z, double *w, int r)
{
    __m256d dd = _mm256_set1_pd(d);
    int t = 0;
    for (; t + 8 <= r; t += 8) {
        _mm256_storeu_pd(w + t, _mm256_fmadd_pd(dd, _mm256_cvtps_pd(_mm_loadu_ps(z + t)),
                                                _mm256_loadu_pd(w + t)));
        _mm256_storeu_pd(w + t + 4, _mm256_fmadd_pd(dd, _mm256_cvtps_pd(_mm_loadu_ps(z + t + 4)),
                                                    _mm256_loadu_pd(w + t + 4)));
    }
    for (; t < r; t++) w[t] += d * z[t];
}
#endif

void kc_linear_svm(const float *z, int r, const int *rows, int n, const int *y,
                   const double *C, const kc_linear_options *opt, kc_linear_rng *rng,
                   double *w, double *alpha, kc_linear_result *res)
{
    double *qd = (double *) kc_alloc((size_t) n + 1, sizeof(double));
    int *index = (int *) kc_alloc((size_t) n + 1, sizeof(int));
    double bias = opt->bias, eps = opt->eps;
    long max_pass = opt->max_pass;
    int shrinking = opt->shrinking;
    double (*dotf)(const float *, const double *, int) = dot;
    void (*axpyf)(double, const float *, double *, int) = axpy;
#ifdef KC_LINEAR_AVX2
    if (strcmp(kc_engine_name(), "c") != 0) {
        dotf = dot_avx2;
        axpyf = axpy_avx2;
    }
#endif
    for (int t = 0; t <= r; t++) w[t] = 0;
    for (int i = 0; i < n; i++) {
        const float *zi = z + (size_t) rows[i] * r;
        double q = bias * bias;
        for (int t = 0; t < r; t++) q += (double) zi[t] * zi[t];
        qd[i] = q;
        alpha[i] = 0;
        index[i] = i;
    }
    int active = n;
    double pg_max_old = R_PosInf, pg_min_old = R_NegInf;
    long pass = 0;
    res->status = KC_LINEAR_MAX_PASS;
    while (pass < max_pass) {
        double pg_max = R_NegInf, pg_min = R_PosInf;
        for (int s = 0; s < active; s++) {
            double u = rng ? rng_uniform(rng) : unif_rand();
            int j = s + (int) (u * (active - s));
            if (j >= active) j = active - 1;
            int tmp = index[s]; index[s] = index[j]; index[j] = tmp;
        }
        for (int s = 0; s < active; s++) {
            int i = index[s];
            const float *zi = z + (size_t) rows[i] * r;
#if defined(__GNUC__) || defined(__clang__)
            if (s + 1 < active) {  /* the next row, from memory while this one computes */
                const char *next = (const char *) (z + (size_t) rows[index[s + 1]] * r);
                for (size_t b = 0; b < (size_t) r * sizeof(float); b += 64)
                    __builtin_prefetch(next + b);
            }
#endif
            double g = y[i] * (dotf(zi, w, r) + w[r] * bias) - 1;
            double pg = 0;
            if (alpha[i] == 0) {
                if (shrinking && g > pg_max_old) {
                    active--;
                    index[s] = index[active];
                    index[active] = i;
                    s--;
                    continue;
                }
                if (g < 0) pg = g;
            } else if (alpha[i] == C[i]) {
                if (shrinking && g < pg_min_old) {
                    active--;
                    index[s] = index[active];
                    index[active] = i;
                    s--;
                    continue;
                }
                if (g > 0) pg = g;
            } else {
                pg = g;
            }
            if (pg > pg_max) pg_max = pg;
            if (pg < pg_min) pg_min = pg;
            if (fabs(pg) > 1e-12) {
                double old = alpha[i], a = old - g / qd[i];
                a = a < 0 ? 0 : (a > C[i] ? C[i] : a);
                alpha[i] = a;
                double d = (a - old) * y[i];
                axpyf(d, zi, w, r);
                w[r] += d * bias;
            }
        }
        pass++;
        kc_check_interrupt();  /* between passes: w and alpha are the caller's */
        if (active == 0 || pg_max - pg_min <= eps) {
            if (active == n) { res->status = KC_LINEAR_CONVERGED; break; }
            active = n;  /* check every coordinate before stopping */
            pg_max_old = R_PosInf;
            pg_min_old = R_NegInf;
            continue;
        }
        pg_max_old = pg_max <= 0 ? R_PosInf : pg_max;
        pg_min_old = pg_min >= 0 ? R_NegInf : pg_min;
    }
    double obj = 0, sa = 0;
    for (int t = 0; t <= r; t++) obj += w[t] * w[t];
    for (int i = 0; i < n; i++) sa += alpha[i];
    res->objective = obj / 2 - sa;
    res->passes = pass;
}

typedef struct {
    const float *z;
    int r;
    kc_linear_problem *p;
    const kc_linear_options *opt;
} many_ctx;

static void solve_one(void *ctx, int u, int thread)
{
    (void) thread;
    many_ctx *c = (many_ctx *) ctx;
    kc_linear_problem *p = c->p + u;
    kc_linear_svm(c->z, c->r, p->rows, p->n, p->y, p->C, c->opt, &p->rng, p->w, p->alpha, &p->res);
}

void kc_linear_many(const float *z, int r, kc_linear_problem *p, int np,
                    const kc_linear_options *opt, int nthreads)
{
    many_ctx c = {z, r, p, opt};
    kc_units_status why = kc_units(np, nthreads, solve_one, &c);
    if (why != KC_UNITS_DONE) kc_units_raise(why);
}
