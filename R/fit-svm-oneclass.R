# The one-class SVM, kernel_svm(type = "one-classification"): novelty
# detection on the inputs alone. Its fit is kernel_svm()'s (R/fit-svm-solve.R); here
# are what differs from the classifier: decision values and classes of
# inliers and outliers, no probabilities, its plot, print and summary.

#' @export
kc_model_decision.kernel_svm_oneclass <- function(object, scores) {
  stats::setNames(scores[, 1L], rownames(scores))
}

# Inlier where the decision value is positive (as LIBSVM: 0 is an outlier).
#' @export
kc_model_classify.kernel_svm_oneclass <- function(object, scores) {
  factor(object$levels[ifelse(scores[, 1L] > 0, 1L, 2L)], levels = object$levels)
}

#' @export
kc_model_posterior.kernel_svm_oneclass <- function(object, scores) {
  kc_abort(paste0("The one-class SVM has no probabilities; predict(type = \"decision\") gives ",
                  "its decision values."), arg = "type", class = "prob_unavailable")
}

# The points are drawn coloured by their prediction (inlier or outlier).
#' @export
plot.kernel_svm_oneclass <- function(x, data = NULL, vars = NULL, y = NULL, ...) {
  if (is.null(y)) y <- if (is.null(data)) stats::fitted(x) else stats::predict(x, data)
  plot.kernclass(x, data = data, vars = vars, y = y, ...)
}

# Weighted fractions of the training points at the bound (alpha_i = w_i),
# that are support vectors (alpha_i > 0), and that predict() calls outliers.
# With sum(alpha) = nu W and alpha_i <= w_i, the first is at most nu and the
# second at least nu, exactly; the third holds the first's points with
# f < 0 and the boundary's (f = 0), so it is at most nu only asymptotically.
kc_oneclass_fractions <- function(object) {
  w <- object$C / sum(object$C)
  at_bound <- object$index[object$eta[, 1L] >= object$C[object$index]]
  c(at_bound = sum(w[at_bound]), support_vectors = sum(w[object$index]),
    outliers = sum(w[kc_predict_rows(object, object$x) == "outlier"]))
}

#' @export
kc_print_exact.kernel_svm_oneclass <- function(x) {
  kc_print_exact.kernclass(x)  # not kernel_svm's: no classes, no cost
  if (inherits(x$x, "kc_no_rows")) {
    # butcher() removed the training rows the fractions are of
    cat(sprintf("nu: %s\nSupport vectors: %d\n", format(x$nu), length(x$index)))
  } else {
    f <- kc_oneclass_fractions(x)
    cat(sprintf("nu: %s\nSupport vectors: %d (%.1f%%); training outliers: %.1f%%\n",
                format(x$nu), length(x$index), 100 * f[["support_vectors"]], 100 * f[["outliers"]]))
  }
  if (!x$converged) cat("Warning: the solver did not converge (max_iter reached)\n")
  invisible(x)
}

#' @export
kc_summary_exact.kernel_svm_oneclass <- function(object) {
  structure(list(
    call = object$call, method = kc_method_label(object),
    kernel = kc_kernel_label(object$kernel), n = nrow(object$x), p = ncol(object$x),
    inputs = kc_inputs_label(object$x),
    scaled = !is.null(object$scaling), nu = object$nu, rho = -object$b,
    nSV = length(object$index), n_at_bound = object$n_at_bound,
    fractions = kc_oneclass_fractions(object), objective = object$objective,
    iterations = object$iterations, kkt_violation = object$kkt_violation,
    converged = object$converged),
    class = "summary.kernel_svm_oneclass")
}

#' @export
print.summary.kernel_svm_oneclass <- function(x, ...) {
  kc_print_head(x$method, x$call, x$kernel, x$n, x$inputs, x$scaled)
  cat(sprintf("\nnu: %s  rho: %s\n", format(x$nu), format(x$rho, digits = 5)))
  cat(sprintf("Support vectors: %d (%d at the bound)\n", x$nSV, x$n_at_bound))
  cat(sprintf(paste0("Fractions of the training data: at the bound %.4f <= nu <= support ",
                     "vectors %.4f\n"), x$fractions[["at_bound"]], x$fractions[["support_vectors"]]))
  cat(sprintf(paste0("Training outliers (f(x) <= 0): %.4f (at most nu only as the data grow: ",
                     "the boundary's support vectors count too)\n"), x$fractions[["outliers"]]))
  cat(sprintf("Objective: %s  iterations: %d  KKT violation: %s\n", format(x$objective, digits = 6),
              as.integer(x$iterations), format(x$kkt_violation, digits = 3)))
  if (!x$converged) cat("\nThe solver did not converge within max_iter.\n")
  invisible(x)
}
