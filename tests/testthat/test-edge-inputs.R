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
