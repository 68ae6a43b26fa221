# tidymodels: the engine "kernclass" of parsnip's svm_rbf(), svm_poly() and
# svm_linear(), and the model kernel_classifier() for kernel_means(),
# kernel_parzen() and kernel_bayes(). parsnip is in Suggests: the models are
# entered into parsnip's model environment when parsnip is loaded
# (kc_on_package_load() in R/zzz.R), as extension packages such as discrim
# and bonsai do from their .onLoad.

# The parsnip model behind each SVM engine and the kernel it fixes.
kc_parsnip_svm <- c(svm_rbf = "rbf", svm_poly = "polynomial", svm_linear = "linear")

# parsnip's names for kernclass's gamma in its SVM models (kernlab's sigma
# and polydot scale); the other tunable parameters keep their names.
kc_parsnip_gamma <- c(svm_rbf = "rbf_sigma", svm_poly = "scale_factor")

# The oldest parsnip whose extension API (update_spec(), case weights,
# set_encoding()'s allow_sparse_x) this file uses.
kc_parsnip_version <- "1.2.0"

kc_parsnip_usable <- function() {
  requireNamespace("parsnip", quietly = TRUE) &&
    utils::packageVersion("parsnip") >= kc_parsnip_version
}

# A classed error where a function needs a package of Suggests.
kc_need <- function(pkg, what, version = NULL) {
  ok <- requireNamespace(pkg, quietly = TRUE) &&
    (is.null(version) || utils::packageVersion(pkg) >= version)
  if (!ok) {
    kc_abort(sprintf("%s needs the package %s%s: install.packages(\"%s\").", what, pkg,
                     if (is.null(version)) "" else sprintf(" (>= %s)", version), pkg),
             class = "package_missing", input = FALSE)
  }
  invisible(TRUE)
}

# Enter every kernclass model into parsnip's model environment; a model
# already there (parsnip loaded before kernclass, then the hook) is skipped.
kc_register_parsnip <- function() {
  if (!kc_parsnip_usable()) return(invisible(FALSE))
  env <- parsnip::get_model_env()
  for (model in names(kc_parsnip_svm)) {
    if (!"kernclass" %in% env[[paste0(model, "_fit")]]$engine) kc_register_parsnip_svm(model)
  }
  if (!"kernel_classifier" %in% env$models) kc_register_parsnip_family()
  invisible(TRUE)
}

# What every kernclass engine shares: classification only; x a data frame
# whose factors kernclass codes itself (one indicator per level, not scaled),
# so parsnip makes no dummy columns; the fitters' prediction types (the
# registry's `types`) through predict.kernclass(), the decision values as
# parsnip's "raw".
kc_register_parsnip_engine <- function(model, func, args, protect, defaults, types) {
  mode <- "classification"
  parsnip::set_model_engine(model, mode = mode, eng = "kernclass")
  parsnip::set_dependency(model, eng = "kernclass", pkg = "kernclass", mode = mode)
  for (a in args) {
    parsnip::set_model_arg(model = model, eng = "kernclass", parsnip = a$parsnip,
                           original = a$original, func = a$func, has_submodel = FALSE)
  }
  parsnip::set_fit(model = model, eng = "kernclass", mode = mode, value = list(
    interface = "data.frame",
    data = c(x = "x", y = "y", weights = "weights")[intersect(c("x", "y", "weights"), protect)],
    protect = protect,
    func = c(pkg = "kernclass", fun = func),
    defaults = defaults))
  parsnip::set_encoding(model = model, eng = "kernclass", mode = mode, options = list(
    predictor_indicators = "none", compute_intercept = FALSE, remove_intercept = FALSE,
    allow_sparse_x = FALSE))
  parsnip_type <- c(class = "class", prob = "prob", decision = "raw")
  for (type in intersect(names(parsnip_type), types)) {
    parsnip::set_pred(model = model, eng = "kernclass", mode = mode, type = parsnip_type[[type]],
                      value = list(pre = NULL, post = if (type == "prob") kc_parsnip_prob,
                                   func = c(fun = "predict"),
                                   args = list(object = quote(object$fit),
                                               newdata = quote(new_data), type = type)))
  }
}

# The probability matrix as the data frame parsnip names .pred_<level>.
kc_parsnip_prob <- function(result, object) {
  as.data.frame(unclass(result), row.names = NULL, optional = TRUE)
}

kc_parsnip_arg <- function(parsnip, original, fun, pkg = "dials", ...) {
  list(parsnip = parsnip, original = original, func = c(list(pkg = pkg, fun = fun), list(...)))
}

# A tunable parameter of the fitter registry (kc_tunables) as a parsnip
# argument: its dials function and range, or `dials`, where parsnip's model
# has its own name and dials function for it.
kc_parsnip_tunable <- function(arg, dials = NULL) {
  p <- kc_tunables[[arg]]
  if (!is.null(dials)) return(kc_parsnip_arg(dials, arg, dials))
  range <- if (!is.null(p$range)) list(range = p$range)
  do.call(kc_parsnip_arg, c(list(arg, arg, p$dials[["fun"]], pkg = p$dials[["pkg"]]), range))
}

# kernel_svm() with the model's kernel, through kernel_svm_fit(); parsnip's
# rbf_sigma (kernlab's sigma in exp(-sigma ||x - y||^2)) and scale_factor
# (kernlab's polydot scale) are kernclass's gamma. The kernel is fixed by the
# model: kernel_svm_fit(model = ) sets it, and an engine argument `kernel` is
# dropped with a warning (a protected `kernel` would have shown twice in
# translate()'s template, once as parsnip's missing_arg() and once as its
# default); case weights multiply the cost of their point (`weights`).
kc_register_parsnip_svm <- function(model) {
  kernel <- kc_parsnip_svm[[model]]
  def <- kc_fitter("kernel_svm")
  args <- lapply(kc_fitter_tunable(def, kernel), function(a) {
    kc_parsnip_tunable(a, if (a == "gamma") kc_parsnip_gamma[[model]])
  })
  defaults <- c(list(model = model), stats::setNames(list(TRUE), def$prob_arg))
  kc_register_parsnip_engine(model, "kernel_svm_fit", args, protect = c("x", "y", "weights"),
                             defaults = defaults, types = def$types)
}

kc_register_parsnip_family <- function() {
  model <- "kernel_classifier"
  parsnip::set_new_model(model)
  parsnip::set_model_mode(model, "classification")
  # the prediction types every method of the model has
  types <- Reduce(intersect, lapply(kc_fitters[kc_classifier_names()], `[[`, "types"))
  kc_register_parsnip_engine(model, "kernel_classifier_fit",
    list(kc_parsnip_arg("method", "method", "kernclass_method", pkg = "kernclass"),
         kc_parsnip_tunable("gamma")),
    protect = c("x", "y"), defaults = list(), types = types)
}

#' Kernel classifiers in tidymodels
#'
#' kernclass plugs into parsnip two ways once both packages are loaded:
#'
#' * **SVMs**: the engine `"kernclass"` of [parsnip::svm_rbf()],
#'   [parsnip::svm_poly()] and [parsnip::svm_linear()] fits [kernel_svm()]
#'   with the `"rbf"`, `"polynomial"` and `"linear"` kernel, for
#'   classification. parsnip's arguments map to kernclass's: `cost` is
#'   `cost`; `rbf_sigma` is `gamma` (the same number: kernlab's `sigma` and
#'   kernclass's `gamma` both mean \eqn{\exp(-\gamma\|x - y\|^2)});
#'   `scale_factor` is `gamma` and `degree` is `degree` of the polynomial
#'   kernel \eqn{(\gamma x'y + c_0)^d}. `margin` is for regression and not
#'   used. Left out, they take [kernel_svm()]'s defaults (`gamma = 1 / p`,
#'   not kernlab's estimate; `coef0 = 0`, where kernlab's `offset` is 1).
#'   `probability = TRUE` is set, so that `predict(type = "prob")` works
#'   (Platt scaling, see [kernel_svm()]); `set_engine("kernclass",
#'   probability = FALSE)` fits faster without it. Case weights
#'   ([hardhat::importance_weights()] or [hardhat::frequency_weights()])
#'   multiply the cost of their observation, as `kernel_svm(weights = )`.
#' * **The other classifiers**: `kernel_classifier()` is a parsnip model
#'   with the one engine `"kernclass"` that fits [kernel_means()] (the
#'   default), [kernel_parzen()] or [kernel_bayes()], chosen by `method`.
#'   One model rather than three, because the three share every argument
#'   and prediction type, and so `method` can be tuned along with `gamma`:
#'   `tune::tune_grid()` then compares the classifiers on the same
#'   resamples. Their own arguments (`kernel`, `degree`, `coef0`, `scale`,
#'   and `prior`, `threshold`, `type`, `ridge` where the method has them)
#'   are engine arguments: `set_engine("kernclass", kernel = "laplace")`. An
#'   engine argument the chosen method does not take is an error. These
#'   classifiers take no case weights.
#'
#' The approximations for large data ([approximations]) are engine
#' arguments, passed on to the fitter: `set_engine("kernclass", approx =
#' nystrom(m = 500))` for any model, `approx = cells(size = 2000)` for the
#' SVMs (their size is not a parsnip tuning parameter; [kernclass_caret()]
#' and [kernel_tune()] tune it).
#'
#' Every engine takes the predictors as a data frame and codes factors
#' itself (one indicator per level), and `scale = TRUE` (kernclass's
#' default) scales the numeric inputs with the training statistics, so a
#' recipe needs neither `step_dummy()` nor `step_normalize()`.
#' `predict()` gives `type = "class"`, `"prob"` and `"raw"` (the decision
#' values of [predict.kernclass()]). `extract_fit_engine()` returns the
#' kernclass model.
#'
#' The tuning parameters of `kernel_classifier()` are `method`
#' ([kernclass_method()]) and `gamma` ([kernclass_gamma()]); those of the SVMs
#' are dials' `cost()`, `rbf_sigma()`, `scale_factor()` and
#' `prod_degree()`, as for parsnip's other engines.
#'
#' @param mode The model's mode: only `"classification"`.
#' @param engine The engine: only `"kernclass"`.
#' @param method Which classifier: `"means"` ([kernel_means()]),
#'   `"parzen"` ([kernel_parzen()]) or `"bayes"` ([kernel_bayes()]); may be
#'   `tune::tune()`. Default (`NULL`): `"means"`.
#' @param gamma The kernel scale \eqn{\gamma} of the fitter; may be
#'   `tune::tune()`. Default (`NULL`): the fitter's, `1 / p`.
#' @return `kernel_classifier()`: a parsnip model specification of class
#'   `c("kernel_classifier", "model_spec")`.
#' @seealso [kernclass_gamma()], [kernclass_method()]; [kernel_tune()] for
#'   tuning without tidymodels.
#' @export
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   library(parsnip)
#'   # an SVM: parsnip's rbf_sigma is kernclass's gamma
#'   svm <- svm_rbf(cost = 10, rbf_sigma = 0.2) |>
#'     set_mode("classification") |>
#'     set_engine("kernclass") |>
#'     fit(Species ~ ., data = iris)
#'   predict(svm, iris[c(1, 51, 101), ], type = "prob")
#'
#'   # the Parzen-window classifier with a Laplace kernel
#'   parzen <- kernel_classifier(method = "parzen", gamma = 0.5) |>
#'     set_engine("kernclass", kernel = "laplace") |>
#'     fit(Species ~ ., data = iris)
#'   predict(parzen, iris[c(1, 51, 101), ])
#'   extract_fit_engine(parzen)
#' }
kernel_classifier <- function(mode = "classification", engine = "kernclass", method = NULL,
                              gamma = NULL) {
  if (!identical(mode, "classification")) {
    kc_abort("`mode` of kernel_classifier() must be \"classification\".", arg = "mode")
  }
  if (!identical(engine, "kernclass")) {
    kc_abort("`engine` of kernel_classifier() must be \"kernclass\".", arg = "engine")
  }
  kc_need("parsnip", "kernel_classifier()", kc_parsnip_version)
  kc_register_parsnip()
  args <- list(method = rlang::enquo(method), gamma = rlang::enquo(gamma))
  parsnip::new_model_spec("kernel_classifier", args = args, eng_args = NULL, mode = mode,
                          user_specified_mode = !missing(mode), method = NULL, engine = engine,
                          user_specified_engine = !missing(engine))
}

#' @rdname kernel_classifier
#' @param object A `kernel_classifier()` specification.
#' @param parameters A one-row data frame (or list) of parameter values, as
#'   `tune::finalize_model()` passes them.
#' @param fresh If `TRUE`, replace the arguments instead of updating them.
#' @param ... For `update()`: engine arguments to change; for
#'   `kernel_classifier_fit()` and `kernel_svm_fit()`: the fitter's arguments.
#' @export
update.kernel_classifier <- function(object, parameters = NULL, method = NULL, gamma = NULL,
                                     fresh = FALSE, ...) {
  args <- list(method = rlang::enquo(method), gamma = rlang::enquo(gamma))
  parsnip::update_spec(object = object, parameters = parameters, args_enquo_list = args,
                       fresh = fresh, cls = "kernel_classifier", ...)
}

#' @export
print.kernel_classifier <- function(x, ...) {
  parsnip::print_model_spec(x, desc = "Kernel Classifier", ...)
  invisible(x)
}

#' @rdname kernel_classifier
#' @param x,y The predictors (a data frame) and the class labels, as parsnip
#'   passes them.
#' @details `kernel_classifier_fit()` is the function the engine calls: it
#'   calls the fitter `method` names with `x`, `y` and `...`. Use the fitters
#'   themselves outside parsnip.
#' @export
kernel_classifier_fit <- function(x, y, method = "means", ...) {
  method <- kc_match_arg(method, kc_classifier_methods(), "method")
  kc_fitter_by_method(method)$generic(x, y, ...)
}

#' @rdname kernel_classifier
#' @param model For `kernel_svm_fit()`: the parsnip model whose kernel the
#'   fit uses, `"svm_rbf"` (`"rbf"`), `"svm_poly"` (`"polynomial"`) or
#'   `"svm_linear"` (`"linear"`).
#' @param kernel For `kernel_svm_fit()`: not used; the model fixes the
#'   kernel, so a `kernel` given (an engine argument) is dropped with a
#'   warning of class `"kernclass_parsnip_kernel_warning"`.
#' @details `kernel_svm_fit()` is the function the SVM engines call:
#'   [kernel_svm()] with `x`, `y`, `...` and the kernel of `model`, so that
#'   parsnip's `translate()` shows the fit as it runs, each argument once.
#' @export
kernel_svm_fit <- function(x, y, model = "svm_rbf", ..., kernel = NULL) {
  model <- kc_match_arg(model, names(kc_parsnip_svm), "model")
  if (!is.null(kernel)) {
    kc_warn(sprintf(paste0("parsnip's %s() fixes the kernel (\"%s\"); the engine argument ",
                           "`kernel` was dropped. Use svm_rbf(), svm_poly() or svm_linear() for ",
                           "their kernels, kernel_tune() or kernel_classifier() for others."),
                    model, kc_parsnip_svm[[model]]), class = "parsnip_kernel")
  }
  eval(bquote(kernel_svm(x, y, kernel = .(kc_parsnip_svm[[model]]), ...)))
}

#' Tuning parameters of kernclass for dials
#'
#' `kernclass_gamma()` is the kernel scale \eqn{\gamma} of
#' [kernel_classifier()], searched on a log10 scale; `kernclass_method()`
#' chooses among the classifiers. Both are parameter objects of the dials package, found
#' by `tune` for the arguments `gamma` and `method` of
#' [kernel_classifier()].
#'
#' The default range, \eqn{10^{-3}} to \eqn{10}, suits scaled inputs
#' (`scale = TRUE`), where the fitters' default is \eqn{1/p}; for the
#' SVMs, parsnip's `rbf_sigma()` (whose range runs from \eqn{10^{-10}})
#' is the parameter of the same \eqn{\gamma}.
#'
#' @param range The range on the scale of `trans` (log10: `c(-3, 1)` is
#'   0.001 to 10).
#' @param trans A transformation from the scales package; default
#'   `scales::transform_log10()`.
#' @param values The classifiers to choose among.
#' @return A dials parameter object.
#' @export
#' @examples
#' if (requireNamespace("dials", quietly = TRUE)) {
#'   kernclass_gamma()
#'   dials::value_seq(kernclass_gamma(), 4)
#'   kernclass_method()
#' }
kernclass_gamma <- function(range = c(-3, 1), trans = NULL) {
  if (!is.numeric(range) || length(range) != 2L || anyNA(range) || !(range[1L] < range[2L])) {
    kc_abort("`range` must be two numbers, the lower bound first (log10 scale: c(-3, 1)).",
             arg = "range")
  }
  kc_need("dials", "kernclass_gamma()")
  if (is.null(trans)) {
    kc_need("scales", "kernclass_gamma()", "1.3.0")
    trans <- scales::transform_log10()
  }
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans, label = c(gamma = "Kernel scale (gamma)"))
}

#' @rdname kernclass_gamma
#' @export
kernclass_method <- function(values = c("means", "parzen", "bayes")) {
  methods <- kc_classifier_methods()
  if (!is.character(values) || !length(values) || anyNA(values) || !all(values %in% methods)) {
    kc_abort(sprintf("`values` must be one or more of %s.", kc_enum(methods)), arg = "values")
  }
  kc_need("dials", "kernclass_method()")
  dials::new_qual_param(type = "character", values = values,
                        label = c(method = "Kernel classifier"))
}
