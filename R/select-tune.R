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
#'   [future::plan()] and number of workers. (The shared SVM paths below
#'   draw no random numbers and get no streams; under the sequential plan
#'   they run without futures around them.) `set.seed()` before the call
#'   reproduces everything.
#'
#' @section Where it runs: The units of work are the folds of each grid row
#'   (for [kernel_svm()], the folds of each kernel setting, which serve all
#'   its `cost` values; for the other fitters, the folds of the grid rows
#'   that differ only in `gamma`; for exact leave-one-out, a whole grid
#'   row). They are
#'   futures ([future.apply::future_lapply()]), so [future::plan()] decides
#'   where they run: one after the other in this R session (the default,
#'   `plan(sequential)`, with the kernel engine's threads inside each fit),
#'   or on the workers of `plan(multisession)`, `plan(multicore)`,
#'   `plan(cluster)` or a scheduler (future.batchtools). Workers run the
#'   engine on one thread each (see [kernclass_threads()]). Results never
#'   depend on the plan. The shared SVM paths (below) run here on the
#'   engine's threads under local workers (`multisession`, `multicore`),
#'   as fast as the workers would and without shipping the data; on other
#'   machines (`plan(cluster)`, future.mirai, future.batchtools) as one
#'   future per worker per round, the data sent to each worker once: a race
#'   pays a round trip per fold, the screened search (`search = "screen"`)
#'   one for the whole grid. How to set up each: [kernclass-parallel].
#'   Warnings from the units are passed on once each.
#'   Progress is reported through progressr as one bar of folds x grid
#'   rows steps, each unit of work (a shared SVM path's call: its kernel
#'   settings' costs on the folds) advancing it by the folds and rows it
#'   covers when it ends (a race counts a dropped row's remaining folds
#'   when it drops it): silent unless a handler is enabled
#'   (`progressr::handlers(global = TRUE)` or `progressr::with_progress()`);
#'   `progressr::handlers("progress")` or `"cli"` show its ETA. The option
#'   `kernclass.tune.cores` is
#'   deprecated: it warns and is ignored.
#'
#' @section Shared work across costs: For [kernel_svm()], the grid rows that
#'   differ only in `cost` are fitted as one path, in increasing `cost`: each
#'   fit starts from the previous solution moved into the new box (variables
#'   at the bound to the new bound, the rest kept, then made feasible) and
#'   runs until the KKT conditions hold within its tolerance (below), so its
#'   solution is a cold start's within that tolerance. Not with
#'   `probability = TRUE` or probability metrics.
#'
#'   With dense inputs (a matrix or data frame), the `"rbf"` or `"laplace"`
#'   kernel and C-classification, one unit of work (and one call into C)
#'   runs a kernel setting's costs on all the folds. With `scale = FALSE`
#'   the kernel matrix of all \eqn{n} rows is computed once, in double, and
#'   every fold's class pairs are blocks of it; with `scale = TRUE` (or a
#'   single fold, as a race runs them) each fold's rows are scaled by its
#'   training rows' statistics, as that fold's own fit scales them, and each
#'   class pair's block is computed for its fold. The block is held as the
#'   solver's single-precision rows, and the held-out rows' kernel beside it
#'   gives their decision values for every cost. The fits, classes and
#'   decision values are those of fitting each fold on its own.
#'
#'   Run in the session (the sequential plan), each class pair of each
#'   kernel setting on each fold is a unit of work (its costs one chain of
#'   warm starts), and the units run side by side on the engine's threads
#'   (`options(kernclass.threads =)`), each on one thread. All the kernel
#'   settings (a race: those of its fold) run in one call, the progress bar
#'   moving as each unit finishes. The results are the same for any number
#'   of threads.
#'
#'   Memory: this takes \eqn{4 m^2 + 8 t m} bytes per thread fitting
#'   (\eqn{m} the training rows of the largest class pair, \eqn{t} the rows
#'   of the largest fold), with `scale = FALSE` on several folds also
#'   \eqn{8 n^2} for the whole kernel, and with `scale = TRUE` a scaled
#'   copy of the inputs per fold (\eqn{8 n p} bytes each); it runs only
#'   within the budget
#'   `getOption("kernclass.tune.store_mb", 512)` megabytes: with the default
#'   and 5 folds, up to about 6,700 rows of two classes with `scale = FALSE`
#'   and about 11,000 with `scale = TRUE` (20 inputs), and with as many
#'   threads fitting as the budget holds. Beyond it, and for
#'   other kernels, sparse rows, kernel values or functions, `approx`, the nu
#'   types and probabilities, each fold is fitted on its own, keeping the
#'   kernel rows of its training points (\eqn{4 m^2} bytes) for every cost
#'   while they fit in the same budget, and the held-out decision values of
#'   all costs come from one kernel expansion. Weights and class weights
#'   are taken either way. Under [future::plan()] with workers, each worker
#'   holds the memory of the unit it runs.
#'
#' @section Shared work across gammas: For [kernel_means()],
#'   [kernel_parzen()] and [kernel_bayes()], the grid rows that differ only in
#'   a numeric `gamma` are fitted together on each fold. None of their inputs
#'   depends on `gamma` (the scaled rows, the class weights, the whitened
#'   points of `kernel_bayes()`), so each kernel sum the first row's fit and
#'   prediction need is computed for all the gammas at once: one tile of inner
#'   products or squared distances, each gamma's kernel values from it. The
#'   values, and so the models, classes, probabilities and decision values,
#'   are those of each row fitted alone, bit for bit. A sum whose weights
#'   depend on the row (a threshold search that turned the rule round, or
#'   `kernel_parzen()`'s searched prior) is computed for its row alone, and
#'   what is kept on a fold stays within the budget
#'   `getOption("kernclass.tune.store_mb", 512)` megabytes (past it, each row
#'   computes its own). This saves the inner products of all but one gamma
#'   (and for `kernel_bayes()` the covariances and whitening, computed once
#'   for identical inputs). Measured on one thread (2026-11-27,
#'   `inst/benchmarks/run.R --only gammas`: 10 gammas
#'   \eqn{2^{-9}, \ldots, 2^0}{2^-9, ..., 2^0}, 5 folds, 5,000 rows of two
#'   classes, `scale = TRUE`), the searches of the three classifiers ran
#'   1.46-1.54 times as fast as with each row fitted alone on 20 inputs and
#'   1.76-2.70 times on 100, with identical results; what is left is mostly
#'   the kernel values themselves, one exponential per pair and gamma.
#'
#' @section Screen loosely, decide exactly: With `search = "screen"` or
#'   `"race"` (the default) and [kernel_svm()], every grid row is
#'   cross-validated with the
#'   SMO solver stopped once the KKT conditions hold within
#'   `screen_tolerance` (0.1) instead of the fit's `tolerance` (1e-3 unless
#'   given in `...`; with `approx = nystrom()` or `random_fourier()` the
#'   linear SVM's 0.1, so that their search is exhaustive unless
#'   `screen_tolerance` is larger): a looser solve, several times fewer
#'   iterations, whose
#'   out-of-fold predictions rank the rows about as the exact ones do. The
#'   numbers in `results` are then these screening estimates (`status`
#'   "screened"; a raced row dropped early, "dropped after f of k folds"),
#'   not the cross-validated accuracy of exact fits. Only the
#'   best row is solved exactly: `model` is `kernel_svm()` refitted on all
#'   data with the best parameters and the arguments in `...`, at the fit's
#'   own tolerance, the same model (and `call`) as that `kernel_svm()` call
#'   gives. `search = "exhaustive"` cross-validates every row at the fit's
#'   tolerance (`status` "exact"), for per-row figures of exact fits. Other
#'   fitters solve no optimisation to a tolerance: their search is always
#'   exhaustive; so is kernel_svm's when `tolerance` is a grid column or is
#'   at least `screen_tolerance`. `print()` and `summary()` say which search
#'   made the numbers, and where the choice is the grid's smallest or
#'   largest value of a numeric parameter it varies (the best values may
#'   lie beyond the grid); [plot.kernel_tune()] notes both and marks the
#'   rows a race dropped. `predict()` predicts with `model`
#'   ([predict.kernel_tune()]).
#'
#' @section Racing (the default): `search = "race"` screens as `"screen"`
#'   does (for [kernel_svm()]; other fitters' rows as they are fitted) and
#'   races the rows over the folds by successive halving: every row is
#'   cross-validated on fold 1; after each fold, the better half of the rows
#'   still running (by `metric` over the folds so far; rows tied with the
#'   last kept, and at least two) go on to the next fold. The rows that ran
#'   every fold are finished (`folds_run` k), and the best of them is chosen
#'   and refitted. A dropped row keeps the figures of the folds it ran: its
#'   `folds_run` says how many (f), its `status` "dropped after f of k
#'   folds", and `summary()` lists it after every finished row; it is never
#'   chosen. With 5 folds and 25 rows, 51 of the 125 fits run (more where
#'   rows tie). Not with leave-one-out or fewer than 3 folds: then the search
#'   is `"screen"` (for [kernel_svm()]) or exhaustive. The folds run one
#'   after another, each a short round of work: on a cluster each round
#'   waits for its futures ([kernclass-parallel]).
#'
#'   The race can drop the row an exhaustive search would choose, after a
#'   fold on which it ranked in the worse half. What it returns is then
#'   another row that stayed in the better half on every fold; on the
#'   package's synthetic benchmarks (two classes, 20 inputs; grids of 25 and
#'   100 rows on 2,000 to 20,000 points: `inst/benchmarks/run.R --only
#'   tune` and the same default grid at 20,000 points, 2026-11-27) its
#'   exact cross-validated accuracy was within 0.03 points of the
#'   exhaustive search's best (a tie or the same row), and its accuracy on
#'   fresh data within 0.1 points. Give `search = "exhaustive"` for the
#'   exact figures of every row.
#'
#' @section Default grid: With `grid = NULL` (the default) and [kernel_svm()]
#'   (C-classification), the grid is made from the data: 10 costs,
#'   geometric from 50/n to 500 for n rows (rounded to 2 significant
#'   digits), and, for a kernel with a gamma that is not given in `...`, 10
#'   gammas from 2^-6 to 2^3 times [estimate_gamma()]'s median heuristic on
#'   the data, scaled as the fit scales them (rounded to 3 digits): 100
#'   rows, costs varying fastest. `print()` shows it. Other fitters and the
#'   nu types need a `grid`.
#'
#' @section Best parameters: The best row is the one with the best
#'   cross-validated `metric` (the highest accuracy, balanced accuracy or AUC;
#'   the lowest log-loss or Brier score) among the rows that ran every fold
#'   (a race's finished rows); on ties (equal figures: for accuracy, as many
#'   held-out rows predicted right), the first such row of the grid. So order
#'   the grid from the simplest model to the most complex to prefer simple
#'   models on ties (the default grid varies cost fastest, smallest first).
#'
#' @inheritParams kernel_cv
#' @param grid The parameter values: a data frame with one column per
#'   argument of `fit` (for example `cost`, `gamma`, `degree`, `coef0`,
#'   `kernel`, `type`) and one row per combination, or a named list of
#'   vectors, expanded to all combinations with [expand.grid()]. Arguments
#'   that take vectors (such as `prior` or `class.weights`) can be list
#'   columns of a data frame. `NULL` (the default): for [kernel_svm()], a
#'   grid made from the data (see "Default grid"); other fitters need one.
#' @param folds The number of folds (default 5, as [kernel_cv()]'s), or
#'   `"loo"` (with the exact shortcut of [kernel_cv()] where it applies).
#' @param ... Further arguments to `fit`, the same for every grid row; they
#'   must not repeat a grid column.
#' @param metric What the grid rows are judged by; see [kernel_cv()].
#' @param weights Observation weights for fitters that take them
#'   ([kernel_svm()]): one per row of `x`, split with the folds (each fit
#'   gets its training rows' weights) and given to the final refit. The
#'   metrics count every held-out row once.
#' @param search `"race"` (the default): for [kernel_svm()] screened as
#'   `"screen"`, and the rows raced over the folds, the worse half dropped
#'   after each fold; `"screen"`: for [kernel_svm()], cross-validate every
#'   row on every fold at the looser `screen_tolerance` and solve only the
#'   chosen row exactly; `"exhaustive"`: every row on every fold at the
#'   fit's tolerance. See "Screen loosely, decide exactly" and "Racing".
#' @param screen_tolerance The SMO solver's stopping tolerance for the
#'   screening fits (default 0.1); at most the fit's `tolerance` makes the
#'   search exhaustive.
#' @return An object of class `"kernel_tune"`: a list with `results` (the
#'   grid with columns `accuracy`, the cross-validated accuracy (the share
#'   of rows predicted correctly out of fold, as in [kernel_cv()]), the
#'   `metric`'s column where it is not accuracy, `sd`, the standard
#'   deviation of the metric over the folds, `se`, `folds_run`, the number of
#'   folds these figures are from (all k, or the f a race ran before it
#'   dropped the row), and `status`: "screened" for screening estimates,
#'   "exact" for fits at the fit's tolerance, "dropped after f of k folds"
#'   for rows a race dropped (their figures from those f folds, screening
#'   estimates where the search screened)),
#'   `best` (the row of
#'   the grid with the best metric, as a list of arguments), `best_index`,
#'   `best_accuracy` and `best_value` (its accuracy and metric), `metric`,
#'   `search` ("race", "screen" or "exhaustive": the search that made
#'   `results`),
#'   `tolerance` (for a screened search, the screening and the fit's
#'   tolerance), `default_grid` (how a default grid was made; `NULL` for a
#'   given grid), `model` (the fitter's model refitted on all data with the
#'   best arguments, as the fitter's own call would fit it: from the formula
#'   method through the fitter's formula method, so that `update()` and
#'   `predict()` of new data work as for a direct fit), `fold` (the fold of each row of `x`),
#'   `best_predictions` (the best row's out-of-fold `predicted` classes, and
#'   `prob` or `decision` where the metric uses them, with the classes `y`:
#'   what [conformal()] and [calibration_curve()] read), `folds`, `fitter`,
#'   `settings` (the best row's, as in [kernel_cv()]) and `call`. It has `print()`, `summary()` and `plot()` methods.
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
#' # the default grid, and every row solved exactly
#' set.seed(1)
#' kernel_tune(kernel_svm, Species ~ Petal.Length + Petal.Width, data = iris, folds = 3,
#'             search = "exhaustive")
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
kernel_tune.default <- function(fit, x, y, grid = NULL, folds = 5, ..., metric = "accuracy",
                                weights = NULL, search = c("race", "screen", "exhaustive"),
                                screen_tolerance = 0.1) {
  kc_require(missing(y), "y", "the class labels")
  tuned <- kc_tune_grid(fit, kc_fitter_name(substitute(fit)), x, y, grid, folds, list(...),
                        metric, weights, search, screen_tolerance)
  out <- tuned$result
  r <- tuned$refit
  out$model <- do.call(fit, c(list(r$x, r$y), out$best, r$args,
                              if (!is.null(r$weights)) list(weights = r$weights)))
  call <- kc_call(match.call(), "kernel_tune")
  # the refit's call as the user would write it, not with the data inlined
  out$model$call <- as.call(c(list(kc_fitter_symbol(call$fit, fit), x = call$x, y = call$y),
                              out$best, r$args,
                              if (!is.null(r$weights)) list(weights = call$weights)))
  out$call <- call
  out
}

# The search of kernel_tune(): the "kernel_tune" object without its model
# (`result`, whose `model` and `call` the methods fill in), and what the
# default method's refit takes (`refit`: the coded data, the arguments, the
# weights).
kc_tune_grid <- function(fit, fitter, x, y, grid, folds, args, metric, weights, search,
                         screen_tolerance) {
  kc_check_fitter(fit)
  kc_check_tune_foreign(fit, names(args))
  kc_tune_cores_option()
  kc_tune_budget()  # a bad kernclass.tune.store_mb stops here, not inside a grid row
  metric <- kc_check_metric(metric)
  grid_text <- NULL
  if (is.null(grid)) {
    default <- kc_default_grid(fit, x, args)
    grid <- default$grid
    grid_text <- default$text
  }
  grid <- kc_check_grid(grid, fit, args)
  args <- kc_metric_args(metric, fit, args, names(grid))
  d <- kc_cv_data(x, y, args$kernel)
  w <- kc_cv_weights(weights, fit, length(d$y))
  k <- kc_check_folds(folds, d$y)
  how <- kc_tune_search(search, screen_tolerance, fit, grid, args, k)
  fold <- kc_cv_folds(d$y, k)
  rows <- lapply(seq_len(nrow(grid)), function(i) kc_grid_row(grid, i))
  # the selection problem (R/select.R): the grid rows, with the screening
  # tolerance where the search screens
  sel <- kc_selection(fit, d, w, fold, k, rows, kc_tune_cv_args(how, args), metric)
  # the search: every row's out-of-fold predictions, and the fold after
  # which a race dropped it; one progress bar over the folds x grid rows
  # (silent unless a progressr handler is enabled)
  progress <- progressr::progressor(steps = as.integer(k) * length(rows))
  searched <- kc_searches[[how$mode]]$run(sel, progress)
  res <- searched$res
  dropped <- searched$dropped
  # every row's figures: over all the folds, or for a row a race dropped
  # over the folds it ran (fold 1 to dropped[i])
  K <- as.integer(k)
  ran <- ifelse(is.na(dropped), K, dropped)
  by_fold <- split(seq_along(d$y), factor(fold, levels = seq_len(K)))
  figures <- vapply(seq_along(res), function(i) {
    kc_tune_figures(res[[i]], d$y, fold, by_fold, ran[i], metric)
  }, numeric(4))
  acc <- figures["accuracy", ]
  value <- figures["value", ]
  results <- grid
  results$accuracy <- acc
  if (metric != "accuracy") results[[metric]] <- value
  results$sd <- figures["sd", ]
  results$se <- figures["se", ]
  results$folds_run <- ran
  results$status <- ifelse(is.na(dropped), if (is.null(how$tolerance)) "exact" else "screened",
                           sprintf("dropped after %d of %d folds", dropped, K))
  # the best of the rows that ran every fold; on ties, the first in grid order
  done <- which(is.na(dropped))
  v <- value[done]
  best <- done[if (kc_metrics[[metric]]$larger) which.max(v) else which.min(v)]
  if (!length(best)) {
    kc_abort(sprintf("The cross-validated %s is NA for every grid row (%s needs both classes in every fold); use fewer folds.",
                     kc_metrics[[metric]]$label, kc_metrics[[metric]]$label), arg = "metric")
  }
  result <- structure(list(
    results = results,
    best = rows[[best]],
    best_index = best,
    best_accuracy = acc[best],
    best_value = value[best],
    metric = metric,
    search = how$mode,
    tolerance = if (!is.null(how$tolerance)) {
      c(screen = how$tolerance, fit = how$fit_tolerance[[best]])
    },
    default_grid = grid_text,
    model = NULL,
    fold = fold,
    best_predictions = c(res[[best]][c("predicted", "prob", "decision")], list(y = d$y)),
    folds = as.integer(k),
    loo = isTRUE(attr(k, "loo")),
    fitter = fitter,
    settings = kc_cv_settings(fit, c(rows[[best]], args)),
    call = NULL),
    class = "kernel_tune")
  list(result = result, refit = list(x = d$x, y = d$y, args = args, weights = w))
}

# A grid row's figures c(accuracy, value, sd, se) from its out-of-fold
# predictions `r` on folds 1 to `ran` (all k, or those a race ran before it
# dropped the row): kernel_cv()'s (kc_fold_figures()) over the rows of
# those folds, by their indices (by_fold: the rows of each fold, in order),
# not a copy of them (the same values, a tenth of the time; 25 rows a search).
kc_tune_figures <- function(r, y, fold, by_fold, ran, metric) {
  seen <- if (ran < length(by_fold)) which(fold <= ran) else seq_along(y)
  f <- kc_fold_figures(r, y, by_fold[seq_len(ran)], metric, seen)
  c(accuracy = f$accuracy, value = f$value, sd = stats::sd(f$fold_value, na.rm = TRUE), se = f$se)
}

#' @rdname kernel_tune
#' @param data,subset,na.action For the formula method: the data frame, an
#'   optional subset of its rows, and the handling of missing values, as in
#'   [stats::model.frame()]; `weights` is then looked up in `data` too.
#' @export
kernel_tune.formula <- function(fit, x, data = NULL, grid = NULL, folds = 5, ..., subset,
                                na.action, metric = "accuracy", weights = NULL,
                                search = c("race", "screen", "exhaustive"),
                                screen_tolerance = 0.1) {
  mf <- kc_tune_frame(match.call(expand.dots = FALSE), parent.frame())
  call <- kc_call(match.call(), "kernel_tune")
  # a kernclass fitter's model is refitted through its formula method, as
  # the user would call it (update() and predict() of transformed inputs
  # then work), with the chosen parameters and the arguments in `...`
  if (is.null(kc_fitter_default(fit))) {
    out <- kernel_tune.default(fit, mf$x, mf$y, grid = grid, folds = folds, ...,
                               metric = metric, weights = mf$weights, search = search,
                               screen_tolerance = screen_tolerance)
  } else {
    tuned <- kc_tune_grid(fit, kc_fitter_name(substitute(fit)), mf$x, mf$y, grid, folds,
                          list(...), metric, mf$weights, search, screen_tolerance)
    out <- tuned$result
    given <- as.list(call)[c("data", "subset", "na.action", "weights")]
    given <- given[!vapply(given, is.null, logical(1))]
    refit <- as.call(c(list(kc_fitter_symbol(call$fit, fit), call$x), given, out$best,
                       tuned$refit$args))
    run <- refit
    run[[1L]] <- fit
    out$model <- eval(run, parent.frame())
    out$model$call <- refit
  }
  out$fitter <- kc_fitter_name(substitute(fit))
  out$call <- call
  out
}

# The fitter as the refitted model's call names it: a kernclass fitter by its
# name (however `fit` was written: kernclass::kernel_svm), another function
# by the user's symbol, else as `fit`.
kc_fitter_symbol <- function(expr, fit) {
  def <- kc_fitter_default(fit)
  if (!is.null(def)) return(as.name(def$name))
  if (is.name(expr)) expr else as.name("fit")
}

# kernclass.tune.cores chose the workers of kernel_tune() before it followed
# future::plan(); set, it only warns.
kc_tune_cores_option <- function() invisible(kc_option("kernclass.tune.cores"))

kc_grid_row <- function(grid, i) {
  lapply(stats::setNames(names(grid), names(grid)), function(nm) {
    v <- grid[[nm]][[i]]
    if (is.factor(v)) as.character(v) else v
  })
}

kc_grid_label <- function(row) {
  paste(vapply(names(row), function(nm) {
    v <- row[[nm]]
    sprintf("%s = %s", nm, if ((is.atomic(v) && length(v) == 1L) ||
                                 inherits(v, "kernclass_approximation")) format(v) else "<value>")
  }, character(1)), collapse = ", ")
}

# e1071's tune() arguments that `fit` does not take, named before any grid
# row runs (the fitters name their own foreign arguments, kc_check_dots()).
kc_check_tune_foreign <- function(fit, nm) {
  def <- kc_fitter_default(fit)
  taken <- names(formals(if (is.null(def)) fit else def$fun))
  kc_check_foreign_args(setdiff(intersect(nm, c("ranges", "tunecontrol")), taken))
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
