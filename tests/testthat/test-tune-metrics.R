# kernel_cv()/kernel_tune(): metrics against plain-R formulas on folds
# refitted by hand, weights split with the folds, formula and default methods,
# the SVM cost path (warm starts, shared kernel rows) against cold fits,
# progress.

metric_data <- function(n = 90, classes = 2) {
  set.seed(31)
  x <- matrix(rnorm(n * 3), n, 3)
  f <- x[, 1] + 0.6 * x[, 2]^2 + rnorm(n, sd = 0.6)
  y <- if (classes == 2) factor(ifelse(f > 0.5, "yes", "no"), levels = c("yes", "no")) else
    factor(cut(f, quantile(f, c(0, 1 / 3, 2 / 3, 1)), include.lowest = TRUE, labels = c("a", "b", "c")))
  list(x = x, y = y)
}

# out-of-fold probabilities, decision values and classes by hand
by_hand <- function(fit, x, y, fold, ...) {
  n <- length(y)
  prob <- matrix(NA_real_, n, nlevels(y))
  dec <- rep(NA_real_, n)
  cls <- character(n)
  for (f in sort(unique(fold))) {
    te <- fold == f
    m <- fit(x[!te, , drop = FALSE], y[!te], ...)
    cls[te] <- as.character(predict(m, x[te, , drop = FALSE]))
    prob[te, ] <- predict(m, x[te, , drop = FALSE], type = "prob")
    if (nlevels(y) == 2) dec[te] <- predict(m, x[te, , drop = FALSE], type = "decision")
  }
  list(prob = prob, dec = dec, cls = factor(cls, levels = levels(y)))
}

test_that("each metric equals its plain-R formula on folds refitted by hand", {
  for (classes in 2:3) {
    d <- metric_data(classes = classes)
    metrics <- c("accuracy", "bal_accuracy", "logloss", "brier", if (classes == 2) "auc")
    for (metric in metrics) {
      set.seed(8)
      cv <- kernel_cv(kernel_parzen, d$x, d$y, folds = 4, gamma = 0.7, metric = metric)
      h <- by_hand(kernel_parzen, d$x, d$y, cv$fold, gamma = 0.7)
      y <- as.integer(d$y)
      expected <- switch(metric,
        accuracy = mean(h$cls == d$y),
        bal_accuracy = mean(sapply(levels(d$y), function(l) mean(h$cls[d$y == l] == l))),
        logloss = -mean(log(h$prob[cbind(seq_along(y), y)])),
        brier = mean(sapply(seq_along(y), function(i) sum((h$prob[i, ] - (seq_len(classes) == y[i]))^2))),
        auc = {
          pos <- h$dec[y == 1]
          neg <- h$dec[y == 2]
          mean(outer(pos, neg, ">") + 0.5 * outer(pos, neg, "=="))
        })
      expect_equal(cv$value, expected, tolerance = 1e-12, info = paste(metric, classes))
      expect_equal(cv$accuracy, mean(h$cls == d$y))
      expect_identical(cv$metric, metric)
    }
  }
})

test_that("kappa is Cohen's kappa of the out-of-fold classes (plain R, and yardstick's kap)", {
  cohen <- function(pred, truth) {
    tab <- table(pred, truth)
    n <- sum(tab)
    po <- sum(diag(tab)) / n
    pe <- sum(rowSums(tab) * colSums(tab)) / n^2
    (po - pe) / (1 - pe)
  }
  for (classes in 2:3) {
    d <- metric_data(classes = classes)
    set.seed(8)
    cv <- kernel_cv(kernel_parzen, d$x, d$y, folds = 4, gamma = 0.7, metric = "kappa")
    h <- by_hand(kernel_parzen, d$x, d$y, cv$fold, gamma = 0.7)
    expect_identical(cv$metric, "kappa")
    expect_equal(cv$value, cohen(h$cls, d$y), tolerance = 1e-12)
    expect_equal(unname(cv$fold_value),
                 vapply(1:4, function(f) cohen(h$cls[cv$fold == f], d$y[cv$fold == f]),
                        numeric(1)), tolerance = 1e-12)
    if (requireNamespace("yardstick", quietly = TRUE)) {
      expect_equal(cv$value, yardstick::kap_vec(d$y, h$cls), tolerance = 1e-12)
    }
  }
  # a tuned grid picks the largest kappa
  d <- metric_data()
  set.seed(2)
  t <- kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = c(0.01, 0.3, 3, 30)), folds = 3,
                   metric = "kappa")
  expect_identical(t$best_index, which.max(t$results$kappa))
  # one class in truth and prediction: no agreement beyond chance to measure
  o <- list(predicted = factor(c("a", "a"), levels = c("a", "b")))
  expect_identical(kernclass:::kc_metric_value("kappa", o, factor(c("a", "a"), levels = c("a", "b"))),
                   NA_real_)
})

test_that("yardstick's metric names are aliases; a different quantity is a hint", {
  d <- metric_data()
  aliases <- c(kap = "kappa", mn_log_loss = "logloss", roc_auc = "auc")
  for (name in names(aliases)) {
    alias <- aliases[[name]]
    set.seed(8)
    a <- kernel_cv(kernel_parzen, d$x, d$y, folds = 4, gamma = 0.7, metric = name)
    set.seed(8)
    b <- kernel_cv(kernel_parzen, d$x, d$y, folds = 4, gamma = 0.7, metric = alias)
    expect_identical(a$metric, alias)
    expect_identical(a$value, b$value)
  }
  cnd <- expect_error(kernel_cv(kernel_parzen, d$x, d$y, folds = 4, metric = "brier_class"),
                      'metric = "brier"', class = "kernclass_input_error")
  expect_identical(cnd$arg, "metric")
  expect_error(kernel_cv(kernel_parzen, d$x, d$y, folds = 4, metric = "Kappa"),
               'metric = "kappa"', class = "kernclass_input_error")
  skip_if_not_installed("yardstick")
  set.seed(8)
  cv <- kernel_cv(kernel_parzen, d$x, d$y, folds = 4, gamma = 0.7, metric = "mn_log_loss")
  h <- by_hand(kernel_parzen, d$x, d$y, cv$fold, gamma = 0.7)
  expect_equal(cv$value, yardstick::mn_log_loss_vec(d$y, h$prob[, 1]), tolerance = 1e-12)
  set.seed(8)
  cv <- kernel_cv(kernel_parzen, d$x, d$y, folds = 4, gamma = 0.7, metric = "brier")
  # yardstick's brier_class is half of kernclass's brier: refused, with what to use
  expect_equal(cv$value / 2, yardstick::brier_class_vec(d$y, h$prob[, 1]), tolerance = 1e-12)
})

test_that("kernel_tune chooses by the metric, smaller is better for log-loss and Brier", {
  d <- metric_data()
  for (metric in c("logloss", "brier", "auc", "bal_accuracy")) {
    set.seed(2)
    t <- kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = c(0.01, 0.3, 3, 30)),
                     folds = 3, metric = metric)
    v <- t$results[[metric]]
    best <- if (metric %in% c("logloss", "brier")) which.min(v) else which.max(v)
    expect_identical(t$best_index, best)
    expect_equal(t$best_value, v[best])
    expect_output(print(t), kernclass:::kc_metrics[[metric]]$label, fixed = TRUE)
    s <- summary(t)
    expect_equal(s$table[[metric]][1], v[best])
  }
})

test_that("weights are split with the folds (kernel_cv and kernel_tune against manual folds)", {
  d <- metric_data()
  set.seed(5)
  w <- ifelse(d$y == "yes", 4, 0.25) * runif(length(d$y), 0.5, 1.5)
  set.seed(9)
  cv <- kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = 2, weights = w)
  pred <- character(length(d$y))
  for (f in 1:4) {
    te <- cv$fold == f
    m <- kernel_svm(d$x[!te, ], d$y[!te], cost = 2, weights = w[!te])
    pred[te] <- as.character(predict(m, d$x[te, ]))
  }
  expect_identical(as.character(cv$predicted), pred)
  # weights matter here: unweighted CV predicts differently
  set.seed(9)
  expect_false(identical(kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = 2)$predicted,
                         cv$predicted))
  set.seed(9)
  t <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.5, 2)), folds = 4, weights = w,
                   search = "exhaustive")
  expect_identical(t$fold, cv$fold)
  expect_equal(t$results$accuracy[2], cv$accuracy)
  expect_equal(unname(t$model$C), t$best$cost * w)  # the refit is weighted too
  # only fitters that take weights
  expect_error(kernel_cv(kernel_means, d$x, d$y, weights = w), class = "kernclass_input_error")
  expect_error(kernel_cv(kernel_svm, d$x, d$y, weights = w[-1]), class = "kernclass_input_error")
})

test_that("formula and default methods agree (kernel_cv and kernel_tune)", {
  df <- iris
  set.seed(4)
  a <- kernel_cv(kernel_svm, Species ~ ., data = df, folds = 5, cost = 3)
  set.seed(4)
  b <- kernel_cv(kernel_svm, df[, 1:4], df$Species, folds = 5, cost = 3)
  expect_identical(a$predicted, b$predicted)
  expect_identical(a$fold, b$fold)
  expect_identical(deparse(a$call[[1]]), "kernel_cv")
  set.seed(4)
  t1 <- kernel_tune(kernel_parzen, Species ~ Petal.Length + Petal.Width, data = df,
                    grid = list(gamma = c(0.1, 1, 10)), folds = 3, metric = "brier")
  set.seed(4)
  t2 <- kernel_tune(kernel_parzen, df[, c("Petal.Length", "Petal.Width")], df$Species,
                    grid = list(gamma = c(0.1, 1, 10)), folds = 3, metric = "brier")
  expect_identical(t1$results, t2$results)
  expect_identical(t1$best, t2$best)
  # subset and weights evaluated in data, as model.frame() does
  df$w <- rep(c(1, 2), 75)
  set.seed(4)
  t3 <- kernel_tune(kernel_svm, Species ~ Sepal.Length + Sepal.Width + Petal.Length + Petal.Width,
                    data = df, grid = list(cost = c(1, 4)),
                    folds = 3, weights = w, subset = Sepal.Length > 4.5)
  keep <- df$Sepal.Length > 4.5
  set.seed(4)
  t4 <- kernel_tune(kernel_svm, df[keep, 1:4], df$Species[keep], grid = list(cost = c(1, 4)),
                    folds = 3, weights = df$w[keep])
  expect_identical(t3$results, t4$results)
  expect_error(kernel_tune(kernel_svm, ~ Sepal.Length, data = df, grid = list(cost = 1)),
               class = "kernclass_input_error")
})

test_that("bad metrics are classed errors naming `metric`", {
  d <- metric_data(classes = 3)
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, metric = "auc")), "metric")
  expect_identical(arg_of(kernel_cv(kernel_means, d$x, d$y, metric = "f1")), "metric")
  expect_identical(arg_of(kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = 1),
                                      metric = c("accuracy", "auc"))), "metric")
})

test_that("a warm-started SVM along increasing cost agrees with cold starts", {
  set.seed(12)
  n <- 300
  x <- matrix(rnorm(n * 4), n, 4)
  y <- factor(ifelse(x[, 1] * x[, 2] + 0.3 * rnorm(n) > 0, "p", "q"))
  xt <- matrix(rnorm(400 * 4), 400, 4)
  costs <- c(0.1, 1, 10, 100)
  for (g in c(0.05, 0.5, 5)) {
    path <- kernclass:::kc_svm_cost_path(x, y, costs, gamma = g)  # kernel_tune()'s per fold
    for (i in seq_along(costs)) {
      cold <- kernel_svm(x, y, gamma = g, cost = costs[i])
      warm <- path[[i]]
      # both within the solver's tolerance of the optimum
      expect_lt(abs(warm$objective - cold$objective),
                1e-3 * max(1, abs(cold$objective)))
      expect_lte(warm$kkt_violation, 1e-3)
      expect_identical(predict(warm, xt), predict(cold, xt), info = paste(g, costs[i]))
    }
  }
  # three classes: each pair its own path
  path <- kernclass:::kc_svm_cost_path(iris[, 1:4], iris$Species, c(1, 10))
  for (i in 1:2) {
    warm <- path[[i]]
    cold <- kernel_svm(iris[, 1:4], iris$Species, cost = c(1, 10)[i])
    expect_equal(warm$objective, cold$objective, tolerance = 1e-3)
    expect_identical(predict(warm, iris), predict(cold, iris))
  }
})

test_that("a path without room for its kernel rows still warm-starts, with the same results", {
  d <- metric_data(200)
  grid <- list(cost = c(4, 0.25, 1), gamma = c(0.2, 2))
  set.seed(3)
  a <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 3, search = "exhaustive")
  old <- options(kernclass.tune.store_mb = 0)
  on.exit(options(old))
  set.seed(3)
  b <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 3, search = "exhaustive")
  expect_equal(a$results, b$results)
  # and each cell as kernel_cv gives it from cold fits on the same folds
  for (i in seq_len(nrow(a$results))) {
    set.seed(3)
    cv <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, cost = a$results$cost[i],
                    gamma = a$results$gamma[i])
    expect_equal(a$results$accuracy[i], cv$accuracy, info = i)
  }
})

test_that("progress is silent without a handler and reported with one", {
  skip_if_not_installed("progressr")
  d <- metric_data()
  expect_silent(kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(0.1, 1)), folds = 3))
})

test_that("kernel_cv and kernel_tune report one progress bar of folds x grid rows, in order", {
  skip_if_not_installed("progressr")
  # the progression conditions progressr's handlers listen to (progressr
  # signals them where it is enabled: interactive sessions)
  old <- options(progressr.enable = TRUE)
  on.exit(options(old))
  bars <- function(expr) {
    seen <- list()
    withCallingHandlers(expr, progression = function(p) {
      seen[[length(seen) + 1L]] <<- list(type = p$type, id = p$progressor_uuid, steps = p$steps,
                                         amount = if (is.null(p$amount)) 0 else p$amount)
    })
    types <- vapply(seen, `[[`, character(1), "type")
    ids <- vapply(seen, `[[`, character(1), "id")
    updates <- seen[types == "update"]
    list(bars = sum(types == "initiate"), ids = unique(ids),
         declared = seen[[which(types == "initiate")[1L]]]$steps,
         amounts = vapply(updates, `[[`, numeric(1), "amount"))
  }
  d <- metric_data()
  d3 <- metric_data(classes = 3)
  cases <- list(
    cv = list(quote(kernel_cv(kernel_svm, d$x, d$y, folds = 4)), 4),
    cv_loo = list(quote(kernel_cv(kernel_means, d$x[1:30, ], d$y[1:30], folds = "loo")), 30),
    # the gammas share their kernel sums: one unit per fold for both rows
    parzen = list(quote(kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = c(0.1, 1)),
                                    folds = 3)), 3 * 2),
    exhaustive = list(quote(kernel_tune(kernel_svm, d3$x, d3$y, folds = 3,
                                        grid = list(cost = c(0.1, 1, 10), gamma = c(0.1, 1)),
                                        search = "exhaustive")), 3 * 6),
    # the race drops rows: their folds not run count when they are dropped
    race = list(quote(kernel_tune(kernel_svm, d$x, d$y, folds = 4,
                                  grid = list(cost = c(0.01, 0.1, 1, 10), gamma = c(0.1, 1)))),
                4 * 8),
    race_means = list(quote(kernel_tune(kernel_means, d$x, d$y, folds = 4,
                                        grid = list(gamma = c(0.01, 0.1, 1, 10)),
                                        kernel = "laplace")), 4 * 4))
  for (nm in names(cases)) {
    set.seed(3)
    b <- bars(eval(cases[[nm]][[1L]]))
    expect_identical(b$bars, 1L, label = nm)          # one bar, not one per fold
    expect_identical(length(b$ids), 1L, label = nm)
    expect_equal(b$declared, cases[[nm]][[2L]], label = nm)
    # advanced in steps of whole units, to exactly the steps declared
    expect_true(all(b$amounts >= 0), label = nm)
    expect_equal(sum(b$amounts), b$declared, label = nm)
    expect_true(all(diff(cumsum(b$amounts)) >= 0), label = nm)
  }
})

# a handler as progressr's bars are made: the amounts of the updates it draws
progress_steps <- function(expr) {
  steps <- numeric()
  h <- progressr::make_progression_handler("count", enable = TRUE, reporter = list(
    update = function(config, state, progression, ...) {
      if (progression$amount > 0) steps[length(steps) + 1L] <<- progression$amount
    }))
  value <- progressr::with_progress(expr, handlers = h, enable = TRUE)
  list(steps = steps, value = value)
}

# a handler that fails at its first update, with a condition of its own class
failing_handler <- function(fail) {
  progressr::make_progression_handler("failing", enable = TRUE, reporter = list(
    update = function(config, state, progression, ...) if (progression$amount > 0) fail()))
}

test_that("an exhaustive or screened SVM grid moves its progress bar as each unit finishes", {
  skip_if_not_installed("progressr")
  old <- options(kernclass.threads = 1)
  on.exit(options(old))
  d <- metric_data()
  grid <- list(cost = c(0.1, 1, 10), gamma = c(0.05, 0.2, 0.5, 1))
  # one call of the cost path for the whole grid; on one thread each unit
  # (the class pair of one gamma on one of 4 folds, its 3 costs) moves the
  # bar by its 3 costs x 1 fold as it ends: 16 steps, not one at the end
  for (search in c("exhaustive", "screen")) {
    set.seed(3)
    b <- progress_steps(kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4, search = search))
    expect_identical(b$steps, rep(3, 16), label = search)
  }
  # on 2 threads (one call: before, the bar jumped 0 -> 100% at its end)
  # R's thread tells the units finished at its polls: several steps, whole,
  # summing to the folds x grid rows; the results as without a handler
  # (600 rows: units long enough that both threads run some)
  options(kernclass.threads = 2)
  d <- metric_data(n = 600)
  for (search in c("exhaustive", "screen")) {
    set.seed(3)
    b <- progress_steps(kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4, search = search))
    set.seed(3)
    plain <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4, search = search)
    expect_gt(length(b$steps), 1L, label = search)
    expect_identical(sum(b$steps), 4 * 12, label = search)
    expect_identical(b$steps, round(b$steps), label = search)
    expect_identical(b$value, plain, label = search)
  }
})

test_that("a three-class race moves its bar within a fold, results unchanged", {
  skip_if_not_installed("progressr")
  old <- options(kernclass.threads = 2)
  on.exit(options(old))
  d <- metric_data(n = 600, classes = 3)  # units long enough that both threads run some
  grid <- list(cost = c(0.1, 1, 10), gamma = c(0.05, 0.2, 0.5, 1))
  set.seed(3)
  b <- progress_steps(kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4))
  set.seed(3)
  plain <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4)
  expect_identical(b$value, plain)
  expect_identical(sum(b$steps), 4 * 12)
  # fold 1 is one call of 3 pairs x 4 gammas: its 12 steps come in more than one
  expect_gt(which(cumsum(b$steps) >= 12)[1L], 1L)
})

test_that("a progress handler's error or interrupt inside the cost path reaches the caller", {
  skip_if_not_installed("progressr")
  old <- options(kernclass.threads = 1)
  on.exit(options(old))
  d <- metric_data()
  d3 <- metric_data(classes = 3)
  grid <- list(cost = c(0.1, 1), gamma = c(0.1, 1))
  broken <- failing_handler(function() {
    stop(structure(class = c("bar_error", "error", "condition"),
                   list(message = "the bar broke", call = NULL)))
  })
  interrupting <- failing_handler(function() kernclass:::kc_interrupt())
  tune <- function(y, search) kernel_tune(kernel_svm, d$x, y, grid = grid, folds = 3, search = search)
  for (threads in 1:2) {
    options(kernclass.threads = threads)
    for (case in list(list(d$y, "exhaustive"), list(d3$y, "race"))) {
      label <- paste(threads, case[[2L]])
      # the handler's own condition, as from R code (no grid row named)
      e <- tryCatch(progressr::with_progress(tune(case[[1L]], case[[2L]]), handlers = broken,
                                             enable = TRUE), error = function(e) e)
      expect_s3_class(e, "bar_error")
      expect_identical(conditionMessage(e), "the bar broke", label = label)
      got <- tryCatch(progressr::with_progress(tune(case[[1L]], case[[2L]]),
                                               handlers = interrupting, enable = TRUE),
                      interrupt = function(e) "interrupted")
      expect_identical(got, "interrupted", label = label)
      # nothing left behind: the same search runs, as it does without a handler
      set.seed(1)
      after <- tune(case[[1L]], case[[2L]])
      set.seed(1)
      expect_identical(progress_steps(tune(case[[1L]], case[[2L]]))$value, after, label = label)
    }
  }
})

test_that("log-loss and Brier turn on kernel_svm's probability model unless it is given", {
  d <- metric_data(classes = 3)
  for (metric in c("logloss", "brier")) {
    set.seed(4)
    implicit <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, metric = metric)
    set.seed(4)
    explicit <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, metric = metric, probability = TRUE)
    expect_identical(implicit$value, explicit$value)
    expect_true(is.finite(implicit$value))
  }
  set.seed(5)
  t <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 10)), folds = 3,
                   metric = "logloss")
  expect_false(is.null(t$model$probA))       # the refit can give probabilities
  expect_true(isTRUE(t$model$call$probability))
  # said otherwise, in the arguments or the grid: as said
  expect_error(kernel_cv(kernel_svm, d$x, d$y, folds = 3, metric = "logloss",
                         probability = FALSE), "probability = TRUE")
  expect_error(kernel_tune(kernel_svm, d$x, d$y, grid = list(probability = FALSE), folds = 3,
                           metric = "brier"), "probability = TRUE")
  # other fitters have no such argument; accuracy leaves the SVM as it is
  expect_null(kernclass:::kc_metric_args("logloss", kernel_parzen, list())$probability)
  expect_null(kernclass:::kc_metric_args("accuracy", kernel_svm, list())$probability)
})
