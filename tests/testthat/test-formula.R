# The formula path: model frame -> coded design -> the fitter's worker, which
# the default method calls too; arguments a formula supplies; update().

fitters <- c("kernel_means", "kernel_parzen", "kernel_bayes", "kernel_svm")

test_that("`y` given with a formula is a classed error naming it, for every fitter", {
  for (f in fitters) {
    fun <- get(f, envir = asNamespace("kernclass"))
    cnd <- expect_error(fun(Species ~ ., data = iris, y = rev(iris$Species)),
                        "`y` cannot be given with a formula",
                        class = "kernclass_formula_conflict_error", info = f)
    expect_s3_class(cnd, "kernclass_input_error")
    expect_identical(cnd$arg, "y")
  }
  cnd <- expect_error(estimate_gamma(Species ~ ., data = iris, y = iris$Species),
                      class = "kernclass_formula_conflict_error")
  expect_identical(cnd$arg, "y")
  cnd <- expect_error(estimate_gamma(~ Petal.Length, data = iris, y = 1),
                      class = "kernclass_formula_conflict_error")
  # y = NULL is given too, though it says nothing
  expect_error(kernel_svm(Species ~ ., data = iris, y = NULL),
               class = "kernclass_formula_conflict_error")
})

test_that("the default methods take no design lists: a list is an input error", {
  ns <- asNamespace("kernclass")
  design <- list(x = as.matrix(iris[, 1:4]), y = iris$Species)
  for (f in fitters) {
    def <- get(paste0(f, ".default"), envir = ns)
    expect_error(def(design, iris$Species), "`x` must be a numeric matrix or a data frame; got list",
                 class = "kernclass_input_error", info = f)
    # the class the formula methods once used to pass their design
    expect_error(def(structure(design, class = "kc_design")), "`x` must be a numeric matrix",
                 class = "kernclass_input_error", info = f)
    expect_error(get(f, envir = ns)(design, iris$Species), class = "kernclass_input_error",
                 info = f)
  }
  expect_error(estimate_gamma(structure(design, class = "kc_design")),
               "`x` must be a numeric matrix", class = "kernclass_input_error")
})

test_that("formula and default methods give the same model through the same worker", {
  set.seed(1)
  d <- data.frame(a = rnorm(60), b = rnorm(60), cls = factor(rep(c("u", "v", "w"), 20)))
  for (f in fitters) {
    fun <- get(f, envir = asNamespace("kernclass"))
    m1 <- fun(cls ~ a + b, data = d, gamma = 0.5)
    m2 <- fun(d[c("a", "b")], d$cls, gamma = 0.5)
    expect_identical(predict(m1, d, type = "decision"), predict(m2, d, type = "decision"),
                     info = f)
    expect_identical(m1$call[[1L]], as.name(f), info = f)   # the generic, for update()
    expect_identical(names(m1$call)[-1L], c("formula", "data", "gamma"), info = f)
  }
})

test_that("formula and default methods both keep an input factor's unused levels", {
  set.seed(2)
  d <- data.frame(a = rnorm(60), f = factor(sample(c("p", "q"), 60, TRUE), levels = c("p", "q", "r")),
                  cls = factor(rep(c("u", "v"), 30)))
  for (f in fitters) {
    fun <- get(f, envir = asNamespace("kernclass"))
    m1 <- fun(cls ~ a + f, data = d, gamma = 0.5)
    m2 <- fun(d[c("a", "f")], d$cls, gamma = 0.5)
    # the help's promise: the unused level "r" is kept, a column of zeros
    expect_identical(m1$xlevels, list(f = c("p", "q", "r")), info = f)
    expect_identical(m2$xlevels, m1$xlevels, info = f)
    new <- data.frame(a = 0, f = factor("r", levels = c("p", "q", "r")))
    expect_identical(predict(m1, new, type = "decision"), predict(m2, new, type = "decision"),
                     info = f)
    expect_false(anyNA(predict(m1, new)), info = f)
  }
  # a response's unused level: both methods drop it with the same warning
  y3 <- factor(d$cls, levels = c("u", "v", "none"))
  d3 <- transform(d, cls = y3)
  expect_warning(m1 <- kernel_means(cls ~ a, data = d3), "\"none\"", class = "kernclass_warning")
  expect_warning(m2 <- kernel_means(d3["a"], d3$cls), "\"none\"", class = "kernclass_warning")
  expect_identical(m1$levels, m2$levels)
})

test_that("update() re-runs formula and default fits", {
  two <- droplevels(subset(iris, Species != "setosa"))
  for (f in fitters) {
    fun <- get(f, envir = asNamespace("kernclass"))
    fit <- fun(Species ~ ., data = two, gamma = 0.3)
    up <- update(fit, gamma = 2)
    ref <- fun(Species ~ ., data = two, gamma = 2)
    expect_identical(predict(up, two, type = "decision"), predict(ref, two, type = "decision"),
                     info = f)
    expect_identical(up$call$gamma, 2, info = f)
    narrow <- update(fit, . ~ Petal.Length + Petal.Width)
    expect_identical(colnames(narrow$x), c("Petal.Length", "Petal.Width"), info = f)
    expect_identical(predict(narrow, two), predict(fun(Species ~ Petal.Length + Petal.Width,
                                                       data = two, gamma = 0.3), two), info = f)
    xy <- fun(two[, 1:4], two$Species, gamma = 0.3)
    up <- update(xy, gamma = 2)
    expect_identical(predict(up, two[, 1:4], type = "decision"),
                     predict(fun(two[, 1:4], two$Species, gamma = 2), two[, 1:4],
                             type = "decision"), info = f)
  }
  w <- rep(c(1, 3), 50)
  s <- kernel_svm(Species ~ ., data = two, weights = w)
  expect_identical(predict(update(s, cost = 2), two, type = "decision"),
                   predict(kernel_svm(Species ~ ., data = two, weights = w, cost = 2), two,
                           type = "decision"))
})

test_that("a generic called with `formula =` named dispatches to the formula method", {
  a <- kernel_parzen(formula = Species ~ Petal.Width, data = iris)
  b <- kernel_parzen(Species ~ Petal.Width, data = iris)
  expect_identical(predict(a, iris, type = "prob"), predict(b, iris, type = "prob"))
  expect_error(kernel_parzen(data = iris), "`x` is missing", class = "kernclass_input_error")
})

# ---- the formula methods of kernel_cv() and kernel_tune() code inputs as the
# fitters do: interactions, non-syntactic names, character columns coded from
# all rows ---------------------------------------------------------------------

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
