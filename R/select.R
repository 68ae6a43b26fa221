# Model selection's one home: how kernel_tune() searches a grid (the
# searches, kc_searches) and how the grid rows of one fitter share work on a
# fold (the shared paths, kc_paths). Which searches and which path a fitter
# takes, and its default grid, are columns of its registry row
# (R/table-fitters.R: `searches`, `path`, `default_grid`); nothing here or in
# select-cv.R, select-tune.R and select-svm-path.R compares a fitter's name. The folds and the
# units of work are select-cv.R's, the grid and its result select-tune.R's; the cost path's
# own work select-svm-path.R's (and src/svm-path.c's).

# ---- the selection problem ----------------------------------------------------

# One call's selection problem: what kernel_tune()'s and kernel_cv()'s
# searches, the shared paths and every unit of work read, handed whole.
# Plain fields, no checks (the callers have made them):
# - fit: the fitter, a function fit(x, y, ...);
# - d: the data as kc_cv_data() gives them (x, whose rows can be subset;
#   y, the classes; all_numeric);
# - w: the observation weights, one per row (NULL: none);
# - fold: the fold of each row (kc_cv_folds());
# - k: the number of folds (kc_check_folds(): attribute loo);
# - cells: the argument lists cross-validated (the grid rows; kernel_cv():
#   one empty list);
# - args: the arguments every cell's fit gets besides its own;
# - metric: what the cells are judged by (a name of kc_metrics), and
#   needs, what it reads of the out-of-fold predictions ("class", "prob",
#   "decision").
# What the fits share (a gamma's kernel sums, a cost path's warm starts and
# kept rows) is not here: the gamma path hands its store to its fits as an
# argument; the cost path is one fit of all its costs (kc_svm_cost_path()).
kc_selection <- function(fit, d, w, fold, k, cells, args, metric) {
  structure(list(fit = fit, d = d, w = w, fold = fold, k = k, cells = cells, args = args,
                 metric = metric, needs = kc_metrics[[metric]]$needs),
            class = "kc_selection")
}

# The same problem on its cells `i` only (a race's rows still running, a
# path group, a unit's cells).
kc_selection_cells <- function(sel, i) {
  sel$cells <- sel$cells[i]
  sel
}

# ---- the searches ---------------------------------------------------------------

# Columns of kc_searches (its names are kernel_tune()'s `search` choices):
# - screens: whether the rows are cross-validated at the screening
#   tolerance, where the fitter has a solver to loosen ("screen" among its
#   registry row's `searches`) and that loosens it;
# - applies: function(k, loosen) whether the search runs with the folds k
#   (kc_check_folds()) and loosen (whether screening loosens the solver);
# - fallback: the search run instead where it does not apply, or where the
#   fitter's row does not list it;
# - run: function(sel, progress) (sel: the selection problem, kc_selection();
#   progress: the progressor of folds x rows, kc_grid_cv()):
#   list(res = kc_grid_cv()'s result for every cell, dropped = the fold
#   after which each cell was dropped, NA where it ran every fold);
# - text: function(x, screened) what print() and summary() say of the
#   search that made the numbers of x (screened: the screening's line, NULL
#   where the search did not screen).
kc_search_row <- function(screens, applies, fallback = NULL, run, text) {
  list(screens = screens, applies = applies, fallback = fallback, run = run, text = text)
}

# Every row on every fold, at the fit's tolerance or the screening one (the
# path's calls, a share of the kernel settings each, sharing its state).
kc_search_all <- function(sel, progress = NULL) {
  kc_path_rounds(sel, function() {
    list(res = kc_grid_cv(sel, progress = progress),
         dropped = rep(NA_integer_, length(sel$cells)))
  })
}

kc_searches <- list(
  # successive halving over the folds: k folds, not leave-one-out, k > 2
  race = kc_search_row(
    screens = TRUE, fallback = "screen",
    applies = function(k, loosen) !isTRUE(attr(k, "loo")) && as.integer(k) > 2L,
    run = function(...) kc_tune_race(...),
    text = function(x, screened) {
      status <- if (is.null(x$results)) x$table$status else x$results$status
      done <- sum(!startsWith(status, "dropped"))
      sprintf("raced: successive halving over the folds, %d of %d rows on every fold%s%s",
              done, length(status),
              if (done < length(status)) {
                "\n  (the others dropped: their figures from the folds they ran)"
              } else "",
              if (is.null(screened)) "" else paste0(";\n  ", screened))
    }),
  # every row at the screening tolerance, only where that loosens the fits
  screen = kc_search_row(
    screens = TRUE, fallback = "exhaustive",
    applies = function(k, loosen) loosen,
    run = function(...) kc_search_all(...),
    text = function(x, screened) paste("screened:", screened)),
  exhaustive = kc_search_row(
    screens = FALSE, applies = function(k, loosen) TRUE,
    run = function(...) kc_search_all(...),
    text = function(x, screened) "exhaustive: every row cross-validated as it is fitted")
)

# How kernel_tune() searches: list(mode, tolerance, fit_tolerance). The
# search asked for, or where it does not apply (or the fitter's row does not
# list it) its fallback, in turn. Screening loosens only a fitter that
# lists "screen" among its `searches`, and only where it loosens something:
# not when `tolerance` is a grid column, nor when a row's fit tolerance
# (fit_tolerance: each row's) is already at least the screening one; then
# `tolerance` is the screening tolerance, NULL otherwise.
kc_tune_search <- function(search, screen_tolerance, fit, grid, args, k) {
  search <- kc_match_arg(search, kc_formal(kernel_tune.default, "search"), "search")
  kc_check_number(screen_tolerance, "screen_tolerance", lower = 0, lower_open = TRUE)
  def <- kc_fitter_default(fit)
  searches <- if (is.null(def)) kc_plain_searches else def$searches
  # each grid row's own tolerance (kc_fit_tolerance(): an approximation's
  # solver has its own default); a bad one is NA: not loosened, so that the
  # first fit reports it
  fit_tol <- if (!is.null(def)) {
    vapply(seq_len(nrow(grid)), function(i) kc_fit_tolerance(def, c(kc_grid_row(grid, i), args)),
           numeric(1))
  }
  loosen <- "screen" %in% searches && !"tolerance" %in% names(grid) &&
    all(!is.na(fit_tol) & fit_tol < screen_tolerance)
  mode <- search
  while (!(mode %in% searches && kc_searches[[mode]]$applies(k, loosen))) {
    mode <- kc_searches[[mode]]$fallback
  }
  screened <- loosen && kc_searches[[mode]]$screens
  list(mode = mode, tolerance = if (screened) screen_tolerance,
       fit_tolerance = if (screened) fit_tol)
}

# The solver tolerance a fit with the arguments `args` runs at: the given
# `tolerance`, else the default of the approximation's own solver
# (nystrom() and random_fourier(): the linear SVM's, R/table-approx.R), else
# the fitter's; NA where it is not one number > 0 (or the fitter has none).
kc_fit_tolerance <- function(def, args) {
  tol <- args$tolerance
  if (is.null(tol)) tol <- kc_approx_of(args$approx)$tolerance
  if (is.null(tol)) tol <- formals(def$fun)$tolerance
  if (is.numeric(tol) && length(tol) == 1L && !is.na(tol) && tol > 0) tol else NA_real_
}

# The arguments the cross-validation fits get: the screening tolerance in
# place of the fit's.
kc_tune_cv_args <- function(search, args) {
  if (!is.null(search$tolerance)) args$tolerance <- search$tolerance
  args
}

# The line print() and summary() show: which search made the numbers (an
# object saved before `search` was kept: screened or exhaustive, by its
# tolerance).
kc_tune_search_text <- function(x) {
  screened <- if (!is.null(x$tolerance)) {
    sprintf(paste0("the rows cross-validated at solver tolerance %s (screening\n",
                   "  estimates), the best refitted on all data at tolerance %s"),
            format(x$tolerance[["screen"]]), format(x$tolerance[["fit"]]))
  }
  row <- kc_searches[[if (is.character(x$search)) x$search else ""]]
  if (is.null(row)) row <- kc_searches[[if (is.null(screened)) "exhaustive" else "screen"]]
  row$text(x, screened)
}

# Successive halving over the folds (search = "race"): every row on fold 1;
# after each fold, the better half of the rows still running (by the metric
# over the folds so far; ties with the last one kept, and at least two rows)
# go on to the next fold. Rows that run every fold are finished; the others
# are dropped, their predictions never used. list(res, dropped): kc_grid_cv's
# result for every row, and the fold after which each row was dropped (NA:
# finished).
kc_tune_race <- function(sel, progress = NULL) {
  # the fitter's shared path keeps its state from one fold to the next
  kc_path_rounds(sel, function() kc_race_folds(sel, progress))
}

# progress: one progressor of k x rows steps (kc_tune_grid()); a dropped
# row's folds not run count as done when it is dropped.
kc_race_folds <- function(sel, progress = NULL) {
  K <- as.integer(sel$k)
  fold <- sel$fold
  if (is.null(progress)) progress <- progressr::progressor(steps = K * length(sel$cells))
  larger <- kc_metrics[[sel$metric]]$larger
  res <- NULL
  alive <- seq_along(sel$cells)
  dropped <- rep(NA_integer_, length(sel$cells))
  inputs <- new.env(parent = emptyenv())
  for (f in seq_len(K)) {
    out <- kc_grid_cv(kc_selection_cells(sel, alive), run_folds = f, inputs = inputs,
                      progress = progress)
    if (is.null(res)) {
      res <- out
    } else {
      te <- which(fold == f)
      for (j in seq_along(alive)) {
        i <- alive[j]
        res[[i]]$predicted[te] <- out[[j]]$predicted[te]
        if (!is.null(res[[i]]$prob)) res[[i]]$prob[te, ] <- out[[j]]$prob[te, ]
        if (!is.null(res[[i]]$decision)) res[[i]]$decision[te] <- out[[j]]$decision[te]
      }
    }
    if (f == K) break
    seen <- which(fold <= f)
    v <- vapply(alive, function(i) kc_metric_value(sel$metric, res[[i]], sel$d$y, seen),
                numeric(1))
    if (!larger) v <- -v
    if (all(is.na(v))) next
    keep <- max(ceiling(length(alive) / 2), min(length(alive), 2L))
    cut <- sort(v, decreasing = TRUE)[min(keep, sum(!is.na(v)))]
    go_on <- !is.na(v) & v >= cut
    dropped[alive[!go_on]] <- f
    if (any(!go_on)) progress(amount = (K - f) * sum(!go_on))
    alive <- alive[go_on]
  }
  list(res = res, dropped = dropped)
}

# The grid kernel_tune() searches when none is given: the fitter's row's
# `default_grid` (list(grid, text): the grid and how print() names it);
# a fitter without one needs a grid.
kc_default_grid <- function(fit, x, args) {
  def <- kc_fitter_default(fit)
  if (is.null(def$default_grid)) {
    has <- names(Filter(function(f) !is.null(f$default_grid), kc_fitters))
    kc_abort(paste0("`grid` is needed: a default grid is made only for ",
                    paste(has, collapse = ", "), "; give the parameter values, e.g. ",
                    "grid = list(gamma = c(0.1, 1, 10))."), arg = "grid")
  }
  def$default_grid(def, x, args)
}

# ---- the shared paths --------------------------------------------------------

# Columns of kc_paths, one row per shared path, named as a fitter's registry
# row names it in `path`:
# - param: the parameter along which the grid rows share work (a tunable
#   parameter of the fitters that take the path);
# - probabilities: whether rows that predict probabilities through the
#   fitter's `prob_arg` share it (the SVM's Platt models draw random numbers
#   per fit: not the cost path);
# - fold_fits: function(cells, fit_cell, xte, needs): a group's fits on one
#   fold (fit_cell(j, more, fun) fits cell j with the extra arguments
#   `more`, by the fitter or the function `fun` that takes its arguments)
#   and their predictions of the held-out rows xte, per cell as
#   kc_fold_fits();
# - plan: NULL, or function(sel, runs, inputs): the group (the cells of the
#   selection problem sel, kc_selection()) on all the folds `runs` as one
#   unit of work (kc_svm_shared_plan()), NULL where that does not apply;
# - plan_fits: with a plan, function(task, sel, rows): that unit run (sel:
#   on the task's cells), where it runs (R/select-futures.R);
# - units: with a plan, function(plan, runs): the plan's units of work
#   side by side on the threads on the folds `runs`, by which a task's
#   progress moves as they finish (kc_task_progress());
# - rounds: NULL, or function(run): run() (a search's calls of plan_fits:
#   a race's folds, the shares of a grid's settings) with the path's state
#   kept from one call to the next.
kc_path_row <- function(param, probabilities, fold_fits, plan = NULL, plan_fits = NULL,
                        units = NULL, rounds = NULL) {
  list(param = param, probabilities = probabilities, fold_fits = fold_fits, plan = plan,
       plan_fits = plan_fits, units = units, rounds = rounds)
}

kc_paths <- list(
  # kernel_svm's costs: one SVM path, warm starts and a kept kernel store (R/select-svm-path.R)
  cost = kc_path_row("cost", probabilities = FALSE,
                     fold_fits = function(...) kc_svm_path_fold_fits(...),
                     plan = function(...) kc_svm_shared_plan(...),
                     plan_fits = function(...) kc_svm_shared_fits(...),
                     units = function(...) kc_svm_path_units(...),
                     rounds = function(...) kc_svm_path_rounds(...)),
  # the gammas of the others: their kernel sums from one pass (kc_gamma_store())
  gamma = kc_path_row("gamma", probabilities = TRUE,
                      fold_fits = function(...) kc_gamma_fold_fits(...))
)

# The shared path a fitter takes (its registry row's `path`), NULL for none.
kc_fitter_path <- function(fit) {
  path <- kc_fitter_default(fit)$path
  if (!is.null(path)) kc_paths[[path]]
}

# run() with the state of the problem's path (its `rounds`) kept from one
# of its calls to the next.
kc_path_rounds <- function(sel, run) {
  rounds <- kc_fitter_path(sel$fit)$rounds
  if (is.null(rounds)) run() else rounds(run)
}

# Groups of cells (indices) that share work on a fold: cells of a fitter
# with a path that differ in its parameter only, a positive number in each;
# every other cell alone. Not approximate models (no kernel sums), nor,
# where the path says so, cells with probabilities. sel: the selection
# problem (kc_selection()).
kc_path_groups <- function(sel) {
  cells <- sel$cells
  args <- sel$args
  needs <- sel$needs
  single <- as.list(seq_along(cells))
  def <- kc_fitter_default(sel$fit)
  path <- kc_fitter_path(sel$fit)
  if (is.null(path) || length(cells) < 2L) return(single)
  prob <- !path$probabilities && !is.null(def$prob_arg)
  alone <- vapply(c(list(args), cells), function(a) {
    !is.null(a$approx) || (prob && isTRUE(a[[def$prob_arg]]))
  }, logical(1))
  if (any(alone) || (!path$probabilities && needs == "prob")) return(single)
  has_value <- vapply(cells, function(a) {
    v <- a[[path$param]]
    is.numeric(v) && length(v) == 1L && !is.na(v) && v > 0
  }, logical(1))
  if (!all(has_value)) return(single)
  # the cells' settings but the path's parameter, grouped by identical()
  # (in the order of their first cell)
  setting <- lapply(cells, function(a) {
    a[[path$param]] <- NULL
    a[order(names(a))]
  })
  distinct <- unique(setting)
  group <- vapply(setting, function(s) Position(function(u) identical(u, s), distinct), integer(1))
  unname(split(seq_along(cells), group))
}

# ---- the gamma path: kernel sums shared by the gammas of a fold ----------------

# kernel_tune() fits the gammas of one setting of kernel_means(),
# kernel_parzen() or kernel_bayes() on a fold with one store of shared sums
# (kc_gamma_store()), handed to each fit as its argument `.shared`; the
# fitter keeps it in its kernel (`k$shared`), so that its fit and its
# predictions of the fold's held-out rows reach it. There the first kernel
# sum with one of the gammas (kc_within_sums(), kc_expand(), R/model.R) is
# computed for all of them from one pass of inner products or squared
# distances (the inputs never depend on gamma), and the same sum with
# another of the gammas (identical inputs and weights) is looked up; so are
# the values that do not depend on gamma at all (kernel_bayes()'s
# covariances and whitened points, kc_gamma_free()). The values are each
# row's alone, bit for bit (src/kernel.c, values_from_base). What is kept
# stays within the tuning budget (kc_tune_budget()); past it, values are
# computed as they come. The store goes with this call: nothing is shared
# between folds or calls.
kc_gamma_fold_fits <- function(cells, fit_cell, xte, needs) {
  gammas <- vapply(cells, function(a) as.numeric(a$gamma), numeric(1))
  shared <- kc_gamma_store(gammas)
  lapply(seq_along(cells), function(j) {
    kc_fold_predict(fit_cell(j, list(.shared = shared)), xte, needs)
  })
}

# An empty store of shared sums for the gammas of one fold.
kc_gamma_store <- function(gammas) {
  store <- new.env(parent = emptyenv())
  store$gammas <- unique(as.numeric(gammas))
  store$kept <- list()
  store$bytes <- 0
  store
}

# A fitter's kernel with the store of shared sums it was handed (`.shared`,
# NULL outside kernel_tune()'s gamma path).
kc_kernel_shared <- function(k, shared) {
  if (!is.null(shared) && !is.environment(shared)) {
    kc_abort("`.shared` is internal to kernel_tune(); leave it out.", arg = ".shared")
  }
  k$shared <- shared
  k
}

# The entry of the cache kept for op on these inputs (identical()), or NULL.
kc_shared_lookup <- function(cache, op, inputs) {
  for (e in cache$kept) {
    if (identical(e$op, op) && identical(e$inputs, inputs)) return(e)
  }
  NULL
}

kc_shared_room <- function(cache, bytes) cache$bytes + bytes <= kc_tune_budget()

kc_shared_keep <- function(cache, entry, bytes) {
  cache$kept[[length(cache$kept) + 1L]] <- entry
  cache$bytes <- cache$bytes + bytes
}

# compute(kernels) gives a list of the sum for each kernel; inputs (a list)
# and weights are what it reads besides the kernel. A sum with other weights
# than those kept for its inputs (a threshold search that turned a model
# round, kernel_parzen()'s searched prior) is computed alone.
kc_gamma_shared <- function(op, inputs, weights, kernel, compute) {
  cache <- kernel$shared
  gammas <- cache$gammas
  kernel$shared <- NULL
  if (length(gammas) < 2L || !is.null(kc_kernel_info(kernel)$engine) ||
      !(kernel$gamma %in% gammas)) {
    return(compute(list(kernel))[[1L]])
  }
  rest <- kernel
  rest$gamma <- NULL
  op <- list(op, rest)
  same <- kc_shared_lookup(cache, op, inputs)
  if (!is.null(same) && identical(same$weights, weights)) {
    return(same$value[[match(kernel$gamma, gammas)]])
  }
  bytes <- 8 * length(gammas) * (if (is.null(weights)) nlevels(inputs[[2L]]) else
                                   nrow(inputs[[1L]]) * ncol(weights))
  if (!is.null(same) || !kc_shared_room(cache, bytes)) return(compute(list(kernel))[[1L]])
  ks <- lapply(gammas, function(g) {
    k <- kernel
    k$gamma <- g
    k
  })
  value <- compute(ks)
  kc_shared_keep(cache, list(op = op, inputs = inputs, weights = weights, value = value), bytes)
  value[[match(kernel$gamma, gammas)]]
}

# compute() of inputs that a gamma does not change (a numeric matrix), once
# for identical inputs in the store `cache` (kc_gamma_store(); NULL: none).
kc_gamma_free <- function(op, inputs, cache, compute) {
  if (is.null(cache$gammas)) return(compute())
  same <- kc_shared_lookup(cache, op, inputs)
  if (!is.null(same)) return(same$value)
  value <- compute()
  if (kc_shared_room(cache, 8 * length(value))) {
    kc_shared_keep(cache, list(op = op, inputs = inputs, value = value), 8 * length(value))
  }
  value
}
