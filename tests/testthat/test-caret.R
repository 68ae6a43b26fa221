# kernclass_caret(): the model list caret::train() takes. Its tuning
# parameters and default grid, and train()'s resampled accuracies and final
# model against kernclass fits of the same rows and parameters.

testthat::local_edition(3)

test_that("the model list names kernclass's tuning parameters", {
  expect_identical(kernclass_caret("svm")$parameters$parameter, c("cost", "gamma"))
  expect_identical(kernclass_caret("svm", "poly")$parameters$parameter,
                   c("cost", "gamma", "degree"))
  expect_identical(kernclass_caret("svm", "linear")$parameters$parameter, "cost")
  expect_identical(kernclass_caret("parzen", "laplace")$parameters$parameter, "gamma")
  expect_identical(kernclass_caret("means", "linear")$parameters$parameter, "parameter")
  expect_identical(kernclass_caret("means", "linear")$grid(iris[, 1:4], iris$Species, 3),
                   data.frame(parameter = "none"))
  m <- kernclass_caret("bayes")
  expect_true(all(c("label", "library", "type", "parameters", "grid", "fit", "predict", "prob",
                    "sort", "levels") %in% names(m)))
  expect_identical(m$library, "kernclass")
  # the default grid: cost 2^(j - 3), gamma the median rule times 4^j
  g <- kernclass_caret("svm")$grid(iris[, 1:4], iris$Species, len = 3)
  g0 <- estimate_gamma(iris[, 1:4])
  expect_equal(g, expand.grid(cost = c(0.25, 0.5, 1), gamma = g0 * c(0.25, 1, 4),
                              KEEP.OUT.ATTRS = FALSE))
  set.seed(1)
  r <- kernclass_caret("svm", "polynomial")$grid(iris[, 1:4], iris$Species, len = 4,
                                                 search = "random")
  expect_identical(dim(r), c(4L, 3L))
  expect_true(all(r$degree %in% 1:3) && all(r$cost > 0) && all(r$gamma > 0))
  # sort: simplest first
  s <- kernclass_caret("svm")$sort(data.frame(cost = c(2, 1, 1), gamma = c(1, 3, 2)))
  expect_identical(s$gamma, c(2, 3, 1))
  expect_error(kernclass_caret("knn"), class = "kernclass_input_error")
  expect_error(kernclass_caret("svm", "spline"), class = "kernclass_input_error")
})

test_that("caret::train() resamples and refits kernel_svm() as kernclass does", {
  local_tz()
  skip_if_not_installed("caret")
  set.seed(71)
  rows <- sample(150, 99)
  x <- iris[rows, 1:4]
  y <- iris$Species[rows]
  grid <- expand.grid(cost = c(1, 10), gamma = c(0.1, 1))
  set.seed(72)
  tr <- (caret::train(x, y, method = kernclass_caret("svm"), tuneGrid = grid,
                                      trControl = caret::trainControl(method = "cv", number = 3)))
  expect_identical(nrow(tr$results), 4L)
  best <- tr$bestTune
  # each fold's accuracy at the best parameters, from a direct fit
  for (f in seq_along(tr$control$index)) {
    fit <- kernel_svm(x[tr$control$index[[f]], ], y[tr$control$index[[f]]],
                      cost = best$cost, gamma = best$gamma)
    held <- tr$control$indexOut[[f]]
    acc <- tr$resample$Accuracy[tr$resample$Resample == names(tr$control$index)[f]]
    expect_equal(acc, mean(predict(fit, x[held, ]) == y[held]), info = f)
  }
  ref <- kernel_svm(x, y, cost = best$cost, gamma = best$gamma)
  expect_s3_class(tr$finalModel, "kernel_svm")
  expect_equal(predict(tr$finalModel, iris[, 1:4], type = "decision"),
               predict(ref, iris[, 1:4], type = "decision"))
  expect_identical(unname(predict(tr, iris[, 1:4])), unname(predict(ref, iris[, 1:4])))
})

test_that("train() with class probabilities, case weights, and the other classifiers", {
  local_tz()
  skip_if_not_installed("caret")
  set.seed(73)
  w <- runif(150, 0.5, 2)
  tr <- (caret::train(
    Species ~ ., data = iris, method = kernclass_caret("svm", "linear"), weights = w,
    tuneGrid = data.frame(cost = 2),
    trControl = caret::trainControl(method = "cv", number = 3, classProbs = TRUE)))
  expect_false(is.null(tr$finalModel$probA))
  ref <- kernel_svm(as.matrix(iris[, 1:4]), iris$Species, kernel = "linear", cost = 2,
                    weights = w)
  expect_equal(predict(tr$finalModel, iris[, 1:4], type = "decision"),
               predict(ref, iris[, 1:4], type = "decision"))
  expect_equal(unname(as.matrix(predict(tr, iris[, 1:4], type = "prob"))),
               unname(predict(tr$finalModel, iris[, 1:4], type = "prob")))

  tr <- (caret::train(
    iris[, 1:4], iris$Species, method = kernclass_caret("parzen"), tuneLength = 2,
    trControl = caret::trainControl(method = "cv", number = 3)))
  expect_identical(nrow(tr$results), 2L)
  expect_s3_class(tr$finalModel, "kernel_parzen")
  expect_equal(tr$finalModel$kernel$gamma, tr$bestTune$gamma)
  # no tuning parameter: caret's placeholder
  tr <- (caret::train(
    iris[, 1:4], iris$Species, method = kernclass_caret("means", "linear"),
    trControl = caret::trainControl(method = "cv", number = 3)))
  expect_s3_class(tr$finalModel, "kernel_means")
  expect_identical(tr$finalModel$kernel$name, "linear")
  # case weights for a classifier without them, and kernel given twice
  expect_error(kernclass_caret("means")$fit(iris[, 1:4], iris$Species, wts = rep(1, 150),
                                            param = data.frame(gamma = 1), lev = NULL,
                                            last = TRUE, classProbs = FALSE),
               class = "kernclass_input_error")
  expect_error(kernclass_caret("means")$fit(iris[, 1:4], iris$Species, wts = NULL,
                                            param = data.frame(gamma = 1), lev = NULL,
                                            last = TRUE, classProbs = FALSE, kernel = "linear"),
               class = "kernclass_input_error")
})
