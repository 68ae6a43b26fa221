#' Parzen-window Bayes classifier
#'
#' Estimates each class density by a Parzen window (kernel density)
#' estimate, \eqn{p_c(x) = \frac{1}{n_c}\sum_{i \in c} k(x, x_i)}{p_c(x) =
#' (1/n_c) sum_{i in c} k(x, x_i)}, and assigns a point to the class with the
#' largest \eqn{\pi_c p_c(x)}{pi_c p_c(x)}, where \eqn{\pi_c}{pi_c} is the
#' class prior (Schölkopf and Smola 2002, section 1.2). With equal priors and two classes this is
#' the kernel nearest-means rule with offset \eqn{b = 0}.
#'
#' Only kernels that are densities when one argument is held fixed make
#' \eqn{p_c} a density: `"rbf"` and `"laplace"` (up to a constant factor
#' that is the same for every class and cancels in the posterior). The rule
#' is offered for the other kernels too, but `predict(type = "prob")` is then
#' an error, since "densities" can be negative.
#'
#' @section Decision values: Each class gets the score
#'   \eqn{f_c(x) = \pi_c p_c(x)}{f_c(x) = pi_c p_c(x)}. With two classes `predict(type =
#'   "decision")` returns \eqn{\pi_+ p_+(x) - \pi_- p_-(x)}{pi+ p+(x) - pi- p-(x)} (positive for the
#'   first factor level); with more classes, the matrix of scores.
#'   `predict(type = "prob")` gives the posterior
#'   \eqn{\pi_c p_c(x) / \sum_j \pi_j p_j(x)}{pi_c p_c(x) / sum_j pi_j p_j(x)}; for a point so far from all
#'   training data that every \eqn{p_c(x)} underflows to zero, the
#'   probabilities fall back to the priors and the class to the class with
#'   the largest prior.
#'
#' @inheritParams kernel_means
#' @param prior Class prior probabilities, one per class (named by class, or
#'   in the order of the levels of `y`), summing to 1. Default: the class
#'   proportions of the training data.
#' @param threshold How the boundary of a two-class model is placed:
#'   `"analytic"` (default), by the prior ratio (the rule
#'   \eqn{\log p_+(x) - \log p_-(x) + \log(\pi_+/\pi_-) > 0}{log p+(x) -
#'   log p-(x) + log(pi+/pi-) > 0}), or
#'   `"search"`, the threshold search of the kernelized Bayes classifier
#'   ([threshold_search()]) on the
#'   training values of the log density ratio \eqn{\log p_+(x) - \log
#'   p_-(x)}{log p+(x) - log p-(x)}: the offset \eqn{b} it finds takes the place of the log prior
#'   ratio, so the model keeps the effective prior
#'   \eqn{\pi_+ = 1/(1 + e^{-b})}{pi+ = 1/(1 + exp(-b))} in `prior` (and the search result in
#'   `search`), and decisions and probabilities follow from it. The search
#'   needs two classes, a density kernel (`"rbf"` or `"laplace"`) and no
#'   `prior`. (Densities that underflow to zero are taken as the smallest
#'   positive number, and \eqn{|b|} is kept below 700.) Where the best split
#'   has the first class below it (`sign = -1`), which no prior can
#'   express, the fit stops with an error of class
#'   `kernclass_search_inverted_error`.
#' @return An object of class `c("kernel_parzen", "kernclass_scores",
#'   "kernclass")`, laid out as
#'   for [kernel_means()], with the `prior` and the `threshold` rule.
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
kernel_parzen <- function(x, ...) {
  kc_require_input(missing(x), ...names())
  UseMethod("kernel_parzen")
}

#' @rdname kernel_parzen
#' @export
kernel_parzen.default <- function(x, y = NULL, kernel = "rbf", gamma = NULL, degree = 3,
                                  coef0 = 0, scale = TRUE, prior = NULL, ...,
                                  threshold = c("analytic", "search"), approx = NULL) {
  call <- kc_call(match.call(), "kernel_parzen")
  kc_fit_parzen(kc_design_xy(x, y, kernel = kernel), kernel = kernel, gamma = gamma,
                degree = degree, coef0 = coef0, scale = scale, prior = prior, ...,
                threshold = threshold, approx = approx, call = call)
}

#' @rdname kernel_parzen
#' @export
kernel_parzen.formula <- function(formula, data = NULL, subset, na.action, ...) {
  call <- kc_call(match.call(), "kernel_parzen")
  d <- kc_design_formula(call, parent.frame())
  kc_fit_formula(kc_fit_parzen, kernel_parzen.default, d, list(...), call)
}

# The fit, for both methods (as kc_fit_means()).
kc_fit_parzen <- function(d, kernel, gamma, degree, coef0, scale, prior, ..., threshold, approx,
                          call, .shared = NULL) {
  kc_check_dots(...)
  kc_threads()
  d <- kc_scale_design(d, scale)
  k <- kc_kernel_shared(kc_kernel(kernel, gamma, degree, coef0, d$x), .shared)
  kc_check_kernel_range(d$x, k)
  threshold <- kc_match_threshold(threshold, nlevels(d$y))
  counts <- tabulate(d$y, nlevels(d$y))
  approx <- kc_approx_check(approx, d$x, k)
  r <- kc_repr_train(approx, d, k, "kernel_parzen")
  s <- kc_parzen_prior(prior, threshold, k, d$y, counts, function() {
    kc_repr_density(r, kc_repr_expand(r, d$x, diag(2)))  # p_1(x_i), p_2(x_i)
  })
  fit <- kc_new_scores(r, d, k, A = diag(s$prior, length(counts)),
                       offset = rep(0, length(counts)), call = call, class = "kernel_parzen",
                       prior = s$prior, threshold = threshold, search = s$search)
  kc_approx_checked(fit, d, approx)
}

# The class priors: `prior` as given (checked), or with threshold = "search"
# the prior that the threshold search on log p_+(x) - log p_-(x) places (dens():
# the training rows' densities of the two classes, n x 2); with the search.
kc_parzen_prior <- function(prior, threshold, k, y, counts, dens) {
  search <- NULL
  if (threshold == "search") {
    if (!is.null(prior)) {
      kc_abort(paste0("`prior` and threshold = \"search\" both place the boundary; ",
                      "give one of them."), arg = "threshold")
    }
    if (!kc_kernel_is_density(k)) {
      kc_abort(sprintf(paste0("threshold = \"search\" for kernel_parzen() works on the log ",
                              "density ratio and needs a density kernel (%s); this model ",
                              "uses \"%s\"."), kc_enum(kc_density_kernels()), k$name),
               arg = "threshold")
    }
    # threshold_search() on log p_+(x) - log p_-(x); the offset b is the log
    # prior ratio log(prior_+ / prior_-) the search chooses
    dens <- dens()
    tiny <- .Machine$double.xmin
    lr <- log(pmax(dens[, 1L], tiny)) - log(pmax(dens[, 2L], tiny))
    search <- kc_search(lr, y)
    if (search$sign < 0) {
      # a prior cannot turn the density ratio round: say so, never a rule
      # that classifies the training data worse than its reverse
      kc_abort(paste0("threshold = \"search\" finds the first class below the threshold ",
                      "on the log density ratio, which no prior can express; use ",
                      "threshold = \"analytic\" or another `gamma`."),
               arg = "threshold", class = "search_inverted")
    }
    b <- min(max(search$b, -700), 700)
    prior <- c(stats::plogis(b), stats::plogis(-b))
  }
  prior <- kc_check_prior(prior, levels(y), counts)
  list(prior = prior, search = search)
}

# Exact leave-one-out (kernel_cv(folds = "loo")): the scores
# prior_c S_c(x_i) / n_c with x_i left out of its class; the default prior
# (class proportions without x_i) makes prior_c / n_c = 1 / (n - 1).
#' @export
kc_loo.kernel_parzen <- function(model, default_prior, what = "class") {
  s <- kc_loo_sums(model)
  n <- length(model$y)
  if (default_prior) {
    prior <- s$counts / (n - 1)
    scores <- s$S / (n - 1)
  } else {
    prior <- model$prior
    scores <- matrix(prior, n, length(prior), byrow = TRUE) * s$S / s$counts
  }
  # where every density underflows, the refit's prior: without x_i by default
  if (what == "prob") return(kc_parzen_posterior(model, scores, prior))
  kc_parzen_class(scores, model$levels, prior)
}

# Densities as the representation gives them (approximate ones below 0 are 0).
#' @export
kc_scores.kernel_parzen <- function(object, x, prob = TRUE) {
  kc_repr_density(kc_repr(object), NextMethod())
}

#' @export
kc_model_classify.kernel_parzen <- function(object, scores) {
  kc_parzen_class(scores, object$levels, object$prior)
}

# Class from the scores prior_c p_c(x): where every density underflows to
# zero, the largest prior decides (as in "prob"). `prior` is one per class, or
# a row per point (leave-one-out's default prior, without the point).
kc_parzen_class <- function(scores, levels, prior) {
  cls <- kc_class_from_scores(scores, levels)
  under <- which(rowSums(scores != 0) == 0)
  if (length(under)) {
    if (is.null(dim(prior))) prior <- matrix(prior, nrow(scores), length(levels), byrow = TRUE)
    cls[under] <- levels[max.col(prior[under, , drop = FALSE], ties.method = "first")]
  }
  cls
}

#' @export
kc_model_posterior.kernel_parzen <- function(object, scores) {
  kc_parzen_posterior(object, scores, object$prior)
}

# The posterior from the scores prior_c p_c(x); rows where every density
# underflows take the prior (one per class, or a row per point as in
# kc_parzen_class()).
kc_parzen_posterior <- function(object, scores, prior) {
  if (!kc_kernel_is_density(object$kernel)) {
    kc_abort(sprintf(paste0("type = \"prob\" needs a kernel that is a density (%s); ",
                            "this model uses \"%s\". Use type = \"decision\"."),
                     kc_enum(kc_density_kernels()), object$kernel$name), arg = "type", class = "prob_unavailable")
  }
  total <- rowSums(scores)
  p <- scores / total
  underflow <- !(total > 0)
  if (any(underflow)) {
    if (is.null(dim(prior))) prior <- matrix(prior, nrow(scores), length(prior), byrow = TRUE)
    p[underflow, ] <- prior[underflow, , drop = FALSE]
  }
  p
}
