# The single-precision tiles of the SVM's float stores (src/kernel-float.c):
# rbf values within 1e-5 of the double values on data of any scale and
# offset, the double tiles wherever float would not be accurate, the same
# values on any number of threads, and SVM models within the solver's
# tolerance of the double path's.

float_gram <- function(x, y = NULL, kernel = "rbf", gamma = 1 / ncol(x), precision = "float",
                       degree = 3, coef0 = 0, threads = 2L) {
  old <- options(kernclass.svm.precision = precision)
  on.exit(options(old))
  k <- list(name = kernel, gamma = gamma, degree = degree, coef0 = coef0)
  kernclass:::kc_kernel_matrix_float(x, y, k, threads = threads)
}

test_that("rbf values in float are within 1e-5 of the double values, on any scale and offset", {
  set.seed(11)
  for (p in c(5L, 40L, 200L, 800L)) for (offset in c(0, 1e3)) for (s in c(1e-3, 1, 100)) {
    # 150 x 133: tiles of whole and partial panels, rows and columns
    x <- matrix(rnorm(150 * p, offset, s), 150)
    y <- matrix(rnorm(133 * p, offset, s), 133)
    x[2, ] <- x[1, ]                           # equal points
    x[3, ] <- x[1, ] + 1e-4 * s                # close points
    y[1, ] <- x[1, ]
    g <- 1 / (p * s^2)
    label <- sprintf("p = %d, offset = %g, scale = %g", p, offset, s)
    ref <- ref_kernel(x, y, "rbf", gamma = g)
    Kf <- float_gram(x, y, gamma = g)
    Kd <- float_gram(x, y, gamma = g, precision = "double")
    expect_lt(max(abs(Kf - ref)), 1e-5, label = label)
    expect_lt(max(abs(Kd - ref)), 1e-7, label = label)
    expect_true(any(Kf != Kd), label = label)  # the float tiles ran
    expect_equal(Kf[1, 1], 1, label = label)   # an equal pair: distance 0 exactly
    S <- float_gram(x, gamma = g)
    expect_lt(max(abs(S - ref_kernel(x, x, "rbf", gamma = g))), 1e-5, label = label)
    expect_true(isSymmetric(S, tol = 0), label = label)
    expect_true(all(diag(S) == 1) && S[1, 2] == 1, label = label)
  }
})

test_that("the float tiles give the same values on 1 and 2 threads and run after run", {
  set.seed(12)
  x <- matrix(runif(700 * 60), 700)
  y <- matrix(runif(300 * 60), 300)
  a <- float_gram(x, threads = 1L)
  expect_identical(float_gram(x, threads = 2L), a)
  expect_identical(float_gram(x, threads = 2L), a)
  b <- float_gram(y, x, threads = 1L)
  expect_identical(float_gram(y, x, threads = 2L), b)
})

test_that("where float would not be accurate the values are the double ones", {
  set.seed(13)
  x <- matrix(rnorm(200 * 10, 1e4), 200)
  y <- matrix(rnorm(140 * 10, 1e4), 140)
  # kernels computed from inner products, which centring would change, and
  # the laplace kernel's square root: always double
  for (kernel in c("linear", "polynomial", "laplace", "sigmoid")) {
    g <- if (kernel == "laplace") 0.1 else 1e-9
    expect_identical(float_gram(x, y, kernel = kernel, gamma = g, coef0 = 0.5),
                     float_gram(x, y, kernel = kernel, gamma = g, coef0 = 0.5, precision = "double"),
                     label = kernel)
  }
  # a narrow rbf kernel: gamma max ||x - m||^2 far above 20
  expect_identical(float_gram(x, y, gamma = 50), float_gram(x, y, gamma = 50, precision = "double"))
  # sparse rows
  skip_if_not_installed("Matrix")
  xs <- kernclass:::kc_as_csr(Matrix::Matrix(x * (abs(x - 1e4) > 1), sparse = TRUE), "x")
  expect_identical(float_gram(xs, gamma = 0.01), float_gram(xs, gamma = 0.01, precision = "double"))
})

test_that("a bad kernclass.svm.precision is a classed error naming the option", {
  old <- options(kernclass.svm.precision = "half")
  on.exit(options(old))
  x <- matrix(rnorm(40), 20)
  y <- factor(rep(c("a", "b"), 10))
  expect_error(kernel_svm(x, y), class = "kernclass_option_error")
  expect_error(kernel_svm(x, y), "kernclass.svm.precision")
})

svm_both <- function(x, y, z, threads = 2L, ...) {
  lapply(c(double = "double", float = "float"), function(precision) {
    old <- options(kernclass.svm.precision = precision, kernclass.threads = threads)
    on.exit(options(old))
    m <- kernel_svm(x, y, ...)
    list(model = m, decision = predict(m, z, type = "decision"), class = predict(m, z))
  })
}

test_that("SVM models from float values are within the solver's tolerance of the double ones", {
  set.seed(14)
  n <- 900
  x <- matrix(rnorm(n * 30), n)
  y <- factor(ifelse(x[, 1] + x[, 2]^2 + rnorm(n, 0, 0.3) > 1, "a", "b"))
  z <- matrix(rnorm(300 * 30), 300)
  for (cachesize in c(40, 1)) {  # every row kept, and an LRU cache of a few rows
    r <- svm_both(x, y, z, gamma = 0.05, cost = 10, cachesize = cachesize)
    d <- r$double$decision; f <- r$float$decision
    expect_false(identical(f, d))  # the float tiles ran
    expect_lt(max(abs(f - d)), 1e-2 * max(1, max(abs(d))), label = cachesize)
    expect_gt(mean(r$float$class == r$double$class), 0.99)
    expect_equal(r$float$model$objective, r$double$model$objective, tolerance = 1e-3)
    sv_d <- r$double$model$index; sv_f <- r$float$model$index
    expect_gt(length(intersect(sv_d, sv_f)) / length(union(sv_d, sv_f)), 0.97)
  }
  # three classes (the class pairs' kernel blocks), one and two threads
  y3 <- factor(cut(x[, 1] + x[, 2], c(-Inf, -0.5, 0.5, Inf), labels = c("p", "q", "r")))
  r1 <- svm_both(x, y3, z, threads = 1L, gamma = 0.05, cost = 10)
  r2 <- svm_both(x, y3, z, threads = 2L, gamma = 0.05, cost = 10)
  expect_identical(r1$float$decision, r2$float$decision)
  expect_identical(r1$float$model$coefs, r2$float$model$coefs)
  expect_gt(mean(r2$float$class == r2$double$class), 0.99)
  d <- r2$double$decision; f <- r2$float$decision
  expect_lt(max(abs(f - d)), 1e-2 * max(1, max(abs(d))))
})

test_that("an unset kernclass.svm.precision is the table's default in the engine too", {
  set.seed(15)
  x <- matrix(rnorm(60 * 8), 60)
  default <- kernclass:::kc_options[["kernclass.svm.precision"]]$default
  expect_identical(float_gram(x, precision = NULL), float_gram(x, precision = default))
  expect_false(identical(float_gram(x, precision = NULL),
                         float_gram(x, precision = setdiff(c("float", "double"), default))))
})

test_that("in float, the shared path of costs stores the per-fold fits' values", {
  # one x for all folds (the kernel of all the points, as floats): the same
  # iterations and b as kernel_svm's own fits on each fold (gamma times the
  # points' squared norms within the float tiles' range in every fold)
  old <- options(kernclass.svm.precision = "float")
  on.exit(options(old))
  ns <- asNamespace("kernclass")
  for (classes in 2:3) {
    n <- 160
    d <- shifted_classes(n, classes, 12, seed = 30 + classes)
    x <- d$x
    y <- d$y
    fold <- rep_len(1:4, n)
    costs <- c(0.3, 3, 30)
    spec <- ns$kc_kernel_code(ns$kc_kernel("rbf", 0.2, 3, 0, x))
    r <- path_solve(list(path_plan(list(x), as.integer(y), as.integer(classes), costs,
                                   rep(1, n), matrix(1, classes, 4), spec)),
                    fold, 1:4, 1L)[[1L]]
    np <- classes * (classes - 1) / 2
    its <- array(r$iterations, c(4, np, 3))
    rho <- array(r$rho, c(4, np, 3))
    for (f in 1:4) {
      te <- fold == f
      path <- ns$kc_svm_cost_path(x[!te, ], y[!te], costs, gamma = 0.2, scale = FALSE)
      for (c in 1:3) {
        expect_equal(unname(path[[c]]$iterations), its[f, , c])
        expect_equal(unname(path[[c]]$b), -rho[f, , c], tolerance = 1e-12)
      }
    }
  }
})

test_that("the float tiles' scratch is taken only for points prepared for them (was: for every dense set)", {
  # Few rows of many inputs: a kernel matrix's memory is mostly its tiles'
  # scratch (R_alloc'd on R's heap, so gc() sees it): the double tiles' row
  # panels, (132 + 128) p doubles, and for float tiles (the rbf kernel in
  # float) their float panels and norms, another (66 + 2 * 64) p
  peak_mb <- function(expr) {
    g0 <- gc(reset = TRUE)
    force(expr)
    (gc()["Vcells", "max used"] - g0["Vcells", "used"]) * 8 / 2^20
  }
  set.seed(16)
  p <- 20000
  x <- matrix(rnorm(20 * p), 20)
  double_mb <- (132 + 128) * p * 8 / 2^20
  float_mb <- (66 + 128) * p * 8 / 2^20
  with_threads(1L, {
    used <- c(double = peak_mb(float_gram(x, precision = "double", threads = 1L)),
              linear = peak_mb(float_gram(x, kernel = "linear", threads = 1L)),
              plain = peak_mb(kernel_matrix(x)),
              float = peak_mb(float_gram(x, threads = 1L)),
              # the SVM's float option leaves the other workers' tiles double
              plain_float = local({
                old <- options(kernclass.svm.precision = "float")
                on.exit(options(old))
                peak_mb(kernel_matrix(x))
              }))
  })
  # double values: the double tiles' scratch and a little more
  expect_lt(used[["double"]], double_mb + float_mb / 2)
  expect_lt(used[["linear"]], double_mb + float_mb / 2)
  expect_lt(used[["plain"]], double_mb + float_mb / 2)
  expect_lt(used[["plain_float"]], double_mb + float_mb / 2)
  # float values: the float tiles' scratch as well (and gc() sees the scratch)
  expect_gt(used[["float"]], double_mb + float_mb * 0.9)
})
