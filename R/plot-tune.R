#' Heat map of cross-validated accuracy over two parameters
#'
#' Draws the cross-validated accuracy (or another numeric column of the
#' results) of a [kernel_tune()] grid as a heat map over two parameters,
#' with base graphics: one cell per pair of values, all cells the same size,
#' each labelled with its value, the cell of the chosen parameters
#' (`x$best`) outlined, and a colour key. Where the grid varies other
#' parameters too, each cell shows the best value over them (the largest,
#' or for log-loss and the Brier score the smallest). With one
#' parameter, the values are drawn against it as a line.
#'
#' @section Axes: Each parameter's axis is chosen from its values:
#'   * `"log"` when the values are positive and geometric, each the same
#'     multiple of the one before (`10^(-2:0)`, `2^(0:5)`, `c(1, 10)`;
#'     two values count when the larger is at least twice the smaller): a
#'     log axis, on which the cells are equal;
#'   * `"linear"` when they are evenly spaced (`1:4`, `c(0.5, 1)`);
#'   * `"ordinal"` otherwise: the values in order, one equal cell each, at
#'     positions 1, 2, ... (the axis title says "grid order").
#'
#'   The tick labels sit at the cell centres.
#' @section What the numbers are: A cell shows the best of its rows that ran
#'   every fold. Where a race (`search = "race"`) dropped all of a cell's
#'   rows, the cell shows the best dropped row's figure, from the folds it
#'   ran: the cell grey, its number in grey italics (on a line, a hollow
#'   grey point); a note under the title says what they are and after how
#'   many folds. Notes also say when the numbers are screening estimates (a
#'   screened search, `x$tolerance`) and when the choice is on the grid's
#'   edge (the smallest or largest value of a parameter the grid varies:
#'   the best values may lie beyond the grid), as `print()` does.
#' @param x A `"kernel_tune"` object.
#' @param params The names of the (one or) two parameters to draw; default,
#'   the first two numeric grid columns that take more than one value.
#' @param metric The column of `x$results` to draw; default, the metric the
#'   grid was judged by (`x$metric`, accuracy unless chosen otherwise).
#' @param col Colours of the heat map, from low to high values.
#' @param main Title; default, "Cross-validated" and the metric's name.
#' @param digits Decimal places of the numbers in the cells.
#' @param ... Further arguments to [graphics::image()] (or
#'   [graphics::plot()] for one parameter).
#' @return `x`, invisibly.
#' @export
#' @examples
#' set.seed(1)
#' tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species,
#'                      grid = list(cost = 10^(-1:2), gamma = 10^(-2:0)),
#'                      folds = 3)
#' plot(tuned)
plot.kernel_tune <- function(x, params = NULL, metric = NULL,
                             col = grDevices::hcl.colors(24, "YlOrRd", rev = TRUE),
                             main = NULL, digits = 3, ...) {
  kc_check_number(digits, "digits", lower = 0, whole = TRUE)
  d <- kc_tune_plot_data(x, params, metric)
  ax <- d$ax
  params <- d$params
  metric <- d$metric
  scales <- stats::setNames(vapply(ax, `[[`, "", "scale"), params)
  if (is.null(main)) main <- d$main
  notes <- function() {  # under the title, one line each
    if (length(d$notes)) {
      graphics::mtext(rev(d$notes), side = 3, line = 0.2 + 0.9 * (seq_along(d$notes) - 1L),
                      cex = 0.7, col = "grey30")
    }
  }
  mar <- graphics::par("mar")
  top <- mar[3L] + 0.9 * length(d$notes)
  if (length(params) == 1L) {
    a <- ax[[1L]]
    v <- d$z
    op <- graphics::par(mar = c(mar[1L:2L], top, mar[4L]))
    on.exit(graphics::par(op))
    graphics::plot(a$at, v, type = "l", xaxt = "n", log = if (a$scale == "log") "x" else "",
                   xlab = a$label, ylab = metric, main = main, ...)
    # finished rows filled, dropped ones hollow and grey (the note says so)
    graphics::points(a$at, v, pch = ifelse(d$dropped, 1, 19),
                     col = ifelse(d$dropped, "grey50", "black"))
    graphics::axis(1, at = a$at, labels = a$labels)
    bi <- d$best
    graphics::points(a$at[bi], v[bi], pch = 1, cex = 2.2, lwd = 2, col = "deepskyblue3")
    notes()
    return(invisible(x))
  }
  z <- d$z
  # dropped rows' figures are not on the colour scale: grey cells
  zf <- z
  zf[d$dropped] <- NA
  zr <- if (all(is.na(zf))) range(z, na.rm = TRUE) else range(zf, na.rm = TRUE)
  if (diff(zr) == 0) zr <- zr + c(-1, 1) * max(abs(zr[1L]) * 1e-3, 1e-3)
  breaks <- seq(zr[1L], zr[2L], length.out = length(col) + 1L)
  # room for the key on the right; on the left, for the widest tick label
  # (drawn from line 1 outward) and the axis title beyond it; on top, for
  # the notes
  ylab_line <- 1.5 + max(graphics::strwidth(ax[[2L]]$labels, "inches")) / graphics::par("csi")
  op <- graphics::par(mar = c(mar[1L], max(mar[2L], ylab_line + 1.2), top, mar[4L] + 3))
  on.exit(graphics::par(op))
  log <- paste(c(if (scales[1L] == "log") "x", if (scales[2L] == "log") "y"), collapse = "")
  graphics::image(ax[[1L]]$edges, ax[[2L]]$edges, zf, col = col, breaks = breaks, log = log,
                  xaxt = "n", yaxt = "n", xlab = "", ylab = "", main = main, ...)
  if (any(d$dropped)) {
    g <- which(d$dropped, arr.ind = TRUE)
    graphics::rect(ax[[1L]]$edges[g[, 1L]], ax[[2L]]$edges[g[, 2L]], ax[[1L]]$edges[g[, 1L] + 1L],
                   ax[[2L]]$edges[g[, 2L] + 1L], col = "grey95", border = "grey65")
  }
  graphics::title(ylab = ax[[2L]]$label, line = ylab_line)
  # tick labels shrunk (to 0.7 at least) so that neighbours do not overlap
  cw <- min(diff(graphics::grconvertX(ax[[1L]]$edges, "user", "inches")))
  ch <- min(diff(graphics::grconvertY(ax[[2L]]$edges, "user", "inches")))
  cex_x <- max(0.7, min(1, 0.9 * cw / max(graphics::strwidth(ax[[1L]]$labels, "inches"))))
  cex_y <- max(0.7, min(1, 0.9 * ch / graphics::strheight("0", "inches") / 1.5))
  # axis() drops labels closer than the width of an "m" (its gap.axis)
  wide <- max(graphics::strwidth(ax[[1L]]$labels, "inches", cex = cex_x)) +
    graphics::strwidth("m", "inches", cex = cex_x) > cw
  odd <- if (wide) seq_along(ax[[1L]]$at) %% 2L == 1L else rep(TRUE, length(ax[[1L]]$at))
  graphics::axis(1, at = ax[[1L]]$at[odd], labels = ax[[1L]]$labels[odd], tick = FALSE,
                 cex.axis = cex_x)
  if (wide) {  # too wide side by side: every other label one line lower
    graphics::axis(1, at = ax[[1L]]$at[!odd], labels = ax[[1L]]$labels[!odd], tick = FALSE,
                   cex.axis = cex_x, line = 0.8, lwd = 0)
  }
  graphics::title(xlab = ax[[1L]]$label, line = graphics::par("mgp")[1L] + if (wide) 0.8 else 0)
  graphics::axis(2, at = ax[[2L]]$at, labels = ax[[2L]]$labels, tick = FALSE, las = 1,
                 cex.axis = cex_y)
  # the numbers: shrunk to fit the smallest cell, light on dark colours,
  # grey on the dropped rows' cells
  cells <- which(!is.na(z), arr.ind = TRUE)
  labels <- formatC(z[cells], format = "f", digits = digits)
  cex <- min(1, 0.8 * cw / max(graphics::strwidth(labels, units = "inches")),
             0.5 * ch / graphics::strheight("0", units = "inches"))
  if (cex >= 0.3) {
    fill <- col[findInterval(z[cells], breaks, all.inside = TRUE)]
    rgb <- grDevices::col2rgb(fill) / 255
    dark <- colSums(rgb * c(0.299, 0.587, 0.114)) < 0.5
    graphics::text(ax[[1L]]$at[cells[, 1L]], ax[[2L]]$at[cells[, 2L]], labels, cex = cex,
                   col = ifelse(d$dropped[cells], "grey40", ifelse(dark, "white", "black")),
                   font = ifelse(d$dropped[cells], 3L, 1L))
  }
  bi <- d$best[1L]
  bj <- d$best[2L]
  graphics::rect(ax[[1L]]$edges[bi], ax[[2L]]$edges[bj], ax[[1L]]$edges[bi + 1L],
                 ax[[2L]]$edges[bj + 1L], border = "deepskyblue3", lwd = 3)
  graphics::box()
  notes()
  kc_colour_key(col, breaks, metric)
  invisible(x)
}

# The data of a tuning plot (plot() and autoplot()): the `params` drawn and
# their axes `ax` (kc_tune_axis_labelled(): a column of approximations by
# its labels, kc_tune_plot_codes()), the `metric` and, over the drawn
# parameters (a vector for one, a matrix for two), its values `z` (the
# best over the parameters not drawn, of the rows that ran every fold where
# the cell has any, else of the rows a race dropped), `dropped` (TRUE where
# the value is a dropped row's) and `ran` (the folds behind each value), the
# indices `best` of the chosen values, the title `main`, and `notes`: what
# marks dropped values, that the numbers are screening estimates, and that
# the choice is on the grid's edge (kc_tune_edge()).
kc_tune_plot_data <- function(x, params, metric) {
  coded <- kc_tune_plot_codes(x$results, x$best)
  res <- coded$results
  if (is.null(metric)) metric <- if (is.null(x$metric)) "accuracy" else x$metric
  params <- kc_tune_plot_params(x, res, metric, params)
  ax <- lapply(params, function(nm) kc_tune_axis_labelled(res[[nm]], nm))
  known <- is.element(metric, names(kc_metrics))
  larger <- !known || kc_metrics[[metric]]$larger
  K <- if (is.null(x$folds)) NA_integer_ else x$folds
  ran <- if (is.null(res$folds_run)) rep(K, nrow(res)) else res$folds_run
  dropped <- !is.na(ran) & !is.na(K) & ran < K
  value <- res[[metric]]
  # each cell's row: finished rows first, then the best value (NA last)
  at <- lapply(seq_along(params), function(k) match(res[[params[k]]], ax[[k]]$values))
  dims <- vapply(ax, function(a) length(a$values), 1L)
  cell <- if (length(params) == 1L) at[[1L]] else at[[1L]] + dims[1L] * (at[[2L]] - 1L)
  ord <- order(dropped, if (larger) -value else value, na.last = TRUE)
  ord <- ord[!duplicated(cell[ord])]
  shape <- function(v, fill) {
    out <- array(fill, dims)
    out[cell[ord]] <- v[ord]
    if (length(params) == 1L) as.vector(out) else out
  }
  best <- vapply(seq_along(params), function(k) match(coded$best[[params[k]]], ax[[k]]$values),
                 1L)
  d_ran <- shape(ran, NA_integer_)
  d_dropped <- shape(dropped, FALSE)
  notes <- c(
    if (any(d_dropped)) {
      f <- range(d_ran[d_dropped])
      sprintf("%s: rows the race dropped after %s of %d folds (figures from those folds)",
              if (length(params) == 1L) "hollow grey points" else "grey cells",
              if (f[1L] == f[2L]) f[1L] else paste(f, collapse = " to "), K)
    },
    if (!is.null(x$tolerance)) {
      sprintf("screening estimates (solver tolerance %s), not exact fits",
              format(x$tolerance[["screen"]]))
    },
    kc_tune_edge(x, short = TRUE))
  list(params = params, ax = ax, metric = metric, z = shape(value, NA_real_),
       dropped = d_dropped, ran = d_ran, best = best,
       main = paste("Cross-validated", if (known) kc_metrics[[metric]]$label else metric),
       notes = notes)
}

# Grid columns of approximations as numbers, their positions in the order
# they first appear, with their labels (format(): "nystrom(m = 100)") in the
# attribute "labels"; `best` coded alike. list(results, best).
kc_tune_plot_codes <- function(results, best) {
  for (nm in names(results)) {
    v <- results[[nm]]
    if (!is.list(v) || !all(vapply(v, inherits, logical(1), "kernclass_approximation"))) next
    labels <- vapply(v, format, character(1))
    results[[nm]] <- structure(match(labels, unique(labels)), labels = unique(labels))
    if (!is.null(best[[nm]])) best[[nm]] <- match(format(best[[nm]]), unique(labels))
  }
  list(results = results, best = best)
}

# kc_tune_axis() of a column; one coded by kc_tune_plot_codes() has a cell
# per code, in grid order, each tick its label.
kc_tune_axis_labelled <- function(values, name) {
  labels <- attr(values, "labels")
  if (is.null(labels)) return(kc_tune_axis(values, name))
  k <- length(labels)
  list(values = seq_len(k), scale = "ordinal", at = seq_len(k), edges = seq(0.5, k + 0.5),
       labels = labels, label = name)
}

# A vertical colour key in the right margin of the current plot.
kc_colour_key <- function(col, breaks, title) {
  csi <- graphics::par("csi")
  right <- graphics::grconvertX(1, "npc", "inches")
  xs <- graphics::grconvertX(right + c(0.6, 1.4) * csi, "inches", "user")
  ys <- graphics::grconvertY(seq(0, 1, length.out = length(col) + 1L), "npc", "user")
  n <- length(col)
  graphics::rect(xs[1L], ys[-(n + 1L)], xs[2L], ys[-1L], col = col, border = NA, xpd = NA)
  graphics::rect(xs[1L], ys[1L], xs[2L], ys[n + 1L], border = "grey40", xpd = NA)
  zr <- range(breaks)
  ticks <- pretty(zr, n = 5)
  ticks <- ticks[ticks >= zr[1L] - 1e-12 & ticks <= zr[2L] + 1e-12]
  at <- graphics::grconvertY((ticks - zr[1L]) / diff(zr), "npc", "user")
  graphics::segments(xs[2L], at, graphics::grconvertX(right + 1.6 * csi, "inches", "user"), at,
                     xpd = NA, col = "grey40")
  graphics::text(graphics::grconvertX(right + 1.7 * csi, "inches", "user"), at,
                 format(ticks), adj = c(0, 0.5), cex = 0.75, xpd = NA)
  graphics::text(mean(xs), graphics::grconvertY(1, "npc", "user"), title, pos = 3, cex = 0.75,
                 xpd = NA)
  invisible()
}

# The axis of one tuning parameter: its sorted distinct values, the scale
# ("log" for a positive geometric sequence, "linear" for an arithmetic one,
# "ordinal" otherwise), the cell centres `at` and edges `edges` in the
# plot's user coordinates (equal cells on that scale), and tick labels.
# Inf (cost = Inf, the hard margin) takes one more cell past the finite
# values, on their scale.
kc_tune_axis <- function(values, name = "") {
  v <- sort(unique(values[!is.na(values)]))
  inf <- v == Inf
  f <- v[!inf]
  n <- length(f)
  scale <- kc_tune_scale(f)
  t <- switch(scale, log = log10(f), linear = f, ordinal = seq_len(n))
  step <- if (n > 1L) (t[n] - t[1L]) / (n - 1L) else 1
  if (any(inf)) t <- c(t, if (n) t[n] + step else 1)
  m <- length(t)
  edges <- c(t[1L] - step / 2, if (m > 1L) (t[-1L] + t[-m]) / 2, t[m] + step / 2)
  if (scale == "log") {
    t <- c(f, if (any(inf)) 10^t[m])
    edges <- 10^edges
  }
  list(values = v, scale = scale, at = t, edges = edges,
       labels = vapply(v, function(u) format(signif(u, 3)), character(1)),
       label = switch(scale, log = paste(name, "(log scale)"), linear = name,
                      ordinal = paste(name, "(grid order)")))
}

# The scale for sorted distinct values: "log" when positive with a constant
# ratio (two values: a ratio of at least 2), "linear" when evenly spaced,
# "ordinal" otherwise (and for values that are not all finite). Tolerances
# allow for values such as 10^(-2:0).
kc_tune_scale <- function(v) {
  n <- length(v)
  if (!all(is.finite(v))) return("ordinal")
  if (n < 2L) return("linear")
  tol <- 1e-6
  if (all(v > 0)) {
    r <- diff(log(v))
    geometric <- if (n == 2L) r >= log(2) else max(abs(r - mean(r))) <= tol * mean(r)
    if (geometric) return("log")
  }
  d <- diff(v)
  if (max(abs(d - mean(d))) <= tol * mean(d)) return("linear")
  "ordinal"
}

# The checked metric and plotted parameters of a tuning plot (plot() and
# autoplot()): `metric` one numeric results column, `params` one or two
# numeric grid columns (default: the first two that vary).
kc_tune_plot_params <- function(x, res, metric, params) {
  gcols <- if (!is.null(x$best)) intersect(names(x$best), names(res)) else
    setdiff(names(res), c("accuracy", "sd", "se"))
  if (!is.character(metric) || length(metric) != 1L || !metric %in% setdiff(names(res), gcols) ||
      !is.numeric(res[[metric]])) {
    kc_abort(sprintf("`metric` must name one numeric column of the results, e.g. %s.",
                     kc_enum(setdiff(names(res), gcols))), arg = "metric")
  }
  varying <- gcols[vapply(gcols, function(nm) {
    is.numeric(res[[nm]]) && length(unique(res[[nm]])) > 1L
  }, logical(1))]
  if (is.null(params)) params <- utils::head(varying, 2L)
  if (!is.character(params) || !length(params) || length(params) > 2L || anyDuplicated(params) ||
      !all(params %in% gcols) || !all(vapply(res[params], is.numeric, logical(1)))) {
    kc_abort(sprintf("`params` must name one or two numeric grid columns, e.g. %s.",
                     kc_enum(if (length(varying)) varying else gcols)), arg = "params")
  }
  params
}

# ---- cross-validation ----------------------------------------------------------

#' Plot a cross-validation: the folds, or the confusion table
#'
#' Draws a [kernel_cv()] result with base graphics, as
#' [autoplot.kernclass()] draws it with ggplot2: `type = "folds"` each
#' fold's metric (points), the cross-validated value (a line) and a band of
#' one standard error either side; `type = "confusion"` the confusion table
#' of the out-of-fold predictions, each count in a cell shaded by it, the
#' predicted classes across the top, the actual ones top to bottom.
#' Leave-one-out has one point per fold: its default is the confusion
#' table.
#'
#' @param x A `"kernel_cv"` object.
#' @param type `"folds"` or `"confusion"`; default `"folds"`, for
#'   leave-one-out `"confusion"`.
#' @param main Title; default as [autoplot.kernclass()]'s.
#' @param ... Further graphical parameters for [graphics::plot()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' set.seed(1)
#' cv <- kernel_cv(kernel_parzen, iris[, 1:4], iris$Species, folds = 5)
#' plot(cv)
#' plot(cv, type = "confusion")
plot.kernel_cv <- function(x, type = NULL, main = NULL, ...) {
  d <- kc_cv_plot_data(x, type)
  if (is.null(main)) main <- d$main
  if (d$type == "folds") {
    k <- length(d$fold_value)
    yr <- range(c(d$fold_value, d$value - d$se, d$value + d$se), na.rm = TRUE)
    graphics::plot(seq_len(k), d$fold_value, type = "n", xaxt = "n", ylim = yr, xlab = "fold",
                   ylab = d$label, main = main, ...)
    usr <- graphics::par("usr")
    graphics::rect(usr[1L], d$value - d$se, usr[2L], d$value + d$se, col = "grey85", border = NA)
    graphics::abline(h = d$value, col = "deepskyblue3")
    graphics::points(seq_len(k), d$fold_value, pch = 19)
    graphics::axis(1, at = seq_len(k))
    graphics::mtext(d$sub, side = 3, line = 0.3, cex = 0.8)
    graphics::box()
    return(invisible(x))
  }
  tab <- d$table
  G <- nrow(tab)
  counts <- unclass(tab)
  # columns: the predicted classes left to right; rows: the actual ones top down
  z <- t(counts[rev(seq_len(G)), , drop = FALSE])
  col <- grDevices::colorRampPalette(c("grey95", "steelblue"))(24)
  zr <- range(counts)
  if (diff(zr) == 0) zr <- zr + c(-0.5, 0.5)
  # room on the left for the widest class label and the axis title beyond
  # it, on top for the labels, "predicted" and the title
  ylab_line <- 1.5 + max(graphics::strwidth(rownames(counts), "inches")) / graphics::par("csi")
  mar <- graphics::par("mar")
  op <- graphics::par(mar = c(2, max(mar[2L], ylab_line + 1.2), max(mar[3L], 5.5), mar[4L]))
  on.exit(graphics::par(op))
  graphics::image(seq_len(ncol(counts)), seq_len(G), z, col = col,
                  breaks = seq(zr[1L], zr[2L], length.out = 25L), xaxt = "n", yaxt = "n",
                  xlab = "", ylab = "", main = "", ...)
  graphics::title(ylab = "actual", line = ylab_line)
  graphics::axis(3, at = seq_len(ncol(counts)), labels = colnames(counts), tick = FALSE)
  graphics::axis(2, at = seq_len(G), labels = rev(rownames(counts)), tick = FALSE, las = 1)
  graphics::mtext("predicted", side = 3, line = 2.2)
  graphics::title(main = main, line = 3.6)
  g <- which(!is.na(z), arr.ind = TRUE)
  graphics::text(g[, 1L], g[, 2L], z[g])
  graphics::box()
  invisible(x)
}

# What plot() and autoplot() of a kernel_cv() draw: the checked `type`
# ("folds"; "confusion", the default for leave-one-out), the metric's
# `label`, its cross-validated `value`, standard error `se` (0 where not
# finite) and `fold_value`s, the title `main` and subtitle `sub`, and the
# confusion `table` of the out-of-fold predictions.
kc_cv_plot_data <- function(x, type) {
  if (is.null(type)) type <- if (isTRUE(x$loo)) "confusion" else "folds"
  if (!is.character(type) || length(type) != 1L || !type %in% c("folds", "confusion")) {
    kc_abort("`type` must be \"folds\" or \"confusion\".", arg = "type")
  }
  metric <- if (is.null(x$metric)) "accuracy" else x$metric
  label <- if (metric %in% names(kc_metrics)) kc_metrics[[metric]]$label else metric
  value <- if (is.null(x$value)) x$accuracy else x$value
  se <- if (is.finite(x$se)) x$se else 0
  list(type = type, label = label, value = value, se = se, fold_value = x$fold_value,
       main = if (type == "folds") paste("Cross-validated", label, "by fold") else
         "Out-of-fold predictions",
       sub = sprintf("%s %.4g (line), standard error %.2g (band)", label, value, se),
       table = table(actual = x$y, predicted = x$predicted))
}
