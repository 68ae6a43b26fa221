# The SVM's cost path: what the registry's path "cost" (R/select.R's
# kc_paths) does for kernel_svm(). The costs of one kernel setting share
# work, by one of two routes to the one solve entry (kc_svm_solve(),
# src/ffi-svm.c), neither of which threads state through kernel_svm():
# - the shared path: the costs on all the folds in one call (kind "path",
#   src/svm-path.c), for dense rows with a shift-invariant kernel (rbf,
#   laplace) and C-classification within the tuning budget (kc_tune_budget(),
#   which counts the held-out decision values the call returns: a grid's
#   settings are split into as many calls as keep them within it);
# - else per fold: the fold's costs fitted as one path by the SVM itself
#   (kc_svm_cost_path(), R/fit-svm.R: per class pair the costs one problem of
#   kind "costs", solved in increasing cost with the warm start of the shared
#   path and one kept store of the pair's kernel rows), one expansion for the
#   held-out rows.
# And a grid is made from the data when none is given (the registry's
# default_grid).

# ---- the path: costs of one kernel setting share work -------------------------

# The cost path's fits of one fold (kc_paths' fold_fits): the cells' costs
# fitted by the SVM as one path (kc_svm_cost_path(): per class pair, the
# costs in increasing order in one call of the solve entry, each warm-
# started from the last, all on one store of the pair's kernel rows); the
# held-out rows' predictions from one expansion where it can. An error
# names the cell whose cost it arose at.
kc_svm_path_fold_fits <- function(cells, fit_cell, xte, needs) {
  costs <- vapply(cells, function(a) a$cost, numeric(1))
  ord <- order(costs)
  fit_costs <- function(x, y, ..., cost) {  # the first cell's arguments, its cost left out
    tryCatch(kc_svm_cost_path(x, y, costs[ord], ...), error = function(e) {
      if (!is.null(e$kc_cost)) e$kc_cell <- ord[e$kc_cost]
      stop(e)
    })
  }
  models <- vector("list", length(cells))
  models[ord] <- fit_cell(ord[1L], fun = fit_costs)
  out <- kc_path_predict(models, xte, needs)
  if (!is.null(out)) return(out)
  lapply(models, kc_fold_predict, xte = xte, needs = needs)
}

# The held-out rows' classes and decision values for all the SVMs of a path
# (same training rows, scaling and kernel) from one kernel expansion over
# their support vectors; NULL where a value is not finite (predict() then
# says why, row by row).
kc_path_predict <- function(models, xte, needs) {
  x <- kc_new_x(models[[1L]], xte)
  idx <- sort(unique(unlist(lapply(models, `[[`, "index"))))
  W <- do.call(cbind, lapply(models, function(m) {
    w <- matrix(0, length(idx), ncol(m$coefs))
    w[match(m$index, idx), ] <- m$coefs
    w
  }))
  S <- kc_expand(x, models[[1L]]$x[idx, , drop = FALSE], W, models[[1L]]$kernel)
  if (!all(is.finite(S))) return(NULL)
  col <- 0L
  lapply(models, function(m) {
    np <- length(m$b)
    sc <- S[, col + seq_len(np), drop = FALSE] + rep(m$b, each = nrow(S))
    col <<- col + np
    dimnames(sc) <- list(rownames(x), names(m$b))
    r <- list(predicted = as.character(kc_classify(m, sc)))
    if (needs == "decision") r$decision <- as.vector(kc_decision(m, sc))
    r
  })
}


# ---- the shared path: one kernel for all the folds, one call -------------------

# For kernel_svm() (C-classification, dense inputs, a shift-invariant kernel:
# rbf, laplace), the costs of one kernel setting on all the folds it runs are
# one unit of work and one .Call (src/svm-path.c): with scale = FALSE and
# several folds the kernel of all the rows once, every fold's class pairs
# blocks of it; else every fold's rows scaled by its training rows'
# statistics (scale = TRUE), as its kernel_svm() would, and each pair's
# block computed for its fold; the costs solved in increasing order with
# the per-fold path's warm starts (kc_svm_warm_start), the held-out
# decision values from the kernel of the held-out rows kept beside the
# block: the fits and
# predictions of the per-fold path. Anything else (sparse rows, kernel
# data, probabilities, other types or arguments, over the memory budget)
# runs each fold on its own (kc_fold_fits()).

# kernel_svm()'s arguments the shared path reproduces.
kc_svm_shared_args <- c("kernel", "gamma", "degree", "coef0", "cost", "class.weights", "scale",
                        "probability", "tolerance", "max_iter", "cachesize", "shrinking", "type")

# What the shared path needs to run the cells of the selection problem
# `sel` (kc_selection(); one path group: the same kernel setting, their
# costs) on the folds `runs`; NULL where it does not apply. `inputs`: an
# environment that keeps, for the other kernel settings of the same call
# (they differ in gamma) and a race's later folds, the coded inputs, and
# per setting but gamma what the folds `runs` need (kc_svm_shared_common()):
# made once, not once per gamma and fold.
kc_svm_shared_plan <- function(sel, runs, inputs = new.env(parent = emptyenv())) {
  d <- sel$d
  cells <- sel$cells
  def <- kc_fitter_default(sel$fit)
  if (is.null(def) || sel$needs == "prob") return(NULL)
  if (!is.matrix(d$x) && !is.data.frame(d$x)) return(NULL)  # sparse rows, kernel data
  a <- c(cells[[1L]], sel$args)
  a$cost <- NULL
  if (!all(names(a) %in% kc_svm_shared_args)) return(NULL)
  arg <- function(nm) if (nm %in% names(a)) a[[nm]] else eval(formals(def$fun)[[nm]])
  cost <- vapply(cells, function(cl) {
    v <- cl$cost
    if (is.numeric(v) && length(v) == 1L && !is.na(v) && v > 0) as.numeric(v) else NA_real_
  }, numeric(1))
  if (anyNA(cost) || is.character(arg("gamma"))) return(NULL)
  # the part of the plan that gamma does not change, by the folds it is for
  if (!identical(inputs$runs, runs)) {
    inputs$runs <- runs
    inputs$common <- list()
    inputs$scaled <- NULL
  }
  setting <- a[setdiff(names(a), "gamma")]
  at <- Position(function(e) identical(e$setting, setting), inputs$common)
  if (is.na(at)) {
    common <- kc_svm_shared_common(arg, sel, runs, inputs)
    inputs$common[[length(inputs$common) + 1L]] <- list(setting = setting, common = common)
  } else {
    common <- inputs$common[[at]]$common
  }
  if (is.null(common)) return(NULL)
  # the kernel, a pair's block, the inputs and the results of its costs
  # within the budget (the planner's, src/svm-plan.c)
  plan <- kc_svm_plan(c(common$sizes, list(ncost = length(cost))), list(budget = kc_tune_budget()))
  if (!plan$fits) return(NULL)
  x <- common$x
  k <- tryCatch(kc_kernel(common$kernel, arg("gamma"), arg("degree"), arg("coef0"), x[[1L]]),
                error = function(e) NULL)
  if (is.null(k)) return(NULL)
  list(x = x, y = as.integer(d$y), nclass = common$nclass, levels = levels(d$y), cost = cost,
       spec = kc_kernel_code(k), w = common$w, cw = common$cw, tolerance = common$tolerance,
       max_iter = common$max_iter, shrinking = common$shrinking, fold_kernel = plan$fold_kernel,
       bytes = plan$bytes)
}

# The plan's part for one setting of kernel_svm's arguments but gamma (arg:
# its argument by name) on the folds `runs` of the selection problem `sel`:
# the checks, the bounds' factors, the inputs scaled per fold (kept in
# `inputs`), the memory; NULL where the shared path does not apply.
kc_svm_shared_common <- function(arg, sel, runs, inputs) {
  d <- sel$d
  w <- sel$w
  fold <- sel$fold
  ok <- function(expr) tryCatch({ expr; TRUE }, error = function(e) FALSE)
  type <- tryCatch(kc_svm_type(arg("type")), error = function(e) "")
  kernel <- arg("kernel")
  scale <- arg("scale")
  if (type != "C-classification" || !identical(arg("probability"), FALSE) ||
      kc_is_kernel_data(kernel) || !(isTRUE(scale) || isFALSE(scale))) return(NULL)
  name <- tryCatch(kc_kernel_name(kernel), error = function(e) "")
  if (!identical(kc_kernels[[name]]$shift, "invariant")) return(NULL)
  tolerance <- arg("tolerance")
  max_iter <- arg("max_iter")
  if (!ok(kc_check_number(tolerance, "tolerance", lower = 0, lower_open = TRUE)) ||
      !ok(kc_check_number(max_iter, "max_iter", lower = 1, whole = TRUE)) ||
      !ok(kc_check_flag(arg("shrinking"), "shrinking")) ||
      (!is.null(arg("cachesize")) &&
       !ok(kc_check_number(arg("cachesize"), "cachesize", lower = 0, lower_open = TRUE)))) {
    return(NULL)
  }
  # the bounds' factors per fold: weights, and class weights of the training rows
  n <- length(d$y)
  L <- nlevels(d$y)
  if (L < 2L) return(NULL)
  wt <- if (is.null(w)) rep(1, n) else w
  cw <- matrix(0, L, length(runs))
  largest <- 0
  held_out <- max(tabulate(fold)[runs])
  for (r in seq_along(runs)) {
    train <- fold != runs[r]
    cwr <- tryCatch(kc_class_weights(arg("class.weights"), d$y[train]), error = function(e) NULL)
    if (is.null(cwr)) return(NULL)
    held <- tapply(wt[train] * cwr[as.integer(d$y[train])] > 0, d$y[train], any)
    if (!all(held %in% TRUE)) return(NULL)  # a class left with no weight: kernel_svm says so
    cw[, r] <- cwr
    counts <- tabulate(d$y[train], L)
    largest <- max(largest, max(outer(counts, counts, "+")[upper.tri(diag(L))]))
  }
  # the coded inputs, scaled per fold as each fold's fit scales them; the
  # kernel, a pair's block and the inputs' copies within the budget
  if (is.null(inputs$design)) {
    design <- tryCatch(kc_design_xy(d$x, d$y, kernel = kernel), error = function(e) NULL)
    if (is.null(design) || !is.matrix(design$x) || !is.numeric(design$x)) return(NULL)
    storage.mode(design$x) <- "double"
    inputs$design <- design
  }
  design <- inputs$design
  copies <- if (scale) length(runs) else 1
  # the kernel, a pair's block and the inputs' copies within the budget,
  # and the folds' kernels where it holds them: the planner's (src/svm-plan.c)
  # (the results, which depend on the costs, are counted per group:
  # kc_svm_shared_plan())
  sizes <- list(kind = "path", n = n, nclass = L, m = largest, t = held_out,
                trained = n - min(tabulate(fold, max(fold))[runs]), nx = copies,
                nrun = length(runs), inputs = 8 * copies * length(design$x))
  plan <- kc_svm_plan(sizes, list(budget = kc_tune_budget()))
  if (!plan$fits) return(NULL)
  # (a constant column warns: the folds then run one by one, and warn)
  # (the scaled copies are the folds' `runs`: kept until the folds change)
  key <- if (scale) "scaled" else "unscaled"
  if (is.null(inputs[[key]])) {
    inputs[[key]] <- if (!scale) list(design$x) else tryCatch(lapply(runs, function(f) {
      s <- kc_scaling(design$x[fold != f, , drop = FALSE], design$scalable)
      unname(kc_apply_scaling(design$x, s))
    }), warning = function(w) FALSE, error = function(e) FALSE)
  }
  x <- inputs[[key]]
  if (isFALSE(x)) return(NULL)
  list(x = x, kernel = kernel, nclass = L, w = as.double(wt), cw = cw,
       tolerance = as.numeric(tolerance), max_iter = as.numeric(max_iter),
       shrinking = arg("shrinking"), sizes = sizes)
}

# A plan's units of work on the folds `runs` (kc_paths' `units`): its class
# pairs on each fold, each one chain of warm starts on one thread.
kc_svm_path_units <- function(plan, runs) {
  plan$nclass * (plan$nclass - 1) / 2 * length(runs)
}

# The C path's large buffers (src/svm-path.c, kc_svm_path_kept), kept by a
# search from one call to the next (a race's folds, the shares of a grid's
# kernel settings) in `buffers` (NULL outside a search; in a
# future's process elsewhere the pointer is void: its calls allocate their
# own): fresh buffers at every fold cost their page faults again (measured:
# about a tenth of a race's C time on the benchmarks' synthetic grid, one
# thread; more on Satellite, whose fold kernels take 75 MB).
kc_svm_kept <- new.env(parent = emptyenv())

kc_svm_path_rounds <- function(run) {
  old <- kc_svm_kept$buffers
  kc_svm_kept$buffers <- .Call(ffi_svm_path_kept)
  on.exit({
    .Call(ffi_svm_path_kept_free, kc_svm_kept$buffers)
    kc_svm_kept$buffers <- old
  }, add = TRUE)
  run()
}

# The held-out classes (and decision values) of every cell of the task (the
# cells of the selection problem `sel`) on the rows `rows` (the task's
# folds), per cell as kc_fold_fits() gives them: the task's plans (each a
# group of cells, task$groups their positions in the cells) in one call,
# their class pairs side by side on the threads, each finished pair told to
# task$progress (kc_task_progress()) by R's thread as the C code runs. A group the solver could
# not finish (not separable with cost = Inf, not finite) is refitted fold by
# fold (kc_fold_fits()), which reports it.
kc_svm_shared_fits <- function(task, sel, rows) {
  fold <- sel$fold
  needs <- sel$needs
  ord <- lapply(task$plans, function(p) order(p$cost))
  plans <- Map(function(p, o) {
    p$cost <- p$cost[o]
    p
  }, task$plans, ord)
  # the pairs side by side on the engine's threads, as many as the budget
  # holds a fit's memory for, in as many calls as keep the results each
  # holds within it (the planner's)
  options <- list(threads = kc_threads(), budget = kc_tune_budget(), progress = task$progress)
  calls <- kc_svm_plan(list(kind = "path", plans = plans), options)$calls
  r <- unlist(lapply(split(seq_along(plans), calls), function(at) {
    kc_svm_solve(list(kind = "path", plans = plans[at], fold = as.integer(fold),
                      run = as.integer(task$folds), kept = kc_svm_kept$buffers), options)
  }), recursive = FALSE, use.names = FALSE)
  out <- vector("list", length(sel$cells))
  for (g in seq_along(plans)) {
    at <- task$groups[[g]]
    out[at] <- if (all(r[[g]]$status %in% kc_c$smo_status[c("converged", "max_iter")])) {
      kc_svm_path_cells(r[[g]], plans[[g]], ord[[g]], task$folds, needs, rows)
    } else {
      # an error names its cell among the task's (kc_relay), not the group's
      tryCatch(kc_svm_fold_fits(kc_selection_cells(sel, at), task$folds, rows),
               error = function(e) {
                 if (!is.null(e$kc_cell)) e$kc_cell <- at[e$kc_cell]
                 stop(e)
               })
    }
  }
  out
}

# The cells of one plan from its path's result `r` (costs in the order
# `ord` of the plan's cells).
kc_svm_path_cells <- function(r, p, ord, folds, needs, rows) {
  pair_index <- kc_ovo_pairs(p$levels)
  pairs <- rownames(pair_index)
  nrun <- length(folds)
  status <- array(r$status, c(nrun, length(pairs), length(ord)))
  for (f in seq_len(nrun)) for (c in seq_along(ord)) {
    stopped <- status[f, , c] == kc_c$smo_status[["max_iter"]]
    if (any(stopped)) kc_svm_warn_max_iter(p$max_iter, pairs[stopped])
  }
  dec <- array(r$decision, c(length(p$y), length(pairs), length(ord)))
  # the votes and decision values as predict() makes them from the scores
  # (kc_classify() of such a model is kc_ovo_vote()): the rows' scores of
  # every cost stacked, cost by cost, and voted on at once
  model <- structure(list(levels = p$levels), class = c("kernel_svm", "kernclass_ovo",
                                                        "kernclass"))
  nr <- length(rows)
  sc <- matrix(aperm(dec[rows, , , drop = FALSE], c(1L, 3L, 2L)), nr * length(ord), length(pairs))
  predicted <- as.character(kc_ovo_vote(sc, p$levels, pair_index))
  lapply(seq_along(ord), function(j) {
    at <- (match(j, ord) - 1L) * nr + seq_len(nr)
    out <- list(predicted = predicted[at])
    if (needs == "decision") out$decision <- as.vector(kc_decision(model, sc[at, , drop = FALSE]))
    out
  })
}

# The cells of the selection problem `sel` on each of `folds` by
# kc_fold_fits(), joined on `rows`.
kc_svm_fold_fits <- function(sel, folds, rows) {
  cells <- sel$cells
  needs <- sel$needs
  out <- lapply(cells, function(a) list(predicted = rep(NA_character_, length(rows)),
                                        decision = if (needs == "decision") rep(NA_real_, length(rows))))
  for (f in folds) {
    test <- which(sel$fold == f)
    at <- match(test, rows)
    got <- kc_fold_fits(sel, test)
    for (j in seq_along(cells)) {
      out[[j]]$predicted[at] <- got[[j]]$predicted
      if (needs == "decision") out[[j]]$decision[at] <- got[[j]]$decision
    }
  }
  out
}

# ---- the default grid ------------------------------------------------------------

# The grid kernel_tune() searches for kernel_svm() when none is given: 10
# costs, geometric from 50 / n to 500 (the larger n, the more the data
# carry a small cost: the penalty on the slacks sums over n rows; beyond
# 500 the cells are the slowest to solve and rarely the best), and for a
# kernel with a gamma 10 gammas around estimate_gamma()'s median heuristic
# on the data as the fit scales them, from 2^-6 to 2^3 times it; the costs
# vary fastest, so on ties the first, smaller cost wins. list(grid, text):
# the grid and how print() names it (the registry's default_grid; def:
# kernel_svm's row).
kc_svm_default_cost <- function(n) signif(exp(seq(log(50 / n), log(500), length.out = 10)), 2)

kc_svm_default_grid <- function(def, x, args) {
  type <- if (is.null(args$type)) "C-classification" else kc_svm_type(args$type)
  if (type != "C-classification") {
    kc_abort(sprintf(paste0("`grid` is needed with type = \"%s\": the default grid varies ",
                            "`cost`; give e.g. grid = list(nu = c(0.1, 0.3, 0.5))."), type),
             arg = "grid")
  }
  cost <- kc_svm_default_cost(NROW(x))
  kernel <- if (is.null(args$kernel)) formals(def$fun)$kernel else args$kernel
  grid <- list(cost = cost)
  text <- sprintf("10 costs from %s (50/n) to 500", format(cost[1L]))
  if (!kc_is_kernel_data(kernel) && is.null(args$gamma) &&
      kc_kernels[[kc_kernel_name(kernel)]]$scales != "nothing") {
    scale <- if (is.null(args$scale)) TRUE else args$scale
    g0 <- signif(estimate_gamma(x, kernel = kernel, scale = scale), 3)
    grid$gamma <- g0 * 2^(-6:3)
    text <- sprintf("%s\n  x 10 gammas 2^(-6, -5, ..., 3) x %s (the median heuristic)", text,
                    format(g0))
  }
  list(grid = expand.grid(grid, KEEP.OUT.ATTRS = FALSE), text = paste0("default: ", text))
}
