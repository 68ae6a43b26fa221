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
#'   computed from the probabilities of `predict(type = "prob")`:
#'   * `score = "prob"`: \eqn{s(x, c) = 1 - p_c(x)}{s(x, c) = 1 - p_c(x)}
#'     (the "least ambiguous" sets of Sadinle, Lei and Wasserman 2019);
#'   * `score = "aps"`: the adaptive set score of Romano, Sesia and Candès
#'     (2020), the total probability of the classes at least as probable as
#'     \eqn{c}{c}: \eqn{s(x, c) = \sum_{c'} p_{c'}(x) [p_{c'}(x) > p_c(x)] +
#'     p_c(x)}{s(x, c) = sum_c' p_c'(x) [p_c'(x) > p_c(x)] + p_c(x)} (without
#'     the randomisation, so slightly conservative). Sets adapt to how hard
#'     a row is.
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
#'     without the finite-sample guarantee of the split form (CV+, Romano et
#'     al. 2020, would score each new row with every fold's model, `K`
#'     predictions instead of one); the fold models are weaker than the full
#'     model, so it tends to over-cover slightly;
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
#'   [kernel_tune()] result, or a [kernel_cv()] result (then `model` gives
#'   the model).
#' @param x,y Calibration rows and their classes, not used to fit the model
#'   (split conformal); `x` as `newdata` of [predict.kernclass()] (its
#'   errors name `x`).
#' @param cv A [kernel_cv()] result with out-of-fold probabilities, on the
#'   model's training rows in their order.
#' @param score `"prob"` or `"aps"`, see below.
#' @param mondrian If `TRUE`, class-conditional (Mondrian) quantiles.
#' @param model For a [kernel_cv()] result: the model fitted on all its rows.
#' @param ... Arguments of `conformal.kernclass()`.
#' @return The model with a `conformal` component (the calibration scores,
#'   their classes, the method and score), so that
#'   `predict(type = "set", level = )` works; every other prediction is
#'   unchanged.
#' @seealso [predict.kernclass()], [kernclass_sets] for the sets returned,
#'   [recalibrate()], [calibration_curve()].
#' @references Vovk, Gammerman and Shafer (2005), Algorithmic Learning in a
#'   Random World. Romano, Sesia and Candès (2020), Classification with valid
#'   and adaptive coverage, NeurIPS.
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
conformal <- function(object, ...) UseMethod("conformal")

#' @rdname conformal
#' @export
conformal.kernclass <- function(object, x = NULL, y = NULL, cv = NULL,
                                score = c("prob", "aps"), mondrian = FALSE, ...) {
  kc_check_dots(...)
  score <- kc_match_arg(score, arg = "score")
  kc_check_flag(mondrian, "mondrian")
  if (is.null(object$y)) {
    kc_abort("conformal() needs a classifier with classes; a one-class SVM has none.",
             arg = "object")
  }
  held <- kc_heldout_prob(object, x, y, cv, for_what = "conformal()")
  rc <- object$recalibration
  if (!is.null(rc) && rc$source != "split" && held$method != "split") {
    kc_warn(sprintf(paste0("The conformal scores come from the training rows, on which the ",
                           "recalibration was fitted (%s): the scores are not exchangeable ",
                           "with new rows' and the sets may fall short of their level. Give ",
                           "one of recalibrate() and conformal() held-out rows `x`, `y`."),
                    kc_heldout_label(rc$source)), class = "calibration_reuse")
  }
  s <- kc_conformal_scores(held$prob, score)[cbind(seq_along(held$y), as.integer(held$y))]
  object$conformal <- list(method = held$method, score = score, mondrian = mondrian,
                           scores = s, y = held$y, recalibration = rc$method)
  object
}

#' @rdname conformal
#' @export
conformal.kernel_tune <- function(object, ...) {
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
  if (!is.null(x)) {
    kc_require(is.null(y), "y", "the classes of the calibration rows `x`")
    if (!is.null(cv)) kc_abort("Give either `x` and `y` or `cv`, not both.", arg = "cv")
    rows <- kc_new_x(object, x, arg = "x")
    if (length(y) != nrow(rows)) {
      kc_abort(sprintf("`y` has %d values for %d rows of `x`.", length(y), nrow(rows)), arg = "y")
    }
    prob <- kc_prob_of(object, rows, for_what)
    method <- "split"
  } else if (!is.null(cv)) {
    if (!inherits(cv, c("kernel_cv", "kernel_tune"))) {
      kc_abort("`cv` must be a kernel_cv() or kernel_tune() result.", arg = "cv")
    }
    pr <- if (inherits(cv, "kernel_tune")) cv$best_predictions else cv
    if (is.null(pr$prob)) {
      kc_abort(sprintf(paste0("%s needs the out-of-fold probabilities, which kernel_cv() and ",
                              "kernel_tune() keep with metric = \"logloss\" or \"brier\"."),
                       for_what), arg = "cv")
    }
    y <- if (inherits(cv, "kernel_tune")) cv$best_predictions$y else cv$y
    if (!identical(levels(y), lv) || length(y) != length(object$y) ||
        any(as.integer(y) != as.integer(object$y))) {
      kc_abort(sprintf(paste0("`cv` must cross-validate the model's own training rows, in their ",
                              "order (%d rows, classes %s)."), length(object$y), kc_enum(lv)),
               arg = "cv")
    }
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

# The n x G matrix of scores s(x, c) of every class from probabilities.
kc_conformal_scores <- function(prob, score) {
  if (score == "prob") return(1 - prob)
  out <- prob
  for (c in seq_len(ncol(prob))) out[, c] <- rowSums(prob * (prob > prob[, c])) + prob[, c]
  out
}

# The ceiling((n + 1) level)-th smallest of the scores s (Inf past n).
kc_conformal_quantile <- function(s, level) {
  n <- length(s)
  k <- ceiling((n + 1) * level)
  if (k > n) Inf else sort(s, partial = k)[k]
}

# The logical matrix of sets of rows with probabilities `prob` at `level`.
kc_conformal_sets <- function(object, prob, level) {
  cf <- object$conformal
  if (is.null(cf)) {
    kc_abort(paste0("type = \"set\" needs a model calibrated by conformal(), e.g. ",
                    "conformal(fit, x_cal, y_cal)."), arg = "type", class = "set_unavailable")
  }
  s <- kc_conformal_scores(prob, cf$score)
  q <- if (cf$mondrian) {
    vapply(seq_along(object$levels), function(c) {
      kc_conformal_quantile(cf$scores[as.integer(cf$y) == c], level)
    }, numeric(1))
  } else {
    rep(kc_conformal_quantile(cf$scores, level), length(object$levels))
  }
  s <= rep(q, each = nrow(s))
}

kc_check_level <- function(level) {
  if (!is.numeric(level) || length(level) != 1L || is.na(level) || level <= 0 || level >= 1) {
    kc_abort("`level` must be a number between 0 and 1, e.g. 0.9.", arg = "level")
  }
  invisible(level)
}

#' Conformal prediction sets
#'
#' What `predict(type = "set")` of a model calibrated by [conformal()]
#' returns: a logical matrix with a row per predicted row and a column per
#' class, `TRUE` where the class is in the row's set (`NA` rows where the row
#' cannot be predicted), of class `"kernclass_sets"` with the attributes
#' `level`, `score`, `mondrian` and `method`. `as.list()` gives the sets as
#' character vectors (the list-column of `augment()`).
#'
#' @param x,object A `"kernclass_sets"` matrix.
#' @param y Optional true classes of the rows, for the coverage.
#' @param n The number of rows to print.
#' @param ... Not used.
#' @return `summary()`: an object of class `"summary.kernclass_sets"`, a
#'   list with `level`, `n`, `size` (the mean set size), `sizes` (the share
#'   of rows by set size), `empty`, `singleton`, and with `y` `coverage` (the
#'   share of rows whose set holds their class) and `class_coverage` (per
#'   class). `as.list()`: a list of character vectors.
#' @name kernclass_sets
#' @examples
#' fit <- conformal(kernel_parzen(Species ~ ., data = iris[c(TRUE, FALSE), ]),
#'                  iris[c(FALSE, TRUE), ], iris$Species[c(FALSE, TRUE)])
#' s <- predict(fit, iris, type = "set", level = 0.8)
#' s
#' summary(s, iris$Species)
#' as.list(s)[1:3]
NULL

kc_new_sets <- function(m, conformal, level) {
  m <- unclass(m)
  structure(m, level = level, score = conformal$score, mondrian = conformal$mondrian,
            method = conformal$method, class = "kernclass_sets")
}

# napredict() of sets: NA rows in the place of rows na.exclude left out.
kc_napredict_sets <- function(na, sets) {
  a <- attributes(sets)
  out <- stats::napredict(na, unclass(sets))
  attributes(out) <- c(attributes(out)[c("dim", "dimnames")], a[setdiff(names(a), c("dim", "dimnames"))])
  out
}

#' @rdname kernclass_sets
#' @export
as.list.kernclass_sets <- function(x, ...) {
  kc_check_dots(...)
  lv <- colnames(x)
  m <- unclass(x)
  lapply(seq_len(nrow(m)), function(i) if (anyNA(m[i, ])) NA_character_ else lv[m[i, ]])
}

kc_set_labels <- function(x) {
  vapply(as.list(x), function(s) {
    if (length(s) == 1L && is.na(s)) NA_character_ else paste0("{", paste(s, collapse = ", "), "}")
  }, character(1))
}

#' @rdname kernclass_sets
#' @export
print.kernclass_sets <- function(x, n = 10, ...) {
  kc_check_dots(...)
  cat(sprintf("Conformal prediction sets at level %s (%s, score %s%s): %d rows\n",
              format(attr(x, "level")), attr(x, "method"), attr(x, "score"),
              if (isTRUE(attr(x, "mondrian"))) ", per class" else "", nrow(x)))
  lab <- kc_set_labels(x)
  names(lab) <- rownames(x)
  print(utils::head(lab, n), quote = FALSE)
  if (nrow(x) > n) cat(sprintf("... %d more rows\n", nrow(x) - n))
  invisible(x)
}

#' @rdname kernclass_sets
#' @export
summary.kernclass_sets <- function(object, y = NULL, ...) {
  kc_check_dots(...)
  m <- unclass(object)
  ok <- !is.na(rowSums(m))
  size <- rowSums(m[ok, , drop = FALSE])
  out <- list(level = attr(object, "level"), n = sum(ok), size = mean(size),
              sizes = table(factor(size, levels = 0:ncol(m))) / sum(ok),
              empty = mean(size == 0), singleton = mean(size == 1))
  if (!is.null(y)) {
    y <- kc_heldout_labels(y, colnames(m))
    if (length(y) != nrow(m)) {
      kc_abort(sprintf("`y` has %d values for %d sets.", length(y), nrow(m)), arg = "y")
    }
    keep <- ok & !is.na(y)
    hit <- m[cbind(which(keep), as.integer(y[keep]))]
    out$coverage <- mean(hit)
    out$class_coverage <- tapply(hit, y[keep], mean)
  }
  structure(out, class = "summary.kernclass_sets")
}

#' @export
print.summary.kernclass_sets <- function(x, ...) {
  cat(sprintf("Conformal prediction sets at level %s, %d rows\n", format(x$level), x$n))
  cat(sprintf("Mean set size: %.3f (empty %.1f%%, one class %.1f%%)\n", x$size,
              100 * x$empty, 100 * x$singleton))
  cat("Share of rows by set size:\n")
  print(round(unclass(x$sizes), 4))
  if (!is.null(x$coverage)) {
    cat(sprintf("Coverage: %.2f%%\nCoverage per class:\n", 100 * x$coverage))
    print(round(x$class_coverage, 4))
  }
  invisible(x)
}
