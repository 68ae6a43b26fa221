#' Plot the decision regions of a kernclass classifier
#'
#' Draws, over two chosen input variables, the regions where each class is
#' predicted, the decision boundaries, and the points of `data` coloured by
#' class. The other input variables are held fixed: at `slice` where it gives
#' them, otherwise numbers at their medians and factors, logical and
#' character inputs at their most frequent value (in `data`); the subtitle
#' says which inputs are held and at what values.
#'
#' The boundaries are drawn smooth, as contours of the decision values on
#' the grid, not as the edges of the grid's class cells: for two classes the
#' zero contour of the decision value; for the class-score classifiers
#' ([kernel_means()], [kernel_parzen()]) with more classes, the contours
#' \eqn{f_a(x) = f_b(x)}{f_a(x) = f_b(x)} of two class scores where these two
#' are the largest (the top score equals the second); for the one-vs-one
#' classifiers ([kernel_bayes()], [kernel_svm()]), the zero contour of each
#' pair's decision value where changing the sign of that pair's vote changes
#' the predicted class. For two-class SVMs the margins
#' \eqn{f(x) = \pm 1}{f(x) = -1 and +1} are dashed, and the support vectors
#' circled when the points drawn are the training points.
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
#'   number each, one of the levels for a factor or character input, `TRUE`
#'   or `FALSE` for a logical input. Names that are not other
#'   input variables are an error.
#' @param grid Number of grid points along each axis.
#' @param col Colours of the classes.
#' @param main,sub,xlab,ylab Title, subtitle and axis labels. The default
#'   subtitle names the inputs held fixed and their values; `sub = ""`
#'   draws none.
#' @param ... Further graphical parameters for [graphics::plot.default()].
#' @return Invisibly, a list with the grid coordinates `x1`, `x2`; the
#'   predicted `class` on the grid (a character matrix, `x1` along rows);
#'   the `decision` values of the grid points (a vector for two classes, a
#'   matrix with a column per class otherwise, or per class pair for
#'   one-vs-one models such as [kernel_bayes()]); `held`, a named list of the
#'   values at which the other inputs were held (empty when there are none);
#'   and `boundary`, the boundary lines drawn, a list of pieces, each a list
#'   with coordinates `x`, `y` and the two `classes` it separates.
#' @export
#' @examples
#' fit <- kernel_means(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2)
#' plot(fit, iris)
#'
#' # four inputs: two drawn, the sepal measurements held at their medians
#' svm <- kernel_svm(Species ~ ., data = iris, cost = 10)
#' plot(svm, iris, vars = c("Petal.Length", "Petal.Width"))
#' # ... or at chosen values
#' plot(svm, iris, vars = c("Petal.Length", "Petal.Width"),
#'      slice = list(Sepal.Length = 7, Sepal.Width = 3))
#'
#' two <- droplevels(subset(iris, Species != "setosa"))
#' fit2 <- kernel_parzen(as.matrix(two[, 3:4]), two$Species, gamma = 2)
#' plot(fit2)
plot.kernclass <- function(x, data = NULL, vars = NULL, y = NULL, slice = list(), grid = 100,
                           col = NULL, main = NULL, sub = NULL, xlab = NULL, ylab = NULL, ...) {
  object <- x
  r <- kc_plot_regions(object, data, vars, y, slice, grid, arg = "x")
  ax <- r$ax
  vars <- r$vars
  pd <- r$pd
  G <- length(object$levels)
  if (is.null(col)) col <- grDevices::hcl.colors(G, "Dark 3")
  col <- rep_len(col, G)
  if (is.null(sub)) sub <- r$sub

  graphics::plot.default(ax[[1L]], ax[[2L]], type = "n", xaxs = "i", yaxs = "i",
                         xlab = if (is.null(xlab)) vars[1L] else xlab,
                         ylab = if (is.null(ylab)) vars[2L] else ylab,
                         main = if (is.null(main)) kc_method_label(object) else main, ...)
  zc <- matrix(as.integer(r$cls), grid, grid)
  graphics::image(ax[[1L]], ax[[2L]], zc, col = grDevices::adjustcolor(col, alpha.f = 0.25),
                  breaks = seq(0.5, G + 0.5), add = TRUE, useRaster = TRUE)
  for (piece in r$boundary) graphics::lines(piece$x, piece$y, lwd = 2)
  for (m in r$margins) graphics::lines(m$x, m$y, lty = 2)
  if (length(r$support)) {  # circle the support vectors
    graphics::points(pd$inputs[[vars[1L]]][r$support], pd$inputs[[vars[2L]]][r$support],
                     pch = 1, cex = 1.9, lwd = 1.2)
  }
  if (!is.null(pd$y)) {
    graphics::points(pd$inputs[[vars[1L]]], pd$inputs[[vars[2L]]],
                     col = col[as.integer(pd$y)], pch = 20 + as.integer(pd$y) %% 5,
                     bg = grDevices::adjustcolor(col[as.integer(pd$y)], alpha.f = 0.6))
    graphics::legend("topleft", legend = object$levels, col = col, pt.bg = col,
                     pch = 20 + seq_len(G) %% 5, bg = "white", cex = 0.8)
  }
  graphics::box()
  if (nzchar(sub)) {  # shrunk to the width of the plot when long
    width <- graphics::strwidth(sub, units = "inches")
    graphics::title(sub = sub, cex.sub = min(1, 0.98 * graphics::par("pin")[1L] / width))
  }
  invisible(list(x1 = ax[[1L]], x2 = ax[[2L]], class = matrix(as.character(r$cls), grid, grid),
                 decision = unname(r$decision), held = r$held$values, boundary = r$boundary))
}

# What a decision-region plot shows, computed once for plot() and autoplot():
# the grid axes `ax`, the model's `scores` and predicted classes `cls` on the
# grid, the points drawn `pd` (inputs and labels), the `vars` drawn, the
# inputs `held` and the subtitle `sub` naming them, the `boundary` pieces,
# the SVM's `margins` (contour lines f = -1, +1) and `support` (rows of the
# points drawn that are support vectors), and the grid's `decision` values.
# `arg` names the model argument in errors.
kc_plot_regions <- function(object, data, vars, y, slice, grid, arg = "x") {
  if (inherits(object$x, "kc_kernel_data")) {
    kc_abort(paste0("Decision-region plots draw the classes over two input columns; a model ",
                    "fitted on kernel values or on a kernel function's points has none. Plot ",
                    "its decision values instead (predict(type = \"decision\"))."), arg = arg,
             class = "kernel_data")
  }
  kc_check_number(grid, "grid", lower = 2, whole = TRUE)
  pd <- kc_plot_data(object, data, y)
  vars <- kc_plot_vars(vars, pd$inputs)
  held <- kc_plot_held(pd$inputs, vars, slice)
  ax <- lapply(vars, function(v) {
    r <- range(pd$inputs[[v]], finite = TRUE)
    r <- r + c(-1, 1) * 0.05 * max(diff(r), 1e-8)
    seq(r[1L], r[2L], length.out = grid)
  })
  scores <- kc_plot_scores(object, pd$inputs, vars, held$values,
                           expand.grid(ax[[1L]], ax[[2L]], KEEP.OUT.ATTRS = FALSE))
  boundary <- kc_plot_boundaries(object, ax, scores, function(pts) {
    kc_plot_scores(object, pd$inputs, vars, held$values, pts)
  })
  marks <- kc_plot_extras(object, ax, scores, pd, vars)
  list(ax = ax, vars = vars, pd = pd, held = held, sub = kc_plot_held_label(held),
       scores = scores, cls = kc_classify(object, scores), boundary = boundary,
       margins = marks$margins, support = marks$support, decision = kc_decision(object, scores))
}

# The model's scores at points `pts` (two columns: the values of `vars`),
# the other inputs held at `values`.
kc_plot_scores <- function(object, inputs, vars, values, pts) {
  g <- kc_plot_frame(inputs, vars, pts, values)
  newdata <- if (is.null(object$terms)) as.matrix(g) else g
  # the grid is built here, not given by the user: its problems name the grid
  x <- withCallingHandlers(kc_new_x(object, newdata), kernclass_unpredictable_warning =
    function(w) kc_abort(sprintf("The model cannot score all points of the plot's grid: %s",
                                 conditionMessage(w)), arg = "vars"),
    kernclass_input_error = function(e) {
      if (identical(e$arg, "newdata")) {
        kc_abort(sprintf("The model cannot score the plot's grid: %s",
                         sub("`newdata`", "the grid", conditionMessage(e), fixed = TRUE)),
                 arg = "data")
      }
    })
  kc_scores(object, x)
}

# Boundary lines: contours of the decision values on the grid, kept where
# they separate two predicted classes. `score_at(pts)` scores points exactly,
# so that the pieces are cut at the true class change, not at grid cells.
kc_plot_boundaries <- function(object, ax, scores, score_at) UseMethod("kc_plot_boundaries")

#' @export
kc_plot_boundaries.kernclass <- function(object, ax, scores, score_at) {
  lv <- object$levels
  if (length(lv) == 2L) {  # the zero contour of the decision value
    return(kc_plot_pieces(ax, list(kc_decision(object, scores)), NULL, lv, score_at))
  }
  pairs <- kc_ovo_pairs(lv)
  a <- pairs[, "first"]
  b <- pairs[, "second"]
  if (inherits(object, "kernclass_ovo")) {
    # pair m's decision is zero: a boundary where the sign of its vote
    # changes the class (between the classes of the two signs, which need not
    # be the pair's own: a tie of votes goes to the earlier level).  The
    # votes of all pairs are counted once; row i's pair's own vote is then
    # given to each side in turn. (The pairs' values are the decision values:
    # the scores can hold more, as the cells' column of each row's cell.)
    dec <- kc_decision(object, scores)
    d <- lapply(seq_len(nrow(pairs)), function(m) dec[, m])
    first <- outer(a, seq_along(lv), "==") * 1  # pair x class: the pair's first class
    second <- outer(b, seq_along(lv), "==") * 1
    sides <- function(s, set) {
      s <- kc_decision(object, s)
      rows <- seq_len(nrow(s))
      up <- (s > 0) * 1
      votes <- up %*% first + (1 - up) %*% second  # whole numbers, exact
      own <- cbind(rows, ifelse(up[cbind(rows, set)] == 1, a[set], b[set]))
      votes[own] <- votes[own] - 1
      side <- function(cls) {
        v <- votes
        v[cbind(rows, cls)] <- v[cbind(rows, cls)] + 1
        max.col(v, ties.method = "first")
      }
      cbind(side(a[set]), side(b[set]))
    }
  } else {
    # scores a and b are equal: a boundary where they are the top two
    d <- lapply(seq_len(nrow(pairs)), function(m) scores[, a[m]] - scores[, b[m]])
    sides <- function(s, set) {
      rows <- seq_len(nrow(s))
      mid <- (s[cbind(rows, a[set])] + s[cbind(rows, b[set])]) / 2
      others <- s
      others[cbind(rows, a[set])] <- -Inf
      others[cbind(rows, b[set])] <- -Inf
      top <- mid > others[cbind(rows, max.col(others, ties.method = "first"))]
      cbind(ifelse(top, a[set], NA_integer_), b[set])
    }
  }
  classes <- matrix(as.integer(kc_classify(object, scores)), length(ax[[1L]]))
  kc_plot_pieces(ax, d, sides, lv, score_at, kc_plot_near_boundary(ax, classes))
}

# The zero contours of the decision values `d` (a list of grid values, x1
# along rows), each cut into pieces along which the pair of classes on its
# two sides stays the same: `sides(scores, set)` gives, for points of contour
# sets `set`, a two-column matrix of the class indices on the two sides of
# the line (equal or NA where it is no boundary); with `sides` NULL the whole
# contour is a boundary between the two classes. A piece ends where the pair
# changes, found by bisection on the segment between neighbouring points, so
# that lines meet where three regions touch. Only the points that
# `near(points)` keeps (all when NULL) are scored, the others are no
# boundary. The points of all contours are scored together, in one call of
# `score_at` for the contours and one per bisection step, however many
# contours there are.
kc_plot_pieces <- function(ax, d, sides, levels, score_at, near = NULL) {
  grid <- length(ax[[1L]])
  lines <- list()
  set_of_line <- integer()
  for (s in seq_along(d)) {
    z <- matrix(d[[s]], grid, grid)
    if (!any(z > 0, na.rm = TRUE) || !any(z < 0, na.rm = TRUE)) next
    found <- grDevices::contourLines(ax[[1L]], ax[[2L]], z, levels = 0)
    lines <- c(lines, found)
    set_of_line <- c(set_of_line, rep(s, length(found)))
  }
  if (!length(lines)) return(list())
  pts <- do.call(rbind, lapply(lines, function(l) cbind(l$x, l$y)))
  line_of <- rep(seq_along(lines), vapply(lines, function(l) length(l$x), integer(1)))
  set_of <- set_of_line[line_of]
  pair_at <- function(p, set) {  # "i j" (i < j) for a boundary, NA otherwise
    if (is.null(sides)) return(rep("1 2", nrow(p)))
    out <- rep(NA_character_, nrow(p))
    todo <- if (is.null(near)) rep(TRUE, nrow(p)) else near(p)
    if (!any(todo)) return(out)
    sd <- sides(score_at(as.data.frame(p[todo, , drop = FALSE])), set[todo])
    lo <- pmin(sd[, 1L], sd[, 2L])
    hi <- pmax(sd[, 1L], sd[, 2L])
    out[todo] <- ifelse(!is.na(lo) & lo != hi, paste(lo, hi), NA_character_)
    out
  }
  label <- pair_at(pts, set_of)
  same <- function(u, v) (is.na(u) & is.na(v)) | (!is.na(u) & !is.na(v) & u == v)
  # where the pair changes between neighbours of one line: bisect the segment
  n <- nrow(pts)
  j <- which(line_of[-n] == line_of[-1L] & !same(label[-n], label[-1L]))
  cross_lo <- cross_hi <- matrix(numeric(), 0L, 2L)
  if (length(j)) {
    lo <- pts[j, , drop = FALSE]
    hi <- pts[j + 1L, , drop = FALSE]
    for (step in 1:12) {
      mid <- (lo + hi) / 2
      k <- same(pair_at(mid, set_of[j]), label[j])
      lo[k, ] <- mid[k, ]
      hi[!k, ] <- mid[!k, ]
    }
    cross_lo <- lo  # the end of the run before the change
    cross_hi <- hi  # the start of the run after it
  }
  pieces <- list()
  for (i in seq_along(lines)) {
    idx_line <- which(line_of == i)
    runs <- rle(label[idx_line])
    ends <- cumsum(runs$lengths)
    starts <- ends - runs$lengths + 1L
    for (r in which(!is.na(runs$values))) {
      idx <- idx_line[starts[r]:ends[r]]
      before <- match(idx[1L] - 1L, j)
      after <- match(idx[length(idx)], j)
      xy <- rbind(if (!is.na(before)) cross_hi[before, ], pts[idx, , drop = FALSE],
                  if (!is.na(after)) cross_lo[after, ])
      if (nrow(xy) >= 2L) {
        cls <- as.integer(strsplit(runs$values[r], " ", fixed = TRUE)[[1L]])
        pieces[[length(pieces) + 1L]] <- list(x = xy[, 1L], y = xy[, 2L], classes = levels[cls])
      }
    }
  }
  pieces
}

# Which contour points can lie on a boundary, from the grid's `classes` (a
# grid x grid matrix of class indices): a function of points (a two-column
# matrix), true where the 5 x 5 nodes around the point's nearest node hold
# more than one class. Elsewhere a boundary through the point would enclose
# a region that reaches no node within one and a half grid steps of it,
# thinner than the grid can draw.
kc_plot_near_boundary <- function(ax, classes) {
  grid <- length(ax[[1L]])
  nodes <- seq_len(grid)
  lo <- hi <- classes
  for (di in -2:2) for (dj in -2:2) {
    z <- classes[pmin(pmax(nodes + di, 1L), grid), pmin(pmax(nodes + dj, 1L), grid), drop = FALSE]
    lo <- pmin(lo, z)
    hi <- pmax(hi, z)
  }
  mixed <- lo != hi
  nearest <- function(v, at) {
    pmin(pmax(round((v - at[1L]) / (at[grid] - at[1L]) * (grid - 1L)) + 1L, 1L), grid)
  }
  function(p) mixed[cbind(nearest(p[, 1L], ax[[1L]]), nearest(p[, 2L], ax[[2L]]))]
}

# What a classifier adds to its plot: `margins`, a list of lines (x, y) and
# `support`, the rows of the points drawn to circle (the SVM's margins and
# support vectors; none for the others).
kc_plot_extras <- function(object, ax, scores, pd, vars) UseMethod("kc_plot_extras")

#' @export
kc_plot_extras.kernclass <- function(object, ax, scores, pd, vars) {
  list(margins = list(), support = integer())
}

#' @export
kc_plot_extras.kernel_svm <- function(object, ax, scores, pd, vars) {
  grid <- length(ax[[1L]])
  margins <- list()
  # the margins f = -1 and f = +1: the edges of the slab (the one-class SVM has none)
  dec <- kc_decision(object, scores)
  if (is.null(dim(dec)) && !inherits(object, "kernel_svm_oneclass")) {
    margins <- grDevices::contourLines(ax[[1L]], ax[[2L]], matrix(dec, grid, grid),
                                       levels = c(-1, 1))
  }
  support <- if (kc_plot_is_training(object, pd$inputs)) object$index else integer()
  list(margins = margins, support = support)
}

# Whether the points drawn are the training points (not just as many points).
kc_plot_is_training <- function(object, inputs) {
  if (nrow(inputs) != nrow(object$x)) return(FALSE)
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

# The values at which the inputs other than `vars` are held: `slice` where
# it names them, else the median of a number, the most frequent value of a
# factor, a logical or a character input, of the column's own type. `how`
# says which, per input.
kc_plot_held <- function(inputs, vars, slice) {
  if (!is.list(slice) || (length(slice) && (is.null(names(slice)) || any(names(slice) == "")))) {
    kc_abort("`slice` must be a named list of values for the other input variables.",
             arg = "slice")
  }
  others <- setdiff(names(inputs), vars)
  stray <- setdiff(names(slice), others)
  if (length(stray)) {
    kc_abort(sprintf("`slice` names %s, which %s not among the inputs held fixed (%s).",
                     kc_enum(stray), if (length(stray) == 1L) "is" else "are",
                     if (length(others)) kc_enum(others) else "none"), arg = "slice")
  }
  values <- list()
  how <- character()
  for (v in others) {
    col <- inputs[[v]]
    if (!is.null(slice[[v]])) {
      kc_check_slice(slice[[v]], col, v)
      values[[v]] <- slice[[v]]
      how[v] <- "given"
    } else if (is.numeric(col)) {
      values[[v]] <- stats::median(col, na.rm = TRUE)
      how[v] <- "median"
    } else {  # one element of the column itself: a logical, a factor or a string
      values[[v]] <- col[match(names(which.max(table(col))), as.character(col))]
      how[v] <- "most frequent"
    }
  }
  list(values = values, how = how)
}

# "Held at: a = 1, b = 2 (medians)": the subtitle naming the held inputs.
kc_plot_held_label <- function(held) {
  if (!length(held$values)) return("")
  shown <- vapply(held$values, function(v) {
    if (is.numeric(v)) format(signif(v, 3)) else as.character(v)
  }, character(1))
  items <- paste(names(held$values), "=", shown)
  plural <- c(median = "medians", "most frequent" = "most frequent levels", given = "given")
  if (length(unique(held$how)) == 1L) {
    sprintf("Held at: %s (%s)", paste(items, collapse = ", "), plural[[held$how[1L]]])
  } else {
    sprintf("Held at: %s", paste(sprintf("%s (%s)", items, held$how), collapse = ", "))
  }
}

# A data frame of the inputs at points `pts` (two columns: `vars`), the other
# inputs at their held values, in the inputs' order.
kc_plot_frame <- function(inputs, vars, pts, values) {
  g <- as.data.frame(pts)
  names(g) <- vars
  for (v in names(values)) {
    col <- inputs[[v]]
    g[[v]] <- if (is.factor(col)) factor(values[[v]], levels = levels(col)) else values[[v]]
  }
  g[names(inputs)]
}

# A slice value is one value of its column's kind: one of the levels of a
# factor, TRUE or FALSE for a logical (any other value would give grid
# points the model cannot score).
kc_check_slice <- function(value, col, v) {
  ok <- length(value) == 1L && !is.na(value) &&
    if (is.factor(col) || is.character(col)) {
      as.character(value) %in% if (is.factor(col)) levels(col) else unique(col)
    } else if (is.logical(col)) {
      is.logical(value)
    } else {
      (is.numeric(value) || is.logical(value)) && is.finite(value)
    }
  if (!ok) {
    what <- if (is.factor(col) || is.character(col)) {
      sprintf("one of its values %s", kc_enum(if (is.factor(col)) levels(col) else unique(col)))
    } else if (is.logical(col)) "TRUE or FALSE" else "one finite number"
    kc_abort(sprintf("`slice` gives `%s` a value it cannot take: give %s.", v, what),
             arg = "slice")
  }
}
