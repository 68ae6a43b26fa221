#' Grid search over a classifier's parameters by cross-validation
#'
#' Cross-validates a kernclass fitter for every row of a grid of parameter
#' values, all with the same stratified folds, and refits the best
#' combination on all the data.
#'
#' @section Folds and random numbers: The folds are drawn once, before the
#'   grid is run, as in [kernel_cv()] (stratified, with [sample()]), so
#'   every row is judged on the same partition. Each unit of work (below)
#'   then gets its own parallel-safe random-number stream from the future
#'   framework (`future.seed = TRUE`), so fitters that use random numbers
#'   (`kernel_svm(probability = TRUE)`) give the same results under every
#'   [future::plan()] and number of workers. `set.seed()` before the call
#'   reproduces everything.
#'
#' @section Where it runs: The units of work are the folds of each grid row
#'   (for [kernel_svm()], the folds of each kernel setting, which serve all
#'   its `cost` values; for exact leave-one-out, a whole grid row). They are
#'   futures ([future.apply::future_lapply()]), so [future::plan()] decides
#'   where they run: one after the other in this R session (the default,
#'   `plan(sequential)`, with the kernel engine's threads inside each fit),
#'   or on the workers of `plan(multisession)`, `plan(multicore)`,
#'   `plan(cluster)` or a scheduler (future.batchtools). Workers run the
#'   engine on one thread each (see [kernclass_threads()]). Results never
#'   depend on the plan. On a machine with several cores, workers are
#'   usually the faster way to run a grid: each unit is a set of whole fits,
#'   while the threads inside one fit share its smaller steps (the README's
#'   model-selection benchmark times both). Warnings from the units are
#'   passed on once each.
#'   Progress is reported through progressr: silent unless a handler is
#'   enabled (`progressr::handlers(global = TRUE)` or
#'   `progressr::with_progress()`). The option `kernclass.tune.cores` is
#'   deprecated: it warns and is ignored.
#'
#' @section Shared work across costs: For [kernel_svm()], the grid rows that
#'   differ only in `cost` are fitted on each fold as one path, in increasing
#'   `cost`: the kernel rows of the fold's training points are computed once
#'   and kept for every cost (while they fit in
#'   `getOption("kernclass.tune.store_mb", 512)` megabytes per fold), each fit
#'   starts from the previous solution moved into the new box (variables at
#'   the bound to the new bound, the rest kept, then made feasible), and the
#'   held-out decision values of all costs come from one kernel expansion.
#'   Each fit still runs until the KKT conditions hold within `tolerance`, so
#'   its solution is a cold start's within the tolerance. Not with
#'   `probability = TRUE` or probability metrics.
#'
#' @section Best parameters: The best row is the one with the best
#'   cross-validated `metric` (the highest accuracy, balanced accuracy or AUC;
#'   the lowest log-loss or Brier score); on ties, the first such row of the
#'   grid. So order the grid from the simplest model to the most complex to
#'   prefer simple models on ties.
#'
#' @inheritParams kernel_cv
#' @param grid The parameter values: a data frame with one column per
#'   argument of `fit` (for example `cost`, `gamma`, `degree`, `coef0`,
#'   `kernel`, `type`) and one row per combination, or a named list of
#'   vectors, expanded to all combinations with [expand.grid()]. Arguments
#'   that take vectors (such as `prior` or `class.weights`) can be list
#'   columns of a data frame.
#' @param folds The number of folds (default 5), or `"loo"` (with the exact
#'   shortcut of [kernel_cv()] where it applies).
#' @param ... Further arguments to `fit`, the same for every grid row; they
#'   must not repeat a grid column.
#' @param metric What the grid rows are judged by; see [kernel_cv()].
#' @param weights Observation weights for fitters that take them
#'   ([kernel_svm()]): one per row of `x`, split with the folds (each fit
#'   gets its training rows' weights) and given to the final refit. The
#'   metrics count every held-out row once.
#' @return An object of class `"kernel_tune"`: a list with `results` (the
#'   grid with columns `accuracy`, the cross-validated accuracy (the share
#'   of rows predicted correctly out of fold, as in [kernel_cv()]), the
#'   `metric`'s column where it is not accuracy, `sd`, the standard
#'   deviation of the metric over the folds, and `se`), `best` (the row of
#'   the grid with the best metric, as a list of arguments), `best_index`,
#'   `best_accuracy` and `best_value` (its accuracy and metric), `metric`,
#'   `model` (the fitter's model refitted on all data with the best
#'   arguments), `fold` (the fold of each row of `x`), `folds`, `fitter` and
#'   `call`. It has `print()`, `summary()` and `plot()` methods.
#' @seealso [kernel_cv()], [plot.kernel_tune()].
#' @export
#' @examples
#' set.seed(1)
#' tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species,
#'                      grid = list(cost = c(0.1, 1, 10), gamma = c(0.1, 1, 10)),
#'                      folds = 3)
#' tuned
#' tuned$best
#' plot(tuned)
#'
#' # formula method, judged by log-loss; future::plan() decides where it runs
#' tuned <- kernel_tune(kernel_parzen, Species ~ ., data = iris,
#'                      grid = list(gamma = c(0.05, 0.5, 5)), metric = "logloss")
#' tuned$results
kernel_tune <- function(fit, x, ...) {
  kc_require(missing(fit), "fit", "a kernclass fitter such as kernel_svm")
  kc_require(missing(x), "x", "the inputs (or a formula class ~ inputs)")
  UseMethod("kernel_tune", x)
}

#' @rdname kernel_tune
#' @export
kernel_tune.default <- function(fit, x, y, grid, folds = 5, ..., metric = "accuracy",
                                weights = NULL) {
  kc_require(missing(y), "y", "the class labels")
  kc_require(missing(grid), "grid", "the parameter values, e.g. list(cost = c(1, 10))")
  fitter <- kc_fitter_name(substitute(fit))
  kc_check_fitter(fit)
  kc_tune_cores_option()
  metric <- kc_check_metric(metric)
  args <- list(...)
  grid <- kc_check_grid(grid, fit, args)
  args <- kc_metric_args(metric, fit, args, names(grid))
  d <- kc_cv_data(x, y, args$kernel)
  w <- kc_cv_weights(weights, fit, length(d$y))
  k <- kc_check_folds(folds, d$y)
  fold <- kc_cv_folds(d$y, k)
  rows <- lapply(seq_len(nrow(grid)), function(i) kc_grid_row(grid, i))
  res <- kc_grid_cv(fit, d, w, fold, k, rows, args, metric)
  cvs <- lapply(res, function(r) kc_new_cv(r, d$y, fold, k, fitter, NULL, metric))

  acc <- vapply(cvs, `[[`, numeric(1), "accuracy")
  value <- vapply(cvs, `[[`, numeric(1), "value")
  results <- grid
  results$accuracy <- acc
  if (metric != "accuracy") results[[metric]] <- value
  results$sd <- vapply(cvs, function(cv) stats::sd(cv$fold_value, na.rm = TRUE), numeric(1))
  results$se <- vapply(cvs, `[[`, numeric(1), "se")
  # the first best row on ties
  best <- if (kc_metrics[[metric]]$larger) which.max(value) else which.min(value)
  if (!length(best)) {
    kc_abort(sprintf("The cross-validated %s is NA for every grid row (%s needs both classes in every fold); use fewer folds.",
                     kc_metrics[[metric]]$label, kc_metrics[[metric]]$label), arg = "metric")
  }
  model <- do.call(fit, c(list(d$x, d$y), rows[[best]], args, if (!is.null(w)) list(weights = w)))
  call <- kc_call(match.call(), "kernel_tune")
  # the refit's call as the user would write it, not with the data inlined
  model$call <- as.call(c(list(if (is.name(call$fit)) call$fit else as.name("fit"),
                               x = call$x, y = call$y), rows[[best]], args,
                          if (!is.null(w)) list(weights = call$weights)))
  structure(list(
    results = results,
    best = rows[[best]],
    best_index = best,
    best_accuracy = acc[best],
    best_value = value[best],
    metric = metric,
    model = model,
    fold = fold,
    folds = as.integer(k),
    loo = isTRUE(attr(k, "loo")),
    fitter = fitter,
    call = call),
    class = "kernel_tune")
}

#' @rdname kernel_tune
#' @param data,subset,na.action For the formula method: the data frame, an
#'   optional subset of its rows, and the handling of missing values, as in
#'   [stats::model.frame()]; `weights` is then looked up in `data` too.
#' @export
kernel_tune.formula <- function(fit, x, data = NULL, grid, folds = 5, ..., subset, na.action,
                                metric = "accuracy", weights = NULL) {
  mf <- kc_tune_frame(match.call(expand.dots = FALSE), parent.frame())
  call <- kc_call(match.call(), "kernel_tune")
  out <- kernel_tune.default(fit, mf$x, mf$y, grid = grid, folds = folds, ..., metric = metric,
                             weights = mf$weights)
  out$fitter <- kc_fitter_name(substitute(fit))
  out$call <- call
  out
}

# kernclass.tune.cores chose the workers of kernel_tune() before it followed
# future::plan(); set, it only warns.
kc_tune_cores_option <- function() {
  if (!is.null(getOption("kernclass.tune.cores"))) {
    kc_warn(paste0("The option `kernclass.tune.cores` is deprecated and ignored: kernel_tune() ",
                   "runs where future::plan() says, e.g. future::plan(\"multisession\", ",
                   "workers = 2)."), class = "deprecated")
  }
}

# ---- the SVM path: costs of one kernel setting share work ---------------------

# Groups of cells (indices) that one SVM path serves: kernel_svm cells that
# differ in `cost` only; every other cell alone. Not with probability = TRUE,
# whose Platt folds draw random numbers per fit.
kc_svm_path_groups <- function(fit, cells, args, needs) {
  single <- as.list(seq_along(cells))
  def <- kc_fitter_default(fit)
  if (is.null(def) || def$name != "kernel_svm" || length(cells) < 2L) return(single)
  if (isTRUE(args$probability) || needs == "prob") return(single)
  has_cost <- vapply(cells, function(a) {
    is.numeric(a$cost) && length(a$cost) == 1L && !is.na(a$cost) && a$cost > 0
  }, logical(1))
  if (!all(has_cost)) return(single)
  if (any(vapply(cells, function(a) isTRUE(a$probability), logical(1)))) return(single)
  key <- vapply(cells, function(a) {
    a$cost <- NULL
    paste(deparse(a[order(names(a))], control = "digits17"), collapse = "")
  }, character(1))
  unname(split(seq_along(cells), factor(key, levels = unique(key))))
}

# The state a path keeps between its fits, per class pair: the kernel rows
# computed so far (a raw store the solver fills in place) and the last
# solution. Stores fit in a budget (option kernclass.tune.store_mb, default
# 512 MB per fold being fitted); past it, the pair warm-starts only.
kc_svm_path_new <- function() {
  path <- new.env(parent = emptyenv())
  path$budget <- getOption("kernclass.tune.store_mb", 512) * 2^20
  path
}

# The warm start and the store for one binary problem of a path (rows: the
# problem's training rows, Cb their bounds, yb their +1 / -1); NULLs outside
# a path.
kc_svm_path_start <- function(path, key, rows, Cb, yb) {
  if (is.null(path)) return(list())
  prev <- path[[key]]
  if (!is.null(prev) && identical(prev$rows, rows)) {
    # the last solution moved to the new box: variables at their bound go to
    # the new bound, free ones stay, then made feasible for the solver; into
    # an unbounded box (cost = Inf) they stay where they are, a feasible point
    at_bound <- prev$alpha >= prev$C & is.finite(Cb)
    alpha0 <- prev$alpha
    alpha0[at_bound] <- Cb[at_bound]
    return(list(alpha0 = kc_svm_feasible_start(alpha0, Cb, yb), store = prev$store))
  }
  n <- length(rows)
  bytes <- 4 * n^2 + n
  store <- NULL
  if (bytes <= path$budget) {
    store <- TRUE  # the solver allocates it
    path$budget <- path$budget - bytes
  }
  list(alpha0 = NULL, store = store)
}

# A start in the box [0, C] with y'a = 0, as the solver takes it: a clipped
# to the box, then the excess of the larger side taken off its free
# variables where they hold it (the bounded ones stay bounded), else off
# the whole side, in proportion.
# (Sums in double, in index order, as the solver's own sums, not sum()'s
# extended precision: the start is then the same on every platform.)
kc_svm_feasible_start <- function(a, C, y) {
  add <- function(v) Reduce(`+`, v, 0)
  a[!(a > 0)] <- 0
  a <- pmin(a, C)
  pos <- add(a[y == 1L])
  neg <- add(a[y == -1L])
  if (pos == neg) return(a)
  side <- y == (if (pos > neg) 1L else -1L)
  excess <- abs(pos - neg)
  free <- side & a < C
  held <- add(a[free])
  if (held > excess) {
    a[free] <- a[free] * ((held - excess) / held)
  } else {
    a[side] <- a[side] * (min(pos, neg) / max(pos, neg))
  }
  a
}

kc_svm_path_keep <- function(path, key, rows, Cb, alpha, store) {
  if (!is.null(path)) assign(key, list(rows = rows, C = Cb, alpha = alpha, store = store),
                             envir = path)
}

kc_grid_row <- function(grid, i) {
  lapply(stats::setNames(names(grid), names(grid)), function(nm) {
    v <- grid[[nm]][[i]]
    if (is.factor(v)) as.character(v) else v
  })
}

kc_grid_label <- function(row) {
  paste(vapply(names(row), function(nm) {
    v <- row[[nm]]
    sprintf("%s = %s", nm, if (is.atomic(v) && length(v) == 1L) format(v) else "<value>")
  }, character(1)), collapse = ", ")
}

kc_check_grid <- function(grid, fit, args) {
  if (is.list(grid) && !is.data.frame(grid)) {
    nm <- names(grid)
    if (length(grid) == 0L || is.null(nm) || any(nm == "")) {
      kc_abort("`grid` must be a data frame or a named list of parameter values.", arg = "grid")
    }
    grid <- expand.grid(grid, KEEP.OUT.ATTRS = FALSE, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(grid)) {
    kc_abort(sprintf("`grid` must be a data frame or a named list of parameter values; got %s.",
                     class(grid)[1L]), arg = "grid")
  }
  if (nrow(grid) == 0L || ncol(grid) == 0L) {
    kc_abort("`grid` is empty: give at least one parameter with at least one value.",
             arg = "grid")
  }
  if (anyDuplicated(names(grid))) {
    kc_abort(sprintf("`grid` has repeated column(s) %s.",
                     kc_enum(unique(names(grid)[duplicated(names(grid))]))), arg = "grid")
  }
  def <- kc_fitter_default(fit)
  formal <- names(formals(if (is.null(def)) fit else def$fun))
  if (!is.null(def) || !"..." %in% formal) {
    taken <- setdiff(formal, c("x", "y", "..."))
    bad <- setdiff(names(grid), taken)
    if (length(bad)) {
      kc_abort(sprintf("`grid` has column(s) %s that %s does not take; it takes %s.",
                       kc_enum(bad), if (is.null(def)) "`fit`" else paste0(def$name, "()"),
                       kc_enum(taken, max = 20)), arg = "grid")
    }
  }
  both <- intersect(names(grid), names(args))
  if (length(both)) {
    kc_abort(sprintf("%s given both as `grid` column(s) and in `...`; give each once.",
                     kc_enum(both)), arg = "grid")
  }
  grid
}

#' @export
print.kernel_tune <- function(x, ...) {
  cat("Parameter tuning of ", x$fitter, "\n\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  how <- if (x$loo) "leave-one-out" else sprintf("%d-fold, stratified", x$folds)
  cat(sprintf("Folds: %s, the same for all %d grid rows\n", how, nrow(x$results)))
  cat(sprintf("Best: %s (row %d), %s\n", kc_grid_label(x$best), x$best_index,
              kc_tune_best_text(x)))
  invisible(x)
}

kc_tune_best_text <- function(x) {
  acc <- sprintf("accuracy %.2f%%", 100 * x$best_accuracy)
  if (is.null(x$metric) || x$metric == "accuracy") return(acc)
  sprintf("%s %.4g (%s)", kc_metrics[[x$metric]]$label, x$best_value, acc)
}

#' Summarise a parameter grid search
#'
#' @param object A `"kernel_tune"` object from [kernel_tune()].
#' @param ... Not used.
#' @return An object of class `"summary.kernel_tune"`: the fitter, call,
#'   folds, the full table of results ordered from the best row down, the
#'   best parameters and accuracy, and the summary of the refitted model.
#'   Printing it shows them.
#' @export
#' @examples
#' set.seed(1)
#' tuned <- kernel_tune(kernel_means, iris[, 1:4], iris$Species,
#'                      grid = data.frame(gamma = c(0.01, 0.1, 1)), folds = 3)
#' summary(tuned)
summary.kernel_tune <- function(object, ...) {
  kc_check_dots(...)
  metric <- if (is.null(object$metric)) "accuracy" else object$metric
  v <- object$results[[metric]]
  ord <- order(if (kc_metrics[[metric]]$larger) -v else v, seq_len(nrow(object$results)))
  structure(list(
    fitter = object$fitter, call = object$call, loo = object$loo, folds = object$folds,
    table = object$results[ord, , drop = FALSE],
    best = object$best, best_index = object$best_index, best_accuracy = object$best_accuracy,
    best_value = object$best_value, metric = object$metric,
    model = summary(object$model)),
    class = "summary.kernel_tune")
}

#' @export
print.summary.kernel_tune <- function(x, ...) {
  cat("Parameter tuning of ", x$fitter, "\n\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  how <- if (x$loo) "leave-one-out" else sprintf("%d-fold, stratified", x$folds)
  cat(sprintf("Folds: %s\n", how))
  cat(sprintf("Best: %s (row %d), %s\n\n", kc_grid_label(x$best), x$best_index,
              kc_tune_best_text(x)))
  cat(sprintf("Results, best first (%s out of fold; sd: of the fold values):\n",
              kc_metrics[[if (is.null(x$metric)) "accuracy" else x$metric]]$label))
  print(utils::head(x$table, 20L), digits = 4)
  if (nrow(x$table) > 20L) cat(sprintf("... and %d more rows\n", nrow(x$table) - 20L))
  cat("\nModel refitted on all data with the best parameters:\n\n")
  print(x$model)
  invisible(x)
}
