/* .Call entry points of the low-rank features (feature-map.h) and the linear
 * SVM on them (linear.h).  The style and the shared unpacking: ffi.c. */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <Rinternals.h>
#include <R_ext/Random.h>
#include "kernclass.h"
#include "kernel.h"
#include "feature-map.h"
#include "linear.h"
#include "ffi.h"
#include "ffi-entry.h"

/* A feature map from R (kc_feature_map() in R/repr-approx.R): list(type (1
 * Nystrom, 2 Fourier), landmarks, proj (m x r), freq (p x r), phase (r)),
 * checked against the points x it will map. */
static kc_feature_map feature_map_from(SEXP map, SEXP spec, const kc_points *x)
{
    kc_feature_map f;
    memset(&f, 0, sizeof f);
    f.kernel = kc_kernel_from(spec);
    SEXP type = kc_list_elt(map, "type");
    if (!isInteger(type) || XLENGTH(type) != 1)
        kc_internal("a feature map needs its integer type");
    f.type = (kc_feature_type) INTEGER(type)[0];
    f.p = x->p;
    if (f.type == KC_FEATURES_NYSTROM) {
        SEXP proj = kc_list_elt(map, "proj");
        f.landmarks = kc_points_from(kc_list_elt(map, "landmarks"), "landmarks");
        kc_check_pair(&f.kernel, x, &f.landmarks, "x", "landmarks");
        if (x->src != KC_SRC_DENSE && x->src != KC_SRC_SPARSE)
            kc_internal("features need input columns");
        if (!isReal(proj) || !isMatrix(proj) || nrows(proj) != f.landmarks.n || ncols(proj) < 1)
            kc_internal("proj must be a double matrix with a row per landmark");
        f.m = nrows(proj);
        f.r = ncols(proj);
        f.proj = REAL(proj);
    } else if (f.type == KC_FEATURES_FOURIER) {
        SEXP freq = kc_list_elt(map, "freq"), phase = kc_list_elt(map, "phase");
        if (x->src != KC_SRC_DENSE) kc_internal("Fourier features need dense rows");
        if (!isReal(freq) || !isMatrix(freq) || nrows(freq) != x->p || ncols(freq) < 1 ||
            !isReal(phase) || XLENGTH(phase) != ncols(freq))
            kc_internal("freq must be p x r and phase of length r");
        f.r = ncols(freq);
        f.freq = REAL(freq);
        f.phase = REAL(phase);
    } else {
        kc_internal("unknown feature map type");
    }
    return f;
}

/* Sums of the features of each group's rows: a G x r matrix. */
SEXP ffi_feature_sums(SEXP x, SEXP group, SEXP ngroups, SEXP map, SEXP spec, SEXP threads)
{
    int nt = kc_threads_from(threads);
    kc_points a = kc_points_from(x, "x");
    kc_feature_map f = feature_map_from(map, spec, &a);
    int G;
    const int *g = kc_groups_from(group, a.n, ngroups, &G);
    SEXP out = PROTECT(kc_alloc_result(G, f.r));
    kc_feature_sums(&f, &a, g, G, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* Z w, Z the features of x (never stored whole): n x q; w NULL: Z itself. */
SEXP ffi_feature_product(SEXP x, SEXP w, SEXP map, SEXP spec, SEXP threads)
{
    int nt = kc_threads_from(threads);
    kc_points a = kc_points_from(x, "x");
    kc_feature_map f = feature_map_from(map, spec, &a);
    if (isNull(w)) {
        SEXP out = PROTECT(kc_alloc_result(a.n, f.r));
        kc_feature_matrix(&f, &a, REAL(out), nt);
        UNPROTECT(1);
        return out;
    }
    if (!isReal(w) || !isMatrix(w) || nrows(w) != f.r || ncols(w) < 1)
        kc_internal("w must be a double matrix with a row per feature");
    for (R_xlen_t i = 0; i < XLENGTH(w); i++)
        if (!R_FINITE(REAL(w)[i])) kc_internal("w must be finite");
    SEXP out = PROTECT(kc_alloc_result(a.n, ncols(w)));
    kc_feature_product(&f, &a, REAL(w), ncols(w), REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* The features of x as floats, row by row, in a raw vector (n * r * 4 bytes). */
SEXP ffi_feature_store(SEXP x, SEXP map, SEXP spec, SEXP threads)
{
    int nt = kc_threads_from(threads);
    kc_points a = kc_points_from(x, "x");
    kc_feature_map f = feature_map_from(map, spec, &a);
    double bytes = (double) a.n * f.r * sizeof(float);
    if (bytes > (double) R_XLEN_T_MAX)
        kc_error(KC_ERROR_SIZE, "kernclass: the feature store is too large for R");
    SEXP out = PROTECT(allocVector(RAWSXP, (R_xlen_t) bytes));
    kc_feature_store(&f, &a, (float *) RAW(out), nt);
    UNPROTECT(1);
    return out;
}

/* A float store's rows (checked) and width. */
static const int *store_rows(SEXP store, SEXP r, SEXP rows, int *width)
{
    if (TYPEOF(store) != RAWSXP || !isInteger(r) || XLENGTH(r) != 1 || INTEGER(r)[0] < 1)
        kc_internal("a feature store is a raw vector and its integer width");
    *width = INTEGER(r)[0];
    R_xlen_t n = XLENGTH(store) / ((R_xlen_t) *width * (R_xlen_t) sizeof(float));
    if ((double) n * *width * sizeof(float) != (double) XLENGTH(store))
        kc_internal("the feature store's length is not a whole number of rows");
    return kc_index_from(rows, XLENGTH(rows), n, "rows");
}

/* Z[rows, ] w for a float store: length(rows) x q. */
SEXP ffi_store_product(SEXP store, SEXP r, SEXP rows, SEXP w)
{
    int width;
    const int *rw = store_rows(store, r, rows, &width);
    if (!isReal(w) || !isMatrix(w) || nrows(w) != width || ncols(w) < 1)
        kc_internal("w must be a double matrix with a row per feature");
    SEXP out = PROTECT(kc_alloc_result(XLENGTH(rows), ncols(w)));
    kc_store_product((const float *) RAW(store), width, rw, XLENGTH(rows), REAL(w), ncols(w),
                     REAL(out));
    UNPROTECT(1);
    return out;
}

/* One linear SVM problem from R, checked: rows of the store (width r), y
 * (+1 / -1) and bounds C, each of the rows' length. */
static void linear_rows_from(SEXP store, SEXP r, SEXP rows, SEXP y, SEXP C, int *width,
                             const int **rw, int *n)
{
    *rw = store_rows(store, r, rows, width);
    R_xlen_t len = XLENGTH(rows);
    if (len > INT_MAX - 1) kc_internal("too many rows");
    if (!isInteger(y) || XLENGTH(y) != len || !isReal(C) || XLENGTH(C) != len)
        kc_internal("y and C must have one value per row");
    for (R_xlen_t i = 0; i < len; i++) {
        if (INTEGER(y)[i] != 1 && INTEGER(y)[i] != -1)
            kc_internal("y must be -1 or +1");
        if (!(REAL(C)[i] > 0) || !R_FINITE(REAL(C)[i]))
            kc_internal("C must be finite and > 0");
    }
    *n = (int) len;
}

static kc_linear_options linear_options_from(SEXP tolerance, SEXP max_pass, SEXP shrinking)
{
    double eps = asReal(tolerance), mp = asReal(max_pass);
    if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
    if (ISNAN(mp) || mp < 1) kc_internal("max_pass must be >= 1");
    int shr = asLogical(shrinking);
    if (shr == NA_LOGICAL) kc_internal("shrinking must be TRUE or FALSE");
    kc_linear_options opt = {.bias = 1.0, .eps = eps,
                             .max_pass = mp > 1e15 ? (long) 1e15 : (long) mp, .shrinking = shr};
    return opt;
}

/* Asks the system for large pages over [p, p + bytes) where it can: first
 * touches of a fresh 4 KB page each cost a fault, 0.3 s for the 120 MB of
 * halves of 30,000 x 2,000 on the project's (virtual) 2-core machine. */
static void kc_huge_pages(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t a = ((uintptr_t) p + 4095) & ~(uintptr_t) 4095, end = (uintptr_t) p + bytes;
    if (end > a + 4096) madvise((void *) a, (size_t) (end - a) & ~(size_t) 4095, MADV_HUGEPAGE);
#else
    (void) p;
    (void) bytes;
#endif
}

/* The solver's rows (linear.h): the rows of np problems of a float store
 * (width r), each row once, in half precision; rows[t] are renumbered in
 * place to index them. */
static kc_linear_store linear_store_from(SEXP store, int r, const int **rows, const int *n, int np)
{
    R_xlen_t N = XLENGTH(store) / ((R_xlen_t) r * (R_xlen_t) sizeof(float));
    int *slot = (int *) R_alloc((size_t) N + 1, sizeof(int)), nu = 0;
    for (R_xlen_t i = 0; i < N; i++) slot[i] = -1;
    for (int t = 0; t < np; t++)
        for (int i = 0; i < n[t]; i++)
            if (slot[rows[t][i]] < 0) slot[rows[t][i]] = nu++;
    int *used = (int *) R_alloc((size_t) nu + 1, sizeof(int));
    for (R_xlen_t i = 0; i < N; i++)
        if (slot[i] >= 0) used[slot[i]] = (int) i;
    for (int t = 0; t < np; t++) {
        int *rw = (int *) rows[t];  /* kc_index_from's copy: ours to renumber */
        for (int i = 0; i < n[t]; i++) rw[i] = slot[rw[i]];
    }
    uint16_t *h = (uint16_t *) R_alloc((size_t) nu * r + 1, sizeof(uint16_t));
    kc_huge_pages(h, ((size_t) nu * r + 1) * sizeof(uint16_t));
    double *scale = (double *) R_alloc((size_t) nu + 1, sizeof(double)),
           *sq = (double *) R_alloc((size_t) nu + 1, sizeof(double));
    if (!kc_linear_halves((const float *) RAW(store), r, used, nu, h, scale, sq))
        kc_internal("the feature store holds a value that is not finite");
    kc_linear_store st = {h, scale, sq, r};
    return st;
}

/* list(w, alpha, objective, passes, status) of a solve (w and alpha protected). */
static SEXP linear_result(SEXP w, SEXP alpha, const kc_linear_result *res)
{
    const char *names[] = {"w", "alpha", "objective", "passes", "status", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, w);
    SET_VECTOR_ELT(out, 1, alpha);
    SET_VECTOR_ELT(out, 2, ScalarReal(res->objective));
    SET_VECTOR_ELT(out, 3, ScalarReal((double) res->passes));
    SET_VECTOR_ELT(out, 4, ScalarInteger(res->status));
    UNPROTECT(1);
    return out;
}

/* The linear SVM by dual coordinate descent on rows of a float store, with
 * a constant feature 1: list(w (r + 1), alpha, objective, passes, status);
 * R's RNG. */
SEXP ffi_linear_svm(SEXP store, SEXP r, SEXP rows, SEXP y, SEXP C, SEXP tolerance,
                    SEXP max_pass, SEXP shrinking)
{
    int width, n;
    const int *rw;
    linear_rows_from(store, r, rows, y, C, &width, &rw, &n);
    kc_linear_options opt = linear_options_from(tolerance, max_pass, shrinking);
    SEXP w = PROTECT(allocVector(REALSXP, (R_xlen_t) width + 1));
    SEXP alpha = PROTECT(allocVector(REALSXP, n));
    kc_linear_result res;
    kc_linear_store st = linear_store_from(store, width, &rw, &n, 1);
    GetRNGstate();
    kc_linear_svm(&st, rw, n, INTEGER(y), REAL(C), &opt, NULL, REAL(w), REAL(alpha), &res);
    PutRNGstate();
    SEXP out = linear_result(w, alpha, &res);
    UNPROTECT(2);
    return out;
}

/* Several linear SVMs on one store (lists rows, y, C of one problem each),
 * side by side on threads: a list of ffi_linear_svm's results.  Each
 * problem's generator is seeded from R's RNG, in order, so that the results
 * depend on the seed and not on the threads. */
SEXP ffi_linear_many(SEXP store, SEXP r, SEXP rows, SEXP y, SEXP C, SEXP tolerance,
                     SEXP max_pass, SEXP shrinking, SEXP threads)
{
    int nt = kc_threads_from(threads);
    if (!isNewList(rows) || !isNewList(y) || !isNewList(C) || XLENGTH(y) != XLENGTH(rows) ||
        XLENGTH(C) != XLENGTH(rows) || XLENGTH(rows) > INT_MAX)
        kc_internal("rows, y and C must be lists with one element per problem");
    int np = (int) XLENGTH(rows), width = 1;
    kc_linear_options opt = linear_options_from(tolerance, max_pass, shrinking);
    kc_linear_problem *p = (kc_linear_problem *) R_alloc((size_t) np + 1, sizeof *p);
    SEXP out = PROTECT(allocVector(VECSXP, np));
    GetRNGstate();
    for (int t = 0; t < np; t++) {
        SEXP yt = VECTOR_ELT(y, t), Ct = VECTOR_ELT(C, t);
        linear_rows_from(store, r, VECTOR_ELT(rows, t), yt, Ct, &width, &p[t].rows, &p[t].n);
        SEXP w = PROTECT(allocVector(REALSXP, (R_xlen_t) width + 1));
        SEXP alpha = PROTECT(allocVector(REALSXP, p[t].n));
        SET_VECTOR_ELT(out, t, list2(w, alpha));  /* keeps them until the results replace it */
        UNPROTECT(2);
        p[t].y = INTEGER(yt);
        p[t].C = REAL(Ct);
        p[t].w = REAL(w);
        p[t].alpha = REAL(alpha);
        /* 64 seed bits from two uniforms of R's RNG */
        unsigned long long hi = (unsigned long long) (unif_rand() * 4294967296.0),
                           lo = (unsigned long long) (unif_rand() * 4294967296.0);
        p[t].rng.state = (hi << 32) ^ lo;
    }
    PutRNGstate();
    const int **rw = (const int **) R_alloc((size_t) np + 1, sizeof(int *));
    int *nr = (int *) R_alloc((size_t) np + 1, sizeof(int));
    for (int t = 0; t < np; t++) {
        rw[t] = p[t].rows;
        nr[t] = p[t].n;
    }
    kc_linear_store st = linear_store_from(store, width, rw, nr, np);
    for (int t = 0; t < np; t++) p[t].rows = rw[t];
    kc_linear_many(&st, p, np, &opt, nt);
    for (int t = 0; t < np; t++) {
        SEXP held = VECTOR_ELT(out, t);
        SET_VECTOR_ELT(out, t, linear_result(CAR(held), CADR(held), &p[t].res));
    }
    UNPROTECT(1);
    return out;
}

/* k-means++ seeding (features.c): m distinct 1-based rows of the dense x. */
SEXP ffi_kmeanspp(SEXP x, SEXP spec, SEXP m, SEXP threads)
{
    kc_kernel k = kc_kernel_from(spec);
    int nt = kc_threads_from(threads), mm = asInteger(m);
    kc_points a = kc_points_from(x, "x");
    if (a.src != KC_SRC_DENSE || a.n > INT_MAX - 1) kc_internal("x must be a dense matrix");
    if (mm == NA_INTEGER || mm < 1 || mm > a.n) kc_internal("m must be from 1 to nrow(x)");
    SEXP out = PROTECT(allocVector(INTSXP, mm));
    GetRNGstate();
    long columns = kc_kmeanspp(&k, &a, mm, INTEGER(out), nt);
    PutRNGstate();
    for (int i = 0; i < mm; i++) INTEGER(out)[i]++;
    setAttrib(out, install("columns"), ScalarReal((double) columns));
    UNPROTECT(1);
    return out;
}

/* The inverse of an upper triangular matrix with a nonzero diagonal (the
 * Nystrom map's R^-1, R/repr-approx-map.R). */
SEXP ffi_triangular_inverse(SEXP R, SEXP threads)
{
    int nt = kc_threads_from(threads);
    if (!isReal(R) || !isMatrix(R) || nrows(R) != ncols(R) || nrows(R) < 1)
        kc_internal("R must be a square double matrix");
    int r = nrows(R);
    for (int j = 0; j < r; j++) {
        if (!R_FINITE(REAL(R)[j + (size_t) j * r]) || REAL(R)[j + (size_t) j * r] == 0)
            kc_internal("R must have a finite nonzero diagonal");
        for (int i = j + 1; i < r; i++)
            if (REAL(R)[i + (size_t) j * r] != 0) kc_internal("R must be upper triangular");
    }
    SEXP out = PROTECT(kc_alloc_result(r, r));
    kc_triangular_inverse(REAL(R), r, REAL(out), nt);
    UNPROTECT(1);
    return out;
}
