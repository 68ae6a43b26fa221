# vetiver's methods (R/door-vetiver.R): a kernclass model deployed locally
# through vetiver_model() predicts as the model does, survives a pin's round
# trip, and its API handler (called as plumber would, without a server)
# answers with the model's predictions.

skip_vetiver <- function() {
  for (p in c("vetiver", "pins", "butcher", "bundle")) skip_if_not_installed(p)
}

vetiver_data <- function() {
  set.seed(2)
  i <- sample(150)
  list(train = iris[i[1:100], ], new = iris[i[101:150], ])
}

test_that("vetiver_model() of every fitter predicts as the model", {
  skip_vetiver()
  d <- vetiver_data()
  x <- as.matrix(d$train[, 1:4])
  models <- list(
    svm = kernel_svm(Species ~ ., data = d$train, probability = TRUE),
    means = kernel_means(Species ~ ., data = d$train),
    parzen = kernel_parzen(Species ~ ., data = d$train),
    bayes = kernel_bayes(Species ~ ., data = d$train),
    svm_nystrom = kernel_svm(x, d$train$Species, approx = nystrom(m = 30), probability = TRUE),
    tune = kernel_tune(kernel_parzen, Species ~ ., data = d$train, folds = 3,
                       grid = list(gamma = c(0.1, 1))))
  for (nm in names(models)) {
    m <- models[[nm]]
    v <- vetiver::vetiver_model(m, paste0("iris-", nm))
    expect_s3_class(v, "vetiver_model")
    expect_s3_class(v$model, "bundle")
    expect_identical(v$metadata$required_pkgs, "kernclass")
    expect_match(v$description, "^A kernclass model: ", info = nm)
    expect_identical(predict(v, d$new), predict(m, d$new), info = nm)
    expect_identical(predict(v, d$new, type = "prob"), predict(m, d$new, type = "prob"),
                     info = nm)
    expect_identical(names(v$prototype), c("Sepal.Length", "Sepal.Width", "Petal.Length",
                                           "Petal.Width"), info = nm)
    expect_identical(nrow(v$prototype), 0L)
  }
  expect_match(vetiver::vetiver_model(models$tune, "t")$description, "tuned by kernel_tune")
})

test_that("a pin's round trip keeps the predictions", {
  skip_vetiver()
  d <- vetiver_data()
  m <- kernel_svm(Species ~ ., data = d$train, probability = TRUE)
  v <- vetiver::vetiver_model(m, "iris-svm")
  board <- pins::board_temp()
  suppressMessages(vetiver::vetiver_pin_write(board, v))
  back <- vetiver::vetiver_pin_read(board, "iris-svm")
  expect_identical(back$metadata$required_pkgs, "kernclass")
  expect_identical(back$prototype, v$prototype)
  expect_identical(predict(back, d$new, type = "prob"), predict(m, d$new, type = "prob"))
  expect_identical(predict(back, d$new), predict(m, d$new))
})

test_that("the prototype has the formula's columns with their classes and levels", {
  skip_vetiver()
  set.seed(3)
  n <- 80
  df <- data.frame(a = rnorm(n), g = factor(sample(c("u", "v", "w"), n, TRUE)),
                   s = sample(c("p", "q"), n, TRUE), b = rnorm(n), unused = rnorm(n),
                   stringsAsFactors = FALSE)
  df$y <- factor(ifelse(df$a + (df$g == "u") + rnorm(n, sd = 0.5) > 0.5, "yes", "no"))
  m <- kernel_svm(y ~ a + g + s + log(abs(b)), data = df)
  p <- vetiver::vetiver_ptype(m)
  expect_identical(names(p), c("a", "g", "s", "b"))
  expect_identical(nrow(p), 0L)
  expect_type(p$a, "double")
  expect_identical(levels(p$g), c("u", "v", "w"))
  expect_type(p$s, "character")
  expect_type(p$b, "double")  # used only inside a transformation: a number
  v <- vetiver::vetiver_model(m, "mixed")
  expect_identical(predict(v, df[1:10, ]), predict(m, df[1:10, ]))
  # a matrix fit: a column per input, V1, ... where the matrix has no names
  x <- unname(as.matrix(iris[, 1:4]))
  mx <- kernel_means(x, iris$Species)
  expect_identical(names(vetiver::vetiver_ptype(mx)), paste0("V", 1:4))
  # rows of training inputs give it for any model
  p <- vetiver::vetiver_ptype(mx, prototype_data = as.data.frame(x[1:3, ]))
  expect_identical(nrow(p), 0L)
  expect_identical(ncol(p), 4L)
})

test_that("models without columns need save_prototype = FALSE or a prototype", {
  skip_vetiver()
  skip_if_not_installed("Matrix")
  x <- Matrix::Matrix(as.matrix(iris[, 1:4]), sparse = TRUE)
  m <- kernel_svm(x, iris$Species, scale = FALSE)
  expect_error(vetiver::vetiver_model(m, "sparse"), class = "kernclass_vetiver_error")
  v <- vetiver::vetiver_model(m, "sparse", save_prototype = FALSE)
  expect_null(v$prototype)
  expect_identical(predict(v, x[1:10, ]), predict(m, x[1:10, ]))
})

test_that("the API handler answers with the model's predictions", {
  skip_vetiver()
  skip_if_not_installed("hardhat")
  d <- vetiver_data()
  m <- kernel_svm(Species ~ ., data = d$train, probability = TRUE)
  v <- vetiver::vetiver_model(m, "iris-svm")
  # vetiver_api() unbundles the model before it builds the handler
  v$model <- bundle::unbundle(v$model)
  body <- d$new[, 1:4]
  expect_identical(vetiver::handler_predict(v)(list(body = body)),
                   list(.pred = unname(predict(m, d$new))))
  prob <- vetiver::handler_predict(v, type = "prob")(list(body = body))
  want <- predict(m, d$new, type = "prob")
  expect_identical(names(prob), paste0(".pred_", colnames(want)))
  expect_identical(unname(as.matrix(prob)), unname(want))
  # a request's numbers as text are converted to the prototype's
  text <- as.data.frame(lapply(body, format, digits = 17), stringsAsFactors = FALSE)
  expect_identical(vetiver::handler_predict(v)(list(body = text))$.pred,
                   unname(predict(m, d$new)))
  # conformal sets: a list of classes per row
  cf <- conformal(m, d$new, d$new$Species)
  vc <- vetiver::vetiver_model(cf, "iris-sets")
  vc$model <- bundle::unbundle(vc$model)
  sets <- vetiver::handler_predict(vc, type = "set", level = 0.9)(list(body = body))$.pred
  expect_identical(sets, unname(as.list(predict(cf, d$new, type = "set", level = 0.9))))
})
