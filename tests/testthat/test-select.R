# kernel_tune()'s model selection for kernel_svm(): the grid screened at a
# loose solver tolerance, the chosen row solved exactly; the exhaustive
# search; the default grid.

select_data <- function(n = 120, classes = 2) {
  set.seed(21)
  x <- matrix(rnorm(n * 3), n, 3)
  f <- x[, 1] * x[, 2] + 0.5 * x[, 3]
  y <- if (classes == 2) ifelse(f + 0.4 * rnorm(n) > 0, "p", "q") else
    c("a", "b", "c")[cut(f + 0.4 * rnorm(n), c(-Inf, -0.4, 0.4, Inf), labels = FALSE)]
  list(x = x, y = factor(y))
}

test_that("screened rows are kernel_cv's at the screening tolerance, exhaustive at the fit's", {
  d <- select_data()
  # one cost per gamma: no cost path, so every fit is a cold one, as kernel_cv's
  grid <- data.frame(cost = c(0.5, 4, 30), gamma = c(0.05, 0.5, 3))
  set.seed(5)
  s <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4, search = "screen")
  set.seed(5)
  e <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4, search = "exhaustive")
  expect_identical(s$fold, e$fold)
  expect_identical(s$search, "screen")
  expect_identical(e$search, "exhaustive")
  expect_identical(s$results$status, rep("screened", 3))
  expect_identical(e$results$status, rep("exact", 3))
  expect_identical(s$tolerance, c(screen = 0.1, fit = 1e-3))
  expect_null(e$tolerance)
  # the looser solves give other figures here, so the comparisons below tell
  # the searches apart
  expect_false(identical(s$results$accuracy, e$results$accuracy))
  for (i in 1:3) {
    set.seed(5)
    loose <- kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = grid$cost[i],
                       gamma = grid$gamma[i], tolerance = 0.1)
    set.seed(5)
    exact <- kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = grid$cost[i],
                       gamma = grid$gamma[i])
    expect_identical(loose$fold, s$fold)
    expect_equal(s$results$accuracy[i], loose$accuracy, info = i)
    expect_equal(s$results$sd[i], sd(loose$fold_accuracy), info = i)
    expect_equal(e$results$accuracy[i], exact$accuracy, info = i)
  }
  # a looser screening tolerance changes the screened figures (so the test
  # above can tell the two apart): the solver really stops earlier
  set.seed(5)
  loose <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4, search = "screen",
                       screen_tolerance = 0.9)
  fits <- lapply(c(0.9, 1e-3), function(tol) {
    kernel_svm(d$x, d$y, cost = 30, gamma = 3, tolerance = tol)
  })
  expect_lt(fits[[1]]$iterations, fits[[2]]$iterations)
  expect_identical(loose$tolerance, c(screen = 0.9, fit = 1e-3))
})

test_that("the returned model is kernel_svm() at the chosen parameters, solved exactly", {
  for (classes in c(2, 3)) {
    d <- select_data(150, classes)
    w <- rep(c(1, 2, 0.5), length.out = 150)
    grid <- list(cost = c(0.25, 2, 16), gamma = c(0.1, 1))
    set.seed(6)
    s <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 3, weights = w)
    set.seed(6)
    e <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 3, weights = w,
                     search = "exhaustive")
    user <- kernel_svm(d$x, d$y, cost = s$best$cost, gamma = s$best$gamma, weights = w)
    expect_identical(s$model$tolerance, 1e-3)
    expect_true(all(s$model$kkt_violation <= 1e-3))
    xt <- select_data(300, classes)$x
    expect_identical(predict(s$model, xt), predict(user, xt))
    expect_equal(predict(s$model, xt, type = "decision"), predict(user, xt, type = "decision"))
    expect_equal(s$model$objective, user$objective)
    # the call a user would write: the data and weights by name, no tolerance
    expect_identical(s$model$call, as.call(list(as.name("kernel_svm"), x = quote(d$x),
                                                y = quote(d$y), cost = s$best$cost,
                                                gamma = s$best$gamma, weights = quote(w))))
    expect_identical(eval(s$model$call)$coefs, user$coefs)
    # the refit is the same in both searches where they choose the same row
    if (identical(s$best, e$best)) {
      expect_identical(predict(s$model, xt, type = "decision"),
                       predict(e$model, xt, type = "decision"))
    }
  }
})

test_that("the search is exhaustive where screening does not apply, and says so", {
  d <- select_data()
  set.seed(2)
  p <- kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = c(0.1, 1)), folds = 3,
                   search = "screen")
  expect_identical(p$search, "exhaustive")
  expect_identical(p$results$status, c("exact", "exact"))
  # the default race does not screen them either: its finished rows are exact
  set.seed(2)
  pr <- kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = c(0.1, 1)), folds = 3)
  expect_identical(pr$search, "race")
  expect_null(pr$tolerance)
  expect_identical(pr$results$status, c("exact", "exact"))
  expect_identical(pr$results$accuracy, p$results$accuracy)
  # tolerance as a grid column, or a fit tolerance no tighter than the screen's
  set.seed(2)
  g <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1, tolerance = c(1e-3, 1e-2)),
                   folds = 3, search = "screen")
  expect_identical(g$search, "exhaustive")
  set.seed(2)
  l <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 2)), folds = 3,
                   tolerance = 0.2, search = "screen")
  expect_identical(l$search, "exhaustive")
  expect_identical(l$model$tolerance, 0.2)
  # a tighter fit tolerance in `...`: screened at 0.1, refitted at it
  set.seed(2)
  t <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 2)), folds = 3,
                   tolerance = 1e-5, search = "screen")
  expect_identical(t$tolerance, c(screen = 0.1, fit = 1e-5))
  expect_identical(t$model$tolerance, 1e-5)
  expect_identical(t$model$call$tolerance, 1e-5)
  set.seed(2)
  cv <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, cost = 1, tolerance = 0.1)
  expect_equal(t$results$accuracy[1], cv$accuracy)
})

test_that("print and summary say which search made the numbers", {
  d <- select_data()
  set.seed(3)
  s <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 8)), folds = 3,
                   search = "screen")
  expect_output(print(s), "Search: screened: the rows cross-validated at solver tolerance 0.1")
  expect_output(print(s), "refitted on all data at tolerance 0.001")
  expect_output(print(summary(s)), "Search: screened")
  expect_output(print(summary(s)), "screened")
  set.seed(3)
  e <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 8)), folds = 3,
                   search = "exhaustive")
  expect_output(print(e), "Search: exhaustive")
  expect_output(print(summary(e)), "Search: exhaustive")
  # the default: a screened race
  set.seed(3)
  r <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 8)), folds = 3)
  expect_output(print(r), "Search: raced: successive halving over the folds, 2 of 2 rows")
  expect_output(print(r), "solver tolerance 0.1")
})

test_that("the searches are kernel_tune()'s choices, each falling back to one that applies", {
  ns <- asNamespace("kernclass")
  choices <- eval(formals(kernel_tune.default)$search)
  expect_identical(names(ns$kc_searches), choices)
  expect_identical(eval(formals(kernel_tune.formula)$search), choices)
  for (s in choices) {
    seen <- s
    while (!is.null(ns$kc_searches[[s]]$fallback)) {
      s <- ns$kc_searches[[s]]$fallback
      expect_false(s %in% seen)
      seen <- c(seen, s)
    }
    # the end of every chain runs whatever the folds and the fitter
    expect_true(ns$kc_searches[[s]]$applies(structure(2L, loo = TRUE), FALSE))
    expect_true(s %in% ns$kc_plain_searches)
  }
})

test_that("bad search arguments are classed errors naming the argument", {
  d <- select_data()
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1),
                                      search = "quick")), "search")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1),
                                      search = c("screen", "race"))), "search")
  # a bad fit tolerance is reported by the first cross-validation fit (so
  # naming its grid row), not by the refit after the whole screening
  expect_error(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1), tolerance = -1),
               "^Grid row 1 .*`tolerance`", class = "kernclass_input_error")
  for (bad in list(0, -1, NA, "0.1", c(0.1, 0.2))) {
    expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1),
                                        screen_tolerance = bad)), "screen_tolerance")
  }
})

test_that("kernel_svm gets a default grid from the data when none is given", {
  d <- select_data(60)
  df <- data.frame(d$x, y = d$y)
  set.seed(4)
  t <- kernel_tune(kernel_svm, y ~ ., data = df, folds = 2)
  g0 <- signif(estimate_gamma(df[, 1:3]), 3)
  # costs geometric from 50 / n to 500, transcribed
  cost <- signif(50 / 60 * (500 / (50 / 60))^((0:9) / 9), 2)
  expect_equal(cost[c(1, 10)], c(0.83, 500))
  expected <- expand.grid(cost = cost, gamma = g0 * 2^(-6:3), KEEP.OUT.ATTRS = FALSE)
  expect_equal(t$results[c("cost", "gamma")], expected)
  expect_identical(t$default_grid,
                   sprintf(paste0("default: 10 costs from 0.83 (50/n) to 500\n  x 10 gammas ",
                                  "2^(-6, -5, ..., 3) x %s (the median heuristic)"), g0))
  expect_output(print(t), "Grid: default: 10 costs from 0.83 (50/n) to 500\n  x 10 gammas",
                fixed = TRUE)
  expect_true(t$best$gamma %in% expected$gamma)
  set.seed(4)
  t2 <- kernel_tune(kernel_svm, df[, 1:3], df$y, folds = 2)
  expect_identical(t2$results, t$results)
  # scale = FALSE: the heuristic on the unscaled data
  set.seed(4)
  u <- kernel_tune(kernel_svm, d$x * 10, d$y, folds = 2, scale = FALSE)
  expect_equal(unique(u$results$gamma), signif(estimate_gamma(d$x * 10, scale = FALSE), 3) *
                 2^(-6:3))
  # no gamma to vary: costs only
  set.seed(4)
  l <- kernel_tune(kernel_svm, d$x, d$y, folds = 2, kernel = "linear",
                   search = "screen")
  expect_identical(names(l$results)[1], "cost")
  expect_false("gamma" %in% names(l$results))
  set.seed(4)
  f <- kernel_tune(kernel_svm, d$x, d$y, folds = 2, gamma = 0.3)
  expect_equal(f$results$cost, cost)
  # a given grid has no default_grid
  expect_null(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1), folds = 2)$default_grid)
  # others need a grid
  expect_identical(arg_of(kernel_tune(kernel_parzen, d$x, d$y)), "grid")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, type = "nu-classification")),
                   "grid")
})

test_that("a race halves the rows fold by fold; dropped rows keep their folds' figures", {
  d <- select_data(150)
  # one cost per gamma: every fit a cold one, so each row's out-of-fold
  # predictions are kernel_cv's at the screening tolerance
  grid <- data.frame(cost = rep(c(0.3, 3, 30), 4), gamma = 2^seq(-7, 4))
  set.seed(8)
  r <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 4, search = "race")
  expect_identical(r$search, "race")
  expect_identical(r$tolerance, c(screen = 0.1, fit = 1e-3))
  pred <- lapply(seq_len(nrow(grid)), function(i) {
    set.seed(8)
    kernel_cv(kernel_svm, d$x, d$y, folds = 4, cost = grid$cost[i], gamma = grid$gamma[i],
              tolerance = 0.1)
  })
  expect_identical(pred[[1]]$fold, r$fold)
  # the race, transcribed: after each fold but the last, the better half
  # (at least two, ties with the last kept) by accuracy over the folds so far
  alive <- seq_len(nrow(grid))
  dropped <- rep(NA_integer_, nrow(grid))
  for (f in 1:3) {
    seen <- r$fold <= f
    v <- vapply(alive, function(i) mean(pred[[i]]$predicted[seen] == d$y[seen]), numeric(1))
    keep <- max(ceiling(length(alive) / 2), min(length(alive), 2))
    cut <- sort(v, decreasing = TRUE)[keep]
    dropped[alive[v < cut]] <- f
    alive <- alive[v >= cut]
  }
  expect_true(length(alive) < nrow(grid))
  expect_identical(r$results$status,
                   ifelse(is.na(dropped), "screened", sprintf("dropped after %d of 4 folds", dropped)))
  done <- is.na(dropped)
  expect_equal(r$results$accuracy[done], vapply(pred[done], `[[`, numeric(1), "accuracy"))
  # a dropped row's figures: kernel_cv's over the folds it ran, and how many
  ran <- ifelse(done, 4L, dropped)
  expect_identical(r$results$folds_run, ran)
  for (i in which(!done)) {
    seen <- r$fold <= ran[i]
    per_fold <- vapply(seq_len(ran[i]), function(f) {
      mean(pred[[i]]$predicted[r$fold == f] == d$y[r$fold == f])
    }, numeric(1))
    expect_equal(r$results$accuracy[i], mean(pred[[i]]$predicted[seen] == d$y[seen]), info = i)
    expect_equal(r$results$sd[i], if (ran[i] > 1) sd(per_fold) else NA_real_, info = i)
    expect_equal(r$results$se[i], sd(per_fold) / sqrt(ran[i]), info = i)
  }
  # summary lists the finished rows first, then the dropped ones by folds run
  tab <- summary(r)$table
  expect_identical(tab$folds_run, sort(ran, decreasing = TRUE))
  best <- which(done)[which.max(r$results$accuracy[done])]
  expect_identical(r$best_index, best)
  user <- kernel_svm(d$x, d$y, cost = grid$cost[best], gamma = grid$gamma[best])
  expect_identical(predict(r$model, d$x, type = "decision"), predict(user, d$x, type = "decision"))
  expect_output(print(r), sprintf("raced: successive halving over the folds, %d of 12 rows",
                                  sum(done)))
  expect_output(print(summary(r)), "raced: successive halving")
  # a metric to minimise races by its smallest values; other fitters race unscreened
  set.seed(9)
  p <- kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = 2^(-6:2)), folds = 3,
                   search = "race", metric = "logloss")
  expect_null(p$tolerance)
  fin <- p$results$folds_run == 3L
  expect_true(all(p$results$status[fin] == "exact"))
  expect_true(any(startsWith(p$results$status, "dropped after 1 of 3")))
  expect_false(anyNA(p$results$logloss))
  expect_identical(p$best_index, which(fin)[which.min(p$results$logloss[fin])])
  # no race with leave-one-out or two folds: the screened search
  set.seed(9)
  expect_identical(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, 2)), folds = 2,
                               search = "race")$search, "screen")
})

# A race under a future plan (restored after), from set.seed(3): the result
# and the next random number of the session after it.
race_under <- function(d, ..., probability = FALSE) {
  old <- future::plan(...)
  on.exit(future::plan(old))
  set.seed(3)
  r <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.5, 4), gamma = c(0.1, 1, 10)),
                   folds = 3, search = "race", probability = probability)
  list(r = r, after = runif(1))
}

test_that("a race gives identical results under plan(sequential) and plan(multisession)", {
  skip_if_not_installed("future")
  d <- select_data(90)
  # probability = TRUE: Platt's folds draw random numbers inside every fit
  a <- race_under(d, future::sequential, probability = TRUE)$r
  b <- race_under(d, future::multisession, workers = 2, probability = TRUE)$r
  expect_identical(a$results, b$results)
  expect_true(any(startsWith(a$results$status, "dropped")))
  expect_identical(predict(a$model, d$x, type = "prob"), predict(b$model, d$x, type = "prob"))
})

test_that("the shared SVM paths give identical results and RNG state under every plan", {
  # no probability model: the paths draw no random numbers, run as a plain
  # loop under the sequential plan and as futures without streams otherwise
  skip_if_not_installed("future")
  d <- select_data(90)
  a <- race_under(d, future::sequential)
  b <- race_under(d, future::multisession, workers = 2)
  expect_identical(a$r$results, b$r$results)
  expect_identical(a$after, b$after)
  expect_identical(predict(a$r$model, d$x, type = "decision"),
                   predict(b$r$model, d$x, type = "decision"))
  # the folds are the search's only random numbers: the screened search,
  # also all paths, leaves the stream where the race does
  set.seed(3)
  kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.5, 4), gamma = c(0.1, 1, 10)),
              folds = 3, search = "screen")
  expect_identical(a$after, runif(1))
})

test_that("a search on a local multi-process cluster gives the results of threads", {
  # plan(cluster): the way to other machines (future.batchtools and
  # future.mirai plans take the same units); here two local R processes.
  # About 3 s, most of it starting them.
  skip_if_not_installed("future")
  skip_if_not_installed("parallelly")
  d <- select_data(90, classes = 3)
  old <- options(kernclass.threads = 2)
  on.exit(options(old))
  threads <- race_under(d, future::sequential)
  options(kernclass.threads = 1)
  # (the workers load kernclass from the libraries this session uses)
  cl <- parallelly::makeClusterPSOCK(2L, autoStop = TRUE, rscript_libs = .libPaths())
  cluster <- race_under(d, future::cluster, workers = cl)
  expect_identical(cluster$r$results, threads$r$results)
  expect_true(any(startsWith(threads$r$results$status, "dropped")))
  expect_identical(cluster$after, threads$after)
  expect_identical(predict(cluster$r$model, d$x, type = "decision"),
                   predict(threads$r$model, d$x, type = "decision"))
})
