#' kernclass classifiers as caret models
#'
#' `kernclass_caret()` returns the list caret's custom-model interface takes
#' as `method`, so that `caret::train(x, y, method = kernclass_caret("svm"))`
#' tunes and fits a kernclass classifier with caret's resampling. caret is
#' needed only to call `train()`.
#'
#' The tuning parameters are kernclass's own argument names: `cost` (for
#' `"svm"`), `gamma` (for kernels that have it) and `degree` (for the
#' polynomial kernel); a model with none (the linear kernel other than
#' `"svm"`) has caret's placeholder `parameter = "none"`. caret's default
#' grid (`tuneLength = len`) takes `len` values of each: `cost` \eqn{2^{-2},
#' \ldots, 2^{len - 3}} (as caret's `"svmRadial"`), `gamma` the median
#' heuristic of [estimate_gamma()] on the training inputs times \eqn{4^{j}}
#' for `len` values of `j` centred on 0, `degree` 1 to `min(len, 3)`;
#' `search = "random"` draws `cost` from \eqn{2^{U(-5, 10)}}, `gamma` from
#' the median value times \eqn{10^{U(-1.5, 1.5)}} and `degree` from 1 to 3.
#' Give `tuneGrid` with these column names for other values.
#'
#' `train()`'s `weights` are case weights for `"svm"` (multiplying each
#' observation's cost, as `kernel_svm(weights = )`) and an error for the
#' other methods. With `classProbs = TRUE` the SVM is fitted with
#' `probability = TRUE`. Further arguments of `train()` go to the fitter
#' (`scale`, `coef0`, `class.weights`, `prior`, `type`, ...). caret codes
#' factor inputs of the formula method with its own dummy variables; the
#' default method passes a data frame on to kernclass, which codes them with
#' one indicator per level.
#'
#' @param method The classifier: `"svm"` ([kernel_svm()]), `"means"`
#'   ([kernel_means()]), `"parzen"` ([kernel_parzen()]) or `"bayes"`
#'   ([kernel_bayes()]).
#' @param kernel The kernel, as the fitters take it (`"rbf"`, `"laplace"`,
#'   `"polynomial"`, `"linear"`, `"sigmoid"`).
#' @param approx `NULL` (the exact models), or an approximation
#'   ([nystrom()], [random_fourier()], or [cells()] for `"svm"`) for every
#'   fit, whose size is then a tuning parameter: `m` for the features,
#'   `size` for the cells. caret's default grid takes `len` values of it,
#'   the given one and its halvings (\eqn{m 2^{1 - len}, \ldots, m}{m
#'   2^(1 - len), ..., m}); `search = "random"` draws from \eqn{m 2^{U(-3,
#'   0)}}{m 2^U(-3, 0)}. (An approximation given to `train()` itself is
#'   passed on as it is, untuned.)
#' @return A list with the elements caret's custom models have: `label`,
#'   `library`, `type`, `parameters`, `grid`, `loop`, `fit`, `predict`,
#'   `prob`, `predictors`, `levels`, `sort` and `tags`.
#' @seealso [kernel_tune()], which tunes without caret.
#' @export
#' @examples
#' str(kernclass_caret("svm")$parameters)
#' if (requireNamespace("caret", quietly = TRUE)) {
#'   set.seed(1)
#'   tuned <- caret::train(iris[, 1:4], iris$Species, method = kernclass_caret("parzen"),
#'                         tuneLength = 3,
#'                         trControl = caret::trainControl(method = "cv", number = 3))
#'   tuned$results
#'   predict(tuned, iris[c(1, 51, 101), 1:4])
#' }
kernclass_caret <- function(method = c("svm", "means", "parzen", "bayes"), kernel = "rbf",
                            approx = NULL) {
  method <- kc_match_arg(method, arg = "method")
  kernel <- kc_kernel_name(kernel)
  def <- kc_fitter_by_method(method)
  fitter <- def$name
  # the approximation's size, tuned after the fitter's parameters: m
  # features, or the cells' size
  sized <- NULL
  if (!is.null(approx)) {
    if (!inherits(approx, "kernclass_approximation")) {
      kc_abort("`approx` must be NULL, nystrom(...), random_fourier(...) or cells(...).",
               arg = "approx")
    }
    row <- kc_approx_require(approx, fitter)
    sized <- row$size
  }
  fitted <- kc_fitter_tunable(def, kernel)
  tuned <- c(fitted, sized)
  labels <- c(vapply(kc_tunables[fitted], `[[`, character(1), "label"),
              if (!is.null(sized)) stats::setNames(row$size_label, sized))[tuned]
  parameters <- if (length(tuned)) {
    data.frame(parameter = tuned, class = "numeric",
               label = unname(labels))
  } else {
    data.frame(parameter = "parameter", class = "character", label = "parameter")
  }

  grid <- function(x, y, len = NULL, search = "grid") {
    if (!length(tuned)) return(data.frame(parameter = "none"))
    if (is.null(len)) len <- 3L
    g0 <- if ("gamma" %in% tuned) estimate_gamma(x, kernel = kernel)
    # each parameter's values from its kc_tunables row, in the registry's
    # order; the approximation's size: the given value and its halvings
    # (grid), or random fractions of it down to an eighth
    how <- if (search == "grid") "grid" else "random"
    values <- lapply(kc_tunables[fitted], function(p) p[[how]](len, g0))
    if (!is.null(sized)) {
      top <- kc_approx_sized(approx, nrow(x))[[sized]]  # "auto": from the rows
      values[[sized]] <- if (search == "grid") kc_caret_sizes(top, len) else
        pmax(1, round(top * 2^stats::runif(len, -3, 0)))
    }
    if (search == "grid") expand.grid(values, KEEP.OUT.ATTRS = FALSE) else data.frame(values)
  }

  fit <- function(x, y, wts, param, lev, last, classProbs, ...) {
    dots <- list(...)
    if ("kernel" %in% names(dots)) {
      kc_abort("Give `kernel` to kernclass_caret(), not to train().", arg = "kernel")
    }
    args <- c(as.list(param)[intersect(names(param), fitted)], list(kernel = kernel))
    if (!is.null(sized)) {
      if ("approx" %in% names(dots)) {
        kc_abort("Give `approx` to kernclass_caret() or to train(), not to both.", arg = "approx")
      }
      args$approx <- approx
      args$approx[[sized]] <- as.integer(param[[sized]])
    }
    if (!is.null(def$prob_arg) && !def$prob_arg %in% names(dots)) {
      args[[def$prob_arg]] <- isTRUE(classProbs)
    }
    if ("weights" %in% names(formals(def$fun))) {
      if (!is.null(wts)) args$weights <- wts
    } else if (!is.null(wts)) {
      kc_abort(sprintf(paste0("%s() takes no case weights; train()'s `weights` are for ",
                              "kernclass_caret(\"svm\")."), fitter), arg = "weights")
    }
    # x and y enter the call as symbols: the model's call does not hold the data
    do.call(def$generic, c(list(quote(x), quote(y)), args, dots), envir = environment())
  }

  list(
    label = sprintf("kernclass %s (%s kernel)", fitter, kernel),
    library = "kernclass",
    type = "Classification",
    parameters = parameters,
    grid = grid,
    loop = NULL,
    fit = fit,
    predict = function(modelFit, newdata, submodels = NULL) {
      unname(stats::predict(modelFit, newdata))
    },
    prob = function(modelFit, newdata, submodels = NULL) {
      as.data.frame(unclass(stats::predict(modelFit, newdata, type = "prob")),
                    row.names = NULL, optional = TRUE)
    },
    predictors = function(x, ...) colnames(x$x),
    levels = function(x) x$levels,
    # the simplest models first: small cost, low degree, small gamma
    sort = function(x) {
      by <- intersect(c("cost", "degree", "gamma", "m", "size"), names(x))
      if (length(by)) x[do.call(order, unname(as.list(x[by]))), , drop = FALSE] else x
    },
    tags = c("Kernel Method", if (method == "svm") "Support Vector Machines",
             kc_kernels[[kernel]]$tags))
}

# The default grid of an approximation's size: the given value and its
# halvings, `len` values in all.
kc_caret_sizes <- function(top, len) {
  unique(pmax(1L, as.integer(round(top * 2^(seq_len(len) - len)))))
}
