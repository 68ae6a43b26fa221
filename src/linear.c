/* A linear SVM by dual coordinate descent with shrinking (Hsieh, Chang,
 * Lin, Keerthi and Sundararajan 2008, the algorithm of LIBLINEAR's L1-loss
 * SVC): minimise (1/2) a'Qa - sum(a), 0 <= a_i <= C_i, Q_ij = y_i y_j x_i'x_j,
 * with x_i a row of features followed by the constant `bias`, so that the
 * offset is the weight of that constant (regularised with the others, as
 * LIBLINEAR's).  One coordinate at a time, in a random order each pass
 * (R's RNG: the caller holds GetRNGstate), keeping w = sum a_i y_i x_i.
 * Coordinates at a bound whose gradient points outside by more than last
 * pass's extremes leave the active set; when the active ones meet the
 * tolerance, all are checked once more before stopping. */
#include <math.h>
#include <R.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "linear.h"

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

void kc_linear_svm(const float *z, int r, const int *rows, int n, const int *y,
                   const double *C, const kc_linear_options *opt,
                   double *w, double *alpha, kc_linear_result *res)
{
    double bias = opt->bias, eps = opt->eps;
    long max_pass = opt->max_pass;
    int shrinking = opt->shrinking;
    double *qd = (double *) R_alloc((size_t) n + 1, sizeof(double));
    int *index = (int *) R_alloc((size_t) n + 1, sizeof(int));
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
            int j = s + (int) (unif_rand() * (active - s));
            if (j >= active) j = active - 1;
            int tmp = index[s]; index[s] = index[j]; index[j] = tmp;
        }
        for (int s = 0; s < active; s++) {
            int i = index[s];
            const float *zi = z + (size_t) rows[i] * r;
            double g = y[i] * (dot(zi, w, r) + w[r] * bias) - 1;
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
                for (int t = 0; t < r; t++) w[t] += d * zi[t];
                w[r] += d * bias;
            }
        }
        pass++;
        R_CheckUserInterrupt();  /* between passes: w and alpha are the caller's */
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
