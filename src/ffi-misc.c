/* .Call entry points of the smaller engine modules: the threshold search
 * (threshold.h), pairwise coupling (coupling.h), threads (threads.h),
 * column passes (columns.h), two-class labels; and the C enums R reads
 * (ffi_enums).  The style and the shared unpacking: ffi.c. */
#include <Rinternals.h>
#include "kernclass.h"
#include "kernel.h"
#include "threads.h"
#include "threshold.h"
#include "coupling.h"
#include "columns.h"
#include "smo.h"
#include "svm-path.h"
#include "feature-map.h"
#include "linear.h"
#include "ffi.h"
#include "ffi-entry.h"

/* threshold_search(score, y): score a finite double vector, y an integer
 * vector of +1 / -1 of the same length.  Returns c(b, split, consistency, sign). */
SEXP ffi_threshold_search(SEXP score, SEXP y)
{
    if (!isReal(score)) kc_internal("score must be a double vector");
    if (!isInteger(y)) kc_internal("y must be an integer vector");
    R_xlen_t n = XLENGTH(score);
    if (XLENGTH(y) != n) kc_internal("score and y must have the same length");
    if (n < 1) kc_internal("score is empty");
    const double *s = REAL(score);
    const int *lab = INTEGER(y);
    for (R_xlen_t i = 0; i < n; i++) {
        if (!R_FINITE(s[i])) kc_internal("score holds NA, NaN or Inf");
        if (lab[i] != 1 && lab[i] != -1) kc_internal("y must be +1 or -1");
    }
    SEXP out = PROTECT(allocVector(REALSXP, 4));
    kc_threshold_search(s, lab, (ptrdiff_t) n, REAL(out));
    UNPROTECT(1);
    return out;
}

/* r: n x k(k-1)/2 probabilities of the first class of each pair, in
 * LIBSVM's pair order; returns the n x k class probabilities. */
SEXP ffi_pairwise_coupling(SEXP r, SEXP nclass, SEXP threads)
{
    if (!isReal(r) || !isMatrix(r)) kc_internal("r must be a double matrix");
    if (!isInteger(nclass) || XLENGTH(nclass) != 1 || INTEGER(nclass)[0] == NA_INTEGER ||
        INTEGER(nclass)[0] < 2)
        kc_internal("nclass must be one integer >= 2");
    int k = INTEGER(nclass)[0], nthreads = kc_threads_from(threads);
    if ((double) k * (k - 1) / 2 != (double) ncols(r))
        kc_internal("r must have k(k-1)/2 columns for k = %d classes", k);
    const double *rv = REAL(r);
    R_xlen_t len = XLENGTH(r);
    for (R_xlen_t i = 0; i < len; i++)
        if (!(rv[i] >= 0 && rv[i] <= 1))
            kc_internal("r must hold probabilities in [0, 1]");
    SEXP p = PROTECT(allocMatrix(REALSXP, nrows(r), k));
    kc_pairwise_coupling(rv, nrows(r), k, REAL(p), nthreads);
    UNPROTECT(1);
    return p;
}

/* The threads policy's one getter: option (kernclass.threads, NULL: not
 * set) and cores (what R counts, NA where the option is set) give
 * c(requested, used, max): the threads asked for, those this process can
 * run, the most the engine ever uses. */
SEXP ffi_threads(SEXP option, SEXP cores)
{
    double opt = NA_REAL;
    if (!isNull(option)) {
        if (!(isReal(option) || isInteger(option)) || XLENGTH(option) != 1) kc_internal("option must be one number");
        opt = asReal(option);
        if (ISNAN(opt) || opt < 1) kc_internal("option must be at least 1");
    }
    if (!isInteger(cores) || XLENGTH(cores) != 1) kc_internal("cores must be one integer");
    int requested = kc_threads_request(opt, INTEGER(cores)[0]);
    SEXP out = PROTECT(allocVector(INTSXP, 3)), names = PROTECT(allocVector(STRSXP, 3));
    INTEGER(out)[0] = requested;
    INTEGER(out)[1] = kc_threads_cap(requested);
    INTEGER(out)[2] = kc_threads_max();
    SET_STRING_ELT(names, 0, mkChar("requested"));
    SET_STRING_ELT(names, 1, mkChar("used"));
    SET_STRING_ELT(names, 2, mkChar("max"));
    setAttrib(out, R_NamesSymbol, names);
    UNPROTECT(2);
    return out;
}

/* list(mean, sd) of the columns of x. */
SEXP ffi_column_moments(SEXP x)
{
    kc_double_matrix(x, "x");
    int p = ncols(x);
    SEXP mean = PROTECT(allocVector(REALSXP, p)), sd = PROTECT(allocVector(REALSXP, p));
    kc_column_moments(REAL(x), nrows(x), p, REAL(mean), REAL(sd));
    SEXP out = PROTECT(allocVector(VECSXP, 2));
    SET_VECTOR_ELT(out, 0, mean);
    SET_VECTOR_ELT(out, 1, sd);
    UNPROTECT(3);
    return out;
}

/* (x - center) / scale by column, as a new matrix without dimnames. */
SEXP ffi_scale_columns(SEXP x, SEXP center, SEXP scale)
{
    kc_double_matrix(x, "x");
    int p = ncols(x);
    if (!isReal(center) || XLENGTH(center) != p || !isReal(scale) || XLENGTH(scale) != p)
        kc_internal("center and scale need one double per column");
    SEXP out = PROTECT(allocMatrix(REALSXP, nrows(x), p));
    kc_scale_columns(REAL(x), nrows(x), p, REAL(center), REAL(scale), REAL(out));
    UNPROTECT(1);
    return out;
}

/* c(infinite values, NA or NaN values) in x. */
SEXP ffi_count_nonfinite(SEXP x)
{
    if (!isReal(x)) kc_internal("x must be a double vector");
    ptrdiff_t inf, na;
    kc_count_nonfinite(REAL(x), XLENGTH(x), &inf, &na);
    SEXP out = PROTECT(allocVector(REALSXP, 2));
    REAL(out)[0] = (double) inf;
    REAL(out)[1] = (double) na;
    UNPROTECT(1);
    return out;
}

/* Two-class labels as integer +1 / -1: factor codes (1 -> +1, 2 -> -1) when
 * codes is TRUE, else logicals (TRUE -> +1) or the numbers +1 and -1.  NULL
 * when a value is none of these (NA included): the caller's error. */
SEXP ffi_pm1(SEXP y, SEXP codes)
{
    R_xlen_t n = XLENGTH(y);
    int from_codes = asLogical(codes) == TRUE;
    SEXP out = PROTECT(allocVector(INTSXP, n));
    int *o = INTEGER(out), ok = 1;
    if (TYPEOF(y) == REALSXP) {
        const double *v = REAL(y);
        for (R_xlen_t i = 0; i < n && ok; i++) {
            ok = v[i] == 1 || v[i] == -1;
            o[i] = v[i] > 0 ? 1 : -1;
        }
    } else if (TYPEOF(y) == INTSXP || TYPEOF(y) == LGLSXP) {
        int logical = TYPEOF(y) == LGLSXP;
        const int *v = logical ? LOGICAL(y) : INTEGER(y);
        int plus = 1, minus = from_codes ? 2 : logical ? 0 : -1;
        for (R_xlen_t i = 0; i < n && ok; i++) {
            ok = v[i] != NA_INTEGER && (v[i] == plus || v[i] == minus);
            o[i] = v[i] == plus ? 1 : -1;
        }
    } else {
        ok = 0;
    }
    UNPROTECT(1);
    return ok ? out : R_NilValue;
}

/* A named integer vector of an enum's codes. */
typedef struct { const char *name; int value; } enum_code;

static SEXP named_codes(const enum_code *codes, int n)
{
    SEXP out = PROTECT(allocVector(INTSXP, n));
    SEXP names = PROTECT(allocVector(STRSXP, n));
    for (int i = 0; i < n; i++) {
        INTEGER(out)[i] = codes[i].value;
        SET_STRING_ELT(names, i, mkChar(codes[i].name));
    }
    setAttrib(out, R_NamesSymbol, names);
    UNPROTECT(2);
    return out;
}

/* The C enums R reads (R/engine-c-enums.R), each a named integer vector of its
 * codes: kernel (kc_kernel_type, named as the kernel table names them),
 * smo_status, path_status, linear_status, feature (kc_feature_type) and
 * error_kind (the kinds of kc_error, named as their condition classes).
 * The names R uses for the codes are written here, once. */
SEXP ffi_enums(void)
{
    enum_code kernel[KC_KERNEL_COUNT], error_kind[KC_ERROR_KIND_COUNT];
    for (int t = 0; t < KC_KERNEL_COUNT; t++) {
        const char *nm = kc_kernel_name((kc_kernel_type) t);
        kernel[t] = (enum_code) {nm ? nm : "", t};
    }
    for (int t = 0; t < KC_ERROR_KIND_COUNT; t++)
        error_kind[t] = (enum_code) {kc_error_kind_name((kc_error_kind) t), t};
    const enum_code smo_status[] = {{"converged", KC_SMO_CONVERGED},
                                    {"max_iter", KC_SMO_MAX_ITER},
                                    {"unbounded", KC_SMO_UNBOUNDED}};
    const enum_code path_status[] = {{"not_finite", KC_PATH_NOT_FINITE},
                                     {"empty", KC_PATH_EMPTY}};
    const enum_code linear_status[] = {{"converged", KC_LINEAR_CONVERGED},
                                       {"max_pass", KC_LINEAR_MAX_PASS}};
    const enum_code feature[] = {{"nystrom", KC_FEATURES_NYSTROM},
                                 {"fourier", KC_FEATURES_FOURIER}};
    const char *names[] = {"kernel", "smo_status", "path_status", "linear_status", "feature",
                           "error_kind", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, named_codes(kernel, KC_KERNEL_COUNT));
    SET_VECTOR_ELT(out, 1, named_codes(smo_status, KC_SMO_STATUS_COUNT));
    SET_VECTOR_ELT(out, 2, named_codes(path_status, 2));
    SET_VECTOR_ELT(out, 3, named_codes(linear_status, 2));
    SET_VECTOR_ELT(out, 4, named_codes(feature, (int) (sizeof feature / sizeof feature[0])));
    SET_VECTOR_ELT(out, 5, named_codes(error_kind, KC_ERROR_KIND_COUNT));
    UNPROTECT(1);
    return out;
}
