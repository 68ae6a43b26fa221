# The approximation table: one row per approximation that `approx =` takes,
# beside the kernel table (R/table-kernels.R) and the fitter registry
# (R/table-fitters.R). A spec made by the constructor (nystrom(), random_fourier(),
# cells()) carries the row's name in `method`; the code reads everything
# else that differs between approximations from the row.
#
# Columns of kc_approximations:
# - constructor: the function that makes the spec;
# - size: the spec's argument that sets the approximation's size (what
#   kernel_tune() grids and caret tunes), size_label caret's label of it;
# - representation: what the classifiers run on: "features" (low-rank
#   features z(x), whose operations are in R/repr-approx.R) or "cells" (exact
#   SVMs in cells of the data, R/repr-cells.R);
# - code: the feature type of the C engine's maps (KC_FEATURES_* in
#   src/feature-map.h; test-approx-table.R pins it), NA without a map;
# - fitters: the fitters that take it (NULL: all; others: a classed error);
# - frequencies: whether the kernel needs its spectral draw (the kernel
#   table's `frequencies`): a shift-invariant kernel;
# - tolerance, max_iter: kernel_svm()'s solver defaults on this
#   representation where it has its own solver (NULL: the fitter's);
# - map: the feature map of a spec on the scaled training rows (features);
# - label: the title print() gives, a function of the spec and the rank;
# - auto: the size of `size = "auto"` (the default), `size(n)` for n training
#   rows, and its `rule` in words (kc_approx_sized());
# - work: the cost model of a fit, in seconds on the reference machine (2
#   cores, AVX-512), of n rows and d inputs (`svm`: kernel_svm()'s, else the
#   class means'), which sizes the check's subsample (R/repr-approx-check.R).
kc_approx_row <- function(constructor, size, size_label, representation, code = NA_integer_,
                          fitters = NULL, frequencies = FALSE, tolerance = NULL,
                          max_iter = NULL, map = NULL, label, auto, work) {
  list(constructor = constructor, size = size, size_label = size_label,
       representation = representation, code = code, fitters = fitters,
       frequencies = frequencies, tolerance = tolerance, max_iter = max_iter, map = map,
       label = label, auto = auto, work = work)
}

# The default sizes grow as sqrt(n) (the number of Nystrom landmarks and of
# random features that keep kernel ridge regression's statistical rate:
# Rudi et al. 2015, Rudi and Rosasco 2017) from the old fixed defaults,
# which they keep on small data, to a cap that keeps a fit of 10^6 rows
# within minutes. Measured (d = 20, gamma 1 / d, cost 1, n = 40,000, three
# rules, one run each): Nystrom m = 1000 against 300 gained 0 to 4
# points of accuracy in 3 to 5x the time, cells of 5,000 against 2,000 rows 2 to
# 3 points in 1.5 to 2x (?approximations, "Sizes chosen from the data").
# `tuned`: the size of a spec tuned per part (cells(tune = )) at every n,
# where its search's work grows with the part's rows (NULL: the rule's).
kc_approx_auto <- function(per_root, low, high, tuned = NULL) {
  list(size = function(n) as.integer(max(low, min(high, round(per_root * sqrt(n))))),
       rule = sprintf("%s sqrt(n) within %s to %s", format(per_root),
                      format(low, big.mark = ","), format(high, big.mark = ",")),
       tuned = tuned)
}

# A spec with size "auto" sized for n training rows, `chosen` saying so;
# other specs as they are.
kc_approx_sized <- function(spec, n) {
  row <- kc_approx_of(spec)
  if (!identical(spec[[row$size]], "auto")) return(spec)
  if (!is.null(spec$tune) && !is.null(row$auto$tuned)) {
    spec[[row$size]] <- row$auto$tuned
    spec$chosen <- sprintf("%s = %s for tuned %s of any n (%s = \"auto\")", row$size,
                           format(row$auto$tuned, big.mark = ","), row$constructor, row$size)
    return(spec)
  }
  spec[[row$size]] <- row$auto$size(n)
  spec$chosen <- sprintf("%s = %s chosen from n = %s rows: %s", row$size,
                         format(spec[[row$size]], big.mark = ","), format(n, big.mark = ","),
                         row$auto$rule)
  spec
}

# The spec as the user gave it (a size chosen by "auto" back to "auto"),
# for refits of other rows.
kc_approx_as_given <- function(spec) {
  if (is.null(spec$chosen)) return(spec)
  spec[[kc_approx_of(spec)$size]] <- "auto"
  spec$chosen <- NULL
  spec
}

# The units of the cost models: seconds per kernel value and input of the
# exact SVM's solver (cost 1) and of the engine's products (features, class
# sums), measured at n = 5,000 to 40,000, d = 20 on three rules (the SVM's
# varies 2x with the data, and grows as n^1.6 to n^2.3; the linear SVM on
# features makes some 1,000 products per row and feature, 500 on Fourier's).
kc_work_svm <- 3e-10
kc_work_product <- 1.2e-10

# The shown size of a feature map: m, and the rank where eigenvalues were
# dropped.
kc_approx_size_text <- function(spec, rank) {
  if (!is.null(rank) && is.numeric(spec$m) && rank < spec$m) {
    sprintf("m = %d, rank %d", spec$m, rank)
  } else sprintf("m = %s", format(spec$m))
}

kc_approximations <- list(
  nystrom = kc_approx_row(
    "nystrom", "m", "Features (m)", "features", code = 1L, tolerance = 0.1, max_iter = 1000,
    map = function(spec, x, k) kc_nystrom_map(spec, x, k),
    label = function(spec, rank = NULL) {
      sprintf("Nystrom features (%s, %s landmarks)", kc_approx_size_text(spec, rank),
              spec$landmarks)
    },
    auto = kc_approx_auto(4, 300, 2000),
    # the landmarks' k-means++ (at most 10,000 rows), the features (n m d
    # kernel values, n m^2 / 2 of the projection), the linear SVM's passes
    work = function(spec, n, d, svm) {
      m <- min(spec$m, n)
      kc_work_product * (min(n, 20 * m, 10000) * m * d + n * m * (d + m / 2 + if (svm) 1000 else 200))
    }),
  fourier = kc_approx_row(
    "random_fourier", "m", "Features (m)", "features", code = 2L, frequencies = TRUE,
    tolerance = 0.1, max_iter = 1000,
    map = function(spec, x, k) kc_fourier_map(spec, x, k),
    label = function(spec, rank = NULL) {
      sprintf("Random Fourier features (%s)", kc_approx_size_text(spec, rank))
    },
    auto = kc_approx_auto(8, 1000, 4000),
    work = function(spec, n, d, svm) kc_work_product * n * spec$m * (d + if (svm) 500 else 20)),
  cells = kc_approx_row(
    "cells", "size", "Rows per cell (size)", "cells", fitters = "kernel_svm",
    label = function(spec, rank = NULL) {
      sprintf("Localized SVM (cells of %s, an exact SVM in each%s)",
              if (identical(spec$size, "auto")) "a size chosen from the rows" else
                sprintf("about %d points", spec$size),
              paste0(if (is.null(spec$tune)) "" else ", cost and gamma tuned per cell",
                     if (identical(spec$blend, "auto")) {
                       if (!is.null(spec$tune)) ", nearest cells blended as validation chooses"
                     } else if (isTRUE(spec$blend > 1L)) sprintf(", %d nearest blended", spec$blend)))
    },
    # tuned cells: 2,000 rows at every n (at 10^5 rows of make_data(), a
    # 10 x 10 grid and 5 folds, cells of 5,000 took 1.9 times the CPU of
    # cells of 2,000 for test accuracy 0.8317 against 0.8308)
    auto = kc_approx_auto(10, 2000, 5000, tuned = 2000L),
    # the k-means centres, then an exact SVM of `size` rows per cell (at
    # twice the exact SVM's cost: the scaled cost n / n_c makes more passes)
    work = function(spec, n, d, svm) {
      kc_work_product * min(n, max(10000, 50 * n / spec$size)) * (n / spec$size) * d * 20 +
        2 * kc_work_svm * n * min(spec$size, n) * (d + 20)
    })
)

# The table's row of a spec (NULL for anything that is not one).
kc_approx_of <- function(spec) {
  if (!inherits(spec, "kernclass_approximation")) return(NULL)
  kc_approximations[[spec$method]]
}

kc_approx_label <- function(spec, rank = NULL) kc_approx_of(spec)$label(spec, rank)

# The spec as its constructor call, with the size: "nystrom(m = 100)" (grid
# labels, plots of a tuning over `approx`).
#' @export
format.kernclass_approximation <- function(x, ...) {
  row <- kc_approx_of(x)
  sprintf("%s(%s = %s)", row$constructor, row$size, format(x[[row$size]]))
}

# An error unless `fitter` (a registry name) takes the approximation `spec`.
kc_approx_require <- function(spec, fitter) {
  takes <- function(r) is.null(r$fitters) || fitter %in% r$fitters
  row <- kc_approx_of(spec)
  if (takes(row)) return(invisible(row))
  others <- names(Filter(takes, kc_approximations))
  kc_abort(sprintf("`approx`: %s() is for %s; %s() takes approx = %s.", row$constructor,
                   paste0(row$fitters, "()", collapse = ", "), fitter,
                   paste0(vapply(kc_approximations[others], `[[`, "", "constructor"), "(...)",
                          collapse = " or ")),
           arg = "approx", class = "approx_unsupported")
}
