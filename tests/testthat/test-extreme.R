# Extreme and adversarial inputs (issue 14): a correct answer or a classed
# error, never a silent wrong one.

testthat::local_edition(3)

test_that("the threshold search's orientation is used: scores 1:4 with labels + + - -", {
  res <- threshold_search(1:4, c(1, 1, -1, -1))
  expect_identical(res$sign, -1L)
  expect_identical(res$sign * (1:4 + res$b) > 0, c(TRUE, TRUE, FALSE, FALSE))
})

test_that("kernel_bayes turns an inverted pair round (was: training accuracy below 50%)", {
  set.seed(1)
  n <- 30
  x <- matrix(rnorm(n * 2), n, 2)
  y <- factor(ifelse(rowSums(x^2) + rnorm(n, sd = 0.5) > 1.4, "a", "b"))
  fit <- kernel_bayes(x, y, type = 3, kernel = "polynomial", degree = 6)
  pm <- fit$pairs[[1]]
  expect_identical(pm$sign, -1L)
  expect_gt(mean(predict(fit) == y), 0.7)
  dec <- predict(fit, type = "decision")
  # the decision is -(p(x) + b): the search on the training p(x) finds b
  p <- -dec - pm$b
  expect_equal(threshold_search(p, y)[c("b", "split", "sign")], pm[c("b", "split", "sign")])
  expect_identical(as.character(predict(fit)), ifelse(dec > 0, "a", "b"))
})
