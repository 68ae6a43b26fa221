# kernel_svm()'s costs fitted as one path on one fold (kc_svm_cost_path(),
# the per-fold cost path of kernel_tune(): per class pair, the costs in
# increasing order in one call of the solve entry, kind "costs", each
# warm-started from the last, all on one store of the kernel rows); and the
# shared path's calls split where the plans' results would exceed the
# tuning budget (src/svm-plan.c).

ns <- asNamespace("kernclass")

costs_data <- function(n = 90, classes = 3, p = 3, seed = 1) {
  shifted_classes(n, classes, p, seed, n_new = 20)
}

test_that("a cost path's models are kernel_svm's at each cost, within the solver's tolerance", {
  dat <- costs_data()
  sparse <- function(x) Matrix::Matrix(x * (abs(x) > 0.6), sparse = TRUE)
  kf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.4)
  cases <- list(
    linear = list(x = dat$x, new = dat$new, args = list(kernel = "linear")),
    polynomial = list(x = dat$x, new = dat$new, args = list(kernel = "polynomial", scale = FALSE)),
    sigmoid = list(x = dat$x, new = dat$new, args = list(kernel = "sigmoid", gamma = 0.05)),
    weighted = list(x = dat$x, new = dat$new,
                    args = list(class.weights = c(a = 2, b = 1, c = 0.5),
                                weights = runif(nrow(dat$x), 0.2, 2))),
    precomputed = list(x = kernel_matrix(dat$x, kernel = "rbf", gamma = 0.4),
                       new = kernel_matrix(dat$new, dat$x, kernel = "rbf", gamma = 0.4),
                       args = list(kernel = "precomputed")),
    fun = list(x = dat$x, new = dat$new, args = list(kernel = kf, scale = FALSE)))
  if (requireNamespace("Matrix", quietly = TRUE)) {
    cases$sparse <- list(x = sparse(dat$x), new = sparse(dat$new),
                         args = list(kernel = "rbf", gamma = 0.4, scale = FALSE))
  }
  costs <- c(0.05, 0.5, 5, 50)
  for (nm in names(cases)) {
    cs <- cases[[nm]]
    args <- c(cs$args, list(tolerance = 1e-6))
    path <- do.call(ns$kc_svm_cost_path, c(list(cs$x, dat$y, costs), args))
    expect_length(path, length(costs))
    for (i in seq_along(costs)) {
      alone <- do.call(kernel_svm, c(list(cs$x, dat$y, cost = costs[i]), args))
      expect_s3_class(path[[i]], "kernel_svm")
      expect_identical(path[[i]]$call$cost, costs[i])
      expect_identical(path[[i]]$C, alone$C)
      expect_equal(unname(path[[i]]$objective), unname(alone$objective), tolerance = 1e-5,
                   info = paste(nm, i))
      da <- predict(alone, cs$new, type = "decision")
      dp <- predict(path[[i]], cs$new, type = "decision")
      # (the sigmoid kernel is not positive semi-definite: the dual's solutions
      # within the tolerance lie further apart)
      expect_lt(max(abs(dp - da)) / max(1, abs(da)), if (nm == "sigmoid") 1e-2 else 1e-3,
                label = paste(nm, i))
    }
  }
})

test_that("a cost path's models do not depend on whether the budget holds its store", {
  # the kept store (filled by the first cost, read by the others) or the
  # cache: the same float kernel values, the same models
  dat <- costs_data(seed = 2)
  old <- options(kernclass.tune.store_mb = NULL)
  on.exit(options(old), add = TRUE)
  for (kernel in c("rbf", "linear")) {
    fit <- function(mb) {
      options(kernclass.tune.store_mb = mb)
      ns$kc_svm_cost_path(dat$x, dat$y, c(0.1, 1, 10, 100), kernel = kernel)
    }
    kept <- fit(NULL)
    cached <- fit(0)
    for (i in seq_along(kept)) {
      expect_identical(cached[[i]]$eta, kept[[i]]$eta)
      expect_identical(cached[[i]]$b, kept[[i]]$b)
      expect_identical(cached[[i]]$iterations, kept[[i]]$iterations)
    }
  }
  # the solve entry's plan says which it took
  x <- matrix(rnorm(40), 20)
  plan <- function(budget) {
    .Call(ns$ffi_svm_solve, list(kind = "costs", x = x, y = rep(c(1L, -1L), 10),
                                 C = cbind(rep(1, 20), 10)),
          list(kernel = c(3, 1, 3, 0), type = "C-classification", tolerance = 1e-3,
               max_iter = 1e5, cachesize = 1, shrinking = TRUE, threads = 1L,
               budget = budget))[c("plan", "bytes")]
  }
  expect_identical(plan(Inf), list(plan = "kept", bytes = 20 * 20 * 4 + 20))
  expect_identical(plan(0), list(plan = "cache", bytes = 0))
})

test_that("an error on a cost path names the grid row whose cost it arose at", {
  set.seed(1)
  x <- matrix(rnorm(160), 80)
  y <- factor(sample(c("a", "b", "c"), 80, TRUE))
  # solved in increasing cost: 1, 10, then Inf, grid row 2, fails
  expect_error(kernel_tune(kernel_svm, x, y, grid = list(cost = c(10, Inf, 1)), kernel = "linear",
                           search = "exhaustive"),
               "^Grid row 2 \\(cost = Inf\\)", class = "kernclass_not_separable_error")
})

test_that("the shared path splits its call where the plans' results exceed the budget", {
  dat <- costs_data(n = 150, p = 4, seed = 3)
  old <- options(kernclass.tune.store_mb = NULL)
  on.exit(options(old), add = TRUE)
  grid <- list(cost = c(0.1, 1, 10, 100), gamma = c(0.05, 0.1, 0.3, 1, 3))
  d <- ns$kc_cv_data(dat$x, dat$y)
  set.seed(5)
  k <- ns$kc_check_folds(5L, d$y)
  fold <- ns$kc_cv_folds(d$y, k)
  g <- expand.grid(grid, KEEP.OUT.ATTRS = FALSE)
  cells <- lapply(seq_len(nrow(g)), function(i) as.list(g[i, ]))
  sel <- ns$kc_selection(kernel_svm, d, NULL, fold, k, cells, list(scale = FALSE), "accuracy")
  groups <- ns$kc_path_groups(sel)
  calls <- function(mb) {
    options(kernclass.tune.store_mb = mb)
    plans <- lapply(groups, function(g) ns$kc_svm_shared_plan(ns$kc_selection_cells(sel, g), 1:5))
    if (any(vapply(plans, is.null, NA))) return(NULL)
    ns$kc_svm_plan(list(kind = "path", plans = plans),
                   list(threads = 1L, budget = ns$kc_tune_budget()))$calls
  }
  # each plan's results: 3 pairs x 4 costs x (n decision values, 5 folds'
  # rho, iterations and status)
  p1 <- ns$kc_svm_shared_plan(ns$kc_selection_cells(sel, groups[[1L]]), 1:5)
  expect_identical(p1$bytes[["results"]], 3 * 4 * (8 * 150 + 5 * 20))
  expect_identical(calls(NULL), rep(1L, 5))
  fixed <- sum(p1$bytes[c("once", "thread", "inputs")])
  mb <- (fixed + 2.5 * p1$bytes[["results"]]) / 2^20  # two plans' results per call
  expect_identical(calls(mb), c(1L, 1L, 2L, 2L, 3L))
  # past the budget for one plan's results the group runs fold by fold
  options(kernclass.tune.store_mb = (fixed + 0.5 * p1$bytes[["results"]]) / 2^20)
  expect_null(ns$kc_svm_shared_plan(ns$kc_selection_cells(sel, groups[[1L]]), 1:5))
  # the same results in one call and in three
  tune <- function(mb) {
    options(kernclass.tune.store_mb = mb)
    set.seed(6)
    kernel_tune(kernel_svm, dat$x, dat$y, grid = grid, scale = FALSE, search = "exhaustive")
  }
  seen <- new.env()
  seen$solves <- 0L
  count <- bquote(if (identical(problems$kind, "path")) {
    assign("solves", get("solves", envir = .(seen)) + 1L, envir = .(seen))
  })
  suppressMessages(trace("kc_svm_solve", where = ns, print = FALSE, tracer = count))
  on.exit(suppressMessages(untrace("kc_svm_solve", where = ns)), add = TRUE)
  one <- tune(NULL)
  expect_identical(seen$solves, 1L)
  three <- tune(mb)
  expect_identical(seen$solves, 4L)
  expect_identical(three$results, one$results)
  expect_identical(three$best_predictions, one$best_predictions)
})
