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
  skip_if_not_installed("e1071")
  set.seed(1)
  fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
  set.seed(1)
  m <- e1071::svm(Species ~ ., data = iris, probability = TRUE)
  pe <- attr(predict(m, iris, probability = TRUE), "probabilities")[, levels(iris$Species)]
  pk <- predict(fit, iris, type = "prob")
  expect_lt(mean(abs(pk - pe)), 0.02)
  expect_gt(mean(max.col(pk) == max.col(pe)), 0.97)
})

test_that("two classes: probabilities kept within [1e-7, 1 - 1e-7], as LIBSVM's and e1071's", {
  two <- droplevels(subset(iris, Species != "setosa"))
  lev <- levels(two$Species)
  m1 <- colMeans(two[two$Species == lev[1], 1:4])
  m2 <- colMeans(two[two$Species == lev[2], 1:4])
  # far beyond each class, where the linear decision value is huge
  far <- as.data.frame(rbind(m1 + 1000 * (m1 - m2), m2 + 1000 * (m2 - m1)))
  set.seed(5)
  fit <- kernel_svm(Species ~ ., data = two, kernel = "linear", probability = TRUE)
  dec <- predict(fit, far, type = "decision")
  expect_gt(dec[[1]], 100)
  expect_lt(dec[[2]], -100)
  p <- predict(fit, far, type = "prob")
  hi <- 1 - 1e-7
  expect_identical(unname(p), rbind(c(hi, 1 - hi), c(1e-7, 1 - 1e-7)))
  # inside the clipping range, the sigmoid itself
  near <- predict(fit, two, type = "prob")[, 1]
  inside <- near > 1e-7 & near < hi
  expect_gt(sum(inside), 50)
  d <- predict(fit, two, type = "decision")[inside]
  expect_equal(unname(near[inside]), unname(1 / (1 + exp(fit$probA * d + fit$probB))),
               tolerance = 1e-12)
  # kernel_bayes, the other one-vs-one model, as well
  fb <- kernel_bayes(Species ~ ., data = two, kernel = "linear", type = 1)
  pb <- predict(fb, far, type = "prob")
  expect_identical(unname(pb), unname(p))
  # e1071 (LIBSVM) clips the same way (its folds differ, its far values do not)
  skip_if_not_installed("e1071")
  set.seed(5)
  m <- e1071::svm(Species ~ ., data = two, kernel = "linear", probability = TRUE)
  pe <- attr(predict(m, far, probability = TRUE), "probabilities")[, lev]
  expect_equal(unname(pe), unname(p), tolerance = 1e-12)
})

test_that("more classes: the C coupling gives what the R transcription gives", {
  set.seed(9)
  x <- matrix(rnorm(500 * 4), 500)
  y <- factor(sample(letters[1:5], 500, TRUE))
  x[, 1] <- x[, 1] + as.integer(y)
  fit <- kernel_svm(x, y, probability = TRUE)
  xt <- rbind(matrix(rnorm(200 * 4), 200), 50 * matrix(rnorm(20 * 4), 20))
  dec <- predict(fit, xt, type = "decision")
  r <- sapply(seq_len(ncol(dec)), function(m) 1 / (1 + exp(fit$probA[m] * dec[, m] + fit$probB[m])))
  expected <- ref_pairwise_coupling(r)
  p <- predict(fit, xt, type = "prob")
  expect_equal(unname(p), expected, tolerance = 1e-12)
  expect_identical(with_threads(1L, predict(fit, xt, type = "prob")),
                   with_threads(2L, predict(fit, xt, type = "prob")))
})

test_that("print() says a model has its probability model, on every representation", {
  set.seed(5)
  line <- "Probabilities: fitted (probability = TRUE)"
  for (approx in list(NULL, nystrom(m = 20), cells(size = 60))) {
    with_prob <- kernel_svm(Species ~ ., data = iris, probability = TRUE, approx = approx)
    without <- kernel_svm(Species ~ ., data = iris, approx = approx)
    label <- if (is.null(approx)) "exact" else approx$method
    out <- capture.output(print(with_prob))
    expect_identical(sum(grepl(line, out, fixed = TRUE)), 1L, label = label)
    expect_false(any(grepl("Probabilities", capture.output(print(without)))), label = label)
  }
  # classifiers whose probabilities need no argument say nothing of it
  expect_false(any(grepl("Probabilities", capture.output(print(kernel_means(Species ~ ., iris))))))
})

test_that("Platt's sigmoids are the same whichever store solved the class pairs", {
  # A cachesize that holds the largest pair's kernel (0.04 MB here) solves
  # the pairs and their Platt folds side by side on float kernel blocks; a
  # smaller one solves each pair's folds on its own. Both sum the folds'
  # decision values from the same float kernel values in the same order, so
  # the model does not depend on cachesize (nor on the memory limit that
  # sets its default). Until they did, A and B differed by about 1e-7.
  x <- scale(as.matrix(iris[, 1:4]))
  ns <- asNamespace("kernclass")
  route <- function(mb) {
    ns$kc_svm_plan(list(kind = "pairs", x = x, pairs = list(list(rows = 1:100))),
                   list(kernel = c(3, 1, 3, 0), type = "C-classification", cachesize = mb))$store
  }
  expect_identical(c(route(1), route(0.02)), c("pairs", "apart"))
  fits <- lapply(c(1, 0.02), function(mb) {
    set.seed(11)
    kernel_svm(x, iris$Species, probability = TRUE, cost = 4, cachesize = mb)
  })
  expect_identical(fits[[2]]$probA, fits[[1]]$probA)
  expect_identical(fits[[2]]$probB, fits[[1]]$probB)
  expect_identical(fits[[2]]$coefs, fits[[1]]$coefs)
  expect_identical(predict(fits[[2]], x, type = "prob"), predict(fits[[1]], x, type = "prob"))
  # and two classes: one pair
  two <- iris$Species != "setosa"
  fits <- lapply(c(1, 0.02), function(mb) {
    set.seed(12)
    kernel_svm(x[two, ], droplevels(iris$Species[two]), probability = TRUE, cachesize = mb)
  })
  expect_identical(fits[[2]]$probA, fits[[1]]$probA)
  expect_identical(fits[[2]]$probB, fits[[1]]$probB)
})
