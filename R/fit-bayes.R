#' Kernelized Bayes classifier
#'
#' The kernelized form of the Gaussian (quadratic) Bayes classifier, after
#' Ruye Wang's lecture notes "Kernelized Bayes classifier": the quadratic
#' discriminant \eqn{x'Wx + w'x + w} is rewritten so that
#' the data appear only in inner products, which are then replaced by a
#' kernel. The offset is not taken from the Gaussian model but found by a
#' one-dimensional threshold search on the training scores
#' ([threshold_search()]).
#'
#' For two classes \eqn{C_+}{C+} (the first factor level) and \eqn{C_-}{C-} with
#' \eqn{n_\pm}{n+ and n-} training points \eqn{x_i}, covariance matrices
#' \eqn{\Sigma_\pm}{S+ and S-} and a kernel \eqn{k}, the decision function is
#' \eqn{f(x) = p(x) + b}, positive for \eqn{C_+}{C+}, where
#' * `type = 1`: \eqn{p(x) = \frac{1}{n_+}\sum_{i \in +} k(x, x_i) -
#'   \frac{1}{n_-}\sum_{i \in -} k(x, x_i)}{p(x) = mean of k(x, x_i) over C+
#'   - mean of k(x, x_i) over C-} (the linear part only);
#' * `type = 2`: the same after whitening by the pooled inverse covariance:
#'   \eqn{k(U'x, U'x_i)} with \eqn{UU' = (\Sigma_+ + \Sigma_-)^{-1}}{U U' = (S+ + S-)^-1},
#'   i.e. the kernel under the Mahalanobis metric of
#'   \eqn{\Sigma_+ + \Sigma_-}{S+ + S-};
#' * `type = 3`: the full quadratic form
#'   \eqn{p(x) = K(z, z) + \frac{1}{n_+}\sum_{i \in +} k(U_+'x, U_+'x_i) -
#'   \frac{1}{n_-}\sum_{i \in -} k(U_-'x, U_-'x_i)}{p(x) = K(z, z) + mean
#'   of k(U+'x, U+'x_i) over C+ - mean of k(U-'x, U-'x_i) over C-} with
#'   \eqn{U_\pm U_\pm' = \Sigma_\pm^{-1}}{U+ U+' = S+^-1, U- U-' = S-^-1}
#'   and \eqn{z'z = x'Wx},
#'   \eqn{W = -(\Sigma_+^{-1} - \Sigma_-^{-1})/2}{W = -(S+^-1 - S-^-1) / 2}.
#'
#' \eqn{W} is indefinite in general, so its square root \eqn{z} would be
#' complex; no complex arithmetic is needed, because \eqn{K(z,z)} depends on
#' \eqn{z} only through the bilinear form \eqn{z'z = x'Wx}: it is
#' \eqn{x'Wx} for the linear kernel, \eqn{(\gamma x'Wx + c_0)^d}{(gamma x'Wx + coef0)^degree}
#' for the polynomial, \eqn{\tanh(\gamma x'Wx + c_0)}{tanh(gamma x'Wx + coef0)}
#' for the sigmoid, and the
#' constant 1 for `"rbf"` and `"laplace"`.
#'
#' `gamma = "median"` ([estimate_gamma()]) is computed once, on the scaled
#' inputs before any whitening, and serves every type and class pair.
#'
#' With the linear kernel, type 3 is the quadratic discriminant of the
#' Gaussian model (as [MASS::qda()], up to the offset), type 2 ranks points as
#' Fisher's linear discriminant with the within-class scatter
#' \eqn{\Sigma_+ + \Sigma_-}{S+ + S-} (as [MASS::lda()] when the classes
#' have equal sizes), and type 1 as the nearest-means direction
#' \eqn{m_+ - m_-}{m+ - m-} of the class means.
#'
#' @section Offset: \eqn{b} is placed by the threshold search of the
#'   kernelized Bayes classifier on the
#'   training scores \eqn{p(x_n)} of the pair's two classes
#'   ([threshold_search()]): the midpoint between the two neighbouring sorted
#'   scores that maximises the labelling consistency. The measure ignores
#'   which side holds the first class; where the best split has it below,
#'   the pair's decision value is turned round, \eqn{-(p(x) + b)}.
#'
#' @section Covariances and `ridge`: The covariance matrices are the usual
#'   unbiased ones (as `cov()` and MATLAB's `cov`). Each is regularised to
#'   \eqn{\Sigma_c + \lambda I}{S_c + lambda I} with \eqn{\lambda}{lambda} = `ridge` times the mean
#'   variance of the (scaled) input columns, so that the default `ridge =
#'   1e-3` adds one thousandth of the average variance (with `scale = TRUE`,
#'   \eqn{\lambda = 10^{-3}}{lambda = 0.001}). This keeps singular or nearly singular
#'   covariances (more inputs than points in a class, a column constant
#'   within a class) invertible. The inverse square roots are taken from the
#'   eigen decomposition; eigenvalues below `sqrt(.Machine$double.eps)` times
#'   the largest are treated as zero (a pseudo-inverse, as [MASS::ginv()]),
#'   so even `ridge = 0` never gives `NaN`. Types 2 and 3 need at least two
#'   points in every class.
#'
#' @section More than two classes: One model per pair of classes
#'   (one-vs-one, pairs in LIBSVM's order 1-2, 1-3, ..., 2-3, ...), each
#'   fitted on the two classes' training points with its own covariances and
#'   its own threshold search. A point gets the class with most pairwise
#'   votes (ties to the class that comes first in level order).
#'   `predict(type = "decision")` gives the matrix of pairwise decision
#'   values, one column per pair (named `"first/second"`, positive for the
#'   first class); with two classes, a vector.
#'
#' @section Probabilities: `predict(type = "prob")` first turns each pair's
#'   decision value into \eqn{P(\mathrm{first} \mid \mathrm{first\ or\
#'   second})}{P(first | first or second)} with Platt's (1999) sigmoid
#'   \eqn{1/(1 + \exp(Af + B))}{1 / (1 + exp(A f + B))}, fitted at
#'   training time to that pair's training decision values (maximum
#'   likelihood with Platt's target values \eqn{(N_+ + 1)/(N_+ + 2)}{(N+ + 1)/(N+ + 2)} and
#'   \eqn{1/(N_- + 2)}{1/(N- + 2)}, by the Newton method of Lin, Lin and Weng 2007). With
#'   more than two classes the pairwise probabilities are then coupled into
#'   class probabilities by method 2 of Wu, Lin and Weng (2004), as LIBSVM
#'   does; as there, each pairwise probability is first kept within
#'   \eqn{[10^{-7}, 1 - 10^{-7}]}{[1e-7, 1 - 1e-7]}. The sigmoids are fitted
#'   to the training decision values, not to
#'   cross-validated ones, so with flexible kernels the probabilities can be
#'   over-confident; the most probable class need not be the voted class
#'   (the model's class, from its searched thresholds; `predict(rule =
#'   "prob")` gives the most probable one).
#'
#' @inheritParams kernel_means
#' @param type `1`, `2` or `3`: the linear part only, whitened by the pooled
#'   covariance, or the full quadratic form (see Details). Default `2`: the
#'   pooled covariance is better conditioned than the per-class ones that
#'   type 3 inverts, and type 2 was as accurate as or more accurate than
#'   type 3 in the iris experiment of Wang's notes, repeated in
#'   `vignette("iris", package = "kernclass")`.
#' @param ridge Non-negative regularisation of the covariance matrices,
#'   relative to the mean input variance (see the section on `ridge`).
#'   Default `1e-3`.
#' @return An object of class `c("kernel_bayes", "kernclass_ovo",
#'   "kernclass")` (`"kernclass_ovo"`: the one-vs-one classifiers, as
#'   [kernel_svm()]): a list with
#'   * `call` (which [stats::update()] re-runs), `levels`, `counts` (training
#'     points per class), `kernel` (the kernel's name and parameters, with
#'     the value `gamma = "median"` gave), `x` (the coded, scaled training
#'     inputs), `y` (the labels) and `scaling` (the centres and scales used,
#'     or `NULL` with `scale = FALSE`);
#'   * `terms` and `xlevels` for formula and data-frame fits (`NULL` for a
#'     matrix); `contrasts`, the coding of factor inputs (`NULL` when there
#'     are none); `na.action`, the rows dropped for missing values (`NULL`
#'     when none were);
#'   * `type`, `ridge` and `lambda` (the ridge added to the covariances);
#'     `basis`, for types 2 and 3 with more columns than rows, an
#'     orthonormal basis of the span of the training rows in which the
#'     covariances are worked with (the cost then follows the rows, not the
#'     columns; `NULL` otherwise): the pairs' whitening matrices then act on
#'     the coordinates `x %*% basis`, with their value on the rest of the
#'     space in the attribute `"outside"` (see [coef.kernel_bayes()]);
#'   * `pairs`, a list with one model per class pair: the classes `first`
#'     and `second`, the training `rows` used, `positive` (which of those
#'     rows are of the first class), `weight` (the weight of each of those
#'     rows in \eqn{p(x)}{p(x)}: \eqn{1/n_+}{1/n+} or \eqn{-1/n_-}{-1/n-}),
#'     the whitening matrices (`U` for type 2; `U_first`, `U_second` and `W`
#'     for type 3; none for type 1), the offset `b`, the `split`,
#'     `consistency` and `sign` of the threshold search (the pair's decision
#'     value is `sign * (p(x) + b)`), and the Platt coefficients `platt`.
#'
#'   Unlike [kernel_means()], there is no model-wide `weight` or `offset`:
#'   each pair has its own. See [coef.kernel_bayes()].
#' @references Wang, R. Kernelized Bayes classifier. Lecture notes on
#'   pattern recognition, Harvey Mudd College (the three variants, the
#'   threshold search for the offset and the iris experiment).
#'
#'   Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
#'   probabilistic outputs for support vector machines. *Machine Learning*
#'   68, 267-276.
#'
#'   Platt, J. C. (1999). Probabilistic outputs for support vector machines
#'   and comparisons to regularized likelihood methods. In *Advances in Large
#'   Margin Classifiers*, 61-74. MIT Press.
#'
#'   Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
#'   multi-class classification by pairwise coupling. *Journal of Machine
#'   Learning Research* 5, 975-1005.
#' @export
#' @examples
#' train <- seq(1, 150, by = 2)
#' fit <- kernel_bayes(Species ~ Petal.Length + Petal.Width, data = iris[train, ],
#'                     type = 3, kernel = "laplace", gamma = 5, scale = FALSE)
#' fit
#' mean(predict(fit, iris[-train, ]) == iris$Species[-train])
#' head(predict(fit, iris[-train, ], type = "decision"))
#' head(predict(fit, iris[-train, ], type = "prob"))
#' plot(fit, iris)
#'
#' # linear kernel, two classes: type 3 is the quadratic discriminant
#' two <- droplevels(subset(iris, Species != "setosa"))
#' fit2 <- kernel_bayes(two[, 1:4], two$Species, type = 3, kernel = "linear")
#' summary(fit2)
kernel_bayes <- function(x, ...) {
  kc_require_input(missing(x), ...names())
  UseMethod("kernel_bayes")
}

#' @rdname kernel_bayes
#' @export
kernel_bayes.default <- function(x, y = NULL, kernel = "rbf", gamma = NULL, degree = 3,
                                 coef0 = 0, scale = TRUE, type = 2, ridge = 1e-3, ...,
                                 approx = NULL) {
  call <- kc_call(match.call(), "kernel_bayes")
  kc_fit_bayes(kc_design_xy(x, y, kernel = kernel), kernel = kernel, gamma = gamma,
               degree = degree, coef0 = coef0, scale = scale, type = type, ridge = ridge, ...,
               approx = approx, call = call)
}

#' @rdname kernel_bayes
#' @export
kernel_bayes.formula <- function(formula, data = NULL, subset, na.action, ...) {
  call <- kc_call(match.call(), "kernel_bayes")
  d <- kc_design_formula(call, parent.frame())
  kc_fit_formula(kc_fit_bayes, kernel_bayes.default, d, list(...), call)
}

# The fit, for both methods (as kc_fit_means()), written once over the
# representation (R/repr.R): its class statistics, each pair's training
# scores, then the pair's offset and sigmoid (kc_bayes_offset()). With more
# columns than rows (`.span`, internal: forced either way in tests) types 2
# and 3 work in the span of the training rows, where the covariances live,
# so the cost follows n.
kc_fit_bayes <- function(d, kernel, gamma, degree, coef0, scale, type, ridge, ..., approx, call,
                         .span = NULL, .shared = NULL) {
  kc_check_dots(...)
  kc_check_bayes_type(type)
  kc_check_number(ridge, "ridge", lower = 0)
  kc_threads()
  if (inherits(d$x, "kc_kernel_data")) {
    kc_abort(paste0("kernel_bayes() works with the inputs' covariance matrices, which given ",
                    "kernel values or a kernel function do not have: use a built-in kernel."),
             arg = "kernel", class = "kernel_data")
  }
  d <- kc_scale_design(d, scale)
  # its covariance matrices are dense: sparse rows are written out (guarded)
  if (inherits(d$x, "kc_csr")) d$x <- as.matrix(d$x)
  k <- kc_kernel_shared(kc_kernel(kernel, gamma, degree, coef0, d$x), .shared)
  kc_check_kernel_range(d$x, k)
  approx <- kc_approx_check(approx, d$x, k)
  # types 2 and 3 whiten the inputs per class pair: the exact kernel's rows
  # alone hold them; type 1 is the class means' expansions on any
  if (!is.null(approx)) kc_approx_require(approx, "kernel_bayes")
  exact <- kc_repr_exact_only(kc_repr_new(kc_repr_kind(approx)))
  if (!exact && type != 1L) {
    kc_abort(sprintf(paste0("`approx` supports kernel_bayes(type = 1) only (class means of the ",
                            "features); type %d whitens the inputs per class pair. Use ",
                            "type = 1, or the exact model (approx = NULL)."), as.integer(type)),
             arg = "type", class = "approx_unsupported")
  }
  r <- kc_repr_train(approx, d, k, "kernel_bayes")
  s <- if (exact) kc_bayes_stats(r$x, r$y, r$kernel, type, ridge, .span) else
    list(S = kc_repr_expand(r, r$x, diag(nlevels(r$y))), model = list())  # <m_c, phi(x_i)>
  pairs <- kc_ovo_pairs(levels(d$y))
  models <- lapply(seq_len(nrow(pairs)), function(m) {
    first <- pairs[m, "first"]
    second <- pairs[m, "second"]
    p <- if (exact) kc_bayes_pair(s$coords, r$y, first, second, type, r$kernel, s$covs,
                                  s$outside) else kc_bayes_mean_pair(s$S, r$y, first, second)
    kc_bayes_offset(p$model, p$scores, p$positive)
  })
  names(models) <- rownames(pairs)
  # the pairs' decision values sign (p(x) + b), as weights of the class means
  sign <- vapply(models, function(pm) pm$sign, numeric(1))
  A <- matrix(0, nlevels(d$y), nrow(pairs))
  A[cbind(pairs[, "first"], seq_along(sign))] <- sign
  A[cbind(pairs[, "second"], seq_along(sign))] <- -sign
  b <- stats::setNames(sign * vapply(models, function(pm) pm$b, numeric(1)), rownames(pairs))
  fit <- do.call(new_kernclass, c(
    list(d, k, call = call, class = c("kernel_bayes", "kernclass_ovo"), type = as.integer(type),
         ridge = ridge),
    s$model, list(pairs = models, approx = kc_repr_model(r, A, b))),
    quote = TRUE)  # the call is a value, not run
  kc_approx_checked(fit, d, approx)
}

# The exact kernel's statistics: the ridge, the span's basis, the rows in
# its coordinates and the regularised covariance matrix of each class
# (`model`: the fields the model keeps of them).
kc_bayes_stats <- function(x, y, kernel, type, ridge, span) {
  lev <- levels(y)
  counts <- tabulate(y, length(lev))
  if (type >= 2L && any(counts < 2L)) {
    kc_abort(sprintf(paste0("`y` has class(es) %s with fewer than 2 rows: type %d needs a ",
                            "covariance matrix per class. Add data, drop the class, or use ",
                            "type = 1."), kc_enum(lev[counts < 2L]), type), arg = "y")
  }
  variance <- mean(apply(x, 2L, stats::var))
  lambda <- ridge * (if (is.finite(variance) && variance > 0) variance else 1)
  if (is.null(span)) span <- ncol(x) > nrow(x)
  basis <- if (type >= 2L && span) kc_span_basis(x) else NULL
  coords <- kc_bayes_coords(x, basis, train = TRUE)
  # per class: the regularised covariance matrix (in the basis' coordinates)
  covs <- if (type >= 2L) lapply(seq_along(lev), function(c) {
    kc_cov(coords$a[as.integer(y) == c, , drop = FALSE], kernel$shared) +
      diag(lambda, ncol(coords$a))
  }) else NULL
  # the covariances are lambda I on the complement of the span (if any)
  outside <- if (!is.null(basis) && ncol(basis) < ncol(x)) lambda else NULL
  list(coords = coords, covs = covs, outside = outside,
       model = list(lambda = lambda, basis = basis))
}

# Type 1 on an approximate representation: a pair's training scores
# <m_first - m_second, phi(x_i)> from the products S with the class means
# (its model: the class-mean weights of kc_repr_model()).
kc_bayes_mean_pair <- function(S, y, first, second) {
  code <- as.integer(y)
  rows <- which(code == first | code == second)
  list(model = list(first = first, second = second),
       scores = S[rows, first] - S[rows, second], positive = code[rows] == first)
}

# An orthonormal basis (p x min(n, p)) of a space holding the training rows:
# Householder QR of t(x) (LAPACK's, which transforms every column, so the
# span holds the rows whatever their rank).
kc_span_basis <- function(x) {
  qr.Q(qr(t(x), LAPACK = TRUE))
}

# Rows in the basis' coordinates `a` and their squared distance `r2` to its
# span (0 for the training rows, which lie in it; no basis: the rows).
kc_bayes_coords <- function(x, basis, train = FALSE) {
  if (is.null(basis)) return(list(a = x, r2 = numeric(nrow(x))))
  a <- x %*% basis
  r2 <- if (train) numeric(nrow(x)) else rowSums((x - tcrossprod(a, basis))^2)
  list(a = a, r2 = r2)
}

kc_check_bayes_type <- function(type) {
  if (!is.numeric(type) || length(type) != 1L || is.na(type) || !(type %in% 1:3)) {
    got <- if (length(type) == 1L && (is.numeric(type) || is.na(type))) format(type) else
      sprintf("an object of class %s and length %d", class(type)[1], length(type))
    kc_abort(sprintf(paste0("`type` must be 1, 2 or 3 (linear part, pooled whitening, full ",
                            "quadratic form); got %s."), got), arg = "type")
  }
  invisible(type)
}

# Unbiased covariance matrix (as cov(), MATLAB's cov), always p x p; in
# kernel_tune(), once for all the gammas of a fold (kc_gamma_free(), the
# kernel's store `shared`).
kc_cov <- function(x, shared) {
  kc_gamma_free("cov", list(x), shared, function() {
    centred <- sweep(x, 2L, colMeans(x), check.margin = FALSE)
    crossprod(centred) / (nrow(x) - 1)
  })
}

# U with UU' = S^{-1} (pseudo-inverse for eigenvalues below the tolerance):
# S = V diag(l) V' gives U = V diag(1 / sqrt(l)). Never empty: if every
# eigenvalue is zero, one zero column (all points whitened to 0). `outside`:
# S's eigenvalue on the complement of the span (NULL: none), which counts
# for the tolerance; attribute "outside" is its inverse, or 0 if dropped.
kc_inv_sqrt <- function(S, outside = NULL) {
  e <- eigen(S, symmetric = TRUE)
  l <- e$values
  top <- max(l[1L], outside, 0)
  keep <- l > top * sqrt(.Machine$double.eps) & l > 0
  U <- if (!any(keep)) matrix(0, nrow(S), 1L) else
    e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(l[keep]), sum(keep))
  attr(U, "outside") <- if (!is.null(outside) && outside > top * sqrt(.Machine$double.eps) &&
                            outside > 0) 1 / outside else 0
  U
}

# One exact pair model before its offset: classes `first` (positive) and
# `second` of the training data (`coords`: kc_bayes_coords()), its
# whitening, with the training scores p(x_i) of its rows. `outside`: the
# ridge on the complement of the span, if any.
kc_bayes_pair <- function(coords, y, first, second, type, kernel, cov, outside = NULL) {
  code <- as.integer(y)
  rows <- which(code == first | code == second)
  pos <- code[rows] == first
  n_pos <- sum(pos)
  n_neg <- length(pos) - n_pos
  pm <- list(first = first, second = second, rows = rows, positive = pos,
             weight = ifelse(pos, 1 / n_pos, -1 / n_neg))
  if (type == 2L) {
    pm$U <- kc_inv_sqrt(cov[[first]] + cov[[second]], if (!is.null(outside)) 2 * outside)
  } else if (type == 3L) {
    pm$U_first <- kc_inv_sqrt(cov[[first]], outside)
    pm$U_second <- kc_inv_sqrt(cov[[second]], outside)
    pm$W <- -(tcrossprod(pm$U_first) - tcrossprod(pm$U_second)) / 2
    attr(pm$W, "outside") <- -(attr(pm$U_first, "outside") - attr(pm$U_second, "outside")) / 2
  }
  p_train <- kc_bayes_p(pm, list(a = coords$a[rows, , drop = FALSE], r2 = coords$r2[rows]),
                        coords$a, type, kernel)
  if (!all(is.finite(p_train))) kc_abort_overflow(kernel)  # whitening can enlarge the points
  list(model = pm, scores = p_train, positive = pos)
}

# A pair model's offset by the threshold search on its training scores p
# (b, split, consistency, sign) and its sigmoid; `pos`: the rows of the
# first class.
kc_bayes_offset <- function(pm, p, pos) {
  pm <- c(pm, kc_search(p, ifelse(pos, 1L, -1L)))
  pm$platt <- kc_platt_fit(pm$sign * (p + pm$b), pos)
  pm
}

# Whitened points: a %*% U, and where U has an inverse eigenvalue outside
# the span, one more coordinate for the distance to the span (0 for the
# training points), so that inner products and distances are those of the
# whitening in the full space; in kernel_tune(), once for all the gammas
# (the kernel's store `shared`).
kc_whiten <- function(a, r2, U, shared) {
  kc_gamma_free("whiten", list(a, r2, U), shared, function() {
    out <- attr(U, "outside")
    z <- a %*% U
    if (!is.null(out) && out > 0) cbind(z, sqrt(out * r2)) else z
  })
}

# p(x) of one pair model for coded, scaled rows `new` (kc_bayes_coords();
# no offset); `a`: the training rows' coordinates.
kc_bayes_p <- function(pm, new, a, type, kernel) {
  train <- a[pm$rows, , drop = FALSE]
  zero <- numeric(nrow(train))
  out <- switch(type,
    kc_expand(new$a, train, matrix(pm$weight), kernel),
    kc_expand(kc_whiten(new$a, new$r2, pm$U, kernel$shared),
              kc_whiten(train, zero, pm$U, kernel$shared),
              matrix(pm$weight), kernel),
    {
      pos <- pm$positive
      q <- rowSums((new$a %*% pm$W) * new$a)
      w_out <- attr(pm$W, "outside")
      if (!is.null(w_out) && w_out != 0) q <- q + w_out * new$r2
      kc_kernel_self(q, kernel) +
        kc_expand(kc_whiten(new$a, new$r2, pm$U_first, kernel$shared),
                  kc_whiten(train[pos, , drop = FALSE], zero[pos], pm$U_first,
                            kernel$shared),
                  matrix(pm$weight[pos]), kernel) +
        kc_expand(kc_whiten(new$a, new$r2, pm$U_second, kernel$shared),
                  kc_whiten(train[!pos, , drop = FALSE], zero[!pos], pm$U_second,
                            kernel$shared),
                  matrix(pm$weight[!pos]), kernel)
    })
  as.vector(out)
}

# The n x M matrix of pairwise decision values p(x) + b.
#' @export
kc_exact_scores.kernel_bayes <- function(object, x) {
  new <- kc_bayes_coords(x, object$basis)
  a <- kc_bayes_coords(object$x, object$basis, train = TRUE)$a
  s <- vapply(object$pairs, function(pm) {
    pm$sign * (kc_bayes_p(pm, new, a, object$type, object$kernel) + pm$b)
  }, numeric(nrow(x)))
  s <- matrix(s, nrow(x), length(object$pairs),
              dimnames = list(rownames(x), names(object$pairs)))
  s
}

#' @export
kc_platt.kernel_bayes <- function(object) {
  t(vapply(object$pairs, function(pm) pm$platt[c("A", "B")], numeric(2)))
}

#' Expansion of a kernelized Bayes classifier
#'
#' The decision function of each class pair of a [kernel_bayes()] model
#' reads \eqn{f(x) = s K(z,z) + \sum_i \alpha_i k(U_i'x, U_i'x_i) + b}{f(x) = s K(z, z) + sum_i alpha_i k(U_i'x, U_i'x_i) + b}
#' over the pair's training points \eqn{x_i} (on the scaled inputs), with
#' \eqn{\alpha_i = s/n_+}{alpha_i = s/n+} for the first class and \eqn{-s/n_-}{-s/n-} for the
#' second, where \eqn{s} is the orientation `sign` of the pair's threshold
#' search ([threshold_search()]; \eqn{-1} where its best split has the
#' first class below, otherwise 1), and `b` is the search's offset times
#' \eqn{s}. \eqn{U_i} is the identity for type 1, the pooled whitening `U`
#' for type 2, and the whitening of the point's own class for type 3; the
#' term \eqn{K(z,z)} (a function of \eqn{x'Wx}) is present for type 3 only.
#'
#' @param object A [kernel_bayes()] model.
#' @param ... Not used.
#' @return A list with `alpha`, `b`, `sign`, `type` and `whitening`. With two
#'   classes, `alpha` is a vector with one weight per training point, `b` a
#'   number and `whitening` the list of matrices of the pair (`U`; or
#'   `U_first`, `U_second`, `W`; empty for type 1). With more classes,
#'   `alpha` is a matrix with a column per pair (zero for points outside the
#'   pair), `b` a vector and `whitening` a list per pair.
#'
#'   With more columns than training rows (types 2 and 3), the covariances
#'   are worked with in the span of the training rows: `whitening` then also
#'   holds `basis`, an orthonormal basis of that span (one column per
#'   dimension, at most one per row), and the whitening matrices act on the
#'   coordinates `x %*% basis` (for training points, which lie in the span,
#'   `x %*% basis %*% U` is the full whitening). `outside` gives, per
#'   matrix, its value on the complement of the span (the inverse ridge, or
#'   0 where the ridge is below the pseudo-inverse's tolerance); a new point
#'   at distance r from the span gets the extra whitened coordinate
#'   \eqn{r \sqrt{outside}}{r sqrt(outside)}, and \eqn{x'Wx}{x'Wx} the term
#'   \eqn{outside\, r^2}{outside r^2}.
#' @export
#' @examples
#' two <- droplevels(subset(iris, Species != "setosa"))
#' fit <- kernel_bayes(Species ~ ., data = two, type = 2, kernel = "linear")
#' cf <- coef(fit)
#' U <- cf$whitening$U
#' k <- kernel_matrix(fit$x %*% U, kernel = "linear")
#' all.equal(drop(k %*% cf$alpha) + cf$b, unname(predict(fit, type = "decision")))
coef.kernel_bayes <- function(object, ...) {
  kc_check_dots(...)
  kc_repr_coef(kc_repr(object), object)
}

#' @export
kc_coef_exact.kernel_bayes <- function(object) {
  n <- length(object$y)
  alpha <- vapply(object$pairs, function(pm) {
    a <- numeric(n)
    a[pm$rows] <- pm$sign * pm$weight
    a
  }, numeric(n))
  alpha <- matrix(alpha, n, length(object$pairs), dimnames = list(NULL, names(object$pairs)))
  b <- vapply(object$pairs, function(pm) pm$sign * pm$b, numeric(1))
  sign <- vapply(object$pairs, function(pm) pm$sign, integer(1))
  whitening <- lapply(object$pairs, function(pm) {
    w <- pm[intersect(c("U", "U_first", "U_second", "W"), names(pm))]
    outside <- vapply(w, function(m) {
      if (is.null(attr(m, "outside"))) 0 else attr(m, "outside")
    }, numeric(1))
    w <- lapply(w, function(m) { attr(m, "outside") <- NULL; m })
    if (!is.null(object$basis)) c(w, list(basis = object$basis, outside = outside)) else w
  })
  if (length(object$pairs) == 1L) {
    list(alpha = alpha[, 1L], b = unname(b), sign = unname(sign), type = object$type,
         whitening = whitening[[1L]])
  } else {
    list(alpha = alpha, b = b, sign = sign, type = object$type, whitening = whitening)
  }
}

#' @export
kc_summary_exact.kernel_bayes <- function(object) {
  s <- NextMethod()
  s$b <- kc_coef_exact.kernel_bayes(object)$b
  s
}
