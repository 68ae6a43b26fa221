# Bad input to kernel_bayes(): the foundation's checks (test-input-messages.R)
# and its own arguments, each a classed error naming the argument.

testthat::local_edition(3)

set.seed(101)
x <- matrix(rnorm(60), 30, 2, dimnames = list(NULL, c("a", "b")))
y <- factor(rep(c("u", "v"), 15))
dat <- data.frame(x, cls = y)

expect_kc_error <- function(expr, regexp) {
  expect_error(expr, regexp = regexp, class = "kernclass_error")
}

test_that("type outside 1:3 is an error naming `type`", {
  for (t in list(0, 4, 2.5, NA, "2", c(1, 2), NULL)) {
    expect_kc_error(kernel_bayes(x, y, type = t), "`type` must be 1, 2 or 3")
  }
  expect_kc_error(kernel_bayes(cls ~ ., data = dat, type = 5), "`type` must be 1, 2 or 3.*got 5")
})

test_that("ridge < 0 or not a number is an error naming `ridge`", {
  for (r in list(-1, -1e-12, NA, Inf, "0", c(0, 1))) {
    expect_kc_error(kernel_bayes(x, y, ridge = r), "`ridge` must be a finite number >= 0")
  }
})

test_that("a class with fewer than 2 rows is an error naming `y` (types 2 and 3)", {
  y1 <- factor(c(rep("u", 29), "v"))
  for (t in 2:3) {
    expect_kc_error(kernel_bayes(x, y1, type = t), "`y` has class\\(es\\) \"v\" with fewer than 2")
  }
  # type 1 needs no covariance
  expect_s3_class(kernel_bayes(x, y1, type = 1), "kernel_bayes")
  y3 <- factor(c(rep(c("u", "v"), 14), "w", "u"))
  expect_kc_error(kernel_bayes(x, y3, type = 3), "\"w\"")
})

test_that("the foundation's checks hold for kernel_bayes", {
  expect_kc_error(kernel_bayes(x, factor(rep("u", 30))), "`y`.*only one class")
  expect_kc_error(kernel_bayes(x, rep(1:2, 15)), "`y` must be a factor")
  expect_kc_error(kernel_bayes(x), "`y` is missing")
  expect_kc_error(kernel_bayes(matrix(as.character(x), 30, 2), y), "`x` must be a numeric matrix")
  for (bad in c(NA, NaN, Inf)) {
    xb <- x
    xb[4, 2] <- bad
    expect_kc_error(kernel_bayes(xb, y), "`x` has (missing|infinite) values")
  }
  yb <- y
  yb[3] <- NA
  expect_kc_error(kernel_bayes(x, yb), "`y` has 1 missing label")
  expect_kc_error(kernel_bayes(x, y[-1]), "`y` has length 29 but `x` has 30 rows")
  expect_kc_error(kernel_bayes(x, y, gamma = -1), "`gamma` must be a finite number > 0")
  expect_kc_error(kernel_bayes(x, y, kernel = "polynomial", degree = 2.5),
                  "`degree` must be a whole number")
  expect_kc_error(kernel_bayes(x, y, kernel = "sigmoid", coef0 = NA), "`coef0` must be a finite")
  expect_kc_error(kernel_bayes(x, y, kernel = "gauss"), "`kernel` must be one of")
  expect_kc_error(kernel_bayes(x, y, scale = "yes"), "`scale` must be TRUE or FALSE")
  expect_kc_error(kernel_bayes(x, y, gama = 1), "Unknown argument.*gama")
  expect_kc_error(kernel_bayes(cls ~ ., data = dat, gama = 1), "Unknown argument.*gama")
  expect_kc_error(kernel_bayes(x, y, threshold = "search"), "Unknown argument.*threshold")
  expect_kc_error(kernel_bayes(a ~ b, data = dat), "`a` must be a factor")
  fit <- kernel_bayes(cls ~ a + b, data = dat)
  expect_kc_error(predict(fit, dat["a"]), "`newdata` lacks column\\(s\\) \"b\"")
  expect_kc_error(predict(fit, dat, type = "probability"), "`type` must be one of")
  fit_m <- kernel_bayes(unname(x), y)
  expect_kc_error(predict(fit_m, cbind(x, x)), "`newdata` has 4 column\\(s\\)")
  cnd <- tryCatch(kernel_bayes(x, y, ridge = -1), error = identity)
  expect_identical(cnd$arg, "ridge")
  expect_null(conditionCall(cnd))
})

test_that("empty levels warn, constant columns warn and stay finite, NA rows predict NA", {
  ye <- factor(as.character(y), levels = c("u", "empty", "v"))
  expect_warning(fit <- kernel_bayes(x, ye), "\"empty\" with no observations",
                 class = "kernclass_warning")
  expect_identical(fit$levels, c("u", "v"))
  xc <- cbind(x, k = 3)
  for (t in 1:3) {
    expect_warning(fit <- kernel_bayes(xc, y, type = t), "constant",
                   class = "kernclass_constant_column_warning")
    expect_true(all(is.finite(predict(fit, type = "decision"))))
  }
  fit <- kernel_bayes(cls ~ ., data = dat, type = 3)
  nd <- dat[1:4, ]
  nd$a[2] <- NA
  dec <- predict(fit, nd, type = "decision")
  expect_true(is.na(dec[2]) && all(is.finite(dec[-2])))
  expect_equal(dec[-2], predict(fit, dat[c(1, 3, 4), ], type = "decision"))
  expect_true(all(is.na(predict(fit, nd, type = "prob")[2, ])))
  expect_length(predict(fit, dat[0, ]), 0L)
})
