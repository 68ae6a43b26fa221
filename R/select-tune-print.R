# kernel_tune()'s methods: print(), summary() and its print(), predict()
# with the refitted model (the search itself is select-tune.R's).

#' @export
print.kernel_tune <- function(x, ...) {
  cat("Parameter tuning of ", x$fitter, "\n\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  how <- if (x$loo) "leave-one-out" else sprintf("%d-fold, stratified", x$folds)
  cat(sprintf("Folds: %s, the same for all %d grid rows\n", how, nrow(x$results)))
  if (!is.null(x$default_grid)) cat("Grid: ", x$default_grid, "\n", sep = "")
  cat("Search: ", kc_tune_search_text(x), "\n", sep = "")
  cat(sprintf("Best: %s (row %d), %s\n", kc_grid_label(x$best), x$best_index,
              kc_tune_best_text(x)))
  cat(kc_tune_edge(x))
  invisible(x)
}

# Where the choice of a kernel_tune() is on its grid's edge (kc_grid_edge()
# over the grid's columns): NULL where it is not; else the line print() and
# summary() give after "Best:", or (short) the plots' note.
kc_tune_edge <- function(x, short = FALSE) {
  e <- kc_grid_edge(x$results[intersect(names(x$best), names(x$results))], x$best)
  if (!nzchar(e)) return(NULL)
  if (short) return(sprintf("the choice is on the grid's edge (%s)", e))
  sprintf("On the grid's edge: the %s\n  (%s)\n", e,
          kc_grid_edge_advice("kernel_tune()", length(strsplit(e, ", ", fixed = TRUE)[[1L]])))
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
  # rows that ran every fold first (a race's dropped rows' figures are from fewer)
  ran <- object$results$folds_run
  if (is.null(ran)) ran <- rep(0L, length(v))
  ord <- order(-ran, if (kc_metrics[[metric]]$larger) -v else v, seq_len(nrow(object$results)))
  structure(list(
    fitter = object$fitter, call = object$call, loo = object$loo, folds = object$folds,
    table = object$results[ord, , drop = FALSE],
    best = object$best, best_index = object$best_index, best_accuracy = object$best_accuracy,
    best_value = object$best_value, metric = object$metric,
    search = object$search, tolerance = object$tolerance, default_grid = object$default_grid,
    model = summary(object$model)),
    class = "summary.kernel_tune")
}

#' @export
print.summary.kernel_tune <- function(x, ...) {
  cat("Parameter tuning of ", x$fitter, "\n\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  how <- if (x$loo) "leave-one-out" else sprintf("%d-fold, stratified", x$folds)
  cat(sprintf("Folds: %s\n", how))
  if (!is.null(x$default_grid)) cat("Grid: ", x$default_grid, "\n", sep = "")
  cat("Search: ", kc_tune_search_text(x), "\n", sep = "")
  cat(sprintf("Best: %s (row %d), %s\n", kc_grid_label(x$best), x$best_index,
              kc_tune_best_text(x)))
  cat(kc_tune_edge(list(results = x$table, best = x$best)), "\n", sep = "")
  cat(sprintf("Results, best first (%s out of fold; sd: of the fold values%s):\n",
              kc_metrics[[if (is.null(x$metric)) "accuracy" else x$metric]]$label,
              if (identical(x$search, "race")) {
                ";\n  folds_run: the folds behind each row's figures, all of them first"
              } else ""))
  print(utils::head(x$table, 20L), digits = 4)
  if (nrow(x$table) > 20L) cat(sprintf("... and %d more rows\n", nrow(x$table) - 20L))
  cat("\nModel refitted on all data with the best parameters:\n\n")
  print(x$model)
  invisible(x)
}

#' Predict with the model a parameter search refitted
#'
#' `predict()` of a [kernel_tune()] result predicts with its `model`: the
#' fitter's model refitted on all the data with the best parameters. It is
#' `predict(x$model, newdata, ...)`, so that `type` (and for a kernclass
#' model every argument of [predict.kernclass()]) is passed on.
#'
#' @param object A `"kernel_tune"` object.
#' @param newdata New data, as the refitted model's `predict()` takes it
#'   (for a kernclass model, see [predict.kernclass()]); missing: the
#'   model's own training rows, as its `predict()` gives them.
#' @param ... Passed on to the model's `predict()`, e.g. `type = "prob"`.
#' @return What the refitted model's `predict()` returns.
#' @seealso [kernel_tune()]
#' @export
#' @examples
#' set.seed(1)
#' tuned <- kernel_tune(kernel_svm, Species ~ ., data = iris,
#'                      grid = list(cost = c(1, 10), gamma = c(0.1, 1)), folds = 3)
#' predict(tuned, iris[c(1, 51, 101), ])
#' predict(tuned, iris[c(1, 51, 101), ], type = "decision")
predict.kernel_tune <- function(object, newdata, ...) {
  if (is.null(object$model)) {
    kc_abort(paste0("This kernel_tune() result holds no refitted model (`model` is NULL) to ",
                    "predict with: refit the fitter with the best parameters (`best`), or run ",
                    "kernel_tune() again."), arg = "object", class = "no_model")
  }
  if (missing(newdata)) stats::predict(object$model, ...) else
    stats::predict(object$model, newdata, ...)
}
