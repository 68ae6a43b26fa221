# kernel_matrix() against plain-R transcriptions of the kernel formulas and
# against kernlab::kernelMatrix().  Expected values never come from the
# package itself.

all_kernels <- c("linear", "polynomial", "rbf", "laplace", "sigmoid")

test_that("every kernel matches the plain-R formula, with and without y", {
  set.seed(101)
  x <- matrix(rnorm(37 * 4), 37)
  y <- matrix(rnorm(23 * 4), 23)
  pars <- list(list(gamma = 0.3, degree = 2, coef0 = 0.5),
               list(gamma = 1.7, degree = 3, coef0 = -0.25),
               list(gamma = 0.05, degree = 1, coef0 = 0))
  for (k in all_kernels) {
    for (pr in pars) {
      got_xy <- kernel_matrix(x, y, kernel = k, gamma = pr$gamma, degree = pr$degree,
                              coef0 = pr$coef0)
      exp_xy <- ref_kernel(x, y, k, pr$gamma, pr$degree, pr$coef0)
      expect_equal(dim(got_xy), c(37L, 23L))
      expect_equal(got_xy, exp_xy, tolerance = 1e-10, info = k)

      got_xx <- kernel_matrix(x, kernel = k, gamma = pr$gamma, degree = pr$degree,
                              coef0 = pr$coef0)
      expect_equal(got_xx, ref_kernel(x, x, k, pr$gamma, pr$degree, pr$coef0),
                   tolerance = 1e-10, info = k)
      # the symmetric path gives an exactly symmetric matrix
      expect_identical(got_xx, t(got_xx), info = k)
    }
  }
})

test_that("default gamma is 1 / ncol(x) and the default kernel is rbf", {
  set.seed(102)
  x <- matrix(rnorm(15 * 5), 15)
  y <- matrix(rnorm(9 * 5), 9)
  expect_equal(kernel_matrix(x), ref_kernel(x, x, "rbf", gamma = 1 / 5), tolerance = 1e-10)
  expect_equal(kernel_matrix(x, y, kernel = "polynomial"),
               ref_kernel(x, y, "polynomial", gamma = 1 / 5, degree = 3, coef0 = 0),
               tolerance = 1e-10)
  # a numeric vector is one column, a data frame its numeric columns
  v <- rnorm(8)
  expect_equal(kernel_matrix(v, kernel = "laplace", gamma = 2),
               exp(-2 * abs(outer(v, v, "-"))), tolerance = 1e-10)
  df <- as.data.frame(x)
  expect_equal(unname(kernel_matrix(df, kernel = "sigmoid", gamma = 0.1, coef0 = 1)),
               ref_kernel(x, x, "sigmoid", 0.1, coef0 = 1), tolerance = 1e-10)
})

test_that("identical and near-duplicate rows: rbf/laplace give exactly 1 on the diagonal", {
  set.seed(103)
  base <- matrix(rnorm(6 * 3), 6)
  far <- base * 1e4 + 1e3 # large norms: ||x||^2 + ||y||^2 - 2x'y cancels badly
  x <- rbind(base, base, base + 1e-9, far, far + 1e-6, far)
  n <- nrow(x)
  for (k in c("rbf", "laplace")) {
    for (g in c(0.5, 3)) {
      K <- kernel_matrix(x, kernel = k, gamma = g)
      expect_identical(diag(K), rep(1, n), info = k)
      # exact duplicates are exactly 1 off the diagonal too
      expect_identical(K[cbind(1:6, 7:12)], rep(1, 6), info = k)
      expect_identical(K[cbind(19:24, 31:36)], rep(1, 6), info = k)
      expect_equal(K, ref_kernel(x, x, k, g), tolerance = 1e-10, info = k)
      expect_true(all(K <= 1 & K >= 0), info = k)
      # the same through the two-argument path
      K2 <- kernel_matrix(x, x, kernel = k, gamma = g)
      expect_identical(diag(K2), rep(1, n), info = k)
      expect_equal(K2, ref_kernel(x, x, k, g), tolerance = 1e-10, info = k)
    }
  }
  # near duplicates: laplace is not flat at 0, so the distance must be accurate
  a <- matrix(c(1e3, 2e3, -5e2), 1)
  b <- a + c(3e-7, -4e-7, 0)
  expect_equal(kernel_matrix(a, b, kernel = "laplace", gamma = 1e6)[1, 1],
               exp(-1e6 * sqrt(sum((a - b)^2))), tolerance = 1e-10)
  for (k in c("linear", "polynomial", "sigmoid")) {
    K <- kernel_matrix(x, kernel = k, gamma = 1e-8, coef0 = 0.5)
    expect_equal(K, ref_kernel(x, x, k, 1e-8, coef0 = 0.5), tolerance = 1e-10, info = k)
  }
})

test_that("dimnames are carried from the row names of x and y", {
  set.seed(104)
  x <- matrix(rnorm(4 * 2), 4, dimnames = list(paste0("r", 1:4), c("u", "v")))
  y <- matrix(rnorm(3 * 2), 3, dimnames = list(paste0("s", 1:3), c("u", "v")))
  K <- kernel_matrix(x, y, kernel = "linear")
  expect_identical(dimnames(K), list(rownames(x), rownames(y)))
  expect_equal(unname(K), unname(x %*% t(y)), tolerance = 1e-10)
  Kx <- kernel_matrix(x, kernel = "rbf", gamma = 0.5)
  expect_identical(dimnames(Kx), list(rownames(x), rownames(x)))
  # only one side named
  y0 <- unname(y)
  K1 <- kernel_matrix(x, y0, kernel = "linear")
  expect_identical(rownames(K1), rownames(x))
  expect_null(colnames(K1))
  K2 <- kernel_matrix(unname(x), y, kernel = "linear")
  expect_null(rownames(K2))
  expect_identical(colnames(K2), rownames(y))
  # no names: no dimnames
  expect_null(dimnames(kernel_matrix(unname(x), y0, kernel = "linear")))
  # data frame row names
  df <- data.frame(a = 1:3 / 3, b = c(2, -1, 0.5), row.names = c("p", "q", "r"))
  expect_identical(dimnames(kernel_matrix(df, kernel = "laplace")), list(c("p", "q", "r"),
                                                                           c("p", "q", "r")))
})

test_that("kernel_matrix agrees with kernlab::kernelMatrix", {
  skip_if_not_installed("kernlab")
  set.seed(105)
  x <- matrix(rnorm(31 * 3), 31)
  y <- matrix(rnorm(17 * 3), 17)
  g <- 0.4
  deg <- 3
  c0 <- 0.7
  cases <- list(
    rbf = kernlab::rbfdot(sigma = g),
    laplace = kernlab::laplacedot(sigma = g),
    polynomial = kernlab::polydot(degree = deg, scale = g, offset = c0),
    sigmoid = kernlab::tanhdot(scale = g, offset = c0),
    linear = kernlab::vanilladot())
  for (k in names(cases)) {
    # kernlab's kernelMatrix(tanhdot(), x, y) is broken (its two-argument
    # branch picks up base::scale), so take the x-y block of the Gram matrix
    # of rbind(x, y) for every kernel.
    want_all <- kernlab::kernelMatrix(cases[[k]], rbind(x, y))@.Data
    want_xy <- want_all[1:31, 31 + 1:17]
    want_xx <- kernlab::kernelMatrix(cases[[k]], x)@.Data
    got_xy <- kernel_matrix(x, y, kernel = k, gamma = g, degree = deg, coef0 = c0)
    got_xx <- kernel_matrix(x, kernel = k, gamma = g, degree = deg, coef0 = c0)
    expect_equal(got_xy, want_xy, tolerance = 1e-10, ignore_attr = TRUE, info = k)
    expect_equal(got_xx, want_xx, tolerance = 1e-10, ignore_attr = TRUE, info = k)
  }
})

test_that("larger matrices: several full and partial 128-tiles", {
  set.seed(106)
  x <- matrix(rnorm(300 * 7), 300)
  y <- matrix(rnorm(500 * 7), 500)
  for (k in all_kernels) {
    g <- 0.15
    got <- kernel_matrix(x, y, kernel = k, gamma = g, degree = 2, coef0 = 1)
    expect_equal(got, ref_kernel(x, y, k, g, 2, 1), tolerance = 1e-10, info = k)
  }
  # symmetric path with a partial last tile; 129 rows leaves a tile of one row
  for (m in c(300L, 129L)) {
    xs <- x[seq_len(m), ]
    for (k in c("rbf", "laplace", "polynomial")) {
      K <- kernel_matrix(xs, kernel = k, gamma = 0.2, degree = 2, coef0 = 1)
      expect_equal(K, ref_kernel(xs, xs, k, 0.2, 2, 1), tolerance = 1e-10, info = k)
      expect_identical(K, t(K), info = k)
    }
  }
  # a single row against many, many against one
  expect_equal(kernel_matrix(x[1, , drop = FALSE], y, kernel = "rbf", gamma = 0.3),
               ref_kernel(x[1, , drop = FALSE], y, "rbf", 0.3), tolerance = 1e-10)
  expect_equal(kernel_matrix(y, x[7, , drop = FALSE], kernel = "laplace", gamma = 0.3),
               ref_kernel(y, x[7, , drop = FALSE], "laplace", 0.3), tolerance = 1e-10)
  # kernlab on the large case too
  skip_if_not_installed("kernlab")
  expect_equal(kernel_matrix(x, y, kernel = "rbf", gamma = 0.15),
               kernlab::kernelMatrix(kernlab::rbfdot(sigma = 0.15), x, y)@.Data,
               tolerance = 1e-10, ignore_attr = TRUE)
})

test_that("results are identical for 1 and 2 threads", {
  set.seed(107)
  x <- matrix(rnorm(300 * 7), 300)
  y <- matrix(rnorm(500 * 7), 500)
  for (k in all_kernels) {
    a1 <- with_threads(1, kernel_matrix(x, y, kernel = k, gamma = 0.2, coef0 = 0.3))
    a2 <- with_threads(2, kernel_matrix(x, y, kernel = k, gamma = 0.2, coef0 = 0.3))
    expect_identical(a1, a2, info = k)
    s1 <- with_threads(1, kernel_matrix(x, kernel = k, gamma = 0.2, coef0 = 0.3))
    s2 <- with_threads(2, kernel_matrix(x, kernel = k, gamma = 0.2, coef0 = 0.3))
    expect_identical(s1, s2, info = k)
  }
})

test_that("kernel_matrix() finds y's columns by name, dense or sparse", {
  x <- iris_x[1:6, ]
  want <- kernel_matrix(x, x[1:3, ], kernel = "linear")
  expect_equal(kernel_matrix(x, x[1:3, 4:1], kernel = "linear"), want)
  expect_equal(kernel_matrix(x, as.data.frame(x[1:3, 4:1]), kernel = "linear"), want)
  renamed <- x[1:3, ]
  colnames(renamed)[2] <- "other"
  expect_error(kernel_matrix(x, renamed, kernel = "linear"), "lacks column",
               class = "kernclass_error")
  expect_equal(kernel_matrix(x, unname(x[1:3, ]), kernel = "linear"), want)
  skip_if_not_installed("Matrix")
  xs <- methods::as(Matrix::Matrix(x, sparse = TRUE), "CsparseMatrix")
  expect_equal(kernel_matrix(xs, xs[1:3, 4:1], kernel = "linear"), want)
  expect_equal(kernel_matrix(x, xs[1:3, 4:1], kernel = "linear"), want)
})
