# The SVM's precision check and centring (R/fit-svm-precision.R): kernel values
# with a large common part are solved as precisely as the same kernel computed
# here, and the check judges the data, not the order of their rows.

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
