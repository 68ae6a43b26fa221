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
