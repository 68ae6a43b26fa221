# What R users expect of a model object: nobs(), formula(), terms(),
# model.frame(), model.matrix(), residuals(); update() and the printed call;
# and e1071's and kernlab's arguments answered with the kernclass way.

testthat::local_edition(3)

fitters <- list(kernel_means = kernel_means, kernel_parzen = kernel_parzen,
                kernel_bayes = kernel_bayes, kernel_svm = kernel_svm)

test_that("nobs, formula, terms, model.frame and model.matrix of formula fits", {
  d <- iris
  d$Sepal.Width[3] <- NA
  for (f in names(fitters)) {
    fit <- fitters[[f]](Species ~ Petal.Length + log(Sepal.Width), data = d,
                        subset = Sepal.Length > 4.6, na.action = na.omit)
    keep <- d$Sepal.Length > 4.6 & !is.na(d$Sepal.Width)
    expect_identical(nobs(fit), sum(keep), info = f)
    expect_identical(formula(fit), Species ~ Petal.Length + log(Sepal.Width), ignore_attr = TRUE,
                     info = f)
    expect_identical(attr(terms(fit), "term.labels"), c("Petal.Length", "log(Sepal.Width)"),
                     info = f)
    mf <- model.frame(fit)
    expect_identical(nrow(mf), sum(keep), info = f)
    expect_equal(mf[["log(Sepal.Width)"]], log(d$Sepal.Width[keep]), info = f)
    expect_identical(mf$Species, d$Species[keep], info = f)
    # other data in place of the call's
    expect_identical(nrow(model.frame(fit, data = iris[1:10, ])),
                     sum(iris$Sepal.Length[1:10] > 4.6), info = f)
    expect_identical(nrow(model.frame(fit, data = iris, subset = NULL)), 150L, info = f)
    # the matrix the kernel sees: coded, scaled inputs, computed here in R
    raw <- cbind(d$Petal.Length, log(d$Sepal.Width))[keep, ]
    expect_equal(model.matrix(fit), scale(raw), ignore_attr = TRUE, info = f)
    expect_equal(kernel_matrix(model.matrix(fit), gamma = fit$kernel$gamma),
                 ref_kernel(scale(raw), scale(raw), "rbf", fit$kernel$gamma),
                 ignore_attr = TRUE, info = f)
    expect_error(residuals(fit), class = "kernclass_undefined_error", info = f)
    expect_error(resid(fit), "no residuals", info = f)
    expect_error(nobs(fit, 1), class = "kernclass_input_error", info = f)
  }
  # weights are in the model frame, as in lm's
  s <- kernel_svm(Species ~ ., data = iris, weights = rep(1:2, 75))
  expect_identical(model.frame(s)[["(weights)"]], rep(1:2, 75))
  # factor inputs: one indicator per level, unscaled
  m <- kernel_means(Species ~ Petal.Length + f,
                    data = transform(iris, f = factor(rep(c("u", "v", "w"), 50))))
  expect_identical(colnames(model.matrix(m)), c("Petal.Length", "fu", "fv", "fw"))
  expect_identical(unname(model.matrix(m)[1:3, 2:4]), diag(3))
})

test_that("fits to x and y: terms for data frames, classed errors where no formula", {
  for (f in names(fitters)) {
    fm <- fitters[[f]](as.matrix(iris[, 1:4]), iris$Species)
    fd <- fitters[[f]](iris[, 1:4], iris$Species)
    expect_identical(nobs(fm), 150L, info = f)
    expect_error(formula(fm), class = "kernclass_undefined_error", info = f)
    expect_error(formula(fd), class = "kernclass_undefined_error", info = f)
    expect_error(model.frame(fd), class = "kernclass_undefined_error", info = f)
    expect_error(terms(fm), class = "kernclass_undefined_error", info = f)
    expect_identical(attr(terms(fd), "term.labels"), names(iris)[1:4], info = f)
    expect_equal(model.matrix(fm), scale(as.matrix(iris[, 1:4])), ignore_attr = TRUE, info = f)
    expect_error(update(fd, . ~ Petal.Length), class = "kernclass_undefined_error", info = f)
  }
})

test_that("update() and the printed call re-run every fitter", {
  two <- droplevels(subset(iris, Species != "setosa"))
  for (f in names(fitters)) {
    fit <- fitters[[f]](Species ~ ., data = two, gamma = 0.3)
    printed <- sub("^Call: ", "", grep("^Call: ", capture.output(print(fit)), value = TRUE))
    again <- eval(parse(text = printed))
    expect_identical(predict(again, two, type = "decision"), predict(fit, two, type = "decision"),
                     info = f)
    other <- droplevels(iris[61:140, ])
    up <- update(fit, gamma = 1, data = other)
    ref <- fitters[[f]](Species ~ ., data = other, gamma = 1)
    expect_identical(predict(up, two, type = "decision"), predict(ref, two, type = "decision"),
                     info = f)
    # update() with the formula from formula(): expanded, so `- term` works
    narrow <- update(fit, . ~ . - Sepal.Width)
    expect_identical(colnames(narrow$x), c("Sepal.Length", "Petal.Length", "Petal.Width"),
                     info = f)
  }
})

test_that("e1071 and kernlab arguments get a classed error naming the kernclass way", {
  svm <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
  means <- kernel_means(Species ~ ., data = iris)
  e1071 <- "kernclass_e1071_argument_error"
  cnd <- expect_error(predict(svm, iris, probability = TRUE), 'type = "prob"', class = e1071)
  expect_s3_class(cnd, "kernclass_input_error")
  expect_identical(cnd$arg, "probability")
  expect_error(predict(means, iris, decision.values = TRUE), 'type = "decision"', class = e1071)
  # with an unknown argument too, both are named
  cnd <- expect_error(predict(svm, iris, decision.values = TRUE, colour = 2), class = e1071)
  expect_match(conditionMessage(cnd), "`colour`")
  expect_error(predict(svm, iris, type = "probabilities"), 'type = "prob"', class = e1071)
  expect_error(predict(svm, iris, type = "votes"), 'type = "decision"', class = e1071)
  expect_error(predict(svm, iris, type = "response"), 'type = "class"', class = e1071)
  for (f in names(fitters)) {
    fun <- fitters[[f]]
    expect_error(fun(Species ~ ., data = iris, cross = 5), "kernel_cv\\(", class = e1071,
                 info = f)
    expect_error(fun(iris[, 1:4], iris$Species, verbose = TRUE), "summary\\(fit\\)",
                 class = e1071, info = f)
    expect_error(fun(iris[, 1:4], iris$Species, kpar = list(sigma = 1)), "gamma",
                 class = e1071, info = f)
    expect_error(fun(iris[, 1:4], iris$Species, sigma = 1), "gamma", class = e1071, info = f)
  }
  expect_error(kernel_svm(Species ~ ., data = iris, C = 10), "use cost", class = e1071)
  expect_error(kernel_svm(Species ~ ., data = iris, prob.model = TRUE), "probability = TRUE",
               class = e1071)
  expect_error(kernel_svm(Species ~ ., data = iris, scaled = FALSE), "use scale", class = e1071)
  expect_error(kernel_means(Species ~ ., data = iris, probability = TRUE), 'type = "prob"',
               class = e1071)
  # misspellings stay the plain unknown-argument error
  cnd <- expect_error(kernel_svm(Species ~ ., data = iris, gama = 1), "Unknown argument",
                      class = "kernclass_input_error")
  expect_false(inherits(cnd, e1071))
  # kernel_cv() passes its `...` on to the fitter: same error there
  expect_error(kernel_cv(kernel_means, iris[, 1:4], iris$Species, folds = 3, cross = 5),
               class = e1071)
})

test_that("e1071's na.action on a default method and tune()'s ranges get the kernclass way", {
  e1071 <- "kernclass_e1071_argument_error"
  for (f in names(fitters)) {
    cnd <- expect_error(fitters[[f]](iris[, 1:4], iris$Species, na.action = na.omit),
                        "formula method", class = e1071, info = f)
    expect_identical(cnd$arg, "na.action", info = f)
    expect_match(conditionMessage(cnd), "complete.cases", fixed = TRUE, info = f)
  }
  # the formula method takes na.action itself
  expect_s3_class(kernel_means(Species ~ ., data = iris, na.action = na.omit), "kernel_means")
  # kernel_tune(ranges = ): named before any grid row runs, with the grid to give
  for (fit in list(kernel_svm, kernel_means)) {
    cnd <- expect_error(kernel_tune(fit, iris[, 1:4], iris$Species,
                                    ranges = list(cost = c(1, 10))), "grid = list(", fixed = TRUE,
                        class = e1071)
    expect_identical(cnd$arg, "ranges")
    expect_false(grepl("Grid row", conditionMessage(cnd)))
  }
  cnd <- expect_error(kernel_tune(kernel_means, Species ~ ., data = iris, grid = list(gamma = 1),
                                  tunecontrol = list(cross = 3)), "`folds`", class = e1071)
  expect_identical(cnd$arg, "tunecontrol")
})
