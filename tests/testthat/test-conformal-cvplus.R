# CV+ conformal sets (R/model-conformal-cvplus.R): the fold models refitted
# by hand and the CV+ rule transcribed; the settings the fold models get;
# coverage over random splits against the finite-sample guarantee.
# Cost: a few seconds.

testthat::local_edition(3)

# The CV+ rule of Romano et al. (2020), transcribed: fold models fitted by
# `fitter` on the rows outside each fold of `fold`, each row's score by its
# fold's model, and for new rows the count #{i : s(x, c; model_k(i)) > s_i}.
ref_cvplus <- function(fitter, x, y, fold, x_new, score = "prob") {
  K <- max(fold)
  models <- lapply(seq_len(K), function(k) fitter(x[fold != k, , drop = FALSE], y[fold != k]))
  s_cal <- numeric(length(y))
  for (k in seq_len(K)) {
    p <- predict(models[[k]], x[fold == k, , drop = FALSE], type = "prob")
    s_cal[fold == k] <- conf_ref_scores(p, score)[cbind(seq_len(sum(fold == k)),
                                                         as.integer(y[fold == k]))]
  }
  s_new <- lapply(models, function(m) conf_ref_scores(predict(m, x_new, type = "prob"), score))
  above <- ge <- matrix(0, nrow(x_new), nlevels(y))
  for (i in seq_along(y)) {
    above <- above + (s_new[[fold[i]]] > s_cal[i])
    ge <- ge + (s_cal[i] >= s_new[[fold[i]]])
  }
  list(scores = s_cal, above = above, pvalue = (ge + 1) / (length(y) + 1))
}

test_that("CV+ sets and p-values are the transcribed rule on fold models refitted by hand", {
  d <- conf_sim(90, 1)
  x_new <- conf_sim(40, 2)$x
  n <- 60
  x <- d$x[1:n, ]
  y <- d$y[1:n]
  for (score in c("prob", "aps")) {
    fit <- kernel_parzen(x, y, gamma = 0.7, scale = FALSE)
    set.seed(3)
    cf <- conformal(fit, method = "cv+", folds = 4, score = score)
    fold <- cf$conformal$fold
    expect_identical(cf$conformal$method, "cv+")
    expect_length(cf$conformal$models, 4L)
    # stratified folds: each class dealt out evenly
    expect_true(all(apply(table(y, fold), 1, function(r) diff(range(r)) <= 1)))
    ref <- ref_cvplus(function(a, b) kernel_parzen(a, b, gamma = 0.7, scale = FALSE), x, y, fold,
                      x_new, score)
    expect_equal(cf$conformal$scores, ref$scores, tolerance = 1e-12)
    expect_equal(unname(predict(cf, x_new, type = "pvalue")), ref$pvalue)
    for (level in c(0.7, 0.8, 0.9)) {
      expect_identical(unname(unclass(predict(cf, x_new, type = "set", level = level))[, ]),
                       ref$above < level * (n + 1), info = paste(score, level))
    }
    # set.seed reproduces the folds
    set.seed(3)
    expect_identical(conformal(fit, method = "cv+", folds = 4, score = score)$conformal$fold, fold)
  }
  # a scaled model's fold models are refitted on its scaled rows (the
  # model's centre and scale of all rows)
  fit <- kernel_means(x, y, gamma = 0.5)
  set.seed(4)
  cf <- conformal(fit, method = "cv+", folds = 3)
  xs <- scale(x, fit$scaling$center, fit$scaling$scale)
  ref <- ref_cvplus(function(a, b) kernel_means(a, b, gamma = 0.5, scale = FALSE), xs, y,
                    cf$conformal$fold, scale(x_new, fit$scaling$center, fit$scaling$scale))
  expect_equal(cf$conformal$scores, ref$scores, tolerance = 1e-10)
  expect_equal(unname(predict(cf, x_new, type = "pvalue")), ref$pvalue)
  # every other prediction is the model's
  expect_identical(predict(cf, x_new, type = "prob"), predict(fit, x_new, type = "prob"))
  expect_output(print(cf), "CV\\+\\), 3 fold models kept")
})

test_that("the fold models get the model's fitter and settings", {
  d <- conf_sim(150, 5)
  cw <- c(a = 1, b = 2, c = 3)
  svm <- kernel_svm(d$x, d$y, kernel = "polynomial", degree = 2, gamma = 0.3, coef0 = 1,
                    cost = 3, class.weights = cw, probability = TRUE, tolerance = 1e-4)
  set.seed(1)
  cf <- conformal(svm, method = "cv+", folds = 3)
  for (m in cf$conformal$models) {
    expect_s3_class(m, "kernel_svm")
    expect_identical(m$kernel[c("name", "gamma", "degree", "coef0")],
                     svm$kernel[c("name", "gamma", "degree", "coef0")])
    expect_identical(m[c("cost", "class.weights", "tolerance", "type")],
                     svm[c("cost", "class.weights", "tolerance", "type")])
    expect_false(is.null(m$probA))
    expect_null(m$scaling)
    expect_identical(length(m$y), 100L)
  }
  nu <- kernel_svm(d$x, d$y, type = "nu-classification", nu = 0.6, probability = TRUE)
  set.seed(1)
  m <- conformal(nu, method = "cv+", folds = 3)$conformal$models[[1]]
  expect_identical(m[c("type", "nu")], nu[c("type", "nu")])
  # a given prior is kept; the default prior is the fold's class shares
  pz <- kernel_parzen(d$x, d$y, prior = c(0.2, 0.3, 0.5))
  m <- conformal(pz, method = "cv+", folds = 3)$conformal$models[[2]]
  expect_equal(unname(m$prior), c(0.2, 0.3, 0.5))
  # gamma = "median" is the model's number, not the fold's median
  md <- kernel_means(d$x, d$y, gamma = "median")
  m <- conformal(md, method = "cv+", folds = 3)$conformal$models[[1]]
  expect_identical(m$kernel$gamma, md$kernel$gamma)
  # an approximation with its settings (its own random landmarks)
  ny <- kernel_svm(d$x, d$y, probability = TRUE, approx = nystrom(m = 25))
  m <- conformal(ny, method = "cv+", folds = 3)$conformal$models[[3]]
  expect_identical(m$approx$spec$method, "nystrom")
  expect_identical(m$approx$spec$m, 25L)
  # a kernel_tune() result: CV+ of its refitted model, at the chosen settings
  set.seed(2)
  tn <- kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = c(0.1, 2)), folds = 3,
                    metric = "logloss")
  m <- conformal(tn, method = "cv+", folds = 3)
  expect_identical(m$conformal$method, "cv+")
  expect_identical(m$conformal$models[[1]]$kernel$gamma, tn$model$kernel$gamma)
  # kernel_bayes
  b <- kernel_bayes(d$x, d$y, ridge = 0.01)
  m <- conformal(b, method = "cv+", folds = 3)$conformal$models[[1]]
  expect_identical(m[c("type", "ridge")], b[c("type", "ridge")])
})

test_that("an SVM's fold models are its refits by hand, kept without their training rows", {
  d <- conf_sim(150, 9)
  x_new <- conf_sim(30, 10)$x
  svm <- kernel_svm(d$x, d$y, gamma = 0.4, cost = 2, probability = TRUE)
  set.seed(11)
  cf <- conformal(svm, method = "cv+", folds = 3)
  # the same random numbers: the folds, then each fold's fit (Platt's folds) in turn
  set.seed(11)
  fold <- kernclass:::kc_cv_folds(d$y, 3L)
  expect_identical(cf$conformal$fold, fold)
  sc <- function(v) scale(v, svm$scaling$center, svm$scaling$scale)
  for (k in 1:3) {
    m <- kernel_svm(sc(d$x)[fold != k, ], d$y[fold != k], gamma = 0.4, cost = 2,
                    probability = TRUE, scale = FALSE)
    kept <- cf$conformal$models[[k]]
    expect_identical(nrow(kept$x), 0L)
    expect_identical(predict(kept, sc(x_new), type = "prob"), predict(m, sc(x_new), type = "prob"))
  }
  # an exact class-score model keeps its rows: its scores sum over them
  cfm <- conformal(kernel_means(d$x, d$y), method = "cv+", folds = 3)
  expect_identical(nrow(cfm$conformal$models[[1]]$x), 100L)
})

test_that("CV+ coverage over random splits is at least its finite-sample bound 1 - 2 alpha - ...", {
  d <- conf_sim(1200, 6)
  n <- 100
  K <- 5
  set.seed(7)
  for (level in c(0.8, 0.9)) {
    alpha <- 1 - level
    cover <- replicate(60, {
      o <- sample(nrow(d$x))
      tr <- o[1:n]
      te <- o[n + 1:200]
      cf <- conformal(kernel_parzen(d$x[tr, ], d$y[tr], gamma = 0.8), method = "cv+", folds = K)
      summary(predict(cf, d$x[te, ], type = "set", level = level), y = d$y[te])$coverage
    })
    bound <- 1 - 2 * alpha - min(2 * (1 - 1 / K) / (n / K + 1), (1 - K / n) / (K + 1))
    expect_gte(mean(cover), bound - 4 * sd(cover) / sqrt(length(cover)))
    # in practice near the level
    expect_gte(mean(cover), level - 0.03)
  }
})

test_that("CV+ input errors and warnings", {
  d <- conf_sim(120, 8)
  fit <- kernel_parzen(d$x, d$y)
  expect_error(conformal(fit, d$x, d$y, method = "cv+"), "give no `x`",
               class = "kernclass_input_error")
  expect_error(conformal(fit, method = "cv+", folds = 1), class = "kernclass_input_error")
  expect_error(conformal(fit, method = "cv+", mondrian = TRUE), "mondrian",
               class = "kernclass_input_error")
  K <- exp(-as.matrix(dist(d$x))^2)
  pre <- kernel_svm(K, d$y, kernel = "precomputed", probability = TRUE)
  expect_error(conformal(pre, method = "cv+"), "precomputed", class = "kernclass_input_error")
  w <- kernel_svm(d$x, d$y, weights = rep(1:2, 60), probability = TRUE)
  expect_error(conformal(w, method = "cv+"), "weights", class = "kernclass_input_error")
  expect_error(conformal(kernel_svm(d$x, d$y), method = "cv+"),
               class = "kernclass_prob_unavailable_error")
  # a recalibration fitted on the training rows makes the scores reused
  rc <- recalibrate(kernel_means(d$x, d$y, scale = FALSE), method = "platt")
  expect_warning(conformal(rc, method = "cv+", folds = 3),
                 class = "kernclass_calibration_reuse_warning")
  # the fold models score through the model's recalibration
  rs <- recalibrate(kernel_means(d$x[1:60, ], d$y[1:60]), d$x[61:120, ], d$y[61:120],
                    method = "isotonic")
  set.seed(2)
  cf <- expect_no_warning(conformal(rs, method = "cv+", folds = 3))
  m1 <- cf$conformal$models[[1]]
  out <- cf$conformal$fold == 1
  p1 <- kernclass:::kc_recalibrate_prob(rs$recalibration,
                                        predict(m1, rs$x[out, ], type = "prob"))
  expect_equal(cf$conformal$scores[out],
               unname(1 - p1[cbind(seq_len(sum(out)), as.integer(rs$y[out]))]))
})

test_that("the refits' error for a kernel given as data names what was given, from the source table", {
  d <- conf_sim(90, 8)
  K <- exp(-as.matrix(dist(d$x))^2)
  f <- function(a, b) tcrossprod(a, b)
  models <- list(precomputed = kernel_svm(K, d$y, kernel = "precomputed", probability = TRUE),
                 user = kernel_svm(d$x, d$y, kernel = f, probability = TRUE))
  cvs <- list(precomputed = kernel_cv(kernel_svm, K, d$y, folds = 3, kernel = "precomputed"),
              user = kernel_cv(kernel_svm, d$x, d$y, folds = 3, kernel = f))
  given <- c(precomputed = "a kernel given as kernel values \\(kernel = \"precomputed\"\\)",
             user = "a kernel given as a kernel function")
  for (s in names(models)) {
    e <- expect_error(conformal(models[[s]], method = "cv+"), class = "kernclass_input_error")
    expect_identical(e$arg, "object")
    expect_match(conditionMessage(e), paste0("^CV\\+ refits .*, which it cannot for ", given[[s]],
                                             ": use split conformal \\(`x`, `y`\\) or `cv`\\.$"))
    e <- expect_error(venn_abers(models[[s]], cv = cvs[[s]], multiclass = "pairwise"),
                      class = "kernclass_input_error")
    expect_identical(e$arg, "object")
    expect_match(conditionMessage(e), paste0("^venn_abers\\(multiclass = \"pairwise\", cv = \\) ",
                                             "refits .*, which it cannot for ", given[[s]],
                                             ": use calibration rows `x`, `y`"))
  }
  # every source in the table has its words
  expect_setequal(names(models), names(kernclass:::kc_kernel_sources))
  expect_true(all(nzchar(vapply(kernclass:::kc_kernel_sources, `[[`, "", "given"))))
})
