# kernel_tune(): the known best cell of a constructed problem, the same folds
# for every row, reproducibility (parallel or not), the refit, bad input.

# Two classes on two rings in 1-D distance: only a large enough gamma of the
# rbf kernel separates them for the nearest-means rule; with a tiny gamma the
# kernel is almost linear and the class means coincide.
tune_rings <- function() {
  set.seed(7)
  n <- 60
  r <- c(runif(n / 2, 0, 0.5), runif(n / 2, 1.5, 2))
  a <- runif(n, 0, 2 * pi)
  x <- cbind(r * cos(a), r * sin(a))
  y <- factor(rep(c("inner", "outer"), each = n / 2))
  list(x = x, y = y)
}

test_that("kernel_tune finds the known best cell and refits with it", {
  d <- tune_rings()
  set.seed(1)
  tuned <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.01, 100), gamma = c(1e-4, 1)),
                       folds = 4)
  res <- tuned$results
  expect_equal(nrow(res), 4)
  expect_equal(tuned$best, list(cost = 100, gamma = 1))
  expect_equal(tuned$best_index, 4L)
  expect_equal(res$accuracy[4], 1)
  expect_true(all(res$accuracy[1:3] < 0.8))
  expect_s3_class(tuned$model, "kernel_svm")
  expect_equal(tuned$model$kernel$gamma, 1)
  expect_equal(tuned$model$cost, 100)
  expect_identical(tuned$model$call$cost, 100)
})

test_that("the screened, raced and exhaustive searches find the known best cell", {
  d <- tune_rings()
  for (search in c("screen", "race", "exhaustive")) {
    set.seed(1)
    tuned <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.01, 100), gamma = c(1e-4, 1)),
                         folds = 4, search = search)
    expect_identical(tuned$search, search)
    expect_equal(tuned$best, list(cost = 100, gamma = 1), info = search)
    expect_equal(tuned$results$accuracy[4], 1, info = search)
  }
  # the default is the race where it applies (3 or more folds), for every
  # fitter; else the screened search for the SVM, the exhaustive for others
  set.seed(1)
  expect_identical(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.01, 100)),
                               folds = 3)$search, "race")
  set.seed(1)
  expect_identical(kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(0.1, 1)),
                               folds = 3)$search, "race")
  set.seed(1)
  expect_identical(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.01, 100)),
                               folds = 2)$search, "screen")
  expect_identical(kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(0.1, 1)),
                               folds = "loo")$search, "exhaustive")
})

test_that("every grid row is judged on the same folds as kernel_cv would draw", {
  d <- tune_rings()
  grid <- data.frame(gamma = c(0.01, 0.3, 3), kernel = c("rbf", "rbf", "laplace"))
  set.seed(9)
  tuned <- kernel_tune(kernel_parzen, d$x, d$y, grid = grid, folds = 5, search = "exhaustive")
  set.seed(9)
  folds <- kernel_cv(kernel_parzen, d$x, d$y, folds = 5)$fold
  expect_identical(tuned$fold, folds)
  for (i in 1:3) {
    # kernel_cv with the same seed draws the same folds
    set.seed(9)
    cv <- kernel_cv(kernel_parzen, d$x, d$y, folds = 5, gamma = grid$gamma[i],
                    kernel = grid$kernel[i])
    expect_equal(tuned$results$accuracy[i], cv$accuracy)
    expect_equal(tuned$results$sd[i], sd(cv$fold_accuracy))
  }
  expect_equal(tuned$best_index, which.max(tuned$results$accuracy))
})

test_that("ties go to the first best row", {
  d <- tune_rings()
  set.seed(2)
  tuned <- kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(1e-6, 2e-6, 3, 3.0001)),
                       folds = 3)
  best <- max(tuned$results$accuracy)
  expect_equal(tuned$best_index, min(which(tuned$results$accuracy == best)))
})

test_that("plan(sequential) and plan(multisession, workers = 2) give identical results", {
  skip_if_not_installed("future")
  d <- tune_rings()
  grid <- list(cost = c(0.1, 10), gamma = c(0.1, 1))
  run <- function(...) {
    old <- future::plan(...)
    on.exit(future::plan(old))
    set.seed(3)
    # probability = TRUE: Platt's folds draw random numbers inside every fit
    t <- kernel_tune(kernel_svm, d$x, d$y, grid = grid, folds = 3, probability = TRUE)
    p <- kernel_tune(kernel_parzen, d$x, d$y, grid = list(gamma = c(0.5, 5)), folds = 4,
                     metric = "logloss")
    list(t = t, p = p, after = runif(1))
  }
  a <- run(future::sequential)
  b <- run(future::multisession, workers = 2)
  c <- run(future::sequential)
  for (nm in c("t", "p")) {
    expect_identical(a[[nm]]$results, b[[nm]]$results)
    expect_identical(a[[nm]]$results, c[[nm]]$results)
    expect_identical(a[[nm]]$fold, b[[nm]]$fold)
  }
  expect_identical(a$t$model$probA, b$t$model$probA)
  expect_identical(a$after, b$after)  # the caller's RNG stream ends in the same state
})

test_that("workers run the engine on one thread (future's multisession)", {
  skip_if_not_installed("future")
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old))
  threads <- future::value(future::future(kernclass::kernclass_threads()))
  expect_identical(threads, 1L)
})

test_that("leave-one-out tuning uses the exact shortcut's predictions", {
  d <- tune_rings()
  tuned <- kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(0.1, 2)), folds = "loo",
                       scale = FALSE)
  for (i in 1:2) {
    cv <- kernel_cv(kernel_means, d$x, d$y, folds = "loo", scale = FALSE,
                    gamma = c(0.1, 2)[i])
    expect_equal(tuned$results$accuracy[i], cv$accuracy)
  }
  expect_output(print(tuned), "leave-one-out")
})

test_that("print, summary and plot work", {
  d <- tune_rings()
  set.seed(4)
  tuned <- kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(0.1, 1, 1000),
                                                         gamma = c(0.01, 1, 100)), folds = 3)
  expect_output(out <- withVisible(print(tuned)), "Best: cost = ")
  expect_false(out$visible)
  s <- summary(tuned)
  expect_s3_class(s, "summary.kernel_tune")
  expect_equal(s$table$accuracy, sort(tuned$results$accuracy, decreasing = TRUE))
  expect_output(print(s), "refitted on all data")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(tuned), tuned)
  expect_identical(plot(tuned, params = "gamma"), tuned)
  expect_error(plot(tuned, params = "nope"), class = "kernclass_error")
})

test_that("bad input to kernel_tune gets classed errors naming the argument", {
  d <- tune_rings()
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = data.frame())), "grid")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = numeric()))),
                   "grid")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list())), "grid")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(1, 2))), "grid")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = 1:3)), "grid")
  expect_error(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1, prior = 0.5)),
               "`grid` has column\\(s\\) \"prior\" that kernel_svm\\(\\) does not take",
               class = "kernclass_error")
  expect_identical(arg_of(kernel_tune(kernel_means, d$x, d$y, grid = list(cost = 1))), "grid")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1), cost = 2)),
                   "grid")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1), folds = 1)),
                   "folds")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1), folds = 61)),
                   "folds")
  expect_identical(arg_of(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = 1),
                                      folds = "all")), "folds")
  expect_identical(arg_of(kernel_tune(kernel_svm(d$x, d$y), d$x, d$y, grid = list(cost = 1))),
                   "fit")
  # an error inside a grid row names the row and keeps its class and argument
  e <- tryCatch(kernel_tune(kernel_svm, d$x, d$y, grid = list(cost = c(1, -1))),
                kernclass_error = function(e) e)
  expect_identical(e$arg, "cost")
  expect_match(conditionMessage(e), "Grid row 2 \\(cost = -1\\)")
})

test_that("predict() of a tuning result predicts with the refitted model", {
  set.seed(3)
  tuned <- kernel_tune(kernel_svm, Species ~ ., data = iris, folds = 3,
                       grid = list(cost = c(1, 10), gamma = c(0.1, 1)))
  new <- iris[c(1, 51, 101, 120), ]
  # the model kernel_svm() fits with the best parameters
  direct <- do.call(kernel_svm, c(list(Species ~ ., data = iris), tuned$best))
  expect_identical(predict(tuned, new), predict(direct, new))
  expect_equal(predict(tuned, new, type = "decision"), predict(direct, new, type = "decision"))
  expect_identical(predict(tuned), predict(direct))
  # default method
  set.seed(3)
  t2 <- kernel_tune(kernel_means, iris[, 1:4], iris$Species, folds = 3,
                    grid = list(gamma = c(0.1, 1)))
  m2 <- kernel_means(iris[, 1:4], iris$Species, gamma = t2$best$gamma)
  expect_equal(predict(t2, iris[1:5, 1:4], type = "prob"), predict(m2, iris[1:5, 1:4], type = "prob"))
  t2$model <- NULL
  expect_error(predict(t2, iris[1:5, 1:4]), class = "kernclass_no_model_error")
  expect_error(predict(t2, iris[1:5, 1:4]), "no refitted model", class = "kernclass_input_error")
})

test_that("print and summary say when the choice is on the grid's edge, as plain R", {
  set.seed(3)
  tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species, folds = 3, search = "exhaustive",
                       grid = list(cost = c(0.01, 0.1), gamma = c(0.5, 1, 2)))
  b <- tuned$best
  edges <- c(if (b$cost == 0.01) "smallest cost" else "largest cost",
             if (b$gamma == 0.5) "smallest gamma" else if (b$gamma == 2) "largest gamma")
  line <- sprintf("On the grid's edge: the %s", paste(edges, collapse = ", "))
  expect_true(any(startsWith(capture.output(print(tuned)), line)))
  expect_true(any(startsWith(capture.output(print(summary(tuned))), line)))
  expect_true(any(grepl(sprintf("give kernel_tune() a `grid` reaching past %s",
                                if (length(edges) == 1L) "it" else "them"),
                        capture.output(print(tuned)), fixed = TRUE)))
  # a choice inside the grid: no such line
  set.seed(3)
  mid <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species, folds = 3, search = "exhaustive",
                     grid = list(gamma = c(1e-4, 1, 1e4)))
  expect_identical(mid$best$gamma, 1)  # far too smooth and far too rough on either side
  expect_false(any(grepl("grid's edge", capture.output(print(mid)), fixed = TRUE)))
  expect_null(kernclass:::kc_tune_plot_data(mid, NULL, NULL)$notes)
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

# ---- the refitted model is the fitter's own: its call re-runs with update(),
# predict() takes new data through the formula ------------------------------

tune_log_data <- function() {
  set.seed(11)
  n <- 60
  d <- data.frame(y = factor(rep(c("a", "b"), n / 2)), x1 = rexp(n), x2 = rnorm(n))
  d$x2 <- d$x2 + (d$y == "a")
  d$x1 <- d$x1 * ifelse(d$y == "a", 1, 3)
  d
}

test_that("kernel_tune's formula model is the fitter's formula fit: update() and predict() work", {
  d <- tune_log_data()
  new <- data.frame(x1 = c(0.5, 2, 4), x2 = c(-1, 0, 1.5))
  for (case in list(list(fit = kernel_svm, name = "kernel_svm", grid = list(cost = c(1, 8))),
                    list(fit = kernel_parzen, name = "kernel_parzen",
                         grid = list(gamma = c(0.1, 1))))) {
    set.seed(1)
    tuned <- kernel_tune(case$fit, y ~ log(x1) + x2, data = d, grid = case$grid, folds = 3)
    best <- tuned$best
    expect_identical(tuned$model$call,
                     as.call(c(list(as.name(case$name), quote(y ~ log(x1) + x2), data = quote(d)),
                               best)))
    direct <- do.call(case$fit, c(list(y ~ log(x1) + x2, data = d), best))
    expect_identical(predict(tuned$model, new), predict(direct, new))
    expect_identical(fitted(tuned$model), fitted(direct))
    # update() with another parameter equals the direct fit with it
    other <- setNames(list(if (case$name == "kernel_svm") 1 else 0.5), names(best)[1L])
    updated <- do.call(stats::update, c(list(tuned$model), other))
    direct_other <- do.call(case$fit, c(list(y ~ log(x1) + x2, data = d), other))
    expect_identical(predict(updated, new), predict(direct_other, new))
    expect_identical(updated$call[[names(best)[1L]]], other[[1L]])
  }
})

test_that("kernel_tune's formula refit keeps subset and the fitter's arguments", {
  d <- tune_log_data()
  set.seed(2)
  tuned <- kernel_tune(kernel_svm, y ~ log(x1) + x2, data = d, subset = 1:50,
                       grid = list(cost = c(1, 4)), folds = 3, kernel = "linear")
  expect_identical(tuned$model$call,
                   as.call(c(list(quote(kernel_svm), quote(y ~ log(x1) + x2), data = quote(d),
                                  subset = quote(1:50)), tuned$best, list(kernel = "linear"))))
  direct <- do.call(kernel_svm, c(list(y ~ log(x1) + x2, data = d, subset = 1:50),
                                  tuned$best, list(kernel = "linear")))
  expect_identical(predict(tuned$model, d), predict(direct, d))
  expect_s3_class(update(tuned$model, cost = 2), "kernel_svm")
})

test_that("kernel_tune given kernclass::kernel_svm stores a call update() can re-run", {
  d <- tune_log_data()
  x <- as.matrix(d[c("x1", "x2")])
  set.seed(3)
  tuned <- kernel_tune(kernclass::kernel_svm, x, d$y, grid = list(cost = c(1, 8)), folds = 3)
  expect_identical(tuned$model$call,
                   as.call(c(list(quote(kernel_svm), x = quote(x), y = quote(d$y)), tuned$best)))
  updated <- update(tuned$model, cost = 1)
  expect_identical(fitted(updated), fitted(kernel_svm(x, d$y, cost = 1)))
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
  expect_identical(t1$model$tolerance, kc_tol <- kernclass:::kc_approximations$nystrom$tolerance)
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
