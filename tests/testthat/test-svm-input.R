# Bad input to kernel_svm() and its predict(): a classed kernclass error whose
# message names the argument in backticks, never a crash or a bare error
# from deep inside R or the C solver.

testthat::local_edition(3)

set.seed(303)
x <- matrix(stats::rnorm(60), 30, 2, dimnames = list(NULL, c("a", "b")))
y <- factor(rep(c("u", "v"), 15))
dat <- data.frame(x, cls = y)

expect_arg_error <- function(expr, arg, class = "kernclass_error") {
  expect_error(expr, paste0("`", arg, "`"), class = class)
}

test_that("cost must be one number > 0", {
  for (bad in list(0, -1, -Inf, NA, NA_real_, NaN, "1", c(1, 2), NULL, TRUE, list(1))) {
    expect_arg_error(kernel_svm(x, y, cost = bad), "cost")
  }
  expect_arg_error(kernel_svm(cls ~ ., data = dat, cost = 0), "cost")
  # the message says what was given
  expect_error(kernel_svm(x, y, cost = -2), "got -2", class = "kernclass_error")
  expect_error(kernel_svm(x, y, cost = c(1, 2)), "got 1, 2", class = "kernclass_error")
  # Inf (hard margin) and tiny positive costs are fine: the hard margin
  # separates the training data with |f| >= 1, a tiny cost puts every
  # multiplier at its bound (w is too small to meet any margin), and an
  # integer cost is the same number as a double
  xs <- x + 3 * (y == "u")
  hard <- kernel_svm(xs, y, kernel = "linear", cost = Inf)
  expect_identical(hard$cost, Inf)
  expect_identical(predict(hard, xs), y)
  expect_gte(min(abs(predict(hard, xs, type = "decision"))), 1 - 1e-3)
  tiny <- kernel_svm(x, y, cost = 1e-6)
  expect_identical(sort(tiny$index), seq_len(nrow(x)))
  expect_equal(abs(drop(tiny$coefs)), rep(1e-6, nrow(x)), tolerance = 1e-12)
  two <- kernel_svm(x, y, cost = 2L)
  expect_equal(two[c("index", "coefs", "b")], kernel_svm(x, y, cost = 2)[c("index", "coefs", "b")])
  expect_false(isTRUE(all.equal(two$coefs, kernel_svm(x, y, cost = 1)$coefs)))
})

test_that("class.weights must name classes of y, or be \"balanced\"", {
  expect_arg_error(kernel_svm(x, y, class.weights = c(w = 2)), "class.weights")
  expect_error(kernel_svm(x, y, class.weights = c(u = 1, w = 2)), "\"w\"",
               class = "kernclass_error")
  # not named
  expect_arg_error(kernel_svm(x, y, class.weights = c(2, 1)), "class.weights")
  # negative, NA, infinite, not numbers, another string
  for (bad in list(c(u = -1), c(u = NA), c(u = Inf), c(u = "2"), "foo", list(u = 1))) {
    expect_arg_error(kernel_svm(x, y, class.weights = bad), "class.weights")
  }
  # "balanced": scikit-learn's n / (k n_c) times cost (13 u and 12 v here)
  s <- 1:25
  n_c <- c(u = 13, v = 12)
  bal <- kernel_svm(x[s, ], y[s], class.weights = "balanced", cost = 3)
  expect_equal(unname(bal$C), 3 * 25 / (2 * n_c[as.character(y[s])]), ignore_attr = TRUE)
  # each class then weighs the same in total: n / k times cost
  expect_equal(as.vector(tapply(bal$C, y[s], sum)), c(3 * 25 / 2, 3 * 25 / 2))
  # with observation weights, the class weights still count rows
  w <- rep(c(1, 2), length.out = 25)
  bw <- kernel_svm(x[s, ], y[s], class.weights = "balanced", weights = w)
  expect_equal(unname(bw$C), w * 25 / (2 * n_c[as.character(y[s])]), ignore_attr = TRUE)
  # "inverse" (e1071's 1 / n_c before): deprecated, the same weights as "balanced"
  expect_warning(inv <- kernel_svm(x[s, ], y[s], class.weights = "inverse", cost = 3),
                 "balanced", class = "kernclass_deprecated_warning")
  expect_identical(inv$C, bal$C)
  expect_arg_error(kernel_svm(x, y, class.weights = c("balanced", "inverse")), "class.weights")
  # a class not named keeps weight 1; the solver keeps each multiplier
  # within its own bound, and v's reach past u's
  v3 <- kernel_svm(x, y, class.weights = c(v = 3))
  expect_equal(unname(v3$C), ifelse(y == "v", 3, 1))
  expect_true(all(abs(v3$coefs) <= v3$C[v3$index] + 1e-12))
  expect_gt(max(abs(v3$coefs)), 1 + 1e-6)
})

test_that("weights must be one non-negative number per observation", {
  expect_arg_error(kernel_svm(x, y, weights = c(-1, rep(1, 29))), "weights")
  expect_arg_error(kernel_svm(x, y, weights = c(NA, rep(1, 29))), "weights")
  expect_arg_error(kernel_svm(x, y, weights = c(Inf, rep(1, 29))), "weights")
  expect_arg_error(kernel_svm(x, y, weights = rep(1, 29)), "weights")
  expect_arg_error(kernel_svm(x, y, weights = rep(1, 31)), "weights")
  expect_arg_error(kernel_svm(x, y, weights = rep("1", 30)), "weights")
  expect_error(kernel_svm(x, y, weights = rep(1, 29)), "30", class = "kernclass_error")
  # through the formula method, evaluated in data
  dat$w <- c(-1, rep(1, 29))
  expect_arg_error(kernel_svm(cls ~ a + b, data = dat, weights = w), "weights")
})

test_that("y must have two classes or more", {
  expect_arg_error(kernel_svm(x, factor(rep("u", 30))), "y")
  expect_error(kernel_svm(x, factor(rep("u", 30))), "only one class", class = "kernclass_error")
  # one class left after dropping an empty level
  expect_arg_error(suppressWarnings(kernel_svm(x, factor(rep("u", 30), levels = c("u", "v")))),
                   "y")
  expect_arg_error(kernel_svm(cls ~ ., data = transform(dat, cls = factor("u"))), "cls")
  expect_arg_error(kernel_svm(x, y[-1]), "y")
  expect_arg_error(kernel_svm(x), "y")
})

test_that("x must be numeric and complete", {
  expect_arg_error(kernel_svm(matrix(letters[1:20], 10), factor(rep(c("p", "q"), 5))), "x")
  expect_arg_error(kernel_svm(list(a = 1:30, b = 1:30), y), "x")
  x_na <- x
  x_na[3, 1] <- NA
  expect_arg_error(kernel_svm(x_na, y), "x")
  expect_error(kernel_svm(x_na, y), "missing values", class = "kernclass_error")
  x_inf <- x
  x_inf[5, 2] <- Inf
  expect_arg_error(kernel_svm(x_inf, y), "x")
  # the formula method drops NA rows (na.omit) and fits the rest
  dat_na <- dat
  dat_na$a[3] <- NA
  fit <- kernel_svm(cls ~ ., data = dat_na)
  expect_identical(length(fit$y), 29L)
})

test_that("kernel parameters are checked", {
  expect_arg_error(kernel_svm(x, y, gamma = 0), "gamma")
  expect_arg_error(kernel_svm(x, y, gamma = -1), "gamma")
  expect_arg_error(kernel_svm(x, y, gamma = NA), "gamma")
  expect_arg_error(kernel_svm(x, y, gamma = c(1, 2)), "gamma")
  expect_arg_error(kernel_svm(x, y, kernel = "foo"), "kernel")
  expect_error(kernel_svm(x, y, kernel = "foo"), "\"foo\"", class = "kernclass_error")
  expect_arg_error(kernel_svm(x, y, kernel = c("rbf", "linear")), "kernel")
  expect_arg_error(kernel_svm(x, y, kernel = 1), "kernel")
  expect_arg_error(kernel_svm(x, y, kernel = "polynomial", degree = 0), "degree")
  expect_arg_error(kernel_svm(x, y, kernel = "polynomial", degree = 1.5), "degree")
  expect_arg_error(kernel_svm(x, y, kernel = "sigmoid", coef0 = NA), "coef0")
  # e1071's names are accepted
  expect_identical(kernel_svm(x, y, kernel = "radial")$kernel$name, "rbf")
})

test_that("solver controls are checked", {
  expect_arg_error(kernel_svm(x, y, tolerance = 0), "tolerance")
  expect_arg_error(kernel_svm(x, y, tolerance = -1e-3), "tolerance")
  expect_arg_error(kernel_svm(x, y, tolerance = NA), "tolerance")
  expect_arg_error(kernel_svm(x, y, max_iter = 0), "max_iter")
  expect_arg_error(kernel_svm(x, y, max_iter = -5), "max_iter")
  expect_arg_error(kernel_svm(x, y, max_iter = 2.5), "max_iter")
  expect_arg_error(kernel_svm(x, y, cachesize = 0), "cachesize")
  expect_arg_error(kernel_svm(x, y, cachesize = -1), "cachesize")
  expect_arg_error(kernel_svm(x, y, shrinking = NA), "shrinking")
  expect_arg_error(kernel_svm(x, y, shrinking = "yes"), "shrinking")
  expect_arg_error(kernel_svm(x, y, probability = c(TRUE, FALSE)), "probability")
  expect_arg_error(kernel_svm(x, y, scale = NA), "scale")
  # misspelt arguments are not swallowed by ...
  expect_arg_error(kernel_svm(x, y, costt = 1), "costt")
  expect_arg_error(kernel_svm(cls ~ ., data = dat, tolerence = 1), "tolerence")
})

test_that("predict() checks newdata and type", {
  fit <- kernel_svm(x, y)
  expect_arg_error(predict(fit, data.frame(a = 1:3)), "newdata")
  expect_error(predict(fit, data.frame(a = 1:3)), "\"b\"", class = "kernclass_error")
  expect_arg_error(predict(fit, x[, 1, drop = FALSE]), "newdata")
  expect_arg_error(predict(fit, matrix(1:3, 1)), "newdata")
  ffit <- kernel_svm(cls ~ ., data = dat)
  expect_arg_error(predict(ffit, dat[, "a", drop = FALSE]), "newdata")
  expect_arg_error(predict(ffit, dat, type = "foo"), "type")
  expect_arg_error(predict(ffit, dat, foo = 1), "foo")
  # probabilities need probability = TRUE at fit time
  expect_error(predict(fit, x, type = "prob"), class = "kernclass_prob_unavailable_error")
  expect_error(predict(ffit, dat, type = "prob"), "`probability = TRUE`",
               class = "kernclass_error")
  three <- kernel_svm(Species ~ ., data = iris)
  expect_error(predict(three, iris, type = "prob"), class = "kernclass_prob_unavailable_error")
})

# ---- weights that remove a class ----------------------------------------------

test_that("a class whose weights are all 0 is an error naming the argument", {
  # the message names the argument that removed the class
  cnd <- expect_error(kernel_svm(x, y, weights = rep(c(0, 1), 15)), class = "kernclass_error")
  expect_match(conditionMessage(cnd), "`weights`", fixed = TRUE)
  cnd <- expect_error(kernel_svm(x, y, class.weights = c(u = 0)), class = "kernclass_error")
  expect_match(conditionMessage(cnd), "`class.weights`", fixed = TRUE)
})
