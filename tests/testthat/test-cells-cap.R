# Tuned cells' capped search fits (cells(search_iter =), R/repr-cells-tune.R):
# the cap is search_iter SMO iterations per row of the cell, the search is
# kernel_tune()'s with that max_iter (repeated by hand from the cell's seed),
# the final fit is not capped, print() and summary() say so; tuned cells of
# size "auto". About 15 s.

cap_data <- function(n = 400, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * 2), n, 2)
  y <- factor(ifelse(x[, 1] + sin(2 * x[, 2]) + rnorm(n, sd = 0.4) > 0, "a", "b"))
  list(x = x, y = y)
}
cap_grid <- list(cost = c(1, 100), gamma = c(0.5, 2))
cap_fit <- function(search_iter, d = cap_data(), seed = 3, ...) {
  set.seed(seed)
  kernel_svm(d$x, d$y, approx = cells(size = 200, grid = cap_grid, folds = 3,
                                      search = "exhaustive", search_iter = search_iter), ...)
}

test_that("cells() checks search_iter with a classed error naming it", {
  arg_of <- function(expr) tryCatch(expr, kernclass_input_error = function(e) e$arg)
  for (bad in list(0, -1, NA_real_, "a", c(1, 2), NULL)) {
    expect_identical(arg_of(cells(tune = TRUE, search_iter = bad)), "search_iter")
  }
  expect_identical(cells(tune = TRUE)$tune$search_iter, 1)
  expect_identical(cells(tune = TRUE, search_iter = Inf)$tune$search_iter, Inf)
})

test_that("the cap is search_iter per row of the cell, at most max_iter", {
  expect_identical(kernclass:::kc_cells_search_max_iter(1, 203, 1e7), 203)
  expect_identical(kernclass:::kc_cells_search_max_iter(0.05, 203, 1e7), 11)
  expect_identical(kernclass:::kc_cells_search_max_iter(1e-9, 203, 1e7), 1)
  expect_identical(kernclass:::kc_cells_search_max_iter(2, 203, 100), 100)
  expect_identical(kernclass:::kc_cells_search_max_iter(Inf, 203, 1e7), 1e7)
  # a spec made before the cap (no search_iter): uncapped
  expect_identical(kernclass:::kc_cells_search_max_iter(NULL, 203, 1e7), 1e7)
})

test_that("a capped search is kernel_tune()'s with that max_iter, from the cell's seed", {
  d <- cap_data()
  # a cap small enough that the search's fits stop at it
  fit <- cap_fit(0.05, d)
  kind <- RNGkind()
  on.exit(RNGkind(kind[1], kind[2], kind[3]), add = TRUE)
  differs <- FALSE
  for (j in seq_along(fit$approx$models)) {
    m <- fit$approx$models[[j]]
    rows <- which(fit$approx$cell == j)
    x <- fit$x[rows, , drop = FALSE]
    y <- droplevels(fit$y[rows])
    expect_identical(m$tuning$search_max_iter, ceiling(0.05 * length(rows)))
    hand <- function(...) {
      assign(".Random.seed", m$tuning$seed, envir = globalenv())
      suppressWarnings(kernel_tune(kernel_svm, x, y, grid = cap_grid, folds = 3,
                                   search = "exhaustive", scale = FALSE, ...))
    }
    capped <- hand(max_iter = m$tuning$search_max_iter)
    expect_equal(c(m$tuning$cost, m$tuning$gamma), c(capped$best$cost, capped$best$gamma))
    expect_equal(m$tuning$accuracy, capped$best_accuracy)
    free <- hand()
    differs <- differs || !isTRUE(all.equal(capped$results$accuracy, free$results$accuracy))
  }
  # (the cap bites here: the uncapped search scores differently)
  expect_true(differs)
})

test_that("capped at one iteration per row, the cells choose as the uncapped search does", {
  # an easy problem: the same choices, CV accuracies within 1 point
  capped <- summary(cap_fit(1))$tuning
  free <- summary(cap_fit(Inf))$tuning
  expect_equal(capped[c("cell", "rows", "cost", "gamma")], free[c("cell", "rows", "cost", "gamma")])
  expect_lt(max(abs(capped$cv_accuracy - free$cv_accuracy)), 0.01)
  expect_identical(capped$search_max_iter, as.numeric(capped$rows))
  expect_identical(free$search_max_iter, c(1e7, 1e7))
})

test_that("the final fit at the choice is not capped", {
  fit <- cap_fit(0.05)
  for (j in seq_along(fit$approx$models)) {
    m <- fit$approx$models[[j]]
    rows <- which(fit$approx$cell == j)
    # the final fit ran past the search's cap, to convergence: kernel_svm()'s
    # own fit of the cell's rows at the chosen values
    expect_true(m$converged)
    expect_gt(m$iterations, m$tuning$search_max_iter)
    exact <- kernel_svm(fit$x[rows, , drop = FALSE], droplevels(fit$y[rows]), scale = FALSE,
                        cost = m$tuning$cost, gamma = m$tuning$gamma)
    expect_identical(m$iterations, exact$iterations)
    expect_equal(m$coefs, exact$coefs)
    expect_equal(m$index, rows[exact$index])
  }
})

test_that("print() and summary() say that the search fits are capped and the final fits not", {
  fit <- cap_fit(1)
  rows <- range(summary(fit)$tuning$rows)
  line <- sprintf("search fits capped at 1 SMO iteration\\(s\\) per row of the cell \\(%d to %d\\)",
                  rows[1], rows[2])
  expect_output(print(fit), line)
  expect_output(print(fit), "each cell's final fit at its choice is not capped")
  expect_output(print(summary(fit)), line)
  expect_output(print(cap_fit(Inf)), "search fits run to convergence \\(search_iter = Inf\\)")
  # a model fitted before the cap: no line
  old <- fit
  old$approx$spec$tune$search_iter <- NULL
  expect_false(any(grepl("search fits", capture.output(print(old)))))
})

test_that("tuned cells of size \"auto\" hold 2,000 rows at any n; untuned ones follow the rule", {
  # one home for the rule: the table's, which the fit, the check and caret read
  sized <- kernclass:::kc_approx_sized
  tuned <- cells(tune = TRUE)
  expect_identical(sized(tuned, 1e6)$size, 2000L)
  expect_identical(sized(tuned, 100)$size, 2000L)
  expect_match(sized(tuned, 1e6)$chosen, "size = 2,000 for tuned cells")
  expect_identical(sized(cells(size = 500, tune = TRUE), 1e6)$size, 500L)
  expect_identical(sized(cells(), 1e6)$size, 5000L)
  # a fit: ceiling(2500 / 2000) cells, print() says why
  d <- cap_data(2500)
  set.seed(2)
  fit <- kernel_svm(d$x, d$y, approx = cells(grid = list(cost = 1, gamma = 1), folds = 2))
  expect_length(fit$approx$models, 2L)
  expect_identical(fit$approx$spec$size, 2000L)
  expect_output(print(fit), "size = 2,000 for tuned cells")
})
