# Odd inputs of issue 14 that used to give a silent wrong answer or a bare
# error: duplicated or missing names, labels with "/", unused and unseen
# factor levels, rows that cannot be predicted, plot slices, options.

testthat::local_edition(3)

test_that("one-vs-one pair names stay distinct when labels contain '/'", {
  expect_equal(rownames(kernclass:::kc_ovo_pairs(c("a", "b", "c"))), c("a/b", "a/c", "b/c"))
  p <- kernclass:::kc_ovo_pairs(c("a/b", "c", "a", "b/c"))
  expect_false(anyDuplicated(rownames(p)) > 0)
  expect_equal(rownames(p)[1:2], c("a/b vs c", "a/b vs a"))
  # "vs" taken too: the next separator
  expect_equal(rownames(kernclass:::kc_ovo_pairs(c("a/b", "vs"))), "a/b | vs")
  # every token taken: the level numbers
  expect_equal(rownames(kernclass:::kc_ovo_pairs(c("/", "vs", "|", "<->")))[1], "1/2")
  set.seed(3)
  x <- matrix(rnorm(160), 80, 2)
  y <- factor(rep(c("a/b", "c", "a", "b/c"), 20), levels = c("a/b", "c", "a", "b/c"))
  x[, 1] <- x[, 1] + 3 * as.integer(y)
  d <- predict(kernel_svm(x, y), x[1:3, ], type = "decision")
  expect_equal(ncol(d), 6L)
  expect_false(anyDuplicated(colnames(d)) > 0)
})

test_that("plot() refuses a slice value its column cannot take, naming `slice`", {
  set.seed(4)
  d <- data.frame(u = rnorm(40), v = rnorm(40), g = factor(rep(c("p", "q"), 20)),
                  cl = factor(rep(c("A", "B"), each = 20)))
  fit <- kernel_means(cl ~ u + v + g, data = d)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (bad in list("zz", NA, c("p", "q"))) {
    err <- expect_error(plot(fit, d, slice = list(g = bad)), class = "kernclass_input_error")
    expect_identical(err$arg, "slice")
    expect_match(conditionMessage(err), "`g`")
  }
  fit2 <- kernel_means(cl ~ u + v + w, data = transform(d, w = rnorm(40)))
  err <- expect_error(plot(fit2, transform(d, w = 0), slice = list(w = "a")),
                      class = "kernclass_input_error")
  expect_identical(err$arg, "slice")
  expect_type(plot(fit, d, slice = list(g = "q"), grid = 5), "list")
})

test_that("the kernclass.tune.cores option is deprecated: it warns and changes nothing", {
  set.seed(5)
  x <- matrix(rnorm(60), 30, 2)
  y <- factor(rep(c("a", "b"), 15))
  set.seed(1)
  ref <- kernel_tune(kernel_means, x, y, grid = list(gamma = c(1, 2)), folds = 3)$results
  old <- options(kernclass.tune.cores = NULL)
  on.exit(options(old))
  for (value in list("a", 1, 2)) {
    options(kernclass.tune.cores = value)
    set.seed(1)
    expect_warning(t <- kernel_tune(kernel_means, x, y, grid = list(gamma = c(1, 2)), folds = 3),
                   "future::plan", class = "kernclass_deprecated_warning")
    expect_identical(t$results, ref)
  }
})

test_that("a data frame with unused factor levels fits, cross-validates and predicts them", {
  set.seed(6)
  n <- 60
  d <- data.frame(u = rnorm(n), f = factor(sample(c("p", "q", "r"), n, TRUE, c(0.45, 0.45, 0.1))))
  y <- factor(ifelse(d$u + (d$f == "q") > 0.5, "A", "B"))
  unused <- transform(d, f = factor(f, levels = c("p", "q", "r", "s")))
  for (name in c("kernel_means", "kernel_parzen", "kernel_svm", "kernel_bayes")) {
    fitter <- get(name)
    a <- fitter(unused, y, gamma = 0.5)
    b <- fitter(d, y, gamma = 0.5)
    # a column of zeros for "s": the same kernel values, so the same fit
    # (kernel_bayes's estimates depend on the number of columns too)
    if (name != "kernel_bayes") {
      expect_equal(unname(predict(a, unused, type = "decision")),
                   unname(predict(b, d, type = "decision")), tolerance = 1e-10)
    }
    expect_false(anyNA(predict(a, transform(unused[1:3, ], f = "s"))))
  }
  # folds that lack the rare level "r" in training or test
  expect_true(is.finite(kernel_cv(kernel_means, d, y, folds = 10)$accuracy))
  expect_true(is.finite(kernel_cv(kernel_svm, d[d$f != "r", ], y[d$f != "r"], folds = 5)$accuracy))
  tn <- kernel_tune(kernel_parzen, d, y, grid = list(gamma = c(0.5, 1)), folds = 10)
  expect_s3_class(tn, "kernel_tune")
})

test_that("a matrix with duplicated, empty or NA column names is matched by position", {
  set.seed(7)
  x <- matrix(rnorm(200), 50, 4, dimnames = list(NULL, c("a", "a", "b", "c")))
  y <- factor(ifelse(x[, 2] - x[, 1] > 0, "u", "v"))
  fit <- kernel_means(x, y)
  expect_identical(predict(fit, x), fitted(fit))
  expect_identical(unname(predict(fit, as.data.frame(x))), fitted(fit))
  x2 <- cbind(x[, 3:4], x[, 2])  # colnames "b", "c", ""
  fit2 <- kernel_svm(x2, y)
  expect_identical(predict(fit2, x2), fitted(fit2))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_type(plot(fit2, x2, vars = c("b", "V3"), grid = 5), "list")
  expect_type(plot(fit2, grid = 5), "list")
  colnames(x2)[3] <- NA
  fit3 <- kernel_parzen(x2, y)
  expect_identical(predict(fit3, x2), fitted(fit3))
  expect_type(plot(fit3, x2, grid = 5), "list")
  err <- expect_error(predict(fit3, x2[, 1:2]), class = "kernclass_input_error")
  expect_identical(err$arg, "newdata")
})

test_that("duplicated or empty names where columns are found by name are classed errors", {
  set.seed(8)
  d <- data.frame(a = rnorm(30), b = rnorm(30), c = rnorm(30))
  y <- factor(rep(c("u", "v"), 15))
  for (nm in list(c("a", "a", "b"), c("a", "", "b"), c("a", NA, "b"))) {
    dd <- stats::setNames(d, nm)
    err <- expect_error(kernel_means(dd, y), class = "kernclass_column_names_error")
    expect_identical(err$arg, "x")
  }
  err <- expect_error(kernel_means(stats::setNames(d, c("a", "a", "b")), y), "\"a\"")
  # new data with two columns of a name the model uses
  fit <- kernel_means(as.matrix(d), y)
  nd <- cbind(as.matrix(d), a = 0)
  err <- expect_error(predict(fit, nd), class = "kernclass_column_names_error")
  expect_identical(err$arg, "newdata")
  fitd <- kernel_means(cbind(d, cl = y)[1:3], y)
  err <- expect_error(predict(fitd, cbind(d, a = 0)), class = "kernclass_column_names_error")
  expect_identical(err$arg, "newdata")
  fitf <- kernel_means(cl ~ a + b, data = cbind(d, cl = y))
  err <- expect_error(predict(fitf, cbind(d, a = 0)), class = "kernclass_column_names_error")
  expect_identical(err$arg, "newdata")
  # duplicates the model does not use are ignored
  expect_identical(predict(fitf, cbind(d, c = 0)), predict(fitf, d))
})

test_that("rows that cannot be predicted give NA with one classed warning; the rest are predicted", {
  set.seed(9)
  d <- data.frame(u = runif(40) + 1, v = rnorm(40), g = factor(rep(c("p", "q"), 20)),
                  cl = factor(rep(c("A", "B"), each = 20)))
  fit <- kernel_svm(cl ~ log(u) + v + g, data = d)
  nd <- d[1:5, ]
  nd$u[2] <- -1
  nd$g <- factor(c("p", "q", "p", "z", "q"))
  nd$v[5] <- NA
  w <- expect_warning(p <- predict(fit, nd), class = "kernclass_unpredictable_warning")
  expect_match(conditionMessage(w), "rows 2, 4")
  expect_match(conditionMessage(w), "\"z\"")
  expect_length(p, 5)
  expect_identical(unname(is.na(p)), c(FALSE, TRUE, FALSE, TRUE, TRUE))
  expect_identical(p[c(1, 3)], predict(fit, d[c(1, 3), ]))
  expect_warning(pr <- predict(fit, nd, type = "decision"), class = "kernclass_unpredictable_warning")
  expect_identical(unname(is.na(pr)), c(FALSE, TRUE, FALSE, TRUE, TRUE))
  # a character column with an unseen value; a default-method data frame fit
  fitd <- kernel_means(d[c("u", "g")], d$cl)
  nd2 <- data.frame(u = c(1.5, 1.5), g = c("p", "zz"))
  expect_warning(p2 <- predict(fitd, nd2), class = "kernclass_unpredictable_warning")
  expect_identical(is.na(unname(p2)), c(FALSE, TRUE))
})
