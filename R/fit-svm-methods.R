# The fitted SVM's methods: its scores (the expansion over the support
# vectors plus b) for predict(), its Platt models, coef(), print() and
# summary() with the fractions the nu types bound. The fit is in R/fit-svm.R.

#' @export
kc_exact_scores.kernel_svm <- function(object, x) {
  s <- kc_expand(x, kc_svm_sv(object), object$coefs, object$kernel)
  s <- s + rep(object$b, each = nrow(s))
  dimnames(s) <- list(rownames(x), names(object$b))
  s
}

# The support vectors: the field SV, or for sparse rows, kernel values and a
# kernel function's points (which a model holds once, in x) the rows of x.
kc_svm_sv <- function(object) {
  if (is.null(object$SV)) object$x[object$index, , drop = FALSE] else object$SV
}

# probA and probB as e1071 keeps them: a vector each, one value per pair.
#' @export
kc_platt.kernel_svm <- function(object) {
  if (is.null(object$probA)) NULL else cbind(A = object$probA, B = object$probB)
}

#' @export
coef.kernel_svm <- function(object, ...) {
  kc_check_dots(...)
  kc_repr_coef(kc_repr(object), object)
}

#' @export
kc_coef_exact.kernel_svm <- function(object) {
  alpha <- matrix(0, kc_nrow_fitted(object$x), ncol(object$coefs),
                  dimnames = list(NULL, colnames(object$coefs)))
  alpha[object$index, ] <- object$coefs
  if (ncol(alpha) == 1L) list(alpha = alpha[, 1L], b = unname(object$b)) else
    list(alpha = alpha, b = object$b)
}

#' @export
kc_print_exact.kernel_svm <- function(x) {
  NextMethod()
  kc_svm_print_tradeoff(x)
  cat("Support vectors: ", length(x$index), " (",
      paste0(x$levels, " ", x$nSV, collapse = ", "), ")\n", sep = "")
  if (!x$converged) cat("Warning: the solver did not converge (max_iter reached)\n")
  invisible(x)
}

#' @export
kc_summary_exact.kernel_svm <- function(object) {
  s <- NextMethod()
  s$type <- object$type
  s$cost <- object$cost
  s$nu <- object$nu
  s$nSV <- object$nSV
  s$pairs <- data.frame(objective = object$objective, iterations = object$iterations,
                        support_vectors = colSums(object$eta > 0),
                        at_bound = object$n_at_bound, b = object$b,
                        kkt_violation = object$kkt_violation)
  if (!is.null(object$nu)) {
    s$pairs$cost <- object$cost
    f <- kc_nu_fractions(object)
    s$pairs$at_bound_fraction <- f["at_bound", ]
    s$pairs$sv_fraction <- f["support_vectors", ]
  }
  s$converged <- object$converged
  class(s) <- c("summary.kernel_svm", class(s))
  s
}

#' @export
print.summary.kernel_svm <- function(x, ...) {
  NextMethod()
  cat("\n")
  kc_svm_print_tradeoff(x)
  cat("Support vectors per class:\n")
  print(x$nSV)
  cat(sprintf("\nBinary problems (one per class pair%s):\n",
              if (is.null(x$nu)) "" else "; cost: that of the same solution by C-classification"))
  print(x$pairs, digits = 5)
  if (!is.null(x$nu)) {
    cat(sprintf(paste0("nu-property per pair (weighted fractions of its points): at the bound ",
                       "<= nu = %s <= support vectors\n"), format(x$nu)))
  }
  if (!x$converged) cat("\nThe solver did not converge within max_iter.\n")
  invisible(x)
}

# The trade-off parameter: cost, or nu.
kc_svm_print_tradeoff <- function(x) {
  if (is.null(x$nu)) {
    cat(sprintf("Cost: %s%s\n", format(x$cost), if (is.infinite(x$cost)) " (hard margin)" else ""))
  } else {
    cat(sprintf("nu: %s\n", format(x$nu)))
  }
}

# For the nu-SVM, per pair: the weighted fractions of the pair's points at
# the bound and that are support vectors, at most and at least nu exactly
# (sum(eta) = nu W before eta is divided by r; the bound w_i is then
# w_i / r, the pair's cost times C_i, up to the rounding of the division).
kc_nu_fractions <- function(object) {
  pairs <- kc_ovo_pairs(object$levels)
  vapply(seq_len(nrow(pairs)), function(m) {
    rows <- which(as.integer(object$y) %in% pairs[m, ])
    w <- object$C[rows] / sum(object$C[rows])
    eta <- numeric(length(object$y))
    eta[object$index] <- object$eta[, m]
    bound <- object$cost[m] * object$C[rows]
    c(at_bound = sum(w[eta[rows] >= bound * (1 - 1e-12) & bound > 0]),
      support_vectors = sum(w[eta[rows] > 0]))
  }, numeric(2))
}
