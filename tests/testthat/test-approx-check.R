# The `check` of an approximation (R/repr-approx-check.R): its rows hold every
# class, on a rare class too, for every fitter; its figures are those of
# weighted fits; and its comparison with an exact fit on a subsample with the
# sizes "auto" chooses (R/table-approx.R): the baseline's rows and figures in
# plain R, its warning, its print lines.

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

# ---- against a subsample -----------------------------------------------------

# The sign of x1 x2 (opposite quadrants): an exact SVM on 209 rows gets
# 85-90% of it (15 seeds), a linear SVM on two Nystrom features 50-70%.
quadrants <- function(n, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(2 * n), n)
  list(x = x, y = factor(ifelse(x[, 1] * x[, 2] + rnorm(n, sd = 0.1) > 0, "a", "b")))
}

test_that("the baseline's rows are disjoint, of the stated sizes, and its figures plain R's", {
  d <- quadrants(1200)
  set.seed(2)
  fit <- suppressWarnings(kernel_svm(d$x, d$y, gamma = 1, scale = FALSE,
                                     approx = nystrom(m = 2, check = 200)))
  b <- fit$approx$baseline
  test <- b$rows$test
  sub <- b$rows$exact
  expect_length(test, 200)
  expect_identical(b$test, 200L)
  expect_length(sub, b$exact[["rows"]])
  expect_length(intersect(test, sub), 0L)
  expect_length(unique(sub), length(sub))
  # the approximation's refit has every row outside the held-out ones
  expect_equal(b$approx[["rows"]], 1200 - 200)
  # the subsample's size: the largest whose exact SVM the cost model says
  # takes the approximation's time (work 1.2e-10 s per product, 3e-10 s per
  # SVM kernel value and input + 20)
  n <- 1000; m <- 2; p <- 2
  work <- 1.2e-10 * (min(n, 20 * m, 10000) * m * p + n * m * (p + m / 2 + 1000))
  expect_equal(b$exact[["rows"]], max(50, floor(sqrt(work / (3e-10 * (p + 20))))))
  # the figures: the exact SVM refitted to those rows, scored on the held-out ones
  exact <- kernel_svm(d$x[sub, ], d$y[sub], gamma = 1, scale = FALSE)
  expect_equal(b$exact[["accuracy"]], mean(predict(exact, d$x[test, ]) == d$y[test]))
  acc <- c(b$approx[["accuracy"]], b$exact[["accuracy"]])
  expect_equal(b$se, sqrt(sum(acc * (1 - acc)) / 200))
})

test_that("set.seed() reproduces the baseline's rows and figures", {
  d <- quadrants(800)
  one <- function() {
    set.seed(5)
    suppressWarnings(kernel_svm(d$x, d$y, gamma = 1,
                                approx = random_fourier(m = 20, check = 150)))$approx$baseline
  }
  a <- one()
  b <- one()
  expect_identical(a$rows, b$rows)
  expect_identical(a$approx[c("rows", "accuracy")], b$approx[c("rows", "accuracy")])
  expect_identical(a$exact[c("rows", "accuracy")], b$exact[c("rows", "accuracy")])
})

test_that("the warning fires where the subsample must win, not on an easy rule", {
  d <- quadrants(1500)
  set.seed(3)
  expect_warning(fit <- kernel_svm(d$x, d$y, gamma = 1, approx = nystrom(m = 2, check = 300)),
                 class = "kernclass_approx_baseline_warning")
  b <- fit$approx$baseline
  expect_identical(b$verdict, "subsample")
  expect_gt(b$exact[["accuracy"]] - b$approx[["accuracy"]], 2 * b$se)
  out <- capture.output(print(fit))
  expect_true(any(grepl("against a subsample (on the 300 held-out rows)", out, fixed = TRUE)))
  expect_true(any(grepl("the subsample is better (beyond 2 standard errors", out, fixed = TRUE)))
  expect_output(print(summary(fit)), "against a subsample", fixed = TRUE)
  # a linear rule: the approximation holds its own
  set.seed(4)
  x <- matrix(rnorm(3000), 1500)
  y <- factor(ifelse(x[, 1] + x[, 2] > 0, "a", "b"))
  expect_no_warning(fit2 <- kernel_svm(x, y, approx = nystrom(m = 50, check = 300)))
  expect_false(fit2$approx$baseline$verdict == "subsample")
  # every fitter and cells() carry it
  set.seed(6)
  for (f in list(function(a) kernel_means(d$x, d$y, approx = a),
                 function(a) kernel_parzen(d$x, d$y, approx = a),
                 function(a) kernel_bayes(d$x, d$y, type = 1, approx = a))) {
    b <- suppressWarnings(f(nystrom(m = 30, check = 200)))$approx$baseline
    expect_identical(b$test, 200L)
    expect_true(b$verdict %in% c("subsample", "tie", "approximation"))
  }
  fit3 <- suppressWarnings(kernel_svm(d$x, d$y, approx = cells(size = 300, check = 200)))
  expect_identical(fit3$approx$baseline$test, 200L)
  expect_output(print(fit3), "against a subsample (on the 200 held-out rows)", fixed = TRUE)
  expect_output(print(summary(fit3)), "against a subsample", fixed = TRUE)
})

test_that("size \"auto\" grows as sqrt(n) from the old defaults, and print says so", {
  for (n in c(100, 5000, 40000, 1e6)) {
    expect_identical(ns$kc_approx_sized(nystrom(), n)$m,
                     as.integer(max(300, min(2000, round(4 * sqrt(n))))))
    expect_identical(ns$kc_approx_sized(random_fourier(), n)$m,
                     as.integer(max(1000, min(4000, round(8 * sqrt(n))))))
    expect_identical(ns$kc_approx_sized(cells(), n)$size,
                     as.integer(max(2000, min(5000, round(10 * sqrt(n))))))
  }
  expect_identical(ns$kc_approx_sized(nystrom(m = 40), 1e6)$m, 40L)
  expect_error(nystrom(m = "many"), class = "kernclass_input_error")
  expect_error(cells(size = "big"), class = "kernclass_input_error")
  d <- quadrants(200)
  set.seed(1)
  fit <- kernel_means(d$x, d$y, approx = nystrom())
  expect_identical(fit$approx$spec$m, 300L)
  expect_output(print(fit), "m = 300 chosen from n = 200 rows: 4 sqrt(n) within 300 to 2,000",
                fixed = TRUE)
  # the check refits with "auto" as given, chosen anew from its rows
  expect_identical(ns$kc_approx_as_given(fit$approx$spec)$m, "auto")
  expect_output(print(kernel_svm(d$x, d$y, approx = cells())),
                "size = 2,000 chosen from n = 200 rows", fixed = TRUE)
})

test_that("without a check the model keeps and prints the cost model's subsample", {
  d <- quadrants(2000)
  set.seed(1)
  fit <- kernel_svm(d$x, d$y, approx = nystrom(m = 10))
  n <- 2000; m <- 10; p <- 2
  work <- 1.2e-10 * (min(n, 20 * m, 10000) * m * p + n * m * (p + m / 2 + 1000))
  expect_identical(fit$approx$subsample, as.integer(floor(sqrt(work / (3e-10 * (p + 20))))))
  expect_null(fit$approx$baseline)
  line <- sprintf("by the cost model an exact fit of %s training rows takes about this fit's time",
                  format(fit$approx$subsample, big.mark = ","))
  expect_output(print(fit), line, fixed = TRUE)
  expect_output(print(summary(fit)), line, fixed = TRUE)
  # kernel_parzen() has no fit to speak of: its subsample is all the rows
  expect_identical(kernel_parzen(d$x, d$y, approx = nystrom(m = 10))$approx$subsample, 2000L)
  # cells (kernel_svm's per-cell SVMs at twice the cost)
  fit2 <- kernel_svm(d$x, d$y, approx = cells(size = 500))
  expect_output(print(fit2), "by the cost model an exact fit of", fixed = TRUE)
})

test_that("the baseline refits the approximation with the size and blend the model chose", {
  fit <- list(approx = list(spec = ns$kc_approx_sized(cells(check = 30), 4e4),
                            blend = list(K = 5L, rule = "5 nearest")))
  spec <- ns$kc_approx_as_fitted(fit)
  expect_identical(spec$size, 2000L)
  expect_identical(spec$blend, 5L)
  expect_identical(spec$check, 0L)
  expect_null(spec$chosen)
})
