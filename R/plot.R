#' Plot the decision regions of a kernclass classifier
#'
#' Draws, over two chosen input variables, the regions where each class is
#' predicted, the decision boundary, and the training points coloured by
#' class. The other input variables are held at `slice` (by default their
#' medians, or the most frequent level for factors).
#'
#' @param x A fitted kernclass model.
#' @param data The data to draw: a data frame with the model's input columns
#'   (and, for formula fits, the response). May be omitted for models fitted
#'   to a numeric matrix: the training data are then drawn.
#' @param vars The two input variables for the horizontal and vertical
#'   axes, as names or positions; default the first two numeric ones.
#' @param y Class labels of the rows of `data`, for models fitted with the
#'   default method; default the training labels when `data` has as many
#'   rows as the training data.
#' @param slice Named list of values for the other input variables: one
#'   number each, or one of the levels for a factor.
#' @param grid Number of grid points along each axis.
#' @param col Colours of the classes.
#' @param main,xlab,ylab Title and axis labels.
#' @param ... Further graphical parameters for [graphics::plot.default()].
#' @return Invisibly, a list with the grid coordinates `x1`, `x2`, the
#'   predicted `class` on the grid (a character matrix, `x1` along rows) and
#'   the `decision` values of the grid points (a vector for two classes, a
#'   matrix with a column per class otherwise, or per class pair for
#'   one-vs-one models such as [kernel_bayes()]).
#' @export
#' @examples
#' fit <- kernel_means(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2)
#' plot(fit, iris)
#'
#' two <- droplevels(subset(iris, Species != "setosa"))
#' fit2 <- kernel_parzen(as.matrix(two[, 3:4]), two$Species, gamma = 2)
#' plot(fit2)
plot.kernclass <- function(x, data = NULL, vars = NULL, y = NULL, slice = list(), grid = 100,
                           col = NULL, main = NULL, xlab = NULL, ylab = NULL, ...) {
  object <- x
  if (inherits(object$x, c("kc_precomputed", "kc_user"))) {
    kc_abort(paste0("plot() draws the classes over two input columns; a model fitted on kernel ",
                    "values or on a kernel function's points has none. Plot its decision ",
                    "values instead (predict(type = \"decision\"))."), arg = "x",
             class = "kernel_data")
  }
  kc_check_number(grid, "grid", lower = 2, whole = TRUE)
  pd <- kc_plot_data(object, data, y)
  vars <- kc_plot_vars(vars, pd$inputs)
  ax <- lapply(vars, function(v) {
    r <- range(pd$inputs[[v]], finite = TRUE)
    r <- r + c(-1, 1) * 0.05 * max(diff(r), 1e-8)
    seq(r[1L], r[2L], length.out = grid)
  })
  g <- kc_plot_grid(pd$inputs, vars, ax, slice)
  newdata <- if (is.null(object$terms)) as.matrix(g) else g
  x_grid <- withCallingHandlers(kc_new_x(object, newdata), kernclass_unpredictable_warning =
    function(w) kc_abort(sprintf("The model cannot score all points of the plot's grid: %s",
                                 conditionMessage(w)), arg = "vars"))
  scores <- kc_scores(object, x_grid)
  G <- length(object$levels)
  cls <- kc_classify(object, scores)
  if (is.null(col)) col <- grDevices::hcl.colors(G, "Dark 3")
  col <- rep_len(col, G)

  graphics::plot.default(ax[[1L]], ax[[2L]], type = "n", xaxs = "i", yaxs = "i",
                         xlab = if (is.null(xlab)) vars[1L] else xlab,
                         ylab = if (is.null(ylab)) vars[2L] else ylab,
                         main = if (is.null(main)) kc_method_label(object) else main, ...)
  zc <- matrix(as.integer(cls), grid, grid)
  graphics::image(ax[[1L]], ax[[2L]], zc, col = grDevices::adjustcolor(col, alpha.f = 0.25),
                  breaks = seq(0.5, G + 0.5), add = TRUE, useRaster = TRUE)
  # boundaries: the zero contours of the margins
  margins <- kc_plot_margins(object, scores, cls)
  for (c in seq_len(ncol(margins))) {
    graphics::contour(ax[[1L]], ax[[2L]], matrix(margins[, c], grid, grid), levels = 0,
                      drawlabels = FALSE, add = TRUE, lwd = 2)
  }
  kc_plot_extras(object, ax, scores, pd, vars)
  if (!is.null(pd$y)) {
    graphics::points(pd$inputs[[vars[1L]]], pd$inputs[[vars[2L]]],
                     col = col[as.integer(pd$y)], pch = 20 + as.integer(pd$y) %% 5,
                     bg = grDevices::adjustcolor(col[as.integer(pd$y)], alpha.f = 0.6))
    graphics::legend("topleft", legend = object$levels, col = col, pt.bg = col,
                     pch = 20 + seq_len(G) %% 5, bg = "white", cex = 0.8)
  }
  graphics::box()
  decision <- kc_decision(object, scores)
  invisible(list(x1 = ax[[1L]], x2 = ax[[2L]], class = matrix(as.character(cls), grid, grid),
                 decision = unname(decision)))
}

# What a classifier adds to its plot (the SVM: margins, support vectors).
kc_plot_extras <- function(object, ax, scores, pd, vars) UseMethod("kc_plot_extras")

#' @export
kc_plot_extras.kernclass <- function(object, ax, scores, pd, vars) invisible()

#' @export
kc_plot_extras.kernel_svm <- function(object, ax, scores, pd, vars) {
  grid <- length(ax[[1L]])
  if (ncol(scores) == 1L) {  # the margins f = -1 and f = +1 of seed 004's slab
    graphics::contour(ax[[1L]], ax[[2L]], matrix(scores[, 1L], grid, grid), levels = c(-1, 1),
                      drawlabels = FALSE, add = TRUE, lty = 2)
  }
  if (kc_plot_is_training(object, pd$inputs)) {  # circle the support vectors
    graphics::points(pd$inputs[[vars[1L]]][object$index], pd$inputs[[vars[2L]]][object$index],
                     pch = 1, cex = 1.9, lwd = 1.2)
  }
  invisible()
}

# Whether the points drawn are the training points (not just as many points).
kc_plot_is_training <- function(object, inputs) {
  if (nrow(inputs) != length(object$y)) return(FALSE)
  x <- tryCatch(kc_new_x(object, if (is.null(object$terms)) as.matrix(inputs) else inputs),
                error = function(e) NULL)
  !is.null(x) && isTRUE(all.equal(unname(x), unname(object$x)))
}

# The input variables (a data frame in the original units) and the labels.
kc_plot_data <- function(object, data, y) {
  if (is.null(object$terms)) {
    if (is.null(data)) {
      x <- object$x
      if (inherits(x, "kc_csr")) x <- as.matrix(x)  # sparse rows written out (guarded)
      if (!is.null(object$scaling)) {
        x <- sweep(sweep(x, 2L, object$scaling$scale, "*"), 2L, object$scaling$center, "+")
      }
      data <- x
      if (is.null(y)) y <- object$y
    }
    inputs <- as.data.frame(kc_as_numeric_matrix(data, "data"))
    if (!kc_names_unique(colnames(object$x)) && ncol(inputs) == ncol(object$x)) {
      # the model matches columns by position: name them so that `vars` can
      nm <- colnames(object$x)
      if (is.null(nm)) nm <- rep("", ncol(inputs))
      nm[nm == ""] <- paste0("V", which(nm == ""))
      names(inputs) <- make.unique(nm)
    }
  } else {
    if (is.null(data) || !is.data.frame(data)) {
      kc_abort("`data` must be the data frame to draw (the model was fitted to a data frame).",
               arg = "data")
    }
    vars <- all.vars(stats::delete.response(object$terms))
    missing <- setdiff(vars, names(data))
    if (length(missing)) {
      kc_abort(sprintf("`data` lacks column(s) %s used by the model.", kc_enum(missing)),
               arg = "data")
    }
    inputs <- data[vars]
    if (is.null(y) && attr(object$terms, "response") > 0L) {
      resp <- all.vars(object$terms)[1L]
      if (resp %in% names(data)) y <- data[[resp]]
    }
  }
  if (is.null(y) && nrow(inputs) == length(object$y)) y <- object$y
  if (!is.null(y)) y <- factor(y, levels = object$levels)
  if (!is.null(y) && length(y) != nrow(inputs)) {
    kc_abort("`y` must give one label per row of `data`.", arg = "y")
  }
  list(inputs = inputs, y = y)
}

kc_plot_vars <- function(vars, inputs) {
  available <- names(inputs)
  numeric <- available[vapply(inputs, is.numeric, logical(1))]
  if (is.null(vars)) vars <- utils::head(numeric, 2L)
  if (is.numeric(vars)) vars <- available[vars]
  if (length(vars) != 2L || anyNA(vars) || !all(vars %in% available)) {
    kc_abort(sprintf("`vars` must name two input variables among %s.", kc_enum(available)),
             arg = "vars")
  }
  for (v in vars) {
    if (!is.numeric(inputs[[v]])) {
      kc_abort(sprintf("`vars` must be numeric input variables; \"%s\" is not.", v), arg = "vars")
    }
  }
  vars
}

kc_plot_grid <- function(inputs, vars, ax, slice) {
  if (!is.list(slice) || (length(slice) && is.null(names(slice)))) {
    kc_abort("`slice` must be a named list of values for the other input variables.",
             arg = "slice")
  }
  g <- expand.grid(ax[[1L]], ax[[2L]], KEEP.OUT.ATTRS = FALSE)
  names(g) <- vars
  for (v in setdiff(names(inputs), vars)) {
    col <- inputs[[v]]
    value <- if (!is.null(slice[[v]])) slice[[v]] else if (is.numeric(col)) {
      stats::median(col, na.rm = TRUE)
    } else {
      names(which.max(table(col)))
    }
    if (!is.null(slice[[v]])) kc_check_slice(value, col, v)
    g[[v]] <- if (is.factor(col)) factor(value, levels = levels(col)) else value
  }
  g[names(inputs)]
}

# A slice value is one value of its column's kind: one of the levels of a
# factor (any other value would give NA grid points the model cannot score).
kc_check_slice <- function(value, col, v) {
  ok <- length(value) == 1L && !is.na(value) &&
    if (is.factor(col) || is.character(col)) {
      as.character(value) %in% if (is.factor(col)) levels(col) else unique(col)
    } else {
      (is.numeric(value) || is.logical(value)) && is.finite(value)
    }
  if (!ok) {
    what <- if (is.factor(col) || is.character(col)) {
      sprintf("one of its values %s", kc_enum(if (is.factor(col)) levels(col) else unique(col)))
    } else "one finite number"
    kc_abort(sprintf("`slice` gives `%s` a value it cannot take: give %s.", v, what),
             arg = "slice")
  }
}

# Columns whose zero contours are the decision boundaries. Class scores: where
# a class's score equals the best of the others (two classes: f_1 - f_2).
kc_plot_margins <- function(object, scores, cls) UseMethod("kc_plot_margins")

#' @export
kc_plot_margins.kernclass_scores <- function(object, scores, cls) {
  G <- ncol(scores)
  vapply(if (G == 2L) 1L else seq_len(G), function(c) {
    scores[, c] - apply(scores[, -c, drop = FALSE], 1L, max)
  }, numeric(nrow(scores)))
}

# Pairwise models: the decision value for two classes; with more, the edges
# of each voted class region (at the resolution of the grid).
#' @export
kc_plot_margins.kernclass_ovo <- function(object, scores, cls) {
  if (ncol(scores) == 1L) return(scores)
  vapply(seq_along(object$levels), function(c) (as.integer(cls) == c) - 0.5,
         numeric(length(cls)))
}
