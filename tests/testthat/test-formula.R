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
