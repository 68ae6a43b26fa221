# broom's tidy(), glance() and augment(): the documented columns, and values
# that reproduce the model: tidy()'s coefficients and offsets rebuild the
# decision values from kernel_matrix(), augment()'s columns are predict()'s.

testthat::local_edition(3)

set.seed(606)
two <- droplevels(subset(iris, Species != "setosa"))
fits <- list(
  means3 = kernel_means(Species ~ ., data = iris, gamma = 0.5),
  parzen3 = kernel_parzen(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2),
  means2 = kernel_means(as.matrix(two[, 1:4]), two$Species, kernel = "polynomial", degree = 2),
  svm3 = kernel_svm(Species ~ ., data = iris, cost = 5, probability = TRUE),
  svm2 = kernel_svm(two[, 1:4], two$Species, kernel = "linear"),
  bayes3 = kernel_bayes(Species ~ ., data = iris, type = 1, gamma = 0.3),
  bayes2 = kernel_bayes(two[, 3:4], two$Species, type = 1, kernel = "laplace"))

# sum_i alpha_i k(x, x_i) + b per decision function, from tidy() and the Gram
# matrix of the scaled training inputs
rebuild <- function(fit) {
  co <- generics::tidy(fit, component = "coefficients")
  fn <- generics::tidy(fit)
  k <- fit$kernel
  gram <- kernel_matrix(fit$x, kernel = k$name, gamma = k$gamma, degree = k$degree,
                        coef0 = k$coef0)
  vapply(fn$term, function(t) {
    rows <- co$term == t
    drop(gram[, co$row[rows], drop = FALSE] %*% co$estimate[rows]) + fn$offset[fn$term == t]
  }, numeric(nrow(fit$x)))
}

test_that("tidy() has a row per decision function that rebuilds the decision values", {
  skip_if_not_installed("generics")
  extra <- list(kernel_means = c("count", "center_norm"), kernel_parzen = c("count", "prior"),
                kernel_svm = c("at_bound", "objective", "iterations", "kkt_violation"),
                kernel_bayes = c("sign", "consistency", "prob_a", "prob_b"))
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    td <- generics::tidy(fit)
    expect_s3_class(td, "data.frame")
    expect_identical(names(td)[1:3], c("term", "offset", "n_coef"), info = nm)
    expect_true(all(extra[[class(fit)[1]]] %in% names(td)), info = nm)
    dec <- predict(fit, type = "decision")
    rebuilt <- rebuild(fit)
    if (inherits(fit, "kernclass_scores") && length(fit$levels) == 2L) {
      # two class scores; the decision value is their difference
      expect_identical(td$term, fit$levels, info = nm)
      expect_equal(rebuilt[, 1] - rebuilt[, 2], unname(dec), info = nm)
    } else {
      expect_identical(td$term, colnames(as.matrix(rebuilt)), info = nm)
      expect_equal(unname(as.matrix(rebuilt)),
                   unname(if (is.null(dim(dec))) as.matrix(dec) else dec), info = nm)
    }
    co <- generics::tidy(fit, component = "coefficients")
    expect_identical(names(co), c("term", "row", "class", "estimate"), info = nm)
    expect_true(all(co$estimate != 0), info = nm)
    expect_identical(co$class, unname(fit$y[co$row]), info = nm)
    expect_identical(as.integer(table(factor(co$term, td$term))), td$n_coef, info = nm)
  }
  # the SVM's rows and fields
  td <- generics::tidy(fits$svm3)
  expect_identical(td$term, c("setosa/versicolor", "setosa/virginica", "versicolor/virginica"))
  expect_equal(td$prob_a, unname(fits$svm3$probA))
  expect_identical(td$n_coef, as.integer(colSums(fits$svm3$eta > 0)))
  expect_false("prob_a" %in% names(generics::tidy(fits$svm2)))
  expect_error(generics::tidy(fits$svm2, component = "nothing"), class = "kernclass_input_error")
})

test_that("glance() has one row with the documented columns", {
  skip_if_not_installed("generics")
  common <- c("method", "kernel", "gamma", "degree", "coef0", "nobs", "n_inputs", "n_classes",
              "scaled", "accuracy")
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    gl <- generics::glance(fit)
    expect_identical(nrow(gl), 1L, info = nm)
    expect_identical(names(gl)[seq_along(common)], common, info = nm)
    expect_identical(gl$method, class(fit)[1], info = nm)
    expect_identical(gl$nobs, nobs(fit), info = nm)
    expect_equal(gl$accuracy, mean(predict(fit, type = "class") == fit$y), info = nm)
  }
  gl <- generics::glance(fits$svm3)
  expect_identical(gl$gamma, fits$svm3$kernel$gamma)
  expect_true(is.na(gl$degree) && is.na(gl$coef0))
  expect_identical(gl$n_support, length(fits$svm3$index))
  expect_true(gl$probability)
  expect_true(all(is.na(generics::glance(fits$svm2)[c("gamma", "degree", "coef0")])))
  expect_identical(generics::glance(fits$means2)$degree, 2)
  expect_identical(generics::glance(fits$bayes3)$type, 1L)
})

test_that("augment() adds predict()'s classes, probabilities and decision values", {
  skip_if_not_installed("generics")
  au <- generics::augment(fits$svm3)
  expect_identical(nrow(au), 150L)
  expect_identical(au$.fitted, unname(predict(fits$svm3)))
  expect_equal(as.matrix(au[paste0(".pred_", levels(iris$Species))]),
               predict(fits$svm3, type = "prob"), ignore_attr = TRUE)
  expect_equal(as.matrix(au[paste0(".decision_", names(fits$svm3$b))]),
               predict(fits$svm3, type = "decision"), ignore_attr = TRUE)
  expect_identical(au$Species, iris$Species)
  # no probabilities where the model has none; two classes: .decision
  au <- generics::augment(fits$svm2, data = two)
  expect_false(any(startsWith(names(au), ".pred_")))
  expect_equal(au$.decision, unname(predict(fits$svm2, two[, 1:4], type = "decision")))
  # newdata, with a row that cannot be predicted
  new <- iris[c(1, 51, 101), ]
  new$Petal.Width[2] <- NA
  au <- generics::augment(fits$parzen3, newdata = new)
  expect_identical(au$.fitted, unname(predict(fits$parzen3, new)))
  expect_true(is.na(au$.fitted[2]) && is.na(au$.pred_versicolor[2]))
  # a formula fit with a subset: the model frame's rows
  sub <- kernel_means(Species ~ ., data = iris, subset = Sepal.Length > 5)
  au <- generics::augment(sub)
  expect_identical(nrow(au), sum(iris$Sepal.Length > 5))
  expect_identical(au$.fitted, unname(predict(sub)))
  # a fit to x and y needs the data
  expect_error(generics::augment(fits$means2), class = "kernclass_input_error")
  skip_if_not_installed("tibble")
  expect_s3_class(generics::augment(fits$svm3), "tbl_df")
  expect_s3_class(generics::tidy(fits$svm3), "tbl_df")
  expect_s3_class(generics::glance(fits$svm3), "tbl_df")
})

test_that("tidy(), glance() and the check's refit take a fitter's columns from its registry row", {
  skip_if_not_installed("generics")
  ns <- asNamespace("kernclass")
  fit <- kernel_means(as.matrix(iris[, 1:4]), iris$Species)
  row <- ns$kc_fitter("kernel_means")
  expect_true(all(vapply(row[c("functions", "tidy", "glance", "refit")], is.function, TRUE)))
  real <- ns$kc_fitter
  swap <- function(f) {
    unlockBinding("kc_fitter", ns)
    assign("kc_fitter", f, envir = ns)
    lockBinding("kc_fitter", ns)
  }
  swap(function(name) {
    r <- real(name)
    r$tidy <- function(x, fs) list(extra = seq_along(fs$offset), dropped = NULL)
    r$glance <- function(x) list(extra_glance = "yes")
    r$refit <- function(fit) list(threshold = "analytic", dropped = NULL)
    r
  })
  on.exit(swap(real))
  expect_identical(names(generics::tidy(fit)), c("term", "offset", "n_coef", "extra"))
  expect_identical(generics::tidy(fit)$extra, 1:3)
  expect_identical(generics::glance(fit)$extra_glance, "yes")
  expect_identical(ns$kc_approx_refit_args(fit)$threshold, "analytic")
  expect_false("dropped" %in% names(ns$kc_approx_refit_args(fit)))
})

# ---- models on features and cells() models -----------------------------------

test_that("tidy() of models on features is the linear model z(x)'w + b on the features", {
  skip_if_not_installed("generics")
  d <- rare_class(n = 150)
  set.seed(3)
  two <- d$y != "r"
  models <- list(kernel_svm(d$x, d$y, approx = nystrom(m = 15), probability = TRUE),
                 kernel_svm(d$x[two, ], droplevels(d$y[two]), approx = random_fourier(m = 30)),
                 kernel_bayes(d$x, d$y, type = 1, approx = random_fourier(m = 30)),
                 kernel_bayes(d$x, d$y, type = 1, approx = nystrom(m = 15)),
                 kernel_means(d$x, d$y, approx = nystrom(m = 15)))
  inputs <- list(d$x, d$x[two, ], d$x, d$x, d$x)
  for (i in seq_along(models)) {
    fit <- models[[i]]
    fun <- generics::tidy(fit)
    cf <- generics::tidy(fit, component = "coefficients")
    expect_named(cf, c("term", "feature", "estimate"))
    # the weights rebuilt from the table give the decision values
    terms <- fun$term
    w <- matrix(0, fit$approx$rank, length(terms), dimnames = list(NULL, terms))
    w[cbind(cf$feature, match(cf$term, terms))] <- cf$estimate
    z <- kernclass:::kc_features(fit$approx, fit$x)  # fit$x: the scaled training rows
    scores <- z %*% w + rep(fun$offset, each = nrow(z))
    dec <- predict(fit, inputs[[i]], type = "decision")
    # the class scores' decision for two classes is their difference
    if (inherits(fit, "kernclass_scores") && ncol(scores) == 2L) scores <- scores[, 1] - scores[, 2]
    expect_equal(unname(as.matrix(scores)), unname(as.matrix(dec)))
    expect_identical(fun$n_coef, as.integer(colSums(w != 0)))
  }
  svm <- generics::tidy(models[[1L]])
  expect_identical(svm$iterations, unname(as.integer(models[[1L]]$iterations)))
  expect_true(all(is.na(svm$at_bound)))
  expect_equal(svm$prob_a, unname(models[[1L]]$probA))
  bayes <- generics::tidy(models[[3L]])
  expect_identical(bayes$sign,
                   as.integer(vapply(models[[3L]]$pairs, `[[`, numeric(1), "sign")))
})

test_that("glance() of a cells() model reports its cells' iterations", {
  skip_if_not_installed("generics")
  d <- rare_class(n = 200)
  set.seed(5)
  fit <- kernel_svm(d$x, d$y, approx = cells(size = 70))
  per_cell <- vapply(fit$approx$models, function(m) {
    if (is.null(m$iterations)) 0 else sum(m$iterations)
  }, numeric(1))
  expect_gt(sum(per_cell), 0)
  expect_identical(generics::glance(fit)$iterations, sum(per_cell))
  expect_identical(sum(generics::tidy(fit)$iterations), as.integer(sum(per_cell)))
})

test_that("glance() names the fitter from the registry for every representation", {
  skip_if_not_installed("generics")
  d <- rare_class(n = 120)
  fits <- list(kernel_svm(d$x, d$y), kernel_svm(d$x, d$y, approx = nystrom(m = 20)),
               kernel_svm(d$x, d$y, approx = cells(size = 60)),
               kernel_means(d$x, d$y, approx = random_fourier(m = 50)))
  expect_identical(vapply(fits, function(f) generics::glance(f)$method, ""),
                   c("kernel_svm", "kernel_svm", "kernel_svm", "kernel_means"))
})
