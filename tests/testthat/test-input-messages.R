# The messages of the input checks (R/input-checks.R): each names the argument
# in backticks and says what is wrong; the warnings of empty levels, constant
# columns and unseen factor levels (which classes and arguments every exported
# function gives is test-input.R's table).

testthat::local_edition(3)

set.seed(101)
x <- matrix(rnorm(60), 30, 2, dimnames = list(NULL, c("a", "b")))
y <- factor(rep(c("u", "v"), 15))
dat <- data.frame(x, cls = y)

classifiers <- list(kernel_means = kernel_means, kernel_parzen = kernel_parzen)

# Both classifiers, default method: same class of error, same argument named.
expect_both <- function(args, regexp, class = "kernclass_error") {
  for (nm in names(classifiers)) {
    expect_error(do.call(classifiers[[nm]], args), regexp = regexp, class = class,
                 info = nm)
  }
}

test_that("y with a single class is an error naming `y`", {
  expect_both(list(x, factor(rep("u", 30))), "`y`.*only one class")
  # a single class left after dropping empty levels is still one class
  one <- factor(rep("u", 30), levels = c("u", "v"))
  for (f in classifiers) {
    expect_error(suppressWarnings(f(x, one)), "`y`.*only one class", class = "kernclass_error")
  }
  expect_error(kernel_means(cls ~ ., data = transform(dat, cls = factor("u"))),
               "`cls`.*only one class", class = "kernclass_error")
})

test_that("numeric (not factor-like) y is an error naming `y`", {
  expect_both(list(x, rep(1:2, 15)), "`y` must be a factor")
  expect_both(list(x, rep(c(0.5, 1.5), 15)), "factor\\(y\\)")
  expect_error(kernel_parzen(a ~ b, data = dat), "`a` must be a factor",
               class = "kernclass_error")
})

test_that("missing y is an error naming `y`", {
  expect_both(list(x), "`y` is missing")
})

test_that("non-numeric x is an error naming `x`", {
  chr <- matrix(as.character(x), 30, 2)
  expect_both(list(chr, y), "`x` must be a numeric matrix")
  expect_both(list(list(x[, 1], x[, 2]), y), "`x` must be a numeric matrix")
  expect_error(kernel_matrix(chr), "`x` must be a numeric matrix", class = "kernclass_error")
  expect_error(kernel_matrix(list(1, 2)), "`x` must be a numeric matrix",
               class = "kernclass_error")
  # kernel_matrix does not code data frames: a character column is an error
  expect_error(kernel_matrix(data.frame(a = 1:2, s = c("p", "q"))),
               "`x` must have numeric columns only.*\"s\"", class = "kernclass_error")
})

test_that("a data frame with a character column is coded, not rejected", {
  df <- data.frame(a = x[, 1], s = rep(c("p", "q", "r"), 10))
  fit <- kernel_means(df, y)
  expect_s3_class(fit, "kernclass")
  expect_identical(colnames(fit$x), c("a", "sp", "sq", "sr"))
  expect_identical(fit$xlevels, list(s = c("p", "q", "r")))
})

test_that("NA, NaN and Inf in x are errors naming `x`", {
  for (bad in c(NA, NaN, Inf, -Inf)) {
    xb <- x
    xb[4, 2] <- bad
    what <- if (is.infinite(bad)) "`x` has infinite values" else "`x` has missing values"
    expect_both(list(xb, y), what)
    expect_error(kernel_matrix(xb), what, class = "kernclass_error")
    expect_error(kernel_matrix(x, xb), sub("`x`", "`y`", what, fixed = TRUE),
                 class = "kernclass_error")
  }
  # the message points at the offending row
  xb <- x
  xb[7, 1] <- NA
  expect_error(kernel_means(xb, y), "row\\(s\\), e\\.g\\. 7", class = "kernclass_error")
})

test_that("NA in y is an error naming `y`", {
  yb <- y
  yb[c(3, 9)] <- NA
  expect_both(list(x, yb), "`y` has 2 missing label")
})

test_that("Inf in x is an error with the formula method, even with na.omit", {
  d <- dat
  d$a[5] <- Inf
  for (f in classifiers) {
    expect_error(f(cls ~ ., data = d), "infinite values", class = "kernclass_error")
    expect_error(f(cls ~ ., data = d, na.action = na.omit), "infinite values",
                 class = "kernclass_error")
  }
})

test_that("the formula method with na.omit drops NA rows and records them", {
  d <- dat
  d$a[c(2, 11)] <- NA
  d$cls[20] <- NA
  for (f in classifiers) {
    fit <- f(cls ~ ., data = d, na.action = na.omit)
    expect_s3_class(fit, "kernclass")
    expect_length(fit$y, 27L)
    expect_equal(nrow(fit$x), 27L)
    expect_s3_class(fit$na.action, "omit")
    expect_equal(unname(as.integer(fit$na.action)), c(2L, 11L, 20L))
  }
  # the default method has no na.action: NA rows are errors
  expect_error(kernel_means(as.matrix(d[1:2]), d$cls), "`x` has missing values",
               class = "kernclass_error")
})

test_that("x and y of different lengths are an error naming `y`", {
  expect_both(list(x, y[-1]), "`y` has length 29 but `x` has 30 rows")
  expect_both(list(x, c(y, y)), "`y` has length 60")
})

test_that("bad gamma is an error naming `gamma`", {
  for (g in list(0, -1, NA, NA_real_, c(1, 2), Inf)) {
    expect_both(list(x, y, gamma = g), "`gamma` must be a finite number > 0")
    expect_error(kernel_matrix(x, gamma = g), "`gamma` must be a finite number > 0",
                 class = "kernclass_error")
  }
  # the one string gamma may be is "median"
  expect_both(list(x, y, gamma = "1"), '`gamma` must be a number > 0 or "median"; got "1"')
  expect_error(kernel_means(x, y, gamma = -2), "got -2", class = "kernclass_error")
})

test_that("bad degree is an error naming `degree`", {
  for (dg in list(0, 2.5, -1, NA, "2")) {
    expect_both(list(x, y, kernel = "polynomial", degree = dg), "`degree` must be a whole number")
    expect_error(kernel_matrix(x, kernel = "polynomial", degree = dg),
                 "`degree` must be a whole number", class = "kernclass_error")
  }
  expect_both(list(x, y, kernel = "polynomial", degree = 1e7), "`degree` must be at most")
})

test_that("bad coef0 is an error naming `coef0`", {
  for (c0 in list(NA, NA_real_, Inf, "0", c(0, 1))) {
    expect_both(list(x, y, kernel = "sigmoid", coef0 = c0), "`coef0` must be a finite number")
    expect_error(kernel_matrix(x, kernel = "polynomial", coef0 = c0),
                 "`coef0` must be a finite number", class = "kernclass_error")
  }
})

test_that("unknown kernel names are errors naming `kernel`", {
  expect_both(list(x, y, kernel = "gauss"), "`kernel` must be one of .*\"gauss\"")
  expect_both(list(x, y, kernel = c("rbf", "linear")), "`kernel` must be one string")
  expect_both(list(x, y, kernel = NA_character_), "`kernel` must be one string")
  expect_both(list(x, y, kernel = 1), "`kernel` must be one string")
  expect_error(kernel_matrix(x, kernel = "foo"), "`kernel` must be one of",
               class = "kernclass_error")
  # the documented aliases are accepted
  expect_identical(kernel_means(x, y, kernel = "radial")$kernel$name, "rbf")
  expect_identical(kernel_parzen(x, y, kernel = "laplacian")$kernel$name, "laplace")
})

test_that("scale not TRUE/FALSE is an error naming `scale`", {
  for (s in list("yes", NA, c(TRUE, FALSE), 1, NULL)) {
    expect_both(list(x, y, scale = s), "`scale` must be TRUE or FALSE")
  }
})

test_that("unknown extra arguments are errors, for default and formula methods", {
  expect_both(list(x, y, gama = 1), "Unknown argument.*gama")
  expect_error(kernel_means(x, y, "rbf", NULL, 3, 0, TRUE, 99), "Unknown argument.*<unnamed>",
               class = "kernclass_error")
  for (f in classifiers) {
    expect_error(f(cls ~ ., data = dat, gama = 1), "Unknown argument.*gama",
                 class = "kernclass_error")
  }
  # `prior` is not an argument of kernel_means
  expect_error(kernel_means(x, y, prior = c(0.5, 0.5)), "Unknown argument.*prior",
               class = "kernclass_error")
})

test_that("bad prior is an error naming `prior`", {
  expect_error(kernel_parzen(x, y, prior = c(0.2, 0.3, 0.5)),
               "`prior` must be 2 positive numbers", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, prior = c(-0.5, 1.5)),
               "`prior` must be 2 positive numbers", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, prior = c(0, 1)),
               "`prior` must be 2 positive numbers", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, prior = c(NA, 1)),
               "`prior` must be 2 positive numbers", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, prior = c("0.5", "0.5")),
               "`prior` must be 2 positive numbers", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, prior = c(0.3, 0.3)),
               "`prior` must sum to 1; it sums to 0.6", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, prior = c(p = 0.5, q = 0.5)),
               "`prior` names .*do not match the classes", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, prior = c(u = 0.5, u = 0.5)),
               "`prior` names", class = "kernclass_error")
  expect_error(kernel_parzen(cls ~ ., data = dat, prior = 1),
               "`prior` must be 2 positive numbers", class = "kernclass_error")
  # named priors are matched to the levels, whatever their order
  fit <- kernel_parzen(x, y, prior = c(v = 0.3, u = 0.7))
  expect_equal(fit$prior, c(u = 0.7, v = 0.3))
})

test_that("newdata lacking a column used by the model is an error naming `newdata`", {
  fit_f <- kernel_means(cls ~ a + b, data = dat)
  expect_error(predict(fit_f, dat["a"]), "`newdata` lacks column\\(s\\) \"b\"",
               class = "kernclass_error")
  fit_m <- kernel_parzen(x, y)
  expect_error(predict(fit_m, x[, "b", drop = FALSE]), "`newdata` lacks column\\(s\\) \"a\"",
               class = "kernclass_error")
  expect_error(predict(fit_m, data.frame(a = 1, c = 2)), "`newdata` lacks column",
               class = "kernclass_error")
})

test_that("newdata with the wrong number of columns is an error naming `newdata`", {
  fit <- kernel_means(unname(x), y)
  expect_error(predict(fit, cbind(x, x)), "`newdata` has 4 column\\(s\\) but the model was fitted on 2",
               class = "kernclass_error")
  expect_error(predict(fit, x[, 1]), "`newdata` has 1 column\\(s\\)",
               class = "kernclass_error")
  # a model with names and newdata without: matched by position, checked
  fit_n <- kernel_means(x, y)
  expect_error(predict(fit_n, unname(x[, 1, drop = FALSE])), "`newdata` has 1 column\\(s\\)",
               class = "kernclass_error")
})

test_that("newdata of the wrong kind or with bad values is an error naming `newdata`", {
  fit_m <- kernel_means(x, y)
  fit_f <- kernel_means(cls ~ ., data = dat)
  expect_error(predict(fit_m, "a"), "`newdata` must be a numeric matrix",
               class = "kernclass_error")
  expect_error(predict(fit_f, "a"), "`newdata` must be a data frame",
               class = "kernclass_error")
  expect_error(predict(fit_f, list(a = 1, b = 2)), "`newdata` must be a data frame",
               class = "kernclass_error")
  nd <- x[1:3, ]
  nd[2, 1] <- Inf
  expect_error(predict(fit_m, nd), "`newdata` has infinite values \\(rows 2\\)",
               class = "kernclass_error")
  expect_error(predict(fit_f, as.data.frame(nd)), "`newdata` has infinite values",
               class = "kernclass_error")
})

test_that("a new factor level in newdata gives NA for its row, with a classed warning", {
  df <- data.frame(a = x[, 1], f = factor(rep(c("p", "q", "r"), 10)))
  fit_d <- kernel_means(df, y)
  fit_f <- kernel_parzen(cls ~ a + f, data = cbind(df, cls = y))
  nd <- data.frame(a = 0, f = "zz")
  expect_warning(p <- predict(fit_d, nd), "`newdata`.*\"zz\" not seen in training",
                 class = "kernclass_unpredictable_warning")
  expect_true(is.na(p))
  expect_warning(p <- predict(fit_f, nd), "`newdata`.*\"zz\" not seen in training",
                 class = "kernclass_unpredictable_warning")
  expect_true(is.na(p))
})

test_that("an invalid predict type is an error naming `type`", {
  fit <- kernel_means(x, y)
  expect_error(predict(fit, x, type = "probability"), "`type` must be one of",
               class = "kernclass_error")
  expect_error(predict(fit, x, type = c("class", "prob")), "`type` must be one of",
               class = "kernclass_error")
  expect_error(predict(fit, x, type = 1), "`type` must be one of",
               class = "kernclass_error")
  expect_error(predict(fit, x, foo = 1), "Unknown argument.*foo",
               class = "kernclass_error")
  # probabilities need a density kernel for the Parzen classifier
  lin <- kernel_parzen(x, y, kernel = "linear")
  expect_error(predict(lin, x, type = "prob"), "type = \"prob\" needs a kernel",
               class = "kernclass_prob_unavailable_error")
})

test_that("kernel_matrix: y with a different number of columns is an error naming `y`", {
  expect_error(kernel_matrix(x, x[, 1, drop = FALSE]),
               "`y` has 1 column\\(s\\) but `x` has 2", class = "kernclass_error")
  expect_error(kernel_matrix(x, cbind(x, 1)), "`y` has 3 column\\(s\\) but `x` has 2",
               class = "kernclass_error")
  expect_error(kernel_matrix(x, matrix("a", 2, 2)), "`y` must be a numeric matrix",
               class = "kernclass_error")
})

test_that("errors carry the kernclass classes and the argument", {
  cnd <- tryCatch(kernel_means(x, y, gamma = -1), error = identity)
  expect_s3_class(cnd, c("kernclass_input_error", "kernclass_error", "error"), exact = FALSE)
  expect_identical(cnd$arg, "gamma")
  expect_null(conditionCall(cnd))
})

test_that("empty levels of y give a kernclass warning and are dropped", {
  ye <- factor(as.character(y), levels = c("u", "empty", "v"))
  for (f in classifiers) {
    expect_warning(fit <- f(x, ye), "`y` has level\\(s\\) \"empty\" with no observations",
                   class = "kernclass_warning")
    expect_identical(fit$levels, c("u", "v"))
    expect_identical(levels(predict(fit, x)), c("u", "v"))
  }
  # the formula method drops them too (model.frame(drop.unused.levels = TRUE))
  fit <- suppressWarnings(kernel_means(cls ~ ., data = transform(dat, cls = ye)))
  expect_identical(fit$levels, c("u", "v"))
})

test_that("a constant column gives a warning and the other columns are still scaled", {
  xc <- cbind(x, k = 3)
  for (f in classifiers) {
    expect_warning(fit <- f(xc, y), "\"k\".*constant",
                   class = "kernclass_constant_column_warning")
    expect_equal(fit$scaling$center, c(a = mean(x[, 1]), b = mean(x[, 2]), k = 0))
    expect_equal(fit$scaling$scale, c(a = sd(x[, 1]), b = sd(x[, 2]), k = 1))
    expect_equal(unname(colMeans(fit$x[, 1:2])), c(0, 0), tolerance = 1e-12)
    expect_equal(unname(apply(fit$x[, 1:2], 2, sd)), c(1, 1))
    expect_equal(unname(fit$x[, 3]), rep(3, 30))
  }
  # no warning without scaling
  expect_no_warning(kernel_means(xc, y, scale = FALSE))
  # unnamed columns are named by position in the warning
  expect_warning(kernel_means(unname(xc), y), "\"column 3\"",
                 class = "kernclass_constant_column_warning")
})


test_that("the formula method reports Inf rows by their row in `data`", {
  d <- dat
  d$a[2] <- NA
  d$a[3] <- Inf
  # row 3 of `data`, counted before na.omit removed row 2
  expect_error(kernel_means(cls ~ ., data = d, na.action = na.omit), "infinite values.*\\b3\\b",
               class = "kernclass_error")
})

test_that("the formula method warns about empty levels of the response", {
  ye <- factor(as.character(y), levels = c("u", "empty", "v"))
  expect_warning(kernel_means(cls ~ ., data = transform(dat, cls = ye)), "empty",
                 class = "kernclass_warning")
})

test_that("messages name what the user wrote", {
  expect_error(kernel_means(x, y, gamma = NA), "`gamma`.*got NA", class = "kernclass_error")
  d <- data.frame(a = rnorm(20), b = rnorm(20))
  expect_error(kernel_parzen(a ~ b, data = d), "`a` must be a factor", class = "kernclass_error")
  d$cls <- gl(2, 10)
  d$a[4] <- NA
  expect_error(kernel_means(cls ~ ., data = d, na.action = na.fail), "`data`.*missing values",
               class = "kernclass_error")
  expect_error(kernel_means(x, y, gama = 1), "`gama`", class = "kernclass_error")
})
