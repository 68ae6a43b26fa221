# The model's title: its fitter's label in the registry (R/table-fitters.R).
kc_method_label <- function(object) {
  def <- kc_fitter_of(object)
  if (is.null(def)) class(object)[1L] else def$label(object)
}

#' Predict with a kernclass classifier
#'
#' @param object A fitted kernclass model, e.g. from [kernel_means()] or
#'   [kernel_parzen()].
#' @param newdata New points: for models fitted with a formula or a data
#'   frame, a data frame with the input columns (matched by name); for
#'   models fitted with a matrix (dense or sparse), a matrix, data frame or
#'   sparse matrix whose columns are
#'   matched by name when both have names and the training matrix's names are
#'   unique and non-empty, by position otherwise (so a matrix with duplicated
#'   or empty column names, as `cbind(x, v)` gives, is matched by position).
#'   Columns used by name must not be duplicated in `newdata` (an error of
#'   class `"kernclass_column_names_error"`). For a model fitted on sparse
#'   rows, new rows are computed sparse; with
#'   `kernel = "precomputed"`, the m x n matrix of kernel values between the
#'   new points and the n training points (its columns matched to the
#'   training points by name by the same rule, else in training order); with
#'   a kernel function, new points of the kind it takes. Missing: the
#'   training data (the fitted values), with `NA` in the place of the rows
#'   that `na.action = na.exclude` left out (as [stats::predict.lm()]; with
#'   `na.omit`, one value per row used).
#' @param type `"class"` (default): a factor with the training levels;
#'   `"decision"`: the decision values, a vector for two classes (positive
#'   for the first level) and a matrix with a column per class otherwise
#'   (per class pair, named `"first/second"`, for one-vs-one models such as
#'   [kernel_svm()]; where a label contains `"/"`, the pairs are named
#'   `"first vs second"`, or with `" | "` or `" <-> "` where labels contain
#'   those, so that names never collide);
#'   `"prob"`: a matrix of class probabilities with a column per level;
#'   `"set"`: conformal prediction sets at `level`, for a model calibrated
#'   by [conformal()] (a `"kernclass_sets"` logical matrix, see there);
#'   `"pvalue"`: the conformal p-value of every class, a matrix with a
#'   column per class, for a model calibrated by [conformal()] (the set at
#'   `level` is the classes whose p-value exceeds `1 - level`; see there);
#'   `"interval"`: the Venn-Abers intervals \eqn{[p_0, p_1]}{[p0, p1]} of
#'   each class, for a model calibrated by [venn_abers()] (an array of rows
#'   x classes x `c("lower", "upper")`). See
#'   the classifier's help page for what decision values and probabilities
#'   mean for it.
#' @param rule How `type = "class"` picks the class: `"prob"`, the class of
#'   highest probability (the first level on ties), so that the class and
#'   `predict(type = "prob")` never disagree; or `"vote"`, the classifier's
#'   own rule on its decision values (the one-vs-one vote of [kernel_svm()]
#'   and [kernel_bayes()], as LIBSVM and e1071, which can disagree with the
#'   coupled probabilities; the largest class score of [kernel_means()] and
#'   [kernel_parzen()], which is the class of highest probability anyway).
#'   `NULL` (default): `"prob"` for a [kernel_svm()] fitted with
#'   `probability = TRUE` (every representation) and for a model recalibrated
#'   by [recalibrate()]; `"vote"` otherwise, where it needs no probabilities:
#'   for [kernel_bayes()], whose class is the threshold rule its fit
#'   searched, and for models without probabilities.
#' @param level For `type = "set"`: the coverage level, a number in (0, 1)
#'   (default 0.9).
#' @param ... Not used. Arguments of e1071's and kernlab's `predict()`
#'   (`probability`, `decision.values`; `type = "probabilities"`) are errors
#'   of class `"kernclass_e1071_argument_error"` that say what to use.
#' @return One value (or row) per row of `newdata`; `NA` where that row has
#'   missing values, and where the kernel values of that row overflow (a
#'   warning of classes `"kernclass_overflow_warning"` and
#'   `"kernclass_unpredictable_warning"`), or where the row
#'   cannot be predicted: a factor level not seen in training, or formula
#'   terms that are not numbers (`log` of a negative); one warning of class
#'   `"kernclass_unpredictable_warning"` says which rows and why. Columns of
#'   `newdata` must have the types of the training data (numbers for
#'   numbers, factors or text for factors); a column that is all `NA` counts
#'   as any type.
#' @export
#' @examples
#' fit <- kernel_means(Species ~ ., data = iris)
#' new <- iris[c(1, 51, 101), ]
#' predict(fit, new)
#' predict(fit, new, type = "decision")
#' predict(fit, new, type = "prob")
#'
#' # a probability model's class is its most probable class; the vote on request
#' svm <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
#' table(prob = predict(svm), vote = predict(svm, rule = "vote"))
predict.kernclass <- function(object, newdata,
                              type = c("class", "decision", "prob", "set", "pvalue", "interval"),
                              rule = NULL, level = 0.9, ...) {
  kc_check_dots(...)
  kc_check_foreign_type(type)
  type <- kc_match_arg(type, arg = "type")
  rule <- kc_check_rule(rule, object)
  if (type == "set") kc_check_level(level)
  if (missing(newdata) || is.null(newdata)) {
    # the training rows, with NA in the place of rows that na.action =
    # na.exclude left out (as lm and e1071)
    out <- kc_predict_rows(object, object$x, type, rule, level)
    if (type == "set") return(kc_napredict_sets(object$na.action, out))
    if (type == "interval") return(kc_napredict_interval(object$na.action, out))
    return(stats::napredict(object$na.action, out))
  }
  kc_predict_rows(object, kc_new_x(object, newdata), type, rule, level)
}

# The class rule of a model (predict()'s `rule = NULL`): its probabilities'
# where the user asked for a probability model (or recalibrated one), else
# the classifier's own rule, which needs no probabilities.
kc_default_rule <- function(object) {
  if (kc_prob_asked(object) || !is.null(object$recalibration)) "prob" else "vote"
}

# Whether the model was fitted with the probability model its fitter's
# `prob_arg` asks for (kernel_svm(probability = TRUE)): the Platt models
# (`probA`; exact and feature SVMs) or, for cells, `probability`.
kc_prob_asked <- function(object) {
  def <- kc_fitter_of(object)
  !is.null(def$prob_arg) && (!is.null(object$probA) || isTRUE(object$probability))
}

kc_check_rule <- function(rule, object) {
  if (is.null(rule)) return(kc_default_rule(object))
  if (!is.character(rule) || length(rule) != 1L || !rule %in% c("prob", "vote")) {
    kc_abort('`rule` must be "prob", "vote" or NULL (the model\'s default).', arg = "rule")
  }
  rule
}

# The class of highest probability in each row, ties to the first level.
kc_class_from_prob <- function(prob, levels) {
  factor(levels[max.col(prob, ties.method = "first")], levels = levels)
}

# predict() on coded, scaled rows x (NA rows allowed): a value (or row) per
# row of x. Internal callers use it for the training rows as they were fitted.
# Classes, probabilities and sets all come from one pass of scores.
kc_predict_rows <- function(object, x, type = "class", rule = kc_default_rule(object),
                            level = 0.9) {
  ok <- kc_complete_rows(x)
  scores <- kc_scores(object, x[ok, , drop = FALSE],
                      prob = type %in% c("prob", "set", "pvalue", "interval") || (type == "class" && rule == "prob"))
  finite <- is.finite(rowSums(scores))
  if (!all(finite)) {
    # kernel values of points far outside the training data can overflow
    kc_warn(sprintf(paste0("The %s kernel overflows on %d row(s) of `newdata` (e.g. %s); ",
                           "their predictions are NA."), kc_kernel_label(object$kernel),
                    sum(!finite), paste(utils::head(which(ok)[!finite], 5), collapse = ", ")),
            class = c("overflow", "unpredictable"))
    ok[ok] <- finite
    scores <- scores[finite, , drop = FALSE]
  }
  # each result is computed on the complete rows, then spread out with NA rows
  spread <- function(v) {
    if (is.null(dim(v))) {
      out <- v[rep(NA_integer_, nrow(x))]
      out[ok] <- v
      names(out) <- rownames(x)
    } else {
      out <- matrix(v[NA_integer_], nrow(x), ncol(v), dimnames = list(rownames(x), colnames(v)))
      out[ok, ] <- v
    }
    out
  }
  switch(type,
    class = spread(if (rule == "prob") kc_class_from_prob(kc_prob(object, scores), object$levels)
                   else kc_classify(object, scores)),
    decision = spread(kc_decision(object, scores)),
    prob = spread(kc_prob(object, scores)),
    set = kc_new_sets(spread(kc_conformal_predict(object, kc_prob(object, scores),
                                                  x[ok, , drop = FALSE], level, "set")),
                      object$conformal, level),
    pvalue = spread(kc_conformal_predict(object, kc_prob(object, scores), x[ok, , drop = FALSE],
                                         level, "pvalue")),
    interval = kc_venn_abers_interval(object, scores, ok, rownames(x)))
}

# The probabilities predict() gives: the classifier's posterior, through
# the recalibration maps of recalibrate() where the model has them.
kc_prob <- function(object, scores) {
  if (identical(object$recalibration$multiclass, "pairwise")) {
    return(kc_va_pairwise_prob(object, scores))  # R/model-venn-abers.R
  }
  kc_recalibrate_prob(object$recalibration, kc_posterior(object, scores))
}


#' @describeIn predict.kernclass The predicted classes of the training data.
#' @export
fitted.kernclass <- function(object, ...) {
  kc_check_dots(...)
  stats::predict(object)
}

#' Expansion coefficients of a class-score classifier
#'
#' The classifiers with one score per class ([kernel_means()],
#' [kernel_parzen()]) read as a kernel expansion over their training
#' points, \eqn{f(x) = \sum_i \alpha_i k(x, x_i) + b}{f(x) = sum_i alpha_i k(x, x_i) + b}: this returns the
#' weights \eqn{\alpha_i}{alpha_i} and the offset \eqn{b} (on the scaled inputs).
#' The one-vs-one classifiers have their own: [coef.kernel_bayes()], and
#' for [kernel_svm()] the same layout with a column per class pair.
#'
#' @param object A [kernel_means()] or [kernel_parzen()] model.
#' @param ... Not used.
#' @return A list with `alpha` and `b`. With two classes, `alpha` is a vector
#'   with one weight per training point and `b` a number, and the expansion is
#'   the decision value of `predict(type = "decision")`. With more classes,
#'   `alpha` is a matrix with a column per class and `b` a vector: column
#'   `c` gives the score of class `c`.
#' @aliases coef.kernclass
#' @export
#' @examples
#' two <- droplevels(subset(iris, Species != "setosa"))
#' fit <- kernel_means(Species ~ ., data = two)
#' cf <- coef(fit)
#' k <- kernel_matrix(fit$x, kernel = "rbf", gamma = fit$kernel$gamma)
#' all.equal(drop(k %*% cf$alpha) + cf$b, unname(predict(fit, type = "decision")))
coef.kernclass_scores <- function(object, ...) {
  kc_check_dots(...)
  kc_repr_coef(kc_repr(object), object)
}

#' @export
kc_coef_exact.kernclass_scores <- function(object) {
  G <- length(object$levels)
  alpha <- kc_expansion_weights(object)
  if (G == 2L) {
    list(alpha = alpha[, 1L] - alpha[, 2L], b = unname(object$offset[1L] - object$offset[2L]))
  } else {
    list(alpha = alpha, b = object$offset)
  }
}

# The first lines of a model's print() and of its summary's; inputs from
# kc_inputs_label().
kc_print_head <- function(method, call, kernel, n, inputs, scaled) {
  cat(method, "\n\n", sep = "")
  cat("Call: ", paste(deparse(call, width.cutoff = 70L), collapse = "\n"), "\n", sep = "")
  cat("Kernel: ", kernel, "\n", sep = "")
  cat(sprintf("Training data: %d points, %s%s\n", n, inputs, if (scaled) ", scaled" else ""))
}

# What the training inputs are: columns (dense or sparse), or kernel data.
kc_inputs_label <- function(x) {
  if (inherits(x, "kc_kernel_data")) return("given to the kernel as they are")
  sprintf("%d input column(s)%s", ncol(x), if (inherits(x, "kc_csr")) ", sparse" else "")
}

# print() of every model: by its representation (R/repr.R).
#' @export
print.kernclass <- function(x, ...) {
  kc_repr_print(kc_repr(x), x)
  invisible(x)
}

#' @export
kc_print_exact.kernclass <- function(x) {
  kc_print_head(kc_method_label(x), x$call, kc_kernel_label(x$kernel), kc_nrow_fitted(x$x),
                kc_inputs_label(x$x), !is.null(x$scaling))
  if (!is.null(x$counts)) {  # the one-class SVM has none
    cat("Classes: ", paste0(x$levels, " (", x$counts, ")", collapse = ", "), "\n", sep = "")
  }
  if (!is.null(x$prior)) {
    cat("Prior: ", paste0(x$levels, " ", format(x$prior, digits = 3), collapse = ", "), "\n",
        sep = "")
  }
  if (kc_prob_asked(x)) {
    cat(sprintf("Probabilities: fitted (%s = TRUE), for predict(type = \"prob\")\n",
                kc_fitter_of(x)$prob_arg))
  }
  kc_print_calibrated(x)
  invisible(x)
}

# What recalibrate() and conformal() added to a model, a line each.
kc_print_calibrated <- function(x) {
  rc <- x$recalibration
  if (!is.null(rc)) cat(sprintf("Probabilities recalibrated: %s%s, on %s\n", rc$method,
                                if (identical(rc$multiclass, "pairwise")) " (pairwise)" else "",
                                kc_heldout_label(rc$source)))
  cf <- x$conformal
  if (!is.null(cf)) {
    cat(sprintf("Conformal sets: score %s%s, from %d %s%s%s\n", cf$score,
                if (cf$mondrian) ", per class" else "", length(cf$scores),
                kc_heldout_label(cf$method),
                if (!is.null(cf$models)) {
                  sprintf(", %d fold models kept", length(cf$models))
                } else "",
                if (!is.null(cf$recalibration)) {
                  sprintf(", scored through the %s recalibration", cf$recalibration)
                } else ""))
  }
}

kc_heldout_label <- function(method) {
  switch(method, split = "calibration rows", cv = "out-of-fold rows",
         loo = "leave-one-out rows", "cv+" = "out-of-fold rows of the fold models (CV+)")
}

#' Summarise a kernclass classifier
#'
#' @param object A fitted kernclass model.
#' @param ... Not used.
#' @return An object of class `"summary.kernclass"`: the call, method,
#'   kernel, class sizes, the training accuracy and the confusion table of
#'   the training data (actual by predicted), the expansion offset(s), and
#'   the prior for Parzen models. Printing it shows them.
#' @export
#' @examples
#' s <- summary(kernel_parzen(Species ~ ., data = iris))
#' s
#' s$accuracy
summary.kernclass <- function(object, ...) {
  kc_check_dots(...)
  kc_repr_summary(kc_repr(object), object)
}

#' @export
kc_summary_exact.kernclass <- function(object) {
  pred <- kc_predict_rows(object, object$x)
  confusion <- table(actual = object$y, predicted = pred)
  structure(list(
    call = object$call,
    method = kc_method_label(object),
    kernel = kc_kernel_label(object$kernel),
    n = length(object$y),
    p = ncol(object$x),
    inputs = kc_inputs_label(object$x),
    scaled = !is.null(object$scaling),
    counts = object$counts,
    prior = object$prior,
    b = stats::coef(object)$b,
    accuracy = sum(diag(confusion)) / sum(confusion),
    confusion = confusion),
    class = "summary.kernclass")
}

#' @export
print.summary.kernclass <- function(x, ...) {
  kc_print_head(x$method, x$call, x$kernel, x$n, x$inputs, x$scaled)
  cat("\nClass sizes:\n")
  print(x$counts)
  if (!is.null(x$prior)) {
    cat("\nPrior:\n")
    print(x$prior, digits = 4)
  }
  cat("\nOffset b:", format(x$b, digits = 5), "\n")
  cat(sprintf("\nTraining accuracy: %.2f%%\n\nConfusion table (training data):\n",
              100 * x$accuracy))
  print(x$confusion)
  invisible(x)
}

#' Model components of a kernclass classifier
#'
#' The standard accessors of R's model objects. `nobs()` is the number of
#' training observations (rows used, after `na.action`). `formula()`,
#' `terms()` and `model.frame()` describe a model fitted with a formula:
#' `formula()` the formula with `.` expanded, `terms()` its terms,
#' `model.frame()` the model frame rebuilt from the call's `data`,
#' `subset`, `na.action` and `weights` (as [stats::model.frame.lm()] does,
#' so `data` must still be there); `terms()` also works for models fitted to
#' a data frame (terms of the inputs, no response). `model.matrix()` is the
#' matrix the kernel is computed on: the coded inputs (one indicator column
#' per factor level, no intercept), centred and scaled when `scale = TRUE`
#' (the statistics are in `fit$scaling`); for kernel expansions with
#' [kernel_matrix()].
#'
#' A classifier has no residuals: `residuals()` is an error, as are
#' `formula()`, `model.frame()` and `terms()` where the model has none; all
#' of class `"kernclass_undefined_error"`.
#'
#' @param object,formula,x A fitted kernclass model.
#' @param ... For `model.frame()`: `data`, `subset` or `na.action` to use
#'   instead of the call's; otherwise not used.
#' @return `nobs()`: a whole number. `formula()`: a formula. `terms()`: a
#'   terms object. `model.frame()`: a data frame. `model.matrix()`: a
#'   numeric matrix with a row per training observation.
#' @name kernclass-accessors
#' @importFrom stats nobs formula terms model.frame model.matrix residuals
#' @examples
#' fit <- kernel_svm(Species ~ ., data = iris, subset = Sepal.Length > 5)
#' nobs(fit)
#' formula(fit)
#' head(model.frame(fit))
#' dim(model.matrix(fit))
#' update(fit, . ~ Petal.Length + Petal.Width)
NULL

#' @rdname kernclass-accessors
#' @export
nobs.kernclass <- function(object, ...) {
  kc_check_dots(...)
  kc_nrow_fitted(object$x)  # the one-class SVM has no y
}

# Whether the model was fitted with a formula (the only fits whose terms
# have a response: labels are required; the one-class SVM's formula has
# none, and its call names it).
kc_has_formula <- function(object) {
  !is.null(object$terms) && (attr(object$terms, "response") == 1L ||
    (inherits(object, "kernel_svm_oneclass") && "formula" %in% names(object$call)))
}

kc_abort_no_formula <- function(what) {
  kc_abort(sprintf(paste0("%s needs a model fitted with a formula (e.g. kernel_svm(Species ~ ., ",
                          "data = iris)); this one was fitted to `x` and `y`."), what),
           arg = "object", class = "undefined")
}

#' @rdname kernclass-accessors
#' @export
formula.kernclass <- function(x, ...) {
  kc_check_dots(...)
  if (!kc_has_formula(x)) kc_abort_no_formula("formula()")
  stats::formula(x$terms)
}

#' @rdname kernclass-accessors
#' @export
terms.kernclass <- function(x, ...) {
  kc_check_dots(...)
  if (is.null(x$terms)) {
    kc_abort(paste0("terms() needs a model fitted with a formula or a data frame; this one ",
                    "was fitted to a matrix."), arg = "x", class = "undefined")
  }
  x$terms
}

#' @rdname kernclass-accessors
#' @export
model.frame.kernclass <- function(formula, ...) {
  if (!kc_has_formula(formula)) kc_abort_no_formula("model.frame()")
  dots <- list(...)
  nm <- names(dots)
  if (is.null(nm)) nm <- rep("", length(dots))
  bad <- !nm %in% c("data", "subset", "na.action")
  if (any(bad)) do.call(kc_check_dots, dots[bad])
  call <- formula$call
  mf <- call[c(1L, match(c("data", "subset", "na.action", "weights"), names(call), 0L))]
  mf[[1L]] <- quote(stats::model.frame)
  mf$formula <- formula$terms
  mf[names(dots)] <- dots
  env <- environment(formula$terms)
  if (is.null(env)) env <- parent.frame()
  eval(mf, env)
}

#' @rdname kernclass-accessors
#' @export
model.matrix.kernclass <- function(object, ...) {
  kc_check_dots(...)
  object$x
}

#' @rdname kernclass-accessors
#' @export
residuals.kernclass <- function(object, ...) {
  kc_abort(paste0("A classifier has no residuals. Use predict(fit) for the fitted classes, ",
                  "predict(fit, type = \"prob\") for class probabilities."),
           arg = "object", class = "undefined")
}
