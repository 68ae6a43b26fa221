/* The SVM's one solve entry (ffi_svm_solve) and its planner's (ffi_svm_plan):
 * the problems, a named list of one kind (kind = "binary": one binary
 * problem, optionally with held-out points; "costs": one binary problem at
 * several costs, a path of warm starts on one kept store (a fold's cost
 * path); "pairs": the class pairs of one fit, optionally with Platt's folds;
 * "path": the costs of kernel settings over the folds of a
 * cross-validation), and the options, a named list read by name
 * (kc_list_need).  The store each problem's kernel rows live in is the
 * planner's choice (svm-plan.c), from the sizes, cachesize and the budget
 * R gives (kc_svm_budget() or kc_tune_budget()).  The style and the shared
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
#include "svm-plan.h"
#include "ffi.h"
#include "ffi-entry.h"
#include "ffi-svm.h"

/* The class pairs' plan (kc_svm_plan_pairs): apart unless their points
 * are a dense double matrix; a, their points, and the largest pair's rows. */
static kc_svm_store pairs_plan(SEXP pr, SEXP options, const kc_kernel *k, kc_points *a)
{
    SEXP x = kc_list_need(pr, "x"), problems = kc_list_need(pr, "pairs");
    if (!isNewList(problems) || XLENGTH(problems) < 1 || XLENGTH(problems) > INT_MAX)
        kc_internal("pairs must be a list of one or more pairs");
    if (!isReal(x) || !isMatrix(x)) return KC_STORE_APART;
    *a = kc_points_from(x, "x");
    kc_check_pair(k, a, a, "x", "x");
    double mmax = 0;
    for (R_xlen_t u = 0; u < XLENGTH(problems); u++) {
        double m = (double) XLENGTH(kc_list_need(VECTOR_ELT(problems, u), "rows"));
        if (m > mmax) mmax = m;
    }
    return kc_svm_plan_pairs(kc_svm_type_from(options), a, k, mmax, kc_svm_cache_from(options));
}

/* The class pairs of one multi-class C-SVC fit on one shared kernel
 * (kc_svm_pairs): x the dense points of the fit, pairs one list per pair
 * of rows (1-based, increasing), y (+1 / -1), C (> 0 or Inf) and
 * optionally fold (Platt's folds, integers in 1..nfolds); options$budget
 * the bytes the kernel store may take.  Returns NULL where the planner
 * gives the pairs apart (each then solved as a binary problem), else
 * list(fits = per pair its solution's fields (alpha to r, as a binary
 * solve's), with folds also dec and fold_bad (kc_svm_pair), shared = whether the
 * classes' kernel blocks were shared, batches = in how many batches of
 * pairs: 1 all at once, more through the cache of class blocks). */
static SEXP solve_pairs(SEXP pr, SEXP options)
{
    kc_kernel k = kc_svm_kernel_from(kc_list_need(options, "kernel"));
    kc_svm_type type = kc_svm_type_from(options);
    kc_smo_options opt = kc_svm_solver_from(options, type);
    double bud = kc_svm_number_from(options, "budget");
    if (ISNAN(bud) || bud < 0) kc_internal("budget must be >= 0");
    kc_points a;
    if (pairs_plan(pr, options, &k, &a) != KC_STORE_PAIRS) return R_NilValue;
    SEXP problems = kc_list_need(pr, "pairs");
    int np = (int) XLENGTH(problems), nt = opt.nthreads;
    kc_svm_pair *pairs = (kc_svm_pair *) R_alloc((size_t) np, sizeof(kc_svm_pair));
    const char *names[] = {"alpha", "rho", "objective", "iterations", "status", "gap",
                           "rows_computed", "r", "dec", "fold_bad", ""};
    SEXP fits = PROTECT(allocVector(VECSXP, np));
    for (int u = 0; u < np; u++) {
        SEXP pp = VECTOR_ELT(problems, u);
        SEXP rows = kc_list_elt(pp, "rows"), y = kc_list_elt(pp, "y"), C = kc_list_elt(pp, "C");
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
        SEXP fold = kc_list_elt(pp, "fold");
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
    opt.whole = 1;
    int shared = kc_svm_pairs(&k, &a, pairs, np, &opt, bud, nt);
    for (int u = 0; u < np; u++) {
        SEXP out = VECTOR_ELT(fits, u);
        kc_svm_set_result(out, &pairs[u].res);
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

/* The bytes of a path's plans (each plan's bytes: once, per thread, of its
 * inputs and of its results; 0 where not given), 4 x nplans by kind. */
static double *path_bytes(SEXP plans)
{
    if (!isNewList(plans) || XLENGTH(plans) < 1 || XLENGTH(plans) > INT_MAX)
        kc_internal("plans must be a list of one or more plans");
    int np = (int) XLENGTH(plans);
    double *bytes = (double *) R_alloc(4 * (size_t) np, sizeof(double));
    for (int j = 0; j < np; j++) {
        SEXP b = kc_list_elt(VECTOR_ELT(plans, j), "bytes");
        if (!isNull(b) && (!isReal(b) || XLENGTH(b) != 4)) kc_internal("bytes must be 4 numbers");
        for (int q = 0; q < 4; q++) bytes[q * np + j] = isNull(b) ? 0 : REAL(b)[q];
    }
    return bytes;
}

static double budget_from(SEXP options)
{
    double budget = kc_svm_number_from(options, "budget");
    if (ISNAN(budget)) kc_internal("budget must be a number");
    return budget;
}

/* The threads a call's plans run on side by side (kc_svm_plan_path_threads)
 * from their bytes, options$budget and options$threads. */
static int path_threads(SEXP plans, SEXP options)
{
    int nt = kc_threads_from(kc_list_need(options, "threads"));
    double budget = budget_from(options);
    int np = (int) XLENGTH(plans);
    const double *b = path_bytes(plans);
    return kc_svm_plan_path_threads(b, b + np, b + 2 * np, b + 3 * np, np, budget, nt);
}

/* The costs of kernel settings over the folds run (1-based) of a
 * cross-validation, in one call (kc_svm_path).  plans: one list per kernel
 * setting (R/select-svm-path.R) of x (a list of dense double matrices of all n
 * points: one, or one per fold of run, scaled as its training rows scale
 * them), y (their classes 1..nclass), nclass, cost (increasing), w (the n
 * weights), cw (the nclass x length(run) class weights), spec, tolerance,
 * max_iter, shrinking, and optionally fold_kernel and bytes (ffi_svm_plan's,
 * which with options$budget set the threads side by side); fold: the n
 * points' folds 1..nfold; kept: NULL, or ffi_svm_path_kept's buffers;
 * options$progress: NULL, or an R function called with the number of
 * class pairs on a fold finished since its last call (units.h).
 * Returns per plan list(decision = n x pairs x costs, rho, iterations,
 * status = length(run) x pairs x costs). */
static SEXP solve_path(SEXP pr, SEXP options)
{
    SEXP plans = kc_list_need(pr, "plans"), fold = kc_list_need(pr, "fold"),
         run = kc_list_need(pr, "run"), kept = kc_list_elt(pr, "kept");
    int nt = path_threads(plans, options);
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
        SEXP x = kc_list_need(plan, "x"), y = kc_list_need(plan, "y"),
             nclass = kc_list_need(plan, "nclass"), cost = kc_list_need(plan, "cost"),
             w = kc_list_need(plan, "w"), cw = kc_list_need(plan, "cw");
        ks[j] = kc_svm_kernel_from(kc_list_need(plan, "spec"));
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
        double eps = asReal(kc_list_need(plan, "tolerance")),
               it = asReal(kc_list_need(plan, "max_iter"));
        if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
        if (ISNAN(it) || it < 1) kc_internal("max_iter must be >= 1");
        int shr = asLogical(kc_list_need(plan, "shrinking"));
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
    SEXP fn = kc_list_elt(options, "progress");
    if (!isNull(fn) && !isFunction(fn)) kc_internal("progress must be NULL or a function");
    kc_units_progress progress = {fn, 0, 0};
    kc_svm_path(jobs, njobs, ff, rr, (int) nrun, nt,
                TYPEOF(kept) == EXTPTRSXP ? (kc_svm_path_kept *) R_ExternalPtrAddr(kept) : NULL,
                isNull(fn) ? NULL : &progress);
    UNPROTECT(1);
    return out;
}

/* The path's buffers kept across calls (kc_svm_path_kept): an external
 * pointer that the path solve takes, freed by ffi_svm_path_kept_free or, if
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


static const char *kind_of(SEXP problems)
{
    SEXP kind = kc_list_need(problems, "kind");
    if (!isString(kind) || XLENGTH(kind) != 1) kc_internal("kind must be one string");
    return CHAR(STRING_ELT(kind, 0));
}

SEXP ffi_svm_solve(SEXP problems, SEXP options)
{
    const char *kind = kind_of(problems);
    if (!isNewList(options)) kc_internal("options must be a named list");
    if (!strcmp(kind, "binary")) return kc_svm_solve_binary(problems, options);
    if (!strcmp(kind, "pairs")) return solve_pairs(problems, options);
    if (!strcmp(kind, "costs")) return kc_svm_solve_costs(problems, options);
    if (!strcmp(kind, "path")) return solve_path(problems, options);
    kc_internal("kind must be \"binary\", \"costs\", \"pairs\" or \"path\"");
}

/* The plan the solve would follow, for R: binary, costs and pairs problems as
 * ffi_svm_solve takes them (list(store = its name, bytes = the store's
 * bytes where new)); a cost path as it takes it, list(threads = those its
 * plans run on side by side in one call, calls = per plan the call it is
 * solved in, 1, 2, ...: as many calls as keep each one's results within the
 * budget, kc_svm_plan_path_calls); and for the cost path from its sizes,
 * before its plans are made (problems: kind = "path", n, nclass, m the
 * largest pair's training rows, t the largest fold, trained, nx, nrun,
 * inputs, optionally ncost; options: budget), list(fits, fold_kernel,
 * bytes = c(once, thread, inputs, results)). */
SEXP ffi_svm_plan(SEXP problems, SEXP options)
{
    const char *kind = kind_of(problems);
    if (!strcmp(kind, "path") && !isNull(kc_list_elt(problems, "plans"))) {
        SEXP plans = kc_list_need(problems, "plans");
        int nt = path_threads(plans, options), np = (int) XLENGTH(plans);
        const double *b = path_bytes(plans);
        const char *names[] = {"threads", "calls", ""};
        SEXP out = PROTECT(mkNamed(VECSXP, names));
        SET_VECTOR_ELT(out, 0, ScalarInteger(nt));
        SEXP calls = allocVector(INTSXP, np);
        SET_VECTOR_ELT(out, 1, calls);
        kc_svm_plan_path_calls(b, b + np, b + 2 * np, b + 3 * np, np, budget_from(options),
                               INTEGER(calls));
        for (int j = 0; j < np; j++) INTEGER(calls)[j]++;
        UNPROTECT(1);
        return out;
    }
    if (!strcmp(kind, "path")) {
        double v[6];
        const char *num[] = {"n", "m", "t", "trained", "inputs", "budget"};
        for (int q = 0; q < 6; q++) {
            v[q] = kc_svm_number_from(q < 5 ? problems : options, num[q]);
            if (!(v[q] >= 0)) kc_internal("%s must be a number >= 0", num[q]);
        }
        int L = asInteger(kc_list_need(problems, "nclass")),
            nx = asInteger(kc_list_need(problems, "nx")),
            nrun = asInteger(kc_list_need(problems, "nrun"));
        if (L == NA_INTEGER || L < 2 || nx == NA_INTEGER || nx < 1 || nrun == NA_INTEGER ||
            nrun < 1)
            kc_internal("nclass must be an integer >= 2, nx and nrun integers >= 1");
        SEXP nc = kc_list_elt(problems, "ncost");
        double ncost = isNull(nc) ? 0 : asReal(nc);
        if (!(ncost >= 0)) kc_internal("ncost must be a number >= 0");
        kc_svm_path_plan p = kc_svm_plan_path(v[0], L, v[1], v[2], v[3], nx, nrun, v[4], ncost,
                                              v[5]);
        const char *names[] = {"fits", "fold_kernel", "bytes", ""};
        SEXP out = PROTECT(mkNamed(VECSXP, names));
        SET_VECTOR_ELT(out, 0, ScalarLogical(p.fits));
        SET_VECTOR_ELT(out, 1, ScalarInteger(p.fold_kernel));
        SEXP b = allocVector(REALSXP, 4);
        SET_VECTOR_ELT(out, 2, b);
        REAL(b)[0] = p.once;
        REAL(b)[1] = p.thread;
        REAL(b)[2] = p.inputs;
        REAL(b)[3] = p.results;
        const char *bn[] = {"once", "thread", "inputs", "results"};
        SEXP nm = PROTECT(allocVector(STRSXP, 4));
        for (int q = 0; q < 4; q++) SET_STRING_ELT(nm, q, mkChar(bn[q]));
        setAttrib(b, R_NamesSymbol, nm);
        UNPROTECT(2);
        return out;
    }
    kc_kernel k = kc_svm_kernel_from(kc_list_need(options, "kernel"));
    kc_svm_store store;
    double bytes = 0;
    if (!strcmp(kind, "binary") || !strcmp(kind, "costs")) {
        kc_points a = kc_points_from(kc_list_need(problems, "x"), "x");
        kc_svm_binary_plan p = !strcmp(kind, "binary") ? kc_svm_binary_plan_from(options, &a)
                                                       : kc_svm_costs_plan_from(options, &a);
        store = p.store;
        bytes = p.bytes;
    } else if (!strcmp(kind, "pairs")) {
        kc_points a;
        store = pairs_plan(problems, options, &k, &a);
    } else {
        kc_internal("kind must be \"binary\", \"costs\", \"pairs\" or \"path\"");
    }
    const char *names[] = {"store", "bytes", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, mkString(kc_svm_store_name(store)));
    SET_VECTOR_ELT(out, 1, ScalarReal(bytes));
    UNPROTECT(1);
    return out;
}
