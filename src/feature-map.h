/* Low-rank kernel features (features.c), computed in row blocks: Nystrom,
 * z(x) = proj' k(landmarks, x) (proj m x r), or random Fourier features,
 * z(x) = sqrt(2 / r) cos(freq'x + phase) (freq p x r, dense x only).
 * (Not "features.h": that is the C library's, which <limits.h> includes.) */
#ifndef KERNCLASS_FEATURE_MAP_H
#define KERNCLASS_FEATURE_MAP_H

#include <stddef.h>
#include "kernel.h"

/* The kinds of feature map; R reads the codes (ffi_enums, R/engine-c-enums.R). */
typedef enum { KC_FEATURES_NYSTROM = 1, KC_FEATURES_FOURIER = 2 } kc_feature_type;

typedef struct {
    kc_feature_type type;
    kc_kernel kernel;
    kc_points landmarks;
    const double *proj, *freq, *phase;
    const double *projt, *freqt;  /* their transposes, made by the workers */
    int m, p, r;
    int triangular;  /* proj upper triangular (m = r): projt holds its column blocks */
} kc_feature_map;
size_t kc_feature_work_size(const kc_feature_map *f);
/* sums (G x r) of the features of each group's rows (0-based codes) */
void kc_feature_sums(const kc_feature_map *f, const kc_points *a, const int *group, int G,
                     double *sums, int nthreads);
/* out (n x q) = Z w, w r x q; all column-major */
void kc_feature_product(const kc_feature_map *f, const kc_points *a, const double *w, int q,
                        double *out, int nthreads);
/* the features themselves, n x r column-major */
void kc_feature_matrix(const kc_feature_map *f, const kc_points *a, double *out, int nthreads);
/* the features as floats, row-major: out[i * r + j] */
void kc_feature_store(const kc_feature_map *f, const kc_points *a, float *out, int nthreads);
/* out (n x q) = Z[rows, ] w for the rows of a float store (row-major, r wide) */
/* k-means++ seeding of m rows of a (features.c): chosen 0-based; returns the
 * kernel columns computed */
long kc_kmeanspp(const kc_kernel *k, const kc_points *a, int m, int *chosen, int nthreads);
/* X = R^-1 of an upper triangular r x r R, column-major (features.c) */
void kc_triangular_inverse(const double *R, int r, double *X, int nthreads);
void kc_store_product(const float *z, int r, const int *rows, ptrdiff_t n, const double *w,
                      int q, double *out);

#endif
