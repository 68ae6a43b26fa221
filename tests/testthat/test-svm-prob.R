# kernel_svm(probability = TRUE): Platt scaling on internal 5-fold
# cross-validation (R's RNG), pairwise coupling for more classes; checked
# against the definitions, for reproducibility, and against e1071 (whose
# folds differ, so only closely).

test_that("probabilities are reproducible with set.seed and follow Platt's sigmoid", {
  two <- droplevels(subset(iris, Species != "setosa"))
  set.seed(42)
  f1 <- kernel_svm(Species ~ ., data = two, probability = TRUE)
  set.seed(42)
  f2 <- kernel_svm(Species ~ ., data = two, probability = TRUE)
  expect_identical(f1$probA, f2$probA)
  expect_identical(f1$probB, f2$probB)
  set.seed(43)
  f3 <- kernel_svm(Species ~ ., data = two, probability = TRUE)
  expect_false(identical(f1$probA, f3$probA))
  p <- predict(f1, two, type = "prob")
  dec <- predict(f1, two, type = "decision")
  expect_equal(unname(p[, 1]), unname(1 / (1 + exp(f1$probA * dec + f1$probB))), tolerance = 1e-12)
  expect_equal(unname(rowSums(p)), rep(1, nrow(two)))
  expect_identical(colnames(p), levels(two$Species))
  # a larger decision value never gives a smaller probability of the first class
  expect_lt(f1$probA, 0)
})

test_that("more classes: pairwise sigmoids combined by coupling", {
  set.seed(7)
  fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
  dec <- predict(fit, iris, type = "decision")
  r <- sapply(seq_len(ncol(dec)), function(m) 1 / (1 + exp(fit$probA[m] * dec[, m] + fit$probB[m])))
  # Wu, Lin and Weng (2004), method 2, as a least-squares problem on the simplex:
  # minimise sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2, sum p = 1 (solved by Lagrange)
  couple <- function(rr) {
    k <- 3
    R <- matrix(0, k, k)
    pairs <- t(utils::combn(k, 2))
    for (m in seq_len(nrow(pairs))) {
      R[pairs[m, 1], pairs[m, 2]] <- rr[m]
      R[pairs[m, 2], pairs[m, 1]] <- 1 - rr[m]
    }
    Q <- matrix(0, k, k)
    for (i in 1:k) for (j in 1:k) {
      if (i == j) Q[i, i] <- sum(R[-i, i]^2) else Q[i, j] <- -R[j, i] * R[i, j]
    }
    sol <- solve(rbind(cbind(Q, 1), c(rep(1, k), 0)), c(rep(0, k), 1))
    sol[1:k]
  }
  expected <- unname(t(apply(r, 1, couple)))
  expect_equal(unname(predict(fit, iris, type = "prob")), expected, tolerance = 1e-6)
})

test_that("probabilities are close to e1071's (different random folds)", {
  set.seed(1)
  fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
  set.seed(1)
  m <- e1071::svm(Species ~ ., data = iris, probability = TRUE)
  pe <- attr(predict(m, iris, probability = TRUE), "probabilities")[, levels(iris$Species)]
  pk <- predict(fit, iris, type = "prob")
  expect_lt(mean(abs(pk - pe)), 0.02)
  expect_gt(mean(max.col(pk) == max.col(pe)), 0.97)
})
