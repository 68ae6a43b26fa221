# Exercises every C entry point (all kernels, partial tiles, bad calls) for
# tools/valgrind.sh: any invalid read or write makes valgrind fail.
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
