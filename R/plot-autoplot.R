#' ggplot2 graphics of fitted models and of tuning results
#'
#' `autoplot()` methods (the generic is [ggplot2::autoplot()]; ggplot2 is
#' suggested, not imported, and the methods are registered when it is
#' loaded) that draw with ggplot2 what [plot.kernclass()] and
#' [plot.kernel_tune()] draw with base graphics. Each returns a ggplot
#' object, to print, or to change by adding layers, scales, labels or a
#' theme with `+`.
#'
#' A fitted model: the predicted class over two input variables, computed
#' as by [plot.kernclass()] (same grid, inputs held at the same values, the
#' same boundaries). Its layers, in order:
#'   1. `geom_raster()`: the decision regions, `fill` the predicted class;
#'   2. `geom_path()`: the decision boundaries (left out where one class is
#'      predicted over the whole region: there is no boundary);
#'   3. for a two-class SVM, `geom_path()`: the margins \eqn{f(x) = \pm 1}{f(x) = -1, +1}, dashed;
#'   4. when the class labels of the points are known, `geom_point()`: the
#'      points, `colour`, `fill` and `shape` by class;
#'   5. for an SVM drawn over its own training points, `geom_point()`: the
#'      support vectors, circled.
#'
#' Its scales: `scale_fill_manual()`, `scale_colour_manual()` and
#' `scale_shape_manual()` (one legend, "class"), and continuous x and y
#' scales without padding; the title names the method, the subtitle the
#' inputs held fixed.
#'
#' A [kernel_tune()] result: with two parameters, a heat map as in
#' [plot.kernel_tune()]: `geom_rect()` cells (`fill` the metric, one cell
#' per pair of values, the best over any other parameters), where a race
#' dropped every row of a cell a second `geom_rect()` of grey cells,
#' `geom_text()` numbers (grey italics on the dropped cells), and a
#' `geom_rect()` outlining the chosen cell; the caption holds
#' [plot.kernel_tune()]'s notes (dropped rows, screening estimates, a
#' choice on the grid's edge); scales
#' `scale_fill_gradientn()`, `scale_colour_identity()` (the numbers' colours,
#' light on dark cells), and for each axis `scale_*_log10()` on a log axis,
#' else `scale_*_continuous()`, with the parameter values as breaks (see
#' the Axes section of [plot.kernel_tune()]; a column of approximations
#' by their labels, in grid order). With one parameter: the metric against
#' it, `geom_line()` and `geom_point()` (`shape` and `colour` by status:
#' filled for rows that ran every fold, hollow grey for rows a race
#' dropped), and the chosen value circled by a second `geom_point()`.
#'
#' A [calibration_curve()] table: the reliability diagram of
#' [plot.kernclass_calibration()]: the diagonal (`geom_abline()`, dashed),
#' for each class bars of two standard errors either side of the observed
#' frequency (`geom_linerange()`, within 0 and 1), and its curve,
#' `geom_line()` and `geom_point()`, `colour` by class (the colours of
#' `plot()`).
#'
#' A [kernel_cv()] result (as [plot.kernel_cv()] draws it): `type = "folds"` draws each fold's metric
#' (`geom_point()`), the cross-validated value (`geom_hline()`) and a band of
#' one standard error either side (`geom_rect()`); `type = "confusion"` the
#' confusion table of the out-of-fold predictions, `geom_tile()` with
#' `fill` the count and `geom_text()` the counts, actual classes top to
#' bottom. Leave-one-out has one point per fold: its default is the
#' confusion table.
#'
#' @param object A fitted kernclass model, a `"kernel_tune"` or a
#'   `"kernel_cv"` object, or a [calibration_curve()] table.
#' @param data,vars,y,slice,grid As for [plot.kernclass()].
#' @param params,metric,digits As for [plot.kernel_tune()].
#' @param type For a cross-validation: `"folds"` or `"confusion"`.
#' @param ... Not used.
#' @return A ggplot object.
#' @seealso [plot.kernclass()], [plot.kernel_tune()], [plot.kernel_cv()],
#'   [plot.kernclass_calibration()] for base graphics.
#' @name autoplot.kernclass
#' @examples
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   library(ggplot2)
#'   two <- droplevels(subset(iris, Species != "setosa"))
#'   svm <- kernel_svm(Species ~ Petal.Length + Petal.Width, data = two, cost = 10)
#'   autoplot(svm, two)
#'
#'   # four inputs: two drawn, the others held; a theme added
#'   fit <- kernel_means(Species ~ ., data = iris, gamma = 0.5)
#'   autoplot(fit, iris, vars = c("Petal.Length", "Petal.Width")) + theme_minimal()
#'
#'   set.seed(1)
#'   tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species,
#'                        grid = list(cost = 10^(-1:2), gamma = 10^(-2:0)), folds = 3)
#'   autoplot(tuned)
#'   autoplot(tuned, params = "gamma")
#'
#'   cv <- kernel_cv(kernel_parzen, iris[, 1:4], iris$Species, folds = 5)
#'   autoplot(cv)
#'   autoplot(cv, type = "confusion")
#' }
NULL

#' @rdname autoplot.kernclass
#' @exportS3Method ggplot2::autoplot
autoplot.kernclass <- function(object, data = NULL, vars = NULL, y = NULL, slice = list(),
                               grid = 100, ...) {
  kc_check_dots(...)
  r <- kc_plot_regions(object, data, vars, y, slice, grid, arg = "object")
  lv <- object$levels
  G <- length(lv)
  col <- stats::setNames(grDevices::hcl.colors(G, "Dark 3"), lv)
  shape <- stats::setNames(20 + seq_len(G) %% 5, lv)
  regions <- data.frame(x = rep(r$ax[[1L]], grid), y = rep(r$ax[[2L]], each = grid),
                        class = factor(as.character(r$cls), levels = lv))
  lines <- function(pieces) {
    data.frame(x = unlist(lapply(pieces, `[[`, "x")), y = unlist(lapply(pieces, `[[`, "y")),
               piece = rep(seq_along(pieces), vapply(pieces, function(p) length(p$x), 1L)))
  }
  pd <- r$pd
  pts <- data.frame(x = pd$inputs[[r$vars[1L]]], y = pd$inputs[[r$vars[2L]]])
  pts$class <- if (!is.null(pd$y)) pd$y

  p <- ggplot2::ggplot(regions, kc_aes(x = "x", y = "y")) +
    ggplot2::geom_raster(kc_aes(fill = "class"), alpha = 0.25, show.legend = is.null(pd$y))
  # one class predicted over the whole region: no boundary to draw
  if (length(r$boundary)) {
    p <- p + ggplot2::geom_path(kc_aes(group = "piece"), data = lines(r$boundary),
                                linewidth = 0.8)
  }
  if (length(r$margins)) {
    p <- p + ggplot2::geom_path(kc_aes(group = "piece"), data = lines(r$margins),
                                linetype = "dashed", linewidth = 0.4)
  }
  if (!is.null(pd$y)) {
    p <- p + ggplot2::geom_point(kc_aes(colour = "class", fill = "class", shape = "class"),
                                 data = pts, size = 2)
  }
  if (length(r$support)) {
    p <- p + ggplot2::geom_point(data = pts[r$support, , drop = FALSE], shape = 1, size = 4,
                                 stroke = 0.6)
  }
  p + ggplot2::scale_fill_manual(values = col, drop = FALSE, name = "class") +
    ggplot2::scale_colour_manual(values = col, drop = FALSE, name = "class") +
    ggplot2::scale_shape_manual(values = shape, drop = FALSE, name = "class") +
    ggplot2::scale_x_continuous(expand = c(0, 0)) +
    ggplot2::scale_y_continuous(expand = c(0, 0)) +
    ggplot2::labs(title = kc_method_label(object), subtitle = if (nzchar(r$sub)) r$sub,
                  x = r$vars[1L], y = r$vars[2L])
}

#' @rdname autoplot.kernclass
#' @exportS3Method ggplot2::autoplot
autoplot.kernel_tune <- function(object, params = NULL, metric = NULL, digits = 3, ...) {
  kc_check_dots(...)
  kc_check_number(digits, "digits", lower = 0, whole = TRUE)
  d <- kc_tune_plot_data(object, params, metric)
  ax <- d$ax
  aes_scale <- function(a, which) {
    fun <- if (a$scale == "log") {
      if (which == "x") ggplot2::scale_x_log10 else ggplot2::scale_y_log10
    } else {
      if (which == "x") ggplot2::scale_x_continuous else ggplot2::scale_y_continuous
    }
    fun(a$label, breaks = a$at, labels = a$labels, expand = c(0, 0),
        limits = range(a$edges))
  }
  caption <- if (length(d$notes)) paste(d$notes, collapse = "\n")
  status <- function(dropped) {
    factor(ifelse(dropped, "dropped by the race", "ran every fold"),
           levels = c("ran every fold", "dropped by the race"))
  }
  if (length(d$params) == 1L) {
    a <- ax[[1L]]
    line <- data.frame(x = a$at, value = d$z, status = status(d$dropped))
    best <- line[d$best, , drop = FALSE]
    guide <- if (any(d$dropped)) "legend" else "none"
    # the axis padded by half a cell: the points are not on its edges
    return(ggplot2::ggplot(line, kc_aes(x = "x", y = "value")) +
      ggplot2::geom_line() +
      ggplot2::geom_point(kc_aes(shape = "status", colour = "status"), size = 2) +
      ggplot2::geom_point(data = best, shape = 1, size = 5, stroke = 1.2,
                          colour = "deepskyblue3") +
      ggplot2::scale_shape_manual(values = c("ran every fold" = 19, "dropped by the race" = 1),
                                  drop = TRUE, name = NULL, guide = guide) +
      ggplot2::scale_colour_manual(values = c("ran every fold" = "black",
                                              "dropped by the race" = "grey50"),
                                   drop = TRUE, name = NULL, guide = guide) +
      aes_scale(a, "x") +
      ggplot2::labs(title = d$main, y = d$metric, caption = caption))
  }
  z <- d$z
  cells <- expand.grid(i = seq_along(ax[[1L]]$at), j = seq_along(ax[[2L]]$at))
  at <- cbind(cells$i, cells$j)
  cells$value <- z[at]
  cells$dropped <- d$dropped[at]
  cells <- cells[!is.na(cells$value), , drop = FALSE]
  e1 <- ax[[1L]]$edges
  e2 <- ax[[2L]]$edges
  cells <- data.frame(xmin = e1[cells$i], xmax = e1[cells$i + 1L], ymin = e2[cells$j],
                      ymax = e2[cells$j + 1L], x = ax[[1L]]$at[cells$i], y = ax[[2L]]$at[cells$j],
                      value = cells$value, dropped = cells$dropped)
  col <- grDevices::hcl.colors(24, "YlOrRd", rev = TRUE)
  # dropped rows' figures are not on the colour scale, as in plot()
  on_scale <- if (all(cells$dropped)) cells$value else cells$value[!cells$dropped]
  zr <- range(on_scale)
  if (diff(zr) == 0) zr <- zr + c(-1, 1) * max(abs(zr[1L]) * 1e-3, 1e-3)
  # the numbers light on dark cells, grey on dropped ones, as in plot()
  fill <- col[findInterval(cells$value, seq(zr[1L], zr[2L], length.out = 25L),
                           all.inside = TRUE)]
  dark <- colSums(grDevices::col2rgb(fill) / 255 * c(0.299, 0.587, 0.114)) < 0.5
  cells$text <- ifelse(cells$dropped, "grey40", ifelse(dark, "white", "black"))
  cells$face <- ifelse(cells$dropped, "italic", "plain")
  cells$label <- formatC(cells$value, format = "f", digits = digits)
  best <- data.frame(xmin = e1[d$best[1L]], xmax = e1[d$best[1L] + 1L],
                     ymin = e2[d$best[2L]], ymax = e2[d$best[2L] + 1L])
  rect <- kc_aes(xmin = "xmin", xmax = "xmax", ymin = "ymin", ymax = "ymax")
  p <- ggplot2::ggplot(cells) +
    ggplot2::geom_rect(kc_aes(xmin = "xmin", xmax = "xmax", ymin = "ymin", ymax = "ymax",
                              fill = "value"), data = cells[!cells$dropped, , drop = FALSE])
  if (any(cells$dropped)) {
    p <- p + ggplot2::geom_rect(rect, data = cells[cells$dropped, , drop = FALSE],
                                fill = "grey95", colour = "grey65")
  }
  p + ggplot2::geom_text(kc_aes(x = "x", y = "y", label = "label", colour = "text",
                                fontface = "face"), size = 3.5) +
    ggplot2::geom_rect(rect, data = best, fill = NA, colour = "deepskyblue3", linewidth = 1.2) +
    ggplot2::scale_fill_gradientn(colours = col, limits = zr, name = d$metric) +
    ggplot2::scale_colour_identity() +
    aes_scale(ax[[1L]], "x") + aes_scale(ax[[2L]], "y") +
    ggplot2::labs(title = d$main, caption = caption)
}

#' @rdname autoplot.kernclass
#' @exportS3Method ggplot2::autoplot
autoplot.kernel_cv <- function(object, type = NULL, ...) {
  kc_check_dots(...)
  d <- kc_cv_plot_data(object, type)
  if (d$type == "confusion") {
    tab <- as.data.frame(d$table, responseName = "count")
    return(ggplot2::ggplot(tab, kc_aes(x = "predicted", y = "actual")) +
      ggplot2::geom_tile(kc_aes(fill = "count"), colour = "white") +
      ggplot2::geom_text(kc_aes(label = "count")) +
      ggplot2::scale_fill_gradient(low = "grey95", high = "steelblue", name = "count") +
      ggplot2::scale_x_discrete(position = "top") +
      ggplot2::scale_y_discrete(limits = rev(levels(tab$actual))) +
      ggplot2::labs(title = d$main, x = "predicted", y = "actual"))
  }
  folds <- data.frame(fold = seq_along(d$fold_value), value = d$fold_value)
  band <- data.frame(ymin = d$value - d$se, ymax = d$value + d$se)
  ggplot2::ggplot(folds, kc_aes(x = "fold", y = "value")) +
    ggplot2::geom_rect(kc_aes(ymin = "ymin", ymax = "ymax"), data = band, xmin = -Inf,
                       xmax = Inf, inherit.aes = FALSE, fill = "grey85") +
    ggplot2::geom_hline(yintercept = d$value, colour = "deepskyblue3") +
    ggplot2::geom_point(size = 2.5) +
    ggplot2::scale_x_continuous(breaks = folds$fold) +
    ggplot2::scale_y_continuous() +
    ggplot2::labs(title = d$main, subtitle = d$sub, y = d$label)
}

#' @rdname autoplot.kernclass
#' @exportS3Method ggplot2::autoplot
autoplot.kernclass_calibration <- function(object, ...) {
  kc_check_dots(...)
  d <- kc_calibration_plot_data(object)
  ggplot2::ggplot(d, kc_aes(x = "predicted", y = "observed", colour = "class")) +
    ggplot2::geom_abline(intercept = 0, slope = 1, linetype = "dashed", colour = "grey50") +
    ggplot2::geom_linerange(kc_aes(ymin = "lower_band", ymax = "upper_band")) +
    ggplot2::geom_line() +
    ggplot2::geom_point(size = 2) +
    ggplot2::scale_x_continuous("Predicted probability", limits = c(0, 1)) +
    ggplot2::scale_y_continuous("Observed frequency", limits = c(0, 1)) +
    ggplot2::scale_colour_manual(values = attr(d, "colours"), name = "class") +
    ggplot2::labs(title = "Reliability diagram")
}

# aes() from column names (no non-standard evaluation in package code).
kc_aes <- function(...) do.call(ggplot2::aes, lapply(list(...), as.name))

