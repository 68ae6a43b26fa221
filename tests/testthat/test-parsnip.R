# The parsnip engines "kernclass" (svm_rbf, svm_poly, svm_linear) and the
# model kernel_classifier(): each fit through parsnip must be the kernclass
# fit of the mapped arguments (same classes, probabilities and decision
# values), case weights must reach kernel_svm(weights = ), and tune must run
# over them with the metrics a direct fit of each resample gives.

testthat::local_edition(3)

# three classes, numeric inputs on different scales and a factor input
parsnip_data <- function(n, seed) {
  set.seed(seed)
  cls <- factor(sample(c("a", "b", "c"), n, replace = TRUE))
  d <- data.frame(u = rnorm(n, as.integer(cls)), v = rnorm(n, sd = 10) + 5 * (cls == "b"),
                  f = factor(sample(c("p", "q", "r"), n, replace = TRUE)))
  d$cls <- cls
  d
}
train <- parsnip_data(90, 1)
test <- parsnip_data(30, 2)
inputs <- c("u", "v", "f")

# predictions of a parsnip fit as plain R objects, to compare with kernclass
parsnip_pred <- function(fit, new, prob = TRUE) {
  out <- list(class = predict(fit, new, type = "class")$.pred_class,
              raw = predict(fit, new, type = "raw"))
  if (prob) out$prob <- unname(as.matrix(predict(fit, new, type = "prob")))
  out
}
kernclass_pred <- function(model, new, prob = TRUE, cols = inputs) {
  out <- list(class = unname(predict(model, new[cols])),
              raw = predict(model, new[cols], type = "decision"))
  if (prob) out$prob <- unname(predict(model, new[cols], type = "prob"))
  out
}

test_that("the engines are registered with parsnip, once", {
  skip_if_not_installed("parsnip", "1.2.0")
  for (model in c("svm_rbf", "svm_poly", "svm_linear")) {
    engines <- parsnip::show_engines(model)
    expect_true(any(engines$engine == "kernclass" & engines$mode == "classification"),
                info = model)
  }
  expect_true("kernel_classifier" %in% parsnip::get_model_env()$models)
  before <- parsnip::get_model_env()$svm_rbf_fit
  kernclass:::kc_register_parsnip()  # a second time (the load hook after .onLoad)
  expect_identical(parsnip::get_model_env()$svm_rbf_fit, before)
})

test_that("kernlab's sigma and scale are kernclass's gamma (the kernel formulas agree)", {
  skip_if_not_installed("kernlab")
  x <- as.matrix(train[c("u", "v")])
  expect_equal(unclass(kernlab::kernelMatrix(kernlab::rbfdot(sigma = 0.3), x)),
               ref_kernel(x, x, "rbf", gamma = 0.3), ignore_attr = TRUE)
  expect_equal(kernel_matrix(x, gamma = 0.3), ref_kernel(x, x, "rbf", gamma = 0.3),
               ignore_attr = TRUE)
  kp <- kernlab::polydot(degree = 2, scale = 0.05, offset = 1)
  expect_equal(unclass(kernlab::kernelMatrix(kp, x)),
               ref_kernel(x, x, "polynomial", gamma = 0.05, degree = 2, coef0 = 1),
               ignore_attr = TRUE)
})

test_that("svm_rbf() with the kernclass engine is kernel_svm() with gamma = rbf_sigma", {
  skip_if_not_installed("parsnip", "1.2.0")
  spec <- parsnip::svm_rbf(cost = 4, rbf_sigma = 0.3) |>
    parsnip::set_mode("classification") |>
    parsnip::set_engine("kernclass")
  set.seed(11)
  pf <- parsnip::fit(spec, cls ~ ., data = train)
  set.seed(11)
  ref <- kernel_svm(train[inputs], train$cls, gamma = 0.3, cost = 4, probability = TRUE)
  expect_s3_class(parsnip::extract_fit_engine(pf), "kernel_svm")
  expect_identical(parsnip::extract_fit_engine(pf)$kernel$gamma, 0.3)
  expect_equal(parsnip_pred(pf, test), kernclass_pred(ref, test))
  # the formula method of kernel_svm() is the same model
  set.seed(11)
  ref_f <- kernel_svm(cls ~ ., data = train, gamma = 0.3, cost = 4, probability = TRUE)
  expect_equal(parsnip_pred(pf, test), kernclass_pred(ref_f, test))
  # same scaling settings: engine argument scale = FALSE
  set.seed(12)
  pf0 <- parsnip::fit(parsnip::set_engine(spec, "kernclass", scale = FALSE, probability = FALSE),
                      cls ~ u + v, data = train)
  ref0 <- kernel_svm(train[c("u", "v")], train$cls, gamma = 0.3, cost = 4, scale = FALSE)
  expect_null(parsnip::extract_fit_engine(pf0)$scaling)
  expect_equal(parsnip_pred(pf0, test, prob = FALSE),
               kernclass_pred(ref0, test, prob = FALSE, cols = c("u", "v")))
  expect_error(predict(pf0, test, type = "prob"), class = "kernclass_prob_unavailable_error")
})

test_that("svm_poly() and svm_linear() map degree, scale_factor and cost", {
  skip_if_not_installed("parsnip", "1.2.0")
  spec <- parsnip::svm_poly(cost = 2, degree = 2, scale_factor = 0.5) |>
    parsnip::set_mode("classification") |>
    parsnip::set_engine("kernclass")
  set.seed(21)
  pf <- parsnip::fit(spec, cls ~ ., data = train)
  set.seed(21)
  ref <- kernel_svm(train[inputs], train$cls, kernel = "polynomial", degree = 2, gamma = 0.5,
                    cost = 2, probability = TRUE)
  expect_identical(parsnip::extract_fit_engine(pf)$kernel[c("name", "gamma", "degree")],
                   list(name = "polynomial", gamma = 0.5, degree = 2L))
  expect_equal(parsnip_pred(pf, test), kernclass_pred(ref, test))

  spec <- parsnip::svm_linear(cost = 0.5) |>
    parsnip::set_mode("classification") |>
    parsnip::set_engine("kernclass")
  set.seed(22)
  pf <- parsnip::fit(spec, cls ~ ., data = train)
  set.seed(22)
  ref <- kernel_svm(train[inputs], train$cls, kernel = "linear", cost = 0.5, probability = TRUE)
  expect_identical(parsnip::extract_fit_engine(pf)$kernel$name, "linear")
  expect_equal(parsnip_pred(pf, test), kernclass_pred(ref, test))
})

test_that("the model fixes the kernel: set_engine(kernel = ) is removed with a warning", {
  skip_if_not_installed("parsnip", "1.2.0")
  spec <- parsnip::svm_rbf(rbf_sigma = 0.3) |>
    parsnip::set_mode("classification") |>
    parsnip::set_engine("kernclass", kernel = "laplace", probability = FALSE)
  expect_warning(pf <- parsnip::fit(spec, cls ~ ., data = train), "kernel",
                 class = "kernclass_parsnip_kernel_warning")
  expect_identical(parsnip::extract_fit_engine(pf)$kernel$name, "rbf")
})

test_that("translate() shows the fit's call with each argument once", {
  skip_if_not_installed("parsnip", "1.2.0")
  specs <- list(svm_rbf = parsnip::svm_rbf(cost = 2, rbf_sigma = 0.3),
                svm_poly = parsnip::svm_poly(degree = 2),
                svm_linear = parsnip::svm_linear())
  for (model in names(specs)) {
    spec <- specs[[model]] |>
      parsnip::set_mode("classification") |>
      parsnip::set_engine("kernclass")
    args <- parsnip::translate(spec)$method$fit$args
    expect_false(anyDuplicated(names(args)) > 0, info = model)
    expect_identical(names(args)[1:3], c("x", "y", "weights"), info = model)
    expect_identical(args$model, model, info = model)
    expect_true(isTRUE(args$probability), info = model)
    # the template's fit is kernel_svm() with the model's kernel
    fun <- parsnip::translate(spec)$method$fit$func
    expect_identical(unname(fun), c("kernclass", "kernel_svm_fit"), info = model)
  }
  text <- capture.output(print(parsnip::translate(specs$svm_rbf |>
    parsnip::set_mode("classification") |> parsnip::set_engine("kernclass"))))
  expect_identical(sum(lengths(regmatches(text, gregexpr("kernel = ", text)))), 0L)
  expect_true(any(grepl("model = \"svm_rbf\"", text)))
})

test_that("a workflow fits and predicts as kernel_svm()", {
  skip_if_not_installed("parsnip", "1.2.0")
  skip_if_not_installed("workflows")
  wf <- workflows::workflow() |>
    workflows::add_formula(cls ~ u + v) |>
    workflows::add_model(parsnip::svm_rbf(cost = 1, rbf_sigma = 1) |>
                           parsnip::set_mode("classification") |>
                           parsnip::set_engine("kernclass"))
  set.seed(31)
  wf_fit <- parsnip::fit(wf, data = train)
  set.seed(31)
  ref <- kernel_svm(train[c("u", "v")], train$cls, gamma = 1, cost = 1, probability = TRUE)
  expect_equal(unname(as.matrix(predict(wf_fit, test, type = "prob"))),
               unname(predict(ref, test[c("u", "v")], type = "prob")))
  expect_identical(predict(wf_fit, test)$.pred_class, unname(predict(ref, test[c("u", "v")])))
})

test_that("case weights reach kernel_svm(weights = ); frequency weights act as copies", {
  skip_if_not_installed("parsnip", "1.2.0")
  skip_if_not_installed("hardhat")
  set.seed(41)
  w <- sample(1:3, nrow(train), replace = TRUE)
  spec <- parsnip::svm_rbf(cost = 2, rbf_sigma = 0.5) |>
    parsnip::set_mode("classification") |>
    parsnip::set_engine("kernclass", probability = FALSE)
  pf <- parsnip::fit(spec, cls ~ u + v, data = train,
                     case_weights = hardhat::importance_weights(as.numeric(w)))
  ref <- kernel_svm(train[c("u", "v")], train$cls, gamma = 0.5, cost = 2, weights = w)
  expect_equal(parsnip_pred(pf, test, prob = FALSE),
               kernclass_pred(ref, test, prob = FALSE, cols = c("u", "v")))
  unweighted <- kernel_svm(train[c("u", "v")], train$cls, gamma = 0.5, cost = 2)
  expect_false(isTRUE(all.equal(predict(pf, test, type = "raw"),
                                predict(unweighted, test[c("u", "v")], type = "decision"))))
  # frequency weights: the same SVM as the data with each row repeated w
  # times (the dual of the copies has the same solution), up to the solver's
  # tolerance; the scaling is of the copies, as kernel_svm's is of the rows,
  # so compare unscaled fits
  spec0 <- parsnip::set_engine(spec, "kernclass", probability = FALSE, scale = FALSE,
                               tolerance = 1e-6)
  pf_freq <- parsnip::fit(spec0, cls ~ u + v, data = train,
                          case_weights = hardhat::frequency_weights(w))
  copies <- train[rep(seq_len(nrow(train)), w), ]
  ref_copies <- kernel_svm(copies[c("u", "v")], copies$cls, gamma = 0.5, cost = 2,
                           scale = FALSE, tolerance = 1e-6)
  expect_equal(unname(predict(pf_freq, test, type = "raw")),
               unname(predict(ref_copies, test[c("u", "v")], type = "decision")),
               tolerance = 1e-4)
})

test_that("kernel_classifier() fits kernel_means, kernel_parzen and kernel_bayes", {
  skip_if_not_installed("parsnip", "1.2.0")
  spec <- kernel_classifier(method = "parzen", gamma = 0.4)
  expect_s3_class(spec, "kernel_classifier")
  expect_output(print(spec), "Kernel Classifier Model Specification \\(classification\\)")
  refs <- list(
    means = function(...) kernel_means(train[inputs], train$cls, ...),
    parzen = function(...) kernel_parzen(train[inputs], train$cls, ...),
    bayes = function(...) kernel_bayes(train[inputs], train$cls, ...))
  for (m in names(refs)) {
    pf <- parsnip::fit(kernel_classifier(method = m, gamma = 0.4), cls ~ ., data = train)
    expect_s3_class(parsnip::extract_fit_engine(pf), paste0("kernel_", m))
    expect_equal(parsnip_pred(pf, test), kernclass_pred(refs[[m]](gamma = 0.4), test), info = m)
  }
  # engine arguments reach the fitter
  pf <- parsnip::fit(kernel_classifier(method = "bayes", gamma = 0.4) |>
                       parsnip::set_engine("kernclass", kernel = "laplace", type = 3),
                     cls ~ ., data = train)
  expect_equal(parsnip_pred(pf, test),
               kernclass_pred(refs$bayes(gamma = 0.4, kernel = "laplace", type = 3), test))
  # the default method is means; an argument the method lacks is kernclass's error
  pf <- parsnip::fit(kernel_classifier(), cls ~ ., data = train)
  expect_s3_class(parsnip::extract_fit_engine(pf), "kernel_means")
  expect_error(parsnip::fit(kernel_classifier(method = "means") |>
                              parsnip::set_engine("kernclass", type = 3), cls ~ ., data = train),
               class = "kernclass_input_error")
  expect_error(kernel_classifier(mode = "regression"), class = "kernclass_input_error")
  expect_error(kernel_classifier_fit(train[inputs], train$cls, method = "knn"),
               class = "kernclass_input_error")
  # no case weights for these classifiers
  skip_if_not_installed("hardhat")
  expect_error(parsnip::fit(kernel_classifier(), cls ~ ., data = train,
                            case_weights = hardhat::importance_weights(rep(1, nrow(train)))))
})

test_that("update() of kernel_classifier() changes and keeps arguments", {
  skip_if_not_installed("parsnip", "1.2.0")
  spec <- kernel_classifier(method = "parzen", gamma = 0.4)
  up <- update(spec, gamma = 2)
  expect_identical(rlang::eval_tidy(up$args$gamma), 2)
  expect_identical(rlang::eval_tidy(up$args$method), "parzen")
  up <- update(spec, parameters = data.frame(method = "bayes", gamma = 0.1))
  expect_identical(rlang::eval_tidy(up$args$method), "bayes")
  expect_identical(rlang::eval_tidy(up$args$gamma), 0.1)
  fresh <- update(spec, gamma = 1, fresh = TRUE)
  expect_null(rlang::eval_tidy(fresh$args$method))
})

test_that("the dials parameters of kernel_classifier()", {
  skip_if_not_installed("dials")
  g <- kernclass_gamma()
  expect_s3_class(g, "quant_param")
  expect_equal(dials::value_seq(g, 5), 10^seq(-3, 1, length.out = 5))
  expect_identical(dials::value_seq(kernclass_method(), 3), c("means", "parzen", "bayes"))
  skip_if_not_installed("parsnip", "1.2.0")
  local_tz()
  skip_if_not_installed("tune")
  spec <- kernel_classifier(method = tune::tune(), gamma = tune::tune())
  ps <- hardhat::extract_parameter_set_dials(spec)
  expect_setequal(ps$id, c("method", "gamma"))
  expect_identical(ps$object[[which(ps$id == "gamma")]]$range, g$range)
})

test_that("tune_grid() runs over the engines, with the accuracy of direct fits", {
  local_tz()
  skip_if_not_installed("parsnip", "1.2.0")
  skip_if_not_installed("tune")
  skip_if_not_installed("rsample")
  skip_if_not_installed("yardstick")
  skip_if_not_installed("workflows")
  d <- parsnip_data(100, 51)
  set.seed(52)
  folds <- rsample::vfold_cv(d, v = 3)
  metrics <- yardstick::metric_set(yardstick::accuracy, yardstick::roc_auc)

  grid <- expand.grid(method = c("means", "parzen", "bayes"), gamma = c(0.1, 1),
                      stringsAsFactors = FALSE)
  wf <- workflows::workflow(cls ~ ., kernel_classifier(method = tune::tune(),
                                                       gamma = tune::tune()))
  res <- tune::tune_grid(wf, resamples = folds, grid = grid, metrics = metrics)
  per_fold <- tune::collect_metrics(res, summarize = FALSE)
  expect_identical(nrow(per_fold), nrow(grid) * 3L * 2L)
  expect_false(anyNA(per_fold$.estimate))
  # each accuracy is that of the fitter on the fold's analysis set
  fitters <- list(means = kernel_means, parzen = kernel_parzen, bayes = kernel_bayes)
  for (i in seq_len(nrow(grid))) for (f in 1:3) {
    split <- folds$splits[[f]]
    fit <- fitters[[grid$method[i]]](cls ~ ., data = rsample::analysis(split),
                                     gamma = grid$gamma[i])
    held <- rsample::assessment(split)
    acc <- per_fold$.estimate[per_fold$method == grid$method[i] &
                                per_fold$gamma == grid$gamma[i] &
                                per_fold$id == folds$id[f] & per_fold$.metric == "accuracy"]
    expect_equal(acc, mean(predict(fit, held) == held$cls), info = paste(i, f))
  }
  best <- tune::select_best(res, metric = "accuracy")
  final <- parsnip::fit(tune::finalize_workflow(wf, best), data = d)
  expect_s3_class(workflows::extract_fit_engine(final), paste0("kernel_", best$method))

  # without the probability model, whose Platt folds draw random numbers,
  # the engine's classes are those of a direct fit (the vote)
  svm <- workflows::workflow(cls ~ ., parsnip::svm_rbf(cost = tune::tune(),
                                                      rbf_sigma = tune::tune()) |>
                               parsnip::set_mode("classification") |>
                               parsnip::set_engine("kernclass", probability = FALSE))
  res <- tune::tune_grid(svm, resamples = folds, metrics = yardstick::metric_set(yardstick::accuracy),
                         grid = expand.grid(cost = c(1, 10), rbf_sigma = c(0.1, 1)))
  per_fold <- tune::collect_metrics(res, summarize = FALSE)
  expect_identical(nrow(per_fold), 4L * 3L)
  expect_false(anyNA(per_fold$.estimate))
  split <- folds$splits[[2]]
  fit <- kernel_svm(cls ~ ., data = rsample::analysis(split), cost = 10, gamma = 1)
  held <- rsample::assessment(split)
  acc <- per_fold$.estimate[per_fold$cost == 10 & per_fold$rbf_sigma == 1 &
                              per_fold$id == folds$id[2] & per_fold$.metric == "accuracy"]
  expect_equal(acc, mean(predict(fit, held) == held$cls))
})

# ---- prob predictions of rows with NA -----------------------------------------

test_that("parsnip's prob predictions of rows with NA", {
  skip_if_not_installed("parsnip")
  set.seed(1)
  spec <- parsnip::set_engine(parsnip::set_mode(parsnip::svm_rbf(), "classification"),
                              "kernclass")
  fit <- parsnip::fit(spec, Species ~ ., data = iris)
  nd <- iris[c(1, 51), ]
  nd$Sepal.Length <- NA_real_
  p <- predict(fit, nd, type = "prob")
  expect_equal(dim(p), c(2L, 3L))
  expect_true(all(is.na(as.matrix(p))))
})
