# venn_abers(): inductive and cross Venn-Abers predictors. Expected values
# from a plain-R transcription of the definition: stats::isoreg() on the
# calibration scores with the new score added, once with label 0 and once
# with label 1, the fitted value at the added point.

va_naive <- function(s, l, t) {
  vapply(t, function(tt) {
    at <- function(lab) {
      x <- c(s, tt)
      fit <- stats::isoreg(x, c(as.numeric(l), lab))
      ord <- if (is.null(fit$ord)) seq_along(x) else fit$ord
      fit$yf[match(length(x), ord)]
    }
    c(p0 = at(0), p1 = at(1))
  }, numeric(2))
}

test_that("IVAP matches isoreg on the augmented data, ties and new scores alike", {
  set.seed(11)
  for (rep in 1:60) {
    n <- sample(1:30, 1)
    s <- if (rep %% 2) round(runif(n), 1) else runif(n)  # many ties, or none
    l <- runif(n) < s
    t <- c(runif(8), sample(s, min(n, 4)), -1, 2)
    got <- kernclass:::kc_ivap_predict(kernclass:::kc_ivap_fit(s, l), t)
    want <- va_naive(s, l, t)
    expect_equal(got$p0, unname(want["p0", ]), tolerance = 1e-12)
    expect_equal(got$p1, unname(want["p1", ]), tolerance = 1e-12)
  }
})

test_that("two classes: predict()'s intervals and probabilities are the IVAP of the first class", {
  set.seed(3)
  n <- 240
  x <- matrix(rnorm(2 * n), n)
  y <- factor(ifelse(x[, 1] + x[, 2]^2 / 2 + rnorm(n, sd = 0.8) > 0.5, "a", "b"))
  tr <- 1:80; ca <- 81:180; te <- 181:240
  fit <- kernel_svm(x[tr, ], y[tr], probability = TRUE)
  va <- venn_abers(fit, x[ca, ], y[ca])
  s <- predict(fit, x[ca, ], type = "prob")[, 1]
  t <- predict(fit, x[te, ], type = "prob")[, 1]
  want <- va_naive(s, y[ca] == "a", t)
  iv <- predict(va, x[te, ], type = "interval")
  expect_equal(dim(iv), c(60L, 2L, 2L))
  expect_equal(dimnames(iv)[[3]], c("lower", "upper"))
  expect_equal(unname(iv[, "a", "lower"]), unname(want["p0", ]), tolerance = 1e-12)
  expect_equal(unname(iv[, "a", "upper"]), unname(want["p1", ]), tolerance = 1e-12)
  expect_equal(unname(iv[, "b", "lower"]), 1 - unname(want["p1", ]), tolerance = 1e-12)
  p <- predict(va, x[te, ], type = "prob")
  merged <- want["p1", ] / (1 - want["p0", ] + want["p1", ])
  expect_equal(unname(p[, "a"]), unname(merged), tolerance = 1e-12)
  expect_equal(unname(rowSums(p)), rep(1, 60))
  # validity: p0 <= p1, the merged probability between them
  expect_true(all(iv[, , "lower"] <= iv[, , "upper"]))
  expect_true(all(p >= iv[, , "lower"] - 1e-12 & p <= iv[, , "upper"] + 1e-12))
  # the class rule follows the merged probabilities
  expect_identical(predict(va, x[te, ]), factor(c("a", "b")[max.col(p, "first")], c("a", "b")))
})

test_that("more classes: one against the rest, normalised, and the model's other layers on top", {
  set.seed(5)
  i <- sample(150)
  fit <- kernel_means(Species ~ ., data = iris[i[1:60], ])
  va <- venn_abers(fit, iris[i[61:120], ], iris$Species[i[61:120]])
  new <- iris[i[121:150], ]
  p <- predict(va, new, type = "prob")
  iv <- predict(va, new, type = "interval")
  expect_equal(unname(rowSums(p)), rep(1, 30))
  s <- predict(fit, iris[i[61:120], ], type = "prob")
  t <- predict(fit, new, type = "prob")
  raw <- sapply(1:3, function(c) {
    w <- va_naive(s[, c], as.integer(iris$Species[i[61:120]]) == c, t[, c])
    expect_equal(unname(iv[, c, "lower"]), unname(w["p0", ]), tolerance = 1e-12)
    expect_equal(unname(iv[, c, "upper"]), unname(w["p1", ]), tolerance = 1e-12)
    w["p1", ] / (1 - w["p0", ] + w["p1", ])
  })
  expect_equal(unname(p), unname(raw / rowSums(raw)), tolerance = 1e-12)
  expect_true(all(iv[, , "lower"] <= iv[, , "upper"]))
  # conformal() scores through the Venn-Abers probabilities; recalibrate() replaces them
  cf <- conformal(va, iris[i[61:120], ], iris$Species[i[61:120]])
  expect_s3_class(predict(cf, new, type = "set"), "kernclass_sets")
  expect_output(print(va), "venn_abers, on calibration rows")
  expect_null(recalibrate(va, method = NULL)$recalibration)
  expect_error(predict(recalibrate(va), new, type = "interval"),
               class = "kernclass_interval_unavailable_error")
})

test_that("CVAP: an IVAP per fold on its out-of-fold probabilities, merged by geometric means", {
  set.seed(8)
  n <- 150
  x <- matrix(rnorm(2 * n), n)
  y <- factor(ifelse(x[, 1] - x[, 2] + rnorm(n) > 0, "u", "v"))
  cv <- kernel_cv(kernel_svm, x, y, folds = 4, metric = "logloss")
  fit <- kernel_svm(x, y, probability = TRUE)
  va <- venn_abers(fit, cv = cv)
  new <- matrix(rnorm(40), 20)
  t <- predict(fit, new, type = "prob")[, 1]
  pk <- lapply(1:4, function(k) {
    r <- cv$fold == k
    va_naive(cv$prob[r, 1], cv$y[r] == "u", t)
  })
  p0 <- sapply(pk, function(w) w["p0", ])
  p1 <- sapply(pk, function(w) w["p1", ])
  gm <- function(m) exp(rowMeans(log(m)))
  want <- gm(p1) / (gm(1 - p0) + gm(p1))
  p <- predict(va, new, type = "prob")
  expect_equal(unname(p[, "u"]), unname(want), tolerance = 1e-12)
  iv <- predict(va, new, type = "interval")
  expect_equal(unname(iv[, "u", "lower"]), unname(apply(p0, 1, min)), tolerance = 1e-12)
  expect_equal(unname(iv[, "u", "upper"]), unname(apply(p1, 1, max)), tolerance = 1e-12)
  expect_true(all(p >= iv[, , "lower"] - 1e-12 & p <= iv[, , "upper"] + 1e-12))
  expect_output(print(va), "out-of-fold rows")
})

test_that("venn_abers() errors: missing classes, one class, no probabilities", {
  set.seed(2)
  i <- sample(150)
  fit <- kernel_parzen(Species ~ ., data = iris[i[1:75], ])
  no_virginica <- iris[iris$Species != "virginica", ][1:30, ]
  expect_error(venn_abers(fit, no_virginica, no_virginica$Species),
               class = "kernclass_venn_abers_classes_error")
  two <- droplevels(iris[iris$Species != "setosa", ])
  f2 <- kernel_means(Species ~ ., data = two)
  expect_error(venn_abers(f2, two[1:10, ], two$Species[1:10]),
               class = "kernclass_venn_abers_classes_error")
  expect_error(venn_abers(kernel_svm(Species ~ ., data = iris), iris, iris$Species),
               class = "kernclass_prob_unavailable_error")
  expect_error(venn_abers(fit, iris[1:10, ]), class = "kernclass_input_error")
  expect_error(venn_abers(list(), iris, iris$Species), class = "kernclass_input_error")
  cv <- kernel_cv(kernel_means, Species ~ ., data = iris, folds = 3)  # accuracy: no probabilities
  expect_error(venn_abers(kernel_means(Species ~ ., data = iris), cv = cv),
               class = "kernclass_input_error")
  expect_error(predict(fit, iris, type = "interval"), class = "kernclass_interval_unavailable_error")
})

test_that("intervals keep na.exclude's NA rows and predict's NA rows", {
  df <- iris
  df$Sepal.Length[c(3, 60)] <- NA
  set.seed(4)
  fit <- kernel_means(Species ~ ., data = df[c(TRUE, FALSE), ], na.action = na.exclude)
  va <- venn_abers(fit, df[c(FALSE, TRUE), ], df$Species[c(FALSE, TRUE)])
  iv <- predict(va, type = "interval")
  expect_equal(dim(iv), c(75L, 3L, 2L))
  expect_true(all(is.na(iv[2, , ])))
  expect_false(anyNA(iv[-2, , ]))
  iv2 <- predict(va, df[1:5, ], type = "interval")
  expect_true(all(is.na(iv2[3, , ])))
})

test_that("IVAP on 1,000 calibration rows and 10,000 new rows keeps p0 <= p1", {
  # (its speed is inst/benchmarks/venn-abers.R's, not a unit test's)
  set.seed(9)
  s <- runif(1000)
  l <- runif(1000) < s
  t <- runif(1e4)
  r <- kernclass:::kc_ivap_predict(kernclass:::kc_ivap_fit(s, l), t)
  expect_true(all(r$p0 <= r$p1))
})

test_that("venn_abers() of a conformal model removes the stale conformal calibration", {
  set.seed(5)
  i <- sample(150)
  fit <- kernel_means(Species ~ ., data = iris[i[1:60], ])
  cf <- conformal(fit, iris[i[61:105], ], iris$Species[i[61:105]])
  expect_warning(va <- venn_abers(cf, iris[i[106:150], ], iris$Species[i[106:150]]),
                 "venn_abers\\(\\)", class = "kernclass_conformal_removed_warning")
  expect_null(va$conformal)
  expect_error(predict(va, iris[1:3, ], type = "set", level = 0.9),
               class = "kernclass_set_unavailable_error")
  # a model without conformal() calibration gets no warning
  expect_no_warning(venn_abers(fit, iris[i[106:150], ], iris$Species[i[106:150]]))
})

# Plain-R transcription of Wu, Lin and Weng's (2004) method 2: minimise
# p'Qp subject to sum(p) = 1, solved through the bordered system.
couple_naive <- function(r, k) {
  r <- unname(as.matrix(r))
  t(apply(r, 1, function(rr) {
    rr <- pmin(pmax(rr, 1e-7), 1 - 1e-7)
    Q <- matrix(0, k, k)
    m <- 0
    for (i in 1:(k - 1)) for (j in (i + 1):k) {
      m <- m + 1
      Q[i, i] <- Q[i, i] + (1 - rr[m])^2
      Q[j, j] <- Q[j, j] + rr[m]^2
      Q[i, j] <- Q[j, i] <- -rr[m] * (1 - rr[m])
    }
    solve(rbind(cbind(Q, 1), c(rep(1, k), 0)), c(rep(0, k), 1))[1:k]
  }))
}

test_that("pairwise: an IVAP per class pair on its decision values, coupled as the SVM couples", {
  set.seed(6)
  i <- sample(150)
  tr <- i[1:60]; ca <- i[61:120]; te <- i[121:150]
  fit <- kernel_svm(Species ~ ., data = iris[tr, ], probability = TRUE)
  va <- venn_abers(fit, iris[ca, ], iris$Species[ca], multiclass = "pairwise")
  expect_output(print(va), "venn_abers \\(pairwise\\), on calibration rows")
  s <- predict(fit, iris[ca, ], type = "decision")
  t <- predict(fit, iris[te, ], type = "decision")
  yc <- as.integer(iris$Species[ca])
  pairs <- rbind(c(1, 2), c(1, 3), c(2, 3))
  w <- lapply(1:3, function(m) {
    rows <- yc %in% pairs[m, ]
    va_naive(s[rows, m], yc[rows] == pairs[m, 1], t[, m])
  })
  r <- sapply(w, function(x) x["p1", ] / (1 - x["p0", ] + x["p1", ]))
  p <- predict(va, iris[te, ], type = "prob")
  expect_equal(unname(p), couple_naive(r, 3), tolerance = 1e-10)
  expect_equal(unname(rowSums(p)), rep(1, 30))
  # the coupling is the model's own: its Platt sigmoids coupled give predict()'s probabilities
  ab <- kernclass:::kc_platt(fit)
  platt <- sapply(1:3, function(m) 1 / (1 + exp(ab[m, "A"] * t[, m] + ab[m, "B"])))
  expect_equal(unname(predict(fit, iris[te, ], type = "prob")), couple_naive(platt, 3),
               tolerance = 1e-10)
  expect_equal(kernclass:::kc_pairwise_coupling(r), couple_naive(r, 3), tolerance = 1e-10)
  # class c's interval couples its pairs at their least and most favourable ends,
  # widened to hold the probability
  lo <- sapply(w, function(x) x["p0", ])
  hi <- sapply(w, function(x) x["p1", ])
  iv <- predict(va, iris[te, ], type = "interval")
  for (c in 1:3) {
    down <- up <- r
    f <- pairs[, 1] == c
    g <- pairs[, 2] == c
    down[, f] <- lo[, f]; down[, g] <- hi[, g]
    up[, f] <- hi[, f]; up[, g] <- lo[, g]
    expect_equal(unname(iv[, c, "lower"]), pmin(couple_naive(down, 3)[, c], unname(p[, c])),
                 tolerance = 1e-10)
    expect_equal(unname(iv[, c, "upper"]), pmax(couple_naive(up, 3)[, c], unname(p[, c])),
                 tolerance = 1e-10)
  }
  # the classes are the coupled probabilities' largest; no Platt model needed
  expect_identical(unname(predict(va, iris[te, ])),
                   factor(levels(iris$Species)[max.col(p, "first")], levels(iris$Species)))
  f0 <- kernel_svm(Species ~ ., data = iris[tr, ])
  va0 <- venn_abers(f0, iris[ca, ], iris$Species[ca], multiclass = "pairwise")
  expect_equal(predict(va0, iris[te, ], type = "prob"), p)
  # ovr stays the default
  expect_identical(venn_abers(fit, iris[ca, ], iris$Species[ca])$recalibration$multiclass, "ovr")
})

test_that("pairwise intervals hold the probability where the coupling is not monotone", {
  # four overlapping classes: on this draw one test row's class would lose a
  # little probability with its pairs at their upper bounds
  set.seed(4)
  n <- 400
  y <- factor(sample(c("a", "b", "c", "d"), n, TRUE))
  x <- matrix(rnorm(2 * n, sd = 1.2), n) + cbind(c(0, 2, 0, 2)[y], c(0, 0, 2, 2)[y])
  va <- venn_abers(kernel_svm(x[1:200, ], y[1:200]), x[201:320, ], y[201:320],
                   multiclass = "pairwise")
  p <- predict(va, x[321:400, ], type = "prob")
  iv <- predict(va, x[321:400, ], type = "interval")
  expect_true(all(iv[, , "lower"] <= p & p <= iv[, , "upper"]))
  expect_true(all(iv[, , "lower"] >= 0 & iv[, , "upper"] <= 1))
})

test_that("pairwise with two classes: the one pair's IVAP on the decision value", {
  set.seed(3)
  n <- 200
  x <- matrix(rnorm(2 * n), n)
  y <- factor(ifelse(x[, 1] + rnorm(n, sd = 0.7) > 0, "a", "b"))
  fit <- kernel_svm(x[1:80, ], y[1:80])
  va <- venn_abers(fit, x[81:160, ], y[81:160], multiclass = "pairwise")
  w <- va_naive(predict(fit, x[81:160, ], type = "decision"), y[81:160] == "a",
                predict(fit, x[161:200, ], type = "decision"))
  clip <- function(v) pmin(pmax(v, 1e-7), 1 - 1e-7)
  p <- predict(va, x[161:200, ], type = "prob")
  expect_equal(unname(p[, "a"]), clip(unname(w["p1", ] / (1 - w["p0", ] + w["p1", ]))),
               tolerance = 1e-12)
  iv <- predict(va, x[161:200, ], type = "interval")
  expect_equal(unname(iv[, "a", "lower"]), clip(unname(w["p0", ])), tolerance = 1e-12)
  expect_equal(unname(iv[, "b", "upper"]), 1 - clip(unname(w["p0", ])), tolerance = 1e-12)
})

test_that("pairwise CVAP: each fold's IVAP on the decision values of the model refit without it", {
  set.seed(12)
  cv <- kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 3)
  fit <- kernel_svm(Species ~ ., data = iris)
  va <- venn_abers(fit, cv = cv, multiclass = "pairwise")
  expect_output(print(va), "pairwise\\), on out-of-fold rows")
  new <- iris[c(5, 55, 105, 71, 120), ]
  t <- predict(fit, new, type = "decision")
  y <- as.integer(iris$Species)
  pairs <- rbind(c(1, 2), c(1, 3), c(2, 3))
  # the folds' models are refitted on the model's own scaling of all the rows
  xs <- scale(as.matrix(iris[, 1:4]))
  r <- sapply(1:3, function(m) {
    pk <- lapply(1:3, function(k) {
      out <- cv$fold == k
      mk <- kernel_svm(xs[!out, ], iris$Species[!out], scale = FALSE, gamma = 0.25)
      s <- predict(mk, xs[out, ], type = "decision")[, m]
      rows <- y[out] %in% pairs[m, ]
      va_naive(s[rows], y[out][rows] == pairs[m, 1], t[, m])
    })
    g1 <- exp(rowMeans(sapply(pk, function(w) log(w["p1", ]))))
    g0 <- exp(rowMeans(sapply(pk, function(w) log(1 - w["p0", ]))))
    g1 / (g0 + g1)
  })
  expect_equal(unname(predict(va, new, type = "prob")), couple_naive(r, 3), tolerance = 1e-10)
  # reproducible under set.seed()
  again <- function() {
    set.seed(12)
    cv <- kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 3)
    predict(venn_abers(fit, cv = cv, multiclass = "pairwise"), new, type = "prob")
  }
  expect_identical(again(), predict(va, new, type = "prob"))
})

test_that("pairwise errors: no pairwise decision values, leave-one-out, conformal from cv", {
  err <- function(expr) tryCatch(expr, kernclass_error = function(e) e)
  e <- err(venn_abers(kernel_means(Species ~ ., data = iris[c(TRUE, FALSE), ]),
                      iris[c(FALSE, TRUE), ], iris$Species[c(FALSE, TRUE)],
                      multiclass = "pairwise"))
  expect_s3_class(e, "kernclass_venn_abers_pairwise_error")
  expect_identical(e$arg, "multiclass")
  expect_match(conditionMessage(e), "`multiclass`", fixed = TRUE)
  fit <- kernel_svm(Species ~ ., data = iris)
  e <- err(venn_abers(fit, multiclass = "pairwise"))
  expect_identical(e$arg, "x")
  e <- err(venn_abers(fit, cv = kernel_cv(kernel_svm, Species ~ ., data = iris, folds = "loo"),
                      multiclass = "pairwise"))
  expect_identical(e$arg, "cv")
  # a model whose weights it does not keep cannot be refitted on the folds
  w <- rep(1:2, 75)
  set.seed(1)
  e <- err(venn_abers(kernel_svm(Species ~ ., data = iris, weights = w),
                      cv = kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 3, weights = w),
                      multiclass = "pairwise"))
  expect_identical(e$arg, "object")
  expect_match(conditionMessage(e), "venn_abers(multiclass = \"pairwise\", cv = )", fixed = TRUE)
  e <- err(venn_abers(fit, iris, iris$Species, multiclass = "both"))
  expect_identical(e$arg, "multiclass")
  no_virginica <- iris[iris$Species != "virginica", ]
  expect_error(venn_abers(fit, no_virginica, no_virginica$Species, multiclass = "pairwise"),
               class = "kernclass_venn_abers_classes_error")
  # conformal() on calibration rows works; from out-of-fold probabilities it cannot
  set.seed(1)
  i <- sample(150)
  f <- kernel_svm(Species ~ ., data = iris[i[1:60], ], probability = TRUE)
  va <- venn_abers(f, iris[i[61:100], ], iris$Species[i[61:100]], multiclass = "pairwise")
  cf <- conformal(va, iris[i[101:150], ], iris$Species[i[101:150]])
  expect_s3_class(predict(cf, iris[1:5, ], type = "set"), "kernclass_sets")
  vf <- venn_abers(fit, iris, iris$Species, multiclass = "pairwise")
  cv <- kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 3, metric = "logloss")
  expect_error(conformal(vf, cv = cv), class = "kernclass_venn_abers_pairwise_error")
})
