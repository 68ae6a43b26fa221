#' Grid search over a classifier's parameters by cross-validation
#'
#' Cross-validates a kernclass fitter for every row of a grid of parameter
#' values, all with the same stratified folds, and refits the best
#' combination on all the data.
#'
#' @section Folds and random numbers: The folds are drawn once, before the
#'   grid is run, as in [kernel_cv()] (stratified, with [sample()]), so
#'   every row is judged on the same partition. Then one seed per grid row is
#'   drawn, and each row's cross-validation runs after `set.seed()` with its
#'   own seed: fitters that use random numbers (`kernel_svm(probability =
#'   TRUE)`) give the same results whether the rows run in parallel or one
#'   after the other. `set.seed()` before the call reproduces everything.
#'
#' @section Parallel: With more than one grid row, the rows are run on two
#'   cores by [parallel::mclapply()] (on Unix-alikes; elsewhere, or with
#'   `options(kernclass.tune.cores = 1)`, one after the other). Each worker
#'   runs the kernel engine on one thread; results do not depend on the
#'   number of threads. Warnings from the workers are passed on (once each).
#'
#' @section Best parameters: The best row is the one with the highest mean
#'   cross-validated accuracy; on ties, the first such row of the grid. So
#'   order the grid from the simplest model to the most complex to prefer
#'   simple models on ties.
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
#' @return An object of class `"kernel_tune"`: a list with `results` (the
#'   grid with columns `accuracy`, the cross-validated accuracy (the share
#'   of rows predicted correctly out of fold, as in [kernel_cv()]), `sd`,
#'   the standard deviation of the fold accuracies, and `se`), `best` (the
#'   row of the grid with the best accuracy, as a list of arguments),
#'   `best_index`, `best_accuracy`, `model` (the fitter's model refitted on
#'   all data with the best arguments), `fold` (the fold of each row of `x`),
#'   `folds`, `fitter` and `call`. It has `print()`, `summary()` and
#'   `plot()` methods.
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
kernel_tune <- function(fit, x, y, grid, folds = 5, ...) {
  kc_require(missing(fit), "fit", "a kernclass fitter such as kernel_svm")
  kc_require(missing(x), "x", "the inputs")
  kc_require(missing(y), "y", "the class labels")
  kc_require(missing(grid), "grid", "the parameter values, e.g. list(cost = c(1, 10))")
  fitter <- kc_fitter_name(substitute(fit))
  kc_check_fitter(fit)
  args <- list(...)
  grid <- kc_check_grid(grid, fit, args)
  d <- kc_cv_data(x, y, args$kernel)
  k <- kc_check_folds(folds, d$y)
  fold <- kc_cv_folds(d$y, k)
  seeds <- sample.int(.Machine$integer.max, nrow(grid))
  rows <- lapply(seq_len(nrow(grid)), function(i) kc_grid_row(grid, i))

  one <- function(i) {
    warnings <- list()
    res <- withCallingHandlers(
      tryCatch({
        set.seed(seeds[i])
        cv <- kc_cv_run(fit, d$x, d$y, fold, k, c(rows[[i]], args))
        kc_new_cv(cv, d$y, fold, k, fitter, NULL)[c("accuracy", "se", "fold_accuracy")]
      }, error = function(e) e),
      warning = function(w) {
        w$call <- NULL
        warnings[[length(warnings) + 1L]] <<- w  # the condition, with its classes
        invokeRestart("muffleWarning")
      })
    list(result = res, warnings = warnings)
  }
  out <- kc_tune_apply(seq_len(nrow(grid)), one)

  warns <- unlist(lapply(out, `[[`, "warnings"), recursive = FALSE)
  for (w in warns[!duplicated(vapply(warns, conditionMessage, character(1)))]) warning(w)
  for (i in seq_along(out)) {
    r <- out[[i]]$result
    if (inherits(r, "condition")) {
      r$message <- sprintf("Grid row %d (%s): %s", i, kc_grid_label(rows[[i]]),
                           conditionMessage(r))
      stop(r)
    }
  }
  acc <- vapply(out, function(o) o$result$accuracy, numeric(1))
  sds <- vapply(out, function(o) stats::sd(o$result$fold_accuracy, na.rm = TRUE), numeric(1))
  se <- vapply(out, function(o) o$result$se, numeric(1))
  results <- grid
  results$accuracy <- acc
  results$sd <- sds
  results$se <- se
  best <- which.max(acc)  # the first best row on ties
  model <- do.call(fit, c(list(d$x, d$y), rows[[best]], args))
  call <- match.call()
  # the refit's call as the user would write it, not with the data inlined
  model$call <- as.call(c(list(if (is.name(call$fit)) call$fit else as.name("fit"),
                               x = call$x, y = call$y), rows[[best]], args))
  structure(list(
    results = results,
    best = rows[[best]],
    best_index = best,
    best_accuracy = acc[best],
    model = model,
    fold = fold,
    folds = as.integer(k),
    loo = isTRUE(attr(k, "loo")),
    fitter = fitter,
    call = call),
    class = "kernel_tune")
}

# Run f over i on two cores where possible (fork, Unix), each worker on one
# kernel thread; sequentially otherwise, leaving the caller's RNG state as the
# parallel run leaves it.
kc_tune_apply <- function(i, f) {
  cores <- getOption("kernclass.tune.cores", 2L)
  # a string or NA would be coerced by mclapply() with a bare warning or error
  kc_check_number(cores, "kernclass.tune.cores", lower = 1, whole = TRUE)
  if (length(i) > 1L && .Platform$OS.type == "unix" && cores > 1L) {
    worker <- function(j) {
      options(kernclass.threads = 1L)
      f(j)
    }
    out <- parallel::mclapply(i, worker, mc.cores = cores, mc.set.seed = FALSE)
    failed <- vapply(out, function(o) inherits(o, "try-error") || is.null(o), logical(1))
    if (!any(failed)) return(out)
    # a worker died (not an R error, which f catches): run those rows here
    for (j in which(failed)) out[[j]] <- kc_tune_seq(i[j], f)[[1L]]
    return(out)
  }
  kc_tune_seq(i, f)
}

kc_tune_seq <- function(i, f) {
  has_seed <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  if (has_seed) old <- get(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (has_seed) assign(".Random.seed", old, envir = globalenv()))
  lapply(i, f)
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
  cat(sprintf("Best: %s (row %d), accuracy %.2f%%\n", kc_grid_label(x$best), x$best_index,
              100 * x$best_accuracy))
  invisible(x)
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
  ord <- order(-object$results$accuracy, seq_len(nrow(object$results)))
  structure(list(
    fitter = object$fitter, call = object$call, loo = object$loo, folds = object$folds,
    table = object$results[ord, , drop = FALSE],
    best = object$best, best_index = object$best_index, best_accuracy = object$best_accuracy,
    model = summary(object$model)),
    class = "summary.kernel_tune")
}

#' @export
print.summary.kernel_tune <- function(x, ...) {
  cat("Parameter tuning of ", x$fitter, "\n\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  how <- if (x$loo) "leave-one-out" else sprintf("%d-fold, stratified", x$folds)
  cat(sprintf("Folds: %s\n", how))
  cat(sprintf("Best: %s (row %d), accuracy %.2f%%\n\n", kc_grid_label(x$best), x$best_index,
              100 * x$best_accuracy))
  cat("Results, best first (accuracy: mean over folds; sd: of the fold accuracies):\n")
  print(utils::head(x$table, 20L), digits = 4)
  if (nrow(x$table) > 20L) cat(sprintf("... and %d more rows\n", nrow(x$table) - 20L))
  cat("\nModel refitted on all data with the best parameters:\n\n")
  print(x$model)
  invisible(x)
}

#' Heat map of cross-validated accuracy over two parameters
#'
#' Draws the mean cross-validated accuracy of a [kernel_tune()] grid as a
#' heat map (base graphics [graphics::image()]) over two parameters, with the
#' best cell marked. A parameter that is positive and spans more than a
#' factor 100 is drawn on a log axis. Where the grid varies other parameters
#' too, each cell shows the best accuracy over them. With only one varying
#' parameter, the accuracy is drawn against it as a line.
#'
#' @param x A `"kernel_tune"` object.
#' @param params The names of the (one or) two parameters to draw; default,
#'   the first two numeric grid columns that take more than one value.
#' @param col Colours of the heat map, from low to high accuracy.
#' @param main Title.
#' @param ... Further arguments to [graphics::image()] (or
#'   [graphics::plot()] for one parameter).
#' @return `x`, invisibly.
#' @export
#' @examples
#' set.seed(1)
#' tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species,
#'                      grid = list(cost = c(0.1, 10, 1000), gamma = c(0.01, 1, 100)),
#'                      folds = 3)
#' plot(tuned)
plot.kernel_tune <- function(x, params = NULL, col = grDevices::hcl.colors(24, "YlOrRd", rev = TRUE),
                             main = "Cross-validated accuracy", ...) {
  res <- x$results
  gcols <- setdiff(names(res), c("accuracy", "sd", "se"))
  varying <- gcols[vapply(gcols, function(nm) {
    is.numeric(res[[nm]]) && length(unique(res[[nm]])) > 1L
  }, logical(1))]
  if (is.null(params)) params <- utils::head(varying, 2L)
  if (!is.character(params) || !length(params) || length(params) > 2L ||
      !all(params %in% gcols) || !all(vapply(res[params], is.numeric, logical(1)))) {
    kc_abort(sprintf("`params` must name one or two numeric grid columns, e.g. %s.",
                     kc_enum(if (length(varying)) varying else gcols)), arg = "params")
  }
  axis_of <- function(nm) {
    v <- sort(unique(res[[nm]]))
    log <- all(v > 0) && max(v) / min(v) > 100
    list(values = v, at = if (log) log10(v) else v, log = log,
         label = if (log) paste(nm, "(log scale)") else nm)
  }
  ax <- lapply(params, axis_of)
  if (length(params) == 1L) {
    acc <- tapply(res$accuracy, factor(res[[params]], levels = ax[[1]]$values), max)
    graphics::plot(ax[[1]]$at, acc, type = "b", pch = 19, xaxt = "n", xlab = ax[[1]]$label,
                   ylab = "accuracy", main = main, ...)
    graphics::axis(1, at = ax[[1]]$at, labels = format(ax[[1]]$values, digits = 3))
    return(invisible(x))
  }
  z <- tapply(res$accuracy, list(factor(res[[params[1]]], levels = ax[[1]]$values),
                                 factor(res[[params[2]]], levels = ax[[2]]$values)), max)
  # image() needs increasing coordinates; unequal spacing is drawn as given
  at1 <- ax[[1]]$at
  at2 <- ax[[2]]$at
  graphics::image(at1, at2, z, col = col, xaxt = "n", yaxt = "n", xlab = ax[[1]]$label,
                  ylab = ax[[2]]$label, main = main, ...)
  graphics::axis(1, at = at1, labels = format(ax[[1]]$values, digits = 3))
  graphics::axis(2, at = at2, labels = format(ax[[2]]$values, digits = 3))
  cells <- which(!is.na(z), arr.ind = TRUE)
  zr <- range(z, na.rm = TRUE)
  dark <- z[cells] > zr[1] + 0.6 * diff(zr)  # light text on the dark (high) cells
  graphics::text(at1[cells[, 1]], at2[cells[, 2]], sprintf("%.3f", z[cells]), cex = 0.8,
                 col = ifelse(dark, "white", "black"))
  b <- x$best
  bi <- match(b[[params[1]]], ax[[1]]$values)
  bj <- match(b[[params[2]]], ax[[2]]$values)
  graphics::points(at1[bi], at2[bj], pch = 0, cex = 4, lwd = 2, col = "deepskyblue")
  invisible(x)
}
