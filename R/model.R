# The model objects of kernclass, in three layers:
#   kernclass         what every classifier has: the call, classes, kernel and
#                     scaled training data, and predict(), fitted(), print(),
#                     summary() and plot() on top of the generics below;
#   kernclass_scores  one score per class, f_c(x) = sum_{i in c} w_i k(x, x_i) + b_c
#                     over the training points of class c: kernel_means and
#                     kernel_parzen, which differ only in the weights w and
#                     offsets b (fields `weight`, `offset`);
#   kernclass_ovo     one decision value per pair of classes (R/model-ovo.R):
#                     kernel_svm and kernel_bayes, with their probabilities
#                     from Platt's sigmoids and pairwise coupling.
# The objects hold plain R vectors and matrices.

# A design without labels (the one-class SVM) gives y and counts NULL.
# `approx` (in ...): the approximation the model runs on, NULL (exact) left
# out; the model's representation `repr` (R/repr.R) follows from it, and so
# does the class the approximate models had before it ("kernclass_approx",
# "kernclass_cells"), kept for users' code.
new_kernclass <- function(design, kernel, call, class, ...) {
  y <- design$y
  more <- list(...)
  if ("approx" %in% names(more) && is.null(more$approx)) more$approx <- NULL
  more$repr <- kc_repr_new(kc_repr_kind(more$approx$spec))
  structure(
    c(list(call = call,
           levels = levels(y),
           counts = if (!is.null(y)) stats::setNames(tabulate(y, nlevels(y)), levels(y)),
           kernel = kernel,
           x = design$x,
           y = y,
           scaling = design$scaling,
           terms = design$terms,
           xlevels = design$xlevels,
           contrasts = design$contrasts,
           na.action = design$na.action),
      more),
    class = c(kc_repr_class(more$repr), class, "kernclass"))
}

# A class-score model on the representation r (kc_repr_train()) whose
# scores are sum_c A[c, j] <m_c, phi(x)> + offset_j (A diagonal: the weight
# w_i = A[y_i, y_i] / n_{y_i} per training point).
kc_new_scores <- function(r, d, k, A, offset, call, class, ...) {
  lev <- levels(d$y)
  w <- as.numeric(diag(A) / tabulate(d$y, length(lev)))[as.integer(d$y)]
  new_kernclass_scores(d, k, weight = w, offset = offset, call = call,
                       class = class, ...,
                       approx = kc_repr_model(r, A, stats::setNames(as.numeric(offset), lev)))
}

# A class-score model: weight w_i per training point, offset b_c per class.
new_kernclass_scores <- function(design, kernel, weight, offset, call, class, ...) {
  new_kernclass(design, kernel, call = call, class = c(class, "kernclass_scores"),
                weight = weight,
                offset = stats::setNames(as.numeric(offset), levels(design$y)), ...)
}

# The call as the user would write it: the generic's name, not the method's.
kc_call <- function(call, generic) {
  call[[1L]] <- as.name(generic)
  call
}

# Sum of k(x_i, x_j) over the pairs of each class, in tiles, at fit time.
# (Inside kernel_tune()'s gamma path, where the kernel holds the fold's store
# of shared sums, with the grid's other gammas at once: kc_gamma_shared(),
# R/select.R; so kc_expand().)
kc_within_sums <- function(x, y, kernel) {
  kc_gamma_shared("within", list(x, y), NULL, kernel, function(ks) {
    out <- .Call(ffi_within_sums, x, as.integer(y), nlevels(y), kc_kernel_codes(ks),
                 kc_threads())
    lapply(seq_along(ks), function(i) out[, i])
  })
}

# K(x, points) %*% weights for coded, scaled rows x (no NA), in tiles.
kc_expand <- function(x, points, weights, kernel) {
  kc_gamma_shared("expand", list(x, points), weights, kernel, function(ks) {
    out <- .Call(ffi_kernel_expansion, x, points, weights, kc_kernel_codes(ks), kc_threads())
    if (length(ks) == 1L) return(list(out))
    cols <- seq_len(ncol(weights))
    lapply(seq_along(ks) - 1L, function(i) out[, i * length(cols) + cols, drop = FALSE])
  })
}

# The C engine's codes of kernels of one type, a column each (src/ffi.c).
kc_kernel_codes <- function(ks) vapply(ks, kc_kernel_code, numeric(4))

# predict() works through four internal generics, so that each classifier
# says only what differs:
#   kc_scores(object, x, prob)    raw scores of coded, scaled rows x (no NA);
#                                 prob = FALSE: no probability columns needed
#   kc_decision(object, scores)   what predict(type = "decision") returns
#   kc_classify(object, scores)   the factor of predicted classes
#   kc_posterior(object, scores)  the matrix of class probabilities
# The methods below are those of the class-score layer; the one-vs-one
# layer has its own (R/model-ovo.R), the leaves add what is theirs.
# Its methods are the classifiers' own (kernel_parzen's densities); the
# kernclass method hands the model to its representation (R/repr.R), whose
# exact method calls the classifier's expansion, kc_exact_scores().
kc_scores <- function(object, x, prob = TRUE) UseMethod("kc_scores")

#' @export
kc_scores.kernclass <- function(object, x, prob = TRUE) {
  kc_repr_scores(kc_repr(object), object, x, prob)
}

# The n x G matrix of class scores f_c(x) = sum_{i in c} w_i k(x, x_i) + b_c.
#' @export
kc_exact_scores.kernclass_scores <- function(object, x) {
  s <- kc_expand(x, object$x, kc_expansion_weights(object), object$kernel)
  s <- s + rep(object$offset, each = nrow(s))
  dimnames(s) <- list(rownames(x), object$levels)
  s
}

# The n x G matrix of expansion weights: w_i in the column of x_i's class.
kc_expansion_weights <- function(object) {
  n <- length(object$y)
  kc_check_memory(8 * n * length(object$levels),
                  sprintf("The expansion weights of %d classes over %d training rows",
                          length(object$levels), n), kc_memory_route, arg = "object")
  w <- matrix(0, n, length(object$levels), dimnames = list(NULL, object$levels))
  w[cbind(seq_len(n), as.integer(object$y))] <- object$weight
  w
}

# Class from scores: binary by the sign of f_1 - f_2 (ties to the second
# class, as sgn in the seeds), otherwise the largest score (ties to the first).
kc_class_from_scores <- function(scores, levels) {
  if (length(levels) == 2L) {
    idx <- ifelse(scores[, 1L] - scores[, 2L] > 0, 1L, 2L)
  } else {
    idx <- max.col(scores, ties.method = "first")
  }
  factor(levels[idx], levels = levels)
}

# kc_decision(), kc_classify() and kc_posterior() hand the model to its
# representation (R/repr.R), which calls the classifier's method
# (kc_model_decision() ...) on the scores or reads its own.
kc_decision <- function(object, scores) kc_repr_decision(kc_repr(object), object, scores)
kc_model_decision <- function(object, scores) UseMethod("kc_model_decision")

# Two classes: f_1 - f_2, positive for the first level; more: the scores.
#' @export
kc_model_decision.kernclass_scores <- function(object, scores) {
  if (ncol(scores) == 2L) stats::setNames(scores[, 1L] - scores[, 2L], rownames(scores)) else scores
}

kc_classify <- function(object, scores) kc_repr_classify(kc_repr(object), object, scores)
kc_model_classify <- function(object, scores) UseMethod("kc_model_classify")

#' @export
kc_model_classify.kernclass_scores <- function(object, scores) kc_class_from_scores(scores, object$levels)

# Posterior class probabilities from scores: a method per class-score
# classifier, one for all one-vs-one classifiers (R/model-ovo.R).
kc_posterior <- function(object, scores) kc_repr_posterior(kc_repr(object), object, scores)
kc_model_posterior <- function(object, scores) UseMethod("kc_model_posterior")

kc_softmax <- function(z) {
  z <- z - z[cbind(seq_len(nrow(z)), max.col(z, ties.method = "first"))]
  e <- exp(z)
  e / rowSums(e)
}
