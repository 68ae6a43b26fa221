# kernel_svm()'s fit after its arguments are checked (R/fit-svm.R), written
# once over the representation layer (R/repr.R), and the exact kernel's
# operations: SMO on the kernel's tiles (kc_svm_binary() and the pairs side
# by side, R/fit-svm.R). The features' operations are in R/repr-approx.R; cells fit an
# exact SVM per cell (R/repr-cells.R).

# kernel_svm() on a representation (R/repr.R): C the per-row bounds (0:
# left out), control the solver's settings (kernel, type, cost, nu,
# tolerance, max_iter, cachesize, shrinking), args the rest (observation
# and class weights as given, probability, the names the call gave, the
# call, kernel_tune()'s cost path). Written once over the representation's
# operations; cells fit an exact SVM per cell instead (R/repr-cells.R).
kc_repr_svm <- function(repr, spec, d, k, C, control, args) UseMethod("kc_repr_svm")

#' @export
kc_repr_svm.kc_cells <- function(repr, spec, d, k, C, control, args) {
  kc_fit_svm_cells(d, k, spec, C, args$weights, control$cost, args$class.weights, control,
                   args$probability, args$given, args$call)
}

# The operations it asks of the representation (the exact kernel's below,
# the features' in R/repr-approx.R):
#   kc_repr_svm_control(repr, spec, control, given): the solver's settings
#     on it (its own defaults, the types and settings it refuses), checked
#     before anything is computed;
#   kc_repr_svm_solve(r, problems, pairs, C, control, path): the binary
#     solutions, one per problem (rows; class pairs[m, "first"] as +1);
#   kc_repr_svm_model(r, fits, pairs, control): the model's fields;
#   kc_repr_svm_platt(r, fits, pairs, C, control): Platt's A and B per pair.
#' @export
kc_repr_svm.kc_repr <- function(repr, spec, d, k, C, control, args) {
  control <- kc_repr_svm_control(repr, spec, control, args$given)
  control$probability <- args$probability  # the exact pairs solve Platt's folds with the pairs
  one <- control$type == "one-classification"
  if (one) {
    pairs <- matrix(NA_integer_, 1L, 2L, dimnames = list("", c("first", "second")))
    problems <- list(seq_len(nrow(d$x)))
  } else {
    pairs <- kc_ovo_pairs(levels(d$y))
    problems <- lapply(seq_len(nrow(pairs)), function(m) which(as.integer(d$y) %in% pairs[m, ]))
  }
  progress <- kc_repr_progressor(repr, nrow(d$x), 3L + args$probability)
  r <- kc_repr_train(spec, d, k, "kernel_svm", uses = "svm", progress = progress)
  fits <- kc_repr_svm_solve(r, problems, pairs, C, control, args$path)
  fit <- do.call(new_kernclass, c(
    list(d, k, call = args$call, type = control$type,
         class = if (one) c("kernel_svm_oneclass", "kernel_svm") else c("kernel_svm", "kernclass_ovo")),
    kc_repr_svm_model(r, fits, pairs, control),
    list(C = C, class.weights = args$class.weights, tolerance = control$tolerance)),
    quote = TRUE)  # the call is a value, not run
  if (control$type != "C-classification") fit$nu <- control$nu
  if (one) fit$levels <- c("inlier", "outlier")
  if (args$probability) {
    ab <- kc_repr_svm_platt(r, fits, pairs, C, control)
    fit$probA <- stats::setNames(ab[1L, ], rownames(pairs))
    fit$probB <- stats::setNames(ab[2L, ], rownames(pairs))
  }
  kc_approx_checked(fit, d, spec, args$weights)
}

kc_repr_svm_control <- function(repr, spec, control, given) UseMethod("kc_repr_svm_control")

#' @export
kc_repr_svm_control.kc_exact <- function(repr, spec, control, given) control

kc_repr_svm_solve <- function(r, problems, pairs, C, control, path) {
  UseMethod("kc_repr_svm_solve")
}

# Exact: SMO per problem, the class pairs of a multi-class C-SVC side by side
# where they can be (kc_svm_pairs()), else each as a unit of work; a cost
# path (C-classification) keeps kernel rows in this session.
#' @export
kc_repr_svm_solve.kc_exact <- function(r, problems, pairs, C, control, path) {
  one <- control$type == "one-classification"
  # eta, its signs and the coefficients: n x pairs each
  kc_check_memory(32 * nrow(r$x) * nrow(pairs),
                  sprintf("The exact SVM's coefficients of %d class pair(s) over %d rows",
                          nrow(pairs), nrow(r$x)), kc_memory_route)
  if (control$type == "nu-classification") kc_svm_check_nu(control$nu, C, r$y, pairs)
  if (control$type != "C-classification") path <- NULL
  fit_pair <- function(m) {
    kc_svm_binary(r$x, r$y, problems[[m]], if (!one) pairs[m, "first"], C, control,
                  rownames(pairs)[m], path = path)
  }
  fits <- if (is.null(path) && !one) kc_svm_pairs(r$x, r$y, problems, pairs, C, control)
  if (is.null(fits)) {
    fits <- if (is.null(path)) kc_problems_lapply(seq_len(nrow(pairs)), fit_pair) else
      lapply(seq_len(nrow(pairs)), fit_pair)
  }
  fits
}

kc_repr_svm_model <- function(r, fits, pairs, control) UseMethod("kc_repr_svm_model")

# Exact: the dual variables eta, the support vectors, their coefficients
# and the solver's figures per pair.
#' @export
kc_repr_svm_model.kc_exact <- function(r, fits, pairs, control) {
  one <- control$type == "one-classification"
  n <- nrow(r$x)
  pair_names <- if (!one) rownames(pairs)
  per_pair <- function(field) stats::setNames(vapply(fits, `[[`, numeric(1), field), pair_names)
  eta <- matrix(0, n, nrow(pairs), dimnames = list(NULL, pair_names))
  for (m in seq_along(fits)) eta[fits[[m]]$rows, m] <- fits[[m]]$alpha
  index <- which(rowSums(eta) > 0)
  sign <- if (one) matrix(1, n, 1L) else vapply(seq_len(nrow(pairs)), function(m) {
    ifelse(as.integer(r$y) == pairs[m, "first"], 1, -1)
  }, numeric(length(r$y)))
  sign <- matrix(sign, nrow = n)
  converged <- vapply(fits, function(f) f$status == kc_c$smo_status[["converged"]], logical(1))
  if (!all(converged)) kc_svm_warn_max_iter(control$max_iter, if (!one) pair_names[!converged])
  list(index = index,
       SV = if (!kc_is_source(r$x)) r$x[index, , drop = FALSE],  # sources: kc_svm_sv()
       eta = eta[index, , drop = FALSE],
       coefs = (eta * sign)[index, , drop = FALSE],
       b = -per_pair("rho"),
       nSV = if (one) length(index) else
         stats::setNames(tabulate(r$y[index], nlevels(r$y)), levels(r$y)),
       n_at_bound = per_pair("at_bound"),
       objective = per_pair("objective"),
       iterations = per_pair("iterations"),
       kkt_violation = stats::setNames(pmax(0, per_pair("gap")), pair_names),
       converged = all(converged),
       # nu-SVC is the C-SVC of cost 1/r (r per pair, LIBSVM's scaling)
       cost = if (control$type == "C-classification") control$cost else if (!one) 1 / per_pair("r"))
}

kc_repr_svm_platt <- function(r, fits, pairs, C, control) UseMethod("kc_repr_svm_platt")

#' @export
kc_repr_svm_platt.kc_exact <- function(r, fits, pairs, C, control) {
  done <- attr(fits, "platt")  # kc_svm_pairs(): its folds, solved with the pairs
  if (!is.null(done$ab)) return(done$ab)
  rows <- lapply(fits, `[[`, "rows")
  fold <- if (is.null(done)) kc_platt_folds(rows) else done$fold
  kc_svm_platt(r$x, r$y, rows, pairs[, "first"], C, control, fold = fold)
}

# ---- the one solve entry -------------------------------------------------------

# Every SVM solve goes through one .Call (src/ffi-svm.c): `problems` a
# named list of one kind ("binary": one binary problem, optionally warm-
# started and with held-out rows; "pairs": the class pairs of one fit,
# optionally with Platt's folds; "path": the costs of kernel settings over
# the folds of a cross-validation), `options` a named list that C reads by
# name. Which store holds the kernel rows is the C planner's
# (src/svm-plan.c); kc_svm_plan() shows its plan without solving.
kc_svm_solve <- function(problems, options) .Call(ffi_svm_solve, problems, options)

kc_svm_plan <- function(problems, options) .Call(ffi_svm_plan, problems, options)

# The options of a binary or pairs solve from kernel_svm()'s control:
# budget, the bytes the pairs' shared blocks may take (kc_svm_budget());
# keep, those a cost path may still keep a store in (NULL: no path).
kc_svm_options <- function(control, budget = NULL, keep = NULL) {
  list(kernel = kc_kernel_code(control$kernel), type = control$type,
       tolerance = control$tolerance, max_iter = control$max_iter,
       cachesize = control$cachesize, shrinking = control$shrinking, threads = kc_threads(),
       budget = budget, keep = keep)
}
