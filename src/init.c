/* Registration of the .Call entry points (the ffi*.c files): exact
 * arities, no dynamic lookup. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include "isa.h"
#include "threads.h"

SEXP ffi_kernel_matrix(SEXP, SEXP, SEXP, SEXP);
SEXP ffi_kernel_expansion(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_within_sums(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_loo_sums(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_smo(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP,
             SEXP);
SEXP ffi_svm_path(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_svm_path_kept(void);
SEXP ffi_svm_path_kept_free(SEXP);
SEXP ffi_svm_pairs(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_svm_bytes(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_svm_warm_start(SEXP, SEXP, SEXP, SEXP);
SEXP ffi_threshold_search(SEXP, SEXP);
SEXP ffi_engine(void);
SEXP ffi_threads(SEXP, SEXP);
SEXP ffi_column_moments(SEXP);
SEXP ffi_scale_columns(SEXP, SEXP, SEXP);
SEXP ffi_count_nonfinite(SEXP);
SEXP ffi_pm1(SEXP, SEXP);
SEXP ffi_pairwise_coupling(SEXP, SEXP, SEXP);
SEXP ffi_kernel_table(void);
SEXP ffi_kernel_diag(SEXP, SEXP);
SEXP ffi_feature_sums(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_feature_product(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_feature_store(SEXP, SEXP, SEXP, SEXP);
SEXP ffi_store_product(SEXP, SEXP, SEXP, SEXP);
SEXP ffi_linear_svm(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_linear_many(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_triangular_inverse(SEXP, SEXP);
SEXP ffi_enums(void);
SEXP ffi_kmeanspp(SEXP, SEXP, SEXP, SEXP);

/* Through void (*)(void), the generic function pointer type that casts to
 * and from any other without a -Wcast-function-type warning. */
#define CALLDEF(name, n) {#name, (DL_FUNC) (void (*)(void)) &name, n}

static const R_CallMethodDef call_methods[] = {
    CALLDEF(ffi_kernel_matrix, 4),
    CALLDEF(ffi_kernel_expansion, 5),
    CALLDEF(ffi_within_sums, 5),
    CALLDEF(ffi_loo_sums, 5),
    CALLDEF(ffi_smo, 13),
    CALLDEF(ffi_svm_path, 5),
    CALLDEF(ffi_svm_path_kept, 0),
    CALLDEF(ffi_svm_path_kept_free, 1),
    CALLDEF(ffi_svm_pairs, 8),
    CALLDEF(ffi_svm_bytes, 5),
    CALLDEF(ffi_svm_warm_start, 4),
    CALLDEF(ffi_threshold_search, 2),
    CALLDEF(ffi_engine, 0),
    CALLDEF(ffi_threads, 2),
    CALLDEF(ffi_column_moments, 1),
    CALLDEF(ffi_scale_columns, 3),
    CALLDEF(ffi_count_nonfinite, 1),
    CALLDEF(ffi_pm1, 2),
    CALLDEF(ffi_pairwise_coupling, 3),
    CALLDEF(ffi_kernel_table, 0),
    CALLDEF(ffi_kernel_diag, 2),
    CALLDEF(ffi_feature_sums, 6),
    CALLDEF(ffi_feature_product, 5),
    CALLDEF(ffi_feature_store, 4),
    CALLDEF(ffi_store_product, 4),
    CALLDEF(ffi_linear_svm, 8),
    CALLDEF(ffi_linear_many, 9),
    CALLDEF(ffi_triangular_inverse, 2),
    CALLDEF(ffi_enums, 0),
    CALLDEF(ffi_kmeanspp, 4),
    {NULL, NULL, 0}
};

void R_init_kernclass(DllInfo *dll)
{
    kc_choose_kernels();
    kc_threads_init();
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
}
