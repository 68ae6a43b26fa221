#' Data-driven kernel scale: the median heuristic
#'
#' Estimates the kernel parameter \eqn{\gamma}{gamma} from the data alone, without
#' labels or random numbers, so that the quantity \eqn{\gamma}{gamma} multiplies in
#' the kernel is 1 for a typical pair of points. Every fitter (and
#' [kernel_matrix()]) accepts `gamma = "median"` and then uses this value,
#' computed on the inputs the kernel sees: for the fitters, the coded and
#' (with `scale = TRUE`) scaled training inputs; for [kernel_matrix()], `x`
#' as given. The model stores the number, `print()` shows it, and
#' `predict()` uses it. [kernel_cv()] and [kernel_tune()] refit every fold,
#' so with `gamma = "median"` each fold's value comes from its own training
#' rows.
#'
#' @section The rule: Over the pairs of distinct rows \eqn{i < j} (the pairs
#'   of [stats::dist()]), take the median \eqn{M} of the positive values of
#'   the quantity that \eqn{\gamma}{gamma} scales, and return \eqn{\gamma = 1/M}{gamma = 1/M}:
#'   * `"rbf"`: \eqn{\exp(-\gamma\|x - y\|^2)}{exp(-gamma ||x - y||^2)}, so \eqn{M} is the median
#'     squared distance and the kernel of a median pair is \eqn{e^{-1}}{exp(-1)};
#'   * `"laplace"`: \eqn{\exp(-\gamma\|x - y\|)}{exp(-gamma ||x - y||)}, so \eqn{M} is the median
#'     distance (not squared: the kernel is again \eqn{e^{-1}}{exp(-1)} at the median
#'     pair, where \eqn{1/\mathrm{median}\|x-y\|^2}{1 / median ||x - y||^2} would make the scale
#'     depend on the units of the data);
#'   * `"polynomial"` and `"sigmoid"`: \eqn{\gamma x'y + c_0}{gamma x'y + coef0}, so \eqn{M} is
#'     the median of \eqn{|x_i'x_j|}: the inner products are then of order
#'     one, which keeps \eqn{\tanh}{tanh} out of saturation and the polynomial's
#'     terms balanced against \eqn{c_0}{coef0};
#'   * `"linear"` has no \eqn{\gamma}{gamma}; the value of `"rbf"` is returned (and
#'     stored by the fitters) but not used.
#'
#'   Pairs of identical rows (value 0) carry no information about scale and
#'   are left out, so repeated rows do not drive \eqn{\gamma}{gamma} to infinity;
#'   when no pair is positive (all rows equal, or, for the inner product,
#'   all orthogonal) there is no scale to find and it is an error.
#'
#' @section Large data: With more than `max_rows` rows, only `max_rows`
#'   evenly spaced rows enter, `round(seq(1, n, length.out = max_rows))`: a
#'   fixed rule that draws no random numbers (the random number generator and
#'   `.Random.seed` are untouched), so the result is the same every time.
#'   Up to `max_rows` rows the result does not depend on the order of the
#'   rows; above it, it does, since the chosen rows depend on their order.
#'   The default, 1000 rows, makes about half a million pairs: a few
#'   hundredths of a second.
#'
#' @param x A numeric matrix, numeric vector or data frame (factor columns
#'   coded as by the fitters, one indicator per level); for the formula
#'   method, a formula `class ~ inputs` as given to a fitter, or one-sided,
#'   `~ inputs`. A sparse matrix is used sparse (scaled without centring,
#'   as the fitters do).
#' @param kernel The kernel the value is for: `"rbf"` (default),
#'   `"laplace"`, `"polynomial"`, `"sigmoid"` or `"linear"`. Precomputed
#'   and user kernels have no gamma: an error of class
#'   `"kernclass_kernel_data_error"`.
#' @param scale If `TRUE` (default, as the fitters), centre and scale each
#'   numeric input column to unit variance first, as the fitters do.
#' @param max_rows The largest number of rows used (see Large data), a whole
#'   number of at least 2.
#' @param data,subset,na.action For the formula method, as for the fitters.
#' @param formula A formula `class ~ inputs` or `~ inputs`.
#' @param ... Further arguments to the default method.
#' @return One positive number, \eqn{\gamma}{gamma}. Data of magnitude beyond
#'   \eqn{10^{100}}{1e100} (or below \eqn{10^{-100}}{1e-100}) are divided by a power of two
#'   first, so that squared distances neither overflow nor underflow, and
#'   \eqn{\gamma}{gamma} is scaled back; where \eqn{\gamma}{gamma} itself is beyond the
#'   range of doubles the result is an error of class
#'   `"kernclass_overflow_error"`.
#' @references Schölkopf, B. and Smola, A. J. (2002). *Learning with Kernels*.
#'   MIT Press.
#'
#'   Garreau, D., Jitkrittum, W. and Kanagawa, M. (2017). Large sample
#'   analysis of the median heuristic. arXiv:1707.07269.
#' @seealso [kernel_tune()] to choose \eqn{\gamma}{gamma} by cross-validation, for
#'   example on a grid of multiples of this value.
#' @export
#' @examples
#' estimate_gamma(iris[, 1:4])
#' estimate_gamma(Species ~ Petal.Length + Petal.Width, data = iris, kernel = "laplace")
#'
#' # 1 / median squared distance of the scaled inputs (iris repeats some
#' # rows: their zero distances are left out)
#' d2 <- dist(scale(iris[, 1:4]))^2
#' 1 / median(d2[d2 > 0])
#'
#' # every fitter takes gamma = "median" and stores the value it used
#' fit <- kernel_svm(Species ~ ., data = iris, gamma = "median")
#' fit$kernel$gamma
#'
#' # a grid around it for kernel_tune()
#' g <- estimate_gamma(iris[, 1:4])
#' set.seed(1)
#' tuned <- kernel_tune(kernel_svm, iris[, 1:4], iris$Species, folds = 3,
#'                      grid = list(gamma = g * c(0.25, 1, 4), cost = c(1, 10)))
#' tuned$best
estimate_gamma <- function(x, ...) UseMethod("estimate_gamma")

# The estimate, for both methods, from an unscaled design.
kc_gamma_design <- function(d, kernel, scale, max_rows, ...) {
  kc_check_dots(...)
  # one row cannot be scaled; kc_median_gamma() says what is wrong with it
  if (nrow(d$x) > 1L) d <- kc_scale_design(d, scale)
  kc_median_gamma(d$x, kc_kernel_name(kernel), max_rows)
}

#' @rdname estimate_gamma
#' @export
estimate_gamma.default <- function(x, kernel = "rbf", scale = TRUE, max_rows = 1000, ...) {
  if (kc_is_kernel_data(kernel)) {
    kc_abort(paste0("estimate_gamma() estimates the gamma of a built-in kernel; a precomputed ",
                    "or user kernel has no gamma of ours."), arg = "kernel",
             class = "kernel_data")
  }
  kc_gamma_design(kc_design_xy(x, labels = FALSE), kernel, scale, max_rows, ...)
}

#' @rdname estimate_gamma
#' @export
estimate_gamma.formula <- function(formula, data = NULL, subset, na.action, ...) {
  d <- kc_design_formula(match.call(), parent.frame(), labels = FALSE)
  kc_fit_formula(kc_gamma_design, estimate_gamma.default, d, list(...))
}

# The median heuristic on x as given (see ?estimate_gamma), by the kernel's
# median rule in the kernel table.
kc_median_gamma <- function(x, kernel, max_rows = 1000) {
  kc_check_number(max_rows, "max_rows", lower = 2, whole = TRUE)
  n <- nrow(x)
  if (n < 2L) {
    kc_abort(sprintf('`x` has %d row(s): gamma = "median" needs at least 2 rows.', n),
             arg = "x")
  }
  if (n > max_rows) x <- x[round(seq(1, n, length.out = max_rows)), , drop = FALSE]
  rule <- kc_kernels[[kernel]]$median
  # squares of values beyond 1e100 (or below 1e-100) overflow (underflow):
  # there the rows are divided by a power of two near their largest value,
  # exactly, and gamma is scaled back (ordinary data are left as they are)
  if (inherits(x, "kc_kernel_data")) {
    kc_abort('gamma = "median" needs a built-in kernel, not given kernel values or a function.',
             arg = "gamma", class = "kernel_data")
  }
  top <- if (is.matrix(x)) max(abs(x)) else max(abs(kc_csr_triplets(x)$val), 0)
  unit <- if (top > 1e100 || (top > 0 && top < 1e-100)) 2^round(log2(top)) else 1
  v <- if (is.matrix(x)) kc_pair_values(x / unit, rule) else kc_csr_pair_values(x, unit, rule)
  v <- v[v > 0]
  if (!length(v)) {
    what <- if (rule == "inner product") {
      "every pair of rows has inner product 0"
    } else {
      "all rows are equal"
    }
    kc_abort(sprintf('`x`: %s, so gamma = "median" finds no scale; give gamma a number.', what),
             arg = "x")
  }
  power <- if (rule == "distance") 1 else 2
  gamma <- 1 / stats::median(v) / unit^power
  if (!is.finite(gamma) || !(gamma > 0)) {
    kc_abort(sprintf(paste0('`x`: gamma = "median" is %s on data of magnitude %.3g, beyond ',
                            'the range of doubles; rescale the inputs (or use scale = TRUE).'),
                     if (gamma > 0) "too large" else "too small", top), arg = "x",
             class = "overflow")
  }
  gamma
}

# What gamma scales ("squared distance", "distance" or "inner product"),
# over the pairs i < j of rows of x (absolute values for inner products).
kc_pair_values <- function(x, what) {
  switch(what,
    "inner product" = {
      g <- tcrossprod(x)
      abs(g[lower.tri(g)])
    },
    distance = as.vector(stats::dist(x)),
    "squared distance" = as.vector(stats::dist(x))^2)
}

# kc_pair_values() of sparse rows (divided by unit), from their Gram matrix,
# computed sparse: squared distances from norms, those that lost all their
# digits to cancellation (below 1e-12 of the norms) taken as 0.
kc_csr_pair_values <- function(x, unit, rule) {
  x$val <- x$val / unit
  g <- .Call(ffi_kernel_matrix, x, NULL, kc_plain_code(),
             kc_threads())
  low <- lower.tri(g)
  if (rule == "inner product") return(abs(g[low]))
  sq <- diag(g)
  scale <- outer(sq, sq, "+")
  d2 <- scale - 2 * g
  d2[d2 < 1e-12 * scale] <- 0
  if (rule == "distance") sqrt(d2[low]) else d2[low]
}
