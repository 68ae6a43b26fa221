# The SMO's passes over the active set run as one chunk on one thread (called
# directly) or as several chunks in parallel, combined in chunk order: the
# iterates must not depend on which, nor on whether the kernel rows come from
# a whole store or from the cache; and what they reach must satisfy the KKT
# conditions, checked here in plain R from the kernel matrix.

ns <- asNamespace("kernclass")

smo_fit <- function(x, yb, C, store, threads, shrinking, mb = 100, linear = -1,
                    alpha0 = NULL, nsets = 1L) {
  .Call(ns$ffi_smo, x, yb, C, c(3, 0.3, 3, 0), 1e-3, 1e6, mb, shrinking, threads, linear,
        alpha0, nsets, store)
}

# m(a) - M(a): the largest violation of the KKT conditions of
# min 1/2 a'Qa + p sum(a), 0 <= a <= C, y'a = 0, Q = y y' K, in double, over
# the variables of `set` (nu-SVC: each class, the pairs chosen within one)
kkt_gap <- function(K, yb, C, a, linear, set = TRUE) {
  G <- yb * drop(K %*% (a * yb)) + linear
  v <- -yb * G
  up <- (yb == 1 & a < C) | (yb == -1 & a > 0)
  low <- (yb == 1 & a > 0) | (yb == -1 & a < C)
  max(v[up & set]) - min(v[low & set])
}

test_that("a shrink that would keep more than half of the variables is not made", {
  # a radial rule in 2 of 20 inputs at a large cost: every shrink the solver
  # tries keeps more than half of its 600 variables, so with shrinking it
  # takes the steps it takes without (before: 13,274 iterations, not 13,314)
  set.seed(5)
  n <- 600
  x <- matrix(rnorm(n * 20), n)
  y <- factor(ifelse(x[, 1]^2 + x[, 2]^2 > qchisq(0.5, 2), "out", "in"))
  a <- kernel_svm(x, y, cost = 100, gamma = 0.0056, scale = FALSE, shrinking = TRUE)
  b <- kernel_svm(x, y, cost = 100, gamma = 0.0056, scale = FALSE, shrinking = FALSE)
  expect_gt(a$iterations, 1000)  # shrinks were tried (every 1,000 iterations)
  expect_identical(a$iterations, b$iterations)
  expect_identical(a$coefs, b$coefs)
  expect_identical(a$rho, b$rho)
})

test_that("one chunk or several, whole store or cache: the same iterates, and optimal", {
  set.seed(31)
  n <- 1400  # above the size from which a pass may run in chunks
  x <- matrix(rnorm(n * 4), n)
  yb <- ifelse(x[, 1] + x[, 2]^2 / 2 + rnorm(n) > 0.5, 1L, -1L)
  K <- kernel_matrix(x, kernel = "rbf", gamma = 0.3)
  for (weighted in c(FALSE, TRUE)) {
    C <- if (weighted) runif(n, 0.2, 20) else rep(5, n)
    for (shrinking in c(TRUE, FALSE)) {
      one <- smo_fit(x, yb, C, "whole", 1L, shrinking)
      expect_identical(one$status, 0L)
      expect_lt(kkt_gap(K, yb, C, one$alpha, -1), 1e-3 + 1e-4)
      expect_equal(sum(one$alpha * yb), 0, tolerance = 1e-8)
      expect_true(all(one$alpha >= 0 & one$alpha <= C))
      others <- list(smo_fit(x, yb, C, "whole", 2L, shrinking),
                     smo_fit(x, yb, C, NULL, 1L, shrinking),
                     smo_fit(x, yb, C, NULL, 2L, shrinking, mb = 1))
      for (o in others) {
        expect_identical(o$alpha, one$alpha)
        expect_identical(o$rho, one$rho)
        expect_identical(o$iterations, one$iterations)
        expect_identical(o$status, one$status)
      }
    }
  }
  # the one-class problem (all y = +1, sum(a) fixed) and nu-SVC (two sets)
  C <- rep(1, n)
  a0 <- ns$kc_svm_start(C, rep(1L, n), 0.2 * n)
  a <- smo_fit(x, rep(1L, n), C, NULL, 1L, TRUE, mb = 1, linear = 0, alpha0 = a0)
  b <- smo_fit(x, rep(1L, n), C, NULL, 2L, TRUE, linear = 0, alpha0 = a0)
  expect_identical(a$alpha, b$alpha)
  expect_identical(a$iterations, b$iterations)
  expect_lt(kkt_gap(K, rep(1L, n), C, a$alpha, 0), 1e-3 + 1e-4)
  # (from the cache both: a whole store rebuilds shrunk gradients from float
  # rows, which kernel_svm uses for C-SVC alone)
  a0 <- ns$kc_svm_start(C, yb, 0.3 * n / 2)
  a <- smo_fit(x, yb, C, NULL, 1L, TRUE, linear = 0, alpha0 = a0, nsets = 2L)
  b <- smo_fit(x, yb, C, NULL, 2L, TRUE, mb = 1, linear = 0, alpha0 = a0, nsets = 2L)
  expect_identical(a$alpha, b$alpha)
  expect_identical(a$rho, b$rho)
  expect_identical(a$iterations, b$iterations)
  for (cls in c(1L, -1L)) expect_lt(kkt_gap(K, yb, C, a$alpha, 0, yb == cls), 1e-3 + 1e-4)
})
