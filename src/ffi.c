/* .Call entry points, all of them, in one style: unpack and check the
 * arguments, allocate and PROTECT the result, call the plain C worker,
 * return.  Decisions about the data (norms, packing, size limits) are the
 * engine's.  The R functions check user input first and give the
 * user-facing errors; the checks here guard the C code against any caller,
 * so a wrong call is an R error and never a crash. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include <Rinternals.h>
#include <R_ext/Random.h>
#include "kernclass.h"

static SEXP list_elt(SEXP x, const char *name)
{
    SEXP nm = getAttrib(x, R_NamesSymbol);
    if (!isString(nm)) return R_NilValue;
    for (R_xlen_t i = 0; i < XLENGTH(x); i++)
        if (!strcmp(CHAR(STRING_ELT(nm, i)), name)) return VECTOR_ELT(x, i);
    return R_NilValue;
}

/* 1-based indices in 1..limit from R into 0-based C ints (R_alloc'd). */
static const int *index_from(SEXP v, R_xlen_t n, R_xlen_t limit, const char *what)
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

/* The points of a sparse CSR object (kc_csr in R/sources.R): list(rowptr,
 * col (0-based), val, dim, rows (NULL or 1-based rows)), checked in full. */
static void sparse_from(SEXP x, kc_points *a, const char *what)
{
    SEXP rowptr = list_elt(x, "rowptr"), col = list_elt(x, "col"), val = list_elt(x, "val"),
         dim = list_elt(x, "dim"), rows = list_elt(x, "rows");
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
    a->rowmap = isNull(rows) ? NULL : index_from(rows, a->n, nr, "rows");
}

/* Given kernel values (kc_precomputed): list(K, rows, cols): point i is
 * column rows[i] of K (its values against the training points, down the
 * column) and, where cols is not NULL, training point cols[i]. */
static void precomputed_from(SEXP x, kc_points *a, const char *what)
{
    SEXP K = list_elt(x, "K"), rows = list_elt(x, "rows"), cols = list_elt(x, "cols");
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
    a->rowmap = index_from(rows, a->n, ncols(K), "rows");
    a->colmap = isNull(cols) ? NULL : index_from(cols, a->n, nrows(K), "cols");
}

/* An R kernel function's points (kc_user): list(data, rows, tile). */
static void callback_from(SEXP x, kc_points *a, const char *what)
{
    SEXP rows = list_elt(x, "rows"), tile = list_elt(x, "tile"), nrow = list_elt(x, "nrow");
    if (!isFunction(tile) || !isInteger(nrow) || XLENGTH(nrow) != 1)
        kc_internal("'%s' is a malformed kernel function source", what);
    kc_callback_reset();
    a->src = KC_SRC_CALLBACK;
    a->p = 1;
    a->n = XLENGTH(rows);
    a->rowmap = index_from(rows, a->n, INTEGER(nrow)[0], "rows");
    a->tile_fn = kc_callback_tile;
    a->ctx = (const void *) x;
}

static kc_points points_from(SEXP x, const char *what)
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
static void check_pair(const kc_kernel *k, const kc_points *a, const kc_points *b,
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
        !R_compute_identical(list_elt((SEXP) a->ctx, "tile"), list_elt((SEXP) b->ctx, "tile"),
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
    return k;
}

static kc_kernel kernel_from(SEXP spec)
{
    if (!isReal(spec) || XLENGTH(spec) != 4)
        kc_internal("kernel spec must be a double vector of length 4");
    return kernel_of(REAL(spec));
}

/* A set of kernels of one type (a 4 x nk spec, a column each), whose
 * values the workers compute from the same tiles. */
static const kc_kernel *kernel_set_from(SEXP spec, int *nk)
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

static int threads_from(SEXP threads)
{
    if (!isInteger(threads) || XLENGTH(threads) != 1 || INTEGER(threads)[0] == NA_INTEGER ||
        INTEGER(threads)[0] < 1)
        kc_internal("threads must be one positive integer");
    return kc_threads_cap(INTEGER(threads)[0]);
}

/* 1-based group codes from R into 0-based C ints, checked. */
static const int *groups_from(SEXP group, R_xlen_t n, SEXP ngroups, int *G)
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

static SEXP alloc_result(R_xlen_t nrow, R_xlen_t ncol)
{
    if ((double) nrow * (double) ncol > (double) R_XLEN_T_MAX)
        kc_error("size", "kernclass: a %.0f x %.0f result is too large for R", (double) nrow,
                 (double) ncol);
    return allocMatrix(REALSXP, (int) nrow, (int) ncol);
}

SEXP ffi_kernel_matrix(SEXP x, SEXP y, SEXP spec, SEXP threads)
{
    kc_kernel k = kernel_from(spec);
    int nt = threads_from(threads);
    kc_points a = points_from(x, "x");
    int symmetric = isNull(y);
    kc_points b = symmetric ? a : points_from(y, "y");
    check_pair(&k, &a, &b, "x", "y");
    if (a.src == KC_SRC_PRECOMPUTED) kc_internal("a Gram matrix of given values");
    SEXP out = PROTECT(alloc_result(a.n, b.n));
    kc_gram(&k, &a, &b, symmetric, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* k(x_i, x_i) for each point of x, from any source. */
SEXP ffi_kernel_diag(SEXP x, SEXP spec)
{
    kc_kernel k = kernel_from(spec);
    kc_points a = points_from(x, "x");
    check_pair(&k, &a, &a, "x", "x");
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
    const kc_kernel *ks = kernel_set_from(spec, &nk);
    int nt = threads_from(threads);
    kc_points a = points_from(x, "x"), b = points_from(train, "train");
    check_pair(ks, &a, &b, "x", "train");
    if (!isReal(weights) || !isMatrix(weights) || nrows(weights) != b.n || ncols(weights) < 1)
        kc_internal("weights must be a double matrix with a row per training row");
    int nw = ncols(weights);
    for (R_xlen_t i = 0; i < XLENGTH(weights); i++)
        if (!R_FINITE(REAL(weights)[i])) kc_internal("weights must be finite");
    SEXP out = PROTECT(alloc_result(a.n, (R_xlen_t) nw * nk));
    kc_expansion(ks, nk, &a, &b, REAL(weights), nw, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* Within-group kernel sums (G x nk: a column per kernel of the set). */
SEXP ffi_within_sums(SEXP train, SEXP group, SEXP ngroups, SEXP spec, SEXP threads)
{
    int nk;
    const kc_kernel *ks = kernel_set_from(spec, &nk);
    int nt = threads_from(threads);
    kc_points b = points_from(train, "train");
    check_pair(ks, &b, &b, "train", "train");
    int G;
    const int *g = groups_from(group, b.n, ngroups, &G);
    SEXP out = PROTECT(alloc_result(G, nk));
    kc_within_group_sums(ks, nk, &b, g, G, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* Leave-one-out sums: n x G, row i summing its group g over rows j != i. */
SEXP ffi_loo_sums(SEXP train, SEXP group, SEXP ngroups, SEXP spec, SEXP threads)
{
    kc_kernel k = kernel_from(spec);
    int nt = threads_from(threads);
    kc_points b = points_from(train, "train");
    check_pair(&k, &b, &b, "train", "train");
    int G;
    const int *g = groups_from(group, b.n, ngroups, &G);
    SEXP out = PROTECT(alloc_result(b.n, G));
    kc_loo_group_sums(&k, &b, g, G, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* SVM dual by SMO: y in {-1, +1}, C the per-point upper bounds (> 0 or Inf);
 * linear the linear term, alpha0 NULL or a start within the bounds (the nu
 * problems' feasible start, or a warm start), nsets 1 or 2 (see kc_smo).
 * store: NULL, TRUE (a new one), "whole" (a new one, every row computed
 * first: the solver then reads it directly) or a raw vector of n * n * 4 + n bytes,
 * kernel rows and their flags that the solver fills in place and the caller
 * keeps for the next solve on the same x and kernel (returned as `store`). */
SEXP ffi_smo(SEXP x, SEXP y, SEXP C, SEXP spec, SEXP tolerance, SEXP max_iter,
             SEXP cachesize, SEXP shrinking, SEXP threads, SEXP linear, SEXP alpha0,
             SEXP nsets, SEXP store)
{
    kc_kernel k = kernel_from(spec);
    int nt = threads_from(threads);
    kc_points a = points_from(x, "x");
    check_pair(&k, &a, &a, "x", "x");
    if (!isInteger(y) || XLENGTH(y) != a.n)
        kc_internal("y must be an integer vector, one per row");
    if (!isReal(C) || XLENGTH(C) != a.n)
        kc_internal("C must be a double vector, one per row");
    const int *yy = INTEGER(y);
    const double *cc = REAL(C);
    for (R_xlen_t i = 0; i < a.n; i++) {
        if (yy[i] != 1 && yy[i] != -1) kc_internal("y must be -1 or +1");
        if (ISNAN(cc[i]) || cc[i] < 0) kc_internal("C must be >= 0");
    }
    double eps = asReal(tolerance), mb = asReal(cachesize), it = asReal(max_iter);
    if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
    if (!R_FINITE(mb) || mb <= 0) kc_internal("cachesize must be > 0");
    if (ISNAN(it) || it < 1) kc_internal("max_iter must be >= 1");
    int shr = asLogical(shrinking);
    if (shr == NA_LOGICAL) kc_internal("shrinking must be TRUE or FALSE");
    double p = asReal(linear);
    if (!R_FINITE(p)) kc_internal("linear must be finite");
    const double *a0 = NULL;
    if (!isNull(alpha0)) {
        if (!isReal(alpha0) || XLENGTH(alpha0) != a.n)
            kc_internal("alpha0 must be NULL or a double vector, one per row");
        a0 = REAL(alpha0);
        for (R_xlen_t i = 0; i < a.n; i++)
            if (!(a0[i] >= 0 && a0[i] <= cc[i]) || !R_FINITE(a0[i]))
                kc_internal("alpha0 must lie within [0, C]");
    }
    if (!isInteger(nsets) || XLENGTH(nsets) != 1 ||
        (INTEGER(nsets)[0] != 1 && INTEGER(nsets)[0] != 2))
        kc_internal("nsets must be 1L or 2L");
    float *rows = NULL;
    unsigned char *filled = NULL;
    int nprot = 0;
    double need = kc_svm_store_bytes((double) a.n);
    int whole = isString(store) && XLENGTH(store) == 1 && !strcmp(CHAR(STRING_ELT(store, 0)), "whole");
    if (whole || (isLogical(store) && XLENGTH(store) == 1 && LOGICAL(store)[0] == TRUE)) {
        /* a new store, returned: only its flags need clearing */
        if (need > (double) R_XLEN_T_MAX) kc_internal("the store is too large");
        store = PROTECT(allocVector(RAWSXP, (R_xlen_t) need));
        nprot++;
        memset(RAW(store) + (size_t) a.n * a.n * sizeof(float), 0, (size_t) a.n);
        kc_advise_huge_pages(RAW(store), (size_t) need);
    }
    if (!isNull(store)) {
        if (TYPEOF(store) != RAWSXP || (double) XLENGTH(store) != need)
            kc_internal("store must be NULL, TRUE, \"whole\" or raw(n * n * 4 + n)");
        /* the rows first: RAW() is aligned for any type */
        rows = (float *) (void *) RAW(store);
        filled = RAW(store) + (size_t) a.n * a.n * sizeof(float);
    }
    SEXP alpha = PROTECT(allocVector(REALSXP, a.n));
    kc_smo_result res;
    res.alpha = REAL(alpha);
    kc_smo(&k, &a, yy, cc, p, a0, INTEGER(nsets)[0], eps,
           it >= (double) LONG_MAX ? LONG_MAX : (long) it, mb, shr, nt, rows, filled, whole, &res);

    const char *names[] = {"alpha", "rho", "objective", "iterations", "status", "gap",
                           "rows_computed", "r", "store", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, alpha);
    SET_VECTOR_ELT(out, 1, ScalarReal(res.rho));
    SET_VECTOR_ELT(out, 2, ScalarReal(res.objective));
    SET_VECTOR_ELT(out, 3, ScalarReal((double) res.iterations));
    SET_VECTOR_ELT(out, 4, ScalarInteger(res.status));
    SET_VECTOR_ELT(out, 5, ScalarReal(res.gap));
    SET_VECTOR_ELT(out, 6, ScalarReal((double) res.rows_computed));
    SET_VECTOR_ELT(out, 7, ScalarReal(res.r));
    SET_VECTOR_ELT(out, 8, store);
    UNPROTECT(2 + nprot);
    return out;
}

/* The costs of kernel settings over the folds run (1-based) of a
 * cross-validation, in one call (kc_svm_path).  plans: one list per kernel
 * setting (R/svm-path.R) of x (a list of dense double matrices of all n
 * points: one, or one per fold of run, scaled as its training rows scale
 * them), y (their classes 1..nclass), nclass, cost (increasing), w (the n
 * weights), cw (the nclass x length(run) class weights), spec, tolerance,
 * max_iter and shrinking; fold: the n points' folds 1..nfold.  Returns per
 * plan list(decision = n x pairs x costs, rho, iterations,
 * status = length(run) x pairs x costs). */
SEXP ffi_svm_path(SEXP plans, SEXP fold, SEXP run, SEXP threads)
{
    int nt = threads_from(threads);
    R_xlen_t nrun = XLENGTH(run);
    if (!isNewList(plans) || XLENGTH(plans) < 1 || XLENGTH(plans) > INT_MAX || nrun < 1)
        kc_internal("plans must be a list of one or more plans, run not empty");
    int njobs = (int) XLENGTH(plans);
    kc_svm_path_job *jobs = (kc_svm_path_job *) R_alloc(njobs, sizeof(kc_svm_path_job));
    kc_kernel *ks = (kc_kernel *) R_alloc(njobs, sizeof(kc_kernel));
    SEXP out = PROTECT(allocVector(VECSXP, njobs));
    const int *ff = NULL, *rr = NULL;
    R_xlen_t n = -1;
    for (int j = 0; j < njobs; j++) {
        SEXP plan = VECTOR_ELT(plans, j);
        SEXP x = list_elt(plan, "x"), y = list_elt(plan, "y"), nclass = list_elt(plan, "nclass"),
             cost = list_elt(plan, "cost"), w = list_elt(plan, "w"), cw = list_elt(plan, "cw");
        ks[j] = kernel_from(list_elt(plan, "spec"));
        if (!isNewList(x) || (XLENGTH(x) != 1 && XLENGTH(x) != nrun))
            kc_internal("x must be a list of one double matrix or one per fold run");
        int nx = (int) XLENGTH(x);
        kc_points *xs = (kc_points *) R_alloc(nx, sizeof(kc_points));
        for (int i = 0; i < nx; i++) {
            SEXP xi = VECTOR_ELT(x, i);
            if (!isReal(xi) || !isMatrix(xi)) kc_internal("x must hold double matrices");
            xs[i] = points_from(xi, "x");
            check_pair(&ks[j], &xs[i], &xs[i], "x", "x");
            if (xs[i].n != xs[0].n) kc_internal("the matrices of x must have the same rows");
        }
        if (n < 0) {
            n = xs[0].n;
            ff = index_from(fold, n, INT_MAX, "fold");
            rr = index_from(run, nrun, INT_MAX, "run");
        }
        if (xs[0].n != n) kc_internal("every plan's x must have the same rows");
        if (!isInteger(nclass) || XLENGTH(nclass) != 1 || INTEGER(nclass)[0] < 2 ||
            INTEGER(nclass)[0] > 65535)
            kc_internal("nclass must be one integer from 2 to 65535");
        int L = INTEGER(nclass)[0], npairs = (int) ((double) L * (L - 1) / 2);  /* < INT_MAX */
        const int *yy = index_from(y, n, L, "y");
        if (!isReal(cost) || XLENGTH(cost) < 1) kc_internal("cost must be a double vector");
        R_xlen_t ncost = XLENGTH(cost);
        for (R_xlen_t c = 0; c < ncost; c++)
            if (!(REAL(cost)[c] > 0) || (c > 0 && !(REAL(cost)[c] >= REAL(cost)[c - 1])))
                kc_internal("cost must be increasing and > 0");
        if (!isReal(w) || XLENGTH(w) != n) kc_internal("w must be a double vector, one per row");
        for (R_xlen_t i = 0; i < n; i++)
            if (!(REAL(w)[i] >= 0) || !R_FINITE(REAL(w)[i])) kc_internal("w must be finite and >= 0");
        if (!isReal(cw) || XLENGTH(cw) != (R_xlen_t) L * nrun)
            kc_internal("cw must be a double nclass x length(run) matrix");
        for (R_xlen_t i = 0; i < XLENGTH(cw); i++)
            if (!(REAL(cw)[i] >= 0) || !R_FINITE(REAL(cw)[i])) kc_internal("cw must be finite and >= 0");
        double eps = asReal(list_elt(plan, "tolerance")), it = asReal(list_elt(plan, "max_iter"));
        if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
        if (ISNAN(it) || it < 1) kc_internal("max_iter must be >= 1");
        int shr = asLogical(list_elt(plan, "shrinking"));
        if (shr == NA_LOGICAL) kc_internal("shrinking must be TRUE or FALSE");
        double len = (double) n * npairs * ncost, fits = (double) nrun * npairs * ncost;
        if (len > (double) R_XLEN_T_MAX || fits > (double) R_XLEN_T_MAX)
            kc_error("size", "kernclass: the path's decision values are too many for R");
        const char *names[] = {"decision", "rho", "iterations", "status", ""};
        SEXP res = mkNamed(VECSXP, names);
        SET_VECTOR_ELT(out, j, res);
        SET_VECTOR_ELT(res, 0, allocVector(REALSXP, (R_xlen_t) len));
        SET_VECTOR_ELT(res, 1, allocVector(REALSXP, (R_xlen_t) fits));
        SET_VECTOR_ELT(res, 2, allocVector(REALSXP, (R_xlen_t) fits));
        SET_VECTOR_ELT(res, 3, allocVector(INTSXP, (R_xlen_t) fits));
        jobs[j] = (kc_svm_path_job) {&ks[j], xs, nx, yy, L, (int) ncost, REAL(cost), REAL(w),
                                     REAL(cw), eps, it >= (double) LONG_MAX ? LONG_MAX : (long) it,
                                     shr, REAL(VECTOR_ELT(res, 0)), REAL(VECTOR_ELT(res, 1)),
                                     REAL(VECTOR_ELT(res, 2)), INTEGER(VECTOR_ELT(res, 3))};
    }
    kc_svm_path(jobs, njobs, ff, rr, (int) nrun, nt);
    UNPROTECT(1);
    return out;
}

/* The bytes of the SVM's memory for n points: c(the solver's kept row
 * store; the shared path's kept once and per thread fitting, for a largest
 * pair block of m rows, folds of at most t rows and nx input matrices for
 * nrun folds) (kc_svm_store_bytes, kc_svm_path_bytes_*). */
SEXP ffi_svm_bytes(SEXP n, SEXP m, SEXP t, SEXP nx, SEXP nrun)
{
    double nn = asReal(n), mm = asReal(m), tt = asReal(t);
    int nxx = asInteger(nx), nr = asInteger(nrun);
    if (!(nn >= 0) || !(mm >= 0) || !(tt >= 0) || !R_FINITE(nn) || !R_FINITE(mm) ||
        !R_FINITE(tt) || nxx == NA_INTEGER || nxx < 1 || nr == NA_INTEGER || nr < 1)
        kc_internal("n, m and t must be numbers >= 0, nx and nrun integers >= 1");
    SEXP out = PROTECT(allocVector(REALSXP, 3));
    REAL(out)[0] = kc_svm_store_bytes(nn);
    REAL(out)[1] = kc_svm_path_bytes_once(nn, nxx, nr);
    REAL(out)[2] = kc_svm_path_bytes_thread(mm, tt);
    UNPROTECT(1);
    return out;
}

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
    int k = INTEGER(nclass)[0], nthreads = threads_from(threads);
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

/* The most threads the engine ever uses (kc_threads_max). */
SEXP ffi_max_threads(void)
{
    return ScalarInteger(kc_threads_max());
}

/* The threads the engine would use for a request of threads. */
SEXP ffi_threads(SEXP threads)
{
    return ScalarInteger(threads_from(threads));
}

static void double_matrix(SEXP x, const char *what)
{
    if (!isReal(x) || !isMatrix(x))
        kc_internal("'%s' must be a double matrix", what);
}

/* list(mean, sd) of the columns of x. */
SEXP ffi_column_moments(SEXP x)
{
    double_matrix(x, "x");
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
    double_matrix(x, "x");
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

/* A feature map from R (kc_feature_map() in R/approx.R): list(type (1
 * Nystrom, 2 Fourier), landmarks, proj (m x r), freq (p x r), phase (r)),
 * checked against the points x it will map. */
static kc_feature_map feature_map_from(SEXP map, SEXP spec, const kc_points *x)
{
    kc_feature_map f;
    memset(&f, 0, sizeof f);
    f.kernel = kernel_from(spec);
    SEXP type = list_elt(map, "type");
    if (!isInteger(type) || XLENGTH(type) != 1)
        kc_internal("a feature map needs its integer type");
    f.type = INTEGER(type)[0];
    f.p = x->p;
    if (f.type == KC_FEATURES_NYSTROM) {
        SEXP proj = list_elt(map, "proj");
        f.landmarks = points_from(list_elt(map, "landmarks"), "landmarks");
        check_pair(&f.kernel, x, &f.landmarks, "x", "landmarks");
        if (x->src != KC_SRC_DENSE && x->src != KC_SRC_SPARSE)
            kc_internal("features need input columns");
        if (!isReal(proj) || !isMatrix(proj) || nrows(proj) != f.landmarks.n || ncols(proj) < 1)
            kc_internal("proj must be a double matrix with a row per landmark");
        f.m = nrows(proj);
        f.r = ncols(proj);
        f.proj = REAL(proj);
    } else if (f.type == KC_FEATURES_FOURIER) {
        SEXP freq = list_elt(map, "freq"), phase = list_elt(map, "phase");
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
    int nt = threads_from(threads);
    kc_points a = points_from(x, "x");
    kc_feature_map f = feature_map_from(map, spec, &a);
    int G;
    const int *g = groups_from(group, a.n, ngroups, &G);
    SEXP out = PROTECT(alloc_result(G, f.r));
    kc_feature_sums(&f, &a, g, G, REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* Z w, Z the features of x (never stored whole): n x q; w NULL: Z itself. */
SEXP ffi_feature_product(SEXP x, SEXP w, SEXP map, SEXP spec, SEXP threads)
{
    int nt = threads_from(threads);
    kc_points a = points_from(x, "x");
    kc_feature_map f = feature_map_from(map, spec, &a);
    if (isNull(w)) {
        SEXP out = PROTECT(alloc_result(a.n, f.r));
        kc_feature_matrix(&f, &a, REAL(out), nt);
        UNPROTECT(1);
        return out;
    }
    if (!isReal(w) || !isMatrix(w) || nrows(w) != f.r || ncols(w) < 1)
        kc_internal("w must be a double matrix with a row per feature");
    for (R_xlen_t i = 0; i < XLENGTH(w); i++)
        if (!R_FINITE(REAL(w)[i])) kc_internal("w must be finite");
    SEXP out = PROTECT(alloc_result(a.n, ncols(w)));
    kc_feature_product(&f, &a, REAL(w), ncols(w), REAL(out), nt);
    UNPROTECT(1);
    return out;
}

/* The features of x as floats, row by row, in a raw vector (n * r * 4 bytes). */
SEXP ffi_feature_store(SEXP x, SEXP map, SEXP spec, SEXP threads)
{
    int nt = threads_from(threads);
    kc_points a = points_from(x, "x");
    kc_feature_map f = feature_map_from(map, spec, &a);
    double bytes = (double) a.n * f.r * sizeof(float);
    if (bytes > (double) R_XLEN_T_MAX) kc_error("size", "kernclass: the feature store is too large for R");
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
    return index_from(rows, XLENGTH(rows), n, "rows");
}

/* Z[rows, ] w for a float store: length(rows) x q. */
SEXP ffi_store_product(SEXP store, SEXP r, SEXP rows, SEXP w)
{
    int width;
    const int *rw = store_rows(store, r, rows, &width);
    if (!isReal(w) || !isMatrix(w) || nrows(w) != width || ncols(w) < 1)
        kc_internal("w must be a double matrix with a row per feature");
    SEXP out = PROTECT(alloc_result(XLENGTH(rows), ncols(w)));
    kc_store_product((const float *) RAW(store), width, rw, XLENGTH(rows), REAL(w), ncols(w),
                     REAL(out));
    UNPROTECT(1);
    return out;
}

/* The linear SVM by dual coordinate descent on rows of a float store, with
 * a constant feature 1: list(w (r + 1), alpha, objective, passes, status). */
SEXP ffi_linear_svm(SEXP store, SEXP r, SEXP rows, SEXP y, SEXP C, SEXP tolerance,
                    SEXP max_pass, SEXP shrinking)
{
    int width;
    const int *rw = store_rows(store, r, rows, &width);
    R_xlen_t n = XLENGTH(rows);
    if (n > INT_MAX - 1) kc_internal("too many rows");
    if (!isInteger(y) || XLENGTH(y) != n || !isReal(C) || XLENGTH(C) != n)
        kc_internal("y and C must have one value per row");
    for (R_xlen_t i = 0; i < n; i++) {
        if (INTEGER(y)[i] != 1 && INTEGER(y)[i] != -1)
            kc_internal("y must be -1 or +1");
        if (!(REAL(C)[i] > 0) || !R_FINITE(REAL(C)[i]))
            kc_internal("C must be finite and > 0");
    }
    double eps = asReal(tolerance), mp = asReal(max_pass);
    if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
    if (ISNAN(mp) || mp < 1) kc_internal("max_pass must be >= 1");
    int shr = asLogical(shrinking);
    if (shr == NA_LOGICAL) kc_internal("shrinking must be TRUE or FALSE");
    SEXP w = PROTECT(allocVector(REALSXP, (R_xlen_t) width + 1));
    SEXP alpha = PROTECT(allocVector(REALSXP, n));
    kc_linear_result res;
    GetRNGstate();
    kc_linear_svm((const float *) RAW(store), width, rw, (int) n, INTEGER(y), REAL(C), 1.0,
                  eps, mp > 1e15 ? (long) 1e15 : (long) mp, shr, REAL(w), REAL(alpha), &res);
    PutRNGstate();
    const char *names[] = {"w", "alpha", "objective", "passes", "status", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, w);
    SET_VECTOR_ELT(out, 1, alpha);
    SET_VECTOR_ELT(out, 2, ScalarReal(res.objective));
    SET_VECTOR_ELT(out, 3, ScalarReal((double) res.passes));
    SET_VECTOR_ELT(out, 4, ScalarInteger(res.status));
    UNPROTECT(3);
    return out;
}

/* k-means++ seeding (features.c): m distinct 1-based rows of the dense x. */
SEXP ffi_kmeanspp(SEXP x, SEXP spec, SEXP m, SEXP threads)
{
    kc_kernel k = kernel_from(spec);
    int nt = threads_from(threads), mm = asInteger(m);
    kc_points a = points_from(x, "x");
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
