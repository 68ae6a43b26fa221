# The `check` of an approximation (R/repr-approx-check.R): its rows hold every
# class, on a rare class too, for every fitter; its figures are those of
# weighted fits.

ns <- asNamespace("kernclass")

test_that("the check's rows hold every class with 2 rows or more in both halves", {
  d <- rare_class()
  for (seed in 1:30) {
    set.seed(seed)
    r <- ns$kc_check_rows(d$y, 50L)
    expect_length(r$train, 50L)
    expect_length(r$test, 50L)
    expect_length(unique(c(r$train, r$test)), 100L)
    expect_setequal(unique(d$y[r$train]), levels(d$y))
    expect_setequal(unique(d$y[r$test]), levels(d$y))
  }
  # a class of one row goes to the fit; weight-0 rows are never drawn
  y <- factor(c("s", rep(c("a", "b"), 20)))
  w <- c(1, rep(c(0, 1, 1, 1), 10))
  for (seed in 1:10) {
    set.seed(seed)
    r <- ns$kc_check_rows(y, 10L, w)
    expect_true(1L %in% r$train)
    expect_true(all(w[c(r$train, r$test)] > 0))
  }
  # too few rows, or fewer fit rows than classes: a classed error naming `check`
  expect_error(ns$kc_check_rows(d$y, 200L), class = "kernclass_input_error")
  err <- tryCatch(ns$kc_check_rows(d$y, 2L), error = identity)
  expect_identical(err$arg, "check")
})

test_that("check = s works on a rare class for every fitter, whatever the seed", {
  d <- rare_class()
  fits <- list(
    means = function() kernel_means(d$x, d$y, approx = nystrom(m = 20, check = 50)),
    parzen = function() kernel_parzen(d$x, d$y, approx = nystrom(m = 20, check = 50)),
    bayes = function() {
      kernel_bayes(d$x, d$y, type = 1, approx = random_fourier(m = 40, check = 50))
    },
    svm = function() kernel_svm(d$x, d$y, approx = nystrom(m = 20, check = 50)),
    cells = function() kernel_svm(d$x, d$y, approx = cells(size = 100, check = 50)))
  # seeds where the check's uniform draw missed the rare class before
  for (seed in c(1, 5, 6)) {
    for (nm in names(fits)) {
      set.seed(seed)
      expect_no_warning(fit <- fits[[nm]]())
      ch <- fit$approx$check
      expect_identical(ch[["rows"]], 50)
      expect_true(all(ch[-1L] >= 0 & ch[-1L] <= 1), label = nm)
    }
  }
})

test_that("the check honours observation weights: its figures are those of weighted fits", {
  d <- rare_class(n = 240, seed = 4)
  set.seed(9)
  w <- ifelse(d$y == "a", 0.05, runif(length(d$y), 0.5, 2))
  w[sample.int(240, 20)] <- 0
  s <- 60L
  set.seed(2)
  fit <- kernel_svm(d$x, d$y, weights = w, approx = cells(size = 80, check = s))
  # the same fit without the check draws the same numbers up to the check
  set.seed(2)
  fit0 <- kernel_svm(d$x, d$y, weights = w, approx = cells(size = 80))
  r <- ns$kc_check_rows(d$y, s, w)
  one <- function(approx) {
    kernel_svm(fit0$x[r$train, ], d$y[r$train], weights = w[r$train], scale = FALSE,
               gamma = fit0$kernel$gamma, approx = approx)
  }
  test <- fit0$x[r$test, ]
  exact <- as.character(predict(one(NULL), test))
  local <- as.character(predict(one(cells(size = 80)), test))
  truth <- as.character(d$y[r$test])
  expect_equal(fit$approx$check,
               c(rows = s, agreement = mean(exact == local), exact_accuracy = mean(exact == truth),
                 approx_accuracy = mean(local == truth)))
  # and the weights change them (the unweighted check of before reported these)
  set.seed(2)
  plain <- kernel_svm(d$x, d$y, approx = cells(size = 80, check = s))
  expect_false(isTRUE(all.equal(plain$approx$check, fit$approx$check)))
})
