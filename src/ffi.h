/* The .Call layer's shared argument unpacking (ffi.c), for the entry points
 * of the ffi-*.c files: each checks what it is given and raises
 * kc_internal() otherwise. */
#ifndef KERNCLASS_FFI_H
#define KERNCLASS_FFI_H

#include <Rinternals.h>
#include "kernel.h"

/* The element of list x named name, or R_NilValue. */
SEXP kc_list_elt(SEXP x, const char *name);
/* The same where it must be there: an internal error names it otherwise. */
SEXP kc_list_need(SEXP x, const char *name);
/* 1-based indices in 1..limit from R into 0-based C ints (R_alloc'd). */
const int *kc_index_from(SEXP v, R_xlen_t n, R_xlen_t limit, const char *what);
/* The points of a dense double matrix or of a source (R/input-sources.R). */
kc_points kc_points_from(SEXP x, const char *what);
/* Two sets of points a kernel can join. */
void kc_check_pair(const kc_kernel *k, const kc_points *a, const kc_points *b,
                   const char *wa, const char *wb);
/* A kernel from its spec c(code, gamma, degree, coef0); a set of kernels of
 * one type from a 4 x nk spec. */
kc_kernel kc_kernel_from(SEXP spec);
/* The same, for the SVM's solves: single precision where
 * kernclass.svm.precision asks for it (kc_single_precision_option). */
kc_kernel kc_svm_kernel_from(SEXP spec);
const kc_kernel *kc_kernel_set_from(SEXP spec, int *nk);
/* The threads granted for one positive integer asked for. */
int kc_threads_from(SEXP threads);
/* 1-based group codes from R into 0-based C ints, and their number. */
const int *kc_groups_from(SEXP group, R_xlen_t n, SEXP ngroups, int *G);
/* An nrow x ncol double matrix, or a size error where R cannot hold it. */
SEXP kc_alloc_result(R_xlen_t nrow, R_xlen_t ncol);
void kc_double_matrix(SEXP x, const char *what);

#endif
