# A long C computation must stop at a user interrupt (R_CheckUserInterrupt
# between parallel chunks). An elapsed-time limit is signalled through the
# same check, so it stands in for Ctrl-C: if the C code never checked, the
# .Call would return and the next expression would run instead
# (run_until_limit(), helper-reference.R).

set.seed(11)
n <- 80000
x <- matrix(rnorm(n * 100), n)
y <- rep(1:2, length.out = n)
spec <- c(3, 0.01, 3, 0)  # rbf: about 6e11 flops, over a second at 200 GFLOP/s a core

test_that("within-class sums stop at an interrupt and leave R usable", {
  msg <- run_until_limit(.Call(kernclass:::ffi_within_sums, x, y, 2L, spec, 2L))
  expect_match(msg, "time limit")
  small <- x[1:50, ]
  expect_equal(kernel_matrix(small, kernel = "linear"), tcrossprod(small), tolerance = 1e-12)
})

test_that("kernel expansions stop at an interrupt", {
  w <- cbind(y == 1, y == 2) + 0
  msg <- run_until_limit(.Call(kernclass:::ffi_kernel_expansion, x, x, w, spec, 2L))
  expect_match(msg, "time limit")
})

test_that("kernel sets (gammas sharing their distances) stop at an interrupt", {
  set3 <- c(spec, replace(spec, 2L, 0.1), replace(spec, 2L, 1))
  msg <- run_until_limit(.Call(kernclass:::ffi_within_sums, x, y, 2L, set3, 2L))
  expect_match(msg, "time limit")
  w <- cbind(y == 1, y == 2) + 0
  msg <- run_until_limit(.Call(kernclass:::ffi_kernel_expansion, x, x, w, set3, 2L))
  expect_match(msg, "time limit")
})

test_that("the Gram matrix stops at an interrupt", {
  big <- matrix(rnorm(6000 * 400), 6000)
  msg <- run_until_limit(.Call(kernclass:::ffi_kernel_matrix, big, NULL, spec, 2L))
  expect_match(msg, "time limit")
})

test_that("the SMO solver stops at an interrupt", {
  yb <- ifelse(x[1:20000, 1] + x[1:20000, 2] > 0, 1L, -1L)
  msg <- run_until_limit(smo_solve(x[1:20000, ], yb, rep(1, 20000), c(3, 0.001, 3, 0), "cache",
                                   cachesize = 50, threads = 2L, tolerance = 1e-6,
                                   max_iter = 1e9))
  expect_match(msg, "time limit")
  # the nu types: the first gradient from the start's kernel rows, then SMO
  start <- ifelse(seq_len(20000) <= 10000, 1, 0)  # sum(a) = nu n, nu = 0.5
  msg <- run_until_limit(smo_solve(x[1:20000, ], rep(1L, 20000), rep(1, 20000),
                                   c(3, 0.001, 3, 0), "cache", cachesize = 50, threads = 2L,
                                   type = "one-classification", alpha0 = start,
                                   tolerance = 1e-6, max_iter = 1e9))
  expect_match(msg, "time limit")
})

test_that("the shared SVM path stops at an interrupt with a progress handler on", {
  skip_if_not_installed("progressr")
  # R's thread tells the finished units to the handler between its polls:
  # the limit stops the search there too, and R is usable afterwards
  old <- options(kernclass.threads = 2L)
  on.exit(options(old))
  xs <- x[1:3000, 1:5]
  ys <- factor(ifelse(xs[, 1] + xs[, 2]^2 > 1, "a", "b"))
  tune <- function() {
    kernel_tune(kernel_svm, xs, ys, folds = 5, search = "exhaustive",
                grid = list(cost = c(0.1, 1, 10, 100), gamma = 2^(-4:4)))
  }
  msg <- run_until_limit(progressr::with_progress(tune(), handlers = progressr::handler_void(),
                                                  enable = TRUE))
  expect_match(msg, "time limit")
  expect_identical(sum(1:3), 6L)
})
