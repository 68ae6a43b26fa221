/* .Call entry points of the kernel engine (kernel.h): Gram matrices,
 * diagonals, expansions, group sums, the kernel table and the instruction
 * set.  The style and the shared unpacking: ffi.c. */
#include <Rinternals.h>
#include "kernclass.h"
#include "kernel.h"
#include "isa.h"
#include "ffi.h"
#include "ffi-entry.h"

/* A Gram matrix's inputs, read and checked (y NULL: x with itself) */
typedef struct {
    kc_kernel k;
    kc_points a, b;
    int symmetric, nt;
} gram_inputs;

static gram_inputs gram_inputs_from(SEXP x, SEXP y, SEXP spec, SEXP threads)
{
    gram_inputs in;
    in.k = kc_kernel_from(spec);
    in.nt = kc_threads_from(threads);
    in.a = kc_points_from(x, "x");
    in.symmetric = isNull(y);
    in.b = in.symmetric ? in.a : kc_points_from(y, "y");
    kc_check_pair(&in.k, &in.a, &in.b, "x", "y");
    if (in.a.src == KC_SRC_PRECOMPUTED) kc_internal("a Gram matrix of given values");
    return in;
}

SEXP ffi_kernel_matrix(SEXP x, SEXP y, SEXP spec, SEXP threads)
{
    gram_inputs in = gram_inputs_from(x, y, spec, threads);
    SEXP out = PROTECT(kc_alloc_result(in.a.n, in.b.n));
    kc_gram(&in.k, &in.a, &in.b, in.symmetric, REAL(out), in.nt);
    UNPROTECT(1);
    return out;
}

/* The kernel matrix as the SVM's float stores hold it (kc_gram_float: in
 * single precision where kernclass.svm.precision and the data allow it),
 * as doubles: for the tests and benchmarks of the float tiles. */
SEXP ffi_kernel_matrix_float(SEXP x, SEXP y, SEXP spec, SEXP threads)
{
    gram_inputs in = gram_inputs_from(x, y, spec, threads);
    in.k.single = kc_single_precision_option();
    R_xlen_t nn = (R_xlen_t) in.a.n * in.b.n;
    SEXP out = PROTECT(kc_alloc_result(in.a.n, in.b.n));
    float *f = (float *) R_alloc((size_t) nn + 1, sizeof(float));
    kc_gram_float(&in.k, &in.a, &in.b, in.symmetric, f, in.nt);
    for (R_xlen_t i = 0; i < nn; i++) REAL(out)[i] = f[i];
    UNPROTECT(1);
    return out;
}

/* k(x_i, x_i) for each point of x, from any source. */
SEXP ffi_kernel_diag(SEXP x, SEXP spec)
{
    kc_kernel k = kc_kernel_from(spec);
    kc_points a = kc_points_from(x, "x");
    kc_check_pair(&k, &a, &a, "x", "x");
    SEXP out = PROTECT(allocVector(REALSXP, a.n));
    kc_row_sqnorms(&a, REAL(out));
    for (R_xlen_t i = 0; i < a.n; i++) REAL(out)[i] = kc_self_kernel(&k, REAL(out)[i]);
    UNPROTECT(1);
    return out;
}

/* K(x, train) %*% weights, without forming K; for a set of nk kernels
 * (kernel_set_from), their results side by side (x rows by nk ncol(weights)). */
SEXP ffi_kernel_expansion(SEXP x, SEXP train, SEXP weights, SEXP spec, SEXP threads)
{
    int nk;
    const kc_kernel *ks = kc_kernel_set_from(spec, &nk);
    int nt = kc_threads_from(threads);
    kc_points a = kc_points_from(x, "x"), b = kc_points_from(train, "train");
    kc_check_pair(ks, &a, &b, "x", "train");
    if (!isReal(weights) || !isMatrix(weights) || nrows(weights) != b.n || ncols(weights) < 1)
        kc_internal("weights must be a double matrix with a row per training row");
    int nw = ncols(weights);
    for (R_xlen_t i = 0; i < XLENGTH(weights); i++)
        if (!R_FINITE(REAL(weights)[i])) kc_internal("weights must be finite");
    SEXP out = PROTECT(kc_alloc_result(a.n, (R_xlen_t) nw * nk));
    kc_expansion(ks, nk, &a, &b, REAL(weights), nw, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* Within-group kernel sums (G x nk: a column per kernel of the set). */
SEXP ffi_within_sums(SEXP train, SEXP group, SEXP ngroups, SEXP spec, SEXP threads)
{
    int nk;
    const kc_kernel *ks = kc_kernel_set_from(spec, &nk);
    int nt = kc_threads_from(threads);
    kc_points b = kc_points_from(train, "train");
    kc_check_pair(ks, &b, &b, "train", "train");
    int G;
    const int *g = kc_groups_from(group, b.n, ngroups, &G);
    SEXP out = PROTECT(kc_alloc_result(G, nk));
    kc_within_group_sums(ks, nk, &b, g, G, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* Leave-one-out sums: n x G, row i summing its group g over rows j != i. */
SEXP ffi_loo_sums(SEXP train, SEXP group, SEXP ngroups, SEXP spec, SEXP threads)
{
    kc_kernel k = kc_kernel_from(spec);
    int nt = kc_threads_from(threads);
    kc_points b = kc_points_from(train, "train");
    kc_check_pair(&k, &b, &b, "train", "train");
    int G;
    const int *g = kc_groups_from(group, b.n, ngroups, &G);
    SEXP out = PROTECT(kc_alloc_result(b.n, G));
    kc_loo_group_sums(&k, &b, g, G, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* list(name, distance, plain, bounded): the kernels of the C engine in the
 * order of their codes, with the facts C keeps of each (kernel_def_of() in
 * kernel.c); R's kernel table must match it (tests/testthat/test-kernel-table.R). */
SEXP ffi_kernel_table(void)
{
    SEXP name = PROTECT(allocVector(STRSXP, KC_KERNEL_COUNT));
    SEXP distance = PROTECT(allocVector(LGLSXP, KC_KERNEL_COUNT));
    SEXP plain = PROTECT(allocVector(LGLSXP, KC_KERNEL_COUNT));
    SEXP bounded = PROTECT(allocVector(LGLSXP, KC_KERNEL_COUNT));
    for (int t = 0; t < KC_KERNEL_COUNT; t++) {
        const char *nm = kc_kernel_name((kc_kernel_type) t);
        SET_STRING_ELT(name, t, nm ? mkChar(nm) : NA_STRING);
        LOGICAL(distance)[t] = kc_kernel_uses_distance((kc_kernel_type) t);
        LOGICAL(plain)[t] = kc_kernel_is_plain((kc_kernel_type) t);
        LOGICAL(bounded)[t] = kc_kernel_is_bounded((kc_kernel_type) t);
    }
    const char *names[] = {"name", "distance", "plain", "bounded", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, name);
    SET_VECTOR_ELT(out, 1, distance);
    SET_VECTOR_ELT(out, 2, plain);
    SET_VECTOR_ELT(out, 3, bounded);
    UNPROTECT(5);
    return out;
}

/* The instruction set the kernel engine uses on this CPU. */
SEXP ffi_engine(void)
{
    return mkString(kc_engine_name());
}
