# Reliability of fitting, tuning, prediction and plots: each block is a
# class of defects that once gave a wrong answer or a false statement.

# ---- the nu-property as summary() states it ---------------------------------

# The numbers of "a <= nu <= b" in printed output.
nu_chain <- function(lines) {
  hit <- regmatches(lines, regexpr("[0-9.]+ <= nu( = [0-9.]+)? <= [a-z ]*[0-9.]+", lines))
  lapply(hit, function(h) as.numeric(regmatches(h, gregexpr("[0-9]+(\\.[0-9]+)?", h))[[1L]]))
}

test_that("one-class summary states only the nu-property's exact bounds", {
  # the dual: sum(alpha) = nu W, 0 <= alpha_i <= w_i; counted from the model's alpha
  for (seed in 1:12) {
    set.seed(seed)
    x <- matrix(rnorm(200), 100)
    w <- if (seed %% 3 == 0) runif(100, 0.5, 2) else NULL
    nu <- c(0.1, 0.3, 0.05)[seed %% 3 + 1]
    fit <- kernel_svm(x, type = "one-classification", nu = nu, weights = w)
    wt <- fit$C / sum(fit$C)
    alpha <- numeric(100)
    alpha[fit$index] <- fit$eta[, 1L]
    expect_equal(sum(alpha), nu * sum(fit$C))
    s <- summary(fit)
    expect_equal(s$fractions[["at_bound"]], sum(wt[alpha >= fit$C]))
    expect_equal(s$fractions[["support_vectors"]], sum(wt[alpha > 0]))
    expect_equal(s$fractions[["outliers"]], sum(wt[fitted(fit) == "outlier"]))
    expect_lte(s$fractions[["at_bound"]], nu + 1e-12)
    expect_gte(s$fractions[["support_vectors"]], nu - 1e-12)
    if (is.null(w)) expect_equal(s$fractions[["at_bound"]] * 100, unname(fit$n_at_bound))
    # every inequality printed holds
    out <- capture.output(print(s))
    chains <- nu_chain(out)
    expect_length(chains, 1L)
    for (ch in chains) {
      expect_lte(ch[1L], nu + 1e-4)
      expect_gte(ch[length(ch)], nu - 1e-4)
    }
  }
  # the old statement "outliers <= nu" is false on some of these fits
  set.seed(1)
  fit <- kernel_svm(matrix(rnorm(200), 100), type = "one-classification", nu = 0.1)
  expect_gt(summary(fit)$fractions[["outliers"]], 0.1)
  expect_false(any(grepl("outliers [0-9.]+ <= nu", capture.output(print(summary(fit))))))
})

test_that("nu-SVC summary gives each pair's exact nu-property", {
  for (seed in 1:4) {
    set.seed(seed)
    w <- if (seed %% 2 == 0) runif(150, 0.5, 2) else NULL
    fit <- kernel_svm(Species ~ ., data = iris, type = "nu-classification", nu = 0.25,
                      weights = w)
    s <- summary(fit)
    expect_true(all(s$pairs$at_bound_fraction <= 0.25 + 1e-12))
    expect_true(all(s$pairs$sv_fraction >= 0.25 - 1e-12))
    pairs <- kernclass:::kc_ovo_pairs(fit$levels)
    for (m in seq_len(nrow(pairs))) {
      rows <- which(as.integer(fit$y) %in% pairs[m, ])
      eta <- numeric(150)
      eta[fit$index] <- fit$eta[, m]
      wt <- fit$C[rows] / sum(fit$C[rows])
      # the solution times r is LIBSVM's: sum = nu W, bounds w_i
      expect_equal(sum(eta[rows]) / unname(fit$cost[m]), 0.25 * sum(fit$C[rows]))
      expect_equal(s$pairs$sv_fraction[m], sum(wt[eta[rows] > 0]))
      if (is.null(w)) expect_equal(s$pairs$at_bound_fraction[m] * length(rows),
                                   unname(fit$n_at_bound[m]))
    }
    expect_output(print(s), "at the bound <= nu = 0.25 <= support vectors")
  }
})

# ---- cost = Inf in a tuning grid ----------------------------------------------

test_that("a grid with cost = Inf tunes as kernel_cv does each cost, and plots", {
  set.seed(7)
  n <- 60
  x <- matrix(rnorm(2 * n), n)
  y <- factor(ifelse(x[, 1]^2 + x[, 2]^2 > 1.2, "out", "in"))
  costs <- c(0.5, 4, Inf)
  set.seed(2)
  tuned <- kernel_tune(kernel_svm, x, y, grid = list(cost = costs, gamma = c(1, 4)), folds = 3,
                       search = "exhaustive")
  for (i in seq_len(nrow(tuned$results))) {
    set.seed(2)
    cv <- kernel_cv(kernel_svm, x, y, folds = 3, cost = tuned$results$cost[i],
                    gamma = tuned$results$gamma[i])
    expect_identical(cv$fold, tuned$fold)
    expect_equal(tuned$results$accuracy[i], cv$accuracy)
  }
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(tuned))
  expect_invisible(plot(tuned, params = "cost"))
  ax <- kernclass:::kc_tune_axis(costs)
  expect_equal(ax$scale, "log")
  expect_equal(ax$at, c(0.5, 4, 32))
  expect_equal(ax$labels, c("0.5", "4", "Inf"))
  expect_equal(kernclass:::kc_tune_axis(c(Inf, 1))$at, c(1, 2))
  expect_equal(kernclass:::kc_tune_scale(c(-Inf, 1, 2)), "ordinal")
})

test_that("an error in a cost path names its own grid row", {
  set.seed(1)
  two <- droplevels(subset(iris, Species != "setosa"))  # not linearly separable
  expect_error(kernel_tune(kernel_svm, two[, 1:4], two$Species, kernel = "linear",
                           grid = list(cost = c(1, Inf)), folds = 3),
               "^Grid row 2 \\(cost = Inf\\)", class = "kernclass_not_separable_error")
})

# ---- na.action = na.exclude pads as lm does -----------------------------------

test_that("na.exclude: fitted() and predict() give a value per row of data", {
  ir <- iris
  ir$Sepal.Length[c(3, 70)] <- NA
  ir$Petal.Width[140] <- NA
  miss <- c(3, 70, 140)
  two <- droplevels(ir[51:150, ])
  set.seed(1)
  fits <- list(
    kernel_means(Species ~ ., data = ir, na.action = na.exclude),
    kernel_parzen(Species ~ ., data = ir, na.action = na.exclude),
    kernel_bayes(Species ~ ., data = ir, na.action = na.exclude),
    kernel_bayes(Species ~ ., data = two, na.action = na.exclude),
    kernel_svm(Species ~ ., data = ir, na.action = na.exclude, probability = TRUE),
    kernel_svm(Species ~ ., data = two, na.action = na.exclude, probability = TRUE),
    kernel_svm(~ ., data = ir[1:4], na.action = na.exclude, type = "one-classification"))
  for (fit in fits) {
    two_classes <- identical(fit$levels, levels(two$Species))
    n <- if (two_classes) 100L else 150L
    gone <- if (two_classes) miss[miss > 50] - 50L else miss
    expect_equal(unname(c(fit$na.action)), gone)
    expect_length(fitted(fit), n)
    expect_true(all(is.na(fitted(fit)[gone])))
    expect_false(anyNA(fitted(fit)[-gone]))
    types <- if (inherits(fit, "kernel_svm_oneclass")) c("class", "decision") else
      c("class", "decision", "prob")
    for (type in types) {
      p <- predict(fit, type = type)
      expect_equal(NROW(p), n)
      kept <- kernclass:::kc_predict_rows(fit, fit$x, type)
      if (is.null(dim(p))) {
        expect_true(all(is.na(p[gone])))
        expect_equal(unname(p[-gone]), unname(kept))
      } else {
        expect_true(all(is.na(p[gone, ])))
        expect_equal(unname(p[-gone, , drop = FALSE]), unname(kept))
      }
    }
    # as lm: predict(newdata = NULL) is the same
    expect_identical(predict(fit, NULL), fitted(fit))
    # what uses the training rows stays on the rows used
    if (!is.null(fit$y)) expect_equal(sum(summary(fit)$confusion), nrow(fit$x))
  }
  # na.omit keeps one value per row used, as lm
  fit <- kernel_means(Species ~ ., data = ir, na.action = na.omit)
  expect_length(fitted(fit), 147L)
  # lm pads the same rows
  expect_identical(which(is.na(fitted(fits[[1]]))),
                   unname(which(is.na(fitted(lm(Sepal.Width ~ ., data = ir, na.action = na.exclude))))))
})

# ---- predictions of no rows and of NA rows have the right shape ---------------

test_that("prob, decision and class predictions of 0 rows and of all-NA rows", {
  set.seed(1)
  check <- function(fit, nd, K) {
    pairs <- K * (K - 1) / 2
    for (type in c("class", "decision", "prob")) {
      for (rows in list(integer(0), 1L, 1:2)) {
        newd <- nd[rows, , drop = FALSE]
        p <- predict(fit, newd, type = type)
        expect_equal(NROW(p), length(rows))
        if (type == "class") {
          expect_s3_class(p, "factor")
          expect_identical(levels(p), fit$levels)
        } else if (type == "prob") {
          expect_equal(colnames(p), fit$levels)
        } else if (K > 2) {
          expect_equal(ncol(p), if (inherits(fit, "kernclass_ovo")) pairs else K)
        } else {
          expect_null(dim(p))
        }
        expect_true(all(is.na(p)))
      }
    }
  }
  for (K in 2:3) {
    d <- droplevels(iris[iris$Species %in% levels(iris$Species)[seq_len(K)], ])
    nd <- d[c(1, 40), ]
    nd$Sepal.Length <- NA
    ndm <- as.matrix(nd[, 1:4])
    fits <- list(kernel_means(Species ~ ., data = d), kernel_parzen(Species ~ ., data = d),
                 kernel_bayes(Species ~ ., data = d),
                 kernel_svm(Species ~ ., data = d, probability = TRUE),
                 kernel_svm(Species ~ ., data = d, probability = TRUE,
                            type = "nu-classification", nu = 0.2))
    for (fit in fits) check(fit, nd, K)
    mfits <- list(kernel_bayes(as.matrix(d[, 1:4]), d$Species),
                  kernel_svm(as.matrix(d[, 1:4]), d$Species, probability = TRUE))
    for (fit in mfits) check(fit, ndm, K)
  }
  # sparse rows and kernel values: no rows
  skip_if_not_installed("Matrix")
  x <- as.matrix(iris[, 1:4])
  sfit <- kernel_svm(Matrix::Matrix(x, sparse = TRUE), iris$Species, probability = TRUE)
  p <- predict(sfit, Matrix::Matrix(x[0, ], sparse = TRUE), type = "prob")
  expect_equal(dim(p), c(0L, 3L))
  K <- kernel_matrix(x, kernel = "rbf", gamma = 0.5)
  kfit <- kernel_svm(K, iris$Species, kernel = "precomputed", probability = TRUE)
  expect_equal(dim(predict(kfit, K[0, ], type = "prob")), c(0L, 3L))
  rbf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.5)
  ffit <- kernel_means(x, iris$Species, kernel = rbf)
  expect_equal(dim(predict(ffit, x[0, ], type = "prob")), c(0L, 3L))
  expect_length(predict(ffit, x[0, ]), 0L)
})

test_that("parsnip's prob predictions of rows with NA", {
  skip_if_not_installed("parsnip")
  set.seed(1)
  spec <- parsnip::set_engine(parsnip::set_mode(parsnip::svm_rbf(), "classification"),
                              "kernclass")
  fit <- parsnip::fit(spec, Species ~ ., data = iris)
  nd <- iris[c(1, 51), ]
  nd$Sepal.Length <- NA_real_
  p <- predict(fit, nd, type = "prob")
  expect_equal(dim(p), c(2L, 3L))
  expect_true(all(is.na(as.matrix(p))))
})
