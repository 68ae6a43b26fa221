# Conformal prediction sets: conformal() keeps the nonconformity scores of
# held-out rows beside the model; predict(type = "set", level = ) compares
# each new row's scores for every class with their quantile. The scores come
# from the probabilities predict() gives (kc_prob(), R/model-methods.R), in the
# same pass of kernel work as its classes.

#' Conformal prediction sets for a kernclass classifier
#'
#' `conformal()` calibrates a fitted classifier so that
#' `predict(type = "set", level = )` returns, for each new row, a set of
#' classes that holds the true class with probability at least `level`
#' (marginal coverage over new rows drawn like the calibration rows), for
#' any classifier and representation (exact kernels, [nystrom()],
#' [random_fourier()], [cells()]) that gives probabilities.
#'
#' @section Scores: The nonconformity score of class \eqn{c} at \eqn{x} is
#'   computed from the probabilities of `predict(type = "prob")`. With
#'   \eqn{\rho_c(x) = \sum_{c'} p_{c'}(x) [p_{c'}(x) > p_c(x)]}{rho_c(x) =
#'   sum_c' p_c'(x) [p_c'(x) > p_c(x)]}, the probability of the classes more
#'   probable than \eqn{c}{c}, and \eqn{o_c(x) = 1 + \sum_{c'} [p_{c'}(x) >
#'   p_c(x)]}{o_c(x) = 1 + sum_c' [p_c'(x) > p_c(x)]}, its rank (1 for the
#'   most probable; tied classes share a rank):
#'   * `score = "prob"`: \eqn{s(x, c) = 1 - p_c(x)}{s(x, c) = 1 - p_c(x)}
#'     (the "least ambiguous" sets of Sadinle, Lei and Wasserman 2019);
#'   * `score = "aps"`: the adaptive set score of Romano, Sesia and Candès
#'     (2020), \eqn{s(x, c) = \rho_c(x) + p_c(x)}{s(x, c) = rho_c(x) +
#'     p_c(x)}, the total probability of the classes at least as probable as
#'     \eqn{c}{c}. Sets adapt to how hard a row is;
#'   * `score = "raps"`: the regularised adaptive score of Angelopoulos,
#'     Bates, Malik and Jordan (2021), \eqn{s(x, c) = \rho_c(x) + p_c(x) +
#'     \lambda (o_c(x) - k_{reg})^+}{s(x, c) = rho_c(x) + p_c(x) + lambda
#'     max(o_c(x) - k_reg, 0)}: classes ranked past `k_reg` pay `lambda` per
#'     rank, which keeps the sets of "aps" from growing with many unlikely
#'     classes. `lambda` and `k_reg` are taken as given (the paper tunes
#'     them on a further split of the calibration rows);
#'   * `score = "topk"`: the rank \eqn{s(x, c) = o_c(x)}{s(x, c) = o_c(x)}, so
#'     that every row's set is its \eqn{\hat k}{k} most probable classes for
#'     one \eqn{\hat k}{k} (the "naive" top-k sets of the same paper, with
#'     the conformal \eqn{\hat k}{k}); a row's classes tied at that rank are
#'     all in it.
#'
#'   No score is randomised: "aps" and "raps" are the papers' scores with
#'   the uniform \eqn{U}{U} set to 1 (the whole of \eqn{p_c(x)}{p_c(x)}
#'   counted), which keeps the guarantee and makes the sets a little larger
#'   than the randomised ones; no random numbers are drawn, so the sets and
#'   p-values do not depend on the seed. The sums of "aps" and "raps" are
#'   rounded to 12 decimals, so that equal sums of the same probabilities
#'   (the least probable class's, 1 in every row) tie instead of differing
#'   by rounding.
#'
#' @section The quantile rule: With the scores \eqn{s_1, \ldots, s_n}{s_1,
#'   ..., s_n} of the \eqn{n} calibration rows at their true classes and
#'   \eqn{\alpha = 1 - \mathrm{level}}{alpha = 1 - level}, \eqn{\hat q}{q} is
#'   the \eqn{\lceil (n + 1)(1 - \alpha) \rceil}{ceiling((n + 1)(1 -
#'   alpha))}-th smallest score (infinite, so every class, when that exceeds
#'   \eqn{n}{n}), and the set of \eqn{x} is \eqn{\{c : s(x, c) \le \hat q\}}{{c
#'   : s(x, c) <= q}}. With split calibration rows exchangeable with the new
#'   rows, coverage is at least `level`, and at most `level + 1 / (n + 1)`
#'   when the scores have no ties. `mondrian = TRUE` takes the quantile per
#'   class among the calibration rows of that class (\eqn{n_c}{n_c} in place
#'   of \eqn{n}{n}): coverage at least `level` within every class, for
#'   imbalanced classes. A set can be empty (no class is plausible enough at
#'   a low `level`).
#'
#' @section P-values: `predict(type = "pvalue")` gives, for every new row
#'   and class \eqn{c}{c}, the conformal p-value \eqn{p_c(x) = (\#\{i : s_i
#'   \ge s(x, c)\} + 1) / (n + 1)}{p_c(x) = (#{i : s_i >= s(x, c)} + 1) / (n +
#'   1)}, the share of the calibration scores (and the new row's own) at
#'   least as large as the row's score of \eqn{c}{c} (Mondrian: among the
#'   \eqn{n_c}{n_c} calibration rows of class \eqn{c}{c}; CV+: each
#'   calibration score against the row's score by the fold model that left
#'   that calibration row out). The set at `level` is exactly \eqn{\{c :
#'   p_c(x) > 1 - \mathrm{level}\}}{{c : p_c(x) > 1 - level}}, for every
#'   form, so a class's p-value is the largest \eqn{\alpha}{alpha} at which
#'   it leaves the set. For the true class the p-value of split conformal
#'   is valid, \eqn{P(p_y(x) \le \alpha) \le \alpha}{P(p_y(x) <= alpha) <=
#'   alpha} for every \eqn{\alpha}{alpha} (and \eqn{\ge \alpha - 1/(n +
#'   1)}{>= alpha - 1/(n + 1)} without ties). The p-value is the
#'   deterministic (conservative) one: ties count against the new row,
#'   without the smoothed form's uniform tie-break. Where \eqn{(n + 1)
#'   \mathrm{level}}{(n + 1) level} is a whole number up to rounding (0.7 x
#'   10), it is taken as that number.
#'
#' @section Where the scores come from:
#'   * split conformal: `x` and `y`, rows not used to fit the model (the
#'     guarantee above holds exactly);
#'   * cross-validation: `cv`, a [kernel_cv()] of the same fitter, settings
#'     and data as the model (run with `metric = "logloss"` or `"brier"`,
#'     which keep the out-of-fold probabilities), or a [kernel_tune()] result
#'     given as `object` (its best row's out-of-fold probabilities and its
#'     refitted model): no data set aside. The calibration scores are those
#'     of models fitted on \eqn{(K - 1)/K} of the data and new rows are
#'     scored by the model fitted on all of it, a cross-conformal calibration
#'     without the finite-sample guarantee of the split form (`method =
#'     "cv+"` below scores each new row with every fold's model and has
#'     one); the fold models are weaker than the full model, so it tends to
#'     over-cover slightly;
#'   * leave-one-out: for [kernel_means()] and [kernel_parzen()] on exact
#'     kernels with `threshold = "analytic"` and without `x`, `y` or `cv`,
#'     the exact leave-one-out probabilities from one pass of kernel sums (as
#'     `kernel_cv(folds = "loo")`), the jackknife form of the same idea: each
#'     row's probabilities are those of the model refitted without it (for
#'     [kernel_means()] with the refit's own variance \eqn{s^2}{s^2}, for
#'     [kernel_parzen()] with its default prior of the other rows); a scaled
#'     model keeps its scaling statistics of all rows, and `gamma = "median"`
#'     its gamma of all rows.
#'
#'   * CV+: `method = "cv+"` (with `folds`, default 5, and neither `x`,
#'     `y` nor `cv`): the model is refitted on \eqn{K - 1}{K - 1} of
#'     \eqn{K}{K} stratified folds of its training rows (drawn with
#'     [sample()], so `set.seed()` reproduces them), \eqn{K}{K} times,
#'     through its own fitter with its own settings (kernel and its
#'     parameters, `cost`, `class.weights`, `threshold`, a given `prior`, the
#'     approximation, `probability`, ...; the training rows as the model
#'     keeps them, scaled by the model's scaling of all rows, and
#'     `gamma = "median"` as the model's number); each training row is
#'     scored by the fold model that left it out, and a new row by every
#'     fold model: class \eqn{y}{y} is in the set where \eqn{\#\{i :
#'     s(x, y; \hat\pi_{k(i)}) > s_i\} < (1 - \alpha)(n + 1)}{#{i : s(x, y;
#'     model_k(i)) > s_i} < (1 - alpha)(n + 1)}, with \eqn{k(i)}{k(i)} the
#'     fold of row \eqn{i}{i} (Barber et al. 2021, in the classification
#'     form of Romano et al. 2020). For rows exchangeable with the training
#'     rows, coverage is at least \eqn{1 - 2\alpha - \min\{2(1 - 1/K)/(n/K
#'     + 1), (1 - K/n)/(K + 1)\}}{1 - 2 alpha - min(2 (1 - 1/K) / (n/K + 1),
#'     (1 - K/n) / (K + 1))} (at least \eqn{1 - 2\alpha}{1 - 2 alpha} for
#'     \eqn{K = n}{K = n}, the jackknife+), a finite-sample guarantee that
#'     the `cv` form lacks; in practice coverage is near `level`. The model
#'     keeps the \eqn{K}{K} fold models (`$conformal$models`), each with
#'     what predicting new rows needs: for [kernel_means()],
#'     [kernel_parzen()] and [kernel_bayes()] on exact kernels their
#'     \eqn{(K - 1)/K}{(K - 1)/K} of the training rows, so the calibrated
#'     model is about \eqn{K}{K} times as large; for [kernel_svm()] and the
#'     approximations their support vectors or features, without the
#'     training rows (for `kernel_svm(Species ~ ., data = iris, probability
#'     = TRUE)`, 43 kB, five fold models add 92 kB; for [kernel_means()],
#'     31 kB, they add 57 kB). `predict(type = "set")` or `"pvalue"` costs
#'     \eqn{K + 1}{K + 1} predictions. Not for precomputed
#'     or user kernels, models fitted with `weights`, or `mondrian = TRUE`.
#'
#'   The `cv` must be a cross-validation of the model's fitter with the
#'   model's settings (`kernel`, `gamma`, `cost`, `prior`, `approx`, ... as
#'   the model records them; not the solver's `tolerance`): another is an
#'   error of class `"kernclass_cv_mismatch_error"`.
#'
#'   A model recalibrated by [recalibrate()] is scored through its
#'   recalibrated probabilities, the calibration rows as new rows, from every
#'   source. The recalibration's rows and the conformal calibration rows
#'   should differ: where both are the training rows (`cv` or leave-one-out
#'   for both) the scores are not exchangeable with new rows' and a warning
#'   of class `"kernclass_calibration_reuse_warning"` says so.
#'   [recalibrate()] of a calibrated model removes the conformal calibration
#'   (with a warning): call `conformal()` after it. The exactly valid full conformal set of
#'   [kernel_means()] and [kernel_parzen()] would refit with each new row
#'   and each candidate class, which needs every new row's kernel values
#'   with every training row; the leave-one-out form needs none beyond
#'   `predict()`'s.
#'
#' @section tidymodels: `augment()` adds the sets as a list-column. parsnip's
#'   prediction types are a fixed list without sets: calibrate the engine's
#'   model, `conformal(parsnip::extract_fit_engine(fit), x, y)`, and predict
#'   it with `type = "set"`.
#'
#' @section Cost: The sets come from the probabilities of the same pass as
#'   `predict()`; the scores and the comparison add \eqn{O(n G^2)}{O(n G^2)}
#'   operations for \eqn{G}{G} classes, no kernel values.
#'
#' @param object A fitted kernclass model with probabilities, or a
#'   [kernel_tune()] result (its refitted model, calibrated on its best
#'   row's out-of-fold probabilities, or with `method = "cv+"` by its own
#'   fold models of the chosen settings), or a [kernel_cv()] result (then
#'   `model` gives the model).
#' @param x,y Calibration rows and their classes, not used to fit the model
#'   (split conformal); `x` as `newdata` of [predict.kernclass()] (its
#'   errors name `x`).
#' @param cv A [kernel_cv()] result with out-of-fold probabilities, on the
#'   model's training rows in their order.
#' @param score `"prob"`, `"aps"`, `"raps"` or `"topk"`, see below.
#' @param mondrian If `TRUE`, class-conditional (Mondrian) quantiles.
#' @param lambda,k_reg For `score = "raps"`: the penalty per rank (a number
#'   \eqn{\ge 0}{>= 0}) and the number of top classes not penalised (a whole
#'   number \eqn{\ge 0}{>= 0}).
#' @param method Where the calibration scores come from: `NULL` (default)
#'   from the arguments given (`x` and `y`: `"split"`; `cv`: `"cv"`;
#'   neither: `"loo"`), or one of those, or `"cv+"` (see below).
#' @param folds For `method = "cv+"`: the number of folds \eqn{K}{K}, a whole
#'   number from 2 to the number of training rows, or `"loo"` (the
#'   jackknife+, \eqn{n}{n} fold models).
#' @param model For a [kernel_cv()] result: the model fitted on all its rows.
#' @param ... Arguments of `conformal.kernclass()`.
#' @return The model with a `conformal` component (the calibration scores,
#'   their classes, the method and score; for CV+ also each score's `fold`
#'   and the fold `models`), so that `predict(type = "set", level = )` and
#'   `predict(type = "pvalue")` work; every other prediction is unchanged.
#' @seealso [predict.kernclass()], [kernclass_sets] for the sets returned,
#'   [recalibrate()], [calibration_curve()].
#' @references Vovk, Gammerman and Shafer (2005), Algorithmic Learning in a
#'   Random World. Romano, Sesia and Candès (2020), Classification with valid
#'   and adaptive coverage, NeurIPS. Angelopoulos, Bates, Malik and Jordan
#'   (2021), Uncertainty sets for image classifiers using conformal
#'   prediction, ICLR. Barber, Candès, Ramdas and Tibshirani (2021),
#'   Predictive inference with the jackknife+, Annals of Statistics.
#' @export
#' @examples
#' set.seed(1)
#' i <- sample(150)
#' fit <- kernel_svm(Species ~ ., data = iris[i[1:75], ], probability = TRUE)
#' cf <- conformal(fit, iris[i[76:115], ], iris$Species[i[76:115]])
#' sets <- predict(cf, iris[i[116:150], ], type = "set", level = 0.9)
#' sets
#' summary(sets, y = iris$Species[i[116:150]])
#'
#' # from cross-validation, no rows set aside
#' cv <- kernel_cv(kernel_parzen, Species ~ ., data = iris, folds = 5, metric = "brier")
#' cf2 <- conformal(kernel_parzen(Species ~ ., data = iris), cv = cv, mondrian = TRUE)
#' head(predict(cf2, iris, type = "set", level = 0.95))
#'
#' # leave-one-out of kernel_means, from one pass of kernel sums
#' cf3 <- conformal(kernel_means(Species ~ ., data = iris, scale = FALSE), score = "aps")
#' summary(predict(cf3, type = "set", level = 0.8), y = iris$Species)
#'
#' # p-values: the set at level 0.9 is the classes with p-value above 0.1
#' p <- predict(cf, iris[i[116:120], ], type = "pvalue")
#' p
#' all(unclass(predict(cf, iris[i[116:120], ], type = "set", level = 0.9)) == (p > 0.1))
#'
#' # RAPS and top-k scores
#' cf4 <- conformal(fit, iris[i[76:115], ], iris$Species[i[76:115]], score = "raps",
#'                  lambda = 0.05, k_reg = 1)
#' summary(predict(cf4, iris[i[116:150], ], type = "set", level = 0.9))
#'
#' # CV+: five fold models of the model's own fitter and settings
#' cf5 <- conformal(kernel_parzen(Species ~ ., data = iris), method = "cv+", folds = 5)
#' cf5
#' summary(predict(cf5, iris, type = "set", level = 0.9), y = iris$Species)
conformal <- function(object, ...) UseMethod("conformal")

#' @rdname conformal
#' @export
conformal.kernclass <- function(object, x = NULL, y = NULL, cv = NULL,
                                score = c("prob", "aps", "raps", "topk"), mondrian = FALSE,
                                lambda = 0.01, k_reg = 1, method = NULL, folds = 5, ...) {
  kc_check_dots(...)
  score <- kc_match_arg(score, arg = "score")
  kc_check_flag(mondrian, "mondrian")
  if (score == "raps") {
    kc_check_number(lambda, "lambda", lower = 0)
    kc_check_number(k_reg, "k_reg", lower = 0, whole = TRUE)
  } else if (!missing(lambda) || !missing(k_reg)) {
    a <- if (!missing(lambda)) "lambda" else "k_reg"
    kc_abort(sprintf("`%s` is a setting of score = \"raps\"; score is \"%s\".", a, score),
             arg = a)
  }
  if (is.null(object$y)) {
    kc_abort("conformal() needs a classifier with classes; a one-class SVM has none.",
             arg = "object")
  }
  method <- kc_conformal_method(method, x, cv, missing(folds), mondrian)
  held <- if (method == "cv+") {
    kc_calibration_rows(object, x, y, cv)  # no `x`, `cv` (above); `y` alone is an error
    kc_cvplus_prob(object, folds, "conformal()")
  } else {
    kc_heldout_prob(object, x, y, cv, for_what = "conformal()")
  }
  rc <- object$recalibration
  if (!is.null(rc) && rc$source != "split" && held$method != "split") {
    kc_warn(sprintf(paste0("The conformal scores come from the training rows, on which the ",
                           "recalibration was fitted (%s): the scores are not exchangeable ",
                           "with new rows' and the sets may fall short of their level. Give ",
                           "one of recalibrate() and conformal() held-out rows `x`, `y`."),
                    kc_heldout_label(rc$source)), class = "calibration_reuse")
  }
  cf <- list(method = held$method, score = score, mondrian = mondrian)
  if (score == "raps") cf[c("lambda", "k_reg")] <- list(lambda, k_reg)
  ok <- !is.na(rowSums(held$prob))  # CV+: a fold model may give NA where the model does not
  yk <- held$y[ok]
  s <- kc_conformal_scores(held$prob[ok, , drop = FALSE], cf)[cbind(seq_along(yk), as.integer(yk))]
  cf <- c(cf, list(scores = s, y = yk, recalibration = rc$method))
  if (method == "cv+") cf[c("fold", "models")] <- list(held$fold[ok], held$models)
  object$conformal <- cf
  object
}

# The source of the calibration scores: `method` as given, checked against
# the arguments, or as they imply it (rows `x` split, `cv` cross-validated,
# neither leave-one-out).
kc_conformal_method <- function(method, x, cv, folds_missing, mondrian) {
  implied <- if (!is.null(x)) "split" else if (!is.null(cv)) "cv" else "loo"
  if (is.null(method)) method <- implied else {
    method <- kc_match_arg(method, c("split", "cv", "loo", "cv+"), arg = "method")
    if (method == "cv+" && implied != "loo") {
      kc_abort(sprintf(paste0("method = \"cv+\" refits the model on folds of its own training ",
                              "rows; give no `%s`."), if (implied == "split") "x" else "cv"),
               arg = "method")
    }
    if (method != "cv+" && method != implied) {
      kc_abort(sprintf(paste0("method = \"%s\" needs %s; the arguments given make it \"%s\"."),
                       method, switch(method, split = "calibration rows `x` and `y`",
                                      cv = "`cv`, a kernel_cv() result",
                                      loo = "neither `x` nor `cv`"), implied), arg = "method")
    }
  }
  if (method != "cv+" && !folds_missing) {
    kc_abort("`folds` is for method = \"cv+\", which refits the model on that many folds.",
             arg = "folds")
  }
  if (method == "cv+" && mondrian) {
    kc_abort(paste0("mondrian = TRUE is offered for the split, cv and leave-one-out forms; ",
                    "the CV+ guarantee is stated for marginal coverage only."), arg = "mondrian")
  }
  method
}

#' @rdname conformal
#' @export
conformal.kernel_tune <- function(object, ...) {
  # CV+ refits the tuned model itself; else its best row's out-of-fold probabilities
  if (identical(list(...)$method, "cv+")) return(conformal(object$model, ...))
  conformal(object$model, cv = object, ...)
}

#' @rdname conformal
#' @export
conformal.kernel_cv <- function(object, model, ...) {
  kc_require(missing(model), "model", "the model fitted on all the rows of the cross-validation")
  conformal(model, cv = object, ...)
}

# The held-out probabilities (and classes) that conformal() and
# recalibrate() calibrate on: of rows x, y given; the out-of-fold ones of a
# kernel_cv() or kernel_tune() result `cv`; else the exact leave-one-out of
# kernel_means() and kernel_parzen(). Rows without probabilities are dropped.
kc_heldout_prob <- function(object, x, y, cv, for_what) {
  lv <- object$levels
  rows <- kc_calibration_rows(object, x, y, cv)
  if (!is.null(rows)) {
    prob <- kc_prob_of(object, rows, for_what)
    method <- "split"
  } else if (!is.null(cv)) {
    pr <- kc_calibration_cv(object, cv)
    if (is.null(pr$prob)) {
      kc_abort(sprintf(paste0("%s needs the out-of-fold probabilities, which kernel_cv() and ",
                              "kernel_tune() keep with metric = \"logloss\" or \"brier\"."),
                       for_what), arg = "cv")
    }
    y <- pr$y
    kc_prob_of(object, kc_rows(object$x, 1L), for_what)  # predict() must give them too
    kc_check_cv_settings(object, cv)
    # the model's own probability map on top of the out-of-fold posteriors
    prob <- kc_recalibrate_prob(object$recalibration, pr$prob)
    method <- "cv"
  } else {
    prob <- kc_loo_prob(object, for_what)
    y <- object$y
    method <- "loo"
  }
  y <- kc_heldout_labels(y, lv)
  ok <- !is.na(y) & !is.na(rowSums(prob))
  if (!any(ok)) kc_abort(sprintf("%s has no calibration rows with classes and probabilities.",
                                 for_what), arg = "y")
  list(prob = prob[ok, , drop = FALSE], y = y[ok], method = method)
}

# The calibration rows `x` of the split forms of conformal(), recalibrate()
# and venn_abers() (both multiclass forms), checked against their classes
# `y` and `cv`, as rows the model predicts (kc_new_x()); NULL where no `x`
# is given (the other forms, which take their classes from elsewhere).
kc_calibration_rows <- function(object, x, y, cv) {
  if (is.null(x)) {
    if (!is.null(y)) {
      kc_abort(paste0("`y` gives the classes of calibration rows `x`, but no `x` is given: ",
                      "give both (or neither, with `cv`)."), arg = "y")
    }
    return(NULL)
  }
  kc_require(is.null(y), "y", "the classes of the calibration rows `x`")
  if (!is.null(cv)) kc_abort("Give either `x` and `y` or `cv`, not both.", arg = "cv")
  rows <- kc_new_x(object, x, arg = "x")
  if (length(y) != nrow(rows)) {
    kc_abort(sprintf("`y` has %d values for %d rows of `x`.", length(y), nrow(rows)), arg = "y")
  }
  rows
}

# The out-of-fold predictions of `cv`, a kernel_cv() or kernel_tune() (its
# best row's) of the model's own training rows in their order: the list
# with $y, $fold and, where kept, $prob.
kc_calibration_cv <- function(object, cv) {
  if (!inherits(cv, c("kernel_cv", "kernel_tune"))) {
    kc_abort("`cv` must be a kernel_cv() or kernel_tune() result.", arg = "cv")
  }
  pr <- if (inherits(cv, "kernel_tune")) cv$best_predictions else cv
  lv <- object$levels
  if (!identical(levels(pr$y), lv) || length(pr$y) != length(object$y) ||
      any(as.integer(pr$y) != as.integer(object$y))) {
    kc_abort(sprintf(paste0("`cv` must cross-validate the model's own training rows, in their ",
                            "order (%d rows, classes %s)."), length(object$y), kc_enum(lv)),
             arg = "cv")
  }
  pr
}

# The model's probabilities of rows x, an error in the caller's words where
# it has none.
kc_prob_of <- function(object, x, for_what) {
  tryCatch(kc_predict_rows(object, x, "prob"),
           kernclass_prob_unavailable_error = function(e) {
             kc_abort(paste(for_what, "works on probabilities, which `object` does not give:",
                            conditionMessage(e)), arg = "object", class = "prob_unavailable")
           })
}

kc_heldout_labels <- function(y, levels) {
  if (is.logical(y)) y <- as.character(y)
  y <- factor(as.character(y), levels = levels)[seq_along(y)]
  y
}

# The exact leave-one-out probabilities of a kernel_means() or
# kernel_parzen() model on its training rows (its kc_loo() method).
kc_loo_prob <- function(object, for_what) {
  def <- kc_fitter_of(object)
  if (is.null(def) || !def$loo || !kc_repr_exact_only(kc_repr(object)) ||
      !identical(object$threshold, "analytic")) {
    kc_abort(sprintf(paste0("%s needs calibration rows `x` and `y`, or `cv` (a kernel_cv() ",
                            "result); the exact leave-one-out is for kernel_means() and ",
                            "kernel_parzen() on exact kernels with threshold = \"analytic\"."),
                     for_what), arg = "x")
  }
  # through the model's recalibration, as predict() gives new rows theirs
  kc_recalibrate_prob(object$recalibration,
                      kc_loo(object, default_prior = is.null(object$call$prior), what = "prob"))
}

# A cross-validation stands for the model only if it cross-validated the
# same classifier: the fitter and every setting its folds were fitted with
# (kernel_cv()'s and kernel_tune()'s `settings`, R/select-cv.R) must be the
# model's. Solver settings that leave the classifier as it is (its
# tolerance, iterations, cache, shrinking) are not compared; neither is a
# cross-validation of a fitter outside kernclass (nothing to compare with).
kc_check_cv_settings <- function(object, cv) {
  st <- cv$settings
  def <- kc_fitter_of(object)
  if (is.null(st$fitter) || is.null(def)) return(invisible(TRUE))
  if (!identical(st$fitter, def$name)) {
    kc_abort(sprintf(paste0("`cv` cross-validates %s(), but the model was fitted by %s(): give ",
                            "conformal()/recalibrate() a cross-validation of the model's own ",
                            "fitter and settings."), st$fitter, def$name),
             arg = "cv", class = "cv_mismatch")
  }
  formal <- formals(def$fun)
  skip <- c("x", "y", "...", "weights", "tolerance", "max_iter", "cachesize", "shrinking",
            "probability")
  given <- setdiff(names(object$call), "")
  for (a in setdiff(names(formal), skip)) {
    if (!a %in% names(st$args) && !a %in% given) next  # both at the default
    v <- if (a %in% names(st$args)) st$args[[a]] else eval(formal[[a]], baseenv())
    d <- kc_setting_differs(object, a, v, st$args)
    if (!is.null(d)) {
      kc_abort(sprintf(paste0("`cv` was fitted with other settings than the model: `%s` is %s ",
                              "in `cv` and %s in the model. Cross-validate the model's own ",
                              "settings (or refit the model with those of `cv`)."),
                       a, d[1L], d[2L]), arg = "cv", class = "cv_mismatch")
    }
  }
  invisible(TRUE)
}

# Whether the setting `a` of a cross-validation, `v` (its value or the
# fitter's default; `args` its other settings), differs from the model's as
# the model records it: NULL if not (or if the model records nothing to
# compare), else the two values as text.
kc_setting_differs <- function(object, a, v, args) {
  show <- function(u) {
    if (is.null(u)) "NULL (the default)" else if (is.function(u)) "a function"
    else paste(format(u, digits = 6), collapse = ", ")
  }
  if (is.character(v) && length(v) > 1L) v <- v[1L]  # a choice's default
  k <- object$kernel
  data_kernel <- k$name %in% names(kc_kernel_sources)
  same <- switch(a,
    kernel = if (is.function(v)) data_kernel else
      identical(if (identical(v, "precomputed")) v else kc_kernel_name(v), k$name),
    gamma = , degree = , coef0 = {
      if (data_kernel || !a %in% kc_kernel_info(k)$label) return(NULL)
      if (a == "gamma" && identical(v, "median")) return(if (!identical(k$gamma_rule, "median"))
        c(show(v), show(k$gamma)))
      if (a == "gamma" && !is.null(k$gamma_rule)) return(c(show(v), "\"median\""))
      if (a == "gamma" && is.null(v)) v <- 1 / ncol(object$x)  # kc_kernel()'s default
      isTRUE(all.equal(as.numeric(v), as.numeric(k[[a]])))
    },
    scale = {
      if (data_kernel) return(NULL)
      return(if (!identical(isTRUE(v), !is.null(object$scaling)))
        c(show(v), show(!is.null(object$scaling))))
    },
    prior = {
      if (!is.null(args$threshold) && identical(args$threshold, "search")) return(NULL)
      w <- tryCatch(kc_check_prior(v, object$levels, object$counts), error = function(e) v)
      return(if (!isTRUE(all.equal(w, object$prior))) c(show(v), show(object$prior)))
    },
    approx = {
      spec <- object$approx$spec
      strip <- function(u) if (!is.null(u)) unclass(u)[setdiff(names(u), "check")]
      text <- function(u) {
        if (is.null(u)) return("NULL (exact)")
        u <- strip(u)
        u <- u[vapply(u, function(e) is.atomic(e) && length(e) == 1L, logical(1))]
        sprintf("%s(%s)", u$method, paste(names(u)[-1L], vapply(u[-1L], format, ""),
                                           sep = " = ", collapse = ", "))
      }
      return(if (!isTRUE(all.equal(strip(v), strip(spec)))) c(text(v), text(spec)))
    },
    {
      if (!a %in% names(object)) return(NULL)
      m <- object[[a]]
      if (is.character(v) && is.character(m) && length(v) == 1L && length(m) == 1L) {
        startsWith(m, v)
      } else {
        if (!is.null(names(v)) && !is.null(names(m)) && setequal(names(v), names(m))) v <- v[names(m)]
        isTRUE(all.equal(v, m, check.attributes = FALSE))
      }
    })
  if (isTRUE(same)) NULL else c(show(v), show(if (a == "kernel") k$name else
    if (a %in% c("gamma", "degree", "coef0")) k[[a]] else object[[a]]))
}

