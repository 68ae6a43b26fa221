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
# one binary problem through the solve entry: keep NULL (alone: the whole
# kernel where cachesize holds it, else the cache), 0 (a path without room
# for a store: the cache) or Inf (a new kept store)
smo <- function(yy, C, spec, mb = 1, type = "C-classification", keep = NULL, ...) {
  .Call(kernclass:::ffi_svm_solve, list(kind = "binary", x = x, y = yy, C = C, ...),
        list(kernel = spec, type = type, tolerance = 1e-3, max_iter = 1e5, cachesize = mb,
             shrinking = TRUE, threads = 2L, keep = keep))
}
for (k in c(1, 3, 4)) {
  for (mb in c(0.5, 100)) {
    r <- smo(yb, rep(1, 300), c(k, 0.2, 3, 0), mb, keep = 0)
    r <- smo(yb, rep(1, 300), c(k, 0.2, 3, 0), mb, test = x[1:20, ])
  }
  # a kept store (a path of costs): a new one, then the next cost warm-started on it
  r <- smo(yb, rep(1, 300), c(k, 0.2, 3, 0), keep = Inf)
  r <- smo(yb, rep(10, 300), c(k, 0.2, 3, 0), keep = Inf, store = r$store,
           warm = list(alpha = r$alpha, C = rep(1, 300)))
  # the nu types: a feasible start, two sets (classes that leave a margin)
  z <- x[, 1] + x[, 2]
  kn <- c("linear", "", "rbf", "laplace")[k]
  f <- kernel_svm(x, cut(z, quantile(z, 0:3 / 3), include.lowest = TRUE), kernel = kn,
                  gamma = 0.2, type = "nu-classification", nu = 0.6, cachesize = 0.5)
  f <- kernel_svm(x, kernel = kn, gamma = 0.2, type = "one-classification", nu = 0.3,
                  cachesize = 0.5)
}
try(smo(yb, rep(1, 300), c(3, 1, 3, 0), type = "nu-classification", alpha0 = rep(2, 300)))
r <- smo(yb, rep(Inf, 300), c(1, 1, 3, 0), 100)
f <- kernel_svm(x, y, probability = TRUE)
p <- predict(f, x[1:10, ], type = "prob")
try(smo(yb[-1], rep(1, 300), c(3, 1, 3, 0)))
r <- threshold_search(rnorm(1000), sample(c(-1, 1), 1000, TRUE))
f <- kernel_bayes(x, y, type = 3)
