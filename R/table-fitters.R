# The fitter registry: one row per kernclass classifier, read by
# kernel_cv(), kernel_tune(), the print and summary methods, parsnip
# (R/door-parsnip.R) and caret (R/door-caret.R). A fitter's arguments and their
# defaults live in its default method's signature; the registry says which
# of them are tuned and how, and what else the tools around the fitters
# need to know about it.
#
# Columns of kc_fitters:
# - method: the short name caret's kernclass_caret() and parsnip's
#   kernel_classifier() take;
# - generic: the fitter itself (the S3 generic users call);
# - default: its default method (the function whose formals are the
#   fitter's arguments);
# - label: the model's title in print(), summary() and plot(), a function of
#   the fitted model;
# - tunable: the parameters tuned by caret and parsnip, rows of kc_tunables,
#   in the order of caret's grids;
# - types: the types of predict();
# - prob_arg: the argument that must be TRUE for type = "prob" (NULL: always
#   available);
# - loo: whether the exact leave-one-out of kernel_cv() exists (a kc_loo()
#   method beside the classifier);
# - path: the shared path along which kernel_tune() shares work between grid
#   rows on a fold, a row of kc_paths named by its parameter (R/select.R:
#   "cost", kernel_svm's cost path, R/select-svm-path.R; "gamma", the kernel sums
#   of the gammas, kc_gamma_fold_fits()), NULL for none;
# - searches: the searches of kernel_tune() it takes, rows of kc_searches
#   (R/select.R): "race" and "exhaustive" every fitter, "screen" a fitter
#   whose solver stops at a `tolerance` that screening loosens;
# - default_grid: NULL (a grid must be given), or function(def, x, args):
#   the grid kernel_tune() searches when none is given, list(grid, text);
# - parsnip: the parsnip model that fits it ("kernel_classifier"), NULL for
#   the SVM, which is an engine of parsnip's own svm_* models;
# - functions: function(x), an exact model's decision functions for broom
#   (R/door-broom.R): list(alpha, a column per function and a row per
#   training row; offset);
# - tidy, glance: broom's columns of the fitter, function(x, fs) a list of
#   one value per decision function (fs: kc_functions(x)), function(x) a
#   list of one value each; NULL values are left out;
# - refit: function(fit), the arguments besides the kernel's that define a
#   fitted model (the approximation's check refits with them,
#   R/repr-approx-check.R; NULL values are left out);
# - work: function(fit, d), the exact fit's cost model in seconds per squared
#   row with d inputs (units kc_work_*, R/table-approx.R), which sizes the
#   check's subsample; svm: whether it solves an SVM (on features, a linear
#   one), which the approximations' cost models take.
kc_fitter_row <- function(method, generic, default, label, tunable,
                          types = c("class", "decision", "prob"),
                          prob_arg = NULL, loo = FALSE, path = NULL,
                          searches = kc_plain_searches, default_grid = NULL,
                          parsnip = "kernel_classifier", functions = kc_scores_functions,
                          tidy, glance = function(x) list(threshold = x$threshold), refit,
                          work = function(fit, d) kc_work_product * d / 4, svm = FALSE) {
  list(method = method, generic = generic, default = default, label = label,
       tunable = tunable, types = types, prob_arg = prob_arg, loo = loo, path = path,
       searches = searches, default_grid = default_grid, parsnip = parsnip,
       functions = functions, tidy = tidy, glance = glance, refit = refit, work = work,
       svm = svm)
}

# The decision functions of a class-score model: a column per class.
kc_scores_functions <- function(x) {
  list(alpha = kc_expansion_weights(x), offset = unname(x$offset))
}

# A column per decision function of a figure kept per pair (NA where the
# model keeps none).
kc_per_function <- function(v, f = as.numeric) if (is.null(v)) f(NA) else f(unname(v))

# The searches any fitter takes, also one outside the registry: those that
# need nothing of its solver.
kc_plain_searches <- c("race", "exhaustive")

kc_fitters <- list(
  kernel_means = kc_fitter_row(
    "means", kernel_means, kernel_means.default,
    function(object) "Kernel nearest-means classifier",
    c("gamma", "degree"), loo = TRUE, path = "gamma",
    tidy = function(x, fs) list(count = as.integer(x$counts), center_norm = unname(x$center_norms)),
    refit = function(fit) list(threshold = fit$threshold)),
  kernel_parzen = kc_fitter_row(
    "parzen", kernel_parzen, kernel_parzen.default,
    function(object) "Parzen-window Bayes classifier",
    c("gamma", "degree"), loo = TRUE, path = "gamma",
    tidy = function(x, fs) list(count = as.integer(x$counts), prior = unname(x$prior)),
    refit = function(fit) {
      list(threshold = fit$threshold, prior = if (fit$threshold == "analytic") fit$prior)
    },
    # no fit but its threshold search
    work = function(fit, d) if (identical(fit$threshold, "search")) kc_work_product * d / 4 else 0),
  kernel_bayes = kc_fitter_row(
    "bayes", kernel_bayes, kernel_bayes.default,
    function(object) sprintf("Kernelized Bayes classifier, type %d", object$type),
    c("gamma", "degree"), path = "gamma",
    functions = function(x) {
      cf <- stats::coef(x)
      list(alpha = matrix(cf$alpha, nrow = kc_nrow_fitted(x$x), dimnames = list(NULL, names(x$pairs))),
           offset = unname(cf$b))
    },
    tidy = function(x, fs) {
      platt <- kc_platt(x)
      list(sign = as.integer(vapply(x$pairs, function(pm) pm$sign, numeric(1))),
           consistency = unname(vapply(x$pairs, function(pm) pm$consistency, numeric(1))),
           prob_a = unname(platt[, "A"]), prob_b = unname(platt[, "B"]))
    },
    glance = function(x) list(type = as.integer(x$type)),
    refit = function(fit) list(type = 1L),
    work = function(fit, d) kc_work_product * d),
  kernel_svm = kc_fitter_row(
    "svm", kernel_svm, kernel_svm.default,
    function(object) {
      # an approximation's own solver: by the model's representation (R/repr.R)
      on <- kc_svm_titles[class(kc_repr(object))[1L]]
      if (inherits(object, "kernel_svm_oneclass")) "One-class support vector machine (SMO)"
      else if (!is.na(on)) unname(on)
      else if (is.null(object$nu)) "Support vector machine (SMO)"
      else "nu-support vector machine (SMO)"
    },
    c("cost", "gamma", "degree"), prob_arg = "probability", path = "cost",
    searches = c("race", "screen", "exhaustive"),
    default_grid = function(def, x, args) kc_svm_default_grid(def, x, args), parsnip = NULL,
    functions = function(x) {
      terms <- names(x$b)
      if (is.null(terms)) terms <- "decision"  # the one-class SVM's single function
      list(alpha = matrix(stats::coef(x)$alpha, nrow = kc_nrow_fitted(x$x), dimnames = list(NULL, terms)),
           offset = unname(x$b))
    },
    # cells: an offset per cell (coef()$b); `cells` how many cells fit each pair
    tidy = function(x, fs) {
      list(cells = fs$cells, at_bound = kc_per_function(x$n_at_bound, as.integer),
           objective = kc_per_function(x$objective),
           iterations = kc_per_function(x$iterations, as.integer),
           kkt_violation = kc_per_function(x$kkt_violation),
           prob_a = unname(x$probA), prob_b = unname(x$probB))
    },
    # nu-classification: one cost 1/r per pair; one-classification: none
    glance = function(x) {
      list(cost = if (length(x$cost) == 1L) x$cost else NA_real_,
           nu = if (is.null(x$nu)) NA_real_ else x$nu, n_support = length(x$index),
           iterations = sum(x$iterations), converged = x$converged,
           probability = kc_prob_asked(x))
    },
    refit = function(fit) list(cost = fit$cost, class.weights = fit$class.weights),
    work = function(fit, d) kc_work_svm * (d + 20), svm = TRUE)
)

# kernel_svm()'s print title on an approximate representation (the linear
# SVM of R/repr-approx.R, the SVMs per cell of R/repr-cells.R).
kc_svm_titles <- c(kc_features = "Support vector machine (linear, on kernel features)",
                   kc_cells = "Localized support vector machine (cells)")

# The tunable parameters: their label, whether the kernel must use them
# (its row's `label` in kc_kernels), caret's grid of `len` values and its
# random draw (g0: the median heuristic of estimate_gamma() on the data), and
# the dials parameter with the range parsnip gives it (NULL: dials' own).
kc_tunable_row <- function(label, kernel, grid, random, dials, range = NULL) {
  list(label = label, kernel = kernel, grid = grid, random = random,
       dials = dials, range = range)
}

kc_tunables <- list(
  cost = kc_tunable_row("Cost", kernel = FALSE,
                        grid = function(len, g0) 2^(seq_len(len) - 3),
                        random = function(len, g0) 2^stats::runif(len, -5, 10),
                        dials = c(pkg = "dials", fun = "cost"), range = c(-10, 5)),
  gamma = kc_tunable_row("Kernel scale (gamma)", kernel = TRUE,
                         grid = function(len, g0) g0 * 4^(seq_len(len) - (len + 1) / 2),
                         random = function(len, g0) g0 * 10^stats::runif(len, -1.5, 1.5),
                         dials = c(pkg = "kernclass", fun = "kernclass_gamma")),
  degree = kc_tunable_row("Polynomial degree", kernel = TRUE,
                          grid = function(len, g0) seq_len(min(len, 3L)),
                          random = function(len, g0) sample.int(3L, len, replace = TRUE),
                          dials = c(pkg = "dials", fun = "prod_degree"), range = c(1L, 3L))
)

# A fitter's registry row by its name, with its default method as `fun`.
kc_fitter <- function(name) {
  row <- kc_fitters[[name]]
  c(list(name = name, fun = row$default), row)
}

# The registry row of a fitter by its short name (kc_fitters' `method`
# column: "svm", "means", ...), as kc_fitter() gives it.
kc_fitter_by_method <- function(method) {
  hit <- vapply(kc_fitters, function(f) identical(f$method, method), logical(1))
  kc_fitter(names(kc_fitters)[hit][1L])
}

# The registry row of a kernclass fitter given as a function (the generic or
# its default method), with `name` and `fun` (the default method); NULL for
# other functions.
kc_fitter_default <- function(fit) {
  for (nm in names(kc_fitters)) {
    row <- kc_fitters[[nm]]
    if (identical(fit, row$generic) || identical(fit, row$default)) return(kc_fitter(nm))
  }
  NULL
}

# The registry row of a fitted model's fitter (NULL for another class).
kc_fitter_of <- function(object) {
  nm <- intersect(class(object), names(kc_fitters))
  if (length(nm)) kc_fitter(nm[1L])
}

# The fitter's tunable parameters that apply with `kernel` (a kernel name).
kc_fitter_tunable <- function(def, kernel) {
  uses <- kc_kernels[[kernel]]$label
  Filter(function(p) !kc_tunables[[p]]$kernel || p %in% uses, def$tunable)
}

# The fitters parsnip's kernel_classifier() chooses among: their names, and
# their method names.
kc_classifier_names <- function() {
  keep <- vapply(kc_fitters, function(f) identical(f$parsnip, "kernel_classifier"), logical(1))
  names(kc_fitters)[keep]
}

kc_classifier_methods <- function() {
  unname(vapply(kc_fitters[kc_classifier_names()], `[[`, character(1), "method"))
}
