# Where the approximations meet the rest of the package: the `check`
# comparison, broom, plot(), tuning over and with approximations, sizes past
# the integer range, integer64 inputs. Each test failed before its fix.
# (About 6 s.)

ns <- asNamespace("kernclass")

# Three classes in 3 inputs, the last class rare (6 of n rows).
rare_class <- function(n = 300, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * 3), n, 3)
  y <- factor(ifelse(x[, 1] + 0.5 * x[, 2] > 0, "a", "b"), levels = c("a", "b", "r"))
  y[seq_len(6)] <- "r"
  list(x = x, y = y)
}

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

test_that("tidy() of models on features is the linear model z(x)'w + b on the features", {
  skip_if_not_installed("generics")
  d <- rare_class(n = 150)
  set.seed(3)
  two <- d$y != "r"
  models <- list(kernel_svm(d$x, d$y, approx = nystrom(m = 15), probability = TRUE),
                 kernel_svm(d$x[two, ], droplevels(d$y[two]), approx = random_fourier(m = 30)),
                 kernel_bayes(d$x, d$y, type = 1, approx = random_fourier(m = 30)),
                 kernel_bayes(d$x, d$y, type = 1, approx = nystrom(m = 15)),
                 kernel_means(d$x, d$y, approx = nystrom(m = 15)))
  inputs <- list(d$x, d$x[two, ], d$x, d$x, d$x)
  for (i in seq_along(models)) {
    fit <- models[[i]]
    fun <- generics::tidy(fit)
    cf <- generics::tidy(fit, component = "coefficients")
    expect_named(cf, c("term", "feature", "estimate"))
    # the weights rebuilt from the table give the decision values
    terms <- fun$term
    w <- matrix(0, fit$approx$rank, length(terms), dimnames = list(NULL, terms))
    w[cbind(cf$feature, match(cf$term, terms))] <- cf$estimate
    z <- ns$kc_features(fit$approx, fit$x)  # fit$x: the scaled training rows
    scores <- z %*% w + rep(fun$offset, each = nrow(z))
    dec <- predict(fit, inputs[[i]], type = "decision")
    # the class scores' decision for two classes is their difference
    if (inherits(fit, "kernclass_scores") && ncol(scores) == 2L) scores <- scores[, 1] - scores[, 2]
    expect_equal(unname(as.matrix(scores)), unname(as.matrix(dec)))
    expect_identical(fun$n_coef, as.integer(colSums(w != 0)))
  }
  svm <- generics::tidy(models[[1L]])
  expect_identical(svm$iterations, unname(as.integer(models[[1L]]$iterations)))
  expect_true(all(is.na(svm$at_bound)))
  expect_equal(svm$prob_a, unname(models[[1L]]$probA))
  bayes <- generics::tidy(models[[3L]])
  expect_identical(bayes$sign,
                   as.integer(vapply(models[[3L]]$pairs, `[[`, numeric(1), "sign")))
})

test_that("plot() draws cells() models of 3 classes: the regions are the predictions", {
  d <- rare_class(n = 200)
  d$y[7:30] <- "r"
  set.seed(4)
  fit <- kernel_svm(d$x[, 1:2], d$y, approx = cells(size = 60))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  out <- plot(fit, grid = 30)
  g <- as.matrix(expand.grid(out$x1, out$x2))
  expect_identical(as.vector(out$class), as.character(predict(fit, g)))
  expect_gt(length(out$boundary), 0L)
  for (piece in out$boundary) expect_length(unique(piece$classes), 2L)
  expect_identical(dim(out$decision), c(900L, 3L))
})

test_that("glance() of a cells() model reports its cells' iterations", {
  skip_if_not_installed("generics")
  d <- rare_class(n = 200)
  set.seed(5)
  fit <- kernel_svm(d$x, d$y, approx = cells(size = 70))
  per_cell <- vapply(fit$approx$models, function(m) {
    if (is.null(m$iterations)) 0 else sum(m$iterations)
  }, numeric(1))
  expect_gt(sum(per_cell), 0)
  expect_identical(generics::glance(fit)$iterations, sum(per_cell))
  expect_identical(sum(generics::tidy(fit)$iterations), as.integer(sum(per_cell)))
})

test_that("plot() of a tuning over `approx` labels each approximation", {
  d <- rare_class(n = 120)
  set.seed(6)
  tuned <- kernel_tune(kernel_svm, d$x, d$y, folds = 3,
                       grid = list(approx = list(nystrom(m = 5), nystrom(m = 20)), cost = c(1, 10)))
  expect_match(capture.output(print(tuned)), "approx = nystrom\\(m = [0-9]+\\)", all = FALSE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(tuned), tuned)
  expect_identical(plot(tuned, params = "approx"), tuned)
  coded <- ns$kc_tune_plot_codes(tuned$results, tuned$best)
  expect_identical(attr(coded$results$approx, "labels"), c("nystrom(m = 5)", "nystrom(m = 20)"))
  expect_identical(coded$best$approx, match(tuned$best$approx$m, c(5L, 20L)))
  ax <- ns$kc_tune_axis_labelled(coded$results$approx, "approx")
  expect_identical(ax$labels, c("nystrom(m = 5)", "nystrom(m = 20)"))
  expect_identical(format(cells(size = 500)), "cells(size = 500)")
  expect_identical(format(random_fourier(m = 64)), "random_fourier(m = 64)")
})

test_that("tuning with features claims the tolerance it used, the model's", {
  d <- rare_class(n = 120)
  set.seed(7)
  t1 <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 10)), folds = 3,
                    approx = nystrom(m = 15), search = "screen")
  # the linear SVM's default tolerance is the screening one: nothing to loosen
  expect_identical(t1$search, "exhaustive")
  expect_null(t1$tolerance)
  expect_true(all(t1$results$status == "exact"))
  expect_identical(t1$model$tolerance, kc_tol <- ns$kc_approximations$nystrom$tolerance)
  expect_false(any(grepl("0.001", capture.output(print(t1)), fixed = TRUE)))
  # loosened past it: screened at 0.5, refitted at the model's 0.1
  set.seed(7)
  t2 <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 10)), folds = 3,
                    approx = nystrom(m = 15), screen_tolerance = 0.5)
  expect_identical(t2$tolerance, c(screen = 0.5, fit = kc_tol))
  expect_identical(t2$model$tolerance, kc_tol)
  expect_match(capture.output(print(t2)), sprintf("at tolerance %s$", kc_tol), all = FALSE)
  # a given tolerance is the fit's
  set.seed(7)
  t3 <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 10)), folds = 3,
                    approx = nystrom(m = 15), tolerance = 0.01)
  expect_identical(t3$tolerance, c(screen = 0.1, fit = 0.01))
  expect_identical(t3$model$tolerance, 0.01)
  expect_true(all(t3$results$status == "screened"))
})

test_that("sizes past the integer range: one cell, m clamped, or a classed error", {
  big <- .Machine$integer.max
  expect_no_warning(spec <- cells(size = 1e10))
  expect_identical(spec$size, big)
  # Inf is no whole number: an error, as before
  expect_error(cells(size = Inf), class = "kernclass_input_error")
  d <- rare_class(n = 100)
  set.seed(8)
  one <- kernel_svm(d$x, d$y, approx = cells(size = 1e10))
  exact <- kernel_svm(d$x, d$y)
  expect_length(one$approx$models, 1L)
  expect_equal(unname(predict(one, d$x, type = "decision")),
               unname(predict(exact, d$x, type = "decision")))
  expect_no_warning(spec <- nystrom(m = 3e9))
  expect_identical(spec$m, big)
  set.seed(8)
  expect_no_warning(fit <- kernel_means(d$x, d$y, approx = spec))
  expect_lte(fit$approx$rank, 100L)
  for (call in list(quote(random_fourier(m = 3e9)), quote(nystrom(check = 3e9)),
                    quote(cells(check = 1.5e9)), quote(random_fourier(check = 2^31)))) {
    err <- tryCatch(eval(call), error = identity, warning = identity)
    expect_s3_class(err, "kernclass_size_error")
    expect_identical(err$arg, if (grepl("check", deparse(call))) "check" else "m")
  }
})

test_that("bit64::integer64 columns are read as the numbers they hold", {
  skip_if_not_installed("bit64")
  d <- rare_class(n = 120)
  v <- round(d$x * 1000)
  v[, 2] <- v[, 2] - 5000  # negative values too
  df <- data.frame(a = v[, 1], b = v[, 2], c = v[, 3])
  df64 <- df
  df64$a <- bit64::as.integer64(df$a)
  df64$b <- bit64::as.integer64(df$b)
  for (sc in c(TRUE, FALSE)) {
    ref <- kernel_svm(df, d$y, scale = sc, gamma = if (sc) 0.5 else 1e-6)
    fit <- kernel_svm(df64, d$y, scale = sc, gamma = if (sc) 0.5 else 1e-6)
    expect_identical(fit$x, ref$x)
    expect_identical(predict(fit, df64, type = "decision"), predict(ref, df, type = "decision"))
  }
  # the formula method, and new data of another type
  ref <- kernel_means(d$y ~ ., data = df)
  fit <- kernel_means(d$y ~ ., data = df64)
  expect_identical(fit$x, ref$x)
  expect_identical(predict(fit, df), predict(ref, df64))
  # a matrix of integer64 (bit64 keeps dim)
  m64 <- bit64::as.integer64(v)
  dim(m64) <- dim(v)
  expect_identical(kernel_parzen(m64, d$y)$x, kernel_parzen(v, d$y)$x)
  # beyond 2^53 a double holds the nearest value: a warning says so
  big <- df64
  big$a[1] <- bit64::as.integer64("9007199254740993")
  expect_warning(kernel_means(big, d$y), class = "kernclass_precision_warning")
})

test_that("integer64 observation weights are read as the numbers they hold", {
  skip_if_not_installed("bit64")
  d <- rare_class(n = 120)
  w <- rep(c(1, 2, 3), length.out = 120)
  ref <- kernel_svm(d$x, d$y, weights = w)
  fit <- kernel_svm(d$x, d$y, weights = bit64::as.integer64(w))
  expect_identical(fit$C, ref$C)
  expect_identical(predict(fit, d$x, type = "decision"), predict(ref, d$x, type = "decision"))
})

test_that("glance() names the fitter from the registry for every representation", {
  skip_if_not_installed("generics")
  d <- rare_class(n = 120)
  fits <- list(kernel_svm(d$x, d$y), kernel_svm(d$x, d$y, approx = nystrom(m = 20)),
               kernel_svm(d$x, d$y, approx = cells(size = 60)),
               kernel_means(d$x, d$y, approx = random_fourier(m = 50)))
  expect_identical(vapply(fits, function(f) generics::glance(f)$method, ""),
                   c("kernel_svm", "kernel_svm", "kernel_svm", "kernel_means"))
})
