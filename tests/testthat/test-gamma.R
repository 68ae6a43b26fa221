# estimate_gamma() and gamma = "median" in every fitter.

testthat::local_edition(3)

# Plain-R transcription of the documented rule: 1 / median of the positive
# values over the pairs i < j, on x as given.
ref_median_gamma <- function(x, kernel = "rbf") {
  v <- switch(kernel,
    polynomial = ,
    sigmoid = {
      g <- x %*% t(x)
      abs(g[lower.tri(g)])
    },
    laplace = as.vector(dist(x)),
    as.vector(dist(x))^2)
  1 / median(v[v > 0])
}

set.seed(11)
gx <- matrix(rnorm(80 * 3, sd = c(1, 5, 0.2)), 80, 3, byrow = TRUE,
             dimnames = list(NULL, c("a", "b", "c")))
gy <- factor(ifelse(gx[, 1] + gx[, 3] * 5 + rnorm(80, sd = 0.5) > 0, "p", "n"), levels = c("p", "n"))

test_that("estimate_gamma() follows the plain-R transcription for every kernel", {
  for (k in c("rbf", "laplace", "polynomial", "sigmoid", "linear")) {
    expect_equal(estimate_gamma(gx, kernel = k), ref_median_gamma(scale(gx), k), info = k)
    expect_equal(estimate_gamma(gx, kernel = k, scale = FALSE), ref_median_gamma(gx, k), info = k)
  }
  expect_equal(estimate_gamma(gx, kernel = "radial"), estimate_gamma(gx, kernel = "rbf"))
  # iris has repeated rows: their zero distances are left out
  d2 <- dist(scale(iris[, 1:4]))^2
  expect_equal(estimate_gamma(iris[, 1:4]), 1 / median(d2[d2 > 0]))
  expect_false(isTRUE(all.equal(estimate_gamma(iris[, 1:4]), 1 / median(d2))))
  # a numeric vector is one column
  expect_equal(estimate_gamma(gx[, 2], scale = FALSE), ref_median_gamma(gx[, 2, drop = FALSE]))
})

test_that("factor columns are coded as the fitters code them, and formulas work", {
  df <- data.frame(gx, f = factor(rep(c("u", "v", "w", "w"), 20)))
  coded <- cbind(scale(gx), model.matrix(~ f - 1, df))
  expect_equal(estimate_gamma(df), ref_median_gamma(coded))
  expect_equal(estimate_gamma(~ a + b + c + f, data = df), ref_median_gamma(coded))
  # the formula a fitter takes: the response is not an input
  expect_equal(estimate_gamma(Species ~ ., data = iris), estimate_gamma(iris[, 1:4]))
  expect_equal(estimate_gamma(Species ~ Petal.Length + Petal.Width, data = iris,
                              kernel = "laplace", scale = FALSE),
               ref_median_gamma(as.matrix(iris[, 3:4]), "laplace"))
  expect_equal(estimate_gamma(~ a + b, data = df, subset = 1:40),
               ref_median_gamma(scale(gx[1:40, 1:2])))
  # rows with NA dropped by na.action, as in the fitters
  dna <- df
  dna$a[3] <- NA
  expect_equal(estimate_gamma(~ a + b, data = dna, na.action = na.omit),
               ref_median_gamma(scale(gx[-3, 1:2])))
})

test_that("identical pairs are left out; row order does not matter up to max_rows", {
  dup <- rbind(gx, gx[rep(1, 200), ])  # most pairs are now identical
  expect_equal(estimate_gamma(dup, scale = FALSE), ref_median_gamma(dup))
  expect_true(is.finite(estimate_gamma(dup, scale = FALSE)))
  o <- sample(nrow(gx))
  for (k in c("rbf", "laplace", "polynomial")) {
    expect_equal(estimate_gamma(gx[o, ], kernel = k), estimate_gamma(gx, kernel = k), info = k)
  }
})

test_that("above max_rows, evenly spaced rows of the scaled data are used", {
  big <- matrix(rnorm(2500 * 2), 2500, 2)
  rows <- round(seq(1, 2500, length.out = 1000))
  expect_equal(estimate_gamma(big), ref_median_gamma(scale(big)[rows, ]))
  rows <- round(seq(1, 2500, length.out = 30))
  expect_equal(estimate_gamma(big, max_rows = 30, kernel = "laplace"),
               ref_median_gamma(scale(big)[rows, ], "laplace"))
  expect_equal(estimate_gamma(big, max_rows = 2500), ref_median_gamma(scale(big)))
})

test_that("estimate_gamma() is deterministic and leaves the random number generator alone", {
  big <- matrix(rnorm(3000 * 2), 3000, 2)
  set.seed(5)
  seed <- .Random.seed
  g1 <- estimate_gamma(big)
  expect_identical(.Random.seed, seed)
  g2 <- estimate_gamma(big)
  expect_identical(g1, g2)
  fit <- kernel_means(big[1:200, ], factor(rep(1:2, 100)), gamma = "median")
  expect_identical(.Random.seed, seed)
})

test_that("every fitter with gamma = \"median\" equals the fitter with the number", {
  fitters <- list(
    kernel_means = function(...) kernel_means(...),
    kernel_parzen = function(...) kernel_parzen(...),
    bayes1 = function(...) kernel_bayes(..., type = 1),
    bayes2 = function(...) kernel_bayes(..., type = 2),
    bayes3 = function(...) kernel_bayes(..., type = 3),
    kernel_svm = function(...) kernel_svm(..., cost = 10))
  new <- gx[1:10, ] * 1.1
  for (nm in names(fitters)) {
    for (k in c("rbf", "laplace", "polynomial")) {
      for (sc in c(TRUE, FALSE)) {
        info <- paste(nm, k, sc)
        g <- estimate_gamma(gx, kernel = k, scale = sc)
        a <- fitters[[nm]](gx, gy, kernel = k, gamma = "median", scale = sc)
        b <- fitters[[nm]](gx, gy, kernel = k, gamma = g, scale = sc)
        expect_identical(a$kernel$gamma, g, info = info)
        expect_identical(a$kernel$gamma_rule, "median", info = info)
        expect_identical(predict(a, new, type = "decision"), predict(b, new, type = "decision"),
                         info = info)
        expect_identical(predict(a, new), predict(b, new), info = info)
      }
    }
  }
  # formula method, three classes, factor column coded and left unscaled
  df <- data.frame(iris, f = factor(rep(c("u", "v"), 75)))
  g <- estimate_gamma(Species ~ ., data = df)
  expect_equal(g, ref_median_gamma(cbind(scale(iris[, 1:4]), model.matrix(~ f - 1, df))))
  a <- kernel_svm(Species ~ ., data = df, gamma = "median")
  b <- kernel_svm(Species ~ ., data = df, gamma = g)
  expect_identical(a$kernel$gamma, g)
  expect_identical(predict(a, df, type = "decision"), predict(b, df, type = "decision"))
})

test_that("print and summary show the estimated gamma", {
  fit <- kernel_parzen(Species ~ ., data = iris, gamma = "median")
  g <- format(estimate_gamma(iris[, 1:4]), digits = 4)
  expect_output(print(fit), sprintf("gamma = %s by the median heuristic", g), fixed = TRUE)
  expect_output(print(summary(fit)), "by the median heuristic", fixed = TRUE)
  expect_output(print(kernel_parzen(Species ~ ., data = iris, gamma = 0.5)), "gamma = 0.5)",
                fixed = TRUE)
})

test_that("kernel_matrix() takes gamma = \"median\" on x as given", {
  x <- as.matrix(iris[1:20, 1:4])
  for (k in c("rbf", "laplace", "sigmoid")) {
    expect_identical(kernel_matrix(x, kernel = k, gamma = "median"),
                     kernel_matrix(x, kernel = k, gamma = estimate_gamma(x, kernel = k,
                                                                         scale = FALSE)),
                     info = k)
  }
  expect_identical(kernel_matrix(x, x[1:3, ], gamma = "median"),
                   kernel_matrix(x, x[1:3, ], gamma = ref_median_gamma(x)))
})

test_that("kernel_cv() and kernel_tune() estimate gamma on each fold's training rows", {
  x <- gx[1:30, ]
  y <- gy[1:30]
  cv <- kernel_cv(kernel_means, x, y, folds = "loo", gamma = "median", scale = FALSE)
  expect_identical(cv$method, "refit")  # the exact shortcut would use all rows' gamma
  manual <- vapply(seq_len(30), function(i) {
    g <- estimate_gamma(x[-i, ], scale = FALSE)
    as.character(predict(kernel_means(x[-i, ], y[-i], gamma = g, scale = FALSE),
                         x[i, , drop = FALSE]))
  }, character(1))
  expect_identical(as.character(cv$predicted), manual)

  set.seed(3)
  cv3 <- kernel_cv(kernel_svm, x, y, folds = 3, gamma = "median")
  manual3 <- character(30)
  for (f in 1:3) {
    test <- which(cv3$fold == f)
    g <- estimate_gamma(x[-test, ])
    manual3[test] <- as.character(predict(kernel_svm(x[-test, ], y[-test], gamma = g),
                                          x[test, , drop = FALSE]))
  }
  expect_identical(as.character(cv3$predicted), manual3)

  set.seed(4)
  tuned <- kernel_tune(kernel_svm, x, y, folds = 3,
                       grid = data.frame(cost = c(1, 10), gamma = "median"))
  expect_identical(tuned$model$kernel$gamma_rule, "median")
  expect_identical(tuned$model$kernel$gamma, estimate_gamma(x))
  set.seed(4)
  mixed <- kernel_tune(kernel_means, x, y, folds = 3, grid = list(gamma = list("median", 0.5)))
  expect_identical(nrow(mixed$results), 2L)
  expect_true(all(is.finite(mixed$results$accuracy)))
})

test_that("bad input to estimate_gamma() and bad gamma strings are classed errors naming the argument", {
  bad <- gx
  bad[4, 2] <- NA
  expect_error(estimate_gamma(bad), "`x` has missing values", class = "kernclass_input_error")
  expect_identical(arg_of(estimate_gamma(gx[1, , drop = FALSE])), "x")
  expect_error(estimate_gamma(gx[1, , drop = FALSE]), "at least 2 rows",
               class = "kernclass_input_error")
  expect_identical(arg_of(estimate_gamma(matrix(letters[1:6], 3))), "x")
  expect_identical(arg_of(estimate_gamma(c("a", "b", "c"))), "x")
  expect_identical(arg_of(estimate_gamma(list(1:3, 4:6))), "x")
  expect_identical(arg_of(estimate_gamma(matrix(1, 5, 2), scale = FALSE)), "x")
  expect_error(estimate_gamma(matrix(1, 5, 2), scale = FALSE), "finds no scale",
               class = "kernclass_input_error")
  expect_identical(arg_of(estimate_gamma(gx, kernel = "foo")), "kernel")
  expect_identical(arg_of(estimate_gamma(gx, max_rows = 1)), "max_rows")
  expect_identical(arg_of(estimate_gamma(gx, scale = NA)), "scale")
  expect_identical(arg_of(estimate_gamma(gx, kernal = "rbf")), "...")
  expect_identical(arg_of(estimate_gamma(~ zz, data = iris)), "data")

  fitters <- list(kernel_means, kernel_parzen, kernel_bayes, kernel_svm)
  for (f in fitters) {
    for (g in list("foo", "Median", c("median", "median"), NA_character_)) {
      expect_error(f(gx, gy, gamma = g), '`gamma` must be a number > 0 or "median"',
                   class = "kernclass_input_error")
      expect_identical(arg_of(f(gx, gy, gamma = g)), "gamma")
    }
  }
  expect_identical(arg_of(kernel_matrix(gx, gamma = "foo")), "gamma")
  expect_identical(arg_of(kernel_cv(kernel_svm, gx, gy, folds = 3, gamma = "foo")), "gamma")
})
