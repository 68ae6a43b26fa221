/* Every .Call entry point (the ffi*.c files), declared once: init.c
 * registers them with these arities and each defining file includes this
 * header, so the compiler checks that the two agree. */
#ifndef KERNCLASS_FFI_ENTRY_H
#define KERNCLASS_FFI_ENTRY_H

#include <Rinternals.h>

/* ffi-kernel.c */
SEXP ffi_kernel_matrix(SEXP x, SEXP y, SEXP spec, SEXP threads);
SEXP ffi_kernel_matrix_float(SEXP x, SEXP y, SEXP spec, SEXP threads);
SEXP ffi_kernel_diag(SEXP x, SEXP spec);
SEXP ffi_kernel_expansion(SEXP x, SEXP train, SEXP weights, SEXP spec, SEXP threads);
SEXP ffi_within_sums(SEXP train, SEXP group, SEXP ngroups, SEXP spec, SEXP threads);
SEXP ffi_loo_sums(SEXP train, SEXP group, SEXP ngroups, SEXP spec, SEXP threads);
SEXP ffi_kernel_table(void);
SEXP ffi_engine(void);

/* ffi-svm.c: the SVM's one solve entry, its planner, the path's kept buffers */
SEXP ffi_svm_solve(SEXP problems, SEXP options);
SEXP ffi_svm_plan(SEXP problems, SEXP options);
SEXP ffi_svm_path_kept(void);
SEXP ffi_svm_path_kept_free(SEXP ptr);

/* ffi-misc.c */
SEXP ffi_threshold_search(SEXP score, SEXP y);
SEXP ffi_pairwise_coupling(SEXP r, SEXP nclass, SEXP threads);
SEXP ffi_threads(SEXP option, SEXP cores);
SEXP ffi_column_moments(SEXP x);
SEXP ffi_scale_columns(SEXP x, SEXP center, SEXP scale);
SEXP ffi_count_nonfinite(SEXP x);
SEXP ffi_pm1(SEXP y, SEXP codes);
SEXP ffi_enums(void);

/* ffi-features.c */
SEXP ffi_feature_sums(SEXP x, SEXP group, SEXP ngroups, SEXP map, SEXP spec, SEXP threads);
SEXP ffi_feature_product(SEXP x, SEXP w, SEXP map, SEXP spec, SEXP threads);
SEXP ffi_feature_store(SEXP x, SEXP map, SEXP spec, SEXP threads);
SEXP ffi_store_product(SEXP store, SEXP r, SEXP rows, SEXP w);
SEXP ffi_linear_svm(SEXP store, SEXP r, SEXP rows, SEXP y, SEXP C, SEXP tolerance,
                    SEXP max_pass, SEXP shrinking);
SEXP ffi_linear_many(SEXP store, SEXP r, SEXP rows, SEXP y, SEXP C, SEXP tolerance,
                     SEXP max_pass, SEXP shrinking, SEXP threads);
SEXP ffi_kmeanspp(SEXP x, SEXP spec, SEXP m, SEXP threads);
SEXP ffi_triangular_inverse(SEXP R, SEXP threads);

#endif
