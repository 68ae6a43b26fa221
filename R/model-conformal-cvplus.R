# CV+ conformal sets (Barber, Candès, Ramdas and Tibshirani 2021; for
# classification Romano, Sesia and Candès 2020): conformal(method = "cv+")
# refits the model on K - 1 of K stratified folds of its own training rows,
# K times, through its own fitter and settings, keeps the K fold models,
# and scores each training row by the model of the fold that left it out.
# A new row is scored by every fold model (R/model-conformal-sets.R counts
# each fold's calibration scores against its own fold model's score).

# The held-out probabilities of the CV+ form, as kc_heldout_prob() gives
# the other forms': list(prob, y, method = "cv+", fold, models), every
# training row's probabilities those of its fold's model.
kc_cvplus_prob <- function(object, folds, for_what) {
  kc_prob_of(object, kc_rows(object$x, 1L), for_what)  # the fold models must give them too
  def <- kc_fitter_of(object)
  args <- kc_refit_args(object)
  y <- object$y
  k <- kc_check_folds(folds, y)
  fold <- kc_cv_folds(y, k)
  rc <- object$recalibration
  prob <- matrix(NA_real_, length(y), length(object$levels),
                 dimnames = list(NULL, object$levels))
  models <- lapply(seq_len(k), function(j) {
    out <- fold == j
    m <- do.call(def$fun, c(list(x = kc_rows(object$x, which(!out)), y = y[!out]), args))
    p <- kc_predict_rows(m, kc_rows(object$x, which(out)), "prob")
    prob[out, ] <<- kc_recalibrate_prob(rc, p)
    kc_fold_model_slim(m)
  })
  list(prob = prob, y = y, method = "cv+", fold = fold, models = models)
}

# A fold model as CV+ keeps it: what predict() of new rows needs. Its
# training rows go where its scores do not read them (the SVM's expansion
# is over its support vectors, an approximation's over its features); the
# exact class-score and Bayes models sum over them and keep them.
kc_fold_model_slim <- function(m) {
  m$call <- NULL
  names(m$y) <- NULL  # the row names
  if (inherits(m, "kernel_svm") || !kc_repr_exact_only(kc_repr(m))) m$x <- kc_rows(m$x, integer())
  m
}

# The arguments that refit the model on some of its training rows (coded
# and scaled as the model keeps them, so `scale = FALSE`) to the same
# classifier: its kernel and kernel parameters as numbers (gamma = "median"
# as the number of all rows), its approximation without the check, and the
# settings the model records (cost, class weights, threshold, prior where
# given, ...); the fitter's defaults for what it does not record (the
# solver's iteration limit, cache and shrinking). `what` refits; `instead`,
# what to use where it cannot (with a kernel of its own, or weights).
kc_refit_args <- function(object, what = "CV+",
                          instead = c(kernel = "split conformal (`x`, `y`) or `cv`",
                                      weights = paste("split conformal (`x`, `y`) or `cv`",
                                                      "(kernel_cv() splits the weights)"))) {
  def <- kc_fitter_of(object)
  k <- object$kernel
  if (k$name %in% names(kc_kernel_sources)) {
    kc_abort(sprintf(paste0("%s refits the model on folds of its training rows, which it cannot ",
                            "for a kernel given as %s: use %s."),
                     what, kc_kernel_sources[[k$name]]$given, instead[["kernel"]]),
             arg = "object")
  }
  if (!is.null(object$call$weights)) {
    kc_abort(sprintf(paste0("%s refits the model on folds of its training rows, but the model ",
                            "does not keep the observation `weights` it was fitted with: use %s."),
                     what, instead[["weights"]]),
             arg = "object")
  }
  formal <- names(formals(def$fun))
  args <- list(kernel = k$name, scale = FALSE)
  for (a in intersect(kc_kernel_info(k)$label, c("gamma", "degree", "coef0"))) args[[a]] <- k[[a]]
  spec <- object$approx$spec
  if (!is.null(spec)) {
    spec$check <- 0L
    args$approx <- spec
  }
  recorded <- c("cost", "class.weights", "type", "nu", "tolerance", "threshold", "ridge")
  for (a in intersect(recorded, formal)) if (!is.null(object[[a]])) args[[a]] <- object[[a]]
  if (identical(object$type, "nu-classification")) args$cost <- NULL  # nu sets the trade-off
  if ("prior" %in% formal && !is.null(object$call$prior)) args$prior <- object$prior
  if (!is.null(def$prob_arg) && kc_prob_asked(object)) args[[def$prob_arg]] <- TRUE
  # tuned cells search the parameters the call left out, in every refit too
  args[setdiff(names(args), object$approx$tuned_not_given)]
}
