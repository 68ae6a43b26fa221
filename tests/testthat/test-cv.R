# kernel_cv(): stratified folds, reproducibility, exact leave-one-out against
# brute-force refits (written out here with plain loops), bad input.

cv_data3 <- function() {
  rows <- c(1:20, 51:70, 101:120)
  list(x = as.matrix(iris[rows, 1:4]), y = droplevels(iris$Species[rows]))
}
cv_data2 <- function() {
  set.seed(11)
  x <- matrix(rnorm(80), 40, 2)
  y <- factor(ifelse(x[, 1]^2 + x[, 2]^2 + rnorm(40, sd = 0.3) > 1.2, "out", "in"))
  list(x = x, y = y)
}

# brute-force leave-one-out: refit without row i, predict row i
brute_loo <- function(fit, x, y, ...) {
  pred <- vapply(seq_len(nrow(x)), function(i) {
    m <- fit(x[-i, , drop = FALSE], y[-i], ...)
    as.character(predict(m, x[i, , drop = FALSE]))
  }, character(1))
  factor(pred, levels = levels(y))
}

test_that("folds are stratified: each class's share per fold within one row", {
  d <- cv_data3()
  y <- factor(rep(c("a", "b", "c"), c(23, 11, 7)))
  x <- matrix(seq_along(y), ncol = 1)
  for (k in c(2, 3, 5, 7, 10)) {
    set.seed(k)
    cv <- kernel_cv(kernel_means, x, y, folds = k)
    tab <- table(cv$fold, y)
    ideal <- matrix(table(y) / k, k, 3, byrow = TRUE)
    expect_true(all(abs(tab - ideal) < 1))
    expect_true(max(cv$fold_size) - min(cv$fold_size) <= 1)
    expect_equal(sort(unique(cv$fold)), seq_len(k))
  }
})

test_that("kernel_cv() and kernel_tune() default to the same 5 folds", {
  defaults <- vapply(list(kernel_cv.default = kernclass:::kernel_cv.default,
                          kernel_cv.formula = kernclass:::kernel_cv.formula,
                          kernel_tune.default = kernclass:::kernel_tune.default,
                          kernel_tune.formula = kernclass:::kernel_tune.formula),
                     function(f) formals(f)$folds, numeric(1))
  expect_identical(unname(defaults), rep(5, 4))
  set.seed(3)
  cv <- kernel_cv(kernel_means, iris[, 1:4], iris$Species)
  expect_identical(cv$folds, 5L)
  expect_identical(sort(unique(cv$fold)), 1:5)
  set.seed(3)
  tn <- kernel_tune(kernel_means, Species ~ ., data = iris, grid = list(gamma = c(0.1, 1)))
  expect_identical(tn$folds, cv$folds)
  # the same seed, the same folds
  expect_identical(tn$fold, cv$fold)
})

test_that("set.seed reproduces the folds and the result", {
  d <- cv_data3()
  set.seed(42)
  a <- kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = 3)
  set.seed(42)
  b <- kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = 3)
  expect_identical(a$fold, b$fold)
  expect_identical(a$predicted, b$predicted)
  expect_identical(a$fold_accuracy, b$fold_accuracy)
  set.seed(43)
  c <- kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = 3)
  expect_false(identical(a$fold, c$fold))
})

test_that("accuracy is the fold accuracies weighted by fold size; per-fold values are right", {
  d <- cv_data3()
  set.seed(3)
  cv <- kernel_cv(kernel_parzen, d$x, d$y, folds = 7, gamma = 0.5)
  expect_equal(cv$accuracy, sum(cv$fold_accuracy * cv$fold_size) / sum(cv$fold_size))
  expect_equal(cv$accuracy, mean(cv$predicted == d$y))
  expect_equal(cv$se, sd(cv$fold_accuracy) / sqrt(7))
  # each fold refitted by hand
  for (f in 1:7) {
    test <- cv$fold == f
    m <- kernel_parzen(d$x[!test, ], d$y[!test], gamma = 0.5)
    expect_identical(as.character(predict(m, d$x[test, , drop = FALSE])),
                     as.character(cv$predicted[test]))
    expect_equal(cv$fold_accuracy[f], mean(cv$predicted[test] == d$y[test]))
  }
})

test_that("exact leave-one-out equals refitting for kernel_means and kernel_parzen", {
  kernels <- list(list(kernel = "rbf", gamma = 0.7), list(kernel = "laplace", gamma = 1.3),
                  list(kernel = "polynomial", gamma = 0.4, degree = 2, coef0 = 1),
                  list(kernel = "linear"))
  for (d in list(cv_data2(), cv_data3())) {
    for (kp in kernels) {
      for (f in c("kernel_means", "kernel_parzen")) {
        fun <- get(f, envir = asNamespace("kernclass"))
        cv <- do.call(kernel_cv, c(list(fun, d$x, d$y, folds = "loo", scale = FALSE), kp))
        expect_identical(cv$method, "exact")
        ref <- do.call(brute_loo, c(list(fun, d$x, d$y, scale = FALSE), kp))
        expect_identical(cv$predicted, ref, info = paste(f, kp$kernel, nlevels(d$y)))
        expect_equal(cv$fold, seq_len(nrow(d$x)))
      }
    }
  }
})

test_that("exact leave-one-out keeps its digits for narrow kernels: refits at gamma 1e-3 ... 1e4", {
  # iris at gamma = 1000: k(x_i, x_i) = 1 dominates every class sum, so a sum
  # less k(x_i, x_i) would be rounding (it reported 37% where refits give 96%)
  x <- as.matrix(iris[, 1:4])
  for (g in 10^(-3:4)) {
    for (f in c("kernel_means", "kernel_parzen")) {
      fun <- get(f, envir = asNamespace("kernclass"))
      cv <- kernel_cv(fun, x, iris$Species, folds = "loo", scale = FALSE, gamma = g)
      expect_identical(cv$method, "exact")
      ref <- brute_loo(fun, x, iris$Species, scale = FALSE, gamma = g)
      expect_identical(cv$predicted, ref, info = paste(f, g))
    }
  }
  cv <- kernel_cv(kernel_parzen, x, iris$Species, folds = "loo", scale = FALSE, gamma = 1000)
  expect_gt(cv$accuracy, 0.9)
})

test_that("the leave-one-out sums are the class sums without the point (plain R)", {
  set.seed(4)
  x <- matrix(rnorm(300 * 3), 300, 3)  # more rows than a tile
  y <- factor(sample(c("a", "b", "c"), 300, replace = TRUE))
  m <- kernel_means(x, y, gamma = 0.8, scale = FALSE)
  K <- exp(-0.8 * as.matrix(dist(x))^2)
  diag(K) <- 0
  ref <- sapply(levels(y), function(l) rowSums(K[, y == l, drop = FALSE]))
  s <- kernclass:::kc_loo_sums(m)
  expect_equal(unname(s$S), unname(ref), tolerance = 1e-12)
})

test_that("exact leave-one-out handles a given Parzen prior and data frames", {
  d <- cv_data3()
  pr <- c(setosa = 0.2, versicolor = 0.5, virginica = 0.3)
  cv <- kernel_cv(kernel_parzen, as.data.frame(d$x), d$y, folds = "loo", scale = FALSE,
                  gamma = 2, prior = pr)
  expect_identical(cv$method, "exact")
  expect_identical(cv$predicted, brute_loo(kernel_parzen, as.data.frame(d$x), d$y,
                                           scale = FALSE, gamma = 2, prior = pr))
})

test_that("exact leave-one-out equals refitting with 4 classes and where densities underflow", {
  set.seed(21)
  y <- factor(rep(c("a", "b", "c", "d"), c(9, 12, 16, 7)))
  x <- matrix(rnorm(2 * length(y), sd = 0.2), ncol = 2) + cbind(as.integer(y), 0)
  far <- c(3, 15, 30, 40)
  x[far, ] <- x[far, ] + 50 * (1:4)  # every kernel value to them underflows at gamma = 40
  for (kp in list(list(gamma = 40), list(gamma = 0.3), list(kernel = "laplace", gamma = 2))) {
    for (f in c("kernel_means", "kernel_parzen")) {
      fun <- get(f, envir = asNamespace("kernclass"))
      cv <- do.call(kernel_cv, c(list(fun, x, y, folds = "loo", scale = FALSE), kp))
      expect_identical(cv$method, "exact")
      expect_identical(cv$predicted, do.call(brute_loo, c(list(fun, x, y, scale = FALSE), kp)),
                       info = paste(f, kp$gamma))
    }
  }
  # the prior decides for the far points: the largest class without them, or
  # the largest given prior
  cv <- kernel_cv(kernel_parzen, x, y, folds = "loo", scale = FALSE, gamma = 40)
  expect_identical(as.character(cv$predicted[far]), rep("c", 4))
  pr <- c(a = 0.1, b = 0.2, c = 0.3, d = 0.4)
  cv <- kernel_cv(kernel_parzen, x, y, folds = "loo", scale = FALSE, gamma = 40, prior = pr)
  expect_identical(cv$method, "exact")
  expect_identical(as.character(cv$predicted[far]), rep("d", 4))
  expect_identical(cv$predicted, brute_loo(kernel_parzen, x, y, scale = FALSE, gamma = 40,
                                           prior = pr))
})

test_that("leave-one-out falls back to refits where the shortcut is not exact", {
  d <- cv_data2()
  a <- kernel_cv(kernel_means, d$x, d$y, folds = "loo", gamma = 0.7)  # scale = TRUE
  expect_identical(a$method, "refit")
  expect_identical(a$predicted, brute_loo(kernel_means, d$x, d$y, gamma = 0.7))
  b <- kernel_cv(kernel_means, d$x, d$y, folds = "loo", scale = FALSE, threshold = "search")
  expect_identical(b$method, "refit")
  expect_identical(b$predicted, brute_loo(kernel_means, d$x, d$y, scale = FALSE,
                                          threshold = "search"))
  s <- kernel_cv(kernel_svm, d$x, d$y, folds = "loo")
  expect_identical(s$method, "refit")
  expect_equal(s$fold_size, rep(1L, 40))
})

test_that("print and summary work and print returns invisibly", {
  d <- cv_data3()
  set.seed(5)
  cv <- kernel_cv(kernel_bayes, d$x, d$y, folds = 3, type = 1)
  expect_output(out <- withVisible(print(cv)), "3-fold, stratified")
  expect_false(out$visible)
  expect_identical(out$value, cv)
  s <- summary(cv)
  expect_s3_class(s, "summary.kernel_cv")
  expect_equal(sum(s$confusion), 60)
  expect_equal(s$fold_table$size, cv$fold_size)
  expect_output(print(s), "Confusion table")
  expect_output(print(kernel_cv(kernel_means, d$x, d$y, folds = "loo", scale = FALSE)),
                "leave-one-out \\(exact")
})

test_that("bad input to kernel_cv gets classed errors naming the argument", {
  d <- cv_data3()
  expect_error(kernel_cv(kernel_means, d$x, d$y, folds = 1), class = "kernclass_error")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, folds = 1)), "folds")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, folds = 61)), "folds")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, folds = 2.5)), "folds")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, folds = "LOO")), "folds")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, folds = NA)), "folds")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, folds = c(2, 3))), "folds")
  expect_error(kernel_cv(kernel_means, d$x, d$y, folds = 0), "`folds`")
  expect_identical(arg_of(kernel_cv("kernel_means", d$x, d$y)), "fit")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y[-1])), "y")
  y1 <- factor(c("a", rep("b", 9)))
  expect_identical(arg_of(kernel_cv(kernel_means, matrix(1:10), y1, folds = 2)), "y")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, folds = 3, gama = 1)), "...")
  # folds = n is allowed (more folds than the smallest class)
  set.seed(1)
  expect_equal(kernel_cv(kernel_means, d$x, d$y, folds = 60)$fold_size, rep(1L, 60))
})
