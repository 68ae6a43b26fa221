/* The .Call layer's argument unpacking, shared by every entry point (the
 * ffi-*.c files, one per engine module, each entry point in one style:
 * unpack and check the arguments, allocate and PROTECT the result, call the
 * plain C worker, return).  Decisions about the data (norms, packing, size
 * limits) are the engine's.  The R functions check user input first and
 * give the user-facing errors; the checks here guard the C code against any
 * caller, so a wrong call is an R error and never a crash. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "kernel.h"
#include "callback.h"
#include "threads.h"
#include "ffi.h"

SEXP kc_list_elt(SEXP x, const char *name)
{
    SEXP nm = getAttrib(x, R_NamesSymbol);
    if (!isString(nm)) return R_NilValue;
    for (R_xlen_t i = 0; i < XLENGTH(x); i++)
        if (!strcmp(CHAR(STRING_ELT(nm, i)), name)) return VECTOR_ELT(x, i);
    return R_NilValue;
}

/* The element of list x named name, which must be there (a named list of
 * problems or options read by name, never by position). */
SEXP kc_list_need(SEXP x, const char *name)
{
    if (!isNewList(x)) kc_internal("a named list is needed where `%s` is read", name);
    SEXP nm = getAttrib(x, R_NamesSymbol);
    if (isString(nm))
        for (R_xlen_t i = 0; i < XLENGTH(x); i++)
            if (!strcmp(CHAR(STRING_ELT(nm, i)), name)) return VECTOR_ELT(x, i);
    kc_internal("the list has no element `%s`", name);
    return R_NilValue;  /* not reached */
}

/* 1-based indices in 1..limit from R into 0-based C ints (R_alloc'd). */
const int *kc_index_from(SEXP v, R_xlen_t n, R_xlen_t limit, const char *what)
{
    if (!isInteger(v) || XLENGTH(v) != n)
        kc_internal("'%s' must be an integer vector of length %.0f", what, (double) n);
    int *out = (int *) R_alloc((size_t) n + 1, sizeof(int));
    for (R_xlen_t i = 0; i < n; i++) {
        int r = INTEGER(v)[i];
        if (r == NA_INTEGER || r < 1 || r > limit)
            kc_internal("'%s' holds an index outside 1..%.0f", what, (double) limit);
        out[i] = r - 1;
    }
    return out;
}

/* The points of a sparse CSR object (kc_csr in R/input-sources.R): list(rowptr,
 * col (0-based), val, dim, rows (NULL or 1-based rows)), checked in full. */
static void sparse_from(SEXP x, kc_points *a, const char *what)
{
    SEXP rowptr = kc_list_elt(x, "rowptr"), col = kc_list_elt(x, "col"), val = kc_list_elt(x, "val"),
         dim = kc_list_elt(x, "dim"), rows = kc_list_elt(x, "rows");
    if (!isInteger(rowptr) || !isInteger(col) || !isReal(val) || !isInteger(dim) ||
        XLENGTH(dim) != 2 || XLENGTH(col) != XLENGTH(val))
        kc_internal("'%s' is a malformed sparse matrix", what);
    R_xlen_t nr = XLENGTH(rowptr) - 1;
    int p = INTEGER(dim)[1];
    const int *rp = INTEGER(rowptr), *cl = INTEGER(col);
    if (nr < 0 || p < 1 || rp[0] != 0 || rp[nr] != XLENGTH(col))
        kc_internal("'%s' is a malformed sparse matrix", what);
    for (R_xlen_t r = 0; r < nr; r++) {
        if (rp[r + 1] < rp[r]) kc_internal("'%s' has decreasing row pointers", what);
        for (int t = rp[r]; t < rp[r + 1]; t++)
            if (cl[t] < 0 || cl[t] >= p || (t > rp[r] && cl[t] <= cl[t - 1]))
                kc_internal("'%s' has column indices out of order or range", what);
    }
    for (R_xlen_t t = 0; t < XLENGTH(val); t++)
        if (!R_FINITE(REAL(val)[t])) kc_internal("'%s' holds NA, NaN or Inf", what);
    a->src = KC_SRC_SPARSE;
    a->p = p;
    a->rowptr = rp;
    a->col = cl;
    a->val = REAL(val);
    a->n = isNull(rows) ? nr : XLENGTH(rows);
    a->rowmap = isNull(rows) ? NULL : kc_index_from(rows, a->n, nr, "rows");
}

/* Given kernel values (kc_precomputed): list(K, rows, cols): point i is
 * column rows[i] of K (its values against the training points, down the
 * column) and, where cols is not NULL, training point cols[i]. */
static void precomputed_from(SEXP x, kc_points *a, const char *what)
{
    SEXP K = kc_list_elt(x, "K"), rows = kc_list_elt(x, "rows"), cols = kc_list_elt(x, "cols");
    if (!isReal(K) || !isMatrix(K) || !isInteger(rows))
        kc_internal("'%s' is malformed precomputed kernel values", what);
    R_xlen_t len = XLENGTH(K);
    for (R_xlen_t i = 0; i < len; i++)
        if (!R_FINITE(REAL(K)[i])) kc_internal("'%s' holds NA, NaN or Inf", what);
    a->src = KC_SRC_PRECOMPUTED;
    a->x = REAL(K);
    a->ld = nrows(K);
    a->p = 1;
    a->n = XLENGTH(rows);
    a->rowmap = kc_index_from(rows, a->n, ncols(K), "rows");
    a->colmap = isNull(cols) ? NULL : kc_index_from(cols, a->n, nrows(K), "cols");
}

/* An R kernel function's points (kc_user): list(data, rows, tile). */
static void callback_from(SEXP x, kc_points *a, const char *what)
{
    SEXP rows = kc_list_elt(x, "rows"), tile = kc_list_elt(x, "tile"), nrow = kc_list_elt(x, "nrow");
    if (!isFunction(tile) || !isInteger(nrow) || XLENGTH(nrow) != 1)
        kc_internal("'%s' is a malformed kernel function source", what);
    kc_callback_reset();
    a->src = KC_SRC_CALLBACK;
    a->p = 1;
    a->n = XLENGTH(rows);
    a->rowmap = kc_index_from(rows, a->n, INTEGER(nrow)[0], "rows");
    a->tile_fn = kc_callback_tile;
    a->ctx = (const void *) x;
}

kc_points kc_points_from(SEXP x, const char *what)
{
    kc_points a;
    memset(&a, 0, sizeof a);
    if (isNewList(x) && inherits(x, "kc_csr")) { sparse_from(x, &a, what); return a; }
    if (isNewList(x) && inherits(x, "kc_precomputed")) { precomputed_from(x, &a, what); return a; }
    if (isNewList(x) && inherits(x, "kc_user")) { callback_from(x, &a, what); return a; }
    if (!isReal(x) || !isMatrix(x))
        kc_internal("'%s' must be a double matrix", what);
    a.src = KC_SRC_DENSE;
    a.x = REAL(x);
    a.n = nrows(x);
    a.p = ncols(x);
    if (a.p < 1) kc_internal("'%s' has no columns", what);
    R_xlen_t len = XLENGTH(x);
    for (R_xlen_t i = 0; i < len; i++)
        if (!R_FINITE(a.x[i]))
            kc_internal("'%s' holds NA, NaN or Inf", what);
    return a;
}

/* Two sets of points a kernel can join: the same source, the same number of
 * columns; precomputed values need b to be training points; R functions
 * the same function (kc_user's tile). */
void kc_check_pair(const kc_kernel *k, const kc_points *a, const kc_points *b,
                   const char *wa, const char *wb)
{
    /* given values pass through the plain kernel's identity */
    if ((a->src == KC_SRC_PRECOMPUTED || a->src == KC_SRC_CALLBACK) &&
        !kc_kernel_is_plain(k->type))
        kc_internal("given kernel values take the plain kernel's code");
    if (a->src != b->src)
        kc_internal("'%s' and '%s' are different kinds of data", wa, wb);
    if (a->p != b->p)
        kc_internal("%s and %s have different numbers of columns", wa, wb);
    if (a->src == KC_SRC_PRECOMPUTED && !b->colmap)
        kc_internal("'%s' are not training points", wb);
    /* by value, not by pointer: a model read back by readRDS() may hold copies */
    if (a->src == KC_SRC_CALLBACK &&
        !R_compute_identical(kc_list_elt((SEXP) a->ctx, "tile"), kc_list_elt((SEXP) b->ctx, "tile"),
                             IDENT_USE_CLOENV))
        kc_internal("'%s' and '%s' have different kernel functions", wa, wb);
}

/* spec = c(code, gamma, degree, coef0), as built by kc_kernel_code() in R:
 * code is the C kernel type + 1. */
static kc_kernel kernel_of(const double *v)
{
    kc_kernel k;
    if (!(v[0] >= 1 && v[0] <= KC_KERNEL_COUNT) || v[0] != floor(v[0]) ||
        !kc_kernel_name((kc_kernel_type) ((int) v[0] - 1)))
        kc_internal("unknown kernel code");
    if (!R_FINITE(v[1]) || v[1] <= 0) kc_internal("gamma must be positive");
    if (!(v[2] >= 1 && v[2] <= 1e6) || v[2] != floor(v[2]))
        kc_internal("degree must be a positive integer");
    if (!R_FINITE(v[3])) kc_internal("coef0 must be finite");
    k.type = (kc_kernel_type) ((int) v[0] - 1);
    k.gamma = v[1];
    k.degree = (int) v[2];
    k.coef0 = v[3];
    k.single = 0;
    return k;
}

kc_kernel kc_kernel_from(SEXP spec)
{
    if (!isReal(spec) || XLENGTH(spec) != 4)
        kc_internal("kernel spec must be a double vector of length 4");
    return kernel_of(REAL(spec));
}

/* Only the SVM's float stores may take single-precision products: the
 * other workers would prepare float scratch they never read. */
kc_kernel kc_svm_kernel_from(SEXP spec)
{
    kc_kernel k = kc_kernel_from(spec);
    k.single = kc_single_precision_option();
    return k;
}

/* A set of kernels of one type (a 4 x nk spec, a column each), whose
 * values the workers compute from the same tiles. */
const kc_kernel *kc_kernel_set_from(SEXP spec, int *nk)
{
    if (!isReal(spec) || XLENGTH(spec) < 4 || XLENGTH(spec) % 4 != 0 || XLENGTH(spec) / 4 > INT_MAX)
        kc_internal("kernel spec must be a double vector of 4 values per kernel");
    *nk = (int) (XLENGTH(spec) / 4);
    kc_kernel *ks = (kc_kernel *) R_alloc((size_t) *nk, sizeof(kc_kernel));
    for (int i = 0; i < *nk; i++) {
        ks[i] = kernel_of(REAL(spec) + 4 * (R_xlen_t) i);
        if (ks[i].type != ks[0].type) kc_internal("the kernels of a set must be of one type");
    }
    return ks;
}

int kc_threads_from(SEXP threads)
{
    if (!isInteger(threads) || XLENGTH(threads) != 1 || INTEGER(threads)[0] == NA_INTEGER ||
        INTEGER(threads)[0] < 1)
        kc_internal("threads must be one positive integer");
    return kc_threads_cap(INTEGER(threads)[0]);
}

/* 1-based group codes from R into 0-based C ints, checked. */
const int *kc_groups_from(SEXP group, R_xlen_t n, SEXP ngroups, int *G)
{
    if (!isInteger(group) || XLENGTH(group) != n)
        kc_internal("group must be an integer vector, one per training row");
    if (!isInteger(ngroups) || XLENGTH(ngroups) != 1 || INTEGER(ngroups)[0] < 1)
        kc_internal("ngroups must be one positive integer");
    *G = INTEGER(ngroups)[0];
    int *g0 = (int *) R_alloc((size_t) n + 1, sizeof(int));
    const int *g = INTEGER(group);
    for (R_xlen_t i = 0; i < n; i++) {
        if (g[i] == NA_INTEGER || g[i] < 1 || g[i] > *G)
            kc_internal("group codes must lie in 1..ngroups");
        g0[i] = g[i] - 1;
    }
    return g0;
}

SEXP kc_alloc_result(R_xlen_t nrow, R_xlen_t ncol)
{
    if ((double) nrow * (double) ncol > (double) R_XLEN_T_MAX)
        kc_error(KC_ERROR_SIZE, "kernclass: a %.0f x %.0f result is too large for R",
                 (double) nrow, (double) ncol);
    return allocMatrix(REALSXP, (int) nrow, (int) ncol);
}

void kc_double_matrix(SEXP x, const char *what)
{
    if (!isReal(x) || !isMatrix(x))
        kc_internal("'%s' must be a double matrix", what);
}
