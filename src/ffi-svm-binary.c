/* The SVM's binary problems through the one solve entry (ffi-svm.c): one
 * problem (kind "binary") or one problem at several costs (kind "costs",
 * the per-fold cost path), and the option readers every kind shares. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "kernel.h"
#include "smo.h"
#include "svm-path.h"
#include "svm-plan.h"
#include "units.h"
#include "ffi.h"
#include "ffi-svm.h"

kc_svm_type kc_svm_type_from(SEXP options)
{
    SEXP t = kc_list_need(options, "type");
    if (!isString(t) || XLENGTH(t) != 1) kc_internal("type must be one string");
    const char *s = CHAR(STRING_ELT(t, 0));
    if (!strcmp(s, "C-classification")) return KC_SVM_C;
    if (!strcmp(s, "nu-classification")) return KC_SVM_NU;
    if (!strcmp(s, "one-classification")) return KC_SVM_ONE;
    kc_internal("type must be an SVM type");
}

double kc_svm_number_from(SEXP options, const char *name)
{
    SEXP v = kc_list_need(options, name);
    if (!isNumeric(v) || XLENGTH(v) != 1) kc_internal("%s must be one number", name);
    return asReal(v);
}

/* The solver's settings that every kind reads from the options: the
 * linear term and index sets of the type (C-SVC: -1, one set; nu-SVC: 0,
 * two sets, pairs within a class; one-class: 0, one set), tolerance,
 * max_iter, shrinking and threads. */
kc_smo_options kc_svm_solver_from(SEXP options, kc_svm_type type)
{
    double eps = kc_svm_number_from(options, "tolerance"),
           it = kc_svm_number_from(options, "max_iter");
    if (!R_FINITE(eps) || eps <= 0) kc_internal("tolerance must be > 0");
    if (ISNAN(it) || it < 1) kc_internal("max_iter must be >= 1");
    int shr = asLogical(kc_list_need(options, "shrinking"));
    if (shr == NA_LOGICAL) kc_internal("shrinking must be TRUE or FALSE");
    return (kc_smo_options) {.linear = type == KC_SVM_C ? -1.0 : 0.0, .alpha0 = NULL,
                             .nsets = type == KC_SVM_NU ? 2 : 1, .eps = eps,
                             .max_iter = it >= (double) LONG_MAX ? LONG_MAX : (long) it,
                             .shrinking = shr,
                             .nthreads = kc_threads_from(kc_list_need(options, "threads")),
                             .cache_mb = 1.0};
}

double kc_svm_cache_from(SEXP options)
{
    double mb = kc_svm_number_from(options, "cachesize");
    if (!R_FINITE(mb) || mb <= 0) kc_internal("cachesize must be > 0");
    return mb;
}

/* A binary problem's inputs, read and checked: its kernel, type, solver
 * settings (opt.alpha0: the start given, NULL for none), points a and
 * classes y; C (the bounds, >= 0 or Inf: a vector, or with ncost a matrix
 * of one column per cost) read by the caller. */
typedef struct {
    kc_kernel k;
    kc_svm_type type;
    kc_smo_options opt;
    kc_points a;
    const int *y;
} binary_input;

static binary_input binary_from(SEXP pr, SEXP options, R_xlen_t ncost)
{
    binary_input in;
    in.k = kc_svm_kernel_from(kc_list_need(options, "kernel"));
    in.type = kc_svm_type_from(options);
    in.opt = kc_svm_solver_from(options, in.type);
    in.opt.cache_mb = kc_svm_cache_from(options);
    SEXP y = kc_list_need(pr, "y"), C = kc_list_need(pr, "C");
    in.a = kc_points_from(kc_list_need(pr, "x"), "x");
    kc_check_pair(&in.k, &in.a, &in.a, "x", "x");
    if (!isInteger(y) || XLENGTH(y) != in.a.n)
        kc_internal("y must be an integer vector, one per row");
    if (!isReal(C) || (double) XLENGTH(C) != (double) in.a.n * ncost)
        kc_internal("C must be a double vector, one per row (and cost)");
    in.y = INTEGER(y);
    for (R_xlen_t i = 0; i < in.a.n; i++)
        if (in.y[i] != 1 && in.y[i] != -1) kc_internal("y must be -1 or +1");
    for (R_xlen_t i = 0; i < XLENGTH(C); i++)
        if (ISNAN(REAL(C)[i]) || REAL(C)[i] < 0) kc_internal("C must be >= 0");
    SEXP alpha0 = kc_list_elt(pr, "alpha0");
    if (!isNull(alpha0)) {
        if (!isReal(alpha0) || XLENGTH(alpha0) != in.a.n)
            kc_internal("alpha0 must be NULL or a double vector, one per row");
        in.opt.alpha0 = REAL(alpha0);
    }
    return in;
}

/* Whether a start lies within the box [0, C]. */
static void check_start(const double *a0, const double *C, R_xlen_t n)
{
    for (R_xlen_t i = 0; i < n; i++)
        if (!(a0[i] >= 0 && a0[i] <= C[i]) || !R_FINITE(a0[i]))
            kc_internal("alpha0 must lie within [0, C]");
}

/* A binary problem's plan alone (kc_svm_plan_binary): the whole kernel
 * where cachesize holds it, else the cache. */
kc_svm_binary_plan kc_svm_binary_plan_from(SEXP options, const kc_points *a)
{
    return kc_svm_plan_binary((double) a->n, a->src, kc_svm_type_from(options),
                              kc_svm_cache_from(options), 0, 0);
}

/* The first plan of a cost path (kc_svm_plan_binary in a path): a store
 * kept for all its costs where options$budget holds one, else the cache. */
kc_svm_binary_plan kc_svm_costs_plan_from(SEXP options, const kc_points *a)
{
    double budget = kc_svm_number_from(options, "budget");
    if (ISNAN(budget)) kc_internal("budget must be a number");
    return kc_svm_plan_binary((double) a->n, a->src, kc_svm_type_from(options),
                              kc_svm_cache_from(options), 1, budget);
}

/* A store of the solver's rows for n points, its flags cleared; the
 * solver's options reading it. */
static SEXP new_store(R_xlen_t n)
{
    double need = kc_svm_store_bytes((double) n);
    if (need > (double) R_XLEN_T_MAX) kc_internal("the store is too large");
    SEXP store = allocVector(RAWSXP, (R_xlen_t) need);
    memset(RAW(store) + (size_t) n * n * sizeof(float), 0, (size_t) n);
    kc_advise_huge_pages(RAW(store), (size_t) need);
    return store;
}

static void use_store(kc_smo_options *opt, SEXP store, R_xlen_t n, int whole)
{
    /* the rows first: RAW() is aligned for any type */
    opt->store = (float *) (void *) RAW(store);
    opt->filled = RAW(store) + (size_t) n * n * sizeof(float);
    opt->whole = whole;
}

/* A solution's fields for R: alpha (its vector), the solver's figures,
 * then the fields extra[0..nextra) (up to 2) with values vals. */
void kc_svm_set_result(SEXP out, const kc_smo_result *res)
{
    SET_VECTOR_ELT(out, 1, ScalarReal(res->rho));
    SET_VECTOR_ELT(out, 2, ScalarReal(res->objective));
    SET_VECTOR_ELT(out, 3, ScalarReal((double) res->iterations));
    SET_VECTOR_ELT(out, 4, ScalarInteger(res->status));
    SET_VECTOR_ELT(out, 5, ScalarReal(res->gap));
    SET_VECTOR_ELT(out, 6, ScalarReal((double) res->rows_computed));
    SET_VECTOR_ELT(out, 7, ScalarReal(res->r));
}

static SEXP solution(SEXP alpha, const kc_smo_result *res, int nextra, const char **extra,
                     const SEXP *vals)
{
    const char *names[11] = {"alpha", "rho", "objective", "iterations", "status", "gap",
                             "rows_computed", "r"};
    for (int q = 0; q < nextra; q++) names[8 + q] = extra[q];
    names[8 + nextra] = "";
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, alpha);
    kc_svm_set_result(out, res);
    for (int q = 0; q < nextra; q++) SET_VECTOR_ELT(out, 8 + q, vals[q]);
    UNPROTECT(1);
    return out;
}

/* The held-out points' decision values of a solution alpha on the points
 * a (classes y): the support vectors' coefficients alpha y summed in
 * double, in the points' order, over the float kernel values (each the
 * double value rounded, as the solver's rows hold them), minus rho: as the
 * class pairs' Platt folds sum them (svm-pairs.c), so that a fold's
 * decision values are the same on whichever store its pair was solved. */
static void held_out_decision(const kc_kernel *k, const kc_points *a, const int *y,
                              const double *alpha, double rho, const kc_points *test,
                              int nthreads, double *dec)
{
    int *sv = (int *) R_alloc((size_t) a->n + 1, sizeof(int));
    double *coef = (double *) R_alloc((size_t) a->n + 1, sizeof(double));
    int nsv = 0;
    for (ptrdiff_t i = 0; i < a->n; i++)
        if (alpha[i] > 0) {
            coef[nsv] = alpha[i] * y[i];
            sv[nsv++] = (int) i;
        }
    if (!nsv) {
        for (ptrdiff_t i = 0; i < test->n; i++) dec[i] = -rho;
        return;
    }
    kc_points b = kc_points_subset(a, sv, nsv);
    enum { CHUNK = 256 };  /* held-out rows at a time: CHUNK x nsv floats */
    float *K = (float *) R_alloc((size_t) CHUNK * nsv, sizeof(float));
    int *at = (int *) R_alloc(CHUNK, sizeof(int));
    for (ptrdiff_t t0 = 0; t0 < test->n; t0 += CHUNK) {
        int cn = test->n - t0 < CHUNK ? (int) (test->n - t0) : CHUNK;
        for (int i = 0; i < cn; i++) at[i] = (int) (t0 + i);
        kc_points t = kc_points_subset(test, at, cn);
        kc_gram_float(k, &t, &b, 0, K, nthreads);
        for (int i = 0; i < cn; i++) {
            double s = 0;
            for (int j = 0; j < nsv; j++) s += coef[j] * K[i + (size_t) j * cn];
            dec[t0 + i] = s - rho;
        }
    }
}

/* One binary problem: x (points), y (+1 / -1), C (the bounds, >= 0 or
 * Inf); optionally alpha0 (a start within the bounds: the nu problems'
 * feasible one) and test (points held out, of x's source).  Returns the
 * solution's fields (solution()); decision, test's decision values where
 * the problem is of the pairs' kind (kc_svm_pairs_kind), else NULL; plan,
 * the store's name. */
SEXP kc_svm_solve_binary(SEXP pr, SEXP options)
{
    binary_input in = binary_from(pr, options, 1);
    const double *cc = REAL(kc_list_need(pr, "C"));
    if (in.opt.alpha0) check_start(in.opt.alpha0, cc, in.a.n);
    SEXP test = kc_list_elt(pr, "test");
    kc_points tp = {0};
    if (!isNull(test)) {
        tp = kc_points_from(test, "test");
        kc_check_pair(&in.k, &tp, &in.a, "test", "x");
    }
    kc_svm_binary_plan plan = kc_svm_binary_plan_from(options, &in.a);
    int nprot = 0;
    if (plan.fresh) {
        use_store(&in.opt, PROTECT(new_store(in.a.n)), in.a.n, plan.whole);
        nprot++;
    }
    SEXP alpha = PROTECT(allocVector(REALSXP, in.a.n));
    kc_smo_result res;
    res.alpha = REAL(alpha);
    kc_smo(&in.k, &in.a, in.y, cc, &in.opt, &res);
    SEXP dec = R_NilValue;
    if (!isNull(test) && kc_svm_pairs_kind(in.type, &in.a, &in.k)) {
        dec = PROTECT(allocVector(REALSXP, tp.n));
        nprot++;
        held_out_decision(&in.k, &in.a, in.y, REAL(alpha), res.rho, &tp, in.opt.nthreads,
                          REAL(dec));
    }
    const char *extra[] = {"decision", "plan"};
    SEXP vals[] = {dec, PROTECT(mkString(kc_svm_store_name(plan.store)))};
    SEXP out = solution(alpha, &res, 2, extra, vals);
    UNPROTECT(2 + nprot);
    return out;
}

/* One binary problem at several costs, as a path (kernel_svm's cost path,
 * R/fit-svm-solve.R): x, y and optionally alpha0 (the first cost's start)
 * as solve_binary's, C an m x ncost matrix of bounds > 0 (or Inf), one
 * column per cost in increasing order.  Each cost after the first starts
 * from the last solution moved into its box (kc_svm_warm_start, the rule
 * of the shared path); all read one store of the kernel rows where
 * options$budget holds it (costs_plan), filled by the first and read by
 * the others, else the cache.  The chain stops at a solution that is
 * unbounded or not finite (the caller's error).  Returns list(fits = per
 * cost the solution's fields (solution()) and start, the warm start (NULL
 * for the first), NULL past a stop; plan, the first cost's store; bytes,
 * those of the store). */
SEXP kc_svm_solve_costs(SEXP pr, SEXP options)
{
    SEXP C = kc_list_need(pr, "C");
    if (!isMatrix(C)) kc_internal("C must be a matrix, one column per cost");
    R_xlen_t ncost = ncols(C), m = nrows(C);
    if (ncost < 1) kc_internal("C must have one column per cost");
    binary_input in = binary_from(pr, options, ncost);
    if (m > INT_MAX) kc_internal("too many rows");
    if (ncost > 1 && in.type != KC_SVM_C) kc_internal("a cost path is C-SVC's");
    for (R_xlen_t i = 0; i < XLENGTH(C); i++) if (!(REAL(C)[i] > 0)) kc_internal("C must be > 0");
    if (in.opt.alpha0) check_start(in.opt.alpha0, REAL(C), m);
    kc_svm_binary_plan plan = kc_svm_costs_plan_from(options, &in.a);
    SEXP store = R_NilValue;
    if (plan.fresh) store = new_store(m);
    PROTECT(store);
    SEXP fits = PROTECT(allocVector(VECSXP, ncost));
    const double *prev = NULL, *Cprev = NULL;
    for (R_xlen_t c = 0; c < ncost; c++) {
        const double *cc = REAL(C) + (size_t) c * m;
        SEXP start = R_NilValue;
        if (prev) {
            start = PROTECT(allocVector(REALSXP, m));
            kc_svm_warm_start(prev, Cprev, cc, in.y, (int) m, REAL(start));
            check_start(REAL(start), cc, m);
            in.opt.alpha0 = REAL(start);
        } else {
            PROTECT(start);
        }
        /* the first cost fills a new store (every row first, where whole);
         * the others read the rows it holds and fill the rest */
        if (!isNull(store)) use_store(&in.opt, store, m, c == 0 ? plan.whole : 0);
        SEXP alpha = PROTECT(allocVector(REALSXP, m));
        kc_smo_result res;
        res.alpha = REAL(alpha);
        kc_check_interrupt();
        kc_smo(&in.k, &in.a, in.y, cc, &in.opt, &res);
        const char *extra[] = {"start"};
        SET_VECTOR_ELT(fits, c, solution(alpha, &res, 1, extra, &start));
        UNPROTECT(2);
        int finite = R_FINITE(res.rho) && R_FINITE(res.objective);
        for (R_xlen_t i = 0; i < m && finite; i++) finite = R_FINITE(REAL(alpha)[i]);
        if (!finite || res.status == KC_SMO_UNBOUNDED) break;
        prev = REAL(alpha);
        Cprev = cc;
    }
    const char *names[] = {"fits", "plan", "bytes", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, fits);
    SET_VECTOR_ELT(out, 1, mkString(kc_svm_store_name(plan.store)));
    SET_VECTOR_ELT(out, 2, ScalarReal(plan.bytes));
    UNPROTECT(3);
    return out;
}
