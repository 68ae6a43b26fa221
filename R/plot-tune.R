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
  # a column of approximations (approx = list(nystrom(m = 100), ...)): drawn
  # as their positions in the grid, labelled nystrom(m = 100), ...
  coded <- kc_tune_plot_codes(x$results, x$best)
  res <- coded$results
  if (is.null(metric)) metric <- if (is.null(x$metric)) "accuracy" else x$metric
  kc_check_number(digits, "digits", lower = 0, whole = TRUE)
  params <- kc_tune_plot_params(x, res, metric, params)
  ax <- lapply(params, function(nm) kc_tune_axis_labelled(res[[nm]], nm))
  scales <- stats::setNames(vapply(ax, `[[`, "", "scale"), params)
  value <- res[[metric]]
  known <- is.element(metric, names(kc_metrics))
  if (is.null(main)) {
    main <- paste("Cross-validated", if (known) kc_metrics[[metric]]$label else metric)
  }
  # cells over parameters not drawn show the best value
  pick <- if (known && !kc_metrics[[metric]]$larger) min else max
  best <- coded$best
  if (length(params) == 1L) {
    a <- ax[[1L]]
    v <- tapply(value, factor(res[[params]], levels = a$values), pick)
    graphics::plot(a$at, v, type = "b", pch = 19, xaxt = "n", log = if (a$scale == "log") "x" else "",
                   xlab = a$label, ylab = metric, main = main, ...)
    graphics::axis(1, at = a$at, labels = a$labels)
    bi <- match(best[[params]], a$values)
    graphics::points(a$at[bi], v[bi], pch = 1, cex = 2.2, lwd = 2, col = "deepskyblue3")
    return(invisible(x))
  }
  z <- tapply(value, list(factor(res[[params[1L]]], levels = ax[[1L]]$values),
                          factor(res[[params[2L]]], levels = ax[[2L]]$values)), pick)
  zr <- range(z, na.rm = TRUE)
  if (diff(zr) == 0) zr <- zr + c(-1, 1) * max(abs(zr[1L]) * 1e-3, 1e-3)
  breaks <- seq(zr[1L], zr[2L], length.out = length(col) + 1L)
  # room for the key on the right; on the left, for the widest tick label
  # (drawn from line 1 outward) and the axis title beyond it
  ylab_line <- 1.5 + max(graphics::strwidth(ax[[2L]]$labels, "inches")) / graphics::par("csi")
  mar <- graphics::par("mar")
  op <- graphics::par(mar = c(mar[1L], max(mar[2L], ylab_line + 1.2), mar[3L], mar[4L] + 3))
  on.exit(graphics::par(op))
  log <- paste(c(if (scales[1L] == "log") "x", if (scales[2L] == "log") "y"), collapse = "")
  graphics::image(ax[[1L]]$edges, ax[[2L]]$edges, z, col = col, breaks = breaks, log = log,
                  xaxt = "n", yaxt = "n", xlab = "", ylab = "", main = main, ...)
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
  # the numbers: shrunk to fit the smallest cell, light on dark colours
  cells <- which(!is.na(z), arr.ind = TRUE)
  labels <- formatC(z[cells], format = "f", digits = digits)
  cex <- min(1, 0.8 * cw / max(graphics::strwidth(labels, units = "inches")),
             0.5 * ch / graphics::strheight("0", units = "inches"))
  if (cex >= 0.3) {
    fill <- col[findInterval(z[cells], breaks, all.inside = TRUE)]
    rgb <- grDevices::col2rgb(fill) / 255
    dark <- colSums(rgb * c(0.299, 0.587, 0.114)) < 0.5
    graphics::text(ax[[1L]]$at[cells[, 1L]], ax[[2L]]$at[cells[, 2L]], labels, cex = cex,
                   col = ifelse(dark, "white", "black"))
  }
  bi <- match(best[[params[1L]]], ax[[1L]]$values)
  bj <- match(best[[params[2L]]], ax[[2L]]$values)
  graphics::rect(ax[[1L]]$edges[bi], ax[[2L]]$edges[bj], ax[[1L]]$edges[bi + 1L],
                 ax[[2L]]$edges[bj + 1L], border = "deepskyblue3", lwd = 3)
  graphics::box()
  kc_colour_key(col, breaks, metric)
  invisible(x)
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
