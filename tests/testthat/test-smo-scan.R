# The SMO's passes over the active set run as one chunk on one thread (called
# directly) or as several chunks in parallel, combined in chunk order: the
# iterates must not depend on which, nor on whether the kernel rows come from
# a whole store or from the cache; and what they reach must satisfy the KKT
# conditions, checked here in plain R from the kernel matrix.

ns <- asNamespace("kernclass")

# (linear -1: C-SVC; 0: nu-SVC with two sets, else the one-class problem)
smo_fit <- function(x, yb, C, plan, threads, shrinking, mb = 100, linear = -1,
                    alpha0 = NULL, nsets = 1L) {
  type <- if (linear == -1) "C-classification" else if (nsets == 2L) "nu-classification" else
    "one-classification"
  r <- smo_solve(x, yb, C, c(3, 0.3, 3, 0), plan, cachesize = mb, threads = threads,
                 shrinking = shrinking, type = type, alpha0 = alpha0)
  expect_identical(r$plan, plan)
  r
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
                     smo_fit(x, yb, C, "cache", 1L, shrinking),
                     smo_fit(x, yb, C, "cache", 2L, shrinking, mb = 1))
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
  a <- smo_fit(x, rep(1L, n), C, "cache", 1L, TRUE, mb = 1, linear = 0, alpha0 = a0)
  b <- smo_fit(x, rep(1L, n), C, "cache", 2L, TRUE, linear = 0, alpha0 = a0)
  expect_identical(a$alpha, b$alpha)
  expect_identical(a$iterations, b$iterations)
  expect_lt(kkt_gap(K, rep(1L, n), C, a$alpha, 0), 1e-3 + 1e-4)
  # (from the cache both: a whole store rebuilds shrunk gradients from float
  # rows, which kernel_svm uses for C-SVC alone)
  a0 <- ns$kc_svm_start(C, yb, 0.3 * n / 2)
  a <- smo_fit(x, yb, C, "cache", 1L, TRUE, linear = 0, alpha0 = a0, nsets = 2L)
  b <- smo_fit(x, yb, C, "cache", 2L, TRUE, mb = 1, linear = 0, alpha0 = a0, nsets = 2L)
  expect_identical(a$alpha, b$alpha)
  expect_identical(a$rho, b$rho)
  expect_identical(a$iterations, b$iterations)
  for (cls in c(1L, -1L)) expect_lt(kkt_gap(K, yb, C, a$alpha, 0, yb == cls), 1e-3 + 1e-4)
})

test_that("SMO iterates follow LIBSVM's second-order working-set selection", {
  # A plain-R SMO with the working-set selection of Fan, Chen and Lin (2005)
  # (WSS 2, as LIBSVM): j minimises -(Gmax - v_t)^2 / (K_ii + K_tt - 2 K_it)
  # for every t, whatever its class (kernclass once used K_ii + K_tt + 2 K_it
  # when t and i are of opposite classes, which took up to 10 times as many
  # iterations). Without shrinking, kernel_svm() must take the same steps:
  # the same objective after each of the first steps.
  ref_smo <- function(K, y, C, iters) {
    n <- length(y)
    a <- numeric(n)
    G <- rep(-1, n)
    QD <- diag(K)
    for (it in seq_len(iters)) {
      up <- (y == 1 & a < C) | (y == -1 & a > 0)
      low <- (y == 1 & a > 0) | (y == -1 & a < C)
      v <- -y * G
      iu <- which(up)
      i <- iu[max(which(v[iu] == max(v[iu])))]  # of equal candidates the last, as LIBSVM
      gd <- v[i] - v
      cand <- which(low & gd > 0)
      quad <- QD[i] + QD[cand] - 2 * K[i, cand]
      quad[quad <= 0] <- 1e-12
      obj <- -gd[cand]^2 / quad
      j <- cand[max(which(obj == min(obj)))]
      # the two-variable step along y_i e_i - y_j e_j, clipped to the box
      qij <- QD[i] + QD[j] - 2 * K[i, j]
      t <- (v[i] - v[j]) / qij
      lo <- max(if (y[i] == 1) -a[i] else a[i] - C, if (y[j] == 1) a[j] - C else -a[j])
      hi <- min(if (y[i] == 1) C - a[i] else a[i], if (y[j] == 1) a[j] else C - a[j])
      t <- min(max(t, lo), hi)
      da <- numeric(n)
      da[i] <- y[i] * t
      da[j] <- -y[j] * t
      a <- a + da
      G <- G + (y * K %*% (y * da))[, 1]
    }
    list(alpha = a, objective = 0.5 * sum(a * (G - 1)))
  }
  set.seed(8)
  n <- 30
  x <- rbind(matrix(stats::rnorm(2 * n), n) + 0.7, matrix(stats::rnorm(2 * n), n) - 0.7)
  y <- rep(c(1, -1), each = n)
  K <- ref_kernel(x, x, "rbf", 0.5)  # helper-reference.R
  for (k in 1:6) {
    fit <- suppressWarnings(kernel_svm(x, factor(y, levels = c(1, -1)), kernel = "rbf",
                                       gamma = 0.5, cost = 1, scale = FALSE, shrinking = FALSE,
                                       max_iter = k))
    ref <- ref_smo(K, y, 1, k)
    expect_equal(unname(fit$objective), ref$objective, tolerance = 1e-6,
                 label = paste("objective after", k, "SMO steps"))
  }
})

test_that("kkt_violation is never negative (0 when the KKT conditions hold strictly)", {
  fit <- kernel_svm(iris[, 1:4], iris$Species, kernel = "linear", cost = 0.01)
  expect_true(all(fit$kkt_violation >= 0))
  expect_true(all(fit$kkt_violation < fit$tolerance))
})
