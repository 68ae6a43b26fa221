/* The SVM solve's planner (svm-plan.h): every choice of a store for the
 * kernel rows, in one place.  Whichever store a plan picks, the solution
 * is the same (smo.c reads the same float kernel values from each); the
 * plan changes speed and memory only. */
#include <math.h>
#include "kernclass.h"
#include "kernel.h"
#include "svm-path.h"
#include "svm-plan.h"

const char *kc_svm_store_name(kc_svm_store store)
{
    switch (store) {
    case KC_STORE_CACHE: return "cache";
    case KC_STORE_WHOLE: return "whole";
    case KC_STORE_KEPT: return "kept";
    case KC_STORE_PAIRS: return "pairs";
    case KC_STORE_APART: return "apart";
    }
    return "";
}

/* A cost path keeps a store where its budget holds one (a source other
 * than rows fills it row by row, as asked); alone, C- and nu-SVC on dense
 * or sparse rows compute every row at once where the cache would hold them
 * all (25-40% less CPU than the cache's bookkeeping at n = 2,000-5,000).
 * The one-class SVM asks for few rows (n = 5,000, nu = 0.1: the whole
 * kernel took 0.07 s, the cache 0.025 s): it keeps the cache. */
kc_svm_binary_plan kc_svm_plan_binary(double n, kc_source src, kc_svm_type type,
                                      double cache_mb, int in_path, double budget)
{
    kc_svm_binary_plan plan = {KC_STORE_CACHE, 0, 0, 0};
    double bytes = kc_svm_store_bytes(n);
    int rows = type != KC_SVM_ONE && (src == KC_SRC_DENSE || src == KC_SRC_SPARSE);
    if (in_path) {
        if (bytes <= budget) plan = (kc_svm_binary_plan) {KC_STORE_KEPT, 1, rows, bytes};
    } else if (rows && bytes <= cache_mb * 1048576.0) {
        plan = (kc_svm_binary_plan) {KC_STORE_WHOLE, 1, 1, bytes};
    }
    return plan;
}

int kc_svm_pairs_kind(kc_svm_type type, const kc_points *x, const kc_kernel *k)
{
    return type == KC_SVM_C && x->src == KC_SRC_DENSE && !x->rowmap &&
           kc_kernel_uses_distance(k->type);
}

kc_svm_store kc_svm_plan_pairs(kc_svm_type type, const kc_points *x, const kc_kernel *k,
                               double mmax, double cache_mb)
{
    return kc_svm_pairs_kind(type, x, k) && kc_svm_store_bytes(mmax) <= cache_mb * 1048576.0
               ? KC_STORE_PAIRS : KC_STORE_APART;
}

/* The path within the budget, its results counted; with more than two
 * classes on the folds' own inputs (scaled per fold, or one fold run) the
 * held-out rows' kernel with the training rows once per fold run (doubles),
 * each pair's decision values read from it (1 / (L - 1) of the work of
 * each pair's own), and the training rows' with themselves (floats), each
 * pair's block copied from it, where the budget holds them: fold_kernel 2,
 * or 1 the held-out one alone, 0 neither. */
kc_svm_path_plan kc_svm_plan_path(double n, int nclass, double m, double t, double trained,
                                  int nx, int nrun, double inputs, double ncost, double budget)
{
    kc_svm_path_plan plan = {0, 0, kc_svm_path_bytes_once(n, nx, nrun),
                             kc_svm_path_bytes_thread(m, t), inputs,
                             kc_svm_path_bytes_results(n, nclass, ncost, nrun)};
    double rest = plan.thread + inputs + plan.results;
    if (plan.once + rest > budget) return plan;
    plan.fits = 1;
    if (nclass > 2 && (nx > 1 || nrun == 1)) {
        for (int mode = 2; mode >= 1; mode--) {
            double once = 8 * t * trained + (mode == 2 ? 4 * trained * trained : 0);
            if (once + rest <= budget) {
                plan.fold_kernel = mode;
                plan.once = once;
                break;
            }
        }
    }
    return plan;
}

int kc_svm_plan_path_calls(const double *once, const double *thread, const double *inputs,
                           const double *results, int nplans, double budget, int *call)
{
    int c = 0;
    double o = 0, th = 0, in = 0, res = 0;
    for (int j = 0; j < nplans; j++) {
        double o2 = fmax(o, once[j]), th2 = fmax(th, thread[j]), in2 = fmax(in, inputs[j]),
               res2 = res + results[j];
        if (j > 0 && o2 + th2 + in2 + res2 > budget) {
            c++;
            o2 = once[j];
            th2 = thread[j];
            in2 = inputs[j];
            res2 = results[j];
        }
        o = o2;
        th = th2;
        in = in2;
        res = res2;
        call[j] = c;
    }
    return nplans > 0 ? c + 1 : 0;
}

int kc_svm_plan_path_threads(const double *once, const double *thread, const double *inputs,
                             const double *results, int nplans, double budget, int nthreads)
{
    double o = 0, th = 0, in = 0, res = 0;
    for (int j = 0; j < nplans; j++) {
        if (once[j] > o) o = once[j];
        if (thread[j] > th) th = thread[j];
        if (inputs[j] > in) in = inputs[j];
        res += results[j];
    }
    double fits = floor((budget - o - in - res) / th);
    if (fits < nthreads) return fits >= 1 ? (int) fits : 1;
    return nthreads;
}
