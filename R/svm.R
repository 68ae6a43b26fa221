#' Support vector machine trained by SMO
#'
#' Soft-margin (`cost` finite) and hard-margin (`cost = Inf`) support vector
#' classification. The dual problem (Schölkopf and Smola 2002, chapter 7),
#' \deqn{\min_\eta \tfrac12 (\eta \odot y)' K (\eta \odot y) - \textstyle\sum_i \eta_i,
#'   \quad 0 \le \eta_i \le C_i,\quad \eta' y = 0,}{min over eta of
#'   (1/2) (eta * y)' K (eta * y) - sum_i eta_i,  subject to  0 <= eta_i <= C_i,  eta'y = 0,}
#' is solved in C by sequential minimal optimisation (Platt 1998) with the
#' second-order working-set selection of Fan, Chen and Lin (2005), shrinking
#' with gradient reconstruction and a cache of kernel rows, as in LIBSVM
#' (Chang and Lin 2011), so answers agree with `e1071::svm()`. Here
#' \eqn{K_{ij} = k(x_i, x_j)}{K[i, j] = k(x_i, x_j)}, \eqn{y_i = \pm 1}{y_i = +1 or -1}
#' and \eqn{C_i} is `cost` times the weights of the point and of its class.
#' The decision function is
#' \eqn{f(x) = \sum_i \eta_i y_i k(x, x_i) + b}{f(x) = sum_i eta_i y_i k(x, x_i) + b};
#' the offset \eqn{b} is the
#' average over the free support vectors (\eqn{0 < \eta_i < C_i}{0 < eta_i < C_i}), or the middle
#' of the feasible interval when there are none.
#'
#' More than two classes are handled one-vs-one, as LIBSVM: one SVM per pair
#' of classes, the class with most votes wins (ties to the earlier level).
#' `predict(type = "decision")` gives one column per pair (`"a/b"`, positive
#' for `a`).
#'
#' @section Hard margin: `cost = Inf` asks for the thickest separating slab.
#'   When the classes are not separable in the kernel's feature space the dual
#'   is unbounded; the solver detects this (the bound
#'   \eqn{(\sum\eta)^2 / \eta'Q\eta \le 1/\mathrm{margin}^2}{(sum eta)^2 / (eta'Q eta) <= 1/margin^2}
#'   with \eqn{Q_{ij} = y_i y_j K_{ij}}{Q[i, j] = y_i y_j K[i, j]} shows a margin
#'   below \eqn{10^{-4}}{1e-4} times the radius of the data in feature space) and
#'   `kernel_svm()` stops with an error of class
#'   `"kernclass_not_separable_error"`. With the linear kernel, data whose
#'   centre lies farther from the origin than their spread are centred for
#'   the solver (the dual is the same; the offset is moved back), so that
#'   the single-precision kernel cache keeps the differences that define
#'   the margin.
#'
#' @section Range: The solver caches kernel rows in single precision: a
#'   kernel whose values can exceed 3.4e38 on the data (a high `degree`, a
#'   large `gamma` or unscaled huge inputs) is an error of class
#'   `"kernclass_overflow_error"`, and a solution that is not finite numbers
#'   one of class `"kernclass_not_finite_error"`, never NaN from a model
#'   that says it converged.
#'
#' @section Probabilities: With `probability = TRUE`, each pairwise SVM gets a
#'   sigmoid \eqn{P(a \mid x) = 1/(1 + \exp(A f(x) + B))}{P(a | x) = 1 / (1 + exp(A f(x) + B))}
#'   (Platt scaling, Platt 1999, fitted by the Newton method of Lin, Lin and
#'   Weng 2007)
#'   fitted to decision values from an internal 5-fold cross-validation, as
#'   LIBSVM does; the folds are drawn with R's random number generator, so
#'   `set.seed()` reproduces them. With more than two classes the pairwise
#'   probabilities are combined by pairwise coupling (Wu, Lin and Weng 2004).
#'   As in LIBSVM, each pairwise probability is first kept within
#'   \eqn{[10^{-7}, 1 - 10^{-7}]}{[1e-7, 1 - 1e-7]}, so with two classes the
#'   probabilities stay \eqn{10^{-7}}{1e-7} away from 0 and 1, even far from
#'   the data. `type = "class"` comes from the decision values (votes), `type = "prob"`
#'   from the fitted sigmoids: the most probable class is usually, but not
#'   always, the predicted class.
#'
#' @inheritParams kernel_means
#' @param cost The cost \eqn{C} of margin violations, \eqn{C > 0}; `Inf` for
#'   the hard margin.
#' @param class.weights Weights of the classes' costs: a named vector (names
#'   are levels of `y`; classes not named get weight 1), or `"inverse"` for
#'   weights `1 / table(y)`, as e1071.
#' @param weights Optional non-negative weights, one per observation,
#'   multiplying its cost (for the formula method, evaluated in `data`).
#' @param probability If `TRUE`, fit the probability model (see below), so
#'   that `predict(type = "prob")` works.
#' @param tolerance Stopping tolerance on the maximal violation of the KKT
#'   conditions (as LIBSVM's `epsilon`, default `1e-3`).
#' @param max_iter Maximal number of SMO iterations per binary problem; when
#'   reached, a warning is given and `converged` is `FALSE`.
#' @param cachesize Size of the kernel-row cache in MB (rows are stored as
#'   float). Default: enough for the whole kernel matrix of the largest binary
#'   problem, at most 1024 MB. A cache that holds at least half of the rows
#'   also lets the solver compute rows 4 at a time.
#' @param shrinking Whether to use the shrinking heuristic.
#' @return An object of class `c("kernel_svm", "kernclass_ovo", "kernclass")`
#'   (`"kernclass_ovo"`: the one-vs-one classifiers, as [kernel_bayes()]):
#'   besides the common fields (see [kernel_bayes()]; no `weight` or
#'   `offset`), `index` (the rows of
#'   the training data that are support vectors), `SV` (those rows, scaled),
#'   `eta` (the dual variables, a matrix with a column per class pair) and
#'   `coefs` (\eqn{y_i \eta_i}{y_i eta_i}), `b` (one offset per pair), `nSV` (support vectors
#'   per class), `n_at_bound` (per pair, the number with \eqn{\eta_i = C_i}{eta_i = C_i}), `objective`,
#'   `iterations`, `kkt_violation` (per pair: the final maximal violation of
#'   the KKT conditions, 0 when they hold strictly), `converged`, `cost`,
#'   `C` (each training point's bound \eqn{C_i}: `cost` times its weight and
#'   its class's weight), `class.weights` (`NULL` when not given),
#'   `tolerance`, and with `probability = TRUE` the sigmoid parameters
#'   `probA`, `probB` (one per pair, as e1071's).
#' @references Chang, C.-C. and Lin, C.-J. (2011). LIBSVM: a library for
#'   support vector machines. *ACM Transactions on Intelligent Systems and
#'   Technology* 2(3), 27.
#'
#'   Fan, R.-E., Chen, P.-H. and Lin, C.-J. (2005). Working set
#'   selection using second order information for training support vector
#'   machines. *JMLR* 6, 1889-1918.
#'
#'   Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
#'   probabilistic outputs for support vector machines. *Machine Learning* 68,
#'   267-276.
#'
#'   Platt, J. C. (1998). Sequential minimal optimization: a fast algorithm
#'   for training support vector machines. Microsoft Research technical
#'   report MSR-TR-98-14.
#'
#'   Platt, J. C. (1999). Probabilistic outputs for support vector machines
#'   and comparisons to regularized likelihood methods. In *Advances in Large
#'   Margin Classifiers*, 61-74. MIT Press.
#'
#'   Schölkopf, B. and Smola, A. J. (2002). *Learning with Kernels*. MIT
#'   Press.
#'
#'   Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
#'   multi-class classification by pairwise coupling. *JMLR* 5, 975-1005.
#' @export
#' @examples
#' fit <- kernel_svm(Species ~ ., data = iris, cost = 10)
#' fit
#' table(predict(fit, iris), iris$Species)
#' head(predict(fit, iris, type = "decision"))
#'
#' # the hard margin on two separable classes, and the slab it finds
#' two <- droplevels(subset(iris, Species != "virginica"))
#' hard <- kernel_svm(Species ~ Petal.Length + Petal.Width, data = two,
#'                    kernel = "linear", cost = Inf)
#' summary(hard)
#' plot(hard, two)
#'
#' # probabilities by Platt scaling (reproducible with set.seed)
#' set.seed(1)
#' pfit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
#' round(predict(pfit, iris[c(1, 51, 101), ], type = "prob"), 3)
#'
#' # the kernel as data: a precomputed kernel matrix, and a kernel function
#' x <- as.matrix(iris[, 1:4])
#' K <- kernel_matrix(x, kernel = "rbf", gamma = 0.5)
#' kfit <- kernel_svm(K, iris$Species, kernel = "precomputed")
#' predict(kfit, K[c(1, 51, 101), ])
#' rbf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.5)
#' ffit <- kernel_svm(x, iris$Species, kernel = rbf)
#' predict(ffit, x[c(1, 51, 101), ])
#'
#' # sparse rows (Matrix's dgCMatrix), computed from their non-zeros
#' if (requireNamespace("Matrix", quietly = TRUE)) {
#'   xs <- Matrix::rsparsematrix(200, 1000, density = 0.01)
#'   ys <- factor(ifelse(as.vector(xs %*% rnorm(1000)) > 0, "a", "b"))
#'   sfit <- kernel_svm(xs, ys, kernel = "linear", scale = FALSE)
#'   mean(predict(sfit, xs) == ys)
#' }
kernel_svm <- function(x, ...) {
  kc_require_input(missing(x), ...names())
  UseMethod("kernel_svm")
}

#' @rdname kernel_svm
#' @export
kernel_svm.default <- function(x, y = NULL, kernel = "rbf", gamma = NULL, degree = 3,
                               coef0 = 0, cost = 1, class.weights = NULL, weights = NULL,
                               scale = TRUE, probability = FALSE, tolerance = 1e-3,
                               max_iter = 1e7, cachesize = NULL, shrinking = TRUE, ...) {
  call <- kc_call(match.call(), "kernel_svm")
  kc_fit_svm(kc_design_xy(x, y, kernel = kernel), kernel, gamma, degree, coef0, cost, class.weights, weights,
             scale, probability, tolerance, max_iter, cachesize, shrinking, ..., call = call)
}

#' @rdname kernel_svm
#' @export
kernel_svm.formula <- function(formula, data = NULL, subset, na.action, weights, ...) {
  call <- kc_call(match.call(), "kernel_svm")
  d <- kc_design_formula(call, parent.frame())
  # weights from the model frame
  kc_fit_formula(kc_fit_svm, kernel_svm.default, d, list(weights = d$weights, ...), call)
}

# The fit, for both methods (as kc_fit_means()).
kc_fit_svm <- function(d, kernel, gamma, degree, coef0, cost, class.weights, weights, scale,
                       probability, tolerance, max_iter, cachesize, shrinking, ..., call,
                       .path = NULL) {
  kc_check_dots(...)
  kc_threads()
  d <- kc_scale_design(d, scale)
  k <- kc_kernel(kernel, gamma, degree, coef0, d$x)
  kc_check_kernel_range(d$x, k, float = TRUE)
  if (!is.numeric(cost) || length(cost) != 1L || is.na(cost) || !(cost > 0)) {
    kc_abort(sprintf("`cost` must be one number > 0 (Inf for the hard margin); got %s.",
                     paste(format(cost), collapse = ", ")), arg = "cost")
  }
  kc_check_number(tolerance, "tolerance", lower = 0, lower_open = TRUE)
  kc_check_number(max_iter, "max_iter", lower = 1, whole = TRUE)
  if (is.null(cachesize)) {
    largest <- sum(utils::head(sort(tabulate(d$y), decreasing = TRUE), 2L))
    cachesize <- min(1024, 4 * largest^2 / 2^20 + 1)
  }
  kc_check_number(cachesize, "cachesize", lower = 0, lower_open = TRUE)
  kc_check_flag(shrinking, "shrinking")
  kc_check_flag(probability, "probability")
  C <- cost * kc_class_weights(class.weights, d$y)[as.integer(d$y)] *
    kc_obs_weights(weights, length(d$y))
  C[C == 0 | is.nan(C)] <- 0  # weight 0 with cost = Inf: the point is left out
  empty <- levels(d$y)[tapply(C, d$y, max) == 0]
  if (length(empty)) {
    arg <- if (any(kc_class_weights(class.weights, d$y)[empty] == 0)) "class.weights" else "weights"
    kc_abort(sprintf("`%s` gives every observation of class(es) %s weight 0; they cannot be learnt.",
                     arg, kc_enum(empty)), arg = arg)
  }

  control <- list(kernel = k, tolerance = tolerance, max_iter = max_iter,
                  cachesize = cachesize, shrinking = shrinking)
  pairs <- kc_ovo_pairs(levels(d$y))
  fits <- lapply(seq_len(nrow(pairs)), function(m) {
    rows <- which(as.integer(d$y) %in% pairs[m, ])
    kc_svm_binary(d$x, d$y, rows, pairs[m, "first"], C, control, rownames(pairs)[m],
                  path = .path)
  })

  eta <- matrix(0, length(d$y), nrow(pairs), dimnames = list(NULL, rownames(pairs)))
  for (m in seq_along(fits)) eta[fits[[m]]$rows, m] <- fits[[m]]$alpha
  index <- which(rowSums(eta) > 0)
  sign <- vapply(seq_len(nrow(pairs)), function(m) {
    ifelse(as.integer(d$y) == pairs[m, "first"], 1, -1)
  }, numeric(length(d$y)))
  sign <- matrix(sign, nrow = length(d$y))
  converged <- vapply(fits, function(f) f$status == 0L, logical(1))
  if (!all(converged)) {
    kc_warn(sprintf(paste0("The SMO solver reached `max_iter` (%s) before the KKT conditions ",
                           "held within `tolerance` (pairs %s); the solution is approximate."),
                    format(max_iter), kc_enum(rownames(pairs)[!converged])), class = "convergence")
  }
  fit <- new_kernclass(d, k, call = call, class = c("kernel_svm", "kernclass_ovo"),
    index = index,
    SV = d$x[index, , drop = FALSE],
    eta = eta[index, , drop = FALSE],
    coefs = (eta * sign)[index, , drop = FALSE],
    b = stats::setNames(-vapply(fits, `[[`, numeric(1), "rho"), rownames(pairs)),
    nSV = stats::setNames(tabulate(d$y[index], nlevels(d$y)), levels(d$y)),
    n_at_bound = stats::setNames(vapply(fits, `[[`, numeric(1), "at_bound"), rownames(pairs)),
    objective = stats::setNames(vapply(fits, `[[`, numeric(1), "objective"), rownames(pairs)),
    iterations = stats::setNames(vapply(fits, `[[`, numeric(1), "iterations"), rownames(pairs)),
    kkt_violation = stats::setNames(pmax(0, vapply(fits, `[[`, numeric(1), "gap")), rownames(pairs)),
    converged = all(converged), cost = cost, C = C, class.weights = class.weights,
    tolerance = tolerance)
  if (probability) {
    ab <- vapply(seq_len(nrow(pairs)), function(m) {
      kc_svm_platt(d$x, d$y, fits[[m]]$rows, pairs[m, "first"], C, control)
    }, numeric(2))
    fit$probA <- stats::setNames(ab[1L, ], rownames(pairs))
    fit$probB <- stats::setNames(ab[2L, ], rownames(pairs))
  }
  fit
}

kc_class_weights <- function(class.weights, y) {
  lev <- levels(y)
  w <- stats::setNames(rep(1, length(lev)), lev)
  if (is.null(class.weights)) return(w)
  if (identical(class.weights, "inverse")) {
    counts <- tabulate(y, length(lev))
    return(stats::setNames(1 / counts, lev))
  }
  if (!is.numeric(class.weights) || is.null(names(class.weights)) || anyNA(class.weights) ||
      any(class.weights < 0) || any(!is.finite(class.weights))) {
    kc_abort(paste0("`class.weights` must be a named vector of non-negative numbers ",
                    "(names are classes) or \"inverse\"."), arg = "class.weights")
  }
  if (anyDuplicated(names(class.weights))) {
    kc_abort("`class.weights` names a class more than once.", arg = "class.weights")
  }
  unknown <- setdiff(names(class.weights), lev)
  if (length(unknown)) {
    kc_abort(sprintf("`class.weights` names unknown class(es) %s; the classes are %s.",
                     kc_enum(unknown), kc_enum(lev)), arg = "class.weights")
  }
  w[names(class.weights)] <- class.weights
  w
}

kc_obs_weights <- function(weights, n) {
  if (is.null(weights)) return(rep(1, n))
  if (!is.numeric(weights) || length(weights) != n || anyNA(weights) ||
      any(!is.finite(weights)) || any(weights < 0)) {
    kc_abort(sprintf("`weights` must be %d finite non-negative numbers, one per observation.", n),
             arg = "weights")
  }
  as.numeric(weights)
}

# One binary SVM on the training rows `rows`, class `positive` as +1. path:
# kernel_tune()'s state for the costs of one kernel setting (R/tune.R), whose
# fits warm-start from the last and share its kernel rows; NULL alone.
kc_svm_binary <- function(x, y, rows, positive, C, control, label = "", path = NULL) {
  rows <- rows[C[rows] > 0]  # observations of weight 0 take no part
  yb <- ifelse(as.integer(y[rows]) == positive, 1L, -1L)
  Cb <- C[rows]
  xb <- x[rows, , drop = FALSE]
  # The linear kernel's dual is the same for data moved by any c (y'a = 0),
  # but the float kernel cache is not: far from the origin x'y swamps the
  # differences that define the margin. There the data are centred, and
  # rho moved back by c'w. Data centred already (scale = TRUE) never are.
  centre <- NULL
  if (control$kernel$name == "linear" && is.matrix(xb)) {  # never sparse rows: they would fill
    m <- colMeans(xb)
    spread <- sqrt(mean(rowSums(sweep(xb, 2L, m)^2)))
    if (sqrt(sum(m^2)) > spread) {
      centre <- m
      xb <- sweep(xb, 2L, m)
    }
  }
  kc_check_float_resolution(xb, control$kernel, label)
  key <- paste0("pair ", label)
  start <- kc_svm_path_start(path, key, rows, Cb)
  r <- .Call(ffi_smo, xb, yb, Cb, kc_kernel_code(control$kernel),
             control$tolerance, control$max_iter, control$cachesize, control$shrinking,
             kc_threads(), start$alpha0, start$store)
  kc_svm_path_keep(path, key, rows, Cb, r$alpha, r$store)
  if (!is.null(centre)) r$rho <- r$rho + sum(centre * colSums(r$alpha * yb * xb))
  if (!is.finite(r$rho) || !is.finite(r$objective) || !all(is.finite(r$alpha))) {
    # never NaN or Inf from a model that says it converged
    kc_abort(sprintf(paste0("The SVM's solution%s is not finite numbers on this data (the ",
                            "%s kernel's values lose their precision). Scale the inputs ",
                            "(scale = TRUE) or use a smaller `degree` or `gamma`."),
                     if (nzchar(label)) paste0(" for classes ", label) else "",
                     control$kernel$name), arg = "x", class = "not_finite")
  }
  if (r$status == 2L) {
    kc_abort(sprintf(paste0("With cost = Inf (hard margin) the classes %s are not separable in ",
                            "the feature space of the %s kernel (or only with a margin below ",
                            "1e-4 of the data's radius there). Use a finite `cost`."),
                     label, control$kernel$name), arg = "cost", class = "not_separable")
  }
  r$rows <- rows
  r$at_bound <- sum(r$alpha >= Cb)
  r
}

# Platt's sigmoid for one pair from 5-fold cross-validated decision values.
kc_svm_platt <- function(x, y, rows, positive, C, control, folds = 5L) {
  yb <- as.integer(y[rows]) == positive
  perm <- sample.int(length(rows))
  fold <- integer(length(rows))
  fold[perm] <- rep_len(seq_len(folds), length(rows))
  dec <- numeric(length(rows))
  for (f in seq_len(folds)) {
    test <- fold == f
    train <- rows[!test]
    if (!any(test)) next
    ytrain <- yb[!test]
    if (all(ytrain) || !any(ytrain)) {
      dec[test] <- if (all(ytrain)) 1 else -1  # one class only, as LIBSVM
      next
    }
    r <- kc_svm_binary(x, y, train, positive, C, control)
    sv <- r$rows[r$alpha > 0]
    coefs <- as.matrix(r$alpha[r$alpha > 0] * ifelse(as.integer(y[sv]) == positive, 1, -1))
    dec[test] <- kc_expand(x[rows[test], , drop = FALSE], x[sv, , drop = FALSE], coefs,
                           control$kernel) - r$rho
  }
  kc_platt_fit(dec, yb)
}

#' @export
kc_scores.kernel_svm <- function(object, x) {
  s <- kc_expand(x, object$SV, object$coefs, object$kernel)
  s <- s + rep(object$b, each = nrow(s))
  dimnames(s) <- list(rownames(x), names(object$b))
  s
}

# probA and probB as e1071 keeps them: a vector each, one value per pair.
#' @export
kc_platt.kernel_svm <- function(object) {
  if (is.null(object$probA)) NULL else cbind(A = object$probA, B = object$probB)
}

#' @export
coef.kernel_svm <- function(object, ...) {
  kc_check_dots(...)
  alpha <- matrix(0, length(object$y), ncol(object$coefs),
                  dimnames = list(NULL, colnames(object$coefs)))
  alpha[object$index, ] <- object$coefs
  if (ncol(alpha) == 1L) list(alpha = alpha[, 1L], b = unname(object$b)) else
    list(alpha = alpha, b = object$b)
}

#' @export
print.kernel_svm <- function(x, ...) {
  NextMethod()
  cat(sprintf("Cost: %s%s\n", format(x$cost), if (is.infinite(x$cost)) " (hard margin)" else ""))
  cat("Support vectors: ", length(x$index), " (",
      paste0(x$levels, " ", x$nSV, collapse = ", "), ")\n", sep = "")
  if (!x$converged) cat("Warning: the solver did not converge (max_iter reached)\n")
  invisible(x)
}

#' @export
summary.kernel_svm <- function(object, ...) {
  s <- NextMethod()
  s$cost <- object$cost
  s$nSV <- object$nSV
  s$pairs <- data.frame(objective = object$objective, iterations = object$iterations,
                        support_vectors = colSums(object$eta > 0),
                        at_bound = object$n_at_bound, b = object$b,
                        kkt_violation = object$kkt_violation)
  s$converged <- object$converged
  class(s) <- c("summary.kernel_svm", class(s))
  s
}

#' @export
print.summary.kernel_svm <- function(x, ...) {
  NextMethod()
  cat(sprintf("\nCost: %s%s\nSupport vectors per class:\n", format(x$cost),
              if (is.infinite(x$cost)) " (hard margin)" else ""))
  print(x$nSV)
  cat("\nBinary problems (one per class pair):\n")
  print(x$pairs, digits = 5)
  if (!x$converged) cat("\nThe solver did not converge within max_iter.\n")
  invisible(x)
}

# The float cache rounds a kernel value K to about |K| 2^-24, and the
# solver's steps rest on K_ii + K_jj - 2 K_ij. Where that (in double, for
# each row and the next) is mostly below the rounding of its three values,
# the solver's answer is rounding noise that can still pass the KKT test
# (a polynomial kernel on data far from the origin: converged, 70% of a
# separable training set). Distance kernels are bounded by 1; the linear
# kernel's data are centred above.
kc_check_float_resolution <- function(xb, k, label = "") {
  n <- nrow(xb)
  if (n < 2L || k$name %in% c("linear", "rbf", "laplace")) return(invisible(TRUE))
  if (!is.matrix(xb)) return(invisible(TRUE))  # dense rows only (not sparse: R/sources.R)
  j <- c(seq_len(n - 1L) + 1L, 1L)
  differ <- rowSums((xb - xb[j, , drop = FALSE])^2) > 0
  if (!any(differ)) return(invisible(TRUE))
  kii <- kc_kernel_self(rowSums(xb^2), k)
  kij <- kc_kernel_self(rowSums(xb * xb[j, , drop = FALSE]), k)
  quad <- (kii + kii[j] - 2 * kij)[differ]
  noise <- (2^-22 * pmax(abs(kii), abs(kii[j]), abs(kij)))[differ]
  ratio <- stats::median(abs(quad) / noise)
  if (is.finite(ratio) && ratio >= 4) return(invisible(TRUE))
  kc_abort(sprintf(paste0("The %s kernel's values on this data are too large for the SVM's ",
                          "single-precision kernel cache to tell the points apart%s (their ",
                          "differences are below its rounding). Scale the inputs (scale = ",
                          "TRUE), centre them, or use a smaller `degree`, `gamma` or `coef0`."),
                   k$name, if (nzchar(label)) paste0(" for classes ", label) else ""),
           arg = "x", class = "precision")
}
