/* .Call entry points of the SVM solver (smo.h) and the shared cost path
 * (svm-path.h), and the SVM's memory sizes.  The style and the shared
 * unpacking: ffi.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "kernel.h"
#include "smo.h"
#include "svm-path.h"
#include "svm-pairs.h"
#include "ffi.h"

/* SVM dual by SMO: y in {-1, +1}, C the per-point upper bounds (> 0 or Inf);
 * linear the linear term, alpha0 NULL or a start within the bounds (the nu
 * problems' feasible start, or a warm start), nsets 1 or 2 (kc_smo_options,
 * smo.h).  store: NULL, TRUE (a new one), "whole" (a new one, every row
 * computed first: the solver then reads it directly) or a raw vector of
 * n * n * 4 + n bytes, kernel rows and their flags that the solver fills in
 * place and the caller keeps for the next solve on the same x and kernel
 * (returned as `store`). */
SEXP ffi_smo(SEXP x, SEXP y, SEXP C, SEXP spec, SEXP tolerance, SEXP max_iter,
             SEXP cachesize, SEXP shrinking, SEXP threads, SEXP linear, SEXP alpha0,
             SEXP nsets, SEXP store)
{
    kc_kernel k = kc_kernel_from(spec);
    int nt = kc_threads_from(threads);
    kc_points a = kc_points_from(x, "x");
    kc_check_pair(&k, &a, &a, "x", "x");
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
    kc_smo_options opt = {.linear = p, .alpha0 = a0, .nsets = INTEGER(nsets)[0], .eps = eps,
                          .max_iter = it >= (double) LONG_MAX ? LONG_MAX : (long) it,
                          .shrinking = shr, .nthreads = nt, .cache_mb = mb, .store = rows,
                          .filled = filled, .whole = whole};
    kc_smo_result res;
    res.alpha = REAL(alpha);
    kc_smo(&k, &a, yy, cc, &opt, &res);

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
 * setting (R/select-svm-path.R) of x (a list of dense double matrices of all n
 * points: one, or one per fold of run, scaled as its training rows scale
 * them), y (their classes 1..nclass), nclass, cost (increasing), w (the n
 * weights), cw (the nclass x length(run) class weights), spec, tolerance,
 * max_iter and shrinking; fold: the n points' folds 1..nfold; kept: NULL,
 * or ffi_svm_path_kept's buffers.  Returns per plan list(decision = n x
 * pairs x costs, rho, iterations, status = length(run) x pairs x costs). */
SEXP ffi_svm_path(SEXP plans, SEXP fold, SEXP run, SEXP threads, SEXP kept)
{
    int nt = kc_threads_from(threads);
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
        SEXP x = kc_list_elt(plan, "x"), y = kc_list_elt(plan, "y"), nclass = kc_list_elt(plan, "nclass"),
             cost = kc_list_elt(plan, "cost"), w = kc_list_elt(plan, "w"), cw = kc_list_elt(plan, "cw");
        ks[j] = kc_kernel_from(kc_list_elt(plan, "spec"));
        if (!isNewList(x) || (XLENGTH(x) != 1 && XLENGTH(x) != nrun))
            kc_internal("x must be a list of one double matrix or one per fold run");
        int nx = (int) XLENGTH(x);
        kc_points *xs = (kc_points *) R_alloc(nx, sizeof(kc_points));
        for (int i = 0; i < nx; i++) {
            SEXP xi = VECTOR_ELT(x, i);
            if (!isReal(xi) || !isMatrix(xi)) kc_internal("x must hold double matrices");
            xs[i] = kc_points_from(xi, "x");
            kc_check_pair(&ks[j], &xs[i], &xs[i], "x", "x");
            if (xs[i].n != xs[0].n) kc_internal("the matrices of x must have the same rows");
        }
        if (n < 0) {
            n = xs[0].n;
            ff = kc_index_from(fold, n, INT_MAX, "fold");
            rr = kc_index_from(run, nrun, INT_MAX, "run");
        }
        if (xs[0].n != n) kc_internal("every plan's x must have the same rows");
        if (!isInteger(nclass) || XLENGTH(nclass) != 1 || INTEGER(nclass)[0] < 2 ||
            INTEGER(nclass)[0] > 65535)
            kc_internal("nclass must be one integer from 2 to 65535");
        int L = INTEGER(nclass)[0], npairs = (int) ((double) L * (L - 1) / 2);  /* < INT_MAX */
        const int *yy = kc_index_from(y, n, L, "y");
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
        double eps = asReal(kc_list_elt(plan, "tolerance")), it = asReal(kc_list_elt(plan, "max_iter"));
        if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
        if (ISNAN(it) || it < 1) kc_internal("max_iter must be >= 1");
        int shr = asLogical(kc_list_elt(plan, "shrinking"));
        if (shr == NA_LOGICAL) kc_internal("shrinking must be TRUE or FALSE");
        double len = (double) n * npairs * ncost, fits = (double) nrun * npairs * ncost;
        if (len > (double) R_XLEN_T_MAX || fits > (double) R_XLEN_T_MAX)
            kc_error(KC_ERROR_SIZE, "kernclass: the path's decision values are too many "
                     "for R");
        const char *names[] = {"decision", "rho", "iterations", "status", ""};
        SEXP res = mkNamed(VECSXP, names);
        SET_VECTOR_ELT(out, j, res);
        SET_VECTOR_ELT(res, 0, allocVector(REALSXP, (R_xlen_t) len));
        SET_VECTOR_ELT(res, 1, allocVector(REALSXP, (R_xlen_t) fits));
        SET_VECTOR_ELT(res, 2, allocVector(REALSXP, (R_xlen_t) fits));
        SET_VECTOR_ELT(res, 3, allocVector(INTSXP, (R_xlen_t) fits));
        int fk = asInteger(kc_list_elt(plan, "fold_kernel"));  /* 0, 1, 2 (NULL, NA: 0) */
        jobs[j] = (kc_svm_path_job) {
            .k = &ks[j], .x = xs, .nx = nx, .y = yy, .nclass = L, .ncost = (int) ncost,
            .cost = REAL(cost), .w = REAL(w), .cw = REAL(cw),
            .eps = eps, .max_iter = it >= (double) LONG_MAX ? LONG_MAX : (long) it,
            .shrinking = shr,
            .fold_kernel = fk == 1 || fk == 2 ? fk : 0,
            .decision = REAL(VECTOR_ELT(res, 0)), .rho = REAL(VECTOR_ELT(res, 1)),
            .iterations = REAL(VECTOR_ELT(res, 2)), .status = INTEGER(VECTOR_ELT(res, 3))};
    }
    kc_svm_path(jobs, njobs, ff, rr, (int) nrun, nt,
                TYPEOF(kept) == EXTPTRSXP ? (kc_svm_path_kept *) R_ExternalPtrAddr(kept) : NULL);
    UNPROTECT(1);
    return out;
}

/* The path's buffers kept across calls (kc_svm_path_kept): an external
 * pointer that ffi_svm_path takes, freed by ffi_svm_path_kept_free or, if
 * that is never called, when R collects it.  A copy in another process
 * (a future's) points to nothing: that call allocates its own. */
static void kept_free(SEXP ptr)
{
    kc_svm_path_kept *kept = (kc_svm_path_kept *) R_ExternalPtrAddr(ptr);
    if (!kept) return;
    kc_svm_path_kept_free(kept);
    free(kept);
    R_ClearExternalPtr(ptr);
}

SEXP ffi_svm_path_kept(void)
{
    kc_svm_path_kept *kept = (kc_svm_path_kept *) calloc(1, sizeof(kc_svm_path_kept));
    if (!kept) kc_error(KC_ERROR_MEMORY, "kernclass: out of memory");
    SEXP ptr = PROTECT(R_MakeExternalPtr(kept, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(ptr, kept_free, TRUE);
    UNPROTECT(1);
    return ptr;
}

SEXP ffi_svm_path_kept_free(SEXP ptr)
{
    if (TYPEOF(ptr) != EXTPTRSXP) kc_internal("kept must be an external pointer");
    kept_free(ptr);
    return R_NilValue;
}

/* The warm start of a path's next cost (kc_svm_warm_start): the last
 * solution alpha in its bounds Cprev moved into the bounds C, for the
 * classes y (+1 / -1); R's per-fold path (kc_svm_path_start). */
SEXP ffi_svm_warm_start(SEXP alpha, SEXP Cprev, SEXP C, SEXP y)
{
    R_xlen_t m = XLENGTH(alpha);
    if (!isReal(alpha) || !isReal(Cprev) || !isReal(C) || !isInteger(y) || m > INT_MAX ||
        XLENGTH(Cprev) != m || XLENGTH(C) != m || XLENGTH(y) != m)
        kc_internal("alpha, Cprev and C must be double and y integer vectors of one length");
    const int *yy = INTEGER(y);
    const double *cc = REAL(C);
    for (R_xlen_t t = 0; t < m; t++) {
        if (yy[t] != 1 && yy[t] != -1) kc_internal("y must be +1 or -1");
        if (!(cc[t] > 0)) kc_internal("C must be > 0");
    }
    SEXP out = PROTECT(allocVector(REALSXP, m));
    kc_svm_warm_start(REAL(alpha), REAL(Cprev), cc, yy, (int) m, REAL(out));
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

/* The class pairs of one multi-class C-SVC fit on one shared kernel
 * (kc_svm_pairs): x the dense points of the fit, problems one list per
 * pair of rows (1-based, increasing), y (+1 / -1), C (> 0 or Inf) and
 * optionally fold (Platt's folds, integers in 1..nfolds); budget the bytes
 * the kernel store may take.  Returns list(fits = per pair the fields
 * ffi_smo returns but the store, with folds also dec and fold_bad
 * (kc_svm_pair), shared = whether the classes' kernel blocks were shared,
 * batches = in how many batches of pairs: 1 all at once, more through the
 * cache of class blocks). */
SEXP ffi_svm_pairs(SEXP x, SEXP problems, SEXP spec, SEXP tolerance, SEXP max_iter,
                   SEXP shrinking, SEXP threads, SEXP budget)
{
    kc_kernel k = kc_kernel_from(spec);
    int nt = kc_threads_from(threads);
    if (!isReal(x) || !isMatrix(x)) kc_internal("x must be a dense double matrix");
    kc_points a = kc_points_from(x, "x");
    kc_check_pair(&k, &a, &a, "x", "x");
    if (!isNewList(problems) || XLENGTH(problems) < 1 || XLENGTH(problems) > INT_MAX)
        kc_internal("problems must be a list of one or more pairs");
    double eps = asReal(tolerance), it = asReal(max_iter), bud = asReal(budget);
    if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
    if (ISNAN(it) || it < 1) kc_internal("max_iter must be >= 1");
    if (ISNAN(bud) || bud < 0) kc_internal("budget must be >= 0");
    int shr = asLogical(shrinking);
    if (shr == NA_LOGICAL) kc_internal("shrinking must be TRUE or FALSE");
    int np = (int) XLENGTH(problems);
    kc_svm_pair *pairs = (kc_svm_pair *) R_alloc((size_t) np, sizeof(kc_svm_pair));
    const char *names[] = {"alpha", "rho", "objective", "iterations", "status", "gap",
                           "rows_computed", "r", "dec", "fold_bad", ""};
    SEXP fits = PROTECT(allocVector(VECSXP, np));
    for (int u = 0; u < np; u++) {
        SEXP pr = VECTOR_ELT(problems, u);
        SEXP rows = kc_list_elt(pr, "rows"), y = kc_list_elt(pr, "y"), C = kc_list_elt(pr, "C");
        R_xlen_t m = XLENGTH(rows);
        if (m < 2) kc_internal("a pair needs at least 2 rows");
        const int *rr = kc_index_from(rows, m, a.n, "rows");
        for (R_xlen_t i = 1; i < m; i++)
            if (rr[i] <= rr[i - 1]) kc_internal("rows must be increasing");
        if (!isInteger(y) || XLENGTH(y) != m) kc_internal("y must be an integer vector, one per row");
        if (!isReal(C) || XLENGTH(C) != m) kc_internal("C must be a double vector, one per row");
        for (R_xlen_t i = 0; i < m; i++) {
            if (INTEGER(y)[i] != 1 && INTEGER(y)[i] != -1) kc_internal("y must be -1 or +1");
            if (!(REAL(C)[i] > 0)) kc_internal("C must be > 0");
        }
        SEXP out = mkNamed(VECSXP, names);
        SET_VECTOR_ELT(fits, u, out);
        SET_VECTOR_ELT(out, 0, allocVector(REALSXP, m));
        pairs[u] = (kc_svm_pair) {.m = (int) m, .rows = rr, .y = INTEGER(y), .C = REAL(C),
                                  .alpha = REAL(VECTOR_ELT(out, 0))};
        SEXP fold = kc_list_elt(pr, "fold");
        if (!isNull(fold)) {
            if (!isInteger(fold) || XLENGTH(fold) != m) kc_internal("fold must be integers, one per row");
            int nf = 0;
            for (R_xlen_t i = 0; i < m; i++) {
                int f = INTEGER(fold)[i];
                if (f == NA_INTEGER || f < 1) kc_internal("fold must be >= 1");
                if (f > nf) nf = f;
            }
            SET_VECTOR_ELT(out, 8, allocVector(REALSXP, m));
            pairs[u].fold = INTEGER(fold);
            pairs[u].nfolds = nf;
            pairs[u].dec = REAL(VECTOR_ELT(out, 8));
        }
    }
    kc_smo_options opt = {.linear = -1.0, .alpha0 = NULL, .nsets = 1, .eps = eps,
                          .max_iter = it >= (double) LONG_MAX ? LONG_MAX : (long) it,
                          .shrinking = shr, .nthreads = nt, .cache_mb = 1.0, .store = NULL,
                          .filled = NULL, .whole = 1};
    int shared = kc_svm_pairs(&k, &a, pairs, np, &opt, bud, nt);
    for (int u = 0; u < np; u++) {
        SEXP out = VECTOR_ELT(fits, u);
        kc_smo_result *res = &pairs[u].res;
        SET_VECTOR_ELT(out, 1, ScalarReal(res->rho));
        SET_VECTOR_ELT(out, 2, ScalarReal(res->objective));
        SET_VECTOR_ELT(out, 3, ScalarReal((double) res->iterations));
        SET_VECTOR_ELT(out, 4, ScalarInteger(res->status));
        SET_VECTOR_ELT(out, 5, ScalarReal(res->gap));
        SET_VECTOR_ELT(out, 6, ScalarReal((double) res->rows_computed));
        SET_VECTOR_ELT(out, 7, ScalarReal(res->r));
        if (pairs[u].fold) SET_VECTOR_ELT(out, 9, ScalarLogical(pairs[u].fold_bad));
    }
    const char *top[] = {"fits", "shared", "batches", ""};
    SEXP ans = PROTECT(mkNamed(VECSXP, top));
    SET_VECTOR_ELT(ans, 0, fits);
    SET_VECTOR_ELT(ans, 1, ScalarLogical(shared > 0));
    SET_VECTOR_ELT(ans, 2, ScalarInteger(shared));
    UNPROTECT(2);
    return ans;
}
