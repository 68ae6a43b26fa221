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
# - label: the title print() gives, a function of the spec and the rank.
kc_approx_row <- function(constructor, size, size_label, representation, code = NA_integer_,
                          fitters = NULL, frequencies = FALSE, tolerance = NULL,
                          max_iter = NULL, map = NULL, label) {
  list(constructor = constructor, size = size, size_label = size_label,
       representation = representation, code = code, fitters = fitters,
       frequencies = frequencies, tolerance = tolerance, max_iter = max_iter, map = map,
       label = label)
}

# The shown size of a feature map: m, and the rank where eigenvalues were
# dropped.
kc_approx_size_text <- function(spec, rank) {
  if (!is.null(rank) && rank < spec$m) sprintf("m = %d, rank %d", spec$m, rank) else
    sprintf("m = %d", spec$m)
}

kc_approximations <- list(
  nystrom = kc_approx_row(
    "nystrom", "m", "Features (m)", "features", code = 1L, tolerance = 0.1, max_iter = 1000,
    map = function(spec, x, k) kc_nystrom_map(spec, x, k),
    label = function(spec, rank = NULL) {
      sprintf("Nystrom features (%s, %s landmarks)", kc_approx_size_text(spec, rank),
              spec$landmarks)
    }),
  fourier = kc_approx_row(
    "random_fourier", "m", "Features (m)", "features", code = 2L, frequencies = TRUE,
    tolerance = 0.1, max_iter = 1000,
    map = function(spec, x, k) kc_fourier_map(spec, x, k),
    label = function(spec, rank = NULL) {
      sprintf("Random Fourier features (%s)", kc_approx_size_text(spec, rank))
    }),
  cells = kc_approx_row(
    "cells", "size", "Rows per cell (size)", "cells", fitters = "kernel_svm",
    label = function(spec, rank = NULL) {
      sprintf("Localized SVM (cells of about %d points, an exact SVM in each%s)", spec$size,
              paste0(if (is.null(spec$tune)) "" else ", cost and gamma tuned per cell",
                     if (identical(spec$blend, "auto")) {
                       if (!is.null(spec$tune)) ", nearest cells blended as validation chooses"
                     } else if (isTRUE(spec$blend > 1L)) sprintf(", %d nearest blended", spec$blend)))
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
