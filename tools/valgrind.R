# Exercises every C entry point (all kernels, partial tiles, bad calls, small
# SMO caches) for bash tools/check.sh valgrind, before the test suite: any
# invalid read or write makes valgrind fail.
library(kernclass)
set.seed(2)
x <- matrix(rnorm(300*7), 300); y <- factor(sample(letters[1:3], 300, TRUE))
for (k in c("linear","polynomial","rbf","laplace","sigmoid")) {
  K <- kernel_matrix(x, x[1:130,], kernel = k); K <- kernel_matrix(x, kernel = k)
  f <- kernel_means(x, y, kernel = k); p <- predict(f, x[1:200,], type = "decision")
  f <- kernel_parzen(x, y, kernel = k); p <- predict(f, x[1:3,], type = "decision")
}
f <- kernel_means(x[1:1,,drop=FALSE][c(1,1),], factor(c("a","b")))
try(.Call(kernclass:::ffi_kernel_expansion, x, x, matrix(1, 299, 2), c(3, 1, 3, 0), 2L))
try(.Call(kernclass:::ffi_kernel_expansion, x, x, matrix(NA_real_, 300, 2), c(3, 1, 3, 0), 2L))
try(.Call(kernclass:::ffi_kernel_matrix, x, NULL, c(9, 1, 3, 0), 2L))
try(.Call(kernclass:::ffi_kernel_matrix, "a", NULL, c(3, 1, 3, 0), 2L))
# the SMO solver: small cache (batches of one row), shrinking, hard margin, errors
yb <- ifelse(y == "a", 1L, -1L)
for (k in c(1, 3, 4)) {
  r <- .Call(kernclass:::ffi_smo, x, yb, rep(1, 300), c(k, 0.2, 3, 0), 1e-3, 1e5, 0.5, TRUE, 2L, NULL, NULL)
  r <- .Call(kernclass:::ffi_smo, x, yb, rep(1, 300), c(k, 0.2, 3, 0), 1e-3, 1e5, 100, TRUE, 2L, NULL, NULL)
}
r <- .Call(kernclass:::ffi_smo, x, yb, rep(Inf, 300), c(1, 1, 3, 0), 1e-3, 1e5, 100, TRUE, 2L, NULL, NULL)
f <- kernel_svm(x, y, probability = TRUE)
p <- predict(f, x[1:10, ], type = "prob")
try(.Call(kernclass:::ffi_smo, x, yb[-1], rep(1, 300), c(3, 1, 3, 0), 1e-3, 10, 1, TRUE, 2L, NULL, NULL))
r <- threshold_search(rnorm(1000), sample(c(-1, 1), 1000, TRUE))
f <- kernel_bayes(x, y, type = 3)
