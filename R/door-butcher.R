# butcher's and bundle's doors: the axe_*() methods that shrink a model to
# what predict() of new data reads, and bundle() for vetiver's round trip.
# NAMESPACE registers them when butcher or bundle is loaded (delayed
# S3method(), as broom's methods). The rule of what predict() reads is
# kc_butcher_keeps_rows(); every other reader of the training rows meets
# the "kc_no_rows" placeholder and its classed error.

#' Deploying a kernclass model: butcher, bundle and vetiver
#'
#' Methods for the generics of the butcher, bundle and vetiver packages (in
#' Suggests), available once those packages are loaded. They apply to every
#' fitted kernclass model ([kernel_svm()], [kernel_means()],
#' [kernel_parzen()], [kernel_bayes()], on exact kernels or on
#' [approximations]), to a model calibrated by [conformal()],
#' [recalibrate()] or [venn_abers()], and to a [kernel_tune()] result (its
#' refitted model). The article "Deploying kernclass models" on the package
#' site walks through saving, butchering, bundling, vetiver and ONNX.
#'
#' @section butcher: `butcher::butcher()` runs the axes below; each leaves
#'   `predict()` of new data identical, every `type`. The axed model has
#'   the class `"butchered_<fitter>"` in front and an attribute
#'   `"butcher_disabled"` naming what no longer works.
#'   * `axe_call()`: drops the arguments of the stored call that are values
#'     rather than code (data inlined by [do.call()], functions, long
#'     vectors), keeping names, expressions and short constants; `update()`
#'     no longer refits.
#'   * `axe_env()`: the environment of the model's formula (its `terms`, and
#'     formulas in the call) becomes the base environment, so that the
#'     objects of the function that fitted the model are not saved with it.
#'     A formula whose terms use variables outside the data (not columns of
#'     `newdata`) then finds them in the global environment only;
#'     `model.frame()` and `update()` no longer find the training data.
#'   * `axe_data()`: removes the training rows where `predict()` does not
#'     read them: a [kernel_svm()] on dense inputs keeps its support vectors
#'     (`SV`), a model on [nystrom()] or [random_fourier()] features its
#'     feature map and weights, a [cells()] model its cells' support
#'     vectors, so their inputs `x` (and [kernel_means()]'s and
#'     [kernel_parzen()]'s weights on features) go. [kernel_means()],
#'     [kernel_parzen()] and [kernel_bayes()] on exact kernels predict from
#'     every training row, and models on sparse rows, kernel values or a
#'     kernel function from theirs: these keep `x`. Every model drops the
#'     row names of `x`, the names of `y` and the per-row costs `C` of the
#'     SVM; the classes `y` (4 bytes a row) stay, for `coef()`, broom's
#'     `tidy()` and [write_onnx()] (the support vectors' classes), and so
#'     does the cell of each row of a [cells()] model (`coef()`). A
#'     [kernel_tune()] result drops its folds. Without the rows, `predict()`
#'     needs `newdata`: without it, and in `fitted()`, `summary()`,
#'     `augment()` ([kernclass-broom]) without `newdata`, and [conformal()],
#'     [recalibrate()] and [venn_abers()] from the training rows (`cv`,
#'     leave-one-out), reading them is an error of class
#'     `"kernclass_butchered_error"`. From held-out rows `x`, `y` the
#'     calibrations work as before, and so do `print()`, `nobs()`, `coef()`
#'     and `tidy()`.
#'   * `axe_fitted()`: a [kernel_tune()] result drops its best row's
#'     out-of-fold predictions (`best_predictions`, which [conformal()] and
#'     [calibration_curve()] read); models keep no fitted values.
#'   * `axe_ctrl()`: nothing to remove (the solver's settings are a few
#'     numbers); the default method applies.
#'
#'   The conformal scores, the recalibration maps and the Venn-Abers
#'   calibration rows are what `type = "set"`, the recalibrated
#'   probabilities and `type = "interval"` read: they stay.
#'
#' @section bundle: A kernclass model is made of R vectors, lists and
#'   functions only (no pointers to memory outside R), so `saveRDS()` and
#'   `readRDS()` keep it whole. `bundle::bundle()` wraps it so that
#'   `bundle::unbundle()` in another R process loads kernclass (or says it
#'   is not installed) before `predict()` dispatches: `library(kernclass)`
#'   is not needed there.
#'
#' @section vetiver: `vetiver::vetiver_model(model, name)` butchers and
#'   bundles the model (as it does for tidymodels workflows), describes it
#'   ("A kernclass model: Support vector machine (SMO) with 3 classes; kernel
#'   rbf (gamma = 0.25)"), records
#'   kernclass as the required package and stores an input prototype: for a
#'   formula or data frame fit the zero-row data frame of the columns the
#'   formula uses, with the classes they had (numbers, factors with their
#'   levels, text, logical); for a matrix fit one double column per input
#'   (named `V1`, ... where the matrix had no column names). Models on
#'   sparse rows, kernel values or a kernel function need
#'   `save_prototype = FALSE` or a prototype of your own (a data frame);
#'   `prototype_data` (rows of training inputs) gives the prototype of any
#'   model fitted to a data frame or matrix. `predict(v, newdata)` is the
#'   model's `predict()`. In a plumber API ([vetiver::vetiver_api()]) the
#'   handler checks the request's columns against the prototype and returns
#'   `.pred` (the classes, or with `type = "prob"` or `"decision"` a column
#'   per class or pair); arguments of [vetiver::vetiver_api()]'s `...` go to
#'   `predict()`, e.g. `type = "prob"`.
#'
#' @param x A fitted kernclass model or a [kernel_tune()] result.
#' @param verbose If `TRUE`, report the memory released.
#' @param model A fitted kernclass model or a [kernel_tune()] result.
#' @param metadata A list of user metadata (see [vetiver::vetiver_meta()]).
#' @param vetiver_model A `vetiver_model` object.
#' @param ... Not used (`vetiver_ptype()`: `prototype_data`, rows of the
#'   training inputs; `handler_predict()`: passed on to `predict()`).
#' @return The axes: the model, smaller. `bundle()`: a `"bundle"` object.
#'   The vetiver methods: a description, metadata, the prepared model, a
#'   zero-row data frame, and the handler function of a plumber endpoint.
#' @name kernclass-deploy
#' @examples
#' fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
#' if (requireNamespace("butcher", quietly = TRUE)) {
#'   small <- butcher::butcher(fit)
#'   print(c(before = length(serialize(fit, NULL)), after = length(serialize(small, NULL))))
#'   print(identical(predict(small, iris, type = "prob"), predict(fit, iris, type = "prob")))
#' }
#' if (requireNamespace("bundle", quietly = TRUE)) {
#'   path <- tempfile(fileext = ".rds")
#'   saveRDS(bundle::bundle(fit), path)
#'   back <- bundle::unbundle(readRDS(path))  # in any R process
#'   print(identical(predict(back, iris), predict(fit, iris)))
#'   unlink(path)
#' }
#' if (requireNamespace("vetiver", quietly = TRUE) &&
#'     requireNamespace("pins", quietly = TRUE)) {
#'   v <- vetiver::vetiver_model(fit, "iris-svm")
#'   print(v)
#'   print(head(predict(v, iris[, 1:4])))
#'   board <- pins::board_temp()
#'   vetiver::vetiver_pin_write(board, v)
#'   v2 <- vetiver::vetiver_pin_read(board, "iris-svm")
#'   identical(predict(v2, iris), predict(fit, iris))
#' }
NULL

# ---- butcher --------------------------------------------------------------

#' @rdname kernclass-deploy
#' @exportS3Method butcher::axe_call
axe_call.kernclass <- function(x, verbose = FALSE, ...) {
  kc_axe(x, verbose, "update()", function(m) {
    m$call <- kc_call_lean(m$call)
    m
  })
}

#' @rdname kernclass-deploy
#' @exportS3Method butcher::axe_env
axe_env.kernclass <- function(x, verbose = FALSE, ...) {
  kc_axe(x, verbose, c("model.frame()", "update()"), function(m) {
    if (!is.null(m$terms)) attr(m$terms, ".Environment") <- baseenv()
    formulas <- which(vapply(as.list(m$call), inherits, logical(1), "formula"))
    for (i in formulas) {
      f <- m$call[[i]]
      environment(f) <- baseenv()
      m$call[[i]] <- f
    }
    m
  })
}

#' @rdname kernclass-deploy
#' @exportS3Method butcher::axe_data
axe_data.kernclass <- function(x, verbose = FALSE, ...) {
  disabled <- c("predict() without newdata", "fitted()", "summary()", "glance()", "augment()",
                "plot()",
                "conformal(), recalibrate() and venn_abers() from the training rows")
  kc_axe(x, verbose, disabled, function(m) {
    if (kc_butcher_keeps_rows(m)) {
      if (is.matrix(m$x) && !is.object(m$x)) rownames(m$x) <- NULL
    } else {
      m$x <- kc_no_rows(m$x)
      if (!inherits(kc_repr(m), "kc_exact")) m$weight <- NULL
    }
    names(m$y) <- NULL
    m$C <- NULL
    m
  })
}

# What predict() of new data reads of the training rows: the SVM's support
# vectors are SV (dense inputs) or rows of x (the other sources,
# kc_svm_sv()); the feature and cell representations keep their own.
kc_butcher_keeps_rows <- function(object) {
  inherits(kc_repr(object), "kc_exact") && (!inherits(object, "kernel_svm") || is.null(object$SV))
}

# The kernel_tune() result's axes: its refitted model's, and its own parts.
#' @rdname kernclass-deploy
#' @exportS3Method butcher::axe_call
axe_call.kernel_tune <- function(x, verbose = FALSE, ...) {
  kc_axe(x, verbose, "update()", function(m) {
    m$model <- butcher::axe_call(m$model)
    m$call <- kc_call_lean(m$call)
    m
  })
}

#' @rdname kernclass-deploy
#' @exportS3Method butcher::axe_env
axe_env.kernel_tune <- function(x, verbose = FALSE, ...) {
  kc_axe(x, verbose, character(), function(m) {
    m$model <- butcher::axe_env(m$model)
    m
  })
}

#' @rdname kernclass-deploy
#' @exportS3Method butcher::axe_data
axe_data.kernel_tune <- function(x, verbose = FALSE, ...) {
  kc_axe(x, verbose, c("conformal()", "calibration_curve()"), function(m) {
    m$model <- butcher::axe_data(m$model)
    m$fold <- NULL
    m
  })
}

#' @rdname kernclass-deploy
#' @exportS3Method butcher::axe_fitted
axe_fitted.kernel_tune <- function(x, verbose = FALSE, ...) {
  kc_axe(x, verbose, c("conformal()", "calibration_curve()"), function(m) {
    m$best_predictions <- NULL
    m
  })
}

# An axe: `cut` applied to x, which then carries butcher's marks where it
# changed (the class "butchered_<fitter>" in front; "butcher_disabled", the
# methods that no longer work), as butcher's own axes leave them.
kc_axe <- function(x, verbose, disabled, cut) {
  old <- x
  x <- cut(x)
  if (identical(x, old)) return(x)
  attr(x, "butcher_disabled") <- union(attr(old, "butcher_disabled"), disabled)
  if (!any(startsWith(class(x), "butchered_"))) class(x) <- c(paste0("butchered_", class(x)[1L]), class(x))
  if (isTRUE(verbose)) {
    size <- function(o) as.numeric(lobstr::obj_size(o))
    message(sprintf("kernclass: memory released %s bytes (%s before, %s after)",
                    format(size(old) - size(x), big.mark = ","), format(size(old), big.mark = ","),
                    format(size(x), big.mark = ",")))
  }
  x
}

# The call with the arguments that are code (names, expressions) or short
# constants; values inlined into it (data by do.call(), functions, long
# vectors and lists) go.
kc_call_lean <- function(call) {
  if (!is.call(call)) return(call)
  small <- vapply(as.list(call)[-1L], function(a) {
    is.name(a) || is.call(a) || is.null(a) || (is.atomic(a) && length(a) <= 16L)
  }, logical(1))
  call[c(TRUE, small)]
}

# The training inputs without their rows: a zero-row matrix with their
# columns, remembering how many rows there were (nobs()). Reading rows of
# it (the fitted values, the calibrations) is the classed error below.
kc_no_rows <- function(x) {
  if (inherits(x, "kc_no_rows")) return(x)
  structure(x[0L, , drop = FALSE], rows = nrow(x), class = "kc_no_rows")
}

#' @export
`[.kc_no_rows` <- function(x, i, j, drop = FALSE) {
  kc_abort(paste0("butcher() removed this model's training rows, which predict() of new data ",
                  "does not need: give predict() `newdata`; fitted values, summary() and ",
                  "calibrations from the training rows (`cv`, leave-one-out) need the model ",
                  "before butcher(), calibrations from held-out rows `x`, `y` do not."),
           arg = "object", class = "butchered")
}

# The number of rows of training inputs, also of those butcher() removed.
kc_nrow_fitted <- function(x) if (inherits(x, "kc_no_rows")) attr(x, "rows") else nrow(x)

# ---- bundle ---------------------------------------------------------------

#' @rdname kernclass-deploy
#' @exportS3Method bundle::bundle
bundle.kernclass <- function(x, ...) {
  kc_check_dots(...)
  kc_bundle(x, kc_fitter_of(x)$name)
}

#' @rdname kernclass-deploy
#' @exportS3Method bundle::bundle
bundle.kernel_tune <- function(x, ...) {
  kc_check_dots(...)
  kc_bundle(x, "kernel_tune")
}

# The model as it is (R objects only), with a situater that loads kernclass
# first, so that predict() dispatches after unbundle() in a fresh process.
kc_bundle <- function(x, desc_class) {
  bundle::bundle_constr(
    object = x,
    situate = bundle::situate_constr(function(object) {
      if (!requireNamespace("kernclass", quietly = TRUE)) {
        stop(errorCondition(paste0("unbundle() of a kernclass model needs the kernclass ",
                                   "package: install it."),
                            class = c("kernclass_unbundle_error", "kernclass_error")))
      }
      object
    }),
    desc_class = desc_class)
}
