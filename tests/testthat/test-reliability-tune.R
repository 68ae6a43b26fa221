# kernel_tune()'s refitted model is the fitter's own (its call re-runs with
# update(), predict() takes new data through the formula), and the formula
# methods of kernel_cv()/kernel_tune() code inputs as the fitters do:
# interactions, non-syntactic names, character columns coded from all rows.

tune_log_data <- function() {
  set.seed(11)
  n <- 60
  d <- data.frame(y = factor(rep(c("a", "b"), n / 2)), x1 = rexp(n), x2 = rnorm(n))
  d$x2 <- d$x2 + (d$y == "a")
  d$x1 <- d$x1 * ifelse(d$y == "a", 1, 3)
  d
}

test_that("kernel_tune's formula model is the fitter's formula fit: update() and predict() work", {
  d <- tune_log_data()
  new <- data.frame(x1 = c(0.5, 2, 4), x2 = c(-1, 0, 1.5))
  for (case in list(list(fit = kernel_svm, name = "kernel_svm", grid = list(cost = c(1, 8))),
                    list(fit = kernel_parzen, name = "kernel_parzen",
                         grid = list(gamma = c(0.1, 1))))) {
    set.seed(1)
    tuned <- kernel_tune(case$fit, y ~ log(x1) + x2, data = d, grid = case$grid, folds = 3)
    best <- tuned$best
    expect_identical(tuned$model$call,
                     as.call(c(list(as.name(case$name), quote(y ~ log(x1) + x2), data = quote(d)),
                               best)))
    direct <- do.call(case$fit, c(list(y ~ log(x1) + x2, data = d), best))
    expect_identical(predict(tuned$model, new), predict(direct, new))
    expect_identical(fitted(tuned$model), fitted(direct))
    # update() with another parameter equals the direct fit with it
    other <- setNames(list(if (case$name == "kernel_svm") 1 else 0.5), names(best)[1L])
    updated <- do.call(stats::update, c(list(tuned$model), other))
    direct_other <- do.call(case$fit, c(list(y ~ log(x1) + x2, data = d), other))
    expect_identical(predict(updated, new), predict(direct_other, new))
    expect_identical(updated$call[[names(best)[1L]]], other[[1L]])
  }
})

test_that("kernel_tune's formula refit keeps subset and the fitter's arguments", {
  d <- tune_log_data()
  set.seed(2)
  tuned <- kernel_tune(kernel_svm, y ~ log(x1) + x2, data = d, subset = 1:50,
                       grid = list(cost = c(1, 4)), folds = 3, kernel = "linear")
  expect_identical(tuned$model$call,
                   as.call(c(list(quote(kernel_svm), quote(y ~ log(x1) + x2), data = quote(d),
                                  subset = quote(1:50)), tuned$best, list(kernel = "linear"))))
  direct <- do.call(kernel_svm, c(list(y ~ log(x1) + x2, data = d, subset = 1:50),
                                  tuned$best, list(kernel = "linear")))
  expect_identical(predict(tuned$model, d), predict(direct, d))
  expect_s3_class(update(tuned$model, cost = 2), "kernel_svm")
})

test_that("kernel_tune given kernclass::kernel_svm stores a call update() can re-run", {
  d <- tune_log_data()
  x <- as.matrix(d[c("x1", "x2")])
  set.seed(3)
  tuned <- kernel_tune(kernclass::kernel_svm, x, d$y, grid = list(cost = c(1, 8)), folds = 3)
  expect_identical(tuned$model$call,
                   as.call(c(list(quote(kernel_svm), x = quote(x), y = quote(d$y)), tuned$best)))
  updated <- update(tuned$model, cost = 1)
  expect_identical(fitted(updated), fitted(kernel_svm(x, d$y, cost = 1)))
})

interaction_data <- function() {
  set.seed(21)
  n <- 60
  d <- data.frame(y = factor(rep(c("p", "q"), n / 2)), a = rnorm(n), b = rnorm(n))
  d$a <- d$a + (d$y == "p")
  d$b <- d$b + 0.5 * (d$y == "q")
  d
}

test_that("kernel_cv and kernel_tune take interaction terms as the fitters do", {
  d <- interaction_data()
  m <- cbind(a = d$a, b = d$b, "a:b" = d$a * d$b)
  for (case in list(list(f = y ~ a * b, x = m), list(f = y ~ a:b, x = m[, 3L, drop = FALSE]))) {
    set.seed(4)
    by_formula <- kernel_cv(kernel_svm, case$f, data = d, folds = 4)
    set.seed(4)
    by_matrix <- kernel_cv(kernel_svm, case$x, d$y, folds = 4)
    expect_identical(by_formula$predicted, by_matrix$predicted)
    expect_identical(by_formula$accuracy, by_matrix$accuracy)
    set.seed(4)
    tuned_formula <- kernel_tune(kernel_svm, case$f, data = d, grid = list(cost = c(0.5, 4)),
                                 folds = 4)
    set.seed(4)
    tuned_matrix <- kernel_tune(kernel_svm, case$x, d$y, grid = list(cost = c(0.5, 4)), folds = 4)
    expect_identical(tuned_formula$results, tuned_matrix$results)
    expect_identical(fitted(tuned_formula$model), fitted(tuned_matrix$model))
  }
})

test_that("kernel_cv and kernel_tune take column names that are not syntactic", {
  d <- interaction_data()
  e <- d
  names(e)[names(e) == "a"] <- "my col"
  m <- cbind("my col" = d$a, b = d$b)
  set.seed(5)
  by_formula <- kernel_cv(kernel_svm, y ~ ., data = e, folds = 4)
  set.seed(5)
  by_matrix <- kernel_cv(kernel_svm, m, d$y, folds = 4)
  expect_identical(by_formula$predicted, by_matrix$predicted)
  set.seed(5)
  tuned_formula <- kernel_tune(kernel_svm, y ~ ., data = e, grid = list(cost = c(0.5, 4)),
                               folds = 4)
  set.seed(5)
  tuned_matrix <- kernel_tune(kernel_svm, m, d$y, grid = list(cost = c(0.5, 4)), folds = 4)
  expect_identical(tuned_formula$results, tuned_matrix$results)
  expect_identical(unname(predict(tuned_formula$model, e)), predict(tuned_matrix$model, m))
})

test_that("a character column is coded from all rows, as the same column as a factor", {
  set.seed(31)
  n <- 50
  g <- data.frame(y = factor(rep(c("p", "q"), n / 2)), a = rnorm(n),
                  s = sample(c("u", "v"), n, replace = TRUE), stringsAsFactors = FALSE)
  g$a <- g$a + (g$y == "p")
  g$s[1L] <- "w"  # a value in one fold only
  gf <- g
  gf$s <- factor(gf$s)
  same <- function(run) {
    set.seed(6)
    chr <- run(g)
    set.seed(6)
    fct <- run(gf)
    expect_false(is.na(fct$accuracy[1L]))
    list(chr, fct)
  }
  r <- same(function(data) kernel_cv(kernel_svm, data[c("a", "s")], data$y, folds = 5))
  expect_identical(r[[1]]$predicted, r[[2]]$predicted)
  expect_identical(r[[1]]$accuracy, r[[2]]$accuracy)
  r <- same(function(data) kernel_cv(kernel_svm, y ~ ., data = data, folds = 5))
  expect_identical(r[[1]]$predicted, r[[2]]$predicted)
  for (tune in list(function(data) kernel_tune(kernel_svm, data[c("a", "s")], data$y,
                                               grid = list(cost = c(1, 4)), folds = 5),
                    function(data) kernel_tune(kernel_svm, y ~ ., data = data,
                                               grid = list(cost = c(1, 4)), folds = 5))) {
    set.seed(6)
    chr <- tune(g)
    set.seed(6)
    fct <- tune(gf)
    expect_identical(chr$results, fct$results)
    expect_false(anyNA(chr$results$accuracy))
  }
})
