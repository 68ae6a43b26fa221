# No silent wrong answers from the data's form: the columns of new data of
# every input type are found by name, kernel values with a large common part
# are solved as precisely as the same kernel computed here, the precision
# check judges the data and not their order, saved models of every kind
# predict in a fresh process and hold their data once, and an interrupt in a
# user's kernel function stays an interrupt.

iris_x <- as.matrix(iris[, 1:4])
iris_y <- iris$Species

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

# A linear kernel of data far from the origin: values near 2e8 that differ by
# units, below the float cache's rounding.
offset_data <- function() {
  set.seed(2)
  x <- matrix(rnorm(400), 200)
  y <- factor(ifelse(x[, 1] + x[, 2] + rnorm(200, 0, 0.5) > 0, "a", "b"))
  list(x = x + 1e4, y = y)
}

test_that("kernel values with a large common part fit as the kernel computed here (was: 0.615)", {
  d <- offset_data()
  K <- tcrossprod(d$x)
  lin <- kernel_svm(d$x, d$y, kernel = "linear", scale = FALSE)
  pre <- kernel_svm(K, d$y, kernel = "precomputed")
  fun <- kernel_svm(d$x, d$y, kernel = function(a, b) tcrossprod(a, b), scale = FALSE)
  dec <- predict(lin, d$x, type = "decision")
  # the decision values differ by the cache's rounding of the centred values
  expect_equal(predict(pre, K, type = "decision"), dec, tolerance = 1e-3, ignore_attr = TRUE)
  expect_equal(predict(fun, d$x, type = "decision"), dec, tolerance = 1e-3, ignore_attr = TRUE)
  expect_equal(pre$objective, lin$objective, tolerance = 1e-4)
  expect_gt(mean(fitted(pre) == d$y), 0.85)
  # and e1071 on the centred data (the same problem), where installed
  skip_if_not_installed("e1071")
  e <- e1071::svm(scale(d$x, scale = FALSE), d$y, kernel = "linear", scale = FALSE)
  expect_gt(mean(fitted(pre) == fitted(e)), 0.99)
})

test_that("nu-classification and the one-class SVM on kernel values with a large common part", {
  d <- offset_data()
  K <- tcrossprod(d$x)
  nu_lin <- kernel_svm(d$x, d$y, kernel = "linear", scale = FALSE, type = "nu-classification",
                       nu = 0.5)  # (near nu = 0.2, where r = 0, r is ill-conditioned)
  nu_pre <- kernel_svm(K, d$y, kernel = "precomputed", type = "nu-classification", nu = 0.5)
  expect_equal(predict(nu_pre, K, type = "decision"), predict(nu_lin, d$x, type = "decision"),
               tolerance = 1e-3, ignore_attr = TRUE)
  # the one-class dual allows only a constant shift: checked against the
  # dense linear fit, which agrees with e1071 (test-svm-types.R)
  one_lin <- kernel_svm(d$x, type = "one-classification", kernel = "linear", scale = FALSE,
                        nu = 0.2)
  one_pre <- kernel_svm(K, type = "one-classification", kernel = "precomputed", nu = 0.2)
  expect_equal(one_pre$b, one_lin$b, tolerance = 1e-6)
  expect_gt(mean(fitted(one_pre) == fitted(one_lin)), 0.99)
})

test_that("kernel values the float cache cannot resolve even centred are a classed error", {
  skip_if_not_installed("Matrix")
  # sparse rows are never centred: a column far from the origin
  set.seed(5)
  x <- cbind(matrix(rnorm(400), 200), 1e4 + rnorm(200))
  y <- factor(ifelse(x[, 1] > 0, "a", "b"))
  xs <- Matrix::Matrix(x, sparse = TRUE)
  expect_error(kernel_svm(xs, y, kernel = "linear", scale = FALSE), "single-precision",
               class = "kernclass_precision_error")
  # the same dense rows are centred, and fit
  expect_gt(mean(fitted(kernel_svm(x, y, kernel = "linear", scale = FALSE)) == y), 0.9)
})

# Groups of near-copies of 20 points: in their own order, neighbours are near
# copies; shuffled, they are not.
grouped_data <- function() {
  set.seed(5)
  base <- matrix(rnorm(40), 20)
  x <- base[rep(1:20, each = 10), ] + rnorm(400, 0, 1e-5)
  list(x = x, y = factor(ifelse(x[, 1] + x[, 2] > 0, "u", "v")))
}

test_that("the precision check judges the data, not the order of the rows (was: refused sorted)", {
  d <- grouped_data()
  sorted <- do.call(order, as.data.frame(d$x))
  fit <- kernel_svm(d$x[sorted, ], d$y[sorted], kernel = "polynomial")
  expect_gt(mean(fitted(fit) == d$y[sorted]), 0.85)
})

test_that("row permutations change neither whether a fit is accepted nor its predictions", {
  d <- grouped_data()
  far <- list(x = d$x + 1e4, y = d$y)  # refused in any order
  cases <- list(
    list(data = d, kernel = "polynomial", scale = TRUE, accepted = TRUE),
    list(data = d, kernel = "polynomial", scale = FALSE, accepted = TRUE),
    list(data = far, kernel = "polynomial", scale = FALSE, accepted = FALSE))
  orders <- c(list(seq_len(200), do.call(order, as.data.frame(d$x)), 200:1),
              lapply(1:3, function(i) sample(200)))
  for (case in cases) {
    x <- case$data$x
    y <- case$data$y
    ref <- NULL
    for (o in orders) {
      fit <- tryCatch(kernel_svm(x[o, ], y[o], kernel = case$kernel, scale = case$scale,
                                 coef0 = 1),
                      kernclass_precision_error = function(e) NULL)
      expect_identical(!is.null(fit), case$accepted, info = case$kernel)
      if (is.null(fit)) next
      dec <- predict(fit, x, type = "decision")
      if (is.null(ref)) ref <- dec
      expect_equal(dec, ref, tolerance = 1e-3, info = case$kernel)
    }
  }
})

# What a fresh process is asked of each model: predictions, decision values,
# fitted values and the printed summary (R code, run here and in the child).
round_trip_code <- c(
  "round_trip <- function(models, newdata) {",
  "  lapply(stats::setNames(names(models), names(models)), function(nm) {",
  "    m <- models[[nm]]",
  "    nd <- newdata[[nm]]",
  "    list(predict = predict(m, nd), decision = predict(m, nd, type = 'decision'),",
  "         fitted = fitted(m), summary = utils::capture.output(summary(m)))",
  "  })",
  "}")

test_that("row permutations of kernel values and sparse rows leave the fit", {
  skip_if_not_installed("Matrix")
  d <- offset_data()
  rownames(d$x) <- paste0("r", seq_len(nrow(d$x)))
  K <- tcrossprod(d$x)  # centred in any order
  xs <- Matrix::Matrix(grouped_data()$x, sparse = TRUE)
  ys <- grouped_data()$y
  ref_k <- ref_s <- NULL
  set.seed(8)
  for (o in list(seq_len(200), order(d$x[, 1]), sample(200))) {
    fit <- kernel_svm(K[o, o], d$y[o], kernel = "precomputed")
    dec <- predict(fit, K, type = "decision")  # columns found by name
    if (is.null(ref_k)) ref_k <- dec
    expect_equal(dec, ref_k, tolerance = 1e-3)
    fit <- kernel_svm(xs[o, ], ys[o], kernel = "polynomial", coef0 = 1)
    dec <- predict(fit, xs, type = "decision")
    if (is.null(ref_s)) ref_s <- dec
    expect_equal(dec, ref_s, tolerance = 1e-3)
  }
})

test_that("models of every kind predict, fit and summarise alike after readRDS in a fresh R", {
  skip_if_not_installed("Matrix")
  x <- iris_x
  y <- iris_y
  K <- kernel_matrix(x, kernel = "rbf", gamma = 0.5)
  rbf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.5)
  xs <- Matrix::Matrix(x, sparse = TRUE)
  set.seed(7)
  models <- list(
    means = kernel_means(Species ~ ., data = iris),
    parzen = kernel_parzen(x, y),
    bayes = kernel_bayes(Species ~ ., data = iris, type = 2),
    svm = kernel_svm(Species ~ ., data = iris, probability = TRUE),
    oneclass = kernel_svm(x, type = "one-classification", nu = 0.1),
    sparse = kernel_svm(xs, y),
    precomputed = kernel_svm(K, y, kernel = "precomputed"),
    means_precomputed = kernel_means(K, y, kernel = "precomputed"),
    svm_function = kernel_svm(x, y, kernel = rbf),
    parzen_function = kernel_parzen(x, y, kernel = rbf))
  if (requireNamespace("kernlab", quietly = TRUE)) {
    models$svm_kernlab <- kernel_svm(x, y, kernel = kernlab::rbfdot(sigma = 0.5))
  }
  rows <- c(1, 51, 101)
  newdata <- lapply(models, function(m) x[rows, ])
  newdata[c("means", "bayes", "svm")] <- list(iris[rows, ])
  newdata[c("precomputed", "means_precomputed")] <- list(K[rows, ])
  newdata$sparse <- xs[rows, ]
  eval(parse(text = round_trip_code))
  here <- round_trip(models, newdata)
  dir <- tempfile("kcroundtrip")
  dir.create(dir)
  saveRDS(models, file.path(dir, "models.rds"))
  saveRDS(newdata, file.path(dir, "newdata.rds"))
  child <- start_child(c(child_write_lines, round_trip_code,
    "suppressPackageStartupMessages(library(Matrix))",
    "there <- tryCatch(round_trip(readRDS(file.path(dir, 'models.rds')),",
    "                             readRDS(file.path(dir, 'newdata.rds'))),",
    "                  error = function(e) conditionMessage(e))",
    "put('there', there)"), dir = dir)
  on.exit(stop_child(child), add = TRUE)
  there <- take_from_child(child, "there", timeout = 120)
  expect_type(there, "list")
  expect_identical(names(there), names(here))
  for (nm in names(here)) expect_equal(there[[nm]], here[[nm]], info = nm)
})

test_that("saved precomputed, sparse and kernel-function SVMs hold their data once", {
  skip_if_not_installed("Matrix")
  set.seed(6)
  n <- 600
  x <- matrix(rnorm(n * 10), n)
  y <- factor(ifelse(x[, 1] + rnorm(n) > 0, "a", "b"))
  size <- function(obj) length(serialize(obj, NULL))
  K <- kernel_matrix(x, kernel = "rbf", gamma = 0.1)
  pre <- kernel_svm(K, y, kernel = "precomputed")
  expect_lt(size(pre), 1.1 * size(K))
  expect_lt(as.numeric(object.size(pre)), 1.1 * as.numeric(object.size(K)))
  back <- unserialize(serialize(pre, NULL))
  expect_lt(as.numeric(object.size(back)), 1.1 * as.numeric(object.size(K)))
  expect_identical(predict(back, K[1:5, ]), predict(pre, K[1:5, ]))

  xs <- Matrix::rsparsematrix(n, 2000, density = 0.05)
  ys <- factor(ifelse(as.vector(xs %*% rnorm(2000)) > 0, "a", "b"))
  sp <- kernel_svm(xs, ys, kernel = "linear", scale = FALSE)
  data_size <- size(list(xs@i, xs@x))
  expect_lt(size(sp), 1.2 * data_size)
  expect_identical(predict(unserialize(serialize(sp, NULL)), xs[1:5, ]), predict(sp, xs[1:5, ]))

  # (a function keeps its environment and source: here neither holds data)
  kern <- eval(parse(text = "function(a, b) tcrossprod(a, b) / 10", keep.source = FALSE),
               new.env(parent = globalenv()))
  fn <- kernel_svm(x, y, kernel = kern)
  # what the model holds: all but the tile function's code (which covr's
  # instrumentation makes carry its source file), its environment's objects
  # (the kernel function alone) included
  tile <- fn$x$tile
  held <- size(fn) - size(tile) + size(as.list(environment(tile)))
  expect_lt(held, 1.2 * size(x) + size(fn$eta) + size(fn$coefs) + 2e4)
  expect_identical(ls(environment(tile)), "fun")
})

# A kernel function that sends this process SIGINT on its `at`-th call and
# waits for it, as a user's Ctrl-C in the middle of the function.
interrupting_kernel <- function(at) {
  calls <- 0
  function(a, b) {
    calls <<- calls + 1
    if (calls == at) {
      tools::pskill(Sys.getpid(), tools::SIGINT)
      Sys.sleep(5)
    }
    tcrossprod(a, b)
  }
}

caught <- function(expr) {
  tryCatch({
    force(expr)
    "returned"
  }, interrupt = function(i) "interrupt", error = function(e) conditionMessage(e))
}

test_that("Ctrl-C in a user kernel function stays an interrupt on every callback path", {
  skip_on_os("windows")  # no SIGINT to send
  x <- iris_x[1:100, ]
  y <- droplevels(iris_y[1:100])
  fit <- kernel_svm(x, y, kernel = interrupting_kernel(Inf))
  parzen <- kernel_parzen(x, y, kernel = interrupting_kernel(Inf))
  paths <- list(
    svm = function() kernel_svm(x, y, kernel = interrupting_kernel(1)),
    svm_rows = function() kernel_svm(x, y, kernel = interrupting_kernel(3)),  # the solver's rows
    means = function() kernel_means(x, y, kernel = interrupting_kernel(1)),
    kernel_matrix = function() kernel_matrix(x, kernel = interrupting_kernel(1)),
    kernel_matrix_xy = function() kernel_matrix(x, x[1:3, ], kernel = interrupting_kernel(1)),
    cv = function() kernel_cv(kernel_svm, x, y, kernel = interrupting_kernel(5)),
    tune = function() {
      kernel_tune(kernel_svm, x, y, kernel = interrupting_kernel(5), grid = list(cost = 1:2))
    },
    predict = function() {
      environment(fit$x$tile)$fun <- interrupting_kernel(1)
      predict(fit, x)
    },
    predict_parzen = function() {
      environment(parzen$x$tile)$fun <- interrupting_kernel(1)
      predict(parzen, x)
    })
  for (nm in names(paths)) {
    expect_identical(caught(paths[[nm]]()), "interrupt", info = nm)
    # an error handler does not see it, so a loop of fits can be stopped
    res <- tryCatch(tryCatch(paths[[nm]](), error = function(e) "swallowed"),
                    interrupt = function(i) "interrupt")
    expect_identical(res, "interrupt", info = nm)
  }
  # errors in the function stay the user's errors, and R goes on
  boom <- function(a, b) stop("my kernel failed")
  expect_error(kernel_matrix(x, kernel = boom), "my kernel failed")
  expect_equal(kernel_matrix(x[1:3, ], kernel = function(a, b) tcrossprod(a, b)),
               tcrossprod(x[1:3, ]), ignore_attr = TRUE)
})
