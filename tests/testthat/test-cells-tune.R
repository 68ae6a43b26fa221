# Tuned cells, cells(tune = TRUE) / cells(grid = ) (R/repr-cells-tune.R): each
# cell's choice against a plain-R cross-validation of kernel_svm() on the
# cell's rows and folds, and against kernel_tune() run by hand from the
# cell's random-number state; the model's methods; the argument checks.
# About 10 s.

two_class <- function(n = 450, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * 2), n, 2)
  y <- factor(ifelse(x[, 1] + sin(2 * x[, 2]) + rnorm(n, sd = 0.4) > 0, "a", "b"))
  list(x = x, y = y)
}

# the rows, scaled inputs and classes of cell j
cell_data <- function(fit, j) {
  rows <- which(fit$approx$cell == j)
  list(x = fit$x[rows, , drop = FALSE], y = droplevels(fit$y[rows]))
}

test_that("cells() checks the tuning arguments with classed errors naming them", {
  arg_of <- function(expr) tryCatch(expr, kernclass_input_error = function(e) e$arg)
  expect_identical(arg_of(cells(grid = list(cost = c(1, -1)))), "grid")
  expect_identical(arg_of(cells(grid = list(cost = c(1, NA)))), "grid")
  expect_identical(arg_of(cells(grid = list(cost = "a"))), "grid")
  expect_identical(arg_of(cells(grid = list(kernel = "linear"))), "grid")
  expect_identical(arg_of(cells(grid = list(1, 2))), "grid")
  expect_identical(arg_of(cells(grid = data.frame())), "grid")
  expect_identical(arg_of(cells(grid = 3)), "grid")
  expect_identical(arg_of(cells(tune = FALSE, grid = list(cost = 1))), "grid")
  expect_identical(arg_of(cells(tune = NA)), "tune")
  expect_identical(arg_of(cells(tune = TRUE, folds = 1)), "folds")
  expect_identical(arg_of(cells(tune = TRUE, folds = 2.5)), "folds")
  expect_identical(arg_of(cells(tune = TRUE, search = "grid")), "search")
  expect_error(cells(grid = list(cost = 0)), "`grid`", class = "kernclass_input_error")
  # a grid column also given to kernel_svm()
  d <- two_class(100)
  expect_error(kernel_svm(d$x, d$y, gamma = 1, approx = cells(size = 50,
                                                              grid = list(gamma = c(1, 2)))),
               class = "kernclass_approx_unsupported_error")
  # the spec: a grid turns tuning on, expanded as kernel_tune() expands it
  s <- cells(grid = list(cost = c(1, 10), gamma = 0.5), folds = 3)
  expect_equal(s$tune$grid, data.frame(cost = c(1, 10), gamma = 0.5))
  expect_identical(s$tune$folds, 3L)
  expect_identical(s$tune$search, "race")
  expect_null(cells()$tune)
  expect_null(cells(tune = TRUE)$tune$grid)
  expect_output(print(s), "tuned per cell")
})

test_that("each cell's choice is a plain cross-validation's best on its rows and folds", {
  d <- two_class()
  grid <- list(cost = c(0.5, 20), gamma = c(0.2, 3))
  set.seed(4)
  fit <- kernel_svm(d$x, d$y, approx = cells(size = 150, grid = grid, folds = 3,
                                             search = "exhaustive"))
  expect_length(fit$approx$models, 3L)
  g <- expand.grid(grid)
  for (j in seq_along(fit$approx$models)) {
    m <- fit$approx$models[[j]]
    cd <- cell_data(fit, j)
    fold <- m$tuning$fold
    expect_length(fold, length(cd$y))
    # stratified: each class dealt out over the folds, at most one apart
    for (cl in levels(cd$y)) expect_lte(diff(range(tabulate(fold[cd$y == cl], 3))), 1)
    acc <- vapply(seq_len(nrow(g)), function(i) {
      right <- 0
      for (f in 1:3) {
        tr <- fold != f
        mf <- kernel_svm(cd$x[tr, ], cd$y[tr], cost = g$cost[i], gamma = g$gamma[i], scale = FALSE)
        right <- right + sum(predict(mf, cd$x[!tr, , drop = FALSE]) == cd$y[!tr])
      }
      right / length(cd$y)
    }, numeric(1))
    best <- which.max(acc)  # the first of ties, as kernel_tune()
    expect_equal(m$tuning$cost, g$cost[best])
    expect_equal(m$tuning$gamma, g$gamma[best])
    expect_equal(m$tuning$accuracy, acc[best])
    expect_identical(m$tuning$folds_run, 3L)
    expect_identical(m$tuning$fits, 12L)
    # the cell's SVM is fitted on all its rows with the choice
    # and predict() routes the cell's rows to it
    ref <- kernel_svm(cd$x, cd$y, cost = g$cost[best], gamma = g$gamma[best], scale = FALSE)
    expect_equal(m$cost, g$cost[best])
    expect_equal(m$kernel$gamma, g$gamma[best])
    rows <- which(fit$approx$cell == j)
    expect_equal(unname(predict(fit, d$x[rows, ], type = "decision")),
                 unname(predict(ref, cd$x, type = "decision")), tolerance = 1e-8)
    expect_identical(predict(fit, d$x[rows, ]), predict(ref, cd$x))
  }
})

test_that("the race in each cell is kernel_tune()'s, repeated by hand from the cell's seed", {
  d <- two_class(300, seed = 2)
  set.seed(8)
  fit <- kernel_svm(d$x, d$y, approx = cells(size = 150, tune = TRUE, folds = 3))
  kind <- RNGkind()
  tab <- summary(fit)$tuning
  for (j in seq_along(fit$approx$models)) {
    m <- fit$approx$models[[j]]
    cd <- cell_data(fit, j)
    assign(".Random.seed", m$tuning$seed, envir = globalenv())
    # (the cell's search fits capped: cells()'s search_iter, one iteration per row)
    expect_identical(m$tuning$search_max_iter, as.numeric(length(cd$y)))
    hand <- suppressWarnings(kernel_tune(kernel_svm, cd$x, cd$y, folds = 3, scale = FALSE,
                                         max_iter = m$tuning$search_max_iter))
    expect_identical(m$tuning$fold, hand$fold)
    expect_equal(m$tuning$cost, hand$best$cost)
    expect_equal(m$tuning$gamma, hand$best$gamma)
    expect_equal(m$tuning$accuracy, hand$best_accuracy)
    expect_identical(m$tuning$search, "race")
    expect_identical(m$tuning$fits, sum(hand$results$folds_run))
    expect_equal(tab[j, c("rows", "cost", "gamma", "cv_accuracy", "folds_run", "grid_rows")],
                 data.frame(rows = length(cd$y), cost = hand$best$cost, gamma = hand$best$gamma,
                            cv_accuracy = hand$best_accuracy, folds_run = 3L, grid_rows = 100L,
                            row.names = j))
  }
  RNGkind(kind[1], kind[2], kind[3])
  # set.seed() reproduces the choices, on one engine thread as on all
  old <- options(kernclass.threads = 1)
  on.exit(options(old), add = TRUE)
  set.seed(8)
  again <- kernel_svm(d$x, d$y, approx = cells(size = 150, tune = TRUE, folds = 3))
  expect_identical(summary(again)$tuning, tab)
  # and under a plan with workers, each cell a future
  skip_if_not_installed("future")
  options(old)
  # (forked workers where the platform has them: they start in a moment)
  strategy <- if (future::supportsMulticore()) future::multicore else future::multisession
  plan <- future::plan(strategy, workers = 2)
  on.exit(future::plan(plan), add = TRUE)
  set.seed(8)
  workers <- kernel_svm(d$x, d$y, approx = cells(size = 150, tune = TRUE, folds = 3))
  expect_identical(summary(workers)$tuning, tab)
  expect_identical(predict(workers, d$x, type = "decision"), predict(fit, d$x, type = "decision"))
})

test_that("a tuned model prints, summarises, predicts and reads into broom", {
  d <- two_class(300, seed = 3)
  set.seed(5)
  fit <- kernel_svm(d$x, d$y, probability = TRUE,
                    approx = cells(size = 100, grid = list(cost = c(1, 10), gamma = c(0.5, 2)),
                                   folds = 3))
  out <- capture.output(print(fit))
  expect_true(any(grepl("Cost and gamma: chosen in each cell", out)))
  expect_true(any(grepl("a grid of 4 rows, 3-fold, race search", out)))
  expect_true(any(grepl("cv_accuracy", out)))
  s <- summary(fit)
  tab <- s$tuning
  expect_identical(tab$cell, 1:3)
  expect_equal(tab$cost, vapply(fit$approx$models, function(m) m$cost, numeric(1)))
  expect_equal(tab$gamma, vapply(fit$approx$models, function(m) m$kernel$gamma, numeric(1)))
  expect_equal(sum(tab$rows), 300)
  expect_output(print(s), "What each cell chose")
  p <- predict(fit, d$x, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 300))
  expect_identical(levels(predict(fit, d$x)), levels(d$y))
  skip_if_not_installed("generics")
  expect_equal(nrow(generics::tidy(fit)), 1L)
  g <- generics::glance(fit)
  expect_equal(g$n_support, length(fit$index))
  expect_true(g$probability)
})

test_that("print and summary say where the cells chose the grid's edge, as plain R", {
  # 3 tuned cells of 100 rows on a 2 x 2 grid: every choice is on an edge (under 1 s)
  d <- two_class(300, seed = 3)
  set.seed(5)
  grid <- list(cost = c(1, 10), gamma = c(0.5, 2))
  fit <- kernel_svm(d$x, d$y, approx = cells(size = 100, grid = grid, folds = 3))
  tab <- summary(fit)$tuning
  side <- function(v, g, nm) if (v == min(g)) paste("smallest", nm) else paste("largest", nm)
  hand <- mapply(function(cost, gamma) {
    paste(side(cost, grid$cost, "cost"), side(gamma, grid$gamma, "gamma"), sep = ", ")
  }, tab$cost, tab$gamma)
  expect_identical(tab$edge, unname(hand))
  # the print line: each edge at least a fifth of the cells chose, with its count
  parts <- table(unlist(strsplit(hand, ", ")))
  parts <- parts[parts >= 0.2 * 3]
  line <- paste0("  on the grid's edge: ",
                 paste(sprintf("the %s in %d of 3 cells", names(parts), parts), collapse = ", "))
  out <- capture.output(print(fit))
  expect_true(any(startsWith(out, line)))
  expect_true(any(grepl("give cells() a `grid` reaching past them", out, fixed = TRUE)))
  expect_true(any(startsWith(capture.output(print(summary(fit))), line)))
  # the threshold: a fifth of the searched cells; a cell without a search (NA) not counted
  edge_line <- function(edge) kernclass:::kc_cells_edge_line(data.frame(edge = edge))
  expect_identical(edge_line(c("", "", "", "largest cost", NA)),
                   paste0("  on the grid's edge: the largest cost in 1 of 4 cells\n  (the best ",
                          "values may lie beyond the grid: give cells() a `grid` reaching past ",
                          "it)\n"))
  expect_match(edge_line(c("", "", "", "", "smallest gamma")), "smallest gamma in 1 of 5 cells")
  expect_null(edge_line(c("", "", "", "", "", "largest cost")))
  expect_null(edge_line(NA_character_))
  # a grid parameter of one value has no edge; a middle value is none
  expect_identical(kernclass:::kc_grid_edge(data.frame(cost = c(1, 2, 3), gamma = 1),
                                            list(cost = 2, gamma = 1)), "")
  expect_identical(kernclass:::kc_grid_edge(data.frame(cost = c(1, 2, 3), gamma = c(1, 2, 3)),
                                            list(cost = 3, gamma = 1)),
                   "largest cost, smallest gamma")
})

test_that("a cell of one class predicts it; a class of one row keeps the model's cost and gamma", {
  set.seed(6)
  far <- matrix(rnorm(120, mean = 20), 60, 2)
  near <- matrix(rnorm(120), 60, 2)
  x <- rbind(far, near)
  # two cells, far and near: the far one has one row of class b
  y <- factor(c("b", rep("a", 59), rep(c("a", "b"), 30)))
  fit <- kernel_svm(x, y, gamma = 0.7, scale = FALSE,
                    approx = cells(size = 60, grid = list(cost = c(1, 10)), folds = 3))
  tab <- summary(fit)$tuning
  lone <- fit$approx$cell[1]
  expect_identical(tab$rows, c(60, 60))
  expect_identical(tab$folds_run[lone], 0L)
  expect_identical(tab$edge[lone], NA_character_)
  # the model's cost 1, scaled to the cell's 60 of 120 rows (scale_cost)
  expect_equal(tab$cost[lone], 2)
  expect_equal(tab$gamma[lone], 0.7)
  other <- 3L - lone
  expect_identical(tab$folds_run[other], 3L)
  expect_true(tab$cost[other] %in% c(1, 10))
  expect_equal(tab$gamma[other], 0.7)
  expect_output(print(fit), "cv_accuracy")
  # a one-class cell: no search, its class predicted
  y2 <- factor(c(rep("a", 60), rep(c("a", "b"), 30)))
  fit2 <- kernel_svm(x, y2, scale = FALSE, approx = cells(size = 60, tune = TRUE, folds = 3))
  t2 <- summary(fit2)$tuning
  one <- fit2$approx$cell[1]
  expect_true(is.na(t2$cost[one]))
  expect_identical(as.character(predict(fit2, far)), rep("a", 60))
  expect_output(print(summary(fit2)), "What each cell chose")
})

test_that("check = s compares tuned cells with the exact model at the model's cost and gamma", {
  # the check refits the cells on s rows: the grid's columns are the cells'
  # to tune there too, not arguments given to kernel_svm()
  d <- two_class(200, seed = 2)
  set.seed(3)
  fit <- kernel_svm(d$x, d$y, approx = cells(size = 60, check = 50, folds = 3,
                                             grid = list(cost = c(1, 10), gamma = c(0.5, 2))))
  ch <- fit$approx$check
  expect_identical(names(ch), c("rows", "agreement", "exact_accuracy", "approx_accuracy"))
  expect_equal(ch[["rows"]], 50)
  # shares of the 50 test rows
  expect_true(all(ch[-1L] >= 0 & ch[-1L] <= 1))
  expect_equal(ch[-1L] * 50, round(ch[-1L] * 50))
  expect_output(print(fit), "against the exact model")
  # a grid of cost only, gamma given: the check's cells keep that gamma
  set.seed(3)
  fit2 <- kernel_svm(d$x, d$y, gamma = 0.8, approx = cells(size = 60, check = 50, folds = 3,
                                                           grid = list(cost = c(1, 10))))
  expect_identical(fit2$approx$tuned_not_given, "cost")
  expect_equal(fit2$approx$check[["rows"]], 50)
  # the default grid: the check's cells tune gamma too, as the model's did
  set.seed(3)
  fit3 <- kernel_svm(d$x, d$y, approx = cells(size = 100, tune = TRUE, check = 50, folds = 3))
  expect_identical(fit3$approx$tuned_not_given, c("cost", "gamma"))
  expect_equal(fit3$approx$check[["rows"]], 50)
})

test_that("print and summary of tuned cells count what each cell ran", {
  # four far-apart blobs, one cell each: 40 rows of two classes; 6 rows with a
  # class of one row (no search); 5 rows of one class; 4 rows of two classes,
  # fewer than the 5 folds (4 folds)
  set.seed(7)
  blob <- function(n, at) matrix(rnorm(2 * n, mean = at, sd = 0.5), n, 2)
  x <- rbind(blob(40, 0), blob(4, 30), blob(6, 60), blob(5, 90))
  y <- factor(c(rep(c("a", "b"), 20), rep(c("a", "b"), 2), "b", rep("a", 5), rep("a", 5)))
  set.seed(8)
  fit <- kernel_svm(x, y, gamma = 0.7, scale = FALSE,
                    approx = cells(size = 14, grid = list(cost = c(1, 10)), folds = 5))
  tab <- summary(fit)$tuning
  expect_identical(sort(tab$rows), c(4, 5, 6, 40))
  small <- which(tab$rows == 4)
  expect_identical(tab$folds[small], 4L)
  expect_identical(tab$folds[tab$rows == 40], 5L)
  expect_identical(tab$fits[small], 2L * 4L)  # the race keeps both rows: every fit runs
  searched <- tab$rows %in% c(4, 40)
  out <- capture.output(print(fit))
  # the range over the cells that searched, not the lone-row cell's scaled cost
  expect_true(any(grepl(sprintf("chosen in the 2 of 4 cells that searched: cost %s to %s",
                                format(min(tab$cost[searched]), digits = 4),
                                format(max(tab$cost[searched]), digits = 4)), out,
                        fixed = TRUE)))
  expect_true(any(grepl(sprintf("CV accuracy median %.2f%%",
                                100 * stats::median(tab$cv_accuracy[searched])), out,
                        fixed = TRUE)))
  expect_true(any(grepl("2 cell(s) ran no search", out, fixed = TRUE)))
  # fits out of the cell's own folds; no "NA%" for the cells without a search
  row_of <- function(j) out[grepl(sprintf("^ +%d +%d ", j, tab$rows[j]), out)]
  expect_match(row_of(small), "8 of 8$")
  expect_match(row_of(which(tab$rows == 40)), "10 of 10$")
  expect_match(row_of(which(tab$rows == 6)), "no search$")
  expect_false(any(grepl("NA%", out, fixed = TRUE)))
  expect_false(any(grepl("NA%", capture.output(print(summary(fit))), fixed = TRUE)))
})

test_that("blend = \"auto\" chooses K by out-of-fold blended accuracy, as plain R", {
  # 6 tuned cells of 100 rows, every training row scored (under 2 s)
  set.seed(3)
  n <- 600
  x <- matrix(rnorm(n * 4), n, 4)
  y <- factor(ifelse(x[, 1] + x[, 2] + rnorm(n, sd = 0.7) > 0, "a", "b"))
  set.seed(9)
  fit <- kernel_svm(x, y, approx = cells(size = 100, grid = list(cost = c(0.3, 3),
                                                                 gamma = c(0.05, 0.5)),
                                         folds = 3))
  centres <- fit$approx$centres
  k <- nrow(centres)
  cell <- fit$approx$cell
  # each row's value in every cell: its fold's model in its own cell (the
  # cell's folds, the chosen cost and gamma), the cell's model elsewhere
  dec <- matrix(NA_real_, n, k)
  for (j in seq_len(k)) {
    m <- fit$approx$models[[j]]
    rows <- which(cell == j)
    yj <- droplevels(y[rows])
    if (nlevels(yj) == 1L) {
      dec[, j] <- if (levels(yj) == "a") 1 else -1
      next
    }
    mj <- kernel_svm(fit$x[rows, ], yj, cost = m$tuning$cost, gamma = m$tuning$gamma,
                     scale = FALSE)
    dec[, j] <- predict(mj, fit$x, type = "decision")
    for (f in 1:3) {
      tr <- m$tuning$fold != f
      mf <- kernel_svm(fit$x[rows[tr], ], yj[tr], cost = m$tuning$cost,
                       gamma = m$tuning$gamma, scale = FALSE)
      dec[rows[!tr], j] <- predict(mf, fit$x[rows[!tr], , drop = FALSE], type = "decision")
    }
  }
  dn <- t(apply(fit$x, 1L, function(r) colSums((t(centres) - r)^2)))
  ord <- t(apply(dn, 1L, order))
  gap <- t(apply(dn, 1L, sort)) - apply(dn, 1L, min)
  cand <- unique(pmin(c(1, 3, 5, 10), k))
  acc <- vapply(cand, function(K) {
    w <- exp(-gap[, 1:K, drop = FALSE] / (4 * fit$approx$gap))
    v <- matrix(dec[cbind(rep(1:n, K), c(ord[, 1:K]))], n)
    mean(ifelse(rowSums(w * v) / rowSums(w) > 0, "a", "b") == y)
  }, numeric(1))
  b <- fit$approx$blend
  expect_equal(b$candidates, data.frame(K = cand, accuracy = acc))
  expect_equal(b$K, cand[which.max(acc)])
  expect_equal(b$rows, n)
  expect_equal(b$fits, 3 * sum(vapply(fit$approx$models, inherits, logical(1), "kernel_svm")))
  expect_equal(b$cells, k)
  # predictions blend the chosen K; the models keep no out-of-fold values
  K <- b$K
  own <- fit
  own$approx$spec$blend <- K
  expect_identical(predict(fit, x, type = "decision"), predict(own, x, type = "decision"))
  expect_null(fit$approx$models[[1]]$oof)
  # print and summary give the choice
  expect_output(print(fit), sprintf("blend = \"auto\": out-of-fold accuracy on %d training rows", n))
  expect_output(print(summary(fit)), sprintf("1: %.2f%%", 100 * acc[1]))
  # over kc_cells_blend_rows rows in the cells' first folds: the first fold
  # of cells in random order, one extra fit each, reproduced by set.seed()
  rows <- kernclass:::kc_cells_blend_rows
  utils::assignInNamespace("kc_cells_blend_rows", 150L, "kernclass")
  on.exit(utils::assignInNamespace("kc_cells_blend_rows", rows, "kernclass"), add = TRUE)
  tuned <- function() {
    set.seed(9)
    kernel_svm(x, y, approx = cells(size = 100, grid = list(cost = c(0.3, 3),
                                                            gamma = c(0.05, 0.5)), folds = 3))
  }
  sub <- tuned()
  expect_identical(sub$approx$blend$rows, 150L)
  expect_lt(sub$approx$blend$cells, 6)
  expect_lte(sub$approx$blend$fits, sub$approx$blend$cells)
  expect_identical(tuned()$approx$blend, sub$approx$blend)
  # the cells and their choices are those of blend = 1 with the same seed
  set.seed(9)
  one <- kernel_svm(x, y, approx = cells(size = 100, grid = list(cost = c(0.3, 3),
                                                                 gamma = c(0.05, 0.5)),
                                         folds = 3, blend = 1))
  expect_identical(summary(one)$tuning, summary(sub)$tuning)
})

test_that("blend = \"auto\": K = 1 where cells' rules are local, K > 1 where they are smooth", {
  # about 5 s: 3 classes in 3-d, a quadratic boundary, 10 cells of 100
  set.seed(1)
  x <- matrix(rnorm(3000), 1000, 3)
  y <- factor(ifelse(x[, 1] + x[, 2]^2 + rnorm(1000, sd = 0.5) > 1, "a",
                     ifelse(x[, 3] > 0.3, "b", "c")))
  set.seed(1)
  local <- kernel_svm(x, y, approx = cells(size = 100, grid = list(cost = c(1, 30),
                                                                   gamma = c(0.1, 1, 5)),
                                           folds = 3))
  expect_identical(local$approx$blend$K, 1L)
  # a linear rule on 3 of 10 inputs, 15 cells of 100 rows: too few rows
  # to learn it alone
  set.seed(1)
  x <- matrix(rnorm(15000), 1500, 10)
  y <- factor(ifelse(rowSums(x[, 1:3]) + rnorm(1500) > 0, "a", "b"))
  set.seed(1)
  smooth <- kernel_svm(x, y, approx = cells(size = 100, grid = list(cost = c(0.1, 1),
                                                                    gamma = c(0.01, 0.1)),
                                            folds = 3))
  expect_gt(smooth$approx$blend$K, 1L)
  # untuned cells have no out-of-fold values: their own cell below 20,000 rows
  set.seed(1)
  plain <- kernel_svm(x, y, approx = cells(size = 100))
  expect_null(plain$approx$blend)
  expect_identical(kernclass:::kc_cells_blend(plain), 1L)
  expect_output(print(plain), "own cells for untuned cells of fewer than 20,000 rows")
})

test_that("a grid column also given to kernel_svm() is refused before the cells are drawn", {
  set.seed(1)
  x <- matrix(rnorm(400), 200)
  y <- factor(x[, 1] > 0)
  set.seed(5)
  expect_error(kernel_svm(x, y, cost = 2, approx = cells(size = 50, grid = list(cost = 1:2))),
               class = "kernclass_approx_unsupported_error")
  after <- runif(1)
  set.seed(5)
  expect_identical(after, runif(1))  # the check ran before k-means drew its seeds
})
