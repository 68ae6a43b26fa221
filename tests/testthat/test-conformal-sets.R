# Conformal p-values and the RAPS and top-k scores (R/model-conformal-sets.R)
# against plain-R transcriptions (helper-conformal.R); the identity of sets
# and p-values; the validity of the p-values over independent draws.
# Cost: a few seconds.

testthat::local_edition(3)

test_that("p-values are the transcribed formula for every score, Mondrian, and the split, cv and loo forms", {
  d <- conf_sim(330, 1)
  fit <- kernel_parzen(d$x[1:120, ], d$y[1:120], gamma = 0.8)
  cal <- 121:220
  new <- 221:330
  p_cal <- predict(fit, d$x[cal, ], type = "prob")
  p_new <- predict(fit, d$x[new, ], type = "prob")
  opts <- list(prob = list(), aps = list(), topk = list(),
               raps = list(lambda = 0.07, k_reg = 1), raps0 = list(lambda = 0.3, k_reg = 0))
  for (nm in names(opts)) {
    score <- sub("0$", "", nm)
    a <- opts[[nm]]
    s_cal <- do.call(conf_ref_scores, c(list(p_cal, score), a))[cbind(seq_along(cal),
                                                                        as.integer(d$y[cal]))]
    s_new <- do.call(conf_ref_scores, c(list(p_new, score), a))
    for (mondrian in c(FALSE, TRUE)) {
      cf <- do.call(conformal, c(list(fit, d$x[cal, ], d$y[cal], score = score,
                                      mondrian = mondrian), a))
      expect_equal(cf$conformal$scores, s_cal, tolerance = 1e-12, info = nm)
      pv <- predict(cf, d$x[new, ], type = "pvalue")
      expect_identical(dimnames(pv), list(rownames(d$x[new, ]), levels(d$y)))
      expect_equal(unname(pv), conf_ref_pvalues(s_cal, d$y[cal], s_new, mondrian),
                   info = paste(nm, mondrian))
    }
  }
  # cross-validated: the out-of-fold scores; leave-one-out: kc_loo's
  set.seed(2)
  cv <- kernel_cv(kernel_parzen, d$x[1:120, ], d$y[1:120], folds = 4, metric = "brier",
                  gamma = 0.8)
  cfc <- conformal(fit, cv = cv, score = "aps")
  s_cv <- conf_ref_scores(cv$prob, "aps")[cbind(1:120, as.integer(d$y[1:120]))]
  expect_equal(unname(predict(cfc, d$x[new, ], type = "pvalue")),
               conf_ref_pvalues(s_cv, d$y[1:120], conf_ref_scores(p_new, "aps")))
  m <- kernel_means(d$x[1:120, ], d$y[1:120], gamma = 0.8, scale = FALSE)
  cfl <- conformal(m, score = "topk")
  p_loo <- kernclass:::kc_loo(m, default_prior = TRUE, what = "prob")
  s_loo <- conf_ref_scores(p_loo, "topk")[cbind(1:120, as.integer(d$y[1:120]))]
  expect_equal(unname(predict(cfl, d$x[new, ], type = "pvalue")),
               conf_ref_pvalues(s_loo, d$y[1:120],
                                conf_ref_scores(predict(m, d$x[new, ], type = "prob"), "topk")))
})

test_that("the set at level is exactly {c : p_c > 1 - level}, also where (n + 1)(1 - level) is whole", {
  d <- conf_sim(260, 3)
  fit <- kernel_svm(d$x[1:100, ], d$y[1:100], probability = TRUE)
  new <- d$x[201:260, ]
  # n where (n + 1)(1 - level) is not whole: p_c > 1 - level in doubles
  for (n_cal in c(10, 22, 100)) {
    cal <- 100 + seq_len(n_cal)
    for (score in c("prob", "aps", "raps", "topk")) {
      for (mondrian in c(FALSE, TRUE)) {
        cf <- conformal(fit, d$x[cal, ], d$y[cal], score = score, mondrian = mondrian)
        pv <- predict(cf, new, type = "pvalue")
        # Mondrian: n_c per class, (n_c + 1)(1 - level) can be whole; compare
        # the whole counts (n_c + 1) p_c with it, rounded to the decimals given
        m <- if (mondrian) tabulate(cf$conformal$y, 3) else rep(n_cal, 3)
        m <- matrix(m, nrow(new), 3, byrow = TRUE)
        for (level in c(0.5, 0.8, 0.9, 0.95)) {
          s <- predict(cf, new, type = "set", level = level)
          ref <- if (mondrian) round(pv * (m + 1)) > round((m + 1) * (1 - level), 9) else
            pv > 1 - level
          expect_identical(unclass(s)[, ], ref, info = paste(n_cal, score, level, mondrian))
        }
      }
    }
  }
  # alpha = j / (n + 1) exactly: p_c > alpha in whole numbers, (n + 1) p_c > j
  # (1 - level in doubles can fall below j / (n + 1), and 0.7 * 10 is above 7)
  for (n_cal in c(9, 19, 99)) {
    cal <- 100 + seq_len(n_cal)
    for (score in c("prob", "aps", "raps", "topk")) {
      cf <- conformal(fit, d$x[cal, ], d$y[cal], score = score)
      pv <- predict(cf, new, type = "pvalue")
      for (j in c(1, 2, 3, 5)) {
        for (level in c(1 - j / (n_cal + 1), (n_cal + 1 - j) / (n_cal + 1))) {
          s <- predict(cf, new, type = "set", level = level)
          expect_identical(unclass(s)[, ], round(pv * (n_cal + 1)) > j,
                           info = paste(n_cal, score, j, level))
        }
      }
    }
  }
  # the rank of the quantile: the 7th of 9 scores at level 0.7, not the 8th
  expect_identical(kernclass:::kc_conformal_rank(9, 0.7), 7)
  expect_identical(kernclass:::kc_conformal_rank(c(9, 10), 0.9), c(9, 10))
  # the training rows, with na.exclude's NA rows in place
  df <- data.frame(d$x, y = d$y)
  df$u[2] <- NA
  cfn <- conformal(kernel_parzen(y ~ ., data = df[1:100, ], na.action = na.exclude),
                   df[101:200, ], df$y[101:200])
  pv <- predict(cfn, type = "pvalue")
  expect_identical(dim(pv), c(100L, 3L))
  expect_true(all(is.na(pv[2, ])))
  expect_identical(unclass(predict(cfn, type = "set", level = 0.8))[-2, ], pv[-2, ] > 1 - 0.8)
})

test_that("the true class's p-value is valid: P(p <= alpha) <= alpha, within a binomial bound", {
  # independent replicates: a fixed model, each replicate fresh calibration
  # rows and one fresh test row (so the R indicators are independent
  # Bernoulli of probability in [alpha - 1/(m + 1), alpha])
  d <- conf_sim(120, 4)
  fit <- kernel_parzen(d$x, d$y, gamma = 0.8)
  R <- 600
  m <- 39
  pool <- conf_sim(R * (m + 1), 5)
  p_true <- vapply(seq_len(R), function(r) {
    rows <- (r - 1) * (m + 1) + seq_len(m + 1)
    cf <- conformal(fit, pool$x[rows[1:m], ], pool$y[rows[1:m]])
    pv <- predict(cf, pool$x[rows[m + 1], , drop = FALSE], type = "pvalue")
    pv[1, as.integer(pool$y[rows[m + 1]])]
  }, 0)
  for (alpha in c(0.05, 0.1, 0.25, 0.5)) {
    hits <- sum(p_true <= alpha)
    expect_lte(hits, qbinom(1 - 1e-6, R, alpha))
    expect_gte(hits, qbinom(1e-6, R, alpha - 1 / (m + 1)))
  }
  # the p-values lie on the grid k / (m + 1)
  expect_equal(p_true * (m + 1), round(p_true * (m + 1)))
})

test_that("RAPS and top-k sets keep their coverage over random splits; top-k sets are top-k", {
  d <- conf_sim(420, 6)
  fit <- kernel_svm(d$x[1:120, ], d$y[1:120], probability = TRUE)
  pool <- 121:420
  set.seed(7)
  level <- 0.9
  cover <- replicate(80, {
    o <- sample(pool)
    cal <- o[1:120]
    test <- o[-(1:120)]
    vapply(list(list(score = "raps", lambda = 0.1, k_reg = 1), list(score = "topk")), function(a) {
      cf <- do.call(conformal, c(list(fit, d$x[cal, ], d$y[cal]), a))
      summary(predict(cf, d$x[test, ], type = "set", level = level), y = d$y[test])$coverage
    }, 0)
  })
  slack <- 4 * apply(cover, 1, sd) / sqrt(ncol(cover))
  expect_true(all(rowMeans(cover) >= level - slack))
  # a top-k set is the k most probable classes, the same k for every row
  cf <- conformal(fit, d$x[121:240, ], d$y[121:240], score = "topk")
  p <- predict(fit, d$x[241:420, ], type = "prob")
  s <- unclass(predict(cf, d$x[241:420, ], type = "set", level = 0.8))
  k <- unique(rowSums(s))
  expect_length(k, 1L)
  expect_true(all(vapply(seq_len(nrow(p)), function(r) all(s[r, order(-p[r, ])[seq_len(k)]]), NA)))
})

test_that("p-value, RAPS and method input errors name the argument", {
  fit <- kernel_parzen(Species ~ ., data = iris)
  expect_error(predict(fit, iris, type = "pvalue"), "pvalue",
               class = "kernclass_set_unavailable_error")
  expect_error(conformal(fit, iris, iris$Species, score = "raps", lambda = -1), "lambda",
               class = "kernclass_input_error")
  expect_error(conformal(fit, iris, iris$Species, score = "raps", k_reg = 1.5), "k_reg",
               class = "kernclass_input_error")
  expect_error(conformal(fit, iris, iris$Species, lambda = 0.1), "raps",
               class = "kernclass_input_error")
  expect_error(conformal(fit, iris, iris$Species, method = "loo"), "the arguments given",
               class = "kernclass_input_error")
  expect_error(conformal(fit, iris, iris$Species, method = "bootstrap"),
               class = "kernclass_input_error")
  expect_error(conformal(fit, iris, iris$Species, folds = 3), "cv\\+",
               class = "kernclass_input_error")
  e <- tryCatch(conformal(fit, iris, iris$Species, k_reg = 2), error = identity)
  expect_identical(e$arg, "k_reg")
  # method given as the arguments imply it is the same calibration
  expect_identical(conformal(fit, iris, iris$Species, method = "split")$conformal,
                   conformal(fit, iris, iris$Species)$conformal)
})
