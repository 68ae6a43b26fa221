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
#' of classes, the class with most votes wins (ties to the earlier level);
#' with `probability = TRUE` the predicted class is the most probable one
#' instead (`predict(rule = "vote")` gives the vote, see [predict.kernclass()]).
#' `predict(type = "decision")` gives one column per pair (`"a/b"`, positive
#' for `a`).
#'
#' @section nu-classification: `type = "nu-classification"` replaces `cost`
#'   by \eqn{\nu \in (0, 1]}, an upper bound on the fraction of margin errors
#'   and a lower bound on the fraction of support vectors (Schölkopf et al.
#'   2000; see the nu-property below). Each pair solves the dual of Chang and Lin (2001) as LIBSVM does,
#'   \deqn{\min_\eta \tfrac12 (\eta \odot y)' K (\eta \odot y), \quad
#'   0 \le \eta_i \le w_i, \quad \textstyle\sum_{y_i = +1} \eta_i =
#'   \sum_{y_i = -1} \eta_i = \nu W / 2,}
#'   with \eqn{w_i} the weights (`class.weights` times `weights`, 1 by
#'   default) and \eqn{W} their sum over the pair; the SMO then picks both
#'   variables of a step within one class. The solution, divided by the
#'   margin \eqn{r} as LIBSVM's, is that of C-classification with cost
#'   \eqn{1/r} (costs \eqn{w_i / r}): the field `cost` gives \eqn{1/r} per
#'   pair, and `eta`, `coefs`, `b` and `objective` (\eqn{\tfrac12 c'Kc}, as
#'   LIBSVM reports it) are those of e1071's `type = "nu-classification"`.
#'   A pair can hold \eqn{\nu W / 2} in each class only if
#'   \eqn{\nu \le 2 \min(W_1, W_2) / W}: a larger `nu` is an error of class
#'   `"kernclass_nu_infeasible_error"` (LIBSVM's "specified nu is
#'   infeasible"), and so is a `nu` so small that the classes' reduced convex
#'   hulls overlap (\eqn{w = 0}, \eqn{r = 0} to the precision of the float
#'   kernel cache), where LIBSVM returns coefficients of about \eqn{10^5}
#'   made of rounding errors. Unlike LIBSVM, which ignores them for
#'   nu-classification, `class.weights` and `weights` act as for
#'   C-classification (as costs \eqn{w_i / r}; weights are replication counts).
#'   With `probability = TRUE` each cross-validation fold uses at most the
#'   largest `nu` it allows.
#'
#'   The nu-property, exactly: since \eqn{\sum_i \eta_i = \nu W} and
#'   \eqn{\eta_i \le w_i}, the weighted fraction of a pair's points at the
#'   bound (\eqn{\eta_i = w_i}) is at most \eqn{\nu} and that of its support
#'   vectors (\eqn{\eta_i > 0}) at least \eqn{\nu}; `summary()` shows both
#'   per pair. Margin errors are at the bound at the optimum, so their
#'   fraction is at most \eqn{\nu} up to the solver's `tolerance`; the
#'   fractions tend to \eqn{\nu} as the data grow.
#'
#' @section One-class SVM (novelty detection): `type = "one-classification"`
#'   learns the support of the inputs alone (no `y`, a formula without a
#'   response such as `~ .`): the dual of Schölkopf et al. (2001) in LIBSVM's
#'   scaling,
#'   \deqn{\min_\alpha \tfrac12 \alpha' K \alpha, \quad 0 \le \alpha_i \le w_i,
#'   \quad \textstyle\sum_i \alpha_i = \nu W,}
#'   from LIBSVM's starting point, so that \eqn{\alpha}, \eqn{\rho} and the
#'   support vectors are e1071's. The decision value is
#'   \eqn{f(x) = \sum_i \alpha_i k(x, x_i) - \rho}; `predict()` gives a factor
#'   with levels `"inlier"` (\eqn{f(x) > 0}, e1071's `TRUE`) and `"outlier"`
#'   (e1071's `FALSE`), `type = "decision"` the values \eqn{f(x)}, and no
#'   probabilities. Since \eqn{\sum_i \alpha_i = \nu W} and
#'   \eqn{\alpha_i \le w_i}, the weighted fraction of training points at the
#'   bound (\eqn{\alpha_i = w_i}) is at most \eqn{\nu} and that of support
#'   vectors (\eqn{\alpha_i > 0}) at least \eqn{\nu}, exactly. Training
#'   outliers (\eqn{f(x_i) < 0}) are at the bound at the optimum, but
#'   `predict()` also calls the support vectors on the boundary
#'   (\eqn{f(x_i) = 0} at the optimum, either sign within the solver's
#'   `tolerance`) outliers, so the fraction it finds can exceed \eqn{\nu};
#'   all three tend to \eqn{\nu} as the data grow (Schölkopf et al. 2001,
#'   Proposition 4). `summary()` shows the three. The model has class
#'   `c("kernel_svm_oneclass", "kernel_svm", "kernclass")`, `b` \eqn{= -\rho},
#'   `nSV` one number; `plot()` shades the inlier region and colours the
#'   points by their prediction.
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
#'   that says it converged. Nor can the cache tell points apart whose
#'   kernel values share a common part much larger than their differences
#'   (\eqn{K_{ii} + K_{jj} - 2K_{ij}}{K[i, i] + K[j, j] - 2 K[i, j]} below
#'   its rounding, judged in double on up to 256 points chosen by their
#'   values, not by the order of the rows): given kernel values and kernel
#'   functions are then centred in feature space (in double, before the
#'   cache; for C- and nu-classification this leaves the solution unchanged,
#'   for the one-class SVM only a constant is taken off); where that does
#'   not help, and for the polynomial and sigmoid kernels (and the linear
#'   kernel on sparse rows, which are not centred), the fit is an error of
#'   class `"kernclass_precision_error"`.
#'
#' @section Where the class pairs run: The pairwise problems (and, with
#'   `probability = TRUE`, the folds of their probability models) are
#'   independent. C-classification on dense rows with the `"rbf"` or
#'   `"laplace"` kernel solves them in one call, side by side on the
#'   engine's threads, each class's kernel with itself computed once for
#'   all its pairs and their folds (within a quarter of the memory
#'   available; past it through a cache of class blocks); a fold's decision
#'   values then come from the single-precision kernel values the solver
#'   keeps (each the double value rounded to float, as the fit itself
#'   uses them), so the sigmoids differ from those of double values by that
#'   rounding only. Pairs solved one by one because `cachesize` cannot hold
#'   the largest pair's kernel take their folds' decision values the same
#'   way, so the model does not depend on `cachesize` (nor on the memory
#'   limit that sets its default). The
#'   rest: under a [future::plan()] with workers
#'   (`future::plan("multisession")`, a cluster) they run side by side as
#'   futures, each worker's engine on one thread; under the default
#'   sequential plan one after the other, each with all the engine's threads
#'   ([kernclass_threads()]). The model is the same either way, and so are
#'   the random numbers drawn.
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
#'   the data. A model with probabilities predicts the class of highest
#'   probability, so `type = "class"` and `type = "prob"` agree; the vote of
#'   the decision values (LIBSVM's and e1071's class, which can differ from
#'   the most probable one) is `predict(rule = "vote")`.
#'
#' @inheritParams kernel_means
#' @param cost The cost \eqn{C} of margin violations, \eqn{C > 0}; `Inf` for
#'   the hard margin.
#' @param class.weights Weights of the classes' costs: a named vector (names
#'   are levels of `y`; classes not named get weight 1), or `"balanced"`,
#'   scikit-learn's weights \eqn{w_c = n / (k\, n_c)}{w_c = n / (k n_c)} for
#'   \eqn{n} training rows, \eqn{k} classes and \eqn{n_c} rows of class
#'   \eqn{c} (counted without `weights`): each class then weighs as much in
#'   total, and a class of average size keeps the cost `cost`. In
#'   cross-validation each fold's fit counts its own training rows.
#'   `"inverse"` is deprecated: it gives a warning of class
#'   `"kernclass_deprecated_warning"` and means `"balanced"`. (It meant
#'   e1071's `class.weights = "inverse"`, \eqn{1 / n_c}{1 / n_c}, which
#'   scales every cost down by the class sizes: with the default `cost = 1`
#'   the bounds become 0.02 to 0.05 for classes of 20 to 50 rows, so weak
#'   that the minority class may never be predicted. e1071's weights are
#'   `class.weights = 1 / table(y)`.)
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
#'   problem, at most 1024 MB and at most a quarter of the memory available
#'   (see [kernclass-package]). A cache that holds at least half of the rows
#'   also lets the solver compute rows 4 at a time.
#' @param shrinking Whether to use the shrinking heuristic.
#' @param type `"C-classification"` (default), `"nu-classification"` or
#'   `"one-classification"` (e1071's names; partial matching allowed). See
#'   the sections below. Arguments a type does not use are errors: `cost`
#'   with the nu types, `nu` with C-classification, `y`, `class.weights` or
#'   `probability = TRUE` with one-classification.
#' @param nu For the nu types, \eqn{\nu \in (0, 1]} (default 0.5, as e1071).
#' @param approx `NULL` (default) for the exact SVM, or an approximation for
#'   large data (see [approximations]): [cells()], the exact SVM in each
#'   k-means cell of about `size` rows, a row predicted by its nearest
#'   cell's SVM; or [nystrom()] or [random_fourier()], a linear SVM on
#'   low-rank kernel features (`cost = Inf` and `cachesize` are then
#'   errors). Both are for C-classification only, on dense inputs.
#' @return An object of class `c("kernel_svm", "kernclass_ovo", "kernclass")`
#'   (`"kernclass_ovo"`: the one-vs-one classifiers, as [kernel_bayes()]):
#'   besides the common fields (see [kernel_bayes()]; no `weight` or
#'   `offset`), `index` (the rows of
#'   the training data that are support vectors), `SV` (those rows, scaled;
#'   `NULL` for sparse rows, precomputed kernel values and kernel functions,
#'   whose model holds its data once, in `x`: the support vectors are
#'   `x[index, ]`),
#'   `eta` (the dual variables, a matrix with a column per class pair) and
#'   `coefs` (\eqn{y_i \eta_i}{y_i eta_i}), `b` (one offset per pair), `nSV` (support vectors
#'   per class), `n_at_bound` (per pair, the number with \eqn{\eta_i = C_i}{eta_i = C_i}), `objective`,
#'   `iterations`, `kkt_violation` (per pair: the final maximal violation of
#'   the KKT conditions, 0 when they hold strictly), `converged`, `cost`,
#'   `C` (each training point's bound \eqn{C_i}: `cost` times its weight and
#'   its class's weight), `class.weights` (`NULL` when not given),
#'   `tolerance`, `type`, `nu` (for the nu types), and with
#'   `probability = TRUE` the sigmoid parameters `probA`, `probB` (one per
#'   pair, as e1071's). For nu-classification `cost` holds \eqn{1/r} per pair
#'   and `C` the weights \eqn{w_i}.
#' @references Chang, C.-C. and Lin, C.-J. (2001). Training
#'   \eqn{\nu}-support vector classifiers: theory and algorithms. *Neural
#'   Computation* 13, 2119-2147.
#'
#'   Chang, C.-C. and Lin, C.-J. (2011). LIBSVM: a library for
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
#'   Schölkopf, B., Smola, A. J., Williamson, R. C. and Bartlett, P. L.
#'   (2000). New support vector algorithms. *Neural Computation* 12,
#'   1207-1245.
#'
#'   Schölkopf, B., Platt, J. C., Shawe-Taylor, J., Smola, A. J. and
#'   Williamson, R. C. (2001). Estimating the support of a high-dimensional
#'   distribution. *Neural Computation* 13, 1443-1471.
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
#' # nu-classification: nu in place of cost; cost is then 1/r per pair
#' nfit <- kernel_svm(Species ~ ., data = iris, type = "nu-classification", nu = 0.2)
#' nfit$cost
#'
#' # novelty detection: the one-class SVM learns where the data lie
#' ofit <- kernel_svm(~ Petal.Length + Petal.Width, data = iris,
#'                    type = "one-classification", nu = 0.05)
#' table(predict(ofit, iris))
#' predict(ofit, data.frame(Petal.Length = c(4, 2), Petal.Width = c(1.3, 2)))
#' plot(ofit, iris)
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
                               max_iter = 1e7, cachesize = NULL, shrinking = TRUE,
                               type = c("C-classification", "nu-classification",
                                        "one-classification"),
                               nu = 0.5, ..., approx = NULL) {
  call <- kc_call(match.call(), "kernel_svm")
  one <- kc_svm_type(type) == "one-classification"
  if (one && !is.null(y)) kc_svm_no_labels("y")
  kc_fit_svm(kc_design_xy(x, y, labels = !one, kernel = kernel), kernel = kernel, gamma = gamma,
             degree = degree, coef0 = coef0, cost = cost, class.weights = class.weights,
             weights = weights, scale = scale, probability = probability, tolerance = tolerance,
             max_iter = max_iter, cachesize = cachesize, shrinking = shrinking, type = type,
             nu = nu, ..., approx = approx, call = call)
}

#' @rdname kernel_svm
#' @export
kernel_svm.formula <- function(formula, data = NULL, subset, na.action, weights, ...) {
  call <- kc_call(match.call(), "kernel_svm")
  dots <- list(...)
  one <- "type" %in% names(dots) && kc_svm_type(dots[["type"]]) == "one-classification"
  d <- kc_design_formula(call, parent.frame(), labels = !one)
  if (one && attr(d$terms, "response") > 0L) kc_svm_no_labels("formula")
  # weights from the model frame
  kc_fit_formula(kc_fit_svm, kernel_svm.default, d, list(weights = d$weights, ...), call)
}

# The fit, for both methods (as kc_fit_means()): the arguments checked, the
# bounds C, then the SVM on the representation (kc_repr_svm(),
# R/fit-svm-solve.R).
kc_fit_svm <- function(d, kernel, gamma, degree, coef0, cost, class.weights, weights, scale,
                       probability, tolerance, max_iter, cachesize, shrinking, type, nu, ...,
                       approx, call) {
  kc_fit_svm_costs(d, kernel, gamma, degree, coef0, list(cost), class.weights, weights, scale,
                   probability, tolerance, max_iter, cachesize, shrinking, type, nu, ...,
                   approx = approx, call = call)[[1L]]
}

# kernel_svm() for each of several costs on the same data and arguments
# (kernel_tune()'s cost path, R/select-svm-path.R): one model per cost, as
# kernel_svm(x, y, cost = costs[i], ...) would fit it, the exact kernel's
# costs solved as one path per class pair (kc_repr_svm_costs()).
kc_svm_cost_path <- function(x, y, costs, ...) {
  a <- list(...)
  arg <- function(nm) if (nm %in% names(a)) a[[nm]] else eval(formals(kernel_svm.default)[[nm]])
  if (kc_svm_type(arg("type")) == "one-classification") kc_svm_no_labels("y")
  call <- as.call(c(list(quote(kernel_svm), x = x, y = y, cost = costs[[1L]]), a))
  d <- kc_design_xy(x, y, kernel = arg("kernel"))
  kc_fit_formula(kc_fit_svm_costs, kernel_svm.default, d, c(a, list(cost = as.list(costs))), call)
}

# The fit of kc_fit_svm() for the costs `cost` (a list: each checked as
# kernel_svm()'s `cost`), a list of one model per cost; call: the first
# cost's (each model's its own cost's).
kc_fit_svm_costs <- function(d, kernel, gamma, degree, coef0, cost, class.weights, weights, scale,
                             probability, tolerance, max_iter, cachesize, shrinking, type, nu, ...,
                             approx, call) {
  kc_check_dots(...)
  kc_threads()
  type <- kc_svm_type(type)
  one <- type == "one-classification"
  kc_svm_check_unused(type, call, class.weights, probability)
  if (identical(class.weights, "inverse")) {
    kc_warn(paste0("class.weights = \"inverse\" is deprecated and now means \"balanced\": ",
                   "weights n / (k n_c), not e1071's 1 / n_c (which scales every cost down by the ",
                   "class sizes). Use class.weights = \"balanced\", or ",
                   "1 / table(y) for e1071's weights."), class = "deprecated")
  }
  if (one && nrow(d$x) < 2L) {
    kc_abort(sprintf("The one-class SVM needs at least 2 observations; got %d.", nrow(d$x)),
             arg = "x")
  }
  d <- kc_scale_design(d, scale)
  k <- kc_kernel(kernel, gamma, degree, coef0, d$x)
  kc_check_kernel_range(d$x, k, float = TRUE)
  approx <- kc_approx_check(approx, d$x, k)
  if (type == "C-classification") {
    for (v in cost) if (!is.numeric(v) || length(v) != 1L || is.na(v) || !(v > 0)) {
      kc_abort(sprintf("`cost` must be one number > 0 (Inf for the hard margin); got %s.",
                       paste(format(v), collapse = ", ")), arg = "cost")
    }
  } else if (!is.numeric(nu) || length(nu) != 1L || is.na(nu) || !(nu > 0 && nu <= 1)) {
    kc_abort(sprintf("`nu` must be one number in (0, 1]; got %s.",
                     paste(format(nu), collapse = ", ")), arg = "nu")
  }
  kc_check_number(tolerance, "tolerance", lower = 0, lower_open = TRUE)
  kc_check_number(max_iter, "max_iter", lower = 1, whole = TRUE)
  cache_given <- !is.null(cachesize)
  if (is.null(cachesize)) {
    largest <- if (one) nrow(d$x) else sum(utils::head(sort(tabulate(d$y), decreasing = TRUE), 2L))
    # the cache is speed, not need: within the SVM's budget (kc_svm_budget())
    cachesize <- min(1024, 4 * largest^2 / 2^20 + 1, max(1, kc_svm_budget() / 2^20))
  }
  kc_check_number(cachesize, "cachesize", lower = 0, lower_open = TRUE)
  if (cache_given) {
    kc_check_memory(cachesize * 2^20, sprintf("`cachesize` = %s MB", format(cachesize)),
                    "Give a smaller `cachesize`: the kernel rows it keeps save time only.",
                    arg = "cachesize")
  }
  kc_check_flag(shrinking, "shrinking")
  kc_check_flag(probability, "probability")
  # the upper bounds, per cost: cost times the weights; for the nu types the
  # weights alone (LIBSVM's bound 1), the solution fixing the scale
  bounds <- function(v) {
    C <- kc_obs_weights(weights, nrow(d$x))
    if (type == "C-classification") C <- v * C
    if (!one) C <- kc_class_weights(class.weights, d$y)[as.integer(d$y)] * C
    C[C == 0 | is.nan(C)] <- 0  # weight 0 with cost = Inf: the point is left out
    if (one && sum(C > 0) < 2L) {
      kc_abort(sprintf(paste0("The one-class SVM needs at least 2 observations of weight > 0; ",
                              "`weights` leaves %d."), sum(C > 0)), arg = "weights")
    }
    if (!one) {
      empty <- levels(d$y)[tapply(C, d$y, max) == 0]
      if (length(empty)) {
        zero <- any(kc_class_weights(class.weights, d$y)[empty] == 0)
        arg <- if (zero) "class.weights" else "weights"
        kc_abort(sprintf(paste0("`%s` gives every observation of class(es) %s weight 0; they ",
                                "cannot be learnt."), arg, kc_enum(empty)), arg = arg)
      }
    }
    C
  }
  C <- lapply(cost, bounds)
  calls <- if (length(cost) == 1L) list(call) else lapply(cost, function(v) {
    call$cost <- v
    call
  })

  control <- list(kernel = k, type = type, cost = unlist(cost), nu = nu, tolerance = tolerance,
                  max_iter = max_iter, cachesize = cachesize, shrinking = shrinking)
  kc_repr_svm(kc_repr_new(kc_repr_kind(approx)), approx, d, k, C, control,
              list(weights = weights, class.weights = class.weights, probability = probability,
                   given = names(call), calls = calls))
}

kc_svm_type <- function(type) {
  kc_match_arg(type, kc_formal(kernel_svm.default, "type"), "type")
}

kc_svm_no_labels <- function(arg) {
  kc_abort(sprintf(paste0("type = \"one-classification\" learns from the inputs alone: %s. ",
                          "To learn one class of labelled data, give only its rows."),
                   if (arg == "y") "drop `y`" else "give a formula without a response, e.g. ~ ."),
           arg = arg)
}

# Arguments the chosen type does not use are errors, never silently ignored
# (e1071 ignores them): `call` tells which the user gave.
kc_svm_check_unused <- function(type, call, class.weights, probability) {
  given <- function(arg) !is.null(call) && arg %in% names(call)
  if (type != "C-classification" && given("cost")) {
    kc_abort(sprintf("`cost` is not used with type = \"%s\": `nu` sets the trade-off; drop `cost`.",
                     type), arg = "cost")
  }
  if (type == "C-classification" && given("nu")) {
    kc_abort(paste0("`nu` is used only with type = \"nu-classification\" or ",
                    "\"one-classification\"; C-classification takes `cost`."), arg = "nu")
  }
  if (type == "one-classification" && !is.null(class.weights)) {
    kc_abort(paste0("`class.weights` has no classes to weigh with type = \"one-classification\"; ",
                    "`weights` weighs observations."), arg = "class.weights")
  }
  if (type == "one-classification" && isTRUE(probability)) {
    kc_abort(paste0("type = \"one-classification\" has no probability model; ",
                    "predict(type = \"decision\") gives its decision values."), arg = "probability")
  }
}

# The warning of fits that stopped at max_iter (pairs: the pairs' names, or
# NULL for the one-class SVM; cells: list(bad, of), the cells that stopped
# of how many, R/repr-cells.R); kernel_tune()'s shared path gives it too.
kc_svm_warn_max_iter <- function(max_iter, pairs, cells = NULL) {
  where <- if (!is.null(cells)) {
    sprintf(" in %d of %d cells (%s)", length(cells$bad), cells$of, kc_enum(cells$bad))
  } else if (!is.null(pairs)) sprintf(" (pairs %s)", kc_enum(pairs)) else ""
  kc_warn(sprintf(paste0("The SMO solver reached `max_iter` (%s) before the KKT conditions ",
                         "held within `tolerance`%s; the solution is approximate."),
                  format(max_iter), where),
          class = "convergence")
}

# nu-SVC needs nu W / 2 of bound in each class of every pair, W the pair's
# total bound (LIBSVM: nu (n1 + n2) / 2 <= min(n1, n2), "specified nu is
# infeasible"); the largest nu that works is 2 min(W1, W2) / W.
kc_svm_nu_max <- function(w1, w2) 2 * min(w1, w2) / (w1 + w2)

kc_svm_check_nu <- function(nu, C, y, pairs) {
  W <- vapply(split(C, y), sum, numeric(1))
  w1 <- W[pairs[, "first"]]
  w2 <- W[pairs[, "second"]]
  bad <- nu * (w1 + w2) / 2 > pmin(w1, w2)
  if (any(bad)) {
    top <- min(mapply(kc_svm_nu_max, w1, w2))
    kc_abort(sprintf(paste0("`nu` = %s is infeasible: the classes %s are too unequal in size ",
                            "(or weight) for it. Use nu <= %s (2 min(n1, n2) / (n1 + n2) over ",
                            "the class pairs)."),
                     format(nu), kc_enum(rownames(pairs)[bad]), format(top, digits = 6)),
             arg = "nu", class = "nu_infeasible")
  }
}

# "balanced", or its deprecated name "inverse" (kc_fit_svm() warns for it,
# once per fit).
kc_class_weights_balanced <- function(class.weights) {
  is.character(class.weights) && length(class.weights) == 1L &&
    class.weights %in% c("balanced", "inverse")
}

kc_class_weights <- function(class.weights, y) {
  lev <- levels(y)
  w <- stats::setNames(rep(1, length(lev)), lev)
  if (is.null(class.weights)) return(w)
  if (kc_class_weights_balanced(class.weights)) {
    # scikit-learn's "balanced": n / (k n_c), every class the same total weight
    counts <- tabulate(y, length(lev))
    return(stats::setNames(length(y) / (length(lev) * counts), lev))
  }
  if (!is.numeric(class.weights) || is.null(names(class.weights)) || anyNA(class.weights) ||
      any(class.weights < 0) || any(!is.finite(class.weights))) {
    kc_abort(paste0("`class.weights` must be a named vector of non-negative numbers ",
                    "(names are classes) or \"balanced\"."), arg = "class.weights")
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
  weights <- kc_read_integer64(weights, "weights")
  if (!is.numeric(weights) || length(weights) != n || anyNA(weights) ||
      any(!is.finite(weights)) || any(weights < 0)) {
    kc_abort(sprintf("`weights` must be %d finite non-negative numbers, one per observation.", n),
             arg = "weights")
  }
  as.numeric(weights)
}
