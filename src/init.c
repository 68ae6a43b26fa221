/* Registration of the .Call entry points: exact arities, no dynamic lookup. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include "kernclass.h"

SEXP ffi_kernel_matrix(SEXP, SEXP, SEXP, SEXP);
SEXP ffi_kernel_expansion(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_within_sums(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_smo(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP ffi_threshold_search(SEXP, SEXP);
SEXP ffi_engine(void);

static const R_CallMethodDef call_methods[] = {
    {"ffi_kernel_matrix", (DL_FUNC) &ffi_kernel_matrix, 4},
    {"ffi_kernel_expansion", (DL_FUNC) &ffi_kernel_expansion, 5},
    {"ffi_within_sums", (DL_FUNC) &ffi_within_sums, 5},
    {"ffi_smo", (DL_FUNC) &ffi_smo, 9},
    {"ffi_threshold_search", (DL_FUNC) &ffi_threshold_search, 2},
    {"ffi_engine", (DL_FUNC) &ffi_engine, 0},
    {NULL, NULL, 0}
};

void R_init_kernclass(DllInfo *dll)
{
    kc_choose_kernels();
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
}
