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
#'   kernel sums instead of `n` refits. With \eqn{S_c(x_i) = \sum_{j \in c}
#'   k(x_i, x_j)}, leaving out \eqn{x_i} of class \eqn{c} changes only its own
#'   class: \eqn{S_c} loses \eqn{k(x_i, x_i)}, \eqn{n_c} loses one, and the
#'   squared norm of the class mean becomes \eqn{(T_c - 2 S_c(x_i) + k(x_i,
#'   x_i)) / (n_c - 1)^2} with \eqn{T_c = \sum_{j,l \in c} k(x_j, x_l)}.
#'   The default Parzen prior (the class proportions without \eqn{x_i}) is
#'   handled exactly too. The result equals refitting up to rounding. The
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
#'   are its sub-matrices, or with a kernel function its points.
#' @param y The class labels, a factor (or character or logical vector).
#' @param folds The number of folds, a whole number from 2 to `nrow(x)`, or
#'   `"loo"` for leave-one-out.
#' @param ... Further arguments to `fit`, e.g. `kernel`, `gamma`, `cost`.
#' @seealso [kernel_tune()] to cross-validate a grid of parameters.
#' @return An object of class `"kernel_cv"`: a list with `accuracy` (overall
#'   out-of-fold accuracy), `se`, `fold_accuracy` and `fold_size` (per fold),
#'   `folds` (their number), `loo` (whether leave-one-out), `fold` (the fold
#'   of each row), `predicted` (the out-of-fold predictions, a factor), `y`,
#'   `method` (`"refit"` or `"exact"`), `fitter` (the fitter's name) and
#'   `call`. It has `print()` and `summary()` methods.
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
kernel_cv <- function(fit, x, y, folds = 10, ...) {
  kc_require(missing(fit), "fit", "a kernclass fitter such as kernel_svm")
  kc_require(missing(x), "x", "the inputs")
  kc_require(missing(y), "y", "the class labels")
  fitter <- kc_fitter_name(substitute(fit))
  kc_check_fitter(fit)
  d <- kc_cv_data(x, y, list(...)$kernel)
  k <- kc_check_folds(folds, d$y)
  fold <- kc_cv_folds(d$y, k)
  res <- kc_cv_run(fit, d$x, d$y, fold, k, list(...))
  kc_new_cv(res, d$y, fold, k, fitter, match.call())
}

# ---- helpers shared with kernel_tune() --------------------------------------

kc_fitter_name <- function(expr) {
  if (is.name(expr) || is.call(expr)) paste(deparse(expr, width.cutoff = 60L), collapse = "")
  else "fit"
}

kc_check_fitter <- function(fit) {
  if (!is.function(fit)) {
    kc_abort(paste0("`fit` must be a kernclass fitter function such as kernel_svm ",
                    "(not a call or a fitted model)."), arg = "fit")
  }
  invisible(fit)
}

# The default method of a kernclass fitter (NULL for other functions).
kc_fitter_default <- function(fit) {
  known <- list(kernel_means = kernel_means.default, kernel_parzen = kernel_parzen.default,
                kernel_bayes = kernel_bayes.default, kernel_svm = kernel_svm.default)
  generics <- list(kernel_means = kernel_means, kernel_parzen = kernel_parzen,
                   kernel_bayes = kernel_bayes, kernel_svm = kernel_svm)
  for (nm in names(generics)) {
    if (identical(fit, generics[[nm]]) || identical(fit, known[[nm]])) {
      return(list(name = nm, fun = known[[nm]]))
    }
  }
  NULL
}

# x as a matrix or data frame whose rows can be subset; y checked labels.
kc_cv_data <- function(x, y, kernel = NULL) {
  # sparse rows, kernel values, a kernel function's points: as the engine's
  # sources, whose rows can be subset without Matrix or copies (R/sources.R)
  if (kc_is_kernel_data(kernel)) {
    x <- kc_design_source(x, NULL, kernel, labels = FALSE)$x
  } else if (kc_is_sparse_input(x)) {
    x <- kc_as_csr(x)
  } else if (is.null(dim(x)) && (is.numeric(x) || is.logical(x))) {
    x <- matrix(x, ncol = 1L, dimnames = list(names(x), NULL))
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

# Out-of-fold predictions (a factor) for one set of fitter arguments.
kc_cv_run <- function(fit, x, y, fold, k, args) {
  loo <- isTRUE(attr(k, "loo"))
  if (loo) {
    exact <- kc_loo_exact(fit, x, y, args)
    if (!is.null(exact)) return(list(predicted = exact, method = "exact"))
  }
  pred <- factor(rep(NA_character_, length(y)), levels = levels(y))
  for (f in seq_len(k)) {
    test <- which(fold == f)
    if (!length(test)) next
    model <- do.call(fit, c(list(kc_rows(x, -test), y[-test]), args))
    p <- stats::predict(model, kc_rows(x, test))
    pred[test] <- as.character(p)
  }
  list(predicted = pred, method = "refit")
}

# Exact leave-one-out for kernel_means / kernel_parzen; NULL when it does not
# apply. Here only whether the shortcut is exact; the classifier does the rest.
kc_loo_exact <- function(fit, x, y, args) {
  def <- kc_fitter_default(fit)
  if (is.null(def) || !def$name %in% c("kernel_means", "kernel_parzen")) return(NULL)
  cl <- as.call(c(list(as.name("f"), x = NULL, y = NULL), args))
  a <- tryCatch(as.list(match.call(def$fun, cl))[-1L], error = function(e) NULL)
  if (is.null(a)) return(NULL)  # let the refits report the problem
  if (!identical(a$scale, FALSE)) return(NULL)
  if (is.character(a$gamma)) return(NULL)
  if (!is.null(a$threshold) && !identical(a$threshold, "analytic")) return(NULL)
  if (is.data.frame(x) && !all(vapply(x, function(v) is.numeric(v) || is.logical(v),
                                      logical(1)))) return(NULL)
  model <- do.call(fit, c(list(x, y), args))
  if (model$threshold != "analytic" || !is.null(model$scaling)) return(NULL)
  kc_loo(model, default_prior = is.null(a$prior))
}

# The leave-one-out classes of a model's training rows, from one pass of
# kernel sums; each method sits beside its classifier (R/means.R, R/parzen.R).
# default_prior: the prior was not given, so it leaves the row out too.
kc_loo <- function(model, default_prior) UseMethod("kc_loo")

kc_new_cv <- function(res, y, fold, k, fitter, call) {
  correct <- as.integer(res$predicted) == as.integer(y)
  K <- as.integer(k)
  size <- tabulate(fold, K)
  acc <- as.vector(tapply(correct, factor(fold, levels = seq_len(K)), mean))
  structure(list(
    accuracy = mean(correct),
    se = stats::sd(acc, na.rm = TRUE) / sqrt(sum(size > 0)),
    fold_accuracy = acc,
    fold_size = size,
    folds = K,
    loo = isTRUE(attr(k, "loo")),
    fold = fold,
    predicted = res$predicted,
    y = y,
    method = res$method,
    fitter = fitter,
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
  cat(sprintf("Accuracy: %.2f%% (standard error %.2f%%) on %d points\n",
              100 * x$accuracy, 100 * x$se, length(x$y)))
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
