/* What the SVM solve entry's files share (ffi-svm.c, ffi-svm-binary.c):
 * the options read by name, and the binary kinds' solves and plans. */
#ifndef KERNCLASS_FFI_SVM_H
#define KERNCLASS_FFI_SVM_H

#include <Rinternals.h>
#include "smo.h"
#include "svm-plan.h"

/* options$type, a number options$name, the solver's settings every kind
 * reads (the type's linear term and index sets, tolerance, max_iter,
 * shrinking, threads), options$cachesize */
kc_svm_type kc_svm_type_from(SEXP options);
double kc_svm_number_from(SEXP options, const char *name);
kc_smo_options kc_svm_solver_from(SEXP options, kc_svm_type type);
double kc_svm_cache_from(SEXP options);

/* A solution's fields 1-7 of out (rho, objective, iterations, status, gap,
 * rows_computed, r), in the order every kind names them */
void kc_svm_set_result(SEXP out, const kc_smo_result *res);

/* kind "binary" and kind "costs" (ffi-svm-binary.c), and their plans */
SEXP kc_svm_solve_binary(SEXP pr, SEXP options);
SEXP kc_svm_solve_costs(SEXP pr, SEXP options);
kc_svm_binary_plan kc_svm_binary_plan_from(SEXP options, const kc_points *a);
kc_svm_binary_plan kc_svm_costs_plan_from(SEXP options, const kc_points *a);

#endif
