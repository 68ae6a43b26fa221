# The localized SVM, approx = cells() (R/repr-cells.R): the partition against
# stats::kmeans and a plain-R nearest centre, the cells' models against
# kernel_svm() fitted by hand on each cell's rows, one cell against the
# exact model.

ns <- asNamespace("kernclass")

three_class <- function(n = 600, p = 3, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p)
  y <- factor(ifelse(x[, 1] + x[, 2]^2 + rnorm(n, sd = 0.5) > 1, "a",
                     ifelse(x[, 3] > 0.3, "b", "c")))
  list(x = x, y = y)
}

# Plain R: the index of the nearest centre of each row (ties to the first).
r_nearest <- function(x, centres) {
  apply(x, 1L, function(r) which.min(colSums((t(centres) - r)^2)))
}

test_that("cells() checks its arguments and prints", {
  expect_error(cells(size = 0), class = "kernclass_input_error")
  expect_error(cells(size = 10.5), class = "kernclass_input_error")
  expect_error(cells(check = -1), class = "kernclass_input_error")
  expect_s3_class(cells(), "kernclass_approximation")
  expect_identical(cells()$size, "auto")
  expect_error(cells(scale_cost = NA), class = "kernclass_input_error")
  expect_output(print(cells(size = 300)), "cells of about 300 points")
})

test_that("the cells are k-means from k-means++ seeds, as stats::kmeans (Lloyd) from them", {
  d <- three_class()
  set.seed(5)
  fit <- kernel_svm(d$x, d$y, approx = cells(size = 100))
  k <- ceiling(600 / 100)
  # the same random numbers: no subsample below 10000 rows, then the seeds
  set.seed(5)
  seeds <- ns$kc_kmeanspp(fit$x, ns$kc_plain_kernel(), k)
  # (stopped after 20 iterations: kmeans() warns; its clusters are those
  # before the last update of the centres, the model's are after)
  km <- suppressWarnings(stats::kmeans(fit$x, fit$x[seeds, ], iter.max = 20, algorithm = "Lloyd"))
  expect_equal(fit$approx$centres, unname(km$centers), tolerance = 1e-10)
  expect_equal(fit$approx$cell, r_nearest(fit$x, fit$approx$centres))
  # set.seed reproduces the model
  set.seed(5)
  again <- kernel_svm(d$x, d$y, approx = cells(size = 100))
  expect_identical(again$approx$centres, fit$approx$centres)
  # above 10000 rows the k-means runs on a uniform subsample
  set.seed(2)
  big <- matrix(rnorm(24000), 12000)
  set.seed(3)
  centres <- ns$kc_cell_centres(big, 5)
  set.seed(3)
  sub <- sample.int(12000, 10000)
  seeds <- ns$kc_kmeanspp(big[sub, ], ns$kc_plain_kernel(), 5)
  km <- suppressWarnings(stats::kmeans(big[sub, ], big[sub, ][seeds, ], iter.max = 20,
                                       algorithm = "Lloyd"))
  expect_equal(centres, unname(km$centers), tolerance = 1e-10)
  # the nearest centre in row blocks, far from the origin too
  cc <- big[1:700, ] + 1e4
  expect_equal(ns$kc_nearest_centre(big + 1e4, cc)[, 1L], r_nearest(big + 1e4, cc))
})

test_that("the cells' models are kernel_svm() fitted by hand on each cell, routed by hand", {
  d <- three_class()
  set.seed(7)
  w <- runif(600, 0.5, 2)
  fit <- kernel_svm(d$x, d$y, cost = 3, gamma = 0.7, weights = w,
                    class.weights = c(a = 2), approx = cells(size = 150))
  centres <- fit$approx$centres
  cell <- r_nearest(fit$x, centres)
  new <- matrix(rnorm(300), 100, 3)
  xs_new <- scale(new, fit$scaling$center, fit$scaling$scale)
  route <- r_nearest(xs_new, centres)
  lv <- levels(d$y)
  pairs <- rbind(c(1, 2), c(1, 3), c(2, 3))
  dec <- matrix(NA_real_, 100, 3)
  cls <- character(100)
  for (j in seq_len(nrow(centres))) {
    rows <- which(cell == j)
    yj <- droplevels(d$y[rows])
    at <- which(route == j)
    if (!length(at)) next
    if (nlevels(yj) == 1L) {
      cls[at] <- levels(yj)
      next
    }
    # the cost keeps the regularisation per row: 3 x 600 / rows of the cell
    mj <- kernel_svm(fit$x[rows, ], yj, cost = 3 * 600 / length(rows), gamma = 0.7,
                     weights = w[rows],
                     class.weights = c(a = 2)[intersect("a", levels(yj))], scale = FALSE)
    cls[at] <- as.character(predict(mj, xs_new[at, , drop = FALSE]))
    dj <- as.matrix(predict(mj, xs_new[at, , drop = FALSE], type = "decision"))
    present <- lv %in% levels(yj)
    for (m in 1:3) {
      a <- lv[pairs[m, 1]]
      b <- lv[pairs[m, 2]]
      dec[at, m] <- if (present[pairs[m, 1]] && present[pairs[m, 2]]) {
        dj[, if (ncol(dj) == 1L) 1L else paste(a, b, sep = "/")]
      } else present[pairs[m, 1]] - present[pairs[m, 2]]
    }
  }
  expect_equal(as.character(predict(fit, new)), cls)
  expect_equal(unname(predict(fit, new, type = "decision")), dec, tolerance = 1e-12)
  expect_equal(colnames(predict(fit, new, type = "decision")), c("a/b", "a/c", "b/c"))
  # the training rows are routed to their own cells
  expect_equal(fit$approx$cell, cell)
  expect_equal(fit$index, sort(unlist(lapply(fit$approx$models, `[[`, "index"))))
  # scale_cost = FALSE: every cell at `cost`
  set.seed(7)
  same <- kernel_svm(d$x, d$y, cost = 3, gamma = 0.7,
                     approx = cells(size = 150, scale_cost = FALSE))
  j <- which(vapply(same$approx$models, inherits, logical(1), "kernel_svm"))[1]
  rows <- which(same$approx$cell == j)
  mj <- kernel_svm(same$x[rows, ], droplevels(d$y[rows]), cost = 3, gamma = 0.7, scale = FALSE)
  expect_equal(unname(same$approx$models[[j]]$coefs), unname(mj$coefs))
  expect_equal(ns$kc_cells_table(fit)$cost,
               vapply(fit$approx$models, function(m) if (is.null(m$cost)) NA else 3 * 600 /
                        sum(m$counts), numeric(1)))
})

test_that("one cell is the exact kernel_svm, probabilities, weights and class weights too", {
  d <- three_class(n = 300)
  set.seed(3)
  w <- runif(300)
  set.seed(9)
  ex <- kernel_svm(d$x, d$y, cost = 2, weights = w, class.weights = "balanced",
                   probability = TRUE)
  set.seed(9)
  one <- kernel_svm(d$x, d$y, cost = 2, weights = w, class.weights = "balanced",
                    probability = TRUE, approx = cells(size = 300))
  expect_equal(nrow(one$approx$centres), 1L)
  for (type in c("class", "decision", "prob")) {
    expect_identical(predict(one, d$x, type = type), predict(ex, d$x, type = type))
  }
  expect_identical(one$index, ex$index)
  expect_identical(one$approx$models[[1]]$coefs, ex$coefs)
  expect_equal(coef(one)$alpha, coef(ex)$alpha)
  # two classes: a decision vector, as the exact model's
  two <- factor(ifelse(d$y == "a", "a", "other"))
  expect_identical(predict(kernel_svm(d$x, two, approx = cells(size = 1000)), d$x,
                           type = "decision"),
                   predict(kernel_svm(d$x, two), d$x, type = "decision"))
})

test_that("a cell of one class predicts it: decision +1/-1/0, probabilities 1/0", {
  set.seed(4)
  # three far clusters: the first all "a", the others "b" and "c" mixed
  x <- rbind(matrix(rnorm(200, -20), 100), matrix(rnorm(200, 0), 100),
             matrix(rnorm(200, 20), 100))
  y <- factor(c(rep("a", 100), sample(c("b", "c"), 200, TRUE)))
  set.seed(1)
  fit <- kernel_svm(x, y, probability = TRUE, approx = cells(size = 100))
  t <- ns$kc_cells_table(fit)
  expect_equal(sort(t$classes), c(1L, 2L, 2L))
  new <- rbind(c(-20, -20), c(0.1, 0.2))
  p <- predict(fit, new, type = "prob")
  dec <- predict(fit, new, type = "decision")
  expect_equal(as.character(predict(fit, new))[1], "a")
  expect_equal(unname(p[1, ]), c(1, 0, 0))
  expect_equal(unname(dec[1, ]), c(1, 1, 0))
  # the second row: its cell has "b" and "c" only
  expect_equal(unname(p[2, "a"]), 0)
  expect_equal(unname(dec[2, c("a/b", "a/c")]), c(-1, -1))
  expect_equal(sum(p[2, ]), 1)
  expect_equal(as.character(predict(fit, new))[2],
               if (dec[2, "b/c"] > 0) "b" else "c")
  expect_output(print(fit), "1 cell\\(s\\) with one class")
  # a model without probabilities says so
  plain <- kernel_svm(x, y, approx = cells(size = 100))
  expect_error(predict(plain, new, type = "prob"), class = "kernclass_prob_unavailable_error")
  # weight 0 for a whole cell: the cell is dropped, its rows routed elsewhere
  set.seed(1)
  w0 <- kernel_svm(x, y, weights = rep(c(1, 0, 1), each = 100), approx = cells(size = 100))
  expect_equal(nrow(w0$approx$centres), 2L)
  expect_equal(as.character(predict(w0, rbind(c(-20, -20), c(-1, -1)))), c("a", "a"))
  expect_equal(sort(unique(w0$approx$cell)), 1:2)
  expect_equal(w0$approx$cell, r_nearest(w0$x, w0$approx$centres))
})

test_that("blended cells: the weighted mean of the nearest cells' values, as plain R", {
  # two classes, 6 cells, a new row's 3 nearest blended (under 1 s)
  set.seed(2)
  x <- matrix(rnorm(1200), 600, 2)
  y <- factor(ifelse(x[, 1] + sin(2 * x[, 2]) + rnorm(600, sd = 0.4) > 0, "a", "b"))
  set.seed(6)
  fit <- kernel_svm(x, y, cost = 2, gamma = 0.5, probability = TRUE,
                    approx = cells(size = 100, blend = 3))
  centres <- fit$approx$centres
  k <- nrow(centres)
  sqdist <- function(z) t(apply(z, 1L, function(r) colSums((t(centres) - r)^2)))
  # the scale: the training rows' median of (2nd nearest - nearest) squared distance
  dtr <- t(apply(sqdist(fit$x), 1L, sort))
  g <- median(dtr[, 2] - dtr[, 1])
  expect_equal(fit$approx$gap, g, tolerance = 1e-10)
  new <- matrix(rnorm(80), 40, 2)
  xs <- scale(new, fit$scaling$center, fit$scaling$scale)
  dn <- sqdist(xs)
  near <- t(apply(dn, 1L, order))[, 1:3]
  gap <- t(apply(dn, 1L, sort))[, 1:3] - apply(dn, 1L, min)
  w <- exp(-gap / (4 * g))
  w <- w / rowSums(w)
  # each cell's decision values (kernel_svm() by hand on its rows, cost x n / rows)
  # and probabilities (the cell's own Platt model)
  dec <- prob <- matrix(NA_real_, 40, k)
  for (j in seq_len(k)) {
    rows <- which(fit$approx$cell == j)
    yj <- droplevels(y[rows])
    if (nlevels(yj) == 1L) {
      dec[, j] <- if (levels(yj) == "a") 1 else -1
      prob[, j] <- as.numeric(levels(yj) == "a")
      next
    }
    mj <- kernel_svm(fit$x[rows, ], yj, cost = 2 * 600 / length(rows), gamma = 0.5,
                     scale = FALSE)
    dec[, j] <- predict(mj, xs, type = "decision")
    prob[, j] <- ns$kc_posterior(fit$approx$models[[j]], matrix(dec[, j]))[, "a"]
  }
  pick <- function(v) matrix(v[cbind(rep(1:40, 3), c(near))], 40)
  blended <- rowSums(w * pick(dec))
  expect_equal(unname(predict(fit, new, type = "decision")), blended, tolerance = 1e-8)
  expect_equal(unname(predict(fit, new, type = "prob")[, "a"]), rowSums(w * pick(prob)),
               tolerance = 1e-8)
  # the class from the probabilities (the model's rule with probability = TRUE)
  expect_equal(as.character(predict(fit, new)),
               ifelse(rowSums(w * pick(prob)) > 0.5, "a", "b"))
  expect_equal(as.character(predict(fit, new, rule = "vote")), ifelse(blended > 0, "a", "b"))
  # probabilities only where predict() needs them (kc_predict_rows() asks
  # for none for decision values or the vote)
  scores <- function(need) colnames(ns$kc_scores(fit, xs, prob = need))
  expect_identical(scores(FALSE), c("a/b", ".cell"))
  expect_identical(scores(TRUE), c("a/b", ".cell", ".p:a", ".p:b"))
  post <- ns$kc_posterior
  utils::assignInNamespace("kc_posterior", function(...) stop("probabilities computed"),
                           "kernclass")
  vote <- predict(fit, new, rule = "vote")
  decision <- predict(fit, new, type = "decision")
  utils::assignInNamespace("kc_posterior", post, "kernclass")
  expect_equal(as.character(vote), ifelse(blended > 0, "a", "b"))
  expect_equal(unname(decision), blended, tolerance = 1e-8)
  # blend = 1 is each row's own cell; a blend past the cells is all of them
  own <- fit
  own$approx$spec$blend <- 1L
  expect_equal(unname(predict(own, new, type = "decision")), dec[cbind(1:40, near[, 1])],
               tolerance = 1e-8)
  all <- fit
  all$approx$spec$blend <- 100L
  wa <- exp(-(dn - apply(dn, 1L, min)) / (4 * g))
  expect_equal(unname(predict(all, new, type = "decision")), rowSums(wa * dec) / rowSums(wa),
               tolerance = 1e-8)
  # the k nearest centres in blocks, with their gaps, as plain R
  z <- matrix(rnorm(3000), 1500, 2)
  nk <- ns$kc_nearest_centre(z, centres, 4L)
  dz <- sqdist(z)
  expect_equal(unclass(nk)[, 1:4], t(apply(dz, 1L, order))[, 1:4], ignore_attr = TRUE)
  expect_equal(attr(nk, "gap"), t(apply(dz, 1L, sort))[, 1:4] - apply(dz, 1L, min),
               tolerance = 1e-8)
  # print and summary say so; the argument is checked
  expect_output(print(fit), "mean of the 3 nearest cells' decision values and probabilities")
  expect_output(print(summary(fit)), "mean of the 3 nearest cells")
  expect_output(print(cells(blend = 4)), "4 nearest blended")
  expect_identical(tryCatch(cells(blend = 0), kernclass_input_error = function(e) e$arg), "blend")
  expect_identical(cells()$blend, "auto")
  expect_identical(tryCatch(cells(blend = "x"), kernclass_input_error = function(e) e$arg), "blend")
})

test_that("the cells run as futures; the model does not depend on the plan", {
  skip_if_not_installed("future")
  d <- three_class(n = 400)
  fit <- function() {
    set.seed(11)
    kernel_svm(d$x, d$y, probability = TRUE, approx = cells(size = 100))
  }
  a <- fit()
  pa <- predict(a, d$x, type = "prob")
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old))
  b <- fit()
  # fitted and predicted under the plan (the cells' scores as futures too)
  expect_identical(predict(b, d$x, type = "prob"), pa)
  expect_identical(predict(a, d$x, type = "decision"), predict(b, d$x, type = "decision"))
  expect_identical(b$approx$centres, a$approx$centres)
})

test_that("cells() is for C-classification kernel_svm only, with classed errors", {
  d <- three_class(n = 200)
  for (f in list(kernel_means, kernel_parzen, kernel_bayes)) {
    expect_error(f(d$x, d$y, approx = cells(size = 50)),
                 class = "kernclass_approx_unsupported_error")
  }
  expect_error(kernel_means(d$x, d$y, approx = cells()), "nystrom\\(\\.\\.\\.\\) or random_fourier")
  expect_error(kernel_svm(d$x, d$y, type = "nu-classification", approx = cells(size = 50)),
               class = "kernclass_approx_unsupported_error")
  expect_error(kernel_svm(d$x, d$y, approx = list(size = 3)), "cells\\(\\.\\.\\.\\)")
  K <- kernel_matrix(d$x, kernel = "rbf", gamma = 0.5)
  expect_error(kernel_svm(K, d$y, kernel = "precomputed", approx = cells(size = 50)),
               class = "kernclass_approx_unsupported_error")
  # an error in a cell names the cell
  err <- tryCatch({
    set.seed(1)
    kernel_svm(d$x, d$y, kernel = "linear", cost = Inf, approx = cells(size = 50))
  }, error = function(e) e)
  expect_s3_class(err, "kernclass_not_separable_error")
  expect_match(conditionMessage(err), "^Cell [0-9]+ of 4 \\([0-9]+ rows\\)")
  # non-convergence: one warning for all cells
  set.seed(1)
  expect_warning(kernel_svm(d$x, d$y, max_iter = 2, approx = cells(size = 50)),
                 "in [0-9]+ of 4 cells", class = "kernclass_convergence_warning")
})

test_that("print, summary and check state the cells; the model plugs in", {
  d <- three_class(n = 600)
  df <- data.frame(d$x, cls = d$y)
  set.seed(1)
  fit <- kernel_svm(cls ~ ., data = df, approx = cells(size = 100, check = 200))
  out <- capture.output(print(fit))
  expect_true(any(grepl("^Localized support vector machine", out)))
  expect_true(any(grepl("localized: 6 cells of about 100 points", out)))
  expect_true(any(grepl("against the exact model", out)))
  expect_named(fit$approx$check, c("rows", "agreement", "exact_accuracy", "approx_accuracy"))
  expect_gt(fit$approx$check[["agreement"]], 0.8)
  s <- summary(fit)
  expect_s3_class(s, "summary.kernclass_cells")
  expect_equal(sum(s$cells$rows), 600)
  expect_output(print(s), "Localized: 6 cells")
  expect_equal(s$accuracy, mean(predict(fit) == d$y))
  # NA rows, saveRDS, update, kernel_cv, kernel_tune
  new <- rows_with_na(df)
  expect_true(is.na(predict(fit, new)[2]) && !anyNA(predict(fit, new)[-2]))
  back <- rds_round_trip(fit)
  expect_identical(predict(back, df, type = "decision"), predict(fit, df, type = "decision"))
  set.seed(2)
  up <- update(fit, approx = cells(size = 300))
  expect_equal(nrow(up$approx$centres), 2L)
  set.seed(2)
  again <- kernel_svm(cls ~ ., data = df, approx = cells(size = 300))
  expect_identical(predict(up, df, type = "decision"), predict(again, df, type = "decision"))
  set.seed(3)
  cv <- kernel_cv(kernel_svm, d$x, d$y, folds = 3, approx = cells(size = 100))
  expect_gt(cv$accuracy, 0.6)
  set.seed(4)
  tu <- kernel_tune(kernel_svm, d$x, d$y, folds = 3,
                    grid = list(approx = list(cells(size = 100), cells(size = 400)),
                                cost = c(1, 10)))
  expect_equal(nrow(tu$results), 4L)
  expect_true(all(is.finite(tu$results$accuracy)))
  expect_equal(tu$best$approx$method, "cells")
  expect_s3_class(tu$model, "kernclass_cells")
  # broom's glance names the method
  skip_if_not_installed("generics")
  expect_equal(generics::glance(fit)$method, "kernel_svm")
})

test_that("parsnip and caret take the approximations; caret tunes m and size", {
  local_tz()
  skip_if_not_installed("caret")
  set.seed(1)
  ctrl <- caret::trainControl(method = "cv", number = 3)
  tr <- caret::train(iris[, 1:4], iris$Species, tuneLength = 2, trControl = ctrl,
                     method = kernclass_caret("svm", approx = cells(size = 100)))
  expect_setequal(names(tr$bestTune), c("cost", "gamma", "size"))
  expect_setequal(unique(tr$results$size), c(50, 100))
  expect_s3_class(tr$finalModel, "kernclass_cells")
  expect_equal(tr$finalModel$approx$spec$size, tr$bestTune$size)
  set.seed(1)
  tm <- caret::train(iris[, 1:4], iris$Species, tuneLength = 3, trControl = ctrl,
                     method = kernclass_caret("means", approx = nystrom(m = 40)))
  expect_setequal(unique(tm$results$m), c(10, 20, 40))
  expect_equal(tm$finalModel$approx$spec$m, tm$bestTune$m)
  g <- kernclass_caret("parzen", approx = random_fourier(m = 64))$grid(iris[, 1:4], iris$Species,
                                                                       len = 2, search = "random")
  expect_true(all(g$m >= 8 & g$m <= 64))
  # a size "auto" is the one chosen from the rows, and its halvings
  g <- kernclass_caret("means", approx = nystrom())$grid(iris[, 1:4], iris$Species, len = 2)
  expect_setequal(g$m, c(150, 300))
  expect_error(kernclass_caret("means", approx = cells()),
               class = "kernclass_approx_unsupported_error")
  expect_error(kernclass_caret("svm", approx = 300), class = "kernclass_input_error")
  # an approximation given to train() is passed on as it is
  set.seed(1)
  tp <- caret::train(iris[, 1:4], iris$Species, method = kernclass_caret("svm"), tuneLength = 1,
                     trControl = ctrl, approx = nystrom(m = 20))
  expect_s3_class(tp$finalModel, "kernclass_approx")
  fit_both <- kernclass_caret("svm", approx = cells(size = 50))$fit
  expect_error(fit_both(iris[, 1:4], iris$Species, NULL, data.frame(cost = 1, gamma = 1, size = 50),
                        approx = cells(size = 50)), "not to both")

  skip_if_not_installed("parsnip", "1.2.0")
  suppressMessages(library(parsnip))
  set.seed(1)
  m <- svm_rbf(cost = 1) |> set_mode("classification") |>
    set_engine("kernclass", approx = cells(size = 60)) |> fit(Species ~ ., data = iris)
  expect_s3_class(extract_fit_engine(m), "kernclass_cells")
  p <- predict(m, iris, type = "prob")
  expect_equal(rowSums(as.matrix(p)), rep(1, 150))
  k <- kernel_classifier(method = "parzen") |>
    set_engine("kernclass", approx = nystrom(m = 20)) |> fit(Species ~ ., data = iris)
  expect_s3_class(extract_fit_engine(k), "kernclass_approx")
})

test_that("broom's tidy, glance and augment read a model with cells", {
  skip_if_not_installed("generics")
  set.seed(1)
  fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE, approx = cells(size = 50))
  cf <- coef(fit)
  fun <- generics::tidy(fit)
  expect_equal(fun$term, c("setosa/versicolor", "setosa/virginica", "versicolor/virginica"))
  expect_equal(fun$n_coef, unname(colSums(cf$alpha != 0)))
  expect_equal(fun$cells, unname(colSums(!is.na(cf$b))))
  co <- generics::tidy(fit, component = "coefficients")
  expect_equal(nrow(co), sum(cf$alpha != 0))
  g <- generics::glance(fit)
  expect_true(g$probability)
  expect_equal(g$n_support, length(fit$index))
  a <- generics::augment(fit)
  expect_equal(a$.fitted, unname(predict(fit)))
  # coef(): each training row's coefficient is that of its cell's SVM
  m <- fit$approx$models
  j <- which(vapply(m, inherits, logical(1), "kernel_svm"))[1]
  own <- ns$kc_cell_pairs(m[[j]], fit$levels)
  expect_equal(unname(cf$alpha[m[[j]]$index, own, drop = FALSE]), unname(m[[j]]$coefs))
  expect_equal(unname(cf$b[j, own]), unname(m[[j]]$b))
  expect_identical(cf$cell, fit$approx$cell)
})

test_that("plot() draws cells() models of 3 classes: the regions are the predictions", {
  d <- rare_class(n = 200)
  d$y[7:30] <- "r"
  set.seed(4)
  fit <- kernel_svm(d$x[, 1:2], d$y, approx = cells(size = 60))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  out <- plot(fit, grid = 30)
  g <- as.matrix(expand.grid(out$x1, out$x2))
  expect_identical(as.vector(out$class), as.character(predict(fit, g)))
  expect_gt(length(out$boundary), 0L)
  for (piece in out$boundary) expect_length(unique(piece$classes), 2L)
  expect_identical(dim(out$decision), c(900L, 3L))
})

test_that("untuned cells blend the 5 nearest from 20,000 rows on, and print says so", {
  ns <- asNamespace("kernclass")
  expect_null(ns$kc_cells_untuned_blend(19999))
  expect_identical(ns$kc_cells_untuned_blend(20000)$K, 5L)
  # 20,000 rows of one input in 40 cells of 500: the model's K and its line
  set.seed(1)
  x <- matrix(rnorm(20000), ncol = 1)
  y <- factor(ifelse(sin(3 * x[, 1]) > 0, "a", "b"))
  set.seed(2)
  fit <- kernel_svm(x, y, approx = cells(size = 500))
  expect_identical(ns$kc_cells_blend(fit), 5L)
  expect_output(print(fit), "the mean of the 5 nearest cells' decision values (blend = \"auto\": 5 nearest",
                fixed = TRUE)
  # the same cells as blend = 5 given
  set.seed(2)
  five <- kernel_svm(x, y, approx = cells(size = 500, blend = 5))
  expect_identical(predict(fit, x[1:200, , drop = FALSE], type = "decision"),
                   predict(five, x[1:200, , drop = FALSE], type = "decision"))
})
