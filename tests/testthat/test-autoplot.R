# autoplot(): for every model type and tuning result, a ggplot that builds
# without warnings, with the layers and scales ?autoplot.kernclass names;
# the regions are checked against predict() on the grid, not against the
# plot's own code. About 10 s.

skip_if_not_installed("ggplot2")
autoplot <- ggplot2::autoplot

built <- function(p) {
  expect_s3_class(p, "ggplot")
  expect_no_warning(b <- ggplot2::ggplot_build(p))
  b
}
geoms <- function(p) vapply(p$layers, function(l) class(l$geom)[1L], "")
has_scale <- function(p, aes) !is.null(p$scales$get_scales(aes))

# the decision regions are the classes predict() gives at the grid points
expect_regions <- function(p, fit, data) {
  r <- p$data
  g <- as.data.frame(data)[rep(1L, nrow(r)), , drop = FALSE]
  vars <- c(p$labels$x, p$labels$y)
  g[[vars[1L]]] <- r$x
  g[[vars[2L]]] <- r$y
  if (is.matrix(data)) g <- as.matrix(g)
  expect_identical(as.character(r$class), as.character(predict(fit, g)))
}

two <- droplevels(subset(iris, Species != "setosa"))
x2 <- as.matrix(two[, 3:4])

test_that("autoplot() of every model type builds with its documented layers", {
  set.seed(1)
  fits <- list(
    means = kernel_means(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2),
    parzen = kernel_parzen(x2, two$Species, gamma = 2),
    bayes = kernel_bayes(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2),
    svm3 = kernel_svm(Species ~ Petal.Length + Petal.Width, data = iris, cost = 10),
    nystrom = kernel_svm(Species ~ Petal.Length + Petal.Width, data = iris,
                         approx = nystrom(m = 20)),
    fourier = kernel_means(x2, two$Species, approx = random_fourier(m = 50)),
    cells = kernel_svm(Species ~ Petal.Length + Petal.Width, data = two,
                       approx = cells(size = 50)))
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    data <- if (is.null(fit$terms)) NULL else if (nm %in% c("cells")) two else iris
    p <- autoplot(fit, data, grid = 30)
    built(p)
    g <- geoms(p)
    expect_identical(g[1:2], c("GeomRaster", "GeomPath"), info = nm)
    expect_true("GeomPoint" %in% g, info = nm)
    expect_true(all(vapply(c("fill", "colour", "shape", "x", "y"), has_scale, NA, p = p)),
                info = nm)
    expect_identical(p$labels$title, kernclass:::kc_method_label(fit), info = nm)
    expect_regions(p, fit, if (is.null(data)) x2 else data)
  }
})

test_that("autoplot() of SVMs adds margins and support vectors where plot() draws them", {
  svm <- kernel_svm(x2, two$Species, cost = 10)
  p <- autoplot(svm, grid = 40)
  b <- built(p)
  expect_identical(geoms(p), c("GeomRaster", "GeomPath", "GeomPath", "GeomPoint", "GeomPoint"))
  expect_identical(p$layers[[3L]]$aes_params$linetype, "dashed")
  # the circled points are the support vectors
  sv <- b$data[[5L]]
  expect_equal(sort(sv$x), sort(two$Petal.Length[svm$index]))
  # the dashed lines: where the decision value is -1 or +1
  m <- p$layers[[3L]]$data
  f <- predict(svm, cbind(Petal.Length = m$x, Petal.Width = m$y), type = "decision")
  expect_lt(max(abs(abs(f) - 1)), 0.1)
  # new points drawn: no support vectors; no labels: regions only, with a legend
  p2 <- autoplot(svm, x2[1:10, ], y = two$Species[1:10], grid = 20)
  built(p2)
  expect_identical(geoms(p2), c("GeomRaster", "GeomPath", "GeomPath", "GeomPoint"))

  one <- kernel_svm(x2, type = "one-classification", nu = 0.1, gamma = 1)
  p <- autoplot(one, grid = 30)
  built(p)
  expect_false(any(vapply(p$layers, function(l) identical(l$aes_params$linetype, "dashed"), NA)))
  expect_regions(p, one, x2)

  # a layer added by the user builds too
  built(p + ggplot2::geom_hline(yintercept = 1.5) + ggplot2::theme_minimal())
})

test_that("autoplot() of a tuning result: a heat map, or a line for one parameter", {
  set.seed(1)
  tuned <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species, folds = 3,
                       grid = list(cost = 10^(-1:1), gamma = c(0.5, 1, 1.5)))
  p <- autoplot(tuned)
  b <- built(p)
  expect_identical(geoms(p), c("GeomRect", "GeomText", "GeomRect"))
  expect_true(has_scale(p, "fill") && has_scale(p, "colour"))
  # cost is geometric: a log axis; gamma evenly spaced: a linear one
  expect_s3_class(p$scales$get_scales("x"), "ScaleContinuousPosition")
  expect_identical(p$scales$get_scales("x")$trans$name, "log-10")
  expect_identical(p$scales$get_scales("y")$trans$name, "identity")
  # one cell per grid row, numbered with its accuracy; the chosen cell outlined
  cells <- p$data
  r <- tuned$results
  key <- paste(cells$x, cells$y)
  expect_equal(cells$value, r$accuracy[match(key, paste(r$cost, r$gamma))])
  out <- b$data[[3L]]
  expect_equal(10^c(out$xmin, out$xmax), tuned$best$cost * c(10^-0.5, 10^0.5))

  p1 <- autoplot(tuned, params = "gamma", metric = "accuracy")
  built(p1)
  expect_identical(geoms(p1), c("GeomLine", "GeomPoint", "GeomPoint"))
  # each value of gamma: the best accuracy over cost
  expect_equal(p1$data$value, as.vector(tapply(r$accuracy, r$gamma, max)))
  expect_error(autoplot(tuned, params = "nope"), class = "kernclass_input_error")
  expect_error(autoplot(tuned, unknown = 1), class = "kernclass_input_error")
})

test_that("autoplot() of a cross-validation: the folds, or the confusion table", {
  set.seed(2)
  cv <- kernel_cv(kernel_parzen, iris[, 3:4], iris$Species, folds = 4)
  p <- autoplot(cv)
  built(p)
  expect_identical(geoms(p), c("GeomRect", "GeomHline", "GeomPoint"))
  expect_equal(p$data$value, cv$fold_value)
  pc <- autoplot(cv, type = "confusion")
  built(pc)
  expect_identical(geoms(pc), c("GeomTile", "GeomText"))
  tab <- table(cv$y, cv$predicted)
  expect_equal(pc$data$count, as.vector(tab))
  loo <- kernel_cv(kernel_means, x2, two$Species, folds = "loo")
  expect_identical(geoms(autoplot(loo)), c("GeomTile", "GeomText"))
  expect_error(autoplot(cv, type = "pie"), class = "kernclass_input_error")
})

test_that("a model that predicts one class over the region draws without a boundary", {
  set.seed(2)
  x <- matrix(rnorm(80), 40, 2, dimnames = list(NULL, c("a", "b")))
  y <- factor(rep(c("big", "small"), c(34, 6)))
  fit <- kernel_svm(x, y, cost = 1e-3)
  p <- autoplot(fit, grid = 25)
  built(p)
  # one class everywhere (predict() on the grid), so no boundary layer
  expect_identical(unique(as.character(predict(fit, cbind(a = p$data$x, b = p$data$y)))), "big")
  # no boundary: any path is a dashed margin
  expect_identical(geoms(p)[1L], "GeomRaster")
  paths <- p$layers[geoms(p) == "GeomPath"]
  expect_true(all(vapply(paths, function(l) identical(l$aes_params$linetype, "dashed"), NA)))
  expect_regions(p, fit, x)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  r <- plot(fit, grid = 25)
  expect_length(r$boundary, 0L)
})

# a race over 16 rows that drops most of them (5 folds; under 1 s)
raced <- function() {
  set.seed(1)
  kernel_tune(kernel_svm, iris[, 1:4], iris$Species, folds = 5,
              grid = list(cost = 10^(-1:2), gamma = 10^(-2:1)))
}

test_that("autoplot() of a race marks the dropped rows and notes screening and edges", {
  tuned <- raced()
  r <- tuned$results
  gone <- r$folds_run < 5
  expect_true(any(gone) && !all(gone))
  p <- autoplot(tuned)
  b <- built(p)
  expect_identical(geoms(p), c("GeomRect", "GeomRect", "GeomText", "GeomRect"))
  # the grey layer: the cells whose one row the race dropped
  grey <- p$layers[[2L]]$data
  expect_setequal(paste(grey$x, grey$y), paste(r$cost, r$gamma)[gone])
  expect_identical(p$layers[[2L]]$aes_params$fill, "grey95")
  expect_setequal(paste(p$layers[[1L]]$data$x, p$layers[[1L]]$data$y),
                  paste(r$cost, r$gamma)[!gone])
  # grey italic numbers on them
  key <- paste(p$data$x, p$data$y)
  expect_identical(p$data$face == "italic", key %in% paste(r$cost, r$gamma)[gone])
  expect_match(p$labels$caption, sprintf("rows the race dropped after %d to %d of 5 folds",
                                         min(r$folds_run[gone]), max(r$folds_run[gone])),
               fixed = TRUE)
  expect_match(p$labels$caption, "screening estimates (solver tolerance 0.1)", fixed = TRUE)
  # one parameter: each gamma's best over the costs that ran every fold, else
  # over the dropped ones; hollow grey where all were dropped
  p1 <- autoplot(tuned, params = "gamma")
  built(p1)
  g <- sort(unique(r$gamma))
  want <- vapply(g, function(v) {
    done <- r$gamma == v & !gone
    max(r$accuracy[if (any(done)) done else r$gamma == v])
  }, numeric(1))
  expect_equal(p1$data$value, want)
  all_gone <- vapply(g, function(v) all(gone[r$gamma == v]), NA)
  expect_identical(as.character(p1$data$status) == "dropped by the race", all_gone)
  expect_identical(geoms(p1), c("GeomLine", "GeomPoint", "GeomPoint"))

  # an exhaustive search at the fit's tolerance: nothing to note or mark
  set.seed(1)
  ex <- kernel_tune(kernel_svm, iris[, 3:4], iris$Species, folds = 3, search = "exhaustive",
                    grid = list(cost = c(1, 10, 100), gamma = c(0.1, 1, 10)))
  pe <- autoplot(ex)
  expect_identical(geoms(pe), c("GeomRect", "GeomText", "GeomRect"))
  edge <- kernclass:::kc_grid_edge(ex$results[c("cost", "gamma")], ex$best)
  expect_identical(is.null(pe$labels$caption), !nzchar(edge))
})

test_that("autoplot() of a tuning over approximations draws them by label, notes the edge", {
  set.seed(1)
  tuned <- kernel_tune(kernel_svm, iris[, 1:4], iris$Species, folds = 3,
                       grid = list(approx = list(nystrom(m = 20), nystrom(m = 40)),
                                   cost = c(1, 10)))
  p <- autoplot(tuned)
  built(p)
  sx <- p$scales$get_scales("x")
  expect_identical(sx$labels, c("nystrom(m = 20)", "nystrom(m = 40)"))
  p2 <- autoplot(tuned, params = c("approx", "cost"))
  built(p2)
  p3 <- autoplot(tuned, params = "approx")
  built(p3)
  # the edge, as plain R: the chosen cost against the grid's costs
  side <- if (tuned$best$cost == 1) "smallest cost" else "largest cost"
  expect_match(p$labels$caption, sprintf("the choice is on the grid's edge (%s)", side),
               fixed = TRUE)
  expect_output(print(tuned), sprintf("On the grid's edge: the %s", side), fixed = TRUE)
})

test_that("autoplot() of a reliability table draws plot()'s diagram", {
  set.seed(3)
  cv <- kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 5, metric = "logloss")
  cal <- calibration_curve(cv, bins = 5)
  p <- autoplot(cal)
  b <- built(p)
  expect_identical(geoms(p), c("GeomAbline", "GeomLinerange", "GeomLine", "GeomPoint"))
  expect_equal(p$data$observed, cal$observed)
  expect_equal(p$data$lower_band, pmax(cal$observed - 2 * cal$se, 0))
  expect_equal(p$data$upper_band, pmin(cal$observed + 2 * cal$se, 1))
  expect_identical(levels(p$data$class), levels(iris$Species))
  expect_error(autoplot(cal, bins = 2), class = "kernclass_input_error")
})
