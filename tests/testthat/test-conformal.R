# Conformal prediction sets, the class rule of probability models, the
# recalibration maps and the reliability table, against plain-R
# transcriptions; the coverage guarantee over many random splits.
# Cost: about 20 s (small n; each model fitted once, its pool of rows
# predicted once, the splits' quantiles in plain R).

testthat::local_edition(3)

# The rule, transcribed: the ceiling((n + 1) level)-th smallest calibration
# score (Inf past n); class c is in the set where its score is <= it.
ref_scores <- function(p, score) {
  if (score == "prob") return(1 - p)
  # rounded to 12 decimals as the package's, so that sums equal up to rounding tie
  t(apply(p, 1, function(r) vapply(seq_along(r), function(c) round(sum(r[r > r[c]]) + r[c], 12), 0)))
}
ref_q <- function(s, level) {
  n <- length(s)
  k <- ceiling((n + 1) * level)
  if (k > n) Inf else sort(s)[k]
}
# a "kernclass_sets" matrix as a plain logical matrix without names
plain <- function(s) unname(unclass(s)[, , drop = FALSE])

ref_sets <- function(p_cal, y_cal, p_new, level, score = "prob", mondrian = FALSE) {
  s_cal <- ref_scores(p_cal, score)[cbind(seq_along(y_cal), as.integer(y_cal))]
  s_new <- ref_scores(p_new, score)
  q <- if (mondrian) {
    vapply(seq_len(ncol(p_new)), function(c) ref_q(s_cal[as.integer(y_cal) == c], level), 0)
  } else rep(ref_q(s_cal, level), ncol(p_new))
  unname(s_new <= matrix(q, nrow(p_new), ncol(p_new), byrow = TRUE))
}

sim3 <- function(n, seed) {
  set.seed(seed)
  y <- factor(sample(c("a", "b", "c"), n, replace = TRUE, prob = c(0.5, 0.3, 0.2)))
  x <- matrix(rnorm(2 * n), n) + cbind(c(0, 1.2, 0)[y], c(0, 0, 1.2)[y])
  colnames(x) <- c("u", "v")
  list(x = x, y = y)
}

# every fitter and representation with probabilities
fits_of <- function(x, y) {
  set.seed(5)
  list(
    means = kernel_means(x, y),
    parzen = kernel_parzen(x, y),
    bayes = kernel_bayes(x, y),
    svm = kernel_svm(x, y, probability = TRUE),
    svm_nystrom = kernel_svm(x, y, probability = TRUE, approx = nystrom(m = 30)),
    means_fourier = kernel_means(x, y, approx = random_fourier(m = 60)),
    svm_cells = kernel_svm(x, y, probability = TRUE, approx = cells(size = 80)))
}

test_that("split conformal sets are the transcribed quantile rule, for every score and Mondrian", {
  d <- sim3(300, 1)
  fit <- kernel_svm(d$x[1:100, ], d$y[1:100], probability = TRUE)
  cal <- 101:200
  new <- 201:300
  p_cal <- predict(fit, d$x[cal, ], type = "prob")
  p_new <- predict(fit, d$x[new, ], type = "prob")
  for (score in c("prob", "aps")) {
    for (mondrian in c(FALSE, TRUE)) {
      cf <- conformal(fit, d$x[cal, ], d$y[cal], score = score, mondrian = mondrian)
      for (level in c(0.5, 0.8, 0.9, 0.95, 0.995)) {
        s <- predict(cf, d$x[new, ], type = "set", level = level)
        expect_s3_class(s, "kernclass_sets")
        expect_identical(plain(s), ref_sets(p_cal, d$y[cal], p_new, level, score, mondrian),
                         info = paste(score, mondrian, level))
        expect_identical(attr(s, "level"), level)
      }
    }
  }
  # past n calibration rows the quantile is infinite: every class
  cf <- conformal(fit, d$x[cal[1:5], ], d$y[cal[1:5]])
  expect_true(all(predict(cf, d$x[new, ], type = "set", level = 0.9)))
  # every other prediction is the model's
  expect_identical(predict(cf, d$x[new, ], type = "prob"), p_new)
})

test_that("coverage over random splits: >= level and <= level + 1/(n_cal + 1), every fitter and representation", {
  d <- sim3(400, 2)
  train <- 1:150
  pool <- 151:400
  n_cal <- 100
  fits <- fits_of(d$x[train, ], d$y[train])
  set.seed(7)
  splits <- replicate(300, sample(length(pool)), simplify = FALSE)
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    p <- predict(fit, d$x[pool, ], type = "prob")
    y <- d$y[pool]
    # one conformal() per fitter against the transcription
    cal <- pool[splits[[1]][1:n_cal]]
    test <- pool[splits[[1]][-(1:n_cal)]]
    cf <- conformal(fit, d$x[cal, ], d$y[cal])
    expect_identical(plain(predict(cf, d$x[test, ], type = "set", level = 0.9)),
                     ref_sets(p[splits[[1]][1:n_cal], ], d$y[cal],
                              p[splits[[1]][-(1:n_cal)], ], 0.9), info = nm)
    s <- 1 - p[cbind(seq_along(y), as.integer(y))]  # each row's own score
    ties <- anyDuplicated(s) > 0
    for (level in c(0.8, 0.9, 0.95)) {
      cover <- vapply(splits, function(o) {
        q <- ref_q(s[o[1:n_cal]], level)
        mean(s[o[-(1:n_cal)]] <= q)
      }, 0)
      slack <- 4 * sd(cover) / sqrt(length(cover))
      expect_gte(mean(cover), level - slack)
      # the upper bound needs scores without ties (cells' pure cells have p = 1)
      if (!ties) expect_lte(mean(cover), level + 1 / (n_cal + 1) + slack)
    }
  }
})

test_that("Mondrian coverage holds within every class; marginal sets can miss a rare class", {
  d <- sim3(900, 3)
  fit <- kernel_parzen(d$x[1:200, ], d$y[1:200])
  pool <- 201:900
  p <- predict(fit, d$x[pool, ], type = "prob")
  y <- d$y[pool]
  s <- 1 - p[cbind(seq_along(y), as.integer(y))]
  set.seed(8)
  level <- 0.9
  cover <- replicate(200, {
    o <- sample(length(pool))
    cal <- o[1:350]
    test <- o[-(1:350)]
    sets <- ref_sets(p[cal, ], y[cal], p[test, ], level, mondrian = TRUE)
    tapply(sets[cbind(seq_along(test), as.integer(y[test]))], y[test], mean)
  })
  slack <- 4 * apply(cover, 1, sd) / sqrt(ncol(cover))
  expect_true(all(rowMeans(cover) >= level - slack))
  # conformal(mondrian = TRUE) takes one quantile per class
  cf <- conformal(fit, d$x[pool[1:350], ], y[1:350], mondrian = TRUE)
  expect_identical(plain(predict(cf, d$x[pool[351:700], ], type = "set", level = level)),
                   ref_sets(p[1:350, ], y[1:350], p[351:700, ], level, mondrian = TRUE))
})

test_that("coverage on a real data set (iris) over random splits, split and cross-validated", {
  set.seed(9)
  i <- sample(150)
  fit <- kernel_svm(iris[i[1:50], 1:4], iris$Species[i[1:50]], probability = TRUE)
  pool <- i[51:150]
  p <- predict(fit, iris[pool, 1:4], type = "prob")
  y <- iris$Species[pool]
  s <- 1 - p[cbind(seq_along(y), as.integer(y))]
  for (level in c(0.8, 0.9, 0.95)) {
    cover <- replicate(300, {
      o <- sample(100)
      mean(s[o[51:100]] <= ref_q(s[o[1:50]], level))
    })
    expect_gte(mean(cover), level - 4 * sd(cover) / sqrt(300))
  }
  # cross-validated calibration: the out-of-fold probabilities of kernel_cv()
  cv <- kernel_cv(kernel_parzen, iris[, 1:4], iris$Species, folds = 5, metric = "brier")
  full <- kernel_parzen(iris[, 1:4], iris$Species)
  cf <- conformal(full, cv = cv)
  expect_identical(cf$conformal$method, "cv")
  expect_equal(cf$conformal$scores, 1 - cv$prob[cbind(1:150, as.integer(iris$Species))])
  expect_identical(conformal(cv, full)$conformal, cf$conformal)
  expect_error(conformal(full, cv = kernel_cv(kernel_parzen, iris[, 1:4], iris$Species, folds = 3)),
               "logloss", class = "kernclass_input_error")
})

test_that("leave-one-out conformal of kernel_means and kernel_parzen: kc_loo's probabilities", {
  d <- sim3(120, 4)
  for (f in list(kernel_means, kernel_parzen)) {
    fit <- f(d$x, d$y, scale = FALSE, gamma = 0.5)
    cf <- conformal(fit)
    expect_identical(cf$conformal$method, "loo")
    # each row's score: 1 - p(y_i) of the model refitted without it
    ref <- vapply(seq_len(20), function(i) {
      m <- f(d$x[-i, ], d$y[-i], scale = FALSE, gamma = 0.5)
      1 - predict(m, d$x[i, , drop = FALSE], type = "prob")[1, as.integer(d$y[i])]
    }, 0)
    # kernel_means' refit has its own sigma2: equal, not close
    expect_equal(cf$conformal$scores[1:20], ref, tolerance = 1e-10)
  }
  expect_error(conformal(kernel_svm(d$x, d$y, probability = TRUE)), "calibration rows",
               class = "kernclass_input_error")
})

test_that("kernel_tune keeps its best row's out-of-fold predictions for conformal()", {
  d <- sim3(150, 5)
  set.seed(1)
  tn <- kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(0.1, 1)), folds = 3,
                    metric = "logloss")
  cf <- conformal(tn)
  expect_identical(cf$conformal$scores,
                   1 - tn$best_predictions$prob[cbind(1:150, as.integer(d$y))])
  expect_identical(cf$kernel$gamma, tn$model$kernel$gamma)
  cal <- calibration_curve(tn, bins = 4)
  expect_s3_class(cal, "kernclass_calibration")
})

test_that("a probability model predicts its most probable class; rule = \"vote\" the vote", {
  d <- sim3(300, 6)
  set.seed(2)
  fit <- kernel_svm(d$x, d$y, probability = TRUE, cost = 0.3)
  p <- predict(fit, d$x, type = "prob")
  argmax <- factor(levels(d$y)[max.col(p, ties.method = "first")], levels(d$y))
  expect_identical(unname(predict(fit, d$x)), argmax)
  expect_identical(unname(fitted(fit)), argmax)
  vote <- predict(fit, d$x, rule = "vote")
  nop <- kernel_svm(d$x, d$y, cost = 0.3)
  expect_identical(vote, predict(nop, d$x))  # the vote is the model's without probabilities
  expect_identical(predict(nop, d$x, rule = "vote"), predict(nop, d$x))
  expect_error(predict(nop, d$x, rule = "prob"), class = "kernclass_prob_unavailable_error")
  expect_error(predict(fit, d$x, rule = "votes"), class = "kernclass_input_error")
  # the class of summary() and of kernel_cv() is predict()'s
  expect_equal(summary(fit)$accuracy, mean(predict(fit) == d$y))
  # kernel_bayes keeps its threshold rule; rule = "prob" its probabilities' argmax
  b <- kernel_bayes(d$x, d$y)
  pb <- predict(b, d$x, type = "prob")
  expect_identical(unname(predict(b, d$x, rule = "prob")),
                   factor(levels(d$y)[max.col(pb, ties.method = "first")], levels(d$y)))
  expect_identical(predict(b, d$x), predict(b, d$x, rule = "vote"))
  # every representation of the SVM
  for (a in list(nystrom(m = 30), cells(size = 100))) {
    set.seed(3)
    m <- kernel_svm(d$x, d$y, probability = TRUE, approx = a)
    pm <- predict(m, d$x, type = "prob")
    expect_identical(unname(predict(m, d$x)),
                     factor(levels(d$y)[max.col(pm, ties.method = "first")], levels(d$y)))
  }
})

test_that("isotonic recalibration is stats::isoreg's fit; Platt's on the logit; rows sum to 1", {
  d <- sim3(400, 7)
  fit <- kernel_means(d$x[1:150, ], d$y[1:150])
  cal <- 151:300
  p <- predict(fit, d$x[cal, ], type = "prob")
  r <- recalibrate(fit, d$x[cal, ], d$y[cal], method = "isotonic")
  q <- predict(r, d$x[cal, ], type = "prob")
  raw <- p
  for (c in 1:3) raw[, c] <- {
    ir <- stats::isoreg(p[, c], as.numeric(d$y[cal] == levels(d$y)[c]))
    ir$yf[order(order(p[, c]))]  # back in row order
  }
  expect_equal(q, raw / rowSums(raw))
  expect_equal(unname(rowSums(predict(r, d$x[301:400, ], type = "prob"))), rep(1, 100))
  # Platt's sigmoid of the logit: kc_platt_fit's maximum likelihood, two classes
  two <- d$y != "c"
  y2 <- droplevels(d$y[two])
  x2 <- d$x[two, ]
  f2 <- kernel_parzen(x2[1:100, ], y2[1:100])
  p2 <- predict(f2, x2[101:200, ], type = "prob")
  r2 <- recalibrate(f2, x2[101:200, ], y2[101:200], method = "platt")
  ab <- kernclass:::kc_platt_fit(qlogis(pmin(pmax(p2[, 1], 1e-12), 1 - 1e-12)), y2[101:200] == "a")
  q2 <- predict(r2, x2[101:200, ], type = "prob")
  expect_equal(unname(q2[, 1]), unname(plogis(-(ab[["A"]] * qlogis(p2[, 1]) + ab[["B"]]))))
  expect_equal(unname(q2[, 2]), unname(1 - q2[, 1]))
  # a recalibrated model's class is its recalibrated probabilities' argmax
  expect_identical(unname(predict(r, d$x)), factor(levels(d$y)[max.col(
    predict(r, d$x, type = "prob"), ties.method = "first")], levels(d$y)))
  expect_null(recalibrate(r, method = NULL)$recalibration)
})

test_that("calibration_curve(): bins' mean probability and frequency, transcribed", {
  set.seed(3)
  cv <- kernel_cv(kernel_svm, iris[, 1:4], iris$Species, folds = 5, metric = "brier")
  cal <- calibration_curve(cv, bins = 4)
  for (c in levels(iris$Species)) {
    p <- cv$prob[, c]
    b <- cut(p, seq(0, 1, 0.25), include.lowest = TRUE, labels = FALSE)
    ours <- cal[cal$class == c, ]
    expect_identical(ours$n, as.integer(table(b)[as.character(ours$bin)]), info = c)
    expect_equal(ours$predicted, as.vector(tapply(p, b, mean)[as.character(ours$bin)]))
    expect_equal(ours$observed, as.vector(tapply(iris$Species == c, b, mean)[as.character(ours$bin)]))
  }
  expect_equal(attr(cal, "brier"), cv$value)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(cal), cal)
  expect_error(calibration_curve(cv, bins = 0), class = "kernclass_input_error")
})

test_that("sets: NA rows, na.exclude, print, summary, as.list, augment's list-column", {
  d <- sim3(200, 8)
  df <- data.frame(d$x, y = d$y)
  df$u[3] <- NA
  fit <- conformal(kernel_parzen(y ~ ., data = df[1:100, ], na.action = na.exclude),
                   df[101:200, ], df$y[101:200])
  s <- predict(fit, type = "set", level = 0.8)
  expect_identical(nrow(s), 100L)
  expect_true(all(is.na(unclass(s)[3, ])))
  expect_identical(as.list(s)[[3]], NA_character_)
  out <- capture.output(print(s))
  expect_match(out[1], "level 0.8")
  sm <- summary(s, y = df$y[1:100])
  expect_equal(sm$coverage, mean(unclass(s)[cbind(1:100, as.integer(df$y[1:100]))], na.rm = TRUE))
  expect_output(print(sm), "Coverage")
  expect_output(print(fit), "Conformal sets: score prob, from 100 calibration rows")
  expect_error(predict(kernel_parzen(y ~ ., data = df), df, type = "set"),
               class = "kernclass_set_unavailable_error")
  expect_error(predict(fit, df, type = "set", level = 1), class = "kernclass_input_error")
  skip_if_not_installed("generics")
  a <- generics::augment(fit, newdata = df[101:110, ], level = 0.8)
  expect_identical(a$.pred_set, as.list(predict(fit, df[101:110, ], type = "set", level = 0.8)))
})

test_that("conformal() input errors name the argument", {
  fit <- kernel_parzen(Species ~ ., data = iris)
  expect_error(conformal(fit, iris[1:10, ]), class = "kernclass_input_error")
  expect_error(conformal(fit, iris[1:10, ], iris$Species[1:9]), "9 values",
               class = "kernclass_input_error")
  expect_error(conformal(fit, cv = 1), "kernel_cv", class = "kernclass_input_error")
  expect_error(conformal(fit, score = "lac"), class = "kernclass_input_error")
  expect_error(conformal(fit, iris, iris$Species, mondrian = NA), class = "kernclass_input_error")
  expect_error(conformal(kernel_svm(Species ~ ., data = iris), iris, iris$Species),
               "conformal\\(\\) works on probabilities, which `object`", class = "kernclass_prob_unavailable_error")
  cv3 <- kernel_cv(kernel_svm, iris[, 1:4], iris$Species, folds = 3, metric = "brier")
  expect_error(conformal(kernel_svm(iris[, 1:4], iris$Species), cv = cv3),
               class = "kernclass_prob_unavailable_error")
  cv <- kernel_cv(kernel_parzen, iris[1:100, 1:4], droplevels(iris$Species[1:100]), folds = 3,
                  metric = "brier")
  expect_error(conformal(fit, cv = cv), "training rows", class = "kernclass_input_error")
  rev_cv <- kernel_cv(kernel_parzen, iris[150:1, 1:4], iris$Species[150:1], folds = 3,
                      metric = "brier")
  expect_error(conformal(fit, cv = rev_cv), "in their order", class = "kernclass_input_error")
  expect_error(recalibrate(fit, iris, iris$Species, method = "beta"), class = "kernclass_input_error")
})

# kernel_means refitted without row i, transcribed: the rbf kernel's class
# means without x_i, their norms, the refit's sigma2 = mean k(x_j, x_j) -
# sum_c n_c / (n - 1) ||m_c||^2 over the n - 1 rows, and the posterior
# softmax(f_c(x_i) / sigma2) with f_c = mean k(x_i, S_c) - ||m_c||^2 / 2.
ref_means_loo <- function(x, y, gamma, i) {
  K <- exp(-gamma * as.matrix(dist(x))^2)
  keep <- seq_len(nrow(x))[-i]
  yk <- y[keep]
  f <- norms <- n_c <- numeric(nlevels(y))
  for (c in seq_len(nlevels(y))) {
    S <- keep[yk == levels(y)[c]]
    n_c[c] <- length(S)
    norms[c] <- mean(K[S, S])
    f[c] <- mean(K[i, S]) - norms[c] / 2
  }
  sigma2 <- mean(diag(K)[keep]) - sum(n_c / length(keep) * norms)
  e <- exp((f - max(f)) / sigma2)
  e / sum(e)
}

test_that("kernel_means' leave-one-out probabilities are the refit's, sigma2 without the row included", {
  for (seed in 1:3) {
    set.seed(seed)
    n <- 40
    y <- factor(sample(c("a", "b", "c"), n, replace = TRUE), levels = c("a", "b", "c"))
    x <- matrix(rnorm(2 * n, sd = 1 + seed / 2), n) + as.integer(y)
    gamma <- c(0.3, 1, 3)[seed]
    fit <- kernel_means(x, y, gamma = gamma, scale = FALSE)
    loo <- kernclass:::kc_loo(fit, default_prior = TRUE, what = "prob")
    cf <- conformal(fit, score = "aps")
    for (i in c(1, 17, n)) {
      ref <- ref_means_loo(x, y, gamma, i)
      expect_equal(unname(loo[i, ]), ref, tolerance = 1e-10)
      expect_equal(unname(loo[i, ]), unname(predict(kernel_means(x[-i, ], y[-i], gamma = gamma,
                                                                 scale = FALSE),
                                                    x[i, , drop = FALSE], type = "prob")[1, ]),
                   tolerance = 1e-10)
      expect_equal(cf$conformal$scores[i], ref_scores(t(ref), "aps")[1, as.integer(y[i])],
                   tolerance = 1e-10)
    }
  }
})

test_that("kernel_parzen's leave-one-out: where every density underflows, the prior without the row", {
  set.seed(2)
  x <- rbind(matrix(rnorm(20), 10), matrix(rnorm(20, 3), 10), c(50, 50))
  y <- factor(c(rep("a", 10), rep("b", 10), "a"))
  fit <- kernel_parzen(x, y, gamma = 1, scale = FALSE)
  loo <- kernclass:::kc_loo(fit, default_prior = TRUE, what = "prob")
  refit <- kernel_parzen(x[-21, ], y[-21], gamma = 1, scale = FALSE)
  expect_equal(unname(loo[21, ]), c(10, 10) / 20)  # not the full model's c(11, 10) / 21
  expect_equal(unname(loo[21, ]), unname(predict(refit, x[21, , drop = FALSE], type = "prob")[1, ]))
})

test_that("recalibrate() of a conformal model removes the stale calibration, with a classed warning", {
  d <- sim3(300, 11)
  fit <- kernel_means(d$x[1:100, ], d$y[1:100])
  cf <- conformal(fit, d$x[101:200, ], d$y[101:200])
  expect_warning(rc <- recalibrate(cf, d$x[201:300, ], d$y[201:300]),
                 "conformal\\(\\) again", class = "kernclass_conformal_removed_warning")
  expect_null(rc$conformal)
  expect_false(is.null(rc$recalibration))
  expect_error(predict(rc, d$x[1:5, ], type = "set", level = 0.9),
               class = "kernclass_set_unavailable_error")
  out <- capture.output(print(rc))
  expect_false(any(grepl("Conformal sets", out)))
  expect_true(any(grepl("recalibrated", out)))
  # removing the recalibration also changes the probabilities
  cf2 <- conformal(rc, d$x[101:200, ], d$y[101:200])
  expect_warning(plain_fit <- recalibrate(cf2, method = NULL),
                 class = "kernclass_conformal_removed_warning")
  expect_null(plain_fit$conformal)
  # a model without a recalibration keeps its conformal calibration on method = NULL
  expect_identical(expect_no_warning(recalibrate(cf, method = NULL))$conformal, cf$conformal)
})

test_that("conformal() of a recalibrated model scores calibration rows through the recalibration", {
  d <- sim3(240, 12)
  lv <- levels(d$y)
  truth <- function(p, y) 1 - p[cbind(seq_along(y), as.integer(y))]
  # split: the calibration rows' probabilities as predict() gives new rows
  fit <- kernel_parzen(d$x[1:80, ], d$y[1:80], gamma = 0.5)
  rc <- recalibrate(fit, d$x[81:160, ], d$y[81:160], method = "platt")
  cf <- conformal(rc, d$x[161:240, ], d$y[161:240])
  expect_equal(cf$conformal$scores, unname(truth(predict(rc, d$x[161:240, ], type = "prob"),
                                                 d$y[161:240])))
  expect_identical(cf$conformal$recalibration, "platt")
  expect_true(any(grepl("Conformal sets.*through the platt recalibration", capture.output(print(cf)))))
  # leave-one-out: the exact LOO probabilities through the model's maps
  full <- kernel_means(d$x, d$y, gamma = 0.5, scale = FALSE)
  rl <- recalibrate(full, d$x[1:120, ], d$y[1:120], method = "platt")
  cl <- conformal(rl)
  p_loo <- kernclass:::kc_loo(full, default_prior = TRUE, what = "prob")
  expect_equal(cl$conformal$scores, truth(kernclass:::kc_recalibrate_prob(rl$recalibration, p_loo),
                                          d$y))
  expect_false(isTRUE(all.equal(cl$conformal$scores, truth(p_loo, d$y))))
  # cross-validation: the out-of-fold probabilities through the maps; both
  # from the training rows is flagged
  set.seed(3)
  cv <- kernel_cv(kernel_means, d$x, d$y, folds = 4, metric = "brier", gamma = 0.5, scale = FALSE)
  cc <- conformal(rl, cv = cv)
  expect_equal(cc$conformal$scores,
               truth(kernclass:::kc_recalibrate_prob(rl$recalibration, cv$prob), d$y))
  rcv <- recalibrate(full, cv = cv)
  expect_warning(conformal(rcv, cv = cv), class = "kernclass_calibration_reuse_warning")
  expect_warning(conformal(rcv), class = "kernclass_calibration_reuse_warning")
})

test_that("recalibrate() on held-out rows without some class is an error naming y or cv", {
  fit <- kernel_means(Species ~ ., data = iris[c(TRUE, FALSE), ])
  held <- iris[c(FALSE, TRUE), ]
  no_virginica <- held$Species != "virginica"
  e <- expect_error(recalibrate(fit, held[no_virginica, ], held$Species[no_virginica]),
                    "\"virginica\"", class = "kernclass_missing_class_error")
  expect_identical(e$arg, "y")
  e1 <- expect_error(recalibrate(fit, held[1, ], held$Species[1]), "\"versicolor\", \"virginica\"",
                     class = "kernclass_input_error")
  expect_identical(e1$arg, "y")
  # two classes: the first class's map alone, still both classes needed
  two <- droplevels(subset(iris, Species != "setosa"))
  f2 <- kernel_parzen(Species ~ ., data = two[c(TRUE, FALSE), ])
  h2 <- two[c(FALSE, TRUE), ]
  expect_error(recalibrate(f2, h2[h2$Species == "virginica", ], h2$Species[h2$Species == "virginica"]),
               "\"versicolor\"", class = "kernclass_missing_class_error")
  # rows without a class (NA) do not count
  yy <- held$Species
  yy[yy == "setosa"] <- NA
  expect_error(recalibrate(fit, held, yy), "\"setosa\"", class = "kernclass_missing_class_error")
})

test_that("calibration rows' errors name `x`, not `newdata`", {
  fit <- kernel_parzen(Species ~ ., data = iris)
  for (call in list(quote(conformal(fit, iris[1:10, 3:5], iris$Species[1:10])),
                    quote(recalibrate(fit, iris[1:10, 3:5], iris$Species[1:10])),
                    quote(calibration_curve(fit, iris[1:10, 3:5], iris$Species[1:10])),
                    quote(conformal(fit, list(1, 2), iris$Species[1:2])))) {
    e <- expect_error(eval(call), class = "kernclass_input_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "`x`")
    expect_no_match(conditionMessage(e), "newdata")
  }
  m <- kernel_means(as.matrix(iris[, 1:4]), iris$Species)
  e <- expect_error(conformal(m, unname(as.matrix(iris[1:5, 1:3])), iris$Species[1:5]), "`x` has 3")
  expect_identical(e$arg, "x")
  expect_error(predict(m, unname(as.matrix(iris[1:5, 1:3]))), "`newdata` has 3")
})

test_that("every form checks its calibration rows alike: y alone, x with cv, y's length", {
  fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
  cv <- kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 3, metric = "brier")
  forms <- list(conformal = function(...) conformal(fit, ...),
                cvplus = function(...) conformal(fit, ..., method = "cv+"),
                recalibrate = function(...) recalibrate(fit, ...),
                ovr = function(...) venn_abers(fit, ...),
                pairwise = function(...) venn_abers(fit, ..., multiclass = "pairwise"))
  check <- function(call, arg, pattern) {
    e <- expect_error(call, class = "kernclass_input_error")
    expect_identical(e$arg, arg)
    expect_match(conditionMessage(e), pattern)
  }
  for (f in forms) check(f(y = iris$Species[1:10]), "y", "no `x` is given")
  for (f in forms[-2L]) {
    check(f(iris[1:10, ]), "y", "`y` is missing")
    check(f(iris[1:10, ], iris$Species[1:9]), "y", "9 values for 10 rows of `x`")
    check(f(iris[1:10, ], iris$Species[1:10], cv = cv), "cv", "not both")
    check(f(cv = 1), "cv", "kernel_cv\\(\\) or kernel_tune\\(\\)")
  }
})

test_that("a cv of another fitter or other settings is an error naming cv; a tune's best row passes", {
  set.seed(4)
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  fit <- kernel_means(x, y)
  cv_p <- kernel_cv(kernel_parzen, x, y, folds = 3, metric = "brier")
  e <- expect_error(conformal(fit, cv = cv_p), "kernel_parzen", class = "kernclass_cv_mismatch_error")
  expect_identical(e$arg, "cv")
  expect_error(recalibrate(fit, cv = cv_p), class = "kernclass_cv_mismatch_error")
  cv_g <- kernel_cv(kernel_means, x, y, folds = 3, metric = "brier", gamma = 2)
  expect_error(conformal(fit, cv = cv_g), "`gamma`", class = "kernclass_cv_mismatch_error")
  expect_error(conformal(kernel_means(x, y, scale = FALSE), cv = kernel_cv(kernel_means, x, y,
               folds = 3, metric = "brier")), "`scale`", class = "kernclass_cv_mismatch_error")
  expect_error(conformal(fit, cv = kernel_cv(kernel_means, x, y, folds = 3, metric = "brier",
                                             kernel = "laplace")),
               "`kernel`", class = "kernclass_cv_mismatch_error")
  expect_error(conformal(kernel_parzen(x, y, prior = c(0.2, 0.3, 0.5)),
                         cv = kernel_cv(kernel_parzen, x, y, folds = 3, metric = "brier")),
               "`prior` is NULL", class = "kernclass_cv_mismatch_error")
  expect_error(conformal(kernel_means(x, y, approx = nystrom(m = 20)),
                         cv = kernel_cv(kernel_means, x, y, folds = 3, metric = "brier",
                                        approx = nystrom(m = 10))),
               "nystrom\\(m = 10", class = "kernclass_cv_mismatch_error")
  # the same settings however written: gamma's default 1/p given, an alias
  ok <- kernel_cv(kernel_means, x, y, folds = 3, metric = "brier", gamma = 1 / 4, kernel = "radial")
  expect_silent(conformal(fit, cv = ok))
  expect_silent(conformal(kernel_means(x, y, gamma = 0.25), cv = kernel_cv(kernel_means, x, y,
                folds = 3, metric = "brier")))
  # the SVM's cost; its tolerance is the solver's and not compared
  svm <- kernel_svm(x, y, probability = TRUE, cost = 4)
  cv_c <- kernel_cv(kernel_svm, x, y, folds = 3, metric = "brier")
  expect_error(conformal(svm, cv = cv_c), "`cost` is 1 in `cv` and 4", class = "kernclass_cv_mismatch_error")
  expect_silent(conformal(svm, cv = kernel_cv(kernel_svm, x, y, folds = 3, metric = "brier",
                                              cost = 4, tolerance = 1e-2)))
  # kernel_tune's best row against its own refitted model, and against another model
  tn <- kernel_tune(kernel_svm, x, y, grid = list(cost = c(0.5, 8), gamma = c(0.1, 1)), folds = 3,
                    metric = "brier")
  expect_silent(conformal(tn))
  expect_silent(recalibrate(tn$model, cv = tn))
  expect_error(conformal(kernel_svm(x, y, probability = TRUE, cost = tn$best$cost * 2,
                                    gamma = tn$best$gamma), cv = tn),
               "`cost`", class = "kernclass_cv_mismatch_error")
})
