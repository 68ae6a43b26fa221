# broom's tidy(), glance() and augment() for kernclass models. The generics
# are those of the generics package (broom re-exports them), in Suggests:
# NAMESPACE registers these methods when generics is loaded.

#' Tidy summaries of a kernclass classifier (broom)
#'
#' Methods for the generics `tidy()`, `glance()` and `augment()` of the
#' generics package, re-exported by broom: `library(broom)` makes them
#' available. Each returns a tibble (a data frame where tibble is not
#' installed).
#'
#' @section tidy(): A kernclass model is one or more decision functions
#'   \eqn{f(x) = \sum_i \alpha_i k(x, x_i) + b}: one per class for
#'   [kernel_means()] and [kernel_parzen()] (the class scores), one per pair
#'   of classes for [kernel_svm()] and [kernel_bayes()]. With `component =
#'   "functions"` (default) `tidy()` has a row per function, with columns
#'   `term` (the class, or the pair `"a/b"` as in `predict(type =
#'   "decision")`), `offset` (its \eqn{b}) and `n_coef` (the training points
#'   with \eqn{\alpha_i \ne 0}), and by classifier:
#'   * kernel_means: `count` (class size) and `center_norm`
#'     (\eqn{\|m_c\|^2}, the squared norm of the class mean in feature space);
#'   * kernel_parzen: `count` and `prior`;
#'   * kernel_svm: `at_bound` (support vectors with \eqn{\alpha_i = C_i}),
#'     `objective`, `iterations`, `kkt_violation`, and with
#'     `probability = TRUE` the Platt sigmoid's `prob_a`, `prob_b`;
#'   * kernel_bayes: `sign`, `consistency` (of the threshold search),
#'     `prob_a`, `prob_b`.
#'
#'   With `component = "coefficients"`, a row per non-zero coefficient:
#'   `term`, `row` (the training observation, a row number among the rows
#'   used for fitting), `class` (its class) and `estimate` (\eqn{\alpha_i}).
#'   These are the coefficients of [coef()], column by column (for
#'   [kernel_means()] and [kernel_parzen()] one column per class, not their
#'   two-class difference).
#'
#'   A model on features (`approx = nystrom()` or `random_fourier()`) is a
#'   linear model on its features, \eqn{f(x) = z(x)'w + b}: its `offset` is
#'   \eqn{b}, `n_coef` counts the non-zero feature weights, the figures its
#'   solver does not keep are `NA`, and `component = "coefficients"` has a
#'   row per non-zero weight: `term`, `feature` (the feature's index in
#'   \eqn{z(x)}{z(x)}, in place of `row` and `class`) and `estimate`
#'   (\eqn{w}). A model with `cells()` has a row per training row's
#'   coefficient in its cell's SVM, `offset` `NA` (each cell has its own:
#'   [coef()]), `cells` (how many cells fit the pair) and `iterations`
#'   summed over the cells.
#'
#' @section glance(): One row: `method` (the fitter), `kernel`, `gamma`,
#'   `degree`, `coef0` (the kernel's parameters; those the kernel does not
#'   use are `NA`), `nobs`, `n_inputs` (coded input columns), `n_classes`,
#'   `scaled` and `accuracy` (on the training data; `NA` for the one-class
#'   SVM, which has no labels); and by classifier: kernel_svm `cost` (`NA`
#'   for the nu types: nu-classification's differs by pair), `nu` (`NA` for
#'   C-classification), `n_support`, `iterations` (summed over the pairs,
#'   and for `cells()` over the cells),
#'   `converged`, `probability`; kernel_bayes `type`; kernel_means and
#'   kernel_parzen `threshold`.
#'
#' @section augment(): The data with the predictions as columns: `.fitted`
#'   (the predicted class), `.pred_<class>` (the class probabilities, where
#'   the model gives them: not for a [kernel_svm()] fitted without
#'   `probability = TRUE` nor a Parzen model with a kernel that is not a
#'   density), and the decision values: `.decision` for two classes,
#'   otherwise `.decision_<class>` or `.decision_<pair>` (the columns of
#'   `predict(type = "decision")`). `newdata` is predicted if given;
#'   otherwise `data`, and without it the model frame of a formula fit
#'   ([model.frame()][kernclass-accessors]). Rows that cannot be predicted
#'   get `NA`. A model calibrated by [conformal()] adds `.pred_set`, a
#'   list-column of the conformal prediction sets at `level` (character
#'   vectors of classes).
#'
#' @param x A fitted kernclass model.
#' @param component `"functions"` or `"coefficients"`, see below.
#' @param data The training data, for `augment()` of a model fitted with
#'   `x` and `y` (a formula fit rebuilds its model frame).
#' @param newdata New data to predict instead.
#' @param level The coverage level of `.pred_set` (models calibrated by
#'   [conformal()]).
#' @param ... Not used.
#' @return A tibble, with the columns below.
#' @name kernclass-broom
#' @examples
#' if (requireNamespace("generics", quietly = TRUE)) {
#'   fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
#'   generics::tidy(fit)
#'   head(generics::tidy(fit, component = "coefficients"))
#'   generics::glance(fit)
#'   head(generics::augment(fit))
#' }
NULL

# The data frame df with the columns of the list `cols`, in its order (NULL
# values left out).
kc_add_columns <- function(df, cols) {
  for (nm in names(cols)) df[[nm]] <- cols[[nm]]
  df
}

# A tibble where tibble is installed, else the data frame.
kc_tibble <- function(df) {
  rownames(df) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(df) else df
}

# The decision functions as the model's representation holds them: `alpha`,
# their coefficients (a column per function; a row per training row, or on
# features a row per feature), `offset` (NA where there is none) and `basis`,
# what the rows of `alpha` are ("row" or "feature").
# (and for cells `cells`, how many cells fit each function). By the model's
# representation (R/repr.R).
kc_functions <- function(x) kc_repr_functions(kc_repr(x), x)

kc_repr_functions <- function(repr, x) UseMethod("kc_repr_functions")

# Exact: the fitter's (its registry row's `functions`).
#' @export
kc_repr_functions.kc_exact <- function(repr, x) c(kc_fitter_of(x)$functions(x), list(basis = "row"))

# On features: the linear model z(x)'w + b (coef()'s w and b, a column per
# function).
#' @export
kc_repr_functions.kc_features <- function(repr, x) {
  list(alpha = x$approx$w, offset = unname(x$approx$b), basis = "feature")
}

# In cells: each training row's coefficient in its cell's SVM; the offsets
# are the cells' (coef()$b), none for the whole model.
#' @export
kc_repr_functions.kc_cells <- function(repr, x) {
  pairs <- rownames(kc_ovo_pairs(x$levels))
  cf <- stats::coef(x)
  list(alpha = matrix(cf$alpha, nrow = kc_nrow_fitted(x$x), dimnames = list(NULL, pairs)),
       offset = NA_real_, basis = "row", cells = as.integer(colSums(!is.na(as.matrix(cf$b)))))
}

#' @rdname kernclass-broom
#' @exportS3Method generics::tidy
tidy.kernclass <- function(x, component = c("functions", "coefficients"), ...) {
  kc_check_dots(...)
  component <- kc_match_arg(component, arg = "component")
  fs <- kc_functions(x)
  alpha <- fs$alpha
  if (component == "coefficients") {
    nz <- which(alpha != 0, arr.ind = TRUE)
    nz <- nz[order(nz[, "col"], nz[, "row"]), , drop = FALSE]
    term <- colnames(alpha)[nz[, "col"]]
    if (fs$basis == "feature") {
      return(kc_tibble(data.frame(term = term, feature = as.integer(nz[, "row"]),
                                  estimate = alpha[nz], stringsAsFactors = FALSE)))
    }
    return(kc_tibble(data.frame(
      term = term, row = as.integer(nz[, "row"]),
      class = if (is.null(x$y)) rep(NA_character_, nrow(nz)) else x$y[nz[, "row"]],
      estimate = alpha[nz], stringsAsFactors = FALSE)))
  }
  out <- data.frame(term = colnames(alpha), offset = fs$offset,
                    n_coef = as.integer(colSums(alpha != 0)), stringsAsFactors = FALSE)
  # the fitter's columns (its registry row's `tidy`), NA where the model does not keep them
  out <- kc_add_columns(out, kc_fitter_of(x)$tidy(x, fs))
  kc_tibble(out)
}

#' @rdname kernclass-broom
#' @exportS3Method generics::glance
glance.kernclass <- function(x, ...) {
  kc_check_dots(...)
  k <- x$kernel
  uses <- kc_kernel_info(k)$label
  pick <- function(p) if (p %in% uses) as.numeric(k[[p]]) else NA_real_
  out <- data.frame(method = kc_fitter_of(x)$name,
                    kernel = k$name, gamma = pick("gamma"),
                    degree = pick("degree"), coef0 = pick("coef0"), nobs = nrow(x$x),
                    n_inputs = ncol(x$x), n_classes = length(x$levels),
                    scaled = !is.null(x$scaling),
                    accuracy = if (is.null(x$y)) NA_real_ else mean(kc_predict_rows(x, x$x) == x$y),
                    stringsAsFactors = FALSE)
  out <- kc_add_columns(out, kc_fitter_of(x)$glance(x))
  kc_tibble(out)
}

#' @rdname kernclass-broom
#' @exportS3Method generics::augment
augment.kernclass <- function(x, data = NULL, newdata = NULL, level = 0.9, ...) {
  kc_check_dots(...)
  # the model frame's rows are the training rows: their fitted values
  fitted <- is.null(data) && is.null(newdata)
  if (!is.null(newdata)) {
    data <- newdata
  } else if (is.null(data)) {
    if (!kc_has_formula(x)) {
      kc_abort(paste0("augment() of a model fitted to `x` and `y` needs `data` (the training ",
                      "inputs) or `newdata`."), arg = "data")
    }
    data <- stats::model.frame(x)
  }
  pred <- function(type) if (fitted) kc_predict_rows(x, x$x, type, level = level) else
    stats::predict(x, data, type = type, level = level)
  out <- as.data.frame(data, optional = TRUE)
  attr(out, "terms") <- NULL
  out$.fitted <- unname(pred("class"))
  prob <- tryCatch(pred("prob"), kernclass_prob_unavailable_error = function(e) NULL)
  if (!is.null(prob)) {
    for (j in seq_len(ncol(prob))) out[[paste0(".pred_", colnames(prob)[j])]] <- unname(prob[, j])
  }
  dec <- pred("decision")
  if (is.null(dim(dec))) {
    out$.decision <- unname(dec)
  } else {
    for (j in seq_len(ncol(dec))) out[[paste0(".decision_", colnames(dec)[j])]] <- unname(dec[, j])
  }
  if (!is.null(x$conformal)) out$.pred_set <- as.list(pred("set"))
  out <- kc_tibble(out)
  if (!is.null(x$conformal) && !inherits(out, "tbl_df")) out$.pred_set <- I(out$.pred_set)
  out
}
