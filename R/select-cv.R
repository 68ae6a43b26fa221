#' Cross-validated accuracy of a kernclass classifier
#'
#' Estimates the accuracy of a classifier on new data by stratified k-fold
#' cross-validation or by leave-one-out: the model is fitted on all folds but
#' one and predicts the held-out fold, for every fold in turn.
#'
#' @section Folds: The folds are stratified: within each class the rows are
#'   put in random order with [sample()] and dealt out to the folds in turn,
#'   continuing from one class to the next. So every fold holds a share of
#'   each class that differs from the ideal share by less than one row, and
#'   fold sizes differ by at most one. `set.seed()` before the call
#'   reproduces the folds (and everything else). `folds` may exceed the size
#'   of the smallest class (up to `n`, the number of rows): some test folds
#'   then lack that class, but every training set still holds each class,
#'   since every class must have at least two rows. `folds = "loo"` leaves
#'   out one row at a time (in row order, no random numbers); `folds = n` is
#'   the same partition in random order.
#'
#' @section Accuracy: `accuracy` is the overall out-of-fold accuracy, the
#'   share of all rows predicted correctly, which is the mean of the per-fold
#'   accuracies weighted by fold size. `se` is its standard error estimated
#'   from the spread of the fold accuracies, `sd(fold accuracies) /
#'   sqrt(folds)`.
#'
#' @section Exact leave-one-out: For [kernel_means()] and [kernel_parzen()]
#'   with `folds = "loo"`, the leave-one-out predictions come from one pass of
#'   kernel sums instead of `n` refits. With \eqn{S_c(x_i) = \sum_{j \in c,
#'   j \ne i} k(x_i, x_j)}{S_c(x_i) = sum_{j in c, j != i} k(x_i, x_j)}, the
#'   class sums without the point (summed without it, never the whole class
#'   less \eqn{k(x_i, x_i)}{k(x_i, x_i)}, which for a narrow kernel would
#'   leave only rounding), leaving out \eqn{x_i}{x_i} of class \eqn{c}{c}
#'   changes only its own class: \eqn{n_c}{n_c} loses one, and the squared
#'   norm of the class mean becomes \eqn{(D_c - k(x_i, x_i) + O_c - 2
#'   S_c(x_i)) / (n_c - 1)^2}{(D_c - k(x_i, x_i) + O_c - 2 S_c(x_i)) / (n_c -
#'   1)^2} with \eqn{D_c = \sum_{j \in c} k(x_j, x_j)}{D_c = sum_{j in c}
#'   k(x_j, x_j)} and \eqn{O_c = \sum_{j \in c} S_c(x_j)}{O_c = sum_{j in c}
#'   S_c(x_j)}, the off-diagonal sum. The default Parzen prior (the class
#'   proportions without \eqn{x_i}{x_i}) is handled exactly too. The result
#'   equals refitting up to rounding, for any `gamma`. The shortcut is used
#'   for the class metrics (accuracy, balanced accuracy) without `weights`. The
#'   shortcut is taken only when it is exact: `scale = FALSE` (a refit scales
#'   with the statistics of its own training rows), a numeric or default
#'   `gamma`, `threshold = "analytic"` and numeric inputs (no factor
#'   columns); otherwise the `n`
#'   models are refitted. `method` in the result says which was done.
#'
#' @param fit A kernclass fitter: [kernel_means], [kernel_parzen],
#'   [kernel_bayes] or [kernel_svm] (or any function `fit(x, y, ...)`
#'   returning a model with a `predict()` method that gives classes).
#' @param x The inputs, as the fitters' default methods take them: a numeric
#'   matrix, a numeric vector, a data frame, a sparse matrix, or with
#'   `kernel = "precomputed"` (in `...`) the n x n kernel matrix, whose folds
#'   are its sub-matrices, or with a kernel function its points; for the
#'   formula methods, a formula `class ~ inputs` (with `data`).
#' @param y The class labels, a factor (or character or logical vector).
#' @param folds The number of folds, a whole number from 2 to `nrow(x)`
#'   (default 5, as [kernel_tune()]'s and scikit-learn's `cross_val_score()`;
#'   e1071's `tune()` and caret's `trainControl()` use 10), or `"loo"` for
#'   leave-one-out.
#' @param ... Further arguments to `fit`, e.g. `kernel`, `gamma`, `cost`.
#' @param metric What is estimated: `"accuracy"` (default), `"bal_accuracy"`
#'   (the mean over the classes of the share of their rows predicted right),
#'   `"kappa"` (Cohen's kappa, \eqn{(p_o - p_e) / (1 - p_e)}{(p_o - p_e) / (1 - p_e)}
#'   with \eqn{p_o} the accuracy and \eqn{p_e = \sum_c n_c m_c / n^2}{p_e =
#'   sum_c n_c m_c / n^2} for \eqn{n_c} rows of class \eqn{c} and \eqn{m_c}
#'   predicted \eqn{c}; `NA` where both are one class),
#'   `"logloss"` (\eqn{-\mathrm{mean} \log p_{y_i}(x_i)} from `predict(type =
#'   "prob")`, probabilities below 1e-15 taken as 1e-15), `"brier"` (the mean
#'   over rows of \eqn{\sum_c (p_c(x_i) - [y_i = c])^2}) or `"auc"` (two
#'   classes: the area under the ROC curve of the decision values, the first
#'   level positive, ties counting one half). yardstick's names of the same
#'   quantities are taken too: `"kap"` (`"kappa"`), `"mn_log_loss"`
#'   (`"logloss"`), `"roc_auc"` (`"auc"`, two classes only); the result names
#'   the metric by its kernclass name. yardstick's `"brier_class"` is half of
#'   `"brier"`, so it is an error that says so, as are caret's `"Accuracy"`,
#'   `"Kappa"` and `"ROC"`. All are computed on the pooled
#'   out-of-fold predictions; `se` is from their spread over the folds.
#'   `kernel_svm()` gives probabilities with `probability = TRUE`, which
#'   `"logloss"` and `"brier"` turn on for it unless `probability` is given
#'   (in `...` or, for [kernel_tune()], in the grid).
#' @param weights Observation weights for fitters that take them
#'   ([kernel_svm()]): one per row, split with the folds.
#' @section Where it runs: The folds are futures, as in [kernel_tune()]:
#'   [future::plan()] decides where they run, each with its own parallel-safe
#'   random numbers, and results do not depend on the plan. Progress is one
#'   progressr bar of `folds` steps (as [kernel_tune()]'s of folds x grid
#'   rows), silent unless a handler is enabled
#'   (`progressr::with_progress()`; `progressr::handlers("progress")` shows
#'   its ETA).
#' @seealso [kernel_tune()] to cross-validate a grid of parameters.
#' @return An object of class `"kernel_cv"`: a list with `accuracy` (overall
#'   out-of-fold accuracy), `se`, `fold_accuracy` and `fold_size` (per fold),
#'   `folds` (their number), `loo` (whether leave-one-out), `fold` (the fold
#'   of each row), `metric`, `value` (the metric's estimate) and
#'   `fold_value` (per fold), `predicted` (the out-of-fold predictions, a
#'   factor: `predict()`'s classes, so the most probable class of a model
#'   with probabilities, see its `rule`), `prob` and `decision` (out-of-fold probabilities or decision
#'   values, where the metric uses them), `y`,
#'   `method` (`"refit"` or `"exact"`), `fitter` (the fitter's name),
#'   `settings` (`fitter`, the kernclass fitter's name, `NULL` for another
#'   function, and `args`, the arguments every fold's fit got: what
#'   [conformal()] and [recalibrate()] check a model against) and `call`. It has `print()` and `summary()` methods.
#' @export
#' @examples
#' set.seed(1)
#' cv <- kernel_cv(kernel_svm, iris[, 1:4], iris$Species, folds = 5, cost = 10)
#' cv
#' summary(cv)
#'
#' # exact leave-one-out from one pass of kernel sums (scale = FALSE)
#' kernel_cv(kernel_means, iris[, 3:4], iris$Species, folds = "loo",
#'           gamma = 2, scale = FALSE)
#'
#' # formula method; balanced accuracy
#' kernel_cv(kernel_parzen, Species ~ ., data = iris, folds = 5, metric = "bal_accuracy")
kernel_cv <- function(fit, x, ...) {
  kc_require(missing(fit), "fit", "a kernclass fitter such as kernel_svm")
  kc_require(missing(x), "x", "the inputs (or a formula class ~ inputs)")
  UseMethod("kernel_cv", x)
}

#' @rdname kernel_cv
#' @export
kernel_cv.default <- function(fit, x, y, folds = 5, ..., metric = "accuracy", weights = NULL) {
  kc_require(missing(y), "y", "the class labels")
  fitter <- kc_fitter_name(substitute(fit))
  kc_check_fitter(fit)
  metric <- kc_check_metric(metric)
  args <- kc_metric_args(metric, fit, list(...))
  d <- kc_cv_data(x, y, args$kernel)
  w <- kc_cv_weights(weights, fit, length(d$y))
  k <- kc_check_folds(folds, d$y)
  fold <- kc_cv_folds(d$y, k)
  res <- kc_grid_cv(kc_selection(fit, d, w, fold, k, list(list()), args, metric))[[1L]]
  kc_new_cv(res, d$y, fold, k, fitter, kc_call(match.call(), "kernel_cv"), metric,
            settings = kc_cv_settings(fit, args))
}

#' @rdname kernel_cv
#' @param data,subset,na.action For the formula method: the data frame, an
#'   optional subset of its rows, and the handling of missing values, as in
#'   [stats::model.frame()]; `weights` is then looked up in `data` too.
#' @export
kernel_cv.formula <- function(fit, x, data = NULL, folds = 5, ..., subset, na.action,
                              metric = "accuracy", weights = NULL) {
  mf <- kc_tune_frame(match.call(expand.dots = FALSE), parent.frame())
  call <- kc_call(match.call(), "kernel_cv")
  out <- kernel_cv.default(fit, mf$x, mf$y, folds = folds, ..., metric = metric,
                           weights = mf$weights)
  out$fitter <- kc_fitter_name(substitute(fit))
  out$call <- call
  out
}

# ---- helpers shared with kernel_tune() --------------------------------------

kc_fitter_name <- function(expr) {
  if (is.name(expr) || is.call(expr)) paste(deparse(expr, width.cutoff = 60L), collapse = "")
  else "fit"
}

# What a cross-validation records of the classifier it validated, for
# conformal() and recalibrate() to check a model against
# (kc_check_cv_settings(), R/model-conformal.R): the kernclass fitter's name
# (NULL for another function) and the arguments every fold's fit got.
kc_cv_settings <- function(fit, args) {
  list(fitter = kc_fitter_default(fit)$name, args = args)
}

kc_check_fitter <- function(fit) {
  if (!is.function(fit)) {
    kc_abort(paste0("`fit` must be a kernclass fitter function such as kernel_svm ",
                    "(not a call or a fitted model)."), arg = "fit")
  }
  invisible(fit)
}

# x as a matrix or data frame whose rows can be subset; y checked labels.
kc_cv_data <- function(x, y, kernel = NULL) {
  # sparse rows, kernel values, a kernel function's points: as the engine's
  # sources, whose rows can be subset without Matrix or copies (R/input-sources.R)
  if (kc_is_kernel_data(kernel)) {
    x <- kc_design_source(x, NULL, kernel, labels = FALSE)$x
  } else if (kc_is_sparse_input(x)) {
    x <- kc_as_csr(x)
  } else if (is.null(dim(x)) && (is.numeric(x) || is.logical(x))) {
    x <- matrix(x, ncol = 1L, dimnames = list(names(x), NULL))
  } else if (is.data.frame(x)) {
    # character columns take their levels from all rows, as factors do,
    # before the folds split them: every fold is then coded alike
    chr <- vapply(x, is.character, logical(1))
    x[chr] <- lapply(x[chr], factor)
  }
  d <- kc_design_xy(x, y, kernel = kernel)  # every check the fitters make on x and y
  counts <- tabulate(d$y, nlevels(d$y))
  if (any(counts < 2L)) {
    kc_abort(sprintf(paste0("`y` has class(es) %s with fewer than 2 rows: cross-validation ",
                            "needs every class in every training set."),
                     kc_enum(levels(d$y)[counts < 2L])), arg = "y")
  }
  list(x = x, y = d$y, all_numeric = all(d$scalable))
}

# The number of folds (n for "loo", with attribute loo = TRUE).
kc_check_folds <- function(folds, y) {
  n <- length(y)
  if (identical(folds, "loo")) return(structure(n, loo = TRUE))
  if (!is.numeric(folds) || length(folds) != 1L || is.na(folds) || folds != round(folds)) {
    kc_abort(sprintf('`folds` must be a whole number from 2 to %d (the number of rows) or "loo".',
                     n), arg = "folds")
  }
  if (folds < 2 || folds > n) {
    kc_abort(sprintf('`folds` must be from 2 to %d (the number of rows) or "loo"; got %s.',
                     n, format(folds)), arg = "folds")
  }
  structure(as.integer(folds), loo = FALSE)
}

# Stratified fold assignment: each class in random order, dealt out in turn.
kc_cv_folds <- function(y, k) {
  n <- length(y)
  if (isTRUE(attr(k, "loo"))) return(seq_len(n))
  fold <- integer(n)
  start <- 0L
  for (c in seq_len(nlevels(y))) {
    idx <- which(as.integer(y) == c)
    idx <- idx[sample.int(length(idx))]
    fold[idx] <- (start + seq_along(idx) - 1L) %% k + 1L
    start <- (start + length(idx)) %% k
  }
  fold
}

kc_rows <- function(x, rows) x[rows, , drop = FALSE]

# Observation weights split with the folds: only for fitters that take them.
kc_cv_weights <- function(weights, fit, n) {
  if (is.null(weights)) return(NULL)
  def <- kc_fitter_default(fit)
  formal <- names(formals(if (is.null(def)) fit else def$fun))
  if (!"weights" %in% formal) {
    kc_abort(sprintf("`weights` given, but %s takes no observation weights (kernel_svm does).",
                     if (is.null(def)) "`fit`" else paste0(def$name, "()")), arg = "weights")
  }
  kc_obs_weights(weights, n)
}

# The formula methods' model frame: x (the input columns as a data frame),
# y and the weights, evaluated as model.frame() does (lm()'s idiom).
kc_tune_frame <- function(mc, env) {
  if (is.null(mc$x) || !inherits(eval(mc$x, env), "formula")) {
    kc_abort("`x` must be a formula class ~ inputs for the formula method.", arg = "x")
  }
  keep <- c("", "x", "data", "subset", "na.action", "weights")
  mf <- mc[c(1L, match(keep[-1L], names(mc), 0L))]
  names(mf)[names(mf) == "x"] <- "formula"
  mf[[1L]] <- quote(stats::model.frame)
  mf$drop.unused.levels <- FALSE
  mf <- eval(mf, env)
  tt <- attr(mf, "terms")
  if (attr(tt, "response") == 0L) {
    kc_abort("The formula has no left-hand side: write class ~ inputs.", arg = "x")
  }
  # each main effect as its model-frame column (factors and characters then
  # coded by the fitters' default method as by their formula method); every
  # other term (interactions) as its coded columns, from all rows at once
  mm <- kc_model_matrix(tt, mf, arg = "data")
  factors <- attr(tt, "factors")
  x <- list()
  for (j in seq_along(attr(tt, "term.labels"))) {
    vars <- which(factors[, j] > 0)
    if (length(vars) == 1L) {
      x[[rownames(factors)[vars]]] <- mf[[vars]]
    } else {
      cols <- mm$x[, mm$assign == j, drop = FALSE]
      for (nm in colnames(cols)) x[[nm]] <- cols[, nm]
    }
  }
  names(x) <- gsub("^`|`$", "", names(x))
  x <- as.data.frame(x, check.names = FALSE, optional = TRUE)
  list(x = x, y = stats::model.response(mf), weights = stats::model.weights(mf))
}

# ---- the cross-validation engine ----------------------------------------------

# Cross-validates the selection problem `sel` (kc_selection(), R/select.R):
# its fitter for every argument list in its `cells` (each joined with its
# `args`) on its folds. The units of work (a fold of a cell; a fold
# of all the costs of one kernel setting of kernel_svm, sharing kernel rows
# and warm starts; a whole cell's exact leave-one-out) are futures:
# future::plan() decides where they run, each with its own parallel-safe
# seed (the SVM paths, which draw no random numbers, without), so that
# results do not depend on the plan. Returns, per cell, the
# out-of-fold `predicted` classes (and `prob`, `decision` where the metric
# needs them) and the `method`. run_folds: only these folds (the other
# rows' predictions NA). inputs: the paths' plans' coded and scaled inputs,
# made once (a race passes the same from fold to fold).
#
# progress: the call's progressr progressor, advanced by fold x grid row
# (kernel_tune()'s, over all its calls; NULL: one of this call's own, as
# kernel_cv()'s). Each unit of work advances it, when it ends, by the folds
# times the grid rows it covers; a path task's C code moves it as its
# units finish (kc_task_progress()).
kc_grid_cv <- function(sel, run_folds = NULL, inputs = new.env(parent = emptyenv()),
                       progress = NULL) {
  d <- sel$d
  k <- sel$k
  cells <- sel$cells
  needs <- sel$needs
  kc_check_metric_fit(sel$metric, d$y)
  loo <- isTRUE(attr(k, "loo"))
  n <- length(d$y)
  tasks <- list()
  exact <- logical(length(cells))
  if (loo && needs == "class" && is.null(sel$w) && is.null(run_folds)) {
    for (i in seq_along(cells)) {
      if (kc_loo_applies(sel$fit, d$x, c(cells[[i]], sel$args))) {
        exact[i] <- TRUE
        tasks[[length(tasks) + 1L]] <- list(kind = "exact", cells = i)
      }
    }
  }
  rest <- which(!exact)
  groups <- kc_path_groups(kc_selection_cells(sel, rest))
  runs <- if (is.null(run_folds)) seq_len(as.integer(k)) else run_folds
  # a group on all its folds at once where its path can (kc_paths' plan:
  # kernel_svm's costs, R/select-svm-path.R)
  path <- kc_fitter_path(sel$fit)
  plans <- lapply(groups, function(g) {
    if (!is.null(path$plan)) path$plan(kc_selection_cells(sel, rest[g]), runs, inputs)
  })
  shared <- !vapply(plans, is.null, logical(1))
  for (f in runs) {
    for (g in groups[!shared]) {
      tasks[[length(tasks) + 1L]] <- list(kind = "fold", fold = f, cells = rest[g])
    }
  }
  # run here, one call (their class pairs side by side on the threads, the
  # progress bar moving as they finish), or a share per worker of the plan:
  # kc_path_split(), R/select-futures.R
  path_task <- function(i) {
    members <- unlist(groups[i])
    list(kind = "path", folds = runs, cells = rest[members], plans = plans[i],
         groups = unname(split(seq_along(members), rep(seq_along(i), lengths(groups[i])))),
         units = sum(vapply(plans[i], path$units, numeric(1), runs = runs)))
  }
  tasks <- c(tasks, lapply(kc_path_split(which(shared), length(tasks)), path_task))
  # each unit's steps: the folds times the grid rows it covers
  for (t in seq_along(tasks)) {
    tasks[[t]]$steps <- length(tasks[[t]]$cells) *
      switch(tasks[[t]]$kind, exact = as.integer(k), path = length(runs), 1L)
  }
  # silent unless the user enables a progressr handler
  if (is.null(progress)) {
    progress <- progressr::progressor(steps = sum(vapply(tasks, `[[`, numeric(1), "steps")))
  }
  run <- kc_task_runner(progress, sel)
  # R/select-futures.R: here or futures, seeds or none; a race's next fold
  # runs on the same inputs
  out <- kc_run_tasks(tasks, run, keep = !is.null(run_folds) && max(runs) < as.integer(k))
  kc_relay(out, cells)

  none <- factor(rep(NA_character_, n), levels = levels(d$y))
  res <- lapply(seq_along(cells), function(i) {
    list(predicted = none,
         prob = if (needs == "prob") matrix(NA_real_, n, nlevels(d$y),
                                            dimnames = list(NULL, levels(d$y))),
         decision = if (needs == "decision") rep(NA_real_, n),
         method = if (exact[i]) "exact" else "refit")
  })
  for (o in out) {
    for (j in seq_along(o$task$cells)) {
      i <- o$task$cells[j]
      r <- o$result[[j]]
      res[[i]]$predicted[o$rows] <- r$predicted
      if (needs == "prob") res[[i]]$prob[o$rows, ] <- r$prob
      if (needs == "decision") res[[i]]$decision[o$rows] <- r$decision
    }
  }
  res
}

# The function each unit of work runs, its environment holding only what
# the units need (p, the progressor; sel, the selection problem): a future
# ships a function's environment with it, and kc_grid_cv()'s frame would
# send every kernel setting's inputs (all the tasks, the plans, their scaled
# copies) to every worker with every chunk.
kc_task_runner <- function(p, sel) {
  force(p)
  force(sel)
  function(task) {
    task$progress <- kc_task_progress(p, task$steps, task$units)
    out <- kc_run_task(task, sel)
    task$progress()
    out$task$progress <- NULL
    out
  }
}

# The fits of one fold for the cells of the selection problem `sel`
# (several only for a group of kc_path_groups(): the same settings but for
# the path's parameter, fitted by the path, R/select.R), predicting the
# rows `test`.
kc_fold_fits <- function(sel, test) {
  d <- sel$d
  w <- sel$w
  fit <- sel$fit
  cells <- sel$cells
  args <- sel$args
  needs <- sel$needs
  xtr <- kc_rows(d$x, -test)
  ytr <- d$y[-test]
  xte <- kc_rows(d$x, test)
  extra <- if (!is.null(w)) list(weights = w[-test])
  # an error names its own cell (kc_relay), not the first of the path (a
  # path that fits several cells at once names the cell it fails on)
  fit_cell <- function(j, more = NULL, fun = fit) {
    tryCatch(do.call(fun, c(list(xtr, ytr), cells[[j]], args, extra, more)),
             error = function(e) {
               if (is.null(e$kc_cell)) e$kc_cell <- j
               stop(e)
             })
  }
  if (length(cells) > 1L) return(kc_fitter_path(fit)$fold_fits(cells, fit_cell, xte, needs))
  list(kc_fold_predict(fit_cell(1L), xte, needs))
}

kc_fold_predict <- function(model, xte, needs) {
  r <- list(predicted = as.character(stats::predict(model, xte)))
  if (needs == "prob") r$prob <- as.matrix(stats::predict(model, xte, type = "prob"))
  if (needs == "decision") r$decision <- as.vector(stats::predict(model, xte, type = "decision"))
  r
}

# Whether the exact leave-one-out shortcut applies to these arguments.
kc_loo_applies <- function(fit, x, args) {
  def <- kc_fitter_default(fit)
  if (is.null(def) || !def$loo) return(FALSE)
  cl <- as.call(c(list(as.name("f"), x = NULL, y = NULL), args))
  a <- tryCatch(as.list(match.call(def$fun, cl))[-1L], error = function(e) NULL)
  if (is.null(a)) return(FALSE)  # let the refits report the problem
  if (!identical(a$scale, FALSE)) return(FALSE)
  if (!is.null(a$approx)) return(FALSE)  # the shortcut is the exact model's
  if (is.character(a$gamma)) return(FALSE)
  if (!is.null(a$threshold) && !identical(a$threshold, "analytic")) return(FALSE)
  if (is.data.frame(x) && !all(vapply(x, function(v) is.numeric(v) || is.logical(v),
                                      logical(1)))) return(FALSE)
  TRUE
}

# Exact leave-one-out for the fitters whose registry row has `loo`
# (kernel_means, kernel_parzen) where kc_loo_applies():
# the classes, from the classifier's kc_loo() method.
kc_loo_exact <- function(fit, x, y, args) {
  a <- as.list(match.call(kc_fitter_default(fit)$fun,
                          as.call(c(list(as.name("f"), x = NULL, y = NULL), args))))[-1L]
  model <- do.call(fit, c(list(x, y), args))
  if (model$threshold != "analytic" || !is.null(model$scaling)) {
    kc_abort("kernclass internal: the exact leave-one-out does not apply", input = FALSE)
  }
  kc_loo(model, default_prior = is.null(a$prior))
}

# The leave-one-out classes of a model's training rows, from one pass of
# kernel sums; each method sits beside its classifier (R/fit-means.R, R/fit-parzen.R).
# default_prior: the prior was not given, so it leaves the row out too.
# what = "prob": their probabilities instead (conformal(), recalibrate()).
kc_loo <- function(model, default_prior, what = "class") UseMethod("kc_loo")

# The figures of out-of-fold predictions `res` (kernel_cv()'s, and
# kernel_tune()'s per grid row): each fold's accuracy and metric (by_fold:
# the rows of each fold), the accuracy and metric over the rows `rows`, and
# the standard error of the folds' metric.
kc_fold_figures <- function(res, y, by_fold, metric, rows = seq_along(y)) {
  acc <- vapply(by_fold, function(i) kc_metric_value("accuracy", res, y, i), numeric(1))
  vals <- if (metric == "accuracy") acc else
    vapply(by_fold, function(i) kc_metric_value(metric, res, y, i), numeric(1))
  list(accuracy = kc_metric_value("accuracy", res, y, rows),
       value = kc_metric_value(metric, res, y, rows),
       fold_accuracy = unname(acc), fold_value = unname(vals),
       se = stats::sd(vals, na.rm = TRUE) / sqrt(sum(lengths(by_fold) > 0 & !is.na(vals))))
}

kc_new_cv <- function(res, y, fold, k, fitter, call, metric = "accuracy", settings = NULL) {
  K <- as.integer(k)
  by_fold <- split(seq_along(y), factor(fold, levels = seq_len(K)))
  f <- kc_fold_figures(res, y, by_fold, metric)
  structure(list(
    accuracy = f$accuracy,
    se = f$se,
    fold_accuracy = f$fold_accuracy,
    fold_size = lengths(by_fold, use.names = FALSE),
    metric = metric,
    value = f$value,
    fold_value = f$fold_value,
    folds = K,
    loo = isTRUE(attr(k, "loo")),
    fold = fold,
    predicted = res$predicted,
    prob = res$prob,
    decision = res$decision,
    y = y,
    method = res$method,
    fitter = fitter,
    settings = settings,
    call = call),
    class = "kernel_cv")
}

#' @export
print.kernel_cv <- function(x, ...) {
  cat("Cross-validation of ", x$fitter, "\n\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  how <- if (x$loo) "leave-one-out" else sprintf("%d-fold, stratified", x$folds)
  cat(sprintf("Folds: %s (%s)\n", how,
              if (x$method == "exact") "exact, from one pass of kernel sums" else "refitted"))
  if (!identical(x$metric, "accuracy") && !is.null(x$metric)) {
    cat(sprintf("Accuracy: %.2f%% on %d points\n", 100 * x$accuracy, length(x$y)))
    cat(sprintf("%s: %.4g (standard error %.4g)\n", kc_metric_title(x$metric), x$value, x$se))
  } else {
    cat(sprintf("Accuracy: %.2f%% (standard error %.2f%%) on %d points\n",
                100 * x$accuracy, 100 * x$se, length(x$y)))
  }
  invisible(x)
}

#' Summarise a cross-validation
#'
#' @param object A `"kernel_cv"` object from [kernel_cv()].
#' @param ... Not used.
#' @return An object of class `"summary.kernel_cv"`: the fitter, call, fold
#'   scheme, overall accuracy and its standard error, a table of the folds
#'   (size and accuracy), the confusion table of the out-of-fold predictions
#'   (actual by predicted) and the accuracy per class. Printing it shows them.
#' @export
#' @examples
#' set.seed(2)
#' s <- summary(kernel_cv(kernel_parzen, iris[, 1:4], iris$Species, folds = 3))
#' s
#' s$per_class
summary.kernel_cv <- function(object, ...) {
  kc_check_dots(...)
  confusion <- table(actual = object$y, predicted = object$predicted)
  structure(list(
    fitter = object$fitter, call = object$call, loo = object$loo, folds = object$folds,
    method = object$method, n = length(object$y),
    accuracy = object$accuracy, se = object$se,
    fold_table = data.frame(fold = seq_len(object$folds), size = object$fold_size,
                            accuracy = object$fold_accuracy),
    confusion = confusion,
    per_class = diag(confusion) / rowSums(confusion)),
    class = "summary.kernel_cv")
}

#' @export
print.summary.kernel_cv <- function(x, ...) {
  cat("Cross-validation of ", x$fitter, "\n\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  how <- if (x$loo) "leave-one-out" else sprintf("%d-fold, stratified", x$folds)
  cat(sprintf("Folds: %s (%s)\n", how, x$method))
  cat(sprintf("Accuracy: %.2f%% (standard error %.2f%%) on %d points\n",
              100 * x$accuracy, 100 * x$se, x$n))
  if (!x$loo) {
    cat("\nFolds:\n")
    print(x$fold_table, row.names = FALSE, digits = 4)
  }
  cat("\nAccuracy per class:\n")
  print(round(x$per_class, 4))
  cat("\nConfusion table (out-of-fold predictions):\n")
  print(x$confusion)
  invisible(x)
}
