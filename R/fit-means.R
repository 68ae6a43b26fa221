#' Kernel nearest-means (centroid) classifier
#'
#' Assigns a point to the class whose mean is nearest in the feature space of
#' the kernel (Schölkopf and Smola 2002, section 1.2, for two classes; any
#' number of classes as in Roshan's "Kernels and kernel nearest means").
#' With \eqn{n_c} training points \eqn{x_i} in class \eqn{c} and the
#' feature map \eqn{\phi}{phi} of the kernel, the squared feature-space
#' distance to the class mean \eqn{m_c} is
#' \deqn{\|\phi(x) - m_c\|^2 = k(x,x) - \frac{2}{n_c}\sum_{i \in c} k(x, x_i)
#'   + \frac{1}{n_c^2}\sum_{i,j \in c} k(x_i, x_j).}{||phi(x) - m_c||^2 =
#'   k(x, x) - (2/n_c) sum_{i in c} k(x, x_i) + (1/n_c^2) sum_{i, j in c} k(x_i, x_j).}
#' The last term, \eqn{\|m_c\|^2}{||m_c||^2}, is computed once at fit time, in tiles and
#' without forming the kernel matrix.
#'
#' @section Decision values: Each class gets the score
#'   \eqn{f_c(x) = \frac{1}{n_c}\sum_{i\in c} k(x, x_i) - \|m_c\|^2/2
#'   = (k(x,x) - \|\phi(x) - m_c\|^2)/2}{f_c(x) = (1/n_c) sum_{i in c} k(x, x_i)
#'   - ||m_c||^2/2 = (k(x, x) - ||phi(x) - m_c||^2)/2}, so the nearest mean
#'   is the largest score. With two classes `predict(type = "decision")` returns
#'   \eqn{f_1 - f_2 = \mathrm{mean}\, k(x, S_+) - \mathrm{mean}\, k(x, S_-) - b}{f_1
#'   - f_2 = mean k(x, S+) - mean k(x, S-) - b}, where \eqn{S_\pm}{S+, S-} are
#'   the training points of the two classes,
#'   with \eqn{b = (\|m_+\|^2 - \|m_-\|^2)/2}{b = (||m+||^2 - ||m-||^2)/2}, the rule of the kernel
#'   centroid classifier (the first factor level is the positive class);
#'   with more classes, the matrix of scores \eqn{f_c}.
#'
#' @section Probabilities: `predict(type = "prob")` gives the posterior of an
#'   isotropic Gaussian model in feature space with equal class priors and a
#'   common variance \eqn{s^2}, the pooled within-class mean squared distance
#'   of the training points to their class means:
#'   \eqn{P(c \mid x) \propto \exp(f_c(x) / s^2)}{P(c | x) proportional to
#'   exp(f_c(x) / s^2)}. The most probable class is
#'   always the predicted class. The probabilities are a smooth summary of
#'   the distances, not a calibrated model.
#'
#' @param x A numeric matrix, a numeric vector or a data frame (a factor or
#'   character column is coded as one 0/1 indicator column per level, not
#'   by treatment contrasts, so that every two levels are at the same
#'   distance; the indicators are not scaled);
#'   for the formula method, a formula `class ~ inputs`. A data frame's
#'   columns need unique, non-empty names; a factor's unused levels are kept
#'   (columns of zeros, so that new data may have them). A matrix's columns
#'   are matched by name in `predict()` where its names are unique and
#'   non-empty, by position otherwise. A sparse matrix (Matrix's `dgCMatrix`
#'   or `dgRMatrix`, SparseM's `matrix.csr`) is used sparse: the kernel
#'   engine computes inner products and norms from its non-zeros, never
#'   writing it out densely (except `kernel_bayes()`, whose covariance
#'   matrices need dense rows: up to 1e8 values); it must hold no `NA`
#'   (`"kernclass_sparse_error"`). A dense Matrix (`dgeMatrix` and the
#'   like) is taken as the ordinary matrix it holds. With
#'   `kernel = "precomputed"`, the
#'   symmetric n x n matrix of kernel values of the training points (or
#'   kernlab's `kernelMatrix`); with a kernel function, whatever holds the
#'   points it takes: a matrix, data frame, list or character vector (one
#'   point a row or element).
#' @param y The class labels: a factor (or a character or logical vector),
#'   one per row of `x`. Not with a formula, whose left-hand side gives them:
#'   `y` there is an error of class `"kernclass_formula_conflict_error"`.
#' @param kernel Kernel name: `"linear"`, `"polynomial"`, `"rbf"` (default),
#'   `"laplace"` or `"sigmoid"`; see [kernel_matrix()]. Or the kernel as
#'   data: `"precomputed"`, `x` being the kernel matrix (and `newdata` in
#'   `predict()` the m x n kernel values between new and training points);
#'   or a kernel function `function(a, b)` of two blocks of points returning
#'   their `length(a) x length(b)` (or `nrow`) matrix of kernel values,
#'   which the engine calls on tiles of at most 128 x 128 points, on R's
#'   main thread, so that memory stays bounded; kernlab's kernels
#'   (`kernlab::rbfdot()`, `kernlab::stringdot()`, ...) are such functions.
#'   A function defined at top level keeps copies of the global variables
#'   and functions it uses, as they are when the model is fitted, so that it
#'   runs the same in future workers and in a model read in another session.
#'   `gamma`, `degree`, `coef0` and `scale` are then not used, and
#'   `kernel_bayes()` refuses them (it needs the inputs' covariances). A
#'   function returning the wrong shape or non-finite values is an error of
#'   class `"kernclass_kernel_function_error"`; bad kernel values,
#'   `"kernclass_kernel_data_error"`.
#' @param gamma Kernel scale \eqn{\gamma > 0}{gamma > 0}. Default `1 / p`, with `p` the
#'   number of (coded) input columns. `"median"` sets it from the data by
#'   the median heuristic of [estimate_gamma()] on the coded, scaled training
#'   inputs; the model keeps the value in `kernel$gamma`.
#' @param degree Degree of the polynomial kernel.
#' @param coef0 Constant of the polynomial and sigmoid kernels.
#' @param scale If `TRUE` (default), each input column is centred and scaled
#'   to unit variance with the training mean and standard deviation, which are
#'   stored and reused by `predict()`. Constant columns and the indicator
#'   columns of factors are left unscaled. Sparse `x` is scaled without centring
#'   (centring would fill it in), as LIBSVM-style sparse learners do: for the
#'   `"rbf"` and `"laplace"` kernels this is the model of centred data, for
#'   the inner-product kernels it is the model of `x / sd`; the model's
#'   `scaling$center` is then 0.
#' @param data,subset,na.action For the formula method: the data frame, an
#'   optional subset of its rows, and the function that handles missing
#'   values (default `getOption("na.action")`).
#' @param formula A formula `class ~ inputs`.
#' @param threshold How the offset \eqn{b} of a two-class model is placed:
#'   `"analytic"` (default), \eqn{b = (\|m_+\|^2 - \|m_-\|^2)/2}{b =
#'   (||m+||^2 - ||m-||^2)/2} as above (the kernel centroid rule), or
#'   `"search"`, the threshold search of the kernelized Bayes classifier
#'   ([threshold_search()]) on the training values of
#'   \eqn{\mathrm{mean}\, k(x, S_+) - \mathrm{mean}\, k(x, S_-)}{mean k(x, S+)
#'   - mean k(x, S-)}: the
#'   midpoint between neighbouring training scores that separates the classes
#'   most consistently. The search is for two classes only (an error with
#'   more; [kernel_bayes()] searches per class pair). Its result is kept in
#'   the model as `search` (`b`, `split`, `consistency`, `sign`); where the
#'   best split has the first class below it (`sign = -1`) the decision
#'   value is \eqn{-(p(x) + b)}, the weights and offsets carrying the sign.
#' @param approx `NULL` (default) for the exact model, or an approximation
#'   made by [nystrom()] or [random_fourier()]: the model on low-rank kernel
#'   features, for large data (see [approximations]).
#' @param ... Further arguments to the default method (for the formula
#'   method all but `x` and `y`, which the formula gives).
#' @return An object of class `c("kernel_means", "kernclass_scores",
#'   "kernclass")` (`"kernclass_scores"`: the classifiers with one score per
#'   class): a list with the call (which [stats::update()] re-runs), the class
#'   `levels` and `counts`, the `kernel` and its parameters, the scaled
#'   training points `x` and labels `y`, the `weight` of each training point
#'   and the per-class `offset` of the scores, `center_norms`
#'   (\eqn{\|m_c\|^2}{||m_c||^2}), `sigma2` (\eqn{s^2}), the `threshold`
#'   rule and `search` (the threshold search's result; `NULL` with
#'   `threshold = "analytic"`), the `scaling` (`NULL` with `scale = FALSE`),
#'   for data-frame and formula fits the `terms` and `xlevels`, and
#'   `contrasts` (the coding of factor inputs, `NULL` when there are none)
#'   and `na.action` (the rows dropped for missing values, `NULL` when none
#'   were). See [predict.kernclass()],
#'   [summary.kernclass()], [plot.kernclass()], [coef.kernclass_scores()].
#' @references Schölkopf, B. and Smola, A. J. (2002). *Learning with Kernels*,
#'   section 1.2. MIT Press.
#'
#'   Roshan, U. Kernels and kernel nearest means. Lecture slides, New Jersey
#'   Institute of Technology.
#' @export
#' @examples
#' fit <- kernel_means(Species ~ ., data = iris, kernel = "rbf", gamma = 0.5)
#' fit
#' table(predicted = predict(fit, iris), actual = iris$Species)
#' head(predict(fit, iris, type = "prob"))
#'
#' # default method, two classes: decision value = mean k(x, S+) - mean k(x, S-) - b
#' two <- droplevels(subset(iris, Species != "setosa"))
#' fit2 <- kernel_means(two[, 1:4], two$Species, kernel = "polynomial", degree = 2)
#' summary(fit2)
kernel_means <- function(x, ...) {
  kc_require_input(missing(x), ...names())
  UseMethod("kernel_means")
}

#' @rdname kernel_means
#' @export
kernel_means.default <- function(x, y = NULL, kernel = "rbf", gamma = NULL, degree = 3,
                                 coef0 = 0, scale = TRUE, ...,
                                 threshold = c("analytic", "search"), approx = NULL) {
  call <- kc_call(match.call(), "kernel_means")
  kc_fit_means(kc_design_xy(x, y, kernel = kernel), kernel = kernel, gamma = gamma,
               degree = degree, coef0 = coef0, scale = scale, ..., threshold = threshold,
               approx = approx, call = call)
}

#' @rdname kernel_means
#' @export
kernel_means.formula <- function(formula, data = NULL, subset, na.action, ...) {
  call <- kc_call(match.call(), "kernel_means")
  d <- kc_design_formula(call, parent.frame())
  kc_fit_formula(kc_fit_means, kernel_means.default, d, list(...), call)
}

# The fit, for both methods: d an unscaled design (kc_design_xy() or
# kc_design_formula()), the default method's arguments by name (its
# signature but x and y, in its order: the default method passes each on,
# the formula method those given and the default method's defaults for the
# rest, kc_fit_formula()), and the call.
kc_fit_means <- function(d, kernel, gamma, degree, coef0, scale, ..., threshold, approx, call,
                         .shared = NULL) {
  kc_check_dots(...)
  kc_threads()  # the option is checked by every fitter, whether it uses C at fit time or not
  d <- kc_scale_design(d, scale)
  k <- kc_kernel_shared(kc_kernel(kernel, gamma, degree, coef0, d$x), .shared)
  kc_check_kernel_range(d$x, k)
  threshold <- kc_match_threshold(threshold, nlevels(d$y))
  approx <- kc_approx_check(approx, d$x, k)
  r <- kc_repr_train(approx, d, k, "kernel_means")
  counts <- tabulate(d$y, nlevels(d$y))
  center_norms <- kc_repr_mean_norms(r)
  sigma2 <- mean(kc_kernel_diag(d$x, k)) - sum(counts / sum(counts) * center_norms)
  o <- kc_means_offsets(-center_norms / 2, threshold, d$y, function() {
    as.vector(kc_repr_expand(r, d$x, matrix(c(1, -1))))  # mean k(x, S+) - mean k(x, S-)
  })
  fit <- kc_new_scores(r, d, k, A = diag(o$sign, length(counts)), offset = o$offset,
                       call = call, class = "kernel_means",
                       center_norms = stats::setNames(center_norms, levels(d$y)),
                       sigma2 = max(sigma2, 0), threshold = threshold, search = o$search)
  kc_approx_checked(fit, d, approx)
}

# The offsets -||m_c||^2 / 2 of the scores, or with threshold = "search"
# the searched offset (threshold_search()) for p(x) = mean k(x, S+) - mean k(x, S-) (p_train(): its
# training values): f_1 - f_2 = sign (p(x) + b); the orientation goes into
# the weights, so that the model stays weights and offsets (sign 1 in all
# but inverted splits).
kc_means_offsets <- function(offset, threshold, y, p_train) {
  if (threshold != "search") return(list(offset = offset, sign = 1, search = NULL))
  search <- kc_search(p_train(), y)
  sign <- search$sign
  offset <- sign * offset
  offset[1L] <- sign * search$b + offset[2L]
  list(offset = offset, sign = sign, search = search)
}

# Leave-one-out kernel sums, for both kc_loo() methods: S[i, c] = sum of
# k(x_i, x_j) over x_j != x_i in class c, summed without x_i in C (never the
# whole class less k(x_i, x_i), which a narrow kernel leaves as rounding),
# with kii = k(x_i, x_i), the class counts without x_i (one row per point)
# and `own`, the index of each point's own class in these matrices.
kc_loo_sums <- function(model) {
  xs <- model$x
  yi <- as.integer(model$y)
  n <- length(yi)
  G <- length(model$levels)
  S <- .Call(ffi_loo_sums, xs, yi, G, kc_kernel_code(model$kernel), kc_threads())
  kii <- kc_kernel_diag(xs, model$kernel)
  own <- cbind(seq_len(n), yi)
  counts <- matrix(model$counts, n, G, byrow = TRUE)
  counts[own] <- counts[own] - 1
  list(S = S, kii = kii, counts = counts, own = own)
}

# Exact leave-one-out (kernel_cv(folds = "loo")): leaving x_i out changes its
# own class only, whose squared mean norm becomes the sum over its other
# rows, (D_c - k(x_i, x_i)) + (O_c - 2 S_c(x_i)) over (n_c - 1)^2, with D_c
# the class's k(x_j, x_j) and O_c its off-diagonal sum (the S of its rows):
# no diagonal term is cancelled; the classes then follow from the scores as
# in predict().
#' @export
kc_loo.kernel_means <- function(model, default_prior, what = "class") {
  s <- kc_loo_sums(model)
  own <- s$own
  G <- length(model$levels)
  D <- as.vector(rowsum(s$kii, factor(own[, 2L], levels = seq_len(G)), reorder = TRUE))
  O <- as.vector(rowsum(s$S[own], factor(own[, 2L], levels = seq_len(G)), reorder = TRUE))
  norms <- matrix((D + O) / model$counts^2, nrow(own), G, byrow = TRUE)
  c_i <- own[, 2L]
  norms[own] <- ((D[c_i] - s$kii) + (O[c_i] - 2 * s$S[own])) / s$counts[own]^2
  scores <- s$S / s$counts - norms / 2
  if (what != "prob") return(kc_classify(model, scores))
  # the refit without x_i has its own variance, as kc_fit_means() computes
  # it on the n - 1 rows: mean k(x_j, x_j) over j != i less the norms
  # ||m_c||^2 without x_i weighted by the counts without x_i
  n <- nrow(own)
  sigma2 <- (sum(s$kii) - s$kii) / (n - 1) - rowSums(s$counts * norms) / (n - 1)
  kc_means_posterior(scores, pmax(sigma2, 0))
}

#' @export
kc_model_posterior.kernel_means <- function(object, scores) {
  kc_means_posterior(scores, object$sigma2)
}

# P(c | x) proportional to exp(f_c(x) / s^2), s^2 = sigma2 (one, or one per
# row); where s^2 is 0 (every class collapsed to its mean) the nearest mean
# has probability 1.
kc_means_posterior <- function(scores, sigma2) {
  sigma2 <- rep_len(sigma2, nrow(scores))
  p <- kc_softmax(scores / sigma2)  # row i divided by sigma2[i]
  flat <- which(!(sigma2 > 0))
  if (length(flat)) {
    idx <- max.col(scores[flat, , drop = FALSE], ties.method = "first")
    p[flat, ] <- 0
    p[cbind(flat, idx)] <- 1
  }
  p
}
