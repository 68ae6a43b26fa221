#' Approximate kernel classifiers for large data
#'
#' The four classifiers are exact by default. Past some 10^5 rows their
#' O(n^2) kernel sums and SVM become slow. For [kernel_svm()],
#' `approx = cells()` fits the exact SVM in cells of the data (below). For
#' all four, `approx = nystrom()` or
#' `approx = random_fourier()` replaces the kernel by the inner product of
#' low-rank features \eqn{z(x)}, \eqn{k(x, y) \approx z(x)'z(y)}{k(x, y) ~
#' z(x)'z(y)}, computed in C in row blocks of 512, so that time grows as
#' \eqn{n m} and memory as \eqn{m^2} (\eqn{m} features) beyond the data.
#' The model says so: `print()` and `summary()` name the approximation, its
#' size and its measured error.
#'
#' Fits of more than \eqn{10^5} rows report their progress through
#' \pkg{progressr} (a step per \eqn{10^5} rows of the features' class sums,
#' per stage of the SVM on features, per cell of `cells()`), shown only where
#' a handler is on: `progressr::with_progress(kernel_svm(x, y, approx =
#' nystrom()))`, or `progressr::handlers(global = TRUE)` for the session.
#'
#' @section Nystrom features: `nystrom()` picks \eqn{m} landmark rows
#'   \eqn{x_1, \dots, x_m}{x_1, ..., x_m} of the (scaled) training data and
#'   maps \eqn{z(x) = R^{-T} k_r(x)}{z(x) = R^-T k_r(x)}, \eqn{k_r(x)} the
#'   kernel values of \eqn{x} against the \eqn{r} landmarks kept and
#'   \eqn{K_{rr} = R'R}{K_rr = R'R} the Cholesky factorisation of their
#'   kernel matrix, so that \eqn{z(x)'z(y) = k_r(x)' K_{rr}^{-1}
#'   k_r(y)}{z(x)'z(y) = k_r(x)' K_rr^-1 k_r(y)}. The factorisation is
#'   pivoted (LAPACK's `dpstrf`): it takes next the landmark that the ones
#'   before it explain least, and stops when that residual variance is at or
#'   below `tol` times the largest \eqn{k(x,x)}; the landmarks left are
#'   dropped, so the rank \eqn{r} can be below \eqn{m}. Where the landmarks'
#'   kernel matrix \eqn{K_{mm}}{K_mm} is not positive semi-definite (the
#'   sigmoid kernel can make it so) the map is instead
#'   \eqn{z(x) = \Lambda^{-1/2} V' k_m(x)}{z(x) = L^(-1/2) V' k_m(x)} over
#'   the eigenpairs of \eqn{K_{mm} = V \Lambda V'}{K_mm = V L V'} with
#'   eigenvalues above `tol` times the largest. It works for every built-in
#'   kernel. Landmarks: `"uniform"`, \eqn{m} rows drawn without replacement;
#'   `"kmeans++"` (default), the k-means++ seeding (Arthur and Vassilvitskii
#'   2007) in the kernel's feature space on a uniform subsample of
#'   \eqn{\min(n, 20m)}{min(n, 20 m)} rows: the first landmark uniform, each
#'   next drawn with probability proportional to its squared feature-space
#'   distance \eqn{k(x,x) + k(c,c) - 2k(x,c)} to the nearest landmark so far,
#'   which spreads the landmarks over the data.
#'
#' @section Random Fourier features: `random_fourier()` (Rahimi and Recht 2007)
#'   maps \eqn{z(x) = \sqrt{2/m} \cos(W'x + b)}{z(x) = sqrt(2/m) cos(W'x + b)}
#'   with phases \eqn{b} uniform on \eqn{[0, 2\pi)}{[0, 2 pi)} and the
#'   columns of \eqn{W} drawn from the kernel's spectral density, so that
#'   \eqn{E\, z(x)'z(y) = k(x, y)}{E z(x)'z(y) = k(x, y)}: for `"rbf"`,
#'   \eqn{\exp(-\gamma\|x-y\|^2)}{exp(-gamma ||x-y||^2)}, Gaussian
#'   \eqn{N(0, 2\gamma I)}{N(0, 2 gamma I)}; for `"laplace"`,
#'   \eqn{\exp(-\gamma\|x-y\|)}{exp(-gamma ||x-y||)} with the Euclidean norm,
#'   the multivariate Cauchy distribution of scale \eqn{\gamma}{gamma}
#'   (a Gaussian vector divided by the absolute value of one standard normal
#'   draw per column; independent Cauchy coordinates would give the
#'   \eqn{L_1}{L1} kernel instead). Only these two kernels; dense inputs
#'   only.
#'
#' @section The classifiers on features: the feature-space mean of class
#'   \eqn{c} becomes \eqn{\bar z_c}{zbar_c}, the mean of its rows' features
#'   (one streaming pass over the data). `kernel_means()` scores
#'   \eqn{z(x)'\bar z_c - \|\bar z_c\|^2/2}{z(x)'zbar_c - ||zbar_c||^2 / 2},
#'   i.e. \eqn{\|\phi(x) - m_c\|^2 \approx k(x,x) - 2z(x)'\bar z_c +
#'   \|\bar z_c\|^2}{||phi(x) - m_c||^2 ~ k(x, x) - 2 z(x)'zbar_c +
#'   ||zbar_c||^2} with \eqn{k(x, x)} exact (it enters the probabilities'
#'   \eqn{s^2}); `kernel_parzen()` the densities \eqn{p_c(x) \approx
#'   z(x)'\bar z_c}{p_c(x) ~ z(x)'zbar_c}, set to 0 where the
#'   approximation is negative; `kernel_bayes(type = 1)` the pair scores
#'   \eqn{z(x)'(\bar z_+ - \bar z_-)}{z(x)'(zbar+ - zbar-)}, then the
#'   threshold search and Platt's sigmoid on the training scores as the
#'   exact model (types 2 and 3 whiten the inputs per class pair and are
#'   not available on features: an error of class
#'   `"kernclass_approx_unsupported_error"`). The threshold searches of
#'   `kernel_means()` and `kernel_parzen()` work as in the exact models.
#'
#'   `kernel_svm()` (C-classification) solves a linear SVM on the features
#'   by dual coordinate descent with shrinking (Hsieh et al. 2008, the
#'   algorithm of LIBLINEAR's L1-loss SVC), one-vs-one as the exact SVM,
#'   with the per-row bounds cost x class weight x observation weight. As
#'   in LIBLINEAR the offset is the weight of a constant feature 1 appended
#'   to \eqn{z(x)}, so it is regularised with the other weights (the exact
#'   SVM's offset is not), and the dual has no equality constraint. The
#'   feature rows are kept as single-precision floats (\eqn{4nr} bytes),
#'   and the solver reads them in half precision (a copy of \eqn{2nr} bytes
#'   while it runs): each row scaled by the power of 2 that brings its
#'   largest value to \eqn{[1/2, 1)}, rounded to IEEE binary16 (a relative
#'   error of at most \eqn{2^{-11}}{2^-11} per feature), which halves the
#'   memory it streams; the model is the linear SVM on those rounded rows.
#'   `tolerance` is the stopping gap of the projected gradients, 0.1 unless
#'   given (LIBLINEAR's default), and `max_iter` caps the passes over the
#'   data, 1000 unless given; `cost = Inf`, the nu types and `cachesize` are
#'   errors. `probability = TRUE` fits Platt's sigmoids on 5-fold
#'   cross-validated decision values as the exact SVM (the folds' SVMs
#'   side by side on threads, each with a generator seeded from R's RNG, so
#'   that `set.seed()` gives the same sigmoids on any number of threads).
#'
#' @section Localized SVM (cells()): `cells()` is for [kernel_svm()]
#'   (C-classification) and keeps its exact solver: the training rows are
#'   cut into \eqn{k = \lceil n / \mathrm{size} \rceil}{k = ceiling(n /
#'   size)} cells, each the rows nearest (Euclidean, on the scaled inputs) to
#'   one of \eqn{k} centres, and each cell gets its own exact SVM with the
#'   model's kernel, `gamma`, class and observation weights (as in
#'   liquidSVM's Voronoi cells, Steinwart et al. 2017), and cost \eqn{C n /
#'   n_c}{C n / n_c} for a cell of \eqn{n_c} of the \eqn{n} rows (of weight
#'   above 0): the SVM's cost is \eqn{C = 1 / (2 \lambda n)}{C = 1 / (2 lambda
#'   n)} for the regularisation \eqn{\lambda}{lambda} per row, and this keeps
#'   the exact model's \eqn{\lambda}{lambda} in every cell, where the same
#'   \eqn{C} would regularise a cell of \eqn{n / k} rows \eqn{k} times as
#'   strongly (on `ggplot2::diamonds`, 2000 rows a cell at cost 1: test
#'   accuracy 0.720 with the cost as it is, 0.777 scaled, 0.758 exact).
#'   `scale_cost = FALSE` gives every cell `cost` as it is. A new row is
#'   predicted by the model of the cell whose centre is nearest. The centres
#'   are those of k-means (Lloyd's iterations, at most 20, from k-means++
#'   seeds) on a uniform subsample of \eqn{\max(10000, 50k)}{max(10000, 50
#'   k)} rows, drawn with R's RNG, so `set.seed()` reproduces the cells; a
#'   cell with no row of weight > 0 is dropped. With \eqn{k = 1} (`size` at
#'   least the number of rows) the model is the exact one, without random
#'   numbers. The default `size = "auto"` starts from liquidSVM's 2000 (an
#'   exact SVM on 2000 rows takes well under a second and its whole kernel
#'   matrix, 16 MB as floats, fits the solver's cache) and grows as
#'   \eqn{10 \sqrt{n}}{10 sqrt(n)} up to 5000 (see "Sizes chosen from the
#'   data"); time grows as \eqn{n \cdot
#'   \mathrm{size}}{n size} instead of \eqn{n^2}. Each cell learns from its
#'   own rows only, and rows near the border between two cells are predicted
#'   by a model that saw one side: measure the difference to the exact
#'   model with `check`, or tune `size` with [kernel_tune()].
#'
#'   The cells are independent problems: under a [future::plan()] with
#'   workers they run side by side as futures (with `probability = TRUE`
#'   each draws its random numbers from a stream of its own, so the model
#'   does not depend on the plan), and so do the cells' scores of the rows
#'   `predict()` routes to them. A cell whose rows are all of one class
#'   predicts that class. `predict(type = "decision")` gives a column per
#'   class pair as the exact model: the values of the row's cell's SVM where
#'   the cell has both classes of the pair, +1 (-1) where it has only the
#'   first (second) class, as the exact SVM's Platt folds score a fold
#'   without the other class, and 0 where it has neither; the votes of these
#'   values are the votes of the cell's SVM. `type = "prob"` (with
#'   `probability = TRUE`) gives the cell's probabilities (Platt's sigmoids
#'   of its SVM, fitted within the cell, coupled over its classes), 0 for
#'   the classes the cell lacks and 1 for the class of a one-class cell.
#'   `coef()` gives each training row's coefficient in its cell's SVM
#'   (`alpha`), the cells' offsets (`b`, a row per cell, `NA` where the cell
#'   lacks a class of the pair) and each row's cell (`cell`). `print()` and
#'   `summary()` state the number of cells and their sizes; `check = s` adds
#'   the comparison with the exact model below (choose \eqn{s} above `size`,
#'   so that the check has more than one cell). The other classifiers are
#'   sums over all training rows, which cells would change: `cells()` with
#'   them is an error of class `"kernclass_approx_unsupported_error"`.
#'
#' @section The error, stated: at fit time the kernel is evaluated exactly
#'   and approximately on 1000 random pairs of training rows (drawn with R's
#'   RNG): the model keeps and prints the mean absolute error and the
#'   relative Frobenius error \eqn{\sqrt{\sum (k - \hat k)^2 / \sum
#'   k^2}}{sqrt(sum (k - khat)^2 / sum k^2)} over those pairs. With
#'   `check = s > 0`, the fit also trains the exact classifier and this
#'   approximation on the same `s` random training rows and reports how
#'   often they agree on `s` other rows, and both accuracies there (this
#'   costs an exact fit of `s` rows). The rows are drawn among those of
#'   weight above 0, stratified: each class with two rows or more has one
#'   in each half (a class of one row is in the half that fits), the other
#'   rows are uniform; so `s` must be at least the number of classes and
#'   the data at least \eqn{2s} rows. The two fits take the rows'
#'   observation `weights` and the model's other arguments; each test row
#'   counts once, as in [kernel_cv()].
#'
#' @param m The number of landmarks (Nystrom) or of random features
#'   (Fourier), or `"auto"` (the default: chosen from the training rows,
#'   see "Sizes chosen from the data"): more is closer to the exact kernel and slower (time
#'   \eqn{O(n m (p + m))} for Nystrom, \eqn{O(n m p)} for Fourier). At most
#'   the number of training rows for Nystrom (a larger `m` means all rows:
#'   past R's integer range it is taken as \eqn{2^{31} - 1}{2^31 - 1});
#'   for Fourier, within R's integer range (else an error of class
#'   `"kernclass_size_error"`).
#' @param landmarks How Nystrom landmarks are chosen: `"kmeans++"` or
#'   `"uniform"` (see above).
#' @param tol Relative cut-off of the landmarks' residual variance (or, for
#'   an indefinite \eqn{K_{mm}}{K_mm}, of its eigenvalues).
#' @param check Number of rows for the comparison with the exact model and
#'   with an exact fit on a subsample of the approximation's time (0: none);
#'   see "The error, stated". Twice it must fit in R's integer range
#'   (else an error of class `"kernclass_size_error"`).
#' @return An object of class `"kernclass_approximation"`, to pass as the
#'   `approx` argument of [kernel_means()], [kernel_parzen()],
#'   [kernel_bayes()] and [kernel_svm()] (and through them of [kernel_cv()]
#'   and [kernel_tune()]). The fitted model keeps the features it used in
#'   `approx` (the map, its rank, the measured error and the linear model
#'   on the features, `w` and `b`, which `coef()` returns). A model with
#'   cells has class `c("kernclass_cells", "kernel_svm", "kernclass_ovo",
#'   "kernclass")` and keeps in `approx` the `centres`, each training row's
#'   `cell` and the cells' `models` (each an exact [kernel_svm()] without its
#'   data, `index` the rows of the whole training data; a one-class cell
#'   its `levels` and `counts`); its `index` holds the support vectors of
#'   all cells.
#'
#'   To choose `m` (or between the two maps, or a cell size) by
#'   cross-validation, give [kernel_tune()] a grid column of approximations:
#'   `grid = list(approx = list(nystrom(m = 100), nystrom(m = 400)))`, or
#'   `list(approx = list(cells(size = 500), cells(size = 2000)))`.
#'   Exact leave-one-out in [kernel_cv()] refits the approximate model for
#'   each row (the one-pass shortcut is the exact model's).
#' @references Williams, C. K. I. and Seeger, M. (2001). Using the Nystrom
#'   method to speed up kernel machines. *NIPS 13*.
#'
#'   Rahimi, A. and Recht, B. (2007). Random features for large-scale
#'   kernel machines. *NIPS 20*.
#'
#'   Rudi, A., Camoriano, R. and Rosasco, L. (2015). Less is more:
#'   Nystrom computational regularization. *NIPS 28*.
#'
#'   Rudi, A. and Rosasco, L. (2017). Generalization properties of learning
#'   with random features. *NIPS 30*.
#'
#'   Arthur, D. and Vassilvitskii, S. (2007). k-means++: the advantages of
#'   careful seeding. *SODA*.
#'
#'   Steinwart, I., Thomann, P. and Schmid, N. (2017). liquidSVM: a fast
#'   and versatile SVM package. arXiv:1702.06899.
#'
#'   Hsieh, C.-J., Chang, K.-W., Lin, C.-J., Keerthi, S. S. and
#'   Sundararajan, S. (2008). A dual coordinate descent method for
#'   large-scale linear SVM. *ICML*.
#' @name approximations
#' @examples
#' set.seed(1)
#' fit <- kernel_svm(Species ~ ., data = iris, approx = nystrom(m = 30))
#' fit
#' mean(predict(fit, iris) == iris$Species)
#' fit2 <- kernel_means(Species ~ ., data = iris, approx = random_fourier(m = 200, check = 50))
#' summary(fit2)
#' # an exact SVM in each of 3 cells of about 50 rows
#' fit3 <- kernel_svm(Species ~ ., data = iris, approx = cells(size = 50))
#' fit3
#' table(predict(fit3, iris), iris$Species)
NULL

#' @rdname approximations
#' @export
nystrom <- function(m = "auto", landmarks = c("kmeans++", "uniform"), tol = 1e-8, check = 0) {
  # m past the rows is the rows: so is m past R's integer range
  m <- kc_as_size(m, "m", clamp = TRUE)
  landmarks <- kc_match_arg(landmarks, arg = "landmarks")
  kc_check_number(tol, "tol", lower = 0, lower_open = TRUE)
  structure(list(method = "nystrom", m = m, landmarks = landmarks, tol = tol,
                 check = kc_as_check(check)),
            class = "kernclass_approximation")
}

#' @rdname approximations
#' @export
random_fourier <- function(m = "auto", check = 0) {
  m <- kc_as_size(m, "m", why = "each random feature is a column of the features")
  structure(list(method = "fourier", m = m, check = kc_as_check(check)),
            class = "kernclass_approximation")
}

# An approximation's size: "auto" (chosen from the training rows at fit
# time, kc_approx_sized()) or a count of at least 1.
kc_as_size <- function(x, arg, clamp = FALSE, why = NULL) {
  if (identical(x, "auto")) return(x)
  if (is.character(x)) {
    kc_abort(sprintf('`%s` must be "auto" (chosen from the data) or a whole number >= 1.', arg),
             arg = arg)
  }
  kc_as_count(x, arg, lower = 1, clamp = clamp, why = why)
}

#' @export
print.kernclass_approximation <- function(x, ...) {
  cat(kc_approx_label(x), "\n", sep = "")
  invisible(x)
}

# The checked approximation of a fit: NULL (exact) or a spec, on inputs the
# features can map.
kc_approx_check <- function(approx, x, kernel) {
  if (is.null(approx)) return(NULL)
  if (!inherits(approx, "kernclass_approximation")) {
    kc_abort(paste0("`approx` must be NULL (the exact model), nystrom(...), random_fourier(...) ",
                    "or cells(...)."), arg = "approx")
  }
  if (inherits(x, "kc_kernel_data") || inherits(x, "kc_csr")) {
    kc_abort(paste0("`approx` needs dense input columns (a matrix, data frame or formula), ",
                    "not given kernel values, a kernel function or sparse rows",
                    if (inherits(x, "kc_csr")) " (as.matrix() makes them dense)" else "", "."),
             arg = "approx", class = "approx_unsupported")
  }
  if (kc_approx_of(approx)$frequencies && is.null(kc_kernel_info(kernel)$frequencies)) {
    with_freq <- names(Filter(function(r) !is.null(r$frequencies), kc_kernels))
    kc_abort(sprintf(paste0("`approx`: random_fourier() needs a shift-invariant kernel (%s); ",
                            "this model uses \"%s\": use nystrom()."),
                     paste0('"', with_freq, '"', collapse = " or "), kernel$name),
             arg = "approx", class = "approx_unsupported")
  }
  approx
}

# The feature map of a spec on the scaled training rows x: the list the C
# code reads (type, the C engine's code of the map: landmarks and proj, or
# freq and phase), with its rank r.
kc_feature_map <- function(spec, x, k) {
  row <- kc_approx_of(spec)
  c(list(type = row$code), row$map(spec, x, k))
}

kc_fourier_map <- function(spec, x, k) {
  W <- kc_kernel_info(k)$frequencies(ncol(x), spec$m, k$gamma)
  list(freq = W, phase = stats::runif(spec$m, 0, 2 * pi), rank = spec$m)
}

kc_gram <- function(x, y, k) {
  .Call(ffi_kernel_matrix, x, y, kc_kernel_code(k), kc_threads())
}

# k-means++ seeding in the kernel's feature space on a uniform subsample of
# 20 m rows, at most 10,000 (at least 2 m), so that its cost is linear in m
# past m = 500 (at m = 1,000 on MNIST-like data the 10,000 rows' landmarks
# left the same Nystrom residual as 20,000 rows'): the indices (into x) of
# m distinct landmarks. In C (src/features.c): the subsample checked once,
# the kernel columns computed in batches, each landmark an exact k-means++
# draw (by rejection).
kc_kmeanspp <- function(x, k, m) {
  n <- nrow(x)
  size <- max(min(20 * m, 10000), 2 * m)
  sub <- if (n > size) sample.int(n, size) else seq_len(n)
  xs <- x[sub, , drop = FALSE]
  storage.mode(xs) <- "double"
  sub[.Call(ffi_kmeanspp, xs, kc_kernel_code(k), as.integer(m), kc_threads())]
}

# Z w for rows x (n x q), Z never stored whole.
kc_feature_product <- function(fa, x, w) {
  .Call(ffi_feature_product, x, as.matrix(w), fa$map, kc_kernel_code(fa$kernel), kc_threads())
}

# The features themselves (n x r): for the error estimate and the tests.
kc_features <- function(fa, x) {
  .Call(ffi_feature_product, x, NULL, fa$map, kc_kernel_code(fa$kernel), kc_threads())
}

# The approximation of a fit: the spec, the map, and the error on `pairs`
# random pairs of training rows.
kc_approx_fit <- function(spec, x, k, pairs = 1000L) {
  spec <- kc_approx_sized(spec, nrow(x))
  fa <- list(spec = spec, kernel = k, map = kc_feature_map(spec, x, k))
  fa$rank <- fa$map$rank
  i <- sample.int(nrow(x), pairs, replace = TRUE)
  j <- sample.int(nrow(x), pairs, replace = TRUE)
  exact <- diag(kc_gram(x[i, , drop = FALSE], x[j, , drop = FALSE], k))
  approx <- rowSums(kc_features(fa, x[i, , drop = FALSE]) * kc_features(fa, x[j, , drop = FALSE]))
  fa$error <- c(mae = mean(abs(exact - approx)),
                rel_frobenius = sqrt(sum((exact - approx)^2) / sum(exact^2)),
                pairs = pairs)
  fa
}

# The rows of one block of a streaming pass (a fixed number, so that the
# sums do not depend on threads or plan; the option only for the tests).
kc_block_rows <- function() {
  as.integer(kc_option("kernclass.block_rows"))
}

# A progressr progressor of `steps` steps for a fit of n rows past one row
# block, else a no-op: small fits (and the many inside kernel_cv() and
# kernel_tune()) stay quiet and pay nothing. Silent unless the user enables
# a progressr handler.
kc_progressor <- function(n, steps, envir = parent.frame()) {
  if (n <= kc_block_rows()) return(function(...) invisible(NULL))
  progressr::progressor(steps = steps, envir = envir)
}

# Class sums and means of the features of the training rows (one pass), a
# row block per call, the blocks' sums added in order.
kc_feature_means <- function(fa, x, y) {
  n <- nrow(x)
  block <- kc_block_rows()
  starts <- seq(1L, n, by = block)
  p <- kc_progressor(n, length(starts))
  sums <- 0
  for (start in starts) {
    i <- start:min(n, start + block - 1L)
    xi <- if (length(starts) == 1L) x else x[i, , drop = FALSE]
    sums <- sums + .Call(ffi_feature_sums, xi, as.integer(y)[i], nlevels(y), fa$map,
                         kc_kernel_code(fa$kernel), kc_threads())
    p(message = "feature sums")
  }
  sums / tabulate(y, nlevels(y))
}

# The linear model on the features: w (r x columns of the scores) and b;
# one column for two classes (two columns are two classes' scores: no number
# of classes has two pairs).
#' @export
kc_repr_coef.kc_features <- function(repr, object) {
  w <- object$approx$w
  b <- object$approx$b
  if (ncol(w) <= 2L) {
    if (ncol(w) == 2L) return(list(w = w[, 1L] - w[, 2L], b = unname(b[1L] - b[2L])))
    return(list(w = w[, 1L], b = unname(b)))
  }
  list(w = w, b = b)
}

# kernel_svm() on features (R/fit-svm-solve.R): the linear SVM, its own solver
# defaults (the approximation table's), C-classification with a finite cost
# only. ------------------------------------------------------------------------

#' @export
kc_repr_svm_control.kc_features <- function(repr, spec, control, given) {
  if (control$type != "C-classification") {
    kc_abort(sprintf(paste0("`approx` supports type = \"C-classification\" only; type = \"%s\" ",
                            "needs the exact solver (approx = NULL)."), control$type),
             arg = "approx", class = "approx_unsupported")
  }
  if (!is.finite(control$cost)) {
    kc_abort(paste0("`approx` needs a finite `cost`: the hard margin on approximate features ",
                    "may not exist."), arg = "cost", class = "approx_unsupported")
  }
  if ("cachesize" %in% given) {
    kc_abort("`cachesize` is the exact solver's kernel cache; with `approx` drop it.",
             arg = "cachesize", class = "approx_unsupported")
  }
  row <- kc_approx_of(spec)
  if (!("tolerance" %in% given)) control$tolerance <- row$tolerance
  if (!("max_iter" %in% given)) control$max_iter <- row$max_iter
  control
}

# The class pairs side by side in one call (kc_linear_pairs(), each pair's
# shuffles from its own generator seeded from R's RNG).
#' @export
kc_repr_svm_solve.kc_features <- function(r, problems, pairs, C, control) {
  fits <- kc_linear_pairs(r$store, r$fa$rank, as.integer(r$y), problems, pairs, C,
                          control$tolerance, control$max_iter, control$shrinking)
  r$progress(message = "linear SVM")
  fits
}

#' @export
kc_repr_svm_model.kc_features <- function(r, fits, pairs, control) {
  fa <- r$fa
  rank <- fa$rank
  fa$w <- vapply(fits, function(f) f$w[seq_len(rank)], numeric(rank))
  fa$w <- matrix(fa$w, rank, nrow(pairs), dimnames = list(NULL, rownames(pairs)))
  fa$b <- stats::setNames(vapply(fits, function(f) f$w[rank + 1L], numeric(1)), rownames(pairs))
  per_pair <- function(f) stats::setNames(vapply(fits, f, numeric(1)), rownames(pairs))
  converged <- vapply(fits, function(f) f$status == kc_c$linear_status[["converged"]], logical(1))
  if (!all(converged)) {
    kc_warn(sprintf(paste0("The linear SVM solver reached its %s passes before the projected ",
                           "gradients met `tolerance` (pairs %s); the solution is approximate."),
                    format(control$max_iter), kc_enum(rownames(pairs)[!converged])),
            class = "convergence")
  }
  list(index = sort(unique(unlist(lapply(fits, function(f) f$rows[f$alpha > 0])))),
       support_vectors = per_pair(function(f) sum(f$alpha > 0)),
       objective = per_pair(function(f) f$objective),
       iterations = per_pair(function(f) f$passes),
       converged = all(converged), cost = control$cost, approx = fa)
}

# Platt's sigmoids from 5-fold cross-validated decision values per pair, the
# folds drawn as the exact SVM's (kc_svm_platt); the folds' training sides
# with both classes solved side by side in one call (kc_linear_pairs(), each
# with its generator seeded from R's RNG after all folds are drawn), a test
# fold whose training side has one class scored +1 or -1 as the exact SVM's.
#' @export
kc_repr_svm_platt.kc_features <- function(r, fits, pairs, C, control) {
  folds <- 5L
  code <- as.integer(r$y)
  rank <- r$fa$rank
  rows <- lapply(seq_len(nrow(pairs)), function(m) which(code %in% pairs[m, ]))
  fold <- kc_platt_folds(rows, folds)
  cv <- lapply(seq_len(nrow(pairs)), function(m) {
    list(rows = rows[[m]], fold = fold[[m]], pos = code[rows[[m]]] == pairs[m, "first"])
  })
  jobs <- do.call(rbind, lapply(seq_len(nrow(pairs)), function(m) {
    f <- seq_len(folds)
    f <- f[vapply(f, function(k) {
      train <- cv[[m]]$fold != k
      any(cv[[m]]$fold == k) && any(cv[[m]]$pos[train]) && !all(cv[[m]]$pos[train])
    }, logical(1))]
    cbind(pair = rep(m, length(f)), fold = f)
  }))
  solved <- kc_linear_pairs(r$store, rank, code,
                            lapply(seq_len(nrow(jobs)), function(j) {
                              p <- cv[[jobs[j, "pair"]]]
                              p$rows[p$fold != jobs[j, "fold"]]
                            }),
                            pairs[jobs[, "pair"], , drop = FALSE], C, control$tolerance,
                            control$max_iter, control$shrinking)
  ab <- vapply(seq_len(nrow(pairs)), function(m) {
    p <- cv[[m]]
    dec <- numeric(length(p$rows))
    for (k in seq_len(folds)) {
      test <- p$fold == k
      if (!any(test)) next
      j <- which(jobs[, "pair"] == m & jobs[, "fold"] == k)
      if (length(j) == 0L) {  # a training side of one class
        dec[test] <- if (any(p$pos[!test])) 1 else -1
        next
      }
      w <- solved[[j]]$w
      dec[test] <- .Call(ffi_store_product, r$store, rank, p$rows[test], matrix(w[seq_len(rank)])) +
        w[rank + 1L]
    }
    kc_platt_fit(dec, p$pos)
  }, numeric(2))
  r$progress(message = "probability model")
  ab
}

# ---- print and summary ------------------------------------------------------

kc_approx_lines <- function(fa) {
  e <- fa$error
  cat("Approximation: ", kc_approx_label(fa$spec, fa$rank), "\n", sep = "")
  if (!is.null(fa$spec$chosen)) cat("  ", fa$spec$chosen, "\n", sep = "")
  cat(sprintf(paste0("  kernel error on %d random training pairs: mean absolute %s, ",
                     "relative Frobenius %s\n"),
              as.integer(e[["pairs"]]), format(e[["mae"]], digits = 3),
              format(e[["rel_frobenius"]], digits = 3)))
  kc_approx_check_lines(fa)
}

#' @export
kc_repr_print.kc_features <- function(repr, x) {
  kc_print_exact.kernclass(x)
  if (kc_fitter_of(x)$svm) {  # the linear SVM's figures
    cat(sprintf(paste0("Cost: %s\nLinear SVM on the features (dual coordinate descent): %d ",
                       "training rows with alpha > 0 (support vectors)\n"),
                format(x$cost), length(x$index)))
    if (!x$converged) cat("Warning: the solver did not converge (max_iter passes reached)\n")
  }
  kc_approx_lines(x$approx)
  invisible(x)
}

#' @export
kc_repr_summary.kc_features <- function(repr, object) {
  s <- kc_summary_exact.kernclass(object)
  s$approx <- object$approx[c("spec", "rank", "error", "check", "baseline", "subsample")]
  if (kc_fitter_of(object)$svm) {
    s$pairs <- data.frame(objective = object$objective, passes = object$iterations,
                          support_vectors = object$support_vectors, b = object$approx$b)
  }
  class(s) <- c("summary.kernclass_approx", class(s))
  s
}

#' @export
print.summary.kernclass_approx <- function(x, ...) {
  NextMethod()
  cat("\n")
  kc_approx_lines(x$approx)
  if (!is.null(x$pairs)) {
    cat("\nLinear SVM per class pair:\n")
    print(x$pairs, digits = 5)
  }
  invisible(x)
}
