# The representation layer (R/repr.R): every model carries the representation
# that the approximation table's `representation` column names, and a model
# without one (saved before models had it) is read the same. (About 1 s.)

test_that("each fit carries the representation of its approximation's table row", {
  set.seed(1)
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  specs <- list(exact = NULL, nystrom = nystrom(m = 20), fourier = random_fourier(m = 40),
                cells = cells(size = 60))
  fitters <- list(kernel_means = kernel_means, kernel_parzen = kernel_parzen,
                  kernel_bayes = function(...) kernel_bayes(..., type = 1),
                  kernel_svm = kernel_svm)
  n <- 0
  for (s in names(specs)) for (f in names(fitters)) {
    spec <- specs[[s]]
    want <- if (is.null(spec)) "exact" else kernclass:::kc_approximations[[spec$method]]$representation
    takes <- is.null(spec) || is.null(kernclass:::kc_approx_of(spec)$fitters) ||
      f %in% kernclass:::kc_approx_of(spec)$fitters
    if (!takes) {
      expect_error(fitters[[f]](x, y, approx = spec), class = "kernclass_approx_unsupported_error")
      next
    }
    fit <- fitters[[f]](x, y, approx = spec)
    expect_s3_class(fit$repr, paste0("kc_", want))
    # a model saved without `repr` gets it from its spec, with the same results
    old <- fit
    old$repr <- NULL
    expect_identical(class(kernclass:::kc_repr(old)), class(fit$repr))
    expect_identical(predict(old, x, type = "decision"), predict(fit, x, type = "decision"))
    expect_identical(capture.output(print(old)), capture.output(print(fit)))
    n <- n + 1
  }
  expect_equal(n, 13)  # 3 fitters lack cells()
})

test_that("kernel_means on features is the exact classifier's formula with the features' kernel", {
  # the one classifier over both representations: on features z, the exact
  # formulas with k(x, y) = z(x)'z(y), transcribed in plain R
  set.seed(2)
  x <- matrix(rnorm(120), 40)
  y <- factor(rep(c("a", "b"), 20))
  set.seed(3)
  fit <- kernel_means(x, y, scale = FALSE, approx = nystrom(m = 15, landmarks = "uniform"))
  z <- kernclass:::kc_features(fit$approx, x)
  K <- z %*% t(z)
  i <- y == "a"
  norms <- c(mean(K[i, i]), mean(K[!i, !i]))
  f <- cbind(rowMeans(K[, i]) - norms[1] / 2, rowMeans(K[, !i]) - norms[2] / 2)
  expect_equal(unname(fit$center_norms), norms, tolerance = 1e-10)
  expect_equal(unname(predict(fit, x, type = "decision")), f[, 1] - f[, 2], tolerance = 1e-10)
})

test_that("the representation interface is its primitives: no fitter's steps, no class tests", {
  ns <- asNamespace("kernclass")
  generic <- function(nm) {
    f <- get(nm, ns)
    is.function(f) && any(grepl("UseMethod(", deparse(body(f)), fixed = TRUE))
  }
  names <- ls(ns, pattern = "^kc_repr_[a-z_]+$")
  generics <- sort(Filter(generic, names))
  # class statistics, expansions, what a model keeps, the SVM's binary solve
  # (of one cost, and of several as a path) and its settings, fields and
  # Platt models, scores of new rows and their readings, the exact
  # shortcuts, progress, description
  expect_identical(generics, sort(c(
    "kc_repr_prepare", "kc_repr_progressor", "kc_repr_mean_norms", "kc_repr_expand",
    "kc_repr_density", "kc_repr_model", "kc_repr_svm_control", "kc_repr_svm_solve",
    "kc_repr_svm_costs", "kc_repr_svm_model", "kc_repr_svm_platt", "kc_repr_scores", "kc_repr_decision",
    "kc_repr_classify", "kc_repr_posterior", "kc_repr_exact_only", "kc_repr_print",
    "kc_repr_summary", "kc_repr_coef", "kc_repr_functions", "kc_repr_class")))
  # kernel_svm()'s flow is one function for every representation (cells too)
  expect_false(generic("kc_repr_svm"))
  # broom and the check read the fitter registry, never a fitter's class
  for (f in c("tidy.kernclass", "glance.kernclass", "kc_approx_refit_args",
              "kc_repr_functions.kc_exact", "kc_repr_coef.kc_features",
              "kc_repr_print.kc_features", "kc_repr_summary.kc_features",
              "kc_approx_baseline_rows")) {
    expect_false(any(grepl("inherits(", deparse(get(f, ns)), fixed = TRUE)), label = f)
  }
})
