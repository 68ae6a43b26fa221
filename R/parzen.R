#' Parzen-window Bayes classifier
#'
#' Estimates each class density by a Parzen window (kernel density)
#' estimate, \eqn{p_c(x) = \frac{1}{n_c}\sum_{i \in c} k(x, x_i)}, and
#' assigns a point to the class with the largest \eqn{\pi_c p_c(x)}, where
#' \eqn{\pi_c} is the class prior. With equal priors and two classes this is
#' the kernel nearest-means rule with offset \eqn{b = 0}.
#'
#' Only kernels that are densities when one argument is held fixed make
#' \eqn{p_c} a density: `"rbf"` and `"laplace"` (up to a constant factor
#' that is the same for every class and cancels in the posterior). The rule
#' is offered for the other kernels too, but `predict(type = "prob")` is then
#' an error, since "densities" can be negative.
#'
#' @section Decision values: Each class gets the score
#'   \eqn{f_c(x) = \pi_c p_c(x)}. With two classes `predict(type =
#'   "decision")` returns \eqn{\pi_+ p_+(x) - \pi_- p_-(x)} (positive for the
#'   first factor level); with more classes, the matrix of scores.
#'   `predict(type = "prob")` gives the posterior
#'   \eqn{\pi_c p_c(x) / \sum_j \pi_j p_j(x)}; for a point so far from all
#'   training data that every \eqn{p_c(x)} underflows to zero, the
#'   probabilities fall back to the priors and the class to the class with
#'   the largest prior.
#'
#' @inheritParams kernel_means
#' @param prior Class prior probabilities, one per class (named by class, or
#'   in the order of the levels of `y`), summing to 1. Default: the class
#'   proportions of the training data.
#' @return An object of class `c("kernel_parzen", "kernclass")`, laid out as
#'   for [kernel_means()], with the `prior`.
#' @references Schölkopf, B. and Smola, A. J. (2002). *Learning with Kernels*,
#'   equations (1.13)-(1.14). MIT Press.
#' @export
#' @examples
#' fit <- kernel_parzen(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2)
#' summary(fit)
#' predict(fit, data.frame(Petal.Length = 4.9, Petal.Width = 1.6), type = "prob")
#'
#' # equal priors instead of the class proportions
#' kernel_parzen(Species ~ ., data = iris, prior = c(1, 1, 1) / 3)
kernel_parzen <- function(x, ...) UseMethod("kernel_parzen")

#' @rdname kernel_parzen
#' @export
kernel_parzen.default <- function(x, y = NULL, kernel = "rbf", gamma = NULL, degree = 3,
                                  coef0 = 0, scale = TRUE, prior = NULL, ...) {
  kc_check_dots(...)
  d <- kc_design(x, y, scale)
  k <- kc_kernel(kernel, gamma, degree, coef0, p = ncol(d$x))
  counts <- tabulate(d$y, nlevels(d$y))
  prior <- kc_check_prior(prior, levels(d$y), counts)
  new_kernclass(d, k, weight = as.numeric(prior / counts)[as.integer(d$y)], offset = rep(0, length(counts)),
                call = kc_call(match.call(), "kernel_parzen"), class = "kernel_parzen", prior = prior)
}

#' @rdname kernel_parzen
#' @export
kernel_parzen.formula <- function(formula, data = NULL, subset, na.action, ...) {
  fit <- kernel_parzen.default(kc_formula_design(match.call(), parent.frame()), ...)
  fit$call <- kc_call(match.call(), "kernel_parzen")
  fit
}

#' @export
kc_classify.kernel_parzen <- function(object, scores) {
  cls <- kc_class_from_scores(scores, object$levels)
  # where every density underflows to zero, the prior decides (as in "prob")
  cls[rowSums(scores != 0) == 0] <- object$levels[which.max(object$prior)]
  cls
}

#' @export
kc_posterior.kernel_parzen <- function(object, scores) {
  if (!object$kernel$name %in% c("rbf", "laplace")) {
    kc_abort(sprintf(paste0("type = \"prob\" needs a kernel that is a density (\"rbf\" or ",
                            "\"laplace\"); this model uses \"%s\". Use type = \"decision\"."),
                     object$kernel$name), arg = "type", class = "prob_unavailable")
  }
  total <- rowSums(scores)
  p <- scores / total
  underflow <- !(total > 0)
  p[underflow, ] <- rep(object$prior, each = sum(underflow))
  p
}
