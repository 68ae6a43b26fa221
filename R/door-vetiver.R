# vetiver's door: what vetiver_model() asks of a model class it does not
# know (a description, metadata, the prepared model, an input prototype)
# and the prediction handler of its plumber API. NAMESPACE registers the
# methods when vetiver is loaded; their help is kernclass-deploy
# (R/door-butcher.R).

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_create_description
vetiver_create_description.kernclass <- function(model) {
  classes <- if (!is.null(model$counts)) sprintf(" with %d classes", length(model$levels))
  paste0("A kernclass model: ", kc_method_label(model), classes, "; kernel ",
         kc_kernel_label(model$kernel))
}

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_create_description
vetiver_create_description.kernel_tune <- function(model) {
  paste0(vetiver_create_description.kernclass(model$model), ", tuned by kernel_tune()")
}

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_create_meta
vetiver_create_meta.kernclass <- function(model, metadata) {
  vetiver::vetiver_meta(metadata, required_pkgs = "kernclass")
}

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_create_meta
vetiver_create_meta.kernel_tune <- vetiver_create_meta.kernclass

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_prepare_model
vetiver_prepare_model.kernclass <- function(model) bundle::bundle(butcher::butcher(model))

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_prepare_model
vetiver_prepare_model.kernel_tune <- vetiver_prepare_model.kernclass

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_ptype
vetiver_ptype.kernclass <- function(model, ...) {
  dots <- list(...)
  if (inherits(model$x, "kc_kernel_data") || inherits(model$x, "kc_csr")) {
    if (is.null(dots$prototype_data)) {
      kc_abort(paste0("vetiver needs an input prototype, which a model on sparse rows, kernel ",
                      "values or a kernel function does not define: give vetiver_model() ",
                      "`save_prototype = FALSE`, or a data frame as `save_prototype`."),
               arg = "model", class = "vetiver")
    }
  }
  cols <- if (is.null(model$terms)) colnames(model$x) else all.vars(stats::delete.response(model$terms))
  if (!is.null(dots$prototype_data)) {
    data <- as.data.frame(dots$prototype_data)
    if (!is.null(cols) && all(cols %in% names(data))) data <- data[cols]
    return(kc_tibble(data[0L, , drop = FALSE]))
  }
  if (is.null(model$terms)) {
    if (is.null(cols)) cols <- paste0("V", seq_len(ncol(model$x)))
    return(kc_tibble(as.data.frame(matrix(numeric(0), 0L, length(cols),
                                          dimnames = list(NULL, cols)))))
  }
  # the formula's variables with the classes the model frame had; a variable
  # used only inside a transformation (log(x)) is taken as a number
  classes <- attr(model$terms, "dataClasses")
  out <- lapply(cols, function(v) {
    cl <- if (v %in% names(classes)) classes[[v]] else "numeric"
    switch(cl,
      numeric = double(0),
      logical = logical(0),
      character = character(0),
      factor = factor(character(0), levels = model$xlevels[[v]]),
      ordered = factor(character(0), levels = model$xlevels[[v]], ordered = TRUE),
      kc_abort(sprintf(paste0("vetiver's input prototype cannot hold the column `%s` (%s): ",
                              "give vetiver_model() `prototype_data` (rows of the training ",
                              "inputs) or `save_prototype = FALSE`."), v, cl),
               arg = "model", class = "vetiver"))
  })
  kc_tibble(stats::setNames(as.data.frame(out, optional = TRUE), cols))
}

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::vetiver_ptype
vetiver_ptype.kernel_tune <- function(model, ...) vetiver_ptype.kernclass(model$model, ...)

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::handler_predict
handler_predict.kernclass <- function(vetiver_model, ...) {
  ptype <- vetiver_model$prototype
  function(req) {
    newdata <- req$body
    if (!is.null(ptype)) {
      newdata <- vetiver::vetiver_type_convert(newdata, ptype)
      newdata <- hardhat::scream(newdata, ptype)
    }
    kc_vetiver_pred(stats::predict(vetiver_model$model, newdata, ...))
  }
}

#' @rdname kernclass-deploy
#' @exportS3Method vetiver::handler_predict
handler_predict.kernel_tune <- handler_predict.kernclass

# The endpoint's answer: `.pred`, the classes (or a vector of decision
# values), a column `.pred_<name>` per class or pair, or the sets as lists
# of classes.
kc_vetiver_pred <- function(pred) {
  if (inherits(pred, "kernclass_sets")) return(list(.pred = unname(as.list(pred))))
  if (is.matrix(pred)) {
    out <- as.data.frame(unclass(pred), optional = TRUE)
    names(out) <- paste0(".pred_", colnames(pred))
    return(kc_tibble(out))
  }
  list(.pred = unname(pred))
}
