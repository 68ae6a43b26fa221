# The C engine's enums as R reads them: a list of named integer vectors of
# their codes, filled from C when the package loads (.onLoad, R/zzz.R), so
# that the codes have one home, the C headers, and R compares statuses by
# name (kc_c$smo_status[["max_iter"]]), never by a bare number. Their names
# are written once, in ffi_enums (src/ffi-misc.c):
#   kernel         the kernels (kc_kernel_type, src/kernel.h), named as the
#                  kernel table (R/table-kernels.R) names its rows: code = row - 1
#   smo_status     how kernel_svm()'s solver ended (src/smo.h): converged,
#                  max_iter, unbounded (cost = Inf, not separable)
#   path_status    a shared cost path's fit that the solver did not end
#                  (src/svm-path.h): not_finite, empty
#   linear_status  the linear SVM on features (src/linear.h): converged, max_pass
#   feature        the feature maps of the approximations (src/feature-map.h):
#                  nystrom, fourier, named as their `method`
#   error_kind     the kinds of C error (src/kernclass.h), the conditions'
#                  classes "kernclass_<kind>_error"
# tests/testthat/test-c-enums.R pins the kernel table and the feature maps
# to them.
kc_c <- NULL

kc_c_enums <- function() .Call(ffi_enums)
