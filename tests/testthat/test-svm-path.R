# kernel_tune()'s shared SVM path (R/select-svm-path.R, src/svm-path.c): the costs of
# one kernel setting on all the folds in one call, one kernel for them. It
# must give the fits and predictions of the per-fold path (kc_fold_fits(),
# kernel_svm() per cost with warm starts): the same iterates, the same
# classes, the same decision values up to rounding; and fall back to it
# wherever it does not apply.

ns <- asNamespace("kernclass")

path_data <- function(n = 150, classes = 2, p = 4, seed = 1) shifted_classes(n, classes, p, seed)

# The out-of-fold results of the shared path (kc_grid_cv) and of the
# per-fold path (kc_fold_fits on each fold), for a path of costs.
path_both <- function(dat, args, w = NULL, metric = "accuracy", run_folds = NULL, k = 5L,
                      costs = c(0.1, 1, 10, 100), gamma = 0.5) {
  d <- ns$kc_cv_data(dat$x, dat$y)
  kk <- ns$kc_check_folds(k, d$y)
  set.seed(3)
  fold <- ns$kc_cv_folds(d$y, kk)
  cells <- lapply(costs, function(cc) list(cost = cc, gamma = gamma))
  sel <- ns$kc_selection(kernel_svm, d, w, fold, kk, cells, args, metric)
  needs <- sel$needs
  runs <- if (is.null(run_folds)) seq_len(k) else run_folds
  plan <- ns$kc_svm_shared_plan(sel, runs)
  new <- ns$kc_grid_cv(sel, run_folds = run_folds)
  old <- lapply(cells, function(cl) list(predicted = rep(NA_character_, length(d$y)),
                                         decision = rep(NA_real_, length(d$y))))
  for (f in runs) {
    te <- which(fold == f)
    got <- ns$kc_fold_fits(sel, te)
    for (j in seq_along(cells)) {
      old[[j]]$predicted[te] <- got[[j]]$predicted
      if (needs == "decision") old[[j]]$decision[te] <- got[[j]]$decision
    }
  }
  list(plan = plan, new = new, old = old, fold = fold)
}

expect_same_path <- function(b, decision = FALSE) {
  for (j in seq_along(b$old)) {
    expect_identical(as.character(b$new[[j]]$predicted), b$old[[j]]$predicted, info = j)
    if (decision) {
      rel <- abs(b$new[[j]]$decision - b$old[[j]]$decision) /
        pmax(1, abs(b$old[[j]]$decision))
      expect_lt(max(rel, na.rm = TRUE), 1e-6)
      expect_identical(is.na(b$new[[j]]$decision), is.na(b$old[[j]]$decision))
    }
  }
}

test_that("the shared path predicts as the per-fold path: binary, 3 classes, scaled or not", {
  for (classes in 2:3) for (scale in c(FALSE, TRUE)) {
    b <- path_both(path_data(classes = classes, seed = classes), list(scale = scale))
    expect_false(is.null(b$plan))
    expect_length(b$plan$x, if (scale) 5L else 1L)
    expect_same_path(b)
  }
  # decision values (auc) within 1e-6 of the per-fold path's
  b <- path_both(path_data(seed = 9), list(scale = FALSE), metric = "auc")
  expect_false(is.null(b$plan))
  expect_same_path(b, decision = TRUE)
  b <- path_both(path_data(seed = 10, p = 6), list(scale = TRUE, kernel = "laplace"),
                 metric = "auc", gamma = 0.2)
  expect_false(is.null(b$plan))
  expect_same_path(b, decision = TRUE)
})

test_that("the shared path's pairs are the per-fold path's fits: same iterations, b, decisions", {
  # one x for all folds: blocks of one kernel; one x per fold (as scale = TRUE
  # gives): each pair's block computed for its fold
  # (buffers kept across the calls, as a race keeps them: each call's the same)
  kept <- .Call(ns$ffi_svm_path_kept)
  for (classes in 2:3) for (weighted in c(FALSE, TRUE)) for (per_fold in c(FALSE, TRUE)) {
    dat <- path_data(n = 160, classes = classes, seed = 20 + classes)
    n <- nrow(dat$x)
    w <- if (weighted) runif(n, 0.2, 2) else rep(1, n)
    fold <- rep_len(1:4, n)
    costs <- c(0.3, 3, 30)
    spec <- ns$kc_kernel_code(ns$kc_kernel("rbf", 0.4, 3, 0, dat$x))
    xs <- if (per_fold) rep(list(dat$x), 4) else list(dat$x)
    r <- path_solve(list(path_plan(xs, as.integer(dat$y), as.integer(classes),
                                   costs, w, matrix(1, classes, 4), spec)),
                    fold, 1:4, 1L, if (weighted) kept)[[1L]]
    np <- classes * (classes - 1) / 2
    dec <- array(r$decision, c(n, np, 3))
    its <- array(r$iterations, c(4, np, 3))
    rho <- array(r$rho, c(4, np, 3))
    for (f in 1:4) {
      te <- fold == f
      path <- ns$kc_svm_cost_path(dat$x[!te, ], dat$y[!te], costs, gamma = 0.4, scale = FALSE,
                                  weights = if (weighted) w[!te])
      for (c in 1:3) {
        m <- path[[c]]
        expect_equal(unname(m$iterations), its[f, , c])
        expect_equal(unname(m$b), -rho[f, , c], tolerance = 1e-12)
        dv <- as.matrix(predict(m, dat$x[te, ], type = "decision"))
        expect_equal(unname(dv), matrix(dec[te, , c], sum(te)), tolerance = 1e-10)
      }
    }
    expect_true(all(is.finite(dec)))
  }
})

test_that("more than two classes: the fold runs' kernels once per fold run, as pair by pair", {
  # fold_kernel: each fold run's held-out kernel with its training rows, read
  # by every class pair, and its training rows' kernel (by class), from which
  # the solver copies a pair's rows as it asks for them; the same numbers as
  # each pair's own kernels, on one and two threads, one fold run (a race's
  # step) or all
  kept <- .Call(ns$ffi_svm_path_kept)  # buffers kept across calls of other sizes
  for (classes in 3:4) for (runs in list(1:4, 3L)) {
    dat <- path_data(n = 160, classes = classes, seed = 60 + classes)
    n <- nrow(dat$x)
    w <- runif(n, 0.5, 2)
    fold <- rep_len(1:4, n)
    spec <- ns$kc_kernel_code(ns$kc_kernel("rbf", 0.4, 3, 0, dat$x))
    xs <- lapply(runs, function(f) dat$x * f)  # inputs of its own per fold run
    plan <- path_plan(xs, as.integer(dat$y), as.integer(classes), c(0.3, 3, 30), w,
                      matrix(1, classes, length(runs)), spec)
    pair <- path_solve(list(plan), fold, runs, 1L, NULL)
    for (threads in 1:2) for (mode in 1:2) {
      once <- path_solve(list(c(plan, fold_kernel = mode)), fold, runs, threads,
                         if (mode == 2L) kept)
      expect_identical(once, pair, info = paste(classes, length(runs), threads, mode))
    }
    expect_true(all(is.finite(pair[[1L]]$decision[fold %in% runs])))
  }
  # kernel_tune's plans take it for more than two classes on per-fold inputs,
  # within the budget, which counts it (30 held-out rows by 120 training
  # rows, doubles; 120 by 120, floats)
  plan_of <- function(classes, scale, runs = 1:5, mb = 512) {
    old <- options(kernclass.tune.store_mb = mb)
    on.exit(options(old))
    dat <- path_data(n = 150, classes = classes, seed = 70)
    d <- ns$kc_cv_data(dat$x, dat$y)
    fold <- rep_len(1:5, 150)
    ns$kc_svm_shared_plan(ns$kc_selection(kernel_svm, d, NULL, fold, 5L,
                                          list(list(cost = 1, gamma = 0.5)),
                                          list(scale = scale), "accuracy"), runs)
  }
  p3 <- plan_of(3, TRUE)
  expect_identical(p3$fold_kernel, 2L)
  expect_identical(p3$bytes[["once"]], 8 * 30 * 120 + 4 * 120^2)
  expect_identical(plan_of(2, TRUE)$fold_kernel, 0L)
  expect_identical(plan_of(3, FALSE)$fold_kernel, 0L)  # one kernel of all rows serves the folds
  expect_identical(plan_of(3, FALSE, runs = 2L)$fold_kernel, 2L)
  # a budget that holds the pairs' memory and the held-out kernel, not the
  # training kernel besides: the held-out one alone; one that holds not even it
  pairs <- p3$bytes[["thread"]] + p3$bytes[["inputs"]] + p3$bytes[["results"]]
  held <- plan_of(3, TRUE, mb = (pairs + 8 * 30 * 120) / 2^20)
  expect_identical(held$fold_kernel, 1L)
  expect_identical(held$bytes[["once"]], 8 * 30 * 120)
  tight <- plan_of(3, TRUE, mb = (pairs + 8 * 30 * 120 / 2) / 2^20)
  expect_false(is.null(tight))
  expect_identical(tight$fold_kernel, 0L)
  expect_identical(tight$bytes[["once"]], 0)
})

test_that("weights, class weights, a race's folds and a fold missing a class", {
  dat <- path_data(n = 140, classes = 3, seed = 5)
  w <- runif(140, 0, 2)
  w[1:5] <- 0
  b <- path_both(dat, list(scale = TRUE), w = w)
  expect_false(is.null(b$plan))
  expect_same_path(b)
  b <- path_both(dat, list(scale = FALSE, class.weights = "balanced"))
  expect_false(is.null(b$plan))
  expect_same_path(b)
  b <- path_both(dat, list(scale = FALSE, class.weights = c(a = 2, c = 0.5)), w = w)
  expect_same_path(b)
  # a race runs some folds: the others stay NA
  b <- path_both(dat, list(scale = TRUE), run_folds = c(2L, 4L))
  expect_false(is.null(b$plan))
  expect_same_path(b)
  expect_true(all(is.na(b$new[[1]]$predicted[!b$fold %in% c(2, 4)])))
  # a class of 3 rows in 5 folds: two test folds lack it
  y <- dat$y
  y[which(y == "c")[-(1:3)]] <- "b"
  b <- path_both(list(x = dat$x, y = y), list(scale = FALSE))
  expect_false(is.null(b$plan))
  expect_same_path(b)
})

test_that("kernel_tune and kernel_cv give the same results through the shared path", {
  dat <- path_data(n = 120, classes = 3, seed = 8)
  grid <- list(cost = c(0.5, 5, 50), gamma = c(0.1, 1))
  run <- function(mb) {
    old <- options(kernclass.tune.store_mb = mb)
    on.exit(options(old))
    set.seed(4)
    kernel_tune(kernel_svm, dat$x, dat$y, grid = grid, folds = 4, search = "exhaustive")
  }
  # a budget too small for the shared kernel: the per-fold path, no error
  expect_null(local({
    old <- options(kernclass.tune.store_mb = 0.01)
    on.exit(options(old))
    d <- ns$kc_cv_data(dat$x, dat$y)
    ns$kc_svm_shared_plan(ns$kc_selection(kernel_svm, d, NULL, rep_len(1:4, 120), 4L,
                                          list(list(cost = 1, gamma = 1)), list(), "accuracy"),
                          1:4)
  }))
  shared <- run(512)
  per_fold <- run(0.01)
  expect_identical(shared$results, per_fold$results)
  expect_identical(shared$best_index, per_fold$best_index)
  set.seed(2)
  a <- kernel_cv(kernel_svm, dat$x, dat$y, folds = 5, cost = 3, gamma = 0.5)
  set.seed(2)
  b <- local({
    old <- options(kernclass.tune.store_mb = 0.01)
    on.exit(options(old))
    kernel_cv(kernel_svm, dat$x, dat$y, folds = 5, cost = 3, gamma = 0.5)
  })
  expect_identical(a$predicted, b$predicted)
})

test_that("the kernel settings give the same fits in one call of the path as in several", {
  # (kernel_tune() runs them here in calls of a few settings, the progress
  # bar moving between them)
  dat <- path_data(n = 120, classes = 3, seed = 5)
  d <- ns$kc_cv_data(dat$x, dat$y)
  fold <- rep_len(1:4, 120)
  grid <- expand.grid(cost = c(0.1, 1, 10), gamma = c(0.1, 0.3, 1))
  cells <- lapply(seq_len(nrow(grid)), function(i) ns$kc_grid_row(grid, i))
  for (scale in c(FALSE, TRUE)) {
    sel <- ns$kc_selection(kernel_svm, d, NULL, fold, 4L, cells, list(scale = scale), "accuracy")
    sel$needs <- "decision"  # every pair's decision values compared too
    groups <- ns$kc_path_groups(sel)
    expect_length(groups, 3L)
    plans <- lapply(groups, function(g) ns$kc_svm_shared_plan(ns$kc_selection_cells(sel, g), 1:4))
    fits <- function(i) {
      members <- unlist(groups[i])
      task <- list(folds = 1:4, plans = plans[i],
                   groups = unname(split(seq_along(members), rep(seq_along(i), lengths(groups[i])))))
      ns$kc_svm_shared_fits(task, ns$kc_selection_cells(sel, members), seq_len(120))
    }
    expect_identical(unlist(lapply(seq_along(groups), fits), recursive = FALSE),
                     fits(seq_along(groups)))
  }
})

test_that("the shared path does not apply where it would not reproduce the fits", {
  dat <- path_data(n = 80, seed = 2)
  d <- ns$kc_cv_data(dat$x, dat$y)
  fold <- rep_len(1:4, 80)
  cells <- list(list(cost = 1), list(cost = 10))
  plan <- function(args, needs = "class", dd = d, w = NULL) {
    metric <- c(class = "accuracy", prob = "logloss", decision = "auc")[[needs]]
    ns$kc_svm_shared_plan(ns$kc_selection(kernel_svm, dd, w, fold, 4L, cells, args, metric), 1:4)
  }
  expect_false(is.null(plan(list())))
  expect_null(plan(list(kernel = "linear")))
  expect_null(plan(list(kernel = "polynomial")))
  expect_null(plan(list(gamma = "median")))
  expect_null(plan(list(probability = TRUE)))
  expect_null(plan(list(), needs = "prob"))
  expect_null(plan(list(type = "nu-classification")))
  expect_null(plan(list(approx = nystrom(m = 10))))
  expect_null(plan(list(tolerance = -1)))
  expect_null(plan(list(max_iter = 0.5)))
  expect_null(plan(list(unknown = 1)))
  expect_null(plan(list(class.weights = c(zz = 1))))
  # a class whose rows all weigh 0 in a training fold: kernel_svm says so
  expect_null(plan(list(), w = ifelse(dat$y == "a", 0, 1)))
  # sparse rows and kernel values
  skip_if_not_installed("Matrix")
  ds <- ns$kc_cv_data(Matrix::Matrix(dat$x, sparse = TRUE), dat$y)
  expect_null(plan(list(), dd = ds))
  K <- kernel_matrix(dat$x, kernel = "rbf")
  dk <- ns$kc_cv_data(K, dat$y, kernel = "precomputed")
  expect_null(plan(list(kernel = "precomputed"), dd = dk))
})

test_that("solver trouble reaches the user as from the per-fold path", {
  dat <- path_data(n = 100, seed = 6)
  # max_iter: kernel_svm's warning, once (the folds stop alike)
  ws <- list()
  withCallingHandlers({
    set.seed(1)
    kernel_cv(kernel_svm, dat$x, dat$y, folds = 3, cost = 10, max_iter = 3)
  }, warning = function(w) {
    expect_s3_class(w, "kernclass_convergence_warning")
    ws[[length(ws) + 1L]] <<- conditionMessage(w)
    invokeRestart("muffleWarning")
  })
  expect_length(ws, 1L)
  expect_identical(anyDuplicated(unlist(ws)), 0L)
  expect_match(ws[[1]], "max_iter")
  # cost = Inf on classes that are not separable: kernel_svm's error, naming the row
  expect_error(
    kernel_tune(kernel_svm, dat$x, dat$y, grid = list(cost = c(1, Inf)), folds = 3,
                gamma = 0.01, search = "exhaustive"),
    "Grid row 2", class = "kernclass_not_separable_error")
  # and where the kernel settings run in one call: the failing setting's row
  # (gamma = 50 separates the classes, gamma = 0.01 does not)
  expect_error(
    kernel_tune(kernel_svm, dat$x, dat$y, grid = list(cost = c(1, Inf), gamma = c(50, 0.01)),
                folds = 3, search = "exhaustive"),
    "Grid row 4", class = "kernclass_not_separable_error")
})

test_that("the entry point checks its arguments and stops at an interrupt", {
  x <- matrix(rnorm(20), 10)
  y <- rep(1:2, 5)
  spec <- c(3, 1, 3, 0)
  call <- function(..., fold = rep(1:2, 5), run = 1L) {
    p <- modifyList(path_plan(list(x), y, 2L, c(1, 2), rep(1, 10), matrix(1, 2, 1), spec,
                              max_iter = 100), list(...))
    path_solve(list(p), fold, run, 1L, NULL)
  }
  expect_type(call(), "list")
  expect_error(call(x = x), "kernclass internal", class = "kernclass_internal_error")
  expect_error(call(y = rep(3L, 10)), "kernclass internal")
  expect_error(call(cost = c(2, 1)), "increasing")
  expect_error(call(w = rep(-1, 10)), "kernclass internal")
  expect_error(call(cw = matrix(1, 2, 2)), "kernclass internal")
  expect_error(call(fold = rep(0L, 10)), "kernclass internal")
  expect_error(path_solve(list(path_plan(list(x), y, 2L, 1, rep(1, 10), matrix(1, 2, 1), spec),
                               path_plan(list(x[1:8, ]), y[1:8], 2L, 1, rep(1, 8),
                                         matrix(1, 2, 1), spec)),
                          rep(1:2, 5), 1L, 1L, NULL), "same rows")
  # the store: n x n floats and n flags; the path: kept once, where one
  # input matrix serves several folds, the n x n kernel in doubles; per
  # thread fitting, a pair block of m x m floats and m flags and the
  # held-out kernel t x m doubles
  plan <- function(nx, nrun, budget = Inf, nclass = 2L) {
    ns$kc_svm_plan(list(kind = "path", n = 10, nclass = nclass, m = 8, t = 2, trained = 8,
                        nx = nx, nrun = nrun, inputs = 0), list(budget = budget))
  }
  thread <- 4 * 64 + 8 + 8 * 2 * 8
  expect_equal(plan(1L, 5L)$bytes, c(once = 8 * 100, thread = thread, inputs = 0, results = 0))
  expect_equal(plan(5L, 5L)$bytes[1:2], c(once = 0, thread = thread))
  expect_equal(plan(1L, 1L)$bytes[1:2], c(once = 0, thread = thread))
  expect_identical(plan(1L, 5L, budget = 8 * 100 + thread)$fits, TRUE)
  expect_identical(plan(1L, 5L, budget = 8 * 100 + thread - 1)$fits, FALSE)
  # more than two classes on per-fold inputs: the fold runs' kernels where
  # the budget holds them (2 x 8 held-out by training rows, doubles; 8 x 8
  # training rows, floats)
  expect_identical(plan(5L, 5L, nclass = 3L)$fold_kernel, 2L)
  expect_identical(plan(5L, 5L, budget = thread + 8 * 2 * 8, nclass = 3L)$fold_kernel, 1L)
  expect_identical(plan(5L, 5L, budget = thread + 8 * 2 * 8 - 1, nclass = 3L)$fold_kernel, 0L)
  expect_error(plan(NA_integer_, 5L), class = "kernclass_internal_error")
  # the binary store: n x n floats and n flags
  expect_equal(ns$kc_svm_plan(list(kind = "binary", x = x),
                              list(kernel = spec, type = "C-classification", cachesize = 1)),
               list(store = "whole", bytes = 4 * 100 + 10))
  # options are read by name: a missing one is named
  expect_error(ns$kc_svm_solve(list(kind = "binary", x = x, y = rep(1L, 10), C = rep(1, 10)),
                               list(kernel = spec, type = "C-classification")),
               "no element `tolerance`", class = "kernclass_internal_error")
  expect_error(ns$kc_svm_solve(list(kind = "binary"), list()), "no element `kernel`")
  expect_error(ns$kc_svm_solve(list(x = x), list()), "no element `kind`")
  set.seed(11)
  n <- 6000
  xb <- matrix(rnorm(n * 20), n)
  yb <- ifelse(xb[, 1] + rnorm(n) > 0, 1L, 2L)
  # on one thread, and with the folds' pairs side by side on two (R's
  # thread polls while the other fits; both stop)
  for (threads in 1:2) {
    msg <- run_until_limit(path_solve(list(path_plan(list(xb), yb, 2L, c(1, 10, 100, 1000),
                                                     rep(1, n), matrix(1, 2, 5), c(3, 0.05, 3, 0),
                                                     1e-6, 1e9)),
                                      rep_len(1:5, n), 1:5, threads, NULL))
    expect_match(msg, "time limit")
  }
  expect_equal(kernel_matrix(x[1:3, ], kernel = "linear"), tcrossprod(x[1:3, ]),
               tolerance = 1e-12)
})

test_that("the solver reading a whole store takes the cache's iterates exactly", {
  # "whole": every row computed first, then read directly; "cache": the LRU
  # cache (a small one evicts rows); "kept": a new store a path keeps.
  # A store rebuilds the gradient of shrunk variables from its float rows,
  # the cache by a double expansion: the objective (from the gradient) then
  # differs at the floats' rounding (1e-7 relative), the iterates not.
  set.seed(13)
  for (rep in 1:4) {
    n <- c(200, 700)[(rep - 1) %% 2 + 1]
    x <- matrix(rnorm(n * 5), n)
    yb <- ifelse(x[, 1] + 0.5 * rnorm(n) > 0, 1L, -1L)
    C <- if (rep > 2) runif(n, 0.1, 5) else rep(3, n)
    for (shrinking in c(TRUE, FALSE)) {
      fit <- function(plan, mb = 100, nu = FALSE, alpha0 = NULL) {
        r <- smo_solve(x, yb, C, c(3, 0.3, 3, 0), plan, cachesize = mb, shrinking = shrinking,
                       type = if (nu) "nu-classification" else "C-classification",
                       alpha0 = alpha0)
        expect_identical(r$plan, plan)
        r
      }
      whole <- fit("whole")
      expect_identical(whole$rows_computed, as.numeric(n))
      same <- function(a, b, store = FALSE) {
        expect_identical(a$alpha, b$alpha)
        expect_identical(a$rho, b$rho)
        expect_identical(a$iterations, b$iterations)
        expect_identical(a$status, b$status)
        if (store || !shrinking) expect_identical(a$objective, b$objective)
        else expect_equal(a$objective, b$objective, tolerance = 1e-6)
      }
      same(whole, fit("cache"))
      same(whole, fit("cache", mb = 0.5))
      same(whole, fit("kept"), store = TRUE)
      # nu-SVC (two sets) from LIBSVM's start
      a0 <- ns$kc_svm_start(C, yb, 0.3 * sum(C) / 2)
      same(fit("whole", nu = TRUE, alpha0 = a0), fit("cache", mb = 0.5, nu = TRUE, alpha0 = a0))
    }
  }
  # kernel_svm reads a whole store where its cache would hold every row: the
  # same model as with a small cache
  dat <- path_data(n = 300, classes = 3, seed = 14)
  a <- kernel_svm(dat$x, dat$y, cost = 20)
  b <- kernel_svm(dat$x, dat$y, cost = 20, cachesize = 0.2)
  expect_identical(a$eta, b$eta)
  expect_identical(a$b, b$b)
  expect_identical(a$iterations, b$iterations)
})

test_that("kernel settings in one call, their pairs side by side on threads, fit as alone", {
  # one call of several plans (as a sequential search makes) on 1 and 2
  # threads against each plan alone: identical decision values, iterations,
  # rho; and kernel_tune() identical on 1 and 2 threads
  for (classes in 2:3) for (per_fold in c(FALSE, TRUE)) {
    dat <- path_data(n = 150, classes = classes, seed = 40 + classes)
    n <- nrow(dat$x)
    fold <- rep_len(1:3, n)
    w <- runif(n, 0.5, 1.5)
    xs <- if (per_fold) rep(list(dat$x), 3) else list(dat$x)
    plans <- lapply(c(0.1, 0.5, 2), function(g) {
      path_plan(xs, as.integer(dat$y), as.integer(classes), c(0.5, 5, 50), w,
                matrix(1, classes, 3), ns$kc_kernel_code(ns$kc_kernel("rbf", g, 3, 0, dat$x)))
    })
    alone <- lapply(plans, function(p) path_solve(list(p), fold, 1:3, 1L, NULL)[[1L]])
    for (threads in 1:2) {
      together <- path_solve(plans, fold, 1:3, threads, NULL)
      expect_identical(together, alone, info = paste(classes, per_fold, threads))
    }
  }
  dat <- path_data(n = 240, classes = 3, seed = 50)
  old <- options(kernclass.threads = 1L)
  on.exit(options(old), add = TRUE)
  tune <- function(threads, search, scale) {
    options(kernclass.threads = threads)
    set.seed(4)
    kernel_tune(kernel_svm, dat$x, dat$y, grid = list(cost = c(0.5, 5, 50), gamma = c(0.1, 0.5, 2)),
                folds = 4, search = search, scale = scale)
  }
  for (search in c("race", "screen", "exhaustive")) for (scale in c(TRUE, FALSE)) {
    a <- tune(1L, search, scale)
    b <- tune(2L, search, scale)
    expect_identical(b$results, a$results, info = paste(search, scale))
    expect_identical(b$model$coefs, a$model$coefs)
  }
})

test_that("the threads fitting side by side are as many as the memory budget holds", {
  plan <- function(once, thread, inputs = 0, results = 0) {
    list(bytes = c(once = once, thread = thread, inputs = inputs, results = results))
  }
  old <- options(kernclass.threads = 2L, kernclass.tune.store_mb = 1)
  on.exit(options(old), add = TRUE)
  # the solve's plan for the path (ffi_svm_plan), as kc_svm_shared_fits() asks for it
  threads <- function(plans) {
    ns$kc_svm_plan(list(kind = "path", plans = plans),
                   list(threads = ns$kc_threads(), budget = ns$kc_tune_budget()))$threads
  }
  expect_identical(threads(list(plan(0, 2^19 - 1))), min(2L, ns$kc_threads()))
  expect_identical(threads(list(plan(0, 2^19 + 1))), 1L)
  # the largest kept-once part and the largest per-thread part count
  expect_identical(threads(list(plan(2^19, 2^17), plan(0, 2^18 + 1))), 1L)
  expect_identical(threads(list(plan(2^19, 2^17), plan(0, 2^18))), min(2L, ns$kc_threads()))
  # never fewer than one: each plan alone is within the budget
  expect_identical(threads(list(plan(2^20, 2^20))), 1L)
  # every plan's results count, all held at once
  expect_identical(threads(list(plan(0, 2^18, results = 2^19), plan(0, 2^17, results = 2^17))), 1L)
  expect_identical(threads(list(plan(0, 2^17, results = 2^18), plan(0, 2^17, results = 2^17))),
                   min(2L, ns$kc_threads()))
})

test_that("the warm start is the last solution moved into the new box, made feasible", {
  # the rule in plain R (sums in index order, as the engine's): at the old
  # bound to the new one where finite, clipped to [0, C], then the larger
  # side's excess off its free variables where they hold it, else off the
  # whole side in proportion
  ref <- function(prev, Cprev, C, y) {
    add <- function(v) Reduce(`+`, v, 0)
    a <- ifelse(prev >= Cprev & is.finite(C), C, prev)
    a[!(a > 0)] <- 0
    a <- pmin(a, C)
    pos <- add(a[y == 1L])
    neg <- add(a[y == -1L])
    if (pos == neg) return(a)
    side <- y == (if (pos > neg) 1L else -1L)
    free <- side & a < C
    held <- add(a[free])
    if (held > abs(pos - neg)) a[free] <- a[free] * ((held - abs(pos - neg)) / held)
    else a[side] <- a[side] * (min(pos, neg) / max(pos, neg))
    a
  }
  # the start of a cost path's second cost (kind "costs") from its first
  # cost's solution (one step of the solver from a start in its box)
  costs_solve <- function(x, y, C, alpha0 = NULL, max_iter = 1) {
    .Call(ns$ffi_svm_solve, list(kind = "costs", x = x, y = y, C = C, alpha0 = alpha0),
          list(kernel = c(3, 1, 3, 0), type = "C-classification", tolerance = 1e-3,
               max_iter = max_iter, cachesize = 1, shrinking = TRUE, threads = 1L, budget = Inf))
  }
  set.seed(12)
  for (i in 1:40) {
    m <- sample(5:60, 1)
    y <- sample(c(-1L, 1L), m, TRUE)
    Cprev <- rep(runif(1, 0.1, 5), m) * runif(m, 0.5, 2)
    a0 <- ifelse(runif(m) < 0.4, Cprev, runif(m) * Cprev) * (runif(m) < 0.8)
    # a larger, smaller or unbounded box
    C <- switch(i %% 3 + 1, Cprev * runif(1, 1, 10), Cprev * runif(1, 0.1, 1), rep(Inf, m))
    r <- costs_solve(matrix(rnorm(m * 2), m), y, cbind(Cprev, C), alpha0 = a0)
    expect_null(r$fits[[1L]]$start)
    prev <- r$fits[[1L]]$alpha
    a <- r$fits[[2L]]$start
    expect_identical(a, ref(prev, Cprev, C, y), info = i)
    expect_true(all(a >= 0 & a <= C), info = i)
    expect_lt(abs(sum(y * a)), 1e-12 * max(1, sum(a)))
  }
  x <- matrix(rnorm(4), 2)
  expect_error(costs_solve(x, c(1L, 2L), cbind(c(1, 1), 2)), class = "kernclass_internal_error")
  expect_error(costs_solve(x, c(1L, -1L), c(1, 2)), class = "kernclass_internal_error")
  expect_error(costs_solve(x, c(1L, -1L), cbind(c(1, 0), 2)), class = "kernclass_internal_error")
  expect_error(costs_solve(x, c(1L, -1L), matrix(1, 3, 2)), class = "kernclass_internal_error")
})
