# The kernel engine's other data sources (R/input-sources.R, src/kernel.c):
# sparse rows, given kernel values (kernel = "precomputed") and kernels
# computed by an R function (or a kernlab kernel). Each must give the models
# that the dense rows and the built-in kernels give.

ns <- asNamespace("kernclass")

# Dense rows with about 30% non-zeros of both signs (so that the linear SVM
# never centres them, which sparse rows cannot be), and their dgCMatrix.
sparse_data <- function(n = 90, p = 12, seed = 1) {
  set.seed(seed)
  x <- matrix(0, n, p)
  nz <- sample(n * p, round(0.3 * n * p))
  x[nz] <- rnorm(length(nz))
  y <- factor(rep(c("a", "b", "c"), length.out = n))
  x[y == "b", 1] <- x[y == "b", 1] + 1.5
  list(x = x, y = y, new = x[c(2, 5, n %/% 2, n - 3), ] * 0.9)
}

as_dgC <- function(x) {
  skip_if_not_installed("Matrix")
  methods::as(x, "CsparseMatrix")
}

fitters <- list(kernel_means = kernel_means, kernel_parzen = kernel_parzen,
                kernel_svm = kernel_svm, kernel_bayes = kernel_bayes)
kernels <- c("linear", "polynomial", "rbf", "laplace", "sigmoid")

test_that("sparse and dense rows give the same models and predictions, every fitter and kernel", {
  old <- options(kernclass.svm.precision = "double")  # the sparse/precomputed engines' values
  on.exit(options(old))
  d <- sparse_data()
  S <- as_dgC(d$x)
  Snew <- as_dgC(d$new)
  for (fn in names(fitters)) for (kern in kernels) {
    f <- fitters[[fn]]
    args <- list(kernel = kern, gamma = 0.2, coef0 = 0.5, degree = 2, scale = FALSE)
    if (fn == "kernel_bayes" && kern == "sigmoid") next  # not positive definite: refused alike
    m1 <- do.call(f, c(list(d$x, d$y), args))
    m2 <- do.call(f, c(list(S, d$y), args))
    label <- paste(fn, kern)
    expect_equal(predict(m2, Snew, type = "decision"), predict(m1, d$new, type = "decision"),
                 tolerance = 1e-10, label = label)
    expect_identical(predict(m2, Snew), predict(m1, d$new), label = label)
    # the training rows' predictions, and dense new data for a sparse model
    expect_equal(predict(m2, type = "decision"), predict(m1, type = "decision"),
                 tolerance = 1e-10, label = label)
    expect_equal(predict(m2, d$new, type = "decision"), predict(m1, d$new, type = "decision"),
                 tolerance = 1e-10, label = label)
    if (fn == "kernel_svm") {
      expect_identical(m2$index, m1$index, label = label)
      expect_equal(m2$coefs, m1$coefs, tolerance = 1e-10, label = label)
      expect_equal(m2$objective, m1$objective, tolerance = 1e-10, label = label)
    }
  }
})

test_that("scale = TRUE scales sparse rows without centring: the dense fit of x / sd", {
  old <- options(kernclass.svm.precision = "double")  # the sparse/precomputed engines' values
  on.exit(options(old))
  d <- sparse_data(seed = 2)
  S <- as_dgC(d$x)
  sds <- apply(d$x, 2, stats::sd)
  xs <- sweep(d$x, 2, sds, "/")
  for (kern in c("linear", "rbf", "polynomial")) {
    m <- kernel_svm(S, d$y, kernel = kern, gamma = 0.1, degree = 2)
    expect_equal(unname(m$scaling$center), rep(0, ncol(d$x)))
    expect_equal(unname(m$scaling$scale), sds, tolerance = 1e-12)
    ref <- kernel_svm(xs, d$y, kernel = kern, gamma = 0.1, degree = 2, scale = FALSE)
    expect_equal(predict(m, as_dgC(d$new), type = "decision"),
                 predict(ref, sweep(d$new, 2, sds, "/"), type = "decision"),
                 tolerance = 1e-10, label = kern)
  }
  # for the distance kernels centring changes nothing: the dense scaled model
  for (kern in c("rbf", "laplace")) {
    m1 <- kernel_means(d$x, d$y, kernel = kern, gamma = 0.3)
    m2 <- kernel_means(S, d$y, kernel = kern, gamma = 0.3)
    expect_equal(predict(m2, as_dgC(d$new), type = "decision"),
                 predict(m1, d$new, type = "decision"), tolerance = 1e-10, label = kern)
  }
})

test_that("dgRMatrix and SparseM's matrix.csr are read as dgCMatrix", {
  d <- sparse_data(n = 30, p = 5)
  S <- as_dgC(d$x)
  R <- methods::as(S, "RsparseMatrix")
  expect_s4_class(R, "dgRMatrix")
  ref <- ns$kc_as_csr(S)
  expect_equal(unclass(ns$kc_as_csr(R))[c("rowptr", "col", "val")],
               unclass(ref)[c("rowptr", "col", "val")])
  expect_equal(as.matrix(ref), d$x, ignore_attr = TRUE)
  # matrix.csr read from its slots (ra, ja, ia: 1-based), as SparseM stores it;
  # SparseM itself is not installed here: an object with its slots and class
  csr <- structure(list(), class = structure("matrix.csr", package = "SparseM"),
                   ra = ref$val, ja = ref$col + 1L, ia = ref$rowptr + 1L,
                   dimension = dim(d$x))
  expect_equal(as.matrix(ns$kc_as_csr(csr)), d$x, ignore_attr = TRUE)
  m1 <- kernel_means(csr, d$y, gamma = 0.5, scale = FALSE)
  m2 <- kernel_means(d$x, d$y, gamma = 0.5, scale = FALSE)
  expect_equal(predict(m1, type = "decision"), predict(m2, type = "decision"), tolerance = 1e-12)
})

test_that("kernel_matrix and estimate_gamma on sparse rows are computed sparse, as dense", {
  d <- sparse_data()
  S <- as_dgC(d$x)
  for (kern in kernels) {
    expect_equal(kernel_matrix(S, as_dgC(d$new), kernel = kern, gamma = 0.3, degree = 2),
                 kernel_matrix(d$x, d$new, kernel = kern, gamma = 0.3, degree = 2),
                 tolerance = 1e-12, label = kern)
  }
  expect_equal(kernel_matrix(S, kernel = "rbf"), kernel_matrix(d$x, kernel = "rbf"),
               tolerance = 1e-12)
  for (kern in c("rbf", "laplace", "polynomial")) {
    expect_equal(estimate_gamma(S, kernel = kern, scale = FALSE),
                 estimate_gamma(d$x, kernel = kern, scale = FALSE), tolerance = 1e-10,
                 label = kern)
  }
  expect_equal(estimate_gamma(S), estimate_gamma(d$x), tolerance = 1e-10)  # rbf: scaling alike
})

test_that("sparse rows go through kernel_cv and kernel_tune as dense ones", {
  d <- sparse_data()
  S <- as_dgC(d$x)
  set.seed(9)
  a <- kernel_cv(kernel_svm, S, d$y, folds = 3, gamma = 0.3)
  set.seed(9)
  b <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, gamma = 0.3)
  expect_identical(a$predicted, b$predicted)
  set.seed(9)
  a <- kernel_tune(kernel_means, S, d$y, grid = list(gamma = c(0.1, 1)), folds = 3, scale = FALSE)
  set.seed(9)
  b <- kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(0.1, 1)), folds = 3, scale = FALSE)
  expect_equal(a$results, b$results)
})

test_that("bad sparse input gets classed errors", {
  d <- sparse_data(n = 30, p = 5)
  S <- as_dgC(d$x)
  S@x[3] <- NA
  expect_error(kernel_svm(S, d$y), class = "kernclass_sparse_error")
  S@x[3] <- Inf
  expect_error(kernel_means(S, d$y), class = "kernclass_sparse_error")
  expect_error(kernel_svm(methods::as(as_dgC(d$x), "TsparseMatrix"), d$y),
               class = "kernclass_sparse_error")
  m <- kernel_svm(as_dgC(d$x), d$y)
  expect_error(predict(m, as_dgC(d$x[, 1:4])), class = "kernclass_input_error")
  # kernel_bayes writes sparse rows out densely, within a limit
  wide <- Matrix::sparseMatrix(1:30, 1:30, x = rnorm(30), dims = c(30, 2e7))
  expect_error(kernel_bayes(wide, d$y, scale = FALSE), class = "kernclass_sparse_error")
  expect_equal(predict(kernel_bayes(as_dgC(d$x), d$y, scale = FALSE), type = "decision"),
               predict(kernel_bayes(d$x, d$y, scale = FALSE), type = "decision"),
               tolerance = 1e-12)
})

rbf_data <- function() {
  x <- as.matrix(iris[, 1:4])
  list(x = x, y = iris$Species, new = x[c(1, 60, 120, 3), ] + 0.05,
       K = kernel_matrix(x, kernel = "rbf", gamma = 0.5))
}

test_that("a precomputed RBF matrix gives the model kernel = \"rbf\" gives", {
  old <- options(kernclass.svm.precision = "double")  # the sparse/precomputed engines' values
  on.exit(options(old))
  d <- rbf_data()
  Knew <- kernel_matrix(d$new, d$x, kernel = "rbf", gamma = 0.5)
  for (fn in c("kernel_means", "kernel_parzen", "kernel_svm")) {
    m0 <- fitters[[fn]](d$x, d$y, kernel = "rbf", gamma = 0.5, scale = FALSE)
    m1 <- fitters[[fn]](d$K, d$y, kernel = "precomputed")
    expect_equal(predict(m1, Knew, type = "decision"), predict(m0, d$new, type = "decision"),
                 tolerance = 1e-10, label = fn)
    expect_equal(predict(m1, type = "decision"), predict(m0, type = "decision"),
                 tolerance = 1e-10, label = fn)
    if (fn == "kernel_means") {
      expect_equal(predict(m1, type = "prob"), predict(m0, type = "prob"), tolerance = 1e-10)
    }
    if (fn == "kernel_svm") {
      expect_identical(m1$index, m0$index)
      # the precomputed model's objective is recomputed in double, rbf's is
      # summed from the solver's gradient (float kernel rows)
      expect_equal(m1$objective, m0$objective, tolerance = 1e-7)
    }
  }
  # with scaling done by the user, as kernel = "rbf" with scale = TRUE does
  xs <- scale(d$x)
  Ks <- kernel_matrix(xs, kernel = "rbf", gamma = 0.25)
  m0 <- kernel_svm(d$x, d$y, kernel = "rbf", gamma = 0.25)
  m1 <- kernel_svm(Ks, d$y, kernel = "precomputed")
  expect_equal(m1$coefs, m0$coefs, tolerance = 1e-10)
})

test_that("kernlab's kernelMatrix is taken as precomputed values", {
  skip_if_not_installed("kernlab")
  d <- rbf_data()
  Kk <- kernlab::kernelMatrix(kernlab::rbfdot(sigma = 0.5), d$x)
  m1 <- kernel_svm(Kk, d$y, kernel = "precomputed")
  m0 <- kernel_svm(d$x, d$y, kernel = "rbf", gamma = 0.5, scale = FALSE)
  expect_equal(m1$objective, m0$objective, tolerance = 1e-6)
  Knew <- kernlab::kernelMatrix(kernlab::rbfdot(sigma = 0.5), d$new, d$x)
  expect_identical(predict(m1, Knew), predict(m0, d$new))
})

test_that("precomputed values go through kernel_cv and kernel_tune", {
  d <- rbf_data()
  set.seed(3)
  a <- kernel_cv(kernel_svm, d$K, d$y, folds = 5, kernel = "precomputed")
  set.seed(3)
  b <- kernel_cv(kernel_svm, d$x, d$y, folds = 5, kernel = "rbf", gamma = 0.5, scale = FALSE)
  expect_identical(a$predicted, b$predicted)
  set.seed(3)
  a <- kernel_cv(kernel_means, d$K, d$y, folds = "loo", kernel = "precomputed", scale = FALSE)
  set.seed(3)
  b <- kernel_cv(kernel_means, d$x, d$y, folds = "loo", kernel = "rbf", gamma = 0.5, scale = FALSE)
  expect_identical(a$predicted, b$predicted)
  expect_identical(a$method, "exact")
  set.seed(3)
  t <- kernel_tune(kernel_svm, d$K, d$y, grid = list(cost = c(0.1, 10)), folds = 3,
                   kernel = "precomputed")
  expect_s3_class(t$model, "kernel_svm")
})

test_that("bad precomputed input gets classed errors", {
  d <- rbf_data()
  expect_error(kernel_svm(d$K[, 1:20], d$y, kernel = "precomputed"),
               class = "kernclass_kernel_data_error")
  K <- d$K
  K[1, 2] <- K[1, 2] + 0.1
  expect_error(kernel_means(K, d$y, kernel = "precomputed"), class = "kernclass_kernel_data_error")
  K <- d$K
  K[4, 4] <- NA
  expect_error(kernel_svm(K, d$y, kernel = "precomputed"), class = "kernclass_kernel_data_error")
  m <- kernel_svm(d$K, d$y, kernel = "precomputed")
  expect_error(predict(m, d$K[1:3, 1:20]), class = "kernclass_kernel_data_error")
  expect_error(predict(m, d$new), class = "kernclass_kernel_data_error")
  expect_error(kernel_bayes(d$K, d$y, kernel = "precomputed"), class = "kernclass_kernel_data_error")
  expect_error(estimate_gamma(d$K, kernel = "precomputed"), class = "kernclass_kernel_data_error")
  expect_error(kernel_matrix(d$K, kernel = "precomputed"), class = "kernclass_kernel_data_error")
  # a formula's design is not kernel values: never taken as such
  df <- data.frame(d$K[, 1:3], y = d$y)
  expect_error(kernel_svm(y ~ ., data = df, kernel = "precomputed"),
               class = "kernclass_kernel_data_error")
  expect_error(kernel_means(y ~ ., data = df, kernel = function(a, b) tcrossprod(a, b)),
               class = "kernclass_kernel_data_error")
})

test_that("an R kernel function gives the model of the built-in kernel it computes", {
  d <- rbf_data()
  # the engine's own values: the same model to the last digits
  rbf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.5)
  for (fn in c("kernel_means", "kernel_parzen", "kernel_svm")) {
    m0 <- fitters[[fn]](d$x, d$y, kernel = "rbf", gamma = 0.5, scale = FALSE)
    m1 <- fitters[[fn]](d$x, d$y, kernel = rbf)
    expect_equal(predict(m1, d$new, type = "decision"), predict(m0, d$new, type = "decision"),
                 tolerance = 1e-10, label = fn)
  }
  # a plain R transcription of exp(-gamma |a - b|^2): equal up to its rounding
  plain <- function(a, b) exp(-0.5 * pmax(outer(rowSums(a^2), rowSums(b^2), "+") -
                                            2 * tcrossprod(a, b), 0))
  expect_equal(kernel_matrix(d$x, d$new, kernel = plain),
               kernel_matrix(d$x, d$new, kernel = "rbf", gamma = 0.5), tolerance = 1e-12)
  m1 <- kernel_svm(d$x, d$y, kernel = plain, tolerance = 1e-8)
  m0 <- kernel_svm(d$x, d$y, kernel = "rbf", gamma = 0.5, scale = FALSE, tolerance = 1e-8)
  expect_equal(predict(m1, d$new, type = "decision"), predict(m0, d$new, type = "decision"),
               tolerance = 1e-5)
  # more points than a tile: the function is called on blocks of at most 128 rows
  sizes <- integer(0)
  counting <- function(a, b) {
    sizes <<- c(sizes, nrow(a), nrow(b))
    rbf(a, b)
  }
  x <- rbind(d$x, d$x + 0.01)
  y <- factor(rep(d$y, 2))
  m1 <- kernel_means(x, y, kernel = counting)
  expect_lte(max(sizes), 128)
  m0 <- kernel_means(x, y, kernel = "rbf", gamma = 0.5, scale = FALSE)
  expect_equal(predict(m1, type = "decision"), predict(m0, type = "decision"), tolerance = 1e-10)
  # through kernel_cv
  set.seed(4)
  a <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, kernel = rbf)
  set.seed(4)
  b <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, kernel = "rbf", gamma = 0.5, scale = FALSE)
  expect_identical(a$predicted, b$predicted)
})

test_that("a kernel function that returns the wrong shape, NA or an error gets a classed error", {
  d <- rbf_data()
  wrong <- function(a, b) matrix(1, 2, 2)
  expect_error(kernel_svm(d$x, d$y, kernel = wrong), class = "kernclass_kernel_function_error")
  with_na <- function(a, b) {
    v <- kernel_matrix(a, b, kernel = "rbf")
    v[1] <- NA
    v
  }
  expect_error(kernel_means(d$x, d$y, kernel = with_na), class = "kernclass_kernel_function_error")
  text <- function(a, b) matrix("1", nrow(a), nrow(b))
  expect_error(kernel_parzen(d$x, d$y, kernel = text), class = "kernclass_kernel_function_error")
  # the user's own error, with its class, and the engine usable after it
  failing <- function(a, b) stop(structure(class = c("my_error", "error", "condition"),
                                           list(message = "no kernel", call = NULL)))
  expect_error(kernel_svm(d$x, d$y, kernel = failing), class = "my_error")
  m <- kernel_svm(d$x, d$y, kernel = "rbf")
  expect_s3_class(m, "kernel_svm")
  expect_error(estimate_gamma(d$x, kernel = failing), class = "kernclass_kernel_data_error")
})

test_that("kernlab's stringdot fits on strings and agrees with kernlab's ksvm", {
  skip_if_not_installed("kernlab")
  set.seed(4)
  mk <- function(n, letters) {
    vapply(seq_len(n), function(i) paste(sample(letters, 6, TRUE), collapse = ""), "")
  }
  s <- c(mk(40, c("a", "b", "c", "d")), mk(40, c("c", "d", "e", "f")))
  y <- factor(rep(c("A", "B"), each = 40))
  sk <- kernlab::stringdot(type = "spectrum", length = 2, normalized = TRUE)
  m <- kernel_svm(s, y, kernel = sk, tolerance = 1e-6)
  km <- kernlab::ksvm(as.list(s), y, kernel = sk, C = 1, tol = 1e-6)
  expect_identical(sort(m$index), sort(kernlab::alphaindex(km)[[1]]))
  expect_equal(unname(m$objective), kernlab::obj(km), tolerance = 1e-5)
  new <- mk(10, c("a", "b", "c", "d", "e", "f"))
  # kernlab's decision values have the opposite sign for the first class
  expect_equal(unname(predict(m, new, type = "decision")),
               -as.vector(kernlab::predict(km, as.list(new), type = "decision")),
               tolerance = 1e-4)
  expect_identical(as.character(predict(m, new)),
                   as.character(kernlab::predict(km, as.list(new))))
  # and on a list of strings, through the other fitters
  expect_s3_class(kernel_means(as.list(s), y, kernel = sk), "kernel_means")
})

test_that("a dense Matrix (dgeMatrix) is taken as the matrix it holds", {
  skip_if_not_installed("Matrix")
  d <- rbf_data()
  X <- Matrix::Matrix(d$x, sparse = FALSE)
  expect_s4_class(X, "dgeMatrix")
  for (fn in names(fitters)) {
    m0 <- fitters[[fn]](d$x, d$y)
    m1 <- fitters[[fn]](X, d$y)
    expect_identical(predict(m1, Matrix::Matrix(d$new, sparse = FALSE), type = "decision"),
                     predict(m0, d$new, type = "decision"), label = fn)
  }
  expect_identical(kernel_matrix(X), kernel_matrix(d$x))
  # new data of a model fitted on sparse rows
  sparse <- kernel_svm(as_dgC(d$x), d$y)
  expect_identical(predict(sparse, Matrix::Matrix(d$new, sparse = FALSE), type = "decision"),
                   predict(sparse, d$new, type = "decision"))
})

# ---- the columns of new data of every input type are found by name ----------

# The same rows as every input type kernclass takes; `named` says whether the
# type carries column names.
input_types <- function(x) {
  out <- list(matrix = list(x = x, named = TRUE),
              data.frame = list(x = as.data.frame(x), named = TRUE))
  if (requireNamespace("Matrix", quietly = TRUE)) {
    out$dgCMatrix <- list(x = methods::as(Matrix::Matrix(x, sparse = TRUE), "CsparseMatrix"),
                          named = TRUE)
    out$dgRMatrix <- list(x = methods::as(out$dgCMatrix$x, "RsparseMatrix"), named = TRUE)
    out$dgeMatrix <- list(x = Matrix::Matrix(x, sparse = FALSE), named = TRUE)
  }
  if (requireNamespace("SparseM", quietly = TRUE)) {
    out$matrix.csr <- list(x = SparseM::as.matrix.csr(unname(x)), named = FALSE)
  }
  out
}

test_that("a sparse model finds new data's columns by name (was: by position, 0.33 agreement)", {
  skip_if_not_installed("Matrix")
  xs <- methods::as(Matrix::Matrix(iris_x, sparse = TRUE), "CsparseMatrix")
  fit <- kernel_svm(xs, iris_y)
  expect_identical(predict(fit, xs[, 4:1]), fitted(fit))
  expect_identical(predict(fit, iris_x[, 4:1]), fitted(fit))
  expect_error(predict(fit, xs[, 1:3]), "lacks column", class = "kernclass_error")
  # no names: by position, and the count must match
  unnamed <- xs
  dimnames(unnamed) <- list(NULL, NULL)
  expect_identical(predict(fit, unnamed), fitted(fit))
  expect_error(predict(fit, unnamed[, 1:3]), "3 column", class = "kernclass_error")
})

test_that("column permutations of new data of every input type leave every fitter's predictions", {
  fitters <- list(means = kernel_means, parzen = kernel_parzen, svm = kernel_svm,
                  bayes = function(x, y) kernel_bayes(x, y, type = 2))
  types <- input_types(iris_x)
  set.seed(24)
  perm <- sample(4)
  rows <- c(1:5, 51:55, 101:105)
  for (fn in names(fitters)) {
    for (tn in names(types)) {
      fit <- fitters[[fn]](types[[tn]]$x, iris_y)
      want <- predict(fit, iris_x[rows, ], type = "decision")
      for (nn in names(types)) {
        # without names (in the model or in newdata) only positions can tell
        named <- types[[tn]]$named && types[[nn]]$named
        nd <- types[[nn]]$x[rows, if (named) perm else 1:4]
        if (nn == "dgRMatrix") nd <- methods::as(nd, "RsparseMatrix")  # subsets are dgT
        if (tn == "data.frame" && !types[[nn]]$named) {  # a data frame's columns have names
          expect_error(predict(fit, nd), "lacks column", class = "kernclass_error")
          next
        }
        expect_equal(predict(fit, nd, type = "decision"), want, tolerance = 1e-10,
                     info = paste(fn, tn, nn), ignore_attr = TRUE)
      }
    }
  }
})

test_that("precomputed new data find the training points by name", {
  K <- kernel_matrix(iris_x, kernel = "rbf", gamma = 0.5)
  dimnames(K) <- list(paste0("p", 1:150), paste0("p", 1:150))
  fit <- kernel_svm(K, iris_y, kernel = "precomputed")
  o <- sample(150)
  expect_identical(predict(fit, K[, o]), fitted(fit))
  bad <- K
  colnames(bad)[1] <- "q"
  expect_error(predict(fit, bad), "lacks column", class = "kernclass_error")
})
