# Properties of the calibration layer over seeds and fitters: recalibrate()
# and conformal() in either order, held-out rows missing a class, and
# cross-validations of the same or another classifier. Expected values are
# the quantile rule and the class rule transcribed in plain R.
# Cost: a few seconds (n = 240 split four ways, twelve fits of 60 rows).

testthat::local_edition(3)

prop_data <- function(n, seed) {
  set.seed(seed)
  y <- factor(sample(c("a", "b", "c"), n, replace = TRUE), levels = c("a", "b", "c"))
  x <- matrix(rnorm(2 * n), n) + cbind(c(0, 1.5, 0)[y], c(0, 0, 1.5)[y])
  colnames(x) <- c("u", "v")
  list(x = x, y = y)
}

prop_fitters <- list(
  means = function(x, y, ...) kernel_means(x, y, ...),
  parzen = function(x, y, ...) kernel_parzen(x, y, ...),
  svm = function(x, y, ...) kernel_svm(x, y, probability = TRUE, ...))

# the ceiling((n + 1) level)-th smallest score, Inf past n
prop_q <- function(s, level) {
  k <- ceiling((length(s) + 1) * level)
  if (k > length(s)) Inf else sort(s)[k]
}

test_that("recalibrate then conformal: coverage holds on average; sets and probabilities agree", {
  level <- 0.8
  cover <- NULL
  for (seed in 1:4) {
    d <- prop_data(240, seed)
    fit_rows <- 1:60
    rec <- 61:120
    cal <- 121:180
    new <- 181:240
    for (nm in names(prop_fitters)) {
      fit <- prop_fitters[[nm]](d$x[fit_rows, ], d$y[fit_rows], gamma = 0.5)
      method <- if (seed %% 2) "platt" else "isotonic"
      rc <- recalibrate(fit, d$x[rec, ], d$y[rec], method = method)
      cf <- conformal(rc, d$x[cal, ], d$y[cal])
      p_new <- predict(cf, d$x[new, ], type = "prob")
      p_cal <- predict(cf, d$x[cal, ], type = "prob")
      expect_equal(unname(rowSums(p_new)), rep(1, length(new)), info = nm)
      expect_true(all(p_new >= 0 & p_new <= 1), info = nm)
      # the scores are the calibration rows' recalibrated probabilities
      s_cal <- 1 - p_cal[cbind(seq_along(cal), as.integer(d$y[cal]))]
      expect_equal(cf$conformal$scores, unname(s_cal), info = nm)
      sets <- predict(cf, d$x[new, ], type = "set", level = level)
      expect_identical(unname(unclass(sets)[, ]), unname(1 - p_new <= prop_q(s_cal, level)),
                       info = nm)
      # a non-empty set holds the most probable class, the predicted class
      cls <- predict(cf, d$x[new, ])
      top <- max.col(p_new, ties.method = "first")
      expect_identical(as.integer(cls), top, info = nm)
      full <- rowSums(sets) > 0
      expect_true(all(unclass(sets)[cbind(which(full), top[full])]), info = nm)
      cover <- c(cover, mean(unclass(sets)[cbind(seq_along(new), as.integer(d$y[new]))]))
    }
  }
  # split conformal: E coverage >= level; each run's coverage has sd about
  # sqrt(0.8 * 0.2 / 60) + the test rows' ~0.05, so 12 runs' mean ~0.02
  expect_gte(mean(cover), level - 0.06)
  expect_lte(mean(cover), level + 1 / 61 + 0.06)
})

test_that("conformal then recalibrate: the calibration goes, with a warning, and comes back valid", {
  for (seed in 5:6) {
    d <- prop_data(180, seed)
    for (nm in names(prop_fitters)) {
      fit <- prop_fitters[[nm]](d$x[1:60, ], d$y[1:60], gamma = 0.5)
      cf <- conformal(fit, d$x[61:120, ], d$y[61:120], score = "aps")
      expect_warning(rc <- recalibrate(cf, d$x[121:180, ], d$y[121:180]),
                     class = "kernclass_conformal_removed_warning")
      expect_null(rc$conformal)
      expect_error(predict(rc, d$x[1:3, ], type = "set", level = 0.9),
                   class = "kernclass_set_unavailable_error")
      expect_false(any(grepl("Conformal", capture.output(print(rc)))), info = nm)
      # calibrated again, on rows other than the recalibration's: the
      # scores follow the recalibrated probabilities
      again <- conformal(rc, d$x[61:120, ], d$y[61:120], score = "aps")
      p <- predict(rc, d$x[61:120, ], type = "prob")
      expect_false(isTRUE(all.equal(again$conformal$scores, cf$conformal$scores)), info = nm)
      expect_identical(again$conformal$recalibration, "isotonic")
      expect_equal(unname(rowSums(p)), rep(1, 60))
    }
  }
})

test_that("held-out rows without a class: recalibrate() errors, conformal() covers it by Mondrian", {
  for (seed in 7:8) {
    d <- prop_data(150, seed)
    for (nm in names(prop_fitters)) {
      fit <- prop_fitters[[nm]](d$x[1:60, ], d$y[1:60])
      gone <- levels(d$y)[seed %% 3 + 1]
      keep <- which(d$y != gone)
      keep <- keep[keep > 60]
      e <- expect_error(recalibrate(fit, d$x[keep, ], d$y[keep]), gone,
                        class = "kernclass_missing_class_error")
      expect_identical(e$arg, "y")
      expect_s3_class(e, "kernclass_input_error")
      # conformal: valid without the class; Mondrian puts it in every set
      cf <- conformal(fit, d$x[keep, ], d$y[keep], mondrian = TRUE)
      sets <- predict(cf, d$x[1:20, ], type = "set", level = 0.9)
      expect_true(all(unclass(sets)[, gone]), info = nm)
    }
  }
})

test_that("a cv of the same classifier passes, of another fitter or settings is a classed error", {
  d <- prop_data(90, 9)
  set.seed(1)
  for (nm in names(prop_fitters)) {
    f <- prop_fitters[[nm]]
    fit <- f(d$x, d$y, gamma = 0.5)
    fitter <- switch(nm, means = kernel_means, parzen = kernel_parzen, svm = kernel_svm)
    same <- kernel_cv(fitter, d$x, d$y, folds = 3, metric = "brier", gamma = 0.5)
    rc <- recalibrate(fit, cv = same)
    expect_identical(rc$recalibration$source, "cv")
    cf <- conformal(fit, cv = same)
    expect_equal(cf$conformal$scores, 1 - same$prob[cbind(1:90, as.integer(d$y))])
    other <- kernel_cv(if (nm == "means") kernel_parzen else kernel_means, d$x, d$y, folds = 3,
                       metric = "brier", gamma = 0.5)
    for (g in list(conformal, recalibrate)) {
      e <- expect_error(g(fit, cv = other), class = "kernclass_cv_mismatch_error")
      expect_identical(e$arg, "cv")
    }
    settings <- kernel_cv(fitter, d$x, d$y, folds = 3, metric = "brier", gamma = 2)
    expect_error(conformal(fit, cv = settings), "`gamma` is 2 in `cv` and 0.5",
                 class = "kernclass_cv_mismatch_error")
    expect_error(recalibrate(fit, cv = settings), class = "kernclass_cv_mismatch_error")
  }
})
