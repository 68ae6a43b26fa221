# The representation layer: what a classifier runs on. Every model carries
# one in `repr`, made by kc_repr_new() from the approximation table's
# `representation` column (R/table-approx.R; no approximation: "exact"):
#   kc_exact     the kernel itself, in the engine's tiles (kc_within_sums,
#                kc_expand in R/model.R);
#   kc_features  low-rank features, k(x, y) ~ z(x)'z(y) (R/repr-approx.R): a sum
#                over training rows is a product with summed features;
#   kc_cells     an exact SVM per cell of the data (R/repr-cells.R), for
#                kernel_svm() alone.
# The classifiers are written once against the generics below; the methods
# that must differ between representations dispatch on the model's `repr`,
# never on a class of the model.
#
# At fit time (kc_repr_train()) a representation holds what its operations
# read; the class-mean fitters (kernel_means, kernel_parzen) need
#   kc_repr_mean_norms(r)     ||m_c||^2, the class means' squared norms;
#   kc_repr_expand(r, x, A)   sum_c A[c, j] <m_c, phi(x)> for rows x (a column
#                             per column j of the G x q matrix A), i.e. the
#                             expansion sum_i w_i k(x, x_i) with the weights
#                             w_i = A[y_i, j] / n_{y_i};
#   kc_repr_density(r, s)     densities of its expansions (approximations can
#                             go below 0);
#   kc_repr_model(r, A, b)    what the model keeps of it in `approx` (NULL:
#                             nothing; new_kernclass() sets `repr` from it).
# On a model: kc_repr_scores(repr, object, x) the scores of new rows,
# kc_repr_print(repr, object) and kc_repr_summary(repr, object, s) the
# lines that describe it, kc_repr_functions(repr, object) its decision
# functions (broom), kc_repr_exact_only(repr) whether the exact model's
# shortcuts (leave-one-out) hold.

kc_repr_new <- function(kind) structure(list(), class = c(paste0("kc_", kind), "kc_repr"))

# The representation of an approximation spec (NULL: the exact kernel).
kc_repr_kind <- function(spec) if (is.null(spec)) "exact" else kc_approx_of(spec)$representation

# A model's representation: its `repr`; a model saved before models had one
# gets it from its approximation's spec.
kc_repr <- function(object) {
  if (!is.null(object$repr)) return(object$repr)
  kc_repr_new(kc_repr_kind(object$approx$spec))
}

# The representation of the scaled design d with kernel k for `fitter` (a
# registry name), spec the checked approximation (NULL: exact). `uses`: what
# the fitter asks of it, "means" (the class means: kernel_means(),
# kernel_parzen(), kernel_bayes()) or "svm" (kernel_svm()'s binary solves);
# `progress`: a kc_repr_progressor()'s steps, for the stages of a long fit.
kc_repr_train <- function(spec, d, k, fitter, uses = "means", progress = kc_no_progress) {
  if (!is.null(spec)) kc_approx_require(spec, fitter)
  repr <- kc_repr_new(kc_repr_kind(spec))
  repr$progress <- progress
  kc_repr_prepare(repr, spec, d, k, uses)
}

kc_no_progress <- function(...) invisible(NULL)

kc_repr_prepare <- function(repr, spec, d, k, uses) UseMethod("kc_repr_prepare")

#' @export
kc_repr_prepare.kc_exact <- function(repr, spec, d, k, uses) {
  repr$x <- d$x
  repr$y <- d$y
  repr$kernel <- k
  repr
}

# Features: the map, then the class means of the features (one pass) or,
# for the SVM, the feature rows as floats (src/features.c's store).
#' @export
kc_repr_prepare.kc_features <- function(repr, spec, d, k, uses) {
  repr$fa <- kc_approx_fit(spec, d$x, k)
  repr$x <- d$x
  repr$y <- d$y
  if (uses == "means") {
    repr$zbar <- kc_feature_means(repr$fa, d$x, d$y)
  } else {
    repr$progress(message = "feature map")
    repr$store <- .Call(ffi_feature_store, d$x, repr$fa$map, kc_kernel_code(k), kc_threads())
    repr$progress(message = "feature store")
  }
  repr
}

# The progress steps of a fit of n rows in `steps` stages on the
# representation (silent unless a progressr handler is on): the features'
# (kc_progressor()); none for the others.
kc_repr_progressor <- function(repr, n, steps, envir = parent.frame()) {
  UseMethod("kc_repr_progressor")
}

#' @export
kc_repr_progressor.kc_repr <- function(repr, n, steps, envir = parent.frame()) kc_no_progress

#' @export
kc_repr_progressor.kc_features <- function(repr, n, steps, envir = parent.frame()) {
  kc_progressor(n, steps, envir = envir)
}

kc_repr_mean_norms <- function(repr) UseMethod("kc_repr_mean_norms")

#' @export
kc_repr_mean_norms.kc_exact <- function(repr) {
  kc_within_sums(repr$x, repr$y, repr$kernel) / tabulate(repr$y, nlevels(repr$y))^2
}

#' @export
kc_repr_mean_norms.kc_features <- function(repr) rowSums(repr$zbar^2)

kc_repr_expand <- function(repr, x, A) UseMethod("kc_repr_expand")

#' @export
kc_repr_expand.kc_exact <- function(repr, x, A) {
  counts <- tabulate(repr$y, nlevels(repr$y))
  kc_expand(x, repr$x, (A / counts)[as.integer(repr$y), , drop = FALSE], repr$kernel)
}

#' @export
kc_repr_expand.kc_features <- function(repr, x, A) {
  kc_feature_product(repr$fa, x, kc_feature_weights(repr$zbar, A))
}

# sum_c A[c, j] zbar_c, a column per column of A: the terms in class order,
# zero weights skipped (so a difference of two means is computed as one).
kc_feature_weights <- function(zbar, A) {
  w <- matrix(0, ncol(zbar), ncol(A), dimnames = list(NULL, colnames(A)))
  for (j in seq_len(ncol(A))) {
    first <- TRUE
    for (c in which(A[, j] != 0)) {
      term <- A[c, j] * zbar[c, ]
      w[, j] <- if (first) term else w[, j] + term
      first <- FALSE
    }
  }
  w
}

kc_repr_density <- function(repr, s) UseMethod("kc_repr_density")

#' @export
kc_repr_density.kc_repr <- function(repr, s) s

#' @export
kc_repr_density.kc_features <- function(repr, s) pmax(s, 0)

# What a class-score model keeps of its representation: scores
# sum_c A[c, j] <m_c, phi(x)> + b_j (A: G x G, b: the offsets, by level).
kc_repr_model <- function(repr, A, b) UseMethod("kc_repr_model")

#' @export
kc_repr_model.kc_exact <- function(repr, A, b) NULL

#' @export
kc_repr_model.kc_features <- function(repr, A, b) {
  fa <- repr$fa
  fa$w <- kc_feature_weights(repr$zbar, A)
  colnames(fa$w) <- names(b)
  fa$b <- b
  fa
}

# The class attribute the models of a representation had before it (kept
# for saved models' and users' code; no code of the package tests it).
kc_repr_class <- function(repr) UseMethod("kc_repr_class")

#' @export
kc_repr_class.kc_exact <- function(repr) character()

#' @export
kc_repr_class.kc_features <- function(repr) "kernclass_approx"

#' @export
kc_repr_class.kc_cells <- function(repr) "kernclass_cells"

# ---- on a model -------------------------------------------------------------

# prob = FALSE: the caller needs no probabilities (representations that
# compute them apart, cells, may leave them out).
kc_repr_scores <- function(repr, object, x, prob = TRUE) UseMethod("kc_repr_scores")

# Exact: the classifier's own expansion (kc_exact_scores() methods).
#' @export
kc_repr_scores.kc_exact <- function(repr, object, x, prob = TRUE) kc_exact_scores(object, x)

kc_exact_scores <- function(object, x) UseMethod("kc_exact_scores")

# Features: Z w + b, with the columns the exact model's scores have.
#' @export
kc_repr_scores.kc_features <- function(repr, object, x, prob = TRUE) {
  fa <- object$approx
  s <- kc_feature_product(fa, x, fa$w)
  s <- s + rep(fa$b, each = nrow(s))
  dimnames(s) <- list(rownames(x), colnames(fa$w))
  s
}

# Whether the exact model's shortcuts (the one-pass leave-one-out) hold.
kc_repr_exact_only <- function(repr) UseMethod("kc_repr_exact_only")

#' @export
kc_repr_exact_only.kc_repr <- function(repr) FALSE

#' @export
kc_repr_exact_only.kc_exact <- function(repr) TRUE

# predict()'s decision values, classes and probabilities from the scores:
# the classifier's own (kc_model_*() methods) unless the representation
# reads its scores itself (cells: a column per row's cell).
kc_repr_decision <- function(repr, object, scores) UseMethod("kc_repr_decision")

#' @export
kc_repr_decision.kc_repr <- function(repr, object, scores) kc_model_decision(object, scores)

kc_repr_classify <- function(repr, object, scores) UseMethod("kc_repr_classify")

#' @export
kc_repr_classify.kc_repr <- function(repr, object, scores) kc_model_classify(object, scores)

kc_repr_posterior <- function(repr, object, scores) UseMethod("kc_repr_posterior")

#' @export
kc_repr_posterior.kc_repr <- function(repr, object, scores) kc_model_posterior(object, scores)

# print(), summary() and coef() of a model: the classifier's own on exact
# kernels (kc_print_exact(), kc_summary_exact(), kc_coef_exact() methods),
# the representation's otherwise (R/repr-approx.R, R/repr-cells.R).
kc_repr_print <- function(repr, x) UseMethod("kc_repr_print")

#' @export
kc_repr_print.kc_exact <- function(repr, x) kc_print_exact(x)

kc_print_exact <- function(x) UseMethod("kc_print_exact")

kc_repr_summary <- function(repr, object) UseMethod("kc_repr_summary")

#' @export
kc_repr_summary.kc_exact <- function(repr, object) kc_summary_exact(object)

kc_summary_exact <- function(object) UseMethod("kc_summary_exact")

kc_repr_coef <- function(repr, object) UseMethod("kc_repr_coef")

#' @export
kc_repr_coef.kc_exact <- function(repr, object) kc_coef_exact(object)

kc_coef_exact <- function(object) UseMethod("kc_coef_exact")
