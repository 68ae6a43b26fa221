/* Registration of the .Call entry points (the ffi*.c files, declared in
 * ffi-entry.h): exact arities, no dynamic lookup. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include "isa.h"
#include "threads.h"
#include "ffi-entry.h"


/* Through void (*)(void), the generic function pointer type that casts to
 * and from any other without a -Wcast-function-type warning. */
#define CALLDEF(name, n) {#name, (DL_FUNC) (void (*)(void)) &name, n}

static const R_CallMethodDef call_methods[] = {
    CALLDEF(ffi_kernel_matrix, 4),
    CALLDEF(ffi_kernel_matrix_float, 4),
    CALLDEF(ffi_kernel_expansion, 5),
    CALLDEF(ffi_within_sums, 5),
    CALLDEF(ffi_loo_sums, 5),
    CALLDEF(ffi_svm_solve, 2),
    CALLDEF(ffi_svm_plan, 2),
    CALLDEF(ffi_svm_path_kept, 0),
    CALLDEF(ffi_svm_path_kept_free, 1),
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
