# butcher's axes and bundle() (R/door-butcher.R): every kind of model keeps
# its predictions, every type, bit for bit, after each axe and after
# bundle(), saveRDS() and unbundle() in a fresh R process; butcher() makes
# it smaller; readers of the removed rows stop with a classed error.

# The models, each fitted inside a function holding a large object (the
# environment a formula keeps); fitted once for the file.
deploy_models <- local({
  models <- NULL
  function() {
    if (is.null(models)) models <<- deploy_fit_models()
    models
  }
})

# 90 training rows and 30 calibration rows of iris.
deploy_data <- function() {
  set.seed(1)
  i <- sample(150)
  list(train = iris[i[1:90], ], cal = iris[i[91:120], ])
}

deploy_fit_models <- function() {
  train <- deploy_data()$train
  cal <- deploy_data()$cal
  fit <- function(expr) {
    big <- rnorm(2e4)  # kept by the formula's environment
    force(big)
    eval(substitute(expr))
  }
  x <- as.matrix(train[, 1:4])
  svm <- fit(kernel_svm(Species ~ ., data = train, probability = TRUE))
  models <- list(
    svm = svm,
    svm_vote = fit(kernel_svm(x, train$Species, kernel = "polynomial", degree = 2)),
    svm_nu = fit(kernel_svm(Species ~ ., data = train, type = "nu-classification", nu = 0.3)),
    one_class = fit(kernel_svm(~ ., data = train[, 1:4], type = "one-classification")),
    # sparse rows where Matrix (a recommended package) is installed
    svm_sparse = if (requireNamespace("Matrix", quietly = TRUE)) {
      fit(kernel_svm(Matrix::Matrix(x, sparse = TRUE), train$Species, scale = FALSE))
    },
    means = fit(kernel_means(Species ~ ., data = train)),
    parzen = fit(kernel_parzen(Species ~ ., data = train)),
    bayes = fit(kernel_bayes(Species ~ ., data = train, type = 2)),
    svm_nystrom = fit(kernel_svm(Species ~ ., data = train, approx = nystrom(m = 30),
                                 probability = TRUE)),
    means_fourier = fit(kernel_means(Species ~ ., data = train,
                                     approx = random_fourier(m = 50))),
    bayes_nystrom = fit(kernel_bayes(Species ~ ., data = train, type = 1,
                                     approx = nystrom(m = 30))),
    svm_cells = fit(kernel_svm(x, train$Species, approx = cells(size = 30),
                               probability = TRUE)),
    tune = fit(kernel_tune(kernel_svm, Species ~ ., data = train, folds = 3,
                           grid = list(cost = c(1, 10), gamma = c(0.1, 1)))),
    conformal = conformal(svm, cal, cal$Species),
    venn_abers = venn_abers(svm, cal, cal$Species),
    recalibrated = recalibrate(svm, cal, cal$Species)
  )
  Filter(Negate(is.null), models)
}

# Every prediction a model gives of `new`: each type it has.
deploy_predictions <- function(m, new) {
  if (inherits(m, "kernel_tune")) m <- m$model
  types <- c("class", "decision", "prob",
             if (!is.null(m$conformal)) "set",
             if (identical(m$recalibration$method, "venn_abers")) "interval")
  out <- lapply(types, function(type) {
    tryCatch(stats::predict(m, new, type = type),
             kernclass_prob_unavailable_error = function(e) "no probabilities")
  })
  stats::setNames(out, types)
}

deploy_new <- function() iris[c(1:20, 51:70, 101:120), ]

test_that("each axe and butcher() keep every prediction of every kind of model", {
  skip_if_not_installed("butcher")
  models <- deploy_models()
  new <- deploy_new()
  axes <- list(axe_call = butcher::axe_call, axe_env = butcher::axe_env,
               axe_data = butcher::axe_data, axe_fitted = butcher::axe_fitted,
               axe_ctrl = butcher::axe_ctrl, butcher = butcher::butcher)
  for (nm in names(models)) {
    m <- models[[nm]]
    want <- deploy_predictions(m, new)
    for (axe in names(axes)) {
      expect_identical(deploy_predictions(axes[[axe]](m), new), want, info = paste(nm, axe))
    }
    small <- butcher::butcher(m)
    expect_lt(as.numeric(lobstr::obj_size(small)), as.numeric(lobstr::obj_size(m)), label = nm)
    expect_output(print(small), label = nm)
  }
})

test_that("axe_data() removes the inputs where predict() does not read them, and keeps them where it does", {
  skip_if_not_installed("butcher")
  models <- deploy_models()
  n <- 90
  removed <- c("svm", "svm_vote", "svm_nu", "one_class", "svm_nystrom", "means_fourier",
               "bayes_nystrom", "svm_cells")
  kept <- intersect(c("svm_sparse", "means", "parzen", "bayes"), names(models))
  for (nm in c(removed, kept)) {
    m <- butcher::axe_data(models[[nm]])
    expect_identical(nrow(m$x), if (nm %in% removed) 0L else nrow(models[[nm]]$x), info = nm)
    expect_identical(nobs(m), nobs(models[[nm]]), info = nm)
    expect_null(m$C)
    expect_null(names(m$y))
    expect_s3_class(m, paste0("butchered_", class(models[[nm]])[1L]))
    expect_true("summary()" %in% attr(m, "butcher_disabled"))
  }
  expect_identical(nobs(butcher::axe_data(models$svm)), as.integer(n))
  # the exact class-score models predict from every row and its weight
  expect_identical(unname(butcher::axe_data(models$means)$x), unname(models$means$x))
  expect_identical(butcher::axe_data(models$means)$weight, models$means$weight)
  expect_null(butcher::axe_data(models$means_fourier)$weight)
  # coef() and tidy() read the classes and the cells, not the inputs
  for (nm in setdiff(names(models), "tune")) {
    m <- butcher::axe_data(models[[nm]])
    expect_identical(coef(m), coef(models[[nm]]), info = nm)
    if (requireNamespace("generics", quietly = TRUE)) {
      expect_identical(generics::tidy(m, component = "coefficients"),
                       generics::tidy(models[[nm]], component = "coefficients"), info = nm)
    }
  }
  expect_message(butcher::axe_data(models$svm, verbose = TRUE), "memory released")
  # the tuning result: the refitted model's rows and the folds go
  tuned <- butcher::axe_data(models$tune)
  expect_identical(nrow(tuned$model$x), 0L)
  expect_null(tuned[["fold"]])
  expect_null(butcher::axe_fitted(models$tune)$best_predictions)
})

test_that("readers of the removed rows stop with a classed error; print, nobs and coef still work", {
  skip_if_not_installed("butcher")
  models <- deploy_models()
  m <- butcher::butcher(models$svm)
  d <- deploy_data()
  expect_error(predict(m), class = "kernclass_butchered_error")
  expect_error(fitted(m), class = "kernclass_butchered_error")
  expect_error(summary(m), class = "kernclass_butchered_error")
  # calibrations from the training rows need them; from held-out rows they
  # are predict() of new data
  cv <- kernel_cv(kernel_svm, Species ~ ., data = d$train, folds = 3, metric = "logloss",
                  probability = TRUE)
  expect_error(conformal(m, cv = cv), class = "kernclass_butchered_error")
  expect_error(recalibrate(m, cv = cv), class = "kernclass_butchered_error")
  expect_error(venn_abers(m, cv = cv), class = "kernclass_butchered_error")
  new <- deploy_new()
  expect_identical(predict(conformal(m, d$cal, d$cal$Species), new, type = "set"),
                   predict(models$conformal, new, type = "set"))
  expect_error(predict(butcher::butcher(models$svm_nystrom)), class = "kernclass_butchered_error")
  expect_identical(coef(m), coef(models$svm))
  expect_output(print(m), "Training data: 90 points")
  expect_output(print(butcher::butcher(models$one_class)), "Support vectors")
  # zero rows of new data are zero predictions, not the error
  expect_length(predict(m, iris[0, ]), 0L)
})

test_that("axe_env() leaves no environment of the fitting function; axe_call() no inlined data", {
  skip_if_not_installed("butcher")
  # environments anywhere in an object: its elements and attributes
  envs <- function(x) {
    if (is.environment(x)) return(list(x))
    out <- if (is.function(x)) list(environment(x))
    a <- attributes(x)
    a[c("names", "class", "dim", "dimnames", "row.names", "levels")] <- NULL
    for (p in a) out <- c(out, envs(p))
    if (is.list(x)) for (k in seq_along(x)) out <- c(out, envs(x[[k]]))
    if (is.call(x)) {
      l <- as.list(x)[-1L]
      for (k in seq_along(l)) if (!identical(l[[k]], quote(expr = ))) out <- c(out, envs(l[[k]]))
    }
    out
  }
  models <- deploy_models()
  for (nm in names(models)) {
    m <- models[[nm]]
    if (!is.null(if (inherits(m, "kernel_tune")) m$model$terms else m$terms)) {
      # a formula fit: its terms keep the fitting function's environment
      before <- envs(m)
      expect_true(any(vapply(before, function(e) exists("big", e, inherits = FALSE), TRUE)),
                  info = nm)
    }
    after <- envs(butcher::axe_env(models[[nm]]))
    expect_true(all(vapply(after, identical, TRUE, baseenv())), info = nm)
  }
  # a formula object in the call (do.call()) loses its environment too
  f <- local({ big <- rnorm(10); Species ~ . })
  m <- do.call(kernel_means, list(f, data = iris))
  expect_identical(environment(butcher::axe_env(m)$call[[2L]]), baseenv())
  # data inlined by do.call() leaves the call; names and short constants stay
  m <- do.call(kernel_svm, list(x = as.matrix(iris[, 1:4]), y = iris$Species, cost = 2,
                                kernel = "rbf"))
  cl <- butcher::axe_call(m)$call
  expect_setequal(names(as.list(cl))[-1L], c("cost", "kernel"))
  expect_lt(as.numeric(lobstr::obj_size(cl)), 2000)
  cl <- butcher::axe_call(models$svm)$call
  expect_identical(cl, models$svm$call)  # only code: nothing to drop
})

test_that("a butchered SVM writes the same ONNX file", {
  skip_if_not_installed("butcher")
  models <- deploy_models()
  a <- tempfile(fileext = ".onnx")
  b <- tempfile(fileext = ".onnx")
  on.exit(unlink(c(a, b)))
  write_onnx(models$svm, a)
  write_onnx(butcher::butcher(models$svm), b)
  expect_identical(readBin(b, "raw", file.size(b)), readBin(a, "raw", file.size(a)))
})

test_that("bundle(), saveRDS(), readRDS() and unbundle() in a fresh R process keep every prediction", {
  skip_if_not_installed("bundle")
  skip_if_not_installed("butcher")
  skip_if_not_installed("callr")
  models <- deploy_models()
  new <- deploy_new()
  bundles <- lapply(models, bundle::bundle)
  butchered <- lapply(models, function(m) bundle::bundle(butcher::butcher(m)))
  expect_s3_class(bundles$svm, "bundle")
  paths <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
  on.exit(unlink(paths))
  predictions <- deploy_predictions
  environment(predictions) <- globalenv()
  saveRDS(list(bundles = butchered, new = new, predictions = predictions), paths[1L])
  # (the models fitted here keep the test's environments, whose parents lead
  # to kernclass's namespace: readRDS() of them loads it)
  saveRDS(bundles, paths[2L])
  # the child does not attach kernclass: unbundle() of the butchered models
  # loads it
  got <- callr::r(function(paths) {
    saved <- readRDS(paths[1L])
    loaded <- "kernclass" %in% loadedNamespaces()
    butchered <- lapply(saved$bundles, bundle::unbundle)
    after <- "kernclass" %in% loadedNamespaces()
    models <- lapply(readRDS(paths[2L]), bundle::unbundle)
    list(loaded_before = loaded, loaded_after = after,
         predictions = lapply(models, saved$predictions, saved$new),
         butchered = lapply(butchered, saved$predictions, saved$new))
  }, args = list(paths = paths), libpath = .libPaths(),
  env = c(callr::rcmd_safe_env(), KERNCLASS_ISA = kernclass:::kc_engine()))
  expect_false(got$loaded_before)
  expect_true(got$loaded_after)
  for (nm in names(models)) {
    want <- deploy_predictions(models[[nm]], new)
    expect_identical(got$predictions[[nm]], want, info = nm)
    expect_identical(got$butchered[[nm]], want, info = nm)
  }
})

test_that("bundle() takes no other arguments", {
  skip_if_not_installed("bundle")
  fit <- kernel_means(Species ~ ., data = iris)
  expect_error(bundle::bundle(fit, 1), class = "kernclass_error")
})

test_that("a parsnip fit of the kernclass engine butchers and bundles through its fit", {
  skip_if_not_installed("butcher")
  skip_if_not_installed("bundle")
  skip_if_not_installed("parsnip")
  spec <- parsnip::set_engine(parsnip::svm_rbf(mode = "classification"), "kernclass")
  pf <- parsnip::fit(spec, Species ~ ., data = iris)
  want <- predict(pf, iris, type = "prob")
  expect_identical(predict(butcher::butcher(pf), iris, type = "prob"), want)
  b <- bundle::bundle(butcher::butcher(pf))
  back <- bundle::unbundle(unserialize(serialize(b, NULL)))
  expect_identical(predict(back, iris, type = "prob"), want)
  expect_lt(as.numeric(lobstr::obj_size(butcher::butcher(pf))), as.numeric(lobstr::obj_size(pf)))
})
