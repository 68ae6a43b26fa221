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

test_that("the kernclass.tune.cores option is checked", {
  set.seed(5)
  x <- matrix(rnorm(60), 30, 2)
  y <- factor(rep(c("a", "b"), 15))
  old <- options(kernclass.tune.cores = NULL)
  on.exit(options(old))
  for (bad in list("a", NA, 0, 1.5, c(1, 2))) {
    options(kernclass.tune.cores = bad)
    err <- expect_error(kernel_tune(kernel_means, x, y, grid = list(gamma = c(1, 2)), folds = 3),
                        class = "kernclass_input_error")
    expect_identical(err$arg, "kernclass.tune.cores")
  }
})
