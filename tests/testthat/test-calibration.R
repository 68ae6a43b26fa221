# Platt scaling and pairwise coupling against independent computations.

testthat::local_edition(3)

platt <- kernclass:::kc_platt_fit
platt_prob <- kernclass:::kc_platt_prob
couple <- kernclass:::kc_pairwise_coupling

# Platt's regularised targets and the negative log-likelihood of the sigmoid
platt_targets <- function(label) {
  np <- sum(label)
  nn <- sum(!label)
  ifelse(label, (np + 1) / (np + 2), 1 / (nn + 2))
}

test_that("Platt: the maximum-likelihood fit of glm with Platt's targets", {
  set.seed(11)
  for (n in c(20, 100, 500)) {
    label <- runif(n) < 0.4
    dec <- ifelse(label, 1, -1) * 0.8 + rnorm(n)
    t <- platt_targets(label)
    g <- suppressWarnings(stats::glm(t ~ dec, family = stats::quasibinomial()))
    # P(first) = 1 / (1 + exp(A f + B)) = plogis(-(A f + B))
    AB <- platt(dec, label)
    expect_equal(unname(AB), unname(-rev(coef(g))), tolerance = 1e-5, info = n)
    expect_named(AB, c("A", "B"))
    # and of a general-purpose optimiser on the same objective
    nll <- function(par) {
      p <- plogis(-(par[1] * dec + par[2]))
      -sum(t * log(p) + (1 - t) * log(1 - p))
    }
    o <- stats::optim(c(0, 0), nll, method = "BFGS", control = list(reltol = 1e-14))
    expect_equal(unname(AB), o$par, tolerance = 1e-4, info = n)
  }
})

test_that("Platt: separable data give a finite sigmoid; probabilities in (0, 1)", {
  dec <- c(-3, -2, -1, 1, 2, 3)
  label <- dec > 0
  AB <- platt(dec, label)
  expect_true(all(is.finite(AB)))
  expect_lt(AB[["A"]], 0)
  p <- platt_prob(c(-1e6, -1, 0, 1, 1e6), AB[["A"]], AB[["B"]])
  expect_true(all(p >= 0 & p <= 1))
  expect_equal(p[2:4], plogis(-(AB[["A"]] * c(-1, 0, 1) + AB[["B"]])))
  expect_equal(p[c(1, 5)], c(0, 1))
})

test_that("coupling recovers p from consistent pairwise probabilities", {
  set.seed(12)
  for (k in 2:6) {
    p <- matrix(rexp(10 * k), 10, k)
    p <- p / rowSums(p)
    pairs <- t(utils::combn(k, 2))
    r <- p[, pairs[, 1], drop = FALSE] / (p[, pairs[, 1], drop = FALSE] +
                                           p[, pairs[, 2], drop = FALSE])
    expect_equal(couple(r), p, tolerance = 1e-6, info = k)
  }
})

# the minimiser of sum_{i != j} (r_ji p_i - r_ij p_j)^2 with sum(p) = 1,
# eliminating p_k = 1 - sum(p_1..p_{k-1}): an ordinary least squares problem
ref_coupling <- function(r, k) {
  pairs <- t(utils::combn(k, 2))
  A <- NULL
  for (m in seq_len(nrow(pairs))) {
    i <- pairs[m, 1]
    j <- pairs[m, 2]
    row <- numeric(k)
    row[i] <- 1 - r[m]      # r_ji p_i
    row[j] <- -r[m]         # - r_ij p_j
    A <- rbind(A, row, -row)
  }
  # A p with p = c(q, 1 - sum(q)): (A[, -k] - A[, k]) q + A[, k]
  X <- A[, -k, drop = FALSE] - A[, k]
  q <- qr.solve(X, -A[, k])
  c(q, 1 - sum(q))
}

test_that("coupling is the least-squares solution on the simplex", {
  set.seed(13)
  for (k in 3:5) {
    M <- k * (k - 1) / 2
    r <- matrix(runif(8 * M, 0.05, 0.95), 8, M)
    got <- couple(r)
    ref <- t(apply(r, 1, ref_coupling, k = k))
    expect_equal(got, ref, tolerance = 1e-8, info = k)
    expect_true(all(got >= 0))
    expect_equal(rowSums(got), rep(1, 8))
  }
  # extreme pairwise probabilities are kept inside (0, 1) first
  r <- matrix(c(1, 1, 0), 1)
  p <- couple(r)
  expect_true(all(is.finite(p)) && all(p >= 0))
  expect_equal(sum(p), 1)
  expect_equal(which.max(p), 1L)
})

test_that("coupling in C is the R transcription, k = 2..7, extreme r included", {
  set.seed(14)
  for (k in 2:7) {
    M <- k * (k - 1) / 2
    n <- 300
    r <- matrix(runif(n * M), n, M)
    # pairs near certainty either way, exact 0 and 1, and the clipping edge
    extreme <- c(0, 1, 1e-300, 1e-12, 1e-8, 1e-7, 2e-7, 1 - 1e-7, 1 - 1e-9, 1 - 1e-15)
    r[1:100, ] <- sample(extreme, 100 * M, TRUE)
    r[101:200, ] <- ifelse(runif(100 * M) < 0.5, sample(extreme, 100 * M, TRUE), r[101:200, ])
    got <- couple(r)
    ref <- ref_pairwise_coupling(r)
    expect_equal(got, ref, tolerance = 1e-10, info = k)
    expect_true(all(got >= 0 & got <= 1), info = k)
    expect_equal(rowSums(got), rep(1, n), tolerance = 1e-14, info = k)
    # rows are independent: any thread count, the same numbers
    expect_identical(with_threads(1L, couple(r)), with_threads(2L, couple(r)), info = k)
  }
  # one row, no rows
  expect_equal(couple(matrix(c(0.9, 0.2, 0.6), 1)), ref_pairwise_coupling(matrix(c(0.9, 0.2, 0.6), 1)),
               tolerance = 1e-12)
  expect_identical(dim(couple(matrix(0, 0, 6))), c(0L, 4L))
})

test_that("coupling: many rows on threads as on one; bad input is an internal error", {
  set.seed(15)
  r <- matrix(runif(20000 * 10), 20000, 10)  # enough work for the threads
  expect_identical(with_threads(1L, couple(r)), with_threads(2L, couple(r)))
  expect_equal(couple(r[1:50, ]), ref_pairwise_coupling(r[1:50, ]), tolerance = 1e-10)
  expect_error(couple(matrix(0.5, 2, 4)), "k\\(k-1\\)/2")
  expect_error(couple(matrix(c(0.5, NA, 0.5), 1)), "probabilities in")
  expect_error(couple(matrix(c(0.5, 1.5, 0.5), 1)), "probabilities in")
  ffi <- asNamespace("kernclass")$ffi_pairwise_coupling
  expect_error(.Call(ffi, matrix(0.5, 1, 3), 4L, 1L), "columns")
  expect_error(.Call(ffi, matrix(0.5, 1, 3), 1L, 1L), "nclass")
  expect_error(.Call(ffi, matrix(1L, 1, 3), 3L, 1L), "double matrix")
  expect_error(.Call(ffi, matrix(0.5, 1, 3), 3L, NA_integer_), "threads")
})

test_that("coupling's entry point under gctorture: same result, clean errors", {
  ffi <- asNamespace("kernclass")$ffi_pairwise_coupling
  r <- matrix(c(0.9, 0.2, 0.6, 0.3, 0.5, 0.99), 2, 3)
  expected <- .Call(ffi, r, 3L, 1L)
  gctorture(TRUE)
  got <- tryCatch(.Call(ffi, r, 3L, 1L), error = function(e) e)
  err <- tryCatch(.Call(ffi, r, 4L, 1L), error = function(e) e)
  gctorture(FALSE)
  expect_identical(got, expected)
  expect_match(conditionMessage(err), "kernclass internal")
})
