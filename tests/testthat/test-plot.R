# The plots: the tuning heat map's axes (log for geometric grids, equal
# cells), its return value and errors; decision-region plots: the inputs
# held and their values, and boundaries that are contours of the decision
# values (checked with predict(), not with the plot's own code).

plot_to_null <- function() {
  grDevices::pdf(NULL)
  dev <- grDevices::dev.cur()
  withr_close <- function() if (dev %in% grDevices::dev.list()) grDevices::dev.off(dev)
  withr_close
}

test_that("the tuning axis is log exactly when the grid is geometric", {
  scale <- kernclass:::kc_tune_scale
  expect_identical(scale(10^(-2:0)), "log")       # the README's gamma: a span of 100
  expect_identical(scale(10^(-1:2)), "log")
  expect_identical(scale(2^(0:5)), "log")
  expect_identical(scale(c(0.5, 1, 2)), "log")    # a span of 4
  expect_identical(scale(10^(-6:6)), "log")       # any span
  expect_identical(scale(c(1, 10)), "log")        # two values: a ratio of 2 or more
  expect_identical(scale(c(1, 1.5)), "linear")
  expect_identical(scale(1:4), "linear")
  expect_identical(scale(c(-1, 0, 1)), "linear")
  expect_identical(scale(c(0, 1, 2)), "linear")   # zero: not on a log axis
  expect_identical(scale(c(0.1, 1, 5, 100)), "ordinal")
  expect_identical(scale(c(0.01, 1, 10, 1000)), "ordinal")  # wide but not geometric
  expect_identical(scale(3), "linear")
  # values as R computes them (rounding in 10^x, 0.1 * 3) still count
  expect_identical(scale(sort(c(0.1, 0.1 * 3, 0.1 * 9, 0.1 * 27))), "log")
  expect_identical(scale(seq(0.1, 0.9, by = 0.2)), "linear")
})

test_that("the tuning axis has equal cells with the values at their centres", {
  axis <- kernclass:::kc_tune_axis
  a <- axis(c(1, 0.01, 0.1, 0.1), "gamma")
  expect_identical(a$scale, "log")
  expect_equal(a$values, c(0.01, 0.1, 1))
  expect_equal(a$at, a$values)
  expect_equal(diff(log10(a$edges)), rep(1, 3))   # equal on the log axis
  expect_equal(sqrt(a$edges[-1] * a$edges[-4]), a$at)  # centres
  expect_identical(a$labels, c("0.01", "0.1", "1"))
  expect_match(a$label, "gamma \\(log scale\\)")

  l <- axis(c(2, 4, 6), "degree")
  expect_identical(l$scale, "linear")
  expect_equal(l$edges, c(1, 3, 5, 7))
  o <- axis(c(0.1, 1, 5, 100), "cost")
  expect_identical(o$scale, "ordinal")
  expect_equal(o$at, 1:4)
  expect_equal(o$edges, c(0.5, 1.5, 2.5, 3.5, 4.5))
  expect_identical(o$labels, c("0.1", "1", "5", "100"))
  expect_match(o$label, "grid order")
})

test_that("plot() of a tuning result draws log axes for the README grid and returns it", {
  set.seed(1)
  tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species, folds = 3,
                       grid = list(cost = 10^(-1:2), gamma = 10^(-2:0)))
  close <- plot_to_null()
  on.exit(close())
  mar <- graphics::par("mar")
  expect_identical(expect_invisible(plot(tuned)), tuned)
  expect_true(graphics::par("xlog"))
  expect_true(graphics::par("ylog"))
  # the plot region is exactly the cells: half a decade beyond the values
  expect_equal(graphics::par("usr"), c(-1.5, 2.5, -2.5, 0.5))
  expect_identical(graphics::par("mar"), mar)  # the key's margin is given back

  expect_identical(plot(tuned, params = c("gamma", "cost"), metric = "sd"), tuned)
  expect_identical(plot(tuned, params = "gamma"), tuned)
  expect_true(graphics::par("xlog"))
  expect_error(plot(tuned, metric = "nope"), "`metric` must name", class = "kernclass_error")
  expect_error(plot(tuned, metric = "cost"), "`metric` must name", class = "kernclass_error")
  expect_error(plot(tuned, params = c("cost", "cost")), "`params`", class = "kernclass_error")
  expect_error(plot(tuned, digits = -1), "`digits`", class = "kernclass_error")

  # an uneven grid: equal cells by grid order; an even one: linear; no log axis
  set.seed(1)
  t2 <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species, folds = 3,
                    grid = list(cost = c(0.1, 1, 5, 100), gamma = c(0.5, 1, 1.5)))
  expect_identical(plot(t2), t2)
  expect_false(graphics::par("xlog"))
  expect_false(graphics::par("ylog"))
  expect_equal(graphics::par("usr"), c(0.5, 4.5, 0.25, 1.75))
})

test_that("a plot over two of four inputs holds the others at their medians and says so", {
  fit <- kernel_svm(Species ~ ., data = iris, cost = 10)
  close <- plot_to_null()
  on.exit(close())
  res <- withVisible(plot(fit, iris, vars = c("Petal.Length", "Petal.Width"), grid = 30))
  expect_false(res$visible)
  r <- res$value
  expect_equal(r$held, list(Sepal.Length = median(iris$Sepal.Length),
                            Sepal.Width = median(iris$Sepal.Width)))
  # the classes drawn are predict()'s at the held values
  g <- expand.grid(Petal.Length = r$x1, Petal.Width = r$x2)
  g$Sepal.Length <- median(iris$Sepal.Length)
  g$Sepal.Width <- median(iris$Sepal.Width)
  expect_identical(as.vector(r$class), as.character(predict(fit, g)))

  held <- kernclass:::kc_plot_held(iris[1:4], c("Petal.Length", "Petal.Width"), list())
  expect_identical(kernclass:::kc_plot_held_label(held),
                   "Held at: Sepal.Length = 5.8, Sepal.Width = 3 (medians)")
  held2 <- kernclass:::kc_plot_held(iris[1:4], c("Sepal.Length", "Sepal.Width"),
                                    list(Petal.Length = 4))
  expect_identical(kernclass:::kc_plot_held_label(held2),
                   "Held at: Petal.Length = 4 (given), Petal.Width = 1.3 (median)")
  d <- data.frame(a = 1:6, b = c(2, 5, 1, 7, 3, 3), f = factor(c("u", "v", "v", "v", "u", "v")))
  held3 <- kernclass:::kc_plot_held(d, c("a", "b"), list())
  expect_identical(kernclass:::kc_plot_held_label(held3), "Held at: f = v (most frequent levels)")
  expect_identical(kernclass:::kc_plot_held_label(kernclass:::kc_plot_held(d[1:2], c("a", "b"),
                                                                          list())), "")

  r2 <- plot(fit, iris, vars = 3:4, slice = list(Sepal.Length = 7), grid = 10)
  expect_equal(r2$held, list(Sepal.Length = 7, Sepal.Width = median(iris$Sepal.Width)))
  expect_error(plot(fit, iris, vars = 3:4, slice = list(Petal.Width = 1)),
               "`slice` names \"Petal.Width\", which is not among the inputs held fixed",
               class = "kernclass_input_error")
  expect_error(plot(fit, iris, vars = 3:4, slice = list(Sepal.Length = 1, 2)),
               "`slice` must be a named list", class = "kernclass_input_error")
  expect_invisible(plot(fit, iris, vars = 3:4, sub = "", grid = 10))
})

# For each boundary piece: the two classes it separates are predicted on
# either side (within half a grid step), and a decision value is zero along
# it (one-vs-one: a pair's; class scores: the two classes' scores, equal and
# the largest).
check_boundary <- function(fit, data, r, vars) {
  expect_true(length(r$boundary) > 0L)
  step <- max(diff(range(r$x1)) / (length(r$x1) - 1), diff(range(r$x2)) / (length(r$x2) - 1))
  delta <- 0.5 * step
  both <- numeric()
  for (piece in r$boundary) {
    p <- data.frame(piece$x, piece$y)
    names(p) <- vars
    offsets <- list(c(-1, 0), c(1, 0), c(0, -1), c(0, 1), c(-1, -1), c(1, 1), c(-1, 1), c(1, -1))
    near <- lapply(offsets, function(o) {
      q <- p
      q[[1]] <- q[[1]] + o[1] * delta
      q[[2]] <- q[[2]] + o[2] * delta
      as.character(predict(fit, q))
    })
    near <- do.call(cbind, near)
    both <- c(both, apply(near, 1, function(cl) all(piece$classes %in% cl)))
    dec <- predict(fit, p, type = "decision")
    if (inherits(fit, "kernclass_ovo")) {
      # on the zero contour of some pair's decision (not always the pair of
      # the two classes: a tie of votes goes to the earlier level)
      spread <- apply(r$decision, 2, function(v) diff(range(v)))
      rel <- abs(dec) / rep(spread, each = nrow(dec))
      expect_lt(max(apply(rel, 1, min)), 0.02)
    } else {
      a <- dec[, piece$classes[1]]
      b <- dec[, piece$classes[2]]
      others <- dec[, setdiff(colnames(dec), piece$classes), drop = FALSE]
      expect_lt(max(abs(a - b)), 0.02 * diff(range(r$decision)))
      expect_true(all(pmin(a, b) >= apply(others, 1, max) - 0.02 * diff(range(r$decision))))
    }
  }
  expect_gt(mean(both), 0.97)
  # not the staircase of the class grid: contour points between grid points
  # are interpolated, not all midway (as the edges of class cells would be)
  pts <- do.call(rbind, lapply(r$boundary, function(p) cbind(p$x, p$y)))
  frac <- function(v, ax) {
    u <- (v - ax[1]) / (ax[2] - ax[1])
    u - floor(u)
  }
  mid <- abs(frac(pts[, 1], r$x1) - 0.5) < 1e-6 | abs(frac(pts[, 2], r$x2) - 0.5) < 1e-6
  expect_lt(mean(mid), 0.2)
}

test_that("three-class boundaries of a one-vs-one model are contours of the pair decisions", {
  close <- plot_to_null()
  on.exit(close())
  svm <- kernel_svm(Species ~ Petal.Length + Petal.Width, data = iris, cost = 10)
  r <- plot(svm, iris, grid = 60)
  check_boundary(svm, iris, r, c("Petal.Length", "Petal.Width"))
  # every pair of classes that touch in the plot has a piece
  pairs <- unique(vapply(r$boundary, function(p) paste(p$classes, collapse = "/"), ""))
  expect_setequal(pairs, c("setosa/versicolor", "setosa/virginica", "versicolor/virginica"))

  bayes <- kernel_bayes(Species ~ Sepal.Length + Sepal.Width, data = iris, type = 1)
  check_boundary(bayes, iris, plot(bayes, iris, grid = 60), c("Sepal.Length", "Sepal.Width"))
})

test_that("three-class boundaries of a class-score model are where the top two scores meet", {
  close <- plot_to_null()
  on.exit(close())
  fit <- kernel_means(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2)
  check_boundary(fit, iris, plot(fit, iris, grid = 60), c("Petal.Length", "Petal.Width"))
  pz <- kernel_parzen(Species ~ Sepal.Length + Sepal.Width, data = iris, gamma = 2)
  check_boundary(pz, iris, plot(pz, iris, grid = 60), c("Sepal.Length", "Sepal.Width"))
})

test_that("a two-class boundary is the zero contour of the decision value", {
  close <- plot_to_null()
  on.exit(close())
  two <- droplevels(subset(iris, Species != "setosa"))
  fit <- kernel_svm(Species ~ Petal.Length + Petal.Width, data = two, cost = 1)
  r <- plot(fit, two, grid = 50)
  expect_true(all(vapply(r$boundary, function(p) identical(p$classes, levels(two$Species)),
                         logical(1))))
  pts <- do.call(rbind, lapply(r$boundary, function(p) data.frame(Petal.Length = p$x,
                                                                  Petal.Width = p$y)))
  expect_lt(max(abs(predict(fit, pts, type = "decision"))), 0.02 * diff(range(r$decision)))
  # one class everywhere: no boundary, and no error
  far <- plot(fit, two, grid = 10, slice = list())
  expect_type(far$boundary, "list")
})

test_that("the heat map draws the metric the grid was judged by, best = smallest log-loss", {
  set.seed(1)
  tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species, folds = 3, metric = "logloss",
                       probability = TRUE, grid = list(cost = c(1, 10), gamma = 10^(-1:0)))
  close <- plot_to_null()
  on.exit(close())
  # the one-parameter line shows, per gamma, the smallest log-loss over
  # cost: its y range is theirs, widened by R's 4%
  expect_identical(plot(tuned, params = "gamma"), tuned)
  r <- tuned$results
  v <- range(tapply(r$logloss, r$gamma, min))
  expect_equal(graphics::par("usr")[3:4], v + c(-1, 1) * 0.04 * diff(v))
  expect_identical(plot(tuned), tuned)
})

# The boundary pieces of a plot with three or more classes, derived directly
# from their definition: every point of every pair's zero contour on the
# plot's grid, scored exactly, labelled by the classes on its two sides
# (one-vs-one: the class with the pair's vote given to each class of the
# pair, the other votes counted from the scores; class scores: the pair
# when its two scores are the largest), one pair at a time.  Returns the
# labelled points as "x y label" strings.
reference_boundary_points <- function(fit, r, vars) {
  lv <- fit$levels
  K <- length(lv)
  pairs <- t(combn(K, 2))
  dec <- r$decision
  out <- character()
  for (m in seq_len(nrow(pairs))) {
    a <- pairs[m, 1]
    b <- pairs[m, 2]
    z <- if (inherits(fit, "kernclass_ovo")) dec[, m] else dec[, a] - dec[, b]
    z <- matrix(z, length(r$x1))
    for (l in contourLines(r$x1, r$x2, z, levels = 0)) {
      p <- data.frame(l$x, l$y)
      names(p) <- vars
      s <- predict(fit, p, type = "decision")
      for (i in seq_len(nrow(p))) {
        if (inherits(fit, "kernclass_ovo")) {
          side <- function(vote_for) {
            votes <- integer(K)
            for (q in seq_len(nrow(pairs))) {
              w <- if (q == m) vote_for else if (s[i, q] > 0) pairs[q, 1] else pairs[q, 2]
              votes[w] <- votes[w] + 1L
            }
            which.max(votes)  # ties to the earlier level
          }
          cls <- sort(c(side(a), side(b)))
          if (cls[1] == cls[2]) next
        } else {
          if (!((s[i, a] + s[i, b]) / 2 > max(s[i, -c(a, b)]))) next
          cls <- c(a, b)
        }
        out <- c(out, paste(l$x[i], l$y[i], paste(lv[cls], collapse = "/")))
      }
    }
  }
  out
}

test_that("the boundary pieces hold exactly the contour points that separate two classes", {
  close <- plot_to_null()
  on.exit(close())
  set.seed(11)
  K <- 5
  centres <- cbind(cos(2 * pi * (1:K) / K), sin(2 * pi * (1:K) / K)) * 2.5
  d <- data.frame(centres[rep(1:K, each = 30), ] + matrix(rnorm(2 * K * 30), ncol = 2))
  names(d) <- c("u", "v")
  d$y <- factor(rep(letters[1:K], each = 30))
  fits <- list(kernel_means(y ~ u + v, data = d, gamma = 0.5),
               kernel_svm(y ~ u + v, data = d, gamma = 0.5),
               kernel_bayes(y ~ u + v, data = d, gamma = 0.5))
  for (fit in fits) {
    r <- plot(fit, d, grid = 40)
    # the pieces' points, less the ends found by bisection (between contour points)
    drawn <- unlist(lapply(r$boundary, function(p) {
      paste(p$x, p$y, paste(p$classes, collapse = "/"))
    }))
    expected <- reference_boundary_points(fit, r, c("u", "v"))
    expect_gt(length(expected), 40)
    expect_setequal(intersect(drawn, expected), expected)
    # every drawn point not a contour point is a piece's end
    ends <- unlist(lapply(r$boundary, function(p) {
      n <- length(p$x)
      paste(p$x[c(1, n)], p$y[c(1, n)], paste(p$classes, collapse = "/"))
    }))
    expect_true(all(setdiff(drawn, expected) %in% ends))
  }
})

test_that("plot() of a kernel_cv draws the folds or the confusion table, as autoplot()", {
  set.seed(2)
  cv <- kernel_cv(kernel_parzen, iris[, 3:4], iris$Species, folds = 4)
  close <- plot_to_null()
  on.exit(close())
  mar <- graphics::par("mar")
  expect_identical(expect_invisible(plot(cv)), cv)
  # the y range holds every fold's value and the band
  usr <- graphics::par("usr")
  expect_lte(usr[3L], min(cv$fold_value, cv$accuracy - cv$se))
  expect_gte(usr[4L], max(cv$fold_value, cv$accuracy + cv$se))
  expect_identical(plot(cv, type = "confusion"), cv)
  expect_identical(graphics::par("mar"), mar)
  loo <- kernel_cv(kernel_means, iris[, 3:4], iris$Species, folds = "loo")
  expect_identical(plot(loo), loo)
  expect_error(plot(cv, type = "pie"), class = "kernclass_input_error")
})

test_that("plot() of a race runs on a null device and marks the dropped rows", {
  set.seed(1)
  tuned <- kernel_tune(kernel_svm, iris[, 1:4], iris$Species, folds = 5,
                       grid = list(cost = 10^(-1:2), gamma = 10^(-2:1)))
  expect_true(any(tuned$results$folds_run < 5))
  close <- plot_to_null()
  on.exit(close())
  mar <- graphics::par("mar")
  expect_identical(plot(tuned), tuned)
  expect_identical(plot(tuned, params = "gamma"), tuned)
  expect_identical(graphics::par("mar"), mar)
  # the notes: dropped rows, screening estimates
  d <- kernclass:::kc_tune_plot_data(tuned, NULL, NULL)
  expect_true(any(grepl("grey cells: rows the race dropped", d$notes, fixed = TRUE)))
  expect_true(any(grepl("screening estimates", d$notes, fixed = TRUE)))
  # the cells whose one row was dropped are the marked ones
  r <- tuned$results
  marked <- d$dropped[cbind(match(r$cost, d$ax[[1L]]$values), match(r$gamma, d$ax[[2L]]$values))]
  expect_identical(marked, r$folds_run < 5)
})

# ---- plots of models with logical, factor and character inputs ---------------

mixed_frame <- function(n = 60) {
  set.seed(11)
  x1 <- rnorm(n)
  x2 <- rnorm(n)
  flag <- rep(c(TRUE, FALSE, TRUE), length.out = n)      # TRUE most frequent
  grp <- factor(rep(c("a", "b", "b"), length.out = n), levels = c("b", "a", "c"))
  tag <- rep(c("u", "v", "v", "w"), length.out = n)      # "v" most frequent
  y <- factor(ifelse(x1 + x2 + flag > 0.5, "p", "q"))
  data.frame(x1 = x1, x2 = x2, flag = flag, grp = grp, tag = tag, y = y,
             stringsAsFactors = FALSE)
}

test_that("plot() holds logical, factor and character inputs at their most frequent value, typed", {
  d <- mixed_frame()
  fits <- list(svm = kernel_svm(y ~ ., data = d, gamma = 0.5),
               means = kernel_means(y ~ ., data = d, gamma = 0.5))
  for (nm in names(fits)) {
    grDevices::pdf(NULL)
    res <- tryCatch(plot(fits[[nm]], data = d, vars = c("x1", "x2")),
                    finally = grDevices::dev.off())
    expect_identical(res$held$flag, TRUE, info = nm)
    expect_identical(res$held$grp, factor("b", levels = levels(d$grp)), info = nm)
    expect_identical(res$held$tag, "v", info = nm)
    # the plotted classes are the model's predictions at the held values
    g <- expand.grid(x1 = res$x1, x2 = res$x2)
    nd <- data.frame(g, flag = TRUE, grp = factor("b", levels = levels(d$grp)), tag = "v",
                     stringsAsFactors = FALSE)
    expect_identical(as.vector(res$class), as.character(predict(fits[[nm]], nd)), info = nm)
  }
})

test_that("a plot whose grid the model cannot score blames the grid, not newdata", {
  d <- mixed_frame()
  fit <- kernel_svm(y ~ ., data = d, gamma = 0.5)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  err <- tryCatch(plot(fit, data = d, vars = c("x1", "x2"), slice = list(flag = 1)),
                  error = function(e) e)
  expect_s3_class(err, "kernclass_error")
  expect_identical(err$arg, "slice")
  expect_no_match(conditionMessage(err), "newdata")
  expect_identical(plot(fit, data = d, vars = c("x1", "x2"), slice = list(flag = FALSE))$held$flag,
                   FALSE)
  # a column whose type differs from the fit's: the grid built from it is named
  set.seed(2)
  n <- data.frame(a = rnorm(40), b = rnorm(40), c = rnorm(40), y = factor(rep(1:2, 20)))
  fit <- kernel_svm(y ~ ., data = n)
  n$c <- as.character(round(n$c))
  err <- tryCatch(plot(fit, data = n, vars = c("a", "b")), error = function(e) e)
  expect_s3_class(err, "kernclass_error")
  expect_match(conditionMessage(err), "grid")
  expect_no_match(conditionMessage(err), "newdata")
})

test_that("plot() scores the boundaries of all class pairs together, not pair by pair", {
  set.seed(8)
  K <- 6
  y <- factor(rep(letters[1:K], each = 20))
  x <- cbind(cos(2 * pi * as.integer(y) / K), sin(2 * pi * as.integer(y) / K)) * 2 +
    matrix(rnorm(2 * length(y), sd = 0.6), ncol = 2)
  calls <- new.env()
  calls$n <- 0L
  count <- bquote(assign("n", .(calls)$n + 1L, envir = .(calls)))
  suppressMessages(trace("kc_plot_scores", tracer = count, print = FALSE,
                         where = asNamespace("kernclass")))
  on.exit(suppressMessages(untrace("kc_plot_scores", where = asNamespace("kernclass"))),
          add = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  for (fit in list(kernel_svm(x, y, gamma = 1), kernel_means(x, y, gamma = 1))) {
    calls$n <- 0L
    res <- plot(fit, grid = 40)
    expect_gt(length(res$boundary), K - 1L)  # boundaries between several pairs drawn
    # the grid once, then all contours' points once and once per bisection
    # step (12), however many of the 15 pairs have contours
    expect_lte(calls$n, 1L + 1L + 12L)
  }
})

test_that("plot() of a tuning over `approx` labels each approximation", {
  d <- rare_class(n = 120)
  set.seed(6)
  tuned <- kernel_tune(kernel_svm, d$x, d$y, folds = 3,
                       grid = list(approx = list(nystrom(m = 5), nystrom(m = 20)), cost = c(1, 10)))
  expect_match(capture.output(print(tuned)), "approx = nystrom\\(m = [0-9]+\\)", all = FALSE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(tuned), tuned)
  expect_identical(plot(tuned, params = "approx"), tuned)
  coded <- kernclass:::kc_tune_plot_codes(tuned$results, tuned$best)
  expect_identical(attr(coded$results$approx, "labels"), c("nystrom(m = 5)", "nystrom(m = 20)"))
  expect_identical(coded$best$approx, match(tuned$best$approx$m, c(5L, 20L)))
  ax <- kernclass:::kc_tune_axis_labelled(coded$results$approx, "approx")
  expect_identical(ax$labels, c("nystrom(m = 5)", "nystrom(m = 20)"))
  expect_identical(format(cells(size = 500)), "cells(size = 500)")
  expect_identical(format(random_fourier(m = 64)), "random_fourier(m = 64)")
})
