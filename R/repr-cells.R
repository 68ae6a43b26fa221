#' @rdname approximations
#' @section Tuned cells (cells(tune = TRUE)): With `tune = TRUE` (or a
#'   `grid`), each cell chooses its own `cost` and `gamma` by
#'   cross-validation on its rows, as liquidSVM does (Steinwart et al.
#'   2017): the cell's search is [kernel_tune()]'s (`folds` stratified folds
#'   of the cell's rows, `search`, the accuracy), with its shared work (one
#'   kernel per `gamma` on all folds, warm starts along `cost`, the race's
#'   dropped rows), and the cell's SVM is then fitted on all its rows with
#'   the chosen values. The grid's costs are the cells' own: `scale_cost`
#'   does not change them (nor the default grid, whose costs run from
#'   \eqn{50 / n_c}{50 / n_c} to 500 and whose gammas are \eqn{2^{-6}}{2^-6}
#'   to \eqn{2^3}{2^3} times the median heuristic on the cell's rows). A
#'   grid column may not also be given to [kernel_svm()]; a parameter the
#'   grid does not vary is the model's (`cost` scaled as above). A cell with
#'   a class of a single row, which no fold can hold out and learn from too,
#'   keeps the model's `cost` and `gamma` (`folds_run` 0). The cells run as
#'   units of work through [future::plan()], each with its own random-number
#'   stream for its folds, so `set.seed()` reproduces every cell's choice
#'   under any plan and number of threads (`fit$approx$models[[j]]$tuning`
#'   keeps cell j's folds and the `seed` its search started from: with
#'   `.Random.seed` set to it, `kernel_tune(kernel_svm, rows, grid = , folds
#'   = , scale = FALSE, max_iter = )` on the cell's scaled rows, `max_iter`
#'   its `search_max_iter`, repeats its search; see "Capped search fits").
#'   `print()` lists what the first cells chose and `summary()` every cell:
#'   its rows, `cost`, `gamma`, the cross-validated accuracy of the choice
#'   (a screening estimate unless `search = "exhaustive"`, as in
#'   [kernel_tune()]), the folds the choice ran (`folds_run`), the fits the
#'   search ran in all (`fits`, of `grid_rows` x `folds`, `folds` the
#'   cell's: as many as its rows in a cell of fewer rows than `folds`) and
#'   `edge`: where the choice is the grid's smallest or largest value of a
#'   parameter it varies (`""`: neither). The range of the choices and the
#'   median accuracy are over the cells that searched; a cell without a
#'   search shows no accuracy and "no search". Where at least a fifth of the
#'   searched cells chose the same edge, both say so: the best values may
#'   lie beyond the grid, and a wider `grid` may fit better.
#'   The model's `cost` and `gamma` stay those given to [kernel_svm()]:
#'   those of a cell that cannot be tuned, and of the exact model that
#'   `check` compares with.
#' @section Blended cells: With `blend` = \eqn{K > 1}{K > 1}, a row's
#'   decision values are the weighted mean of those of the cells of its
#'   \eqn{K}{K} nearest centres (each cell's SVM evaluated at the row; a cell
#'   of one class gives +1/-1 as above), and its probabilities the weighted
#'   mean of those cells' probabilities; its class is voted from these (or
#'   taken from the probabilities, as [predict.kernclass()]'s `rule` says).
#'   The weight of a cell is \eqn{\exp(-\Delta / 4g)}{exp(-Delta / (4 g))},
#'   \eqn{\Delta}{Delta} the row's squared distance to the cell's centre less
#'   that to the nearest centre and \eqn{g}{g} the median of that difference
#'   for the second nearest centre over the training rows (`fit$approx$gap`).
#'   A cell's SVM learns from its own \eqn{n_c}{n_c} rows however large the
#'   data; where the cells choose smooth rules that hold across cells (as
#'   near-linear ones), the mean of neighbouring cells' rules lowers their
#'   variance. Where the cells' rules are local (large `gamma`), a
#'   neighbour's rule does not hold at the row and blending loses. Measured:
#'   `make_data()` of `inst/benchmarks/run.R` (a linear rule plus
#'   \eqn{0.5 \sin(3 x_1)}{0.5 sin(3 x_1)}, label noise), \eqn{n = 10^5}{n =
#'   10^5}, \eqn{d = 20}{d = 20}, 50 tuned cells of 2,000 rows (5 x 5 grid),
#'   100,000 test rows: accuracy 0.8282 from each row's own cell, 0.8308 from
#'   the 5 nearest, 0.8314 from the 10 nearest (a tuned exact SVM on 20,000
#'   of the rows: 0.8309); at \eqn{n = 10^6}{n = 10^6} (500 cells): 0.8286,
#'   0.8319 and 0.8320; three classes in 3 dimensions, 3,000 rows, 10
#'   tuned cells of 300: 0.918 from the own cell, 0.869 from the 5 nearest.
#'   Prediction evaluates \eqn{K}{K} cells' SVMs per row; the fit is the same.
#' @section Choosing K (blend = "auto", the default): Tuned cells choose
#'   \eqn{K}{K} among 1, 3, 5 and 10 (at most the cells) by the accuracy of
#'   the blended predictions (the vote of the weighted decision values) on
#'   training rows that no model scoring them learnt from: a row's own cell
#'   gives the decision value of its cross-validation fold's SVM (the cell's
#'   search's folds, at the cost and gamma the cell chose, fitted without
#'   the fold's rows), the other cells, which never saw it, their own. The
#'   rows are up to 20,000 drawn at random (`set.seed()` reproduces them)
#'   from the cells' first folds, as many as 20,000 rows need (every row up
#'   to 20,000 rows, one fold from 20,000 x `folds` rows on); ties go to the
#'   smaller \eqn{K}{K}. The cost: each cell refits its SVM once per fold
#'   used, after all the cells are fitted (so that the cells and their
#'   choices are those of `blend = 1` with the same seed); where the first
#'   folds of all cells hold more than 20,000 rows, only the first folds of
#'   as many cells, taken in random order, as hold them refit, once each
#'   (50 cells of 2,000 rows at 5 folds); then the 20,000 rows are scored
#'   by up to 10 cells. Measured at \eqn{n = 10^5}{n = 10^5}, \eqn{d =
#'   20}{d = 20}, 50 cells of 2,000 rows, 10 x 10 grid: the choice took 5.7
#'   s of the fit's 54.8 s (4.4 s the 50 refits) on 2 busy cores; at
#'   \eqn{10^6}{10^6} rows it refits as many cells. Two small biases
#'   remain, in opposite directions: the own cell's value comes from a model
#'   of fewer rows than the cell's (against \eqn{K = 1}{K = 1}), and at the
#'   cost and gamma whose choice saw the row's fold (for it; measured at
#'   \eqn{n = 10^5}{n = 10^5}: out-of-fold accuracies 0.8336 for
#'   \eqn{K = 1}{K = 1} and 0.8349 for 10, test accuracies 0.8283 and
#'   0.8307). Untuned cells have no cross-validation to
#'   take values from, and holding rows out of their fit would cost what it
#'   measures: they blend the 5 nearest cells from 20,000 training rows on
#'   (measured in "Sizes chosen from the data"), else predict from each
#'   row's own cell. `print()` and `summary()` give the choice and the
#'   candidates' accuracies, `fit$approx$blend` holds them (`K`,
#'   `candidates`, the `rows` scored, the `cells` and `fits` refitted).
#' @param size The number of training rows a cell should hold on average,
#'   or `"auto"` (the default, see "Sizes chosen from the data"; tuned
#'   cells: 2,000, see "Capped search fits"):
#'   the data are cut into \eqn{\lceil n / \mathrm{size} \rceil}{ceiling(n /
#'   size)} cells. Each cell's exact SVM costs about \eqn{O(\mathrm{size}^2)}{O(size^2)}
#'   kernel values, so the whole fit grows as \eqn{n \cdot \mathrm{size}}{n size}; larger
#'   cells are closer to the exact model. A size of at least the number of
#'   rows is one cell, the exact model; a size past R's integer range is
#'   taken as \eqn{2^{31} - 1}{2^31 - 1}.
#' @examples
#' # cost and gamma chosen in each cell by 3-fold cross-validation
#' set.seed(1)
#' fit4 <- kernel_svm(Species ~ ., data = iris, approx = cells(size = 75, folds = 3,
#'                    grid = list(cost = c(1, 10), gamma = c(0.1, 1))))
#' summary(fit4)$tuning
#' @export
#' @param scale_cost For `cells()`: if `TRUE` (default), the SVM of a cell
#'   of \eqn{n_c} rows takes cost \eqn{C n / n_c}{C n / n_c}, which keeps the
#'   exact model's regularisation per row (see below); if `FALSE`, `cost` as
#'   it is. Not used for a cost that the cells tune (`tune`). Which is better
#'   depends on the data: at cost 1, the scaled cost was as good or better
#'   on kernlab's spam, mlbench's Shuttle and ggplot2's diamonds (0.7777
#'   against 0.7165), the cost as it is on noisy synthetic rows (d = 20,
#'   \eqn{10^5}{10^5} rows, label noise: 0.8208 against 0.7695); tuned cells
#'   choose their cost themselves.
#' @param tune For `cells()`: `TRUE` chooses `cost` and `gamma` in each cell
#'   by cross-validation on the cell's rows, as [kernel_tune()] does (see
#'   "Tuned cells"); the default is `TRUE` when `grid` is given, else `FALSE`
#'   (every cell at the model's `cost` and `gamma`).
#' @param grid For `cells(tune = TRUE)`: the values each cell tries, a named
#'   list of positive numbers `cost` and/or `gamma` (all combinations) or a
#'   data frame with those columns, as [kernel_tune()]'s `grid`; `NULL` (the
#'   default): [kernel_tune()]'s default grid made from each cell's rows.
#' @param folds For `cells(tune = TRUE)`: the number of cross-validation
#'   folds within each cell (default 5; fewer in a cell with fewer rows).
#' @param search For `cells(tune = TRUE)`: [kernel_tune()]'s `search` in each
#'   cell, `"race"` (the default), `"screen"` or `"exhaustive"`.
#' @param search_iter For `cells(tune = TRUE)`: the search's fits (not the
#'   cell's final fit, which runs to convergence or `max_iter`) stop after
#'   `search_iter` SMO iterations per row of the cell (at most `max_iter`),
#'   and a fit that stops there is scored as it stands; `Inf`: every fit runs
#'   to convergence (see "Capped search fits").
#' @param blend For `cells()`: the number of nearest cells whose decision
#'   values (and probabilities) a prediction averages, weighted (see "Blended
#'   cells"), at most the number of cells; 1 predicts from each row's own
#'   cell; `"auto"` (the default) chooses it by validation in tuned cells and
#'   5 in untuned ones from 20,000 training rows on, else 1 (see "Choosing K").
cells <- function(size = "auto", scale_cost = TRUE, check = 0, tune = !is.null(grid), grid = NULL,
                  folds = 5, search = c("race", "screen", "exhaustive"),
                  blend = "auto", search_iter = 1) {
  # a size at or past the rows is one cell: so is a size past R's integer range
  size <- kc_as_size(size, "size", clamp = TRUE)
  kc_check_flag(scale_cost, "scale_cost")
  kc_check_flag(tune, "tune")
  search <- kc_match_arg(search, arg = "search")
  if (!identical(blend, "auto")) {
    if (is.character(blend)) kc_abort('`blend` must be "auto" or a number of cells >= 1.', arg = "blend")
    blend <- kc_as_count(blend, "blend", lower = 1, clamp = TRUE)
  }
  if (!tune && !is.null(grid)) {
    kc_abort("`grid` is for tuned cells: give tune = TRUE (or leave `tune` out) with a `grid`.",
             arg = "grid")
  }
  structure(list(method = "cells", size = size, scale_cost = scale_cost,
                 check = kc_as_check(check), blend = blend,
                 tune = if (tune) kc_cells_tune_spec(grid, folds, search, search_iter)),
            class = "kernclass_approximation")
}

# ---- the partition -----------------------------------------------------------

# Each row's k nearest centres (Euclidean), nearest first, ties to the
# first: an n x k integer matrix (k = 1 too) with attribute "gap" (n x k),
# the squared distance to each less that to the nearest, 2 (v_1 - v_r) of
# the largest values v = x'c - |c|^2 / 2, x and c moved by the centres'
# mean (so that the inner products keep the differences), in row blocks of
# at most 2^20 values.
kc_nearest_centre <- function(x, centres, k = 1L) {
  n <- nrow(x)
  out <- matrix(0L, n, k)
  gap <- matrix(0, n, k)
  if (n > 0L) {
    mu <- colMeans(centres)
    cc <- sweep(centres, 2L, mu)
    half <- rowSums(cc^2) / 2
    block <- max(1L, floor(2^20 / nrow(cc)))
    for (start in seq(1L, n, by = block)) {
      i <- start:min(n, start + block - 1L)
      g <- kc_gram(sweep(x[i, , drop = FALSE], 2L, mu), cc, kc_plain_kernel())
      g <- g - rep(half, each = length(i))
      for (r in seq_len(k)) {
        out[i, r] <- max.col(g, ties.method = "first")
        at <- cbind(seq_along(i), out[i, r])
        gap[i, r] <- if (r == 1L) g[at] else 2 * (gap[i, 1L] - g[at])
        g[at] <- -Inf
      }
      gap[i, 1L] <- 0
    }
  }
  attr(out, "gap") <- gap
  out
}

# k cell centres: Lloyd's k-means, started from k-means++ seeds, on a
# uniform subsample of max(10000, 50 k) rows; a centre that loses all its
# rows stays where it was.
kc_cell_centres <- function(x, k, iter = 20L) {
  n <- nrow(x)
  s <- min(n, max(10000L, 50L * k))
  sub <- if (s < n) sample.int(n, s) else seq_len(n)
  xs <- x[sub, , drop = FALSE]
  centres <- xs[kc_kmeanspp(xs, kc_plain_kernel(), k), , drop = FALSE]
  a <- NULL
  for (it in seq_len(iter)) {
    a_new <- kc_nearest_centre(xs, centres)[, 1L]
    if (identical(a_new, a)) break
    a <- a_new
    sums <- rowsum(xs, a, reorder = TRUE)
    g <- as.integer(rownames(sums))
    centres[g, ] <- sums / tabulate(a, k)[g]
  }
  rownames(centres) <- NULL
  centres
}

# ---- the fit: kernel_svm()'s flow (kc_repr_svm(), R/fit-svm-solve.R) ----------

# C-classification only; the cells' search (tune) and what the call left
# out of it, checked before anything is computed; a `cachesize` the call
# did not give is each cell's own default.
#' @export
kc_repr_svm_control.kc_cells <- function(repr, spec, control, given) {
  if (control$type != "C-classification") {
    kc_abort(sprintf(paste0("`approx`: cells() supports type = \"C-classification\" only; ",
                            "type = \"%s\" needs the whole data (approx = NULL)."), control$type),
             arg = "approx", class = "approx_unsupported")
  }
  control$tune <- if (!is.null(spec$tune)) kc_cells_tune_problem(spec$tune, given)
  control$tuned_not_given <- setdiff(control$tune$free, given)
  if (!("cachesize" %in% given)) control$cachesize <- NULL
  control
}

#' @export
kc_repr_prepare.kc_cells <- function(repr, spec, d, k, uses) {
  repr[c("x", "y", "kernel", "spec")] <- list(d$x, d$y, k, spec)
  repr
}

# The binary solves: the partition (k-means cells of the rows of weight > 0,
# each row's nearest centre), then in each cell kernel_svm()'s exact fit
# (kc_fit_cell(): kc_fit_svm() on the cell's rows, observation weights as given,
# cost scaled by n / n_c unless scale_cost = FALSE), and blend = "auto"'s
# choice; list(models, centres, cell, gap, blend, spec: its size resolved).
#' @export
kc_repr_svm_solve.kc_cells <- function(r, problems, pairs, C, control) {
  n <- nrow(r$x)
  spec <- r$spec
  k <- r$kernel
  used <- unname(C > 0)
  spec <- kc_approx_sized(spec, n)
  ncell <- ceiling(n / spec$size)
  centres <- if (ncell == 1L) matrix(colMeans(r$x), 1L) else kc_cell_centres(r$x, ncell)
  # each row's nearest centre and (blending's scale, kc_cells_weights()) how
  # much farther the second nearest is
  nearest <- function(centres) kc_nearest_centre(r$x, centres, min(2L, nrow(centres)))
  near <- nearest(centres)
  # a cell without rows of weight > 0 has nothing to learn: its centre goes
  keep <- sort(unique(near[used, 1L]))
  if (length(keep) < nrow(centres)) {
    centres <- centres[keep, , drop = FALSE]
    near <- nearest(centres)
  }
  cell <- near[, 1L]
  gap <- if (nrow(centres) > 1L) stats::median(attr(near, "gap")[used, 2L]) else 0
  tune <- control$tune
  cw <- if (!is.null(control$class.weights)) kc_class_weights(control$class.weights, r$y)
  cost <- control$cost
  args <- list(kernel = k$name, gamma = k$gamma, degree = k$degree, coef0 = k$coef0,
               cost = cost, tolerance = control$tolerance, max_iter = control$max_iter,
               cachesize = control$cachesize, shrinking = control$shrinking,
               probability = control$probability)
  cells <- lapply(seq_len(nrow(centres)), function(j) {
    rows <- which(cell == j & used)
    y <- droplevels(r$y[rows])
    args$cost <- if (isFALSE(spec$scale_cost)) cost else cost * sum(used) / length(rows)
    list(x = r$x[rows, , drop = FALSE], y = y, rows = rows,
         weights = if (!is.null(control$weights)) control$weights[rows], tune = tune,
         args = c(args, list(class.weights = if (!is.null(cw)) cw[levels(y)])))
  })
  # the cells' folds (tune) and probability models draw random numbers:
  # from streams of their own (as kernel_cv's folds), so that the plan does
  # not change them; a progress step per cell, signalled from the future
  # that fits it
  p <- kc_progressor(n, length(cells))
  fit_cell <- kc_with_progress(if (is.null(tune)) kc_fit_cell else kc_fit_cell_tuned, p, "cell")
  models <- if (length(cells) == 1L) list(fit_cell(cells[[1L]])) else
    if (control$probability || !is.null(tune)) kc_future_lapply(cells, fit_cell, seed = TRUE) else
    kc_problems_lapply(cells, fit_cell)
  for (j in seq_along(models)) {
    e <- models[[j]]
    if (inherits(e, "condition")) {
      if (length(models) > 1L) {
        e$message <- sprintf("Cell %d of %d (%d rows): %s", j, length(models),
                             length(cells[[j]]$rows), conditionMessage(e))
      }
      stop(e)
    }
  }
  # blend = "auto": K chosen by validation in tuned cells (R/repr-cells-tune.R)
  blend <- if (identical(spec$blend, "auto") && nrow(centres) > 1L) {
    if (is.null(tune)) kc_cells_untuned_blend(n) else
      kc_cells_choose_blend(r, centres, cell, cells, models, gap)
  }
  list(models = models, centres = centres, cell = cell, gap = gap, blend = blend, spec = spec)
}

# The model's fields: the cells' support vectors, the solver's iterations
# per class pair of the whole model summed over the cells that fit the
# pair, and the cells in `approx`; one warning for the cells that stopped at
# max_iter (each cell's own is muffled).
#' @export
kc_repr_svm_model.kc_cells <- function(r, fits, pairs, control) {
  models <- fits$models
  converged <- vapply(models, function(m) is.null(m$converged) || m$converged, logical(1))
  if (!all(converged)) {
    kc_svm_warn_max_iter(control$max_iter, NULL,
                         cells = list(bad = which(!converged), of = length(models)))
  }
  iterations <- stats::setNames(numeric(nrow(pairs)), rownames(pairs))
  for (m in models) {
    if (!inherits(m, "kernel_svm")) next
    cols <- kc_cell_pairs(m, levels(r$y))
    iterations[cols] <- iterations[cols] + m$iterations
  }
  list(index = sort(as.integer(unlist(lapply(models, `[[`, "index")))),
       iterations = iterations, converged = all(converged), cost = control$cost,
       probability = control$probability,
       approx = list(spec = fits$spec, centres = fits$centres, cell = fits$cell, models = models,
                     gap = fits$gap, blend = fits$blend,
                     tuned_not_given = control$tuned_not_given))
}

# Cells' probabilities are their SVMs' own (kc_repr_posterior.kc_cells()).
#' @export
kc_repr_svm_platt.kc_cells <- function(r, fits, pairs, C, control) NULL

# One cell's model: the exact SVM on its rows (stripped of what the whole
# model holds: its data, and index as rows of the whole training data), or
# its one class; an error as a value, for the caller to name the cell.
kc_fit_cell <- function(p) {
  lv <- levels(p$y)
  if (length(lv) == 1L) return(list(levels = lv, counts = stats::setNames(length(p$rows), lv)))
  tryCatch(withCallingHandlers({
    m <- do.call(kc_fit_svm, c(list(d = list(x = p$x, y = p$y), weights = p$weights,
                                    scale = FALSE, type = "C-classification", nu = 0.5,
                                    approx = NULL, call = NULL), p$args))
    m$index <- p$rows[m$index]
    m[c("x", "y", "C", "eta", "call")] <- NULL
    m
  }, kernclass_convergence_warning = function(w) invokeRestart("muffleWarning")),
  error = function(e) e)
}

# ---- prediction ----------------------------------------------------------------

# Each row's decision values in the whole model's pairs, the weighted mean
# over its `blend` nearest cells (kc_cells_blend()) of each cell's values
# (kc_cells_values()); column ".cell" is the row's own (nearest) cell;
# with probabilities, unless the caller needs none (`prob`), columns
# ".p:<class>" the weighted mean of those cells' probabilities.
#' @export
kc_repr_scores.kc_cells <- function(repr, object, x, prob = TRUE) {
  lv <- object$levels
  K <- kc_cells_blend(object)
  near <- kc_nearest_centre(x, object$approx$centres, K)
  w <- kc_cells_weights(attr(near, "gap"), object$approx$gap)
  prob <- isTRUE(object$probability) && prob
  v <- kc_cells_values(object$approx$models, x, near, lv, prob)
  s <- cbind(kc_cells_sum(v$dec, w), near[, 1L], if (prob) kc_cells_sum(v$prob, w))
  dimnames(s) <- list(rownames(x), c(rownames(kc_ovo_pairs(lv)), ".cell",
                                     if (prob) paste0(".p:", lv)))
  s
}

# The values of each place of `near` (an n x K matrix of cells): row i of x
# in cell near[i, r], as row (r - 1) n + i of `dec` (decision values in the
# whole model's pairs, kc_cell_values()) and of `prob` (the cell's class
# probabilities, 0 for the classes it lacks; with prob = TRUE). Each cell's
# SVM scores all its places at once, the cells as independent problems:
# futures under a plan with workers (each carries its cell's model and rows
# only). Places in `skip` are left at 0.
kc_cells_values <- function(models, x, near, lv, prob, skip = NULL) {
  n <- nrow(x)
  places <- if (is.null(skip)) seq_along(near) else which(!skip)
  at <- split(places, factor(near[places], seq_along(models)))
  at <- at[lengths(at) > 0L]
  cells <- as.integer(names(at))
  dec <- matrix(0, length(near), nrow(kc_ovo_pairs(lv)))
  out <- if (prob) matrix(0, length(near), length(lv))
  svm <- vapply(models[cells], inherits, logical(1), "kernel_svm")
  tasks <- lapply(which(svm), function(t) {
    list(model = models[[cells[t]]], x = x[(at[[t]] - 1L) %% n + 1L, , drop = FALSE])
  })
  values <- vector("list", length(at))
  values[svm] <- kc_problems_lapply(tasks, kc_cell_scores)
  for (t in seq_along(at)) {
    m <- models[[cells[t]]]
    dec[at[[t]], ] <- kc_cell_values(m, values[[t]], lv, length(at[[t]]))
    if (prob) {
      out[at[[t]], match(m$levels, lv)] <- if (svm[t]) kc_posterior(m, values[[t]]) else 1
    }
  }
  list(dec = dec, prob = out)
}

# A cell's decision values in the whole model's pairs, for `n` rows whose
# scores by the cell's SVM are `values` (NULL for a cell of one class): +1
# (-1) where the cell has only the first (second) class of a pair, 0 where
# it has neither, its SVM's value where it has both. Votes of these give
# the class the cell votes for (every class of the cell beats every class
# it lacks).
kc_cell_values <- function(m, values, lv, n) {
  pairs <- kc_ovo_pairs(lv)
  present <- seq_along(lv) %in% match(m$levels, lv)
  out <- matrix(present[pairs[, "first"]] - present[pairs[, "second"]], n, nrow(pairs),
                byrow = TRUE)
  if (!is.null(values)) out[, kc_cell_pairs(m, lv)] <- values
  out
}

# The weighted sum over the first ncol(w) places of each row of a
# kc_cells_values() matrix v (rows (r - 1) n + i, n = nrow(w)).
kc_cells_sum <- function(v, w) {
  n <- nrow(w)
  out <- 0
  for (r in seq_len(ncol(w))) out <- out + w[, r] * v[(r - 1L) * n + seq_len(n), , drop = FALSE]
  out
}

# The whole model's class-pair columns of the cells' scores.
kc_cells_pair_scores <- function(object, scores) {
  scores[, seq_len(nrow(kc_ovo_pairs(object$levels))), drop = FALSE]
}

kc_cell_scores <- function(task) kc_scores(task$model, task$x)

# The columns of the whole model's pairs that a cell's model scores.
kc_cell_pairs <- function(m, levels) {
  all <- kc_ovo_pairs(levels)
  own <- kc_ovo_pairs(m$levels)
  g <- match(m$levels, levels)
  match(paste(g[own[, "first"]], g[own[, "second"]]), paste(all[, "first"], all[, "second"]))
}

#' @export
kc_repr_decision.kc_cells <- function(repr, object, scores) {
  kc_model_decision.kernclass_ovo(object, kc_cells_pair_scores(object, scores))
}

#' @export
kc_repr_classify.kc_cells <- function(repr, object, scores) {
  kc_ovo_vote(kc_cells_pair_scores(object, scores), object$levels)
}

# Each row's class probabilities: the mean over its blended cells (the
# scores' ".p:" columns) of each cell's, those of the cell's model for the
# classes it has, 0 for the classes it lacks (1 for a cell's only class).
#' @export
kc_repr_posterior.kc_cells <- function(repr, object, scores) {
  if (!isTRUE(object$probability)) {
    kc_abort("type = \"prob\" needs a model fitted with `probability = TRUE`.", arg = "type",
             class = "prob_unavailable")
  }
  lv <- object$levels
  p <- scores[, paste0(".p:", lv), drop = FALSE]
  dimnames(p) <- list(rownames(scores), lv)
  p
}

# The expansion of each row's own cell: alpha (a row per training row, a
# column per class pair; a vector for two classes) holds y_i eta_i of the
# row in its cell's SVM, b the offsets (a row per cell, NA where the cell
# lacks a class of the pair), cell each training row's cell.
#' @export
kc_repr_coef.kc_cells <- function(repr, object) {
  lv <- object$levels
  pairs <- kc_ovo_pairs(lv)
  models <- object$approx$models
  alpha <- matrix(0, kc_nrow_fitted(object$x), nrow(pairs), dimnames = list(NULL, rownames(pairs)))
  b <- matrix(NA_real_, length(models), nrow(pairs), dimnames = list(NULL, rownames(pairs)))
  for (j in seq_along(models)) {
    m <- models[[j]]
    if (!inherits(m, "kernel_svm")) next
    cols <- kc_cell_pairs(m, lv)
    alpha[m$index, cols] <- m$coefs
    b[j, cols] <- m$b
  }
  if (nrow(pairs) == 1L) {
    return(list(alpha = alpha[, 1L], b = b[, 1L], cell = object$approx$cell))
  }
  list(alpha = alpha, b = b, cell = object$approx$cell)
}

# ---- print and summary ----------------------------------------------------------

# Per cell: its training rows (weight > 0), classes, support vectors.
kc_cells_table <- function(fit) {
  models <- fit$approx$models
  data.frame(
    rows = vapply(models, function(m) sum(m$counts), numeric(1)),
    classes = vapply(models, function(m) length(m$levels), integer(1)),
    cost = vapply(models, function(m) if (is.null(m$cost)) NA_real_ else m$cost, numeric(1)),
    gamma = vapply(models, function(m) {
      g <- m$kernel$gamma
      if (is.numeric(g) && length(g) == 1L) g else NA_real_
    }, numeric(1)),
    support_vectors = vapply(models, function(m) length(m$index), integer(1)),
    converged = vapply(models, function(m) is.null(m$converged) || m$converged, logical(1)))
}

kc_cells_lines <- function(fit) {
  a <- fit$approx
  t <- kc_cells_table(fit)
  cat(sprintf("Approximation: localized: %d cell%s of about %d points (k-means%s)\n", nrow(t),
              if (nrow(t) == 1L) "" else "s", a$spec$size, kc_approx_chosen_text(a$spec)))
  cat(sprintf("  an exact SVM in each cell, %s; rows per cell %s to %s, median %s%s\n",
              if (!is.null(a$spec$tune)) "tuned" else
                if (isFALSE(a$spec$scale_cost)) "at `cost`" else
                "at cost x n / rows of the cell (the regularisation per row of the exact model)",
              format(min(t$rows)), format(max(t$rows)), format(stats::median(t$rows)),
              if (any(t$classes == 1L)) sprintf("; %d cell(s) with one class, which predict it",
                                                sum(t$classes == 1L)) else ""))
  cat(sprintf("  predictions: %s\n", kc_cells_blend_text(fit)))
  if (!is.null(a$spec$tune)) kc_cells_tune_lines(a$spec, kc_cells_tune_table(a$models), 10L)
  kc_approx_check_lines(a)
}

#' @export
kc_repr_print.kc_cells <- function(repr, x) {
  kc_print_exact.kernclass(x)
  if (is.null(x$approx$spec$tune)) kc_svm_print_tradeoff(x) else
    cat("Cost and gamma: chosen in each cell (below)\n")
  cat("Support vectors: ", length(x$index), " in all cells\n", sep = "")
  if (!x$converged) cat("Warning: the solver did not converge in some cells (max_iter reached)\n")
  kc_cells_lines(x)
  invisible(x)
}

#' @export
kc_repr_summary.kc_cells <- function(repr, object) {
  s <- kc_summary_exact.kernclass(object)
  s$cost <- object$cost
  s$b <- NULL
  s$cells <- kc_cells_table(object)
  if (!is.null(object$approx$spec$tune)) s$tuning <- kc_cells_tune_table(object$approx$models)
  s$approx <- object$approx[c("spec", "check", "baseline", "subsample")]
  s$blend <- kc_cells_blend(object)
  s$blend_text <- kc_cells_blend_text(object)
  s$blend_choice <- object$approx$blend
  s$converged <- object$converged
  class(s) <- c("summary.kernclass_cells", class(s))
  s
}

#' @export
print.summary.kernclass_cells <- function(x, ...) {
  kc_print_head(x$method, x$call, x$kernel, x$n, x$inputs, x$scaled)
  cat("\nClass sizes:\n")
  print(x$counts)
  if (is.null(x$tuning)) cat(sprintf("\nCost: %s\n", format(x$cost)))
  t <- x$cells
  cat(sprintf("\nLocalized: %d cell%s of about %d points (k-means%s), an exact SVM in each\n",
              nrow(t), if (nrow(t) == 1L) "" else "s", x$approx$spec$size,
              kc_approx_chosen_text(x$approx$spec)))
  if (!is.null(x$blend_text)) cat(sprintf("Predictions: %s\n", x$blend_text))
  kc_approx_check_lines(x$approx)
  cat("Per cell:\n")
  print(summary(t[c("rows", "classes", if (is.null(x$tuning)) c("cost", "gamma"),
                    "support_vectors")]))
  if (!is.null(x$tuning)) {
    cat("What each cell chose:\n")
    kc_cells_tune_lines(x$approx$spec, x$tuning, 50L)
  }
  if (!all(t$converged)) {
    cat(sprintf("The solver did not converge within max_iter in %d cell(s).\n",
                sum(!t$converged)))
  }
  cat(sprintf("\nTraining accuracy: %.2f%%\n\nConfusion table (training data):\n",
              100 * x$accuracy))
  print(x$confusion)
  invisible(x)
}
