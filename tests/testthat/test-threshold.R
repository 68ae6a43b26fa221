# threshold_search() against a plain-R transcription of the threshold search
# in R. Wang's kernelized Bayes listing (the 1-D search for the offset b).

testthat::local_edition(3)

# The listing's loop, verbatim in R (O(N^2)), with the one addition the
# specification makes: no split between equal scores.
ref_search <- function(x, y) {
  o <- order(x)
  x <- x[o]
  y <- y[o]
  n <- length(x)
  smax <- -1
  b <- NA
  k <- 0L
  for (i in seq_len(n - 1L)) {
    if (x[i] == x[i + 1L]) next
    s <- abs(sum(y[1:i])) + abs(sum(y[(i + 1):n]))
    if (s > smax) {
      smax <- s
      b <- -(x[i] + x[i + 1L]) / 2
      k <- i
    }
  }
  # the orientation: positives above unless below classifies more points right
  above <- sum(y[seq_len(k)] == -1) + sum(y[seq_len(n) > k] == 1)
  list(b = b, split = k, consistency = smax, sign = if (2 * above >= n) 1L else -1L)
}

test_that("distinct scores: the listing's b, split and consistency", {
  set.seed(1)
  for (n in c(2, 3, 10, 57, 200)) {
    y <- sample(c(-1, 1), n, TRUE)
    y[1:2] <- c(-1, 1)
    x <- rnorm(n) + y
    expect_equal(threshold_search(x, y), ref_search(x, y), info = n)
  }
})

test_that("the listing itself (no tie rule, smax = 0) agrees on distinct scores", {
  set.seed(2)
  x <- rnorm(40)
  y <- ifelse(x + rnorm(40) > 0, 1, -1)
  xs <- sort(x)
  ys <- y[order(x)]
  smax <- 0
  for (i in 1:39) {
    s <- abs(sum(ys[1:i])) + abs(sum(ys[(i + 1):40]))
    if (s > smax) {
      smax <- s
      b <- -(xs[i] + xs[i + 1]) / 2
    }
  }
  res <- threshold_search(x, y)
  expect_identical(res$b, b)
  expect_identical(res$consistency, smax)
})

test_that("the orientation: positives below the best split turn the decision round", {
  res <- threshold_search(c(1, 2, 3, 4), c(1, 1, -1, -1))
  expect_equal(res, list(b = -2.5, split = 2L, consistency = 4, sign = -1L))
  expect_identical(res$sign * (c(1, 2, 3, 4) + res$b) > 0, c(TRUE, TRUE, FALSE, FALSE))
  expect_identical(threshold_search(c(1, 2, 3, 4), c(-1, -1, 1, 1))$sign, 1L)
  # the chosen orientation is never worse than the reverse, and the measure
  # of the listing is the same either way
  set.seed(7)
  for (rep in 1:30) {
    n <- sample(2:40, 1)
    x <- rnorm(n)
    y <- sample(c(-1, 1), n, TRUE)
    r <- threshold_search(x, y)
    right <- sum((r$sign * (x + r$b) > 0) == (y > 0))
    expect_gte(right, n - right)
    expect_identical(threshold_search(x, -y)[c("b", "split", "consistency")],
                     r[c("b", "split", "consistency")])
  }
})

test_that("ties: no threshold between equal scores, independent of input order", {
  set.seed(3)
  for (rep in 1:20) {
    n <- sample(5:60, 1)
    x <- round(rnorm(n), 0)          # many ties
    y <- sample(c(-1, 1), n, TRUE)
    res <- threshold_search(x, y)
    expect_equal(res, ref_search(x, y))
    if (res$split > 0) {
      xs <- sort(x)
      expect_lt(xs[res$split], xs[res$split + 1])
      expect_equal(sum(x < -res$b), res$split)
    }
    p <- sample(n)
    expect_identical(threshold_search(x[p], y[p]), res)
  }
  # a perfectly separable pair of tied blocks
  expect_equal(threshold_search(c(1, 1, 1, 2, 2), c(-1, -1, -1, 1, 1)),
               list(b = -1.5, split = 3L, consistency = 5, sign = 1L))
})

test_that("the first maximum wins", {
  # splits 1 and 3 both reach consistency 4; the first is taken
  res <- threshold_search(c(1, 2, 3, 4), c(-1, 1, -1, 1))
  expect_equal(res, ref_search(c(1, 2, 3, 4), c(-1, 1, -1, 1)))
  expect_identical(res$split, 1L)
})

test_that("labels as factor, logical or +-1 give the same result", {
  set.seed(4)
  x <- rnorm(30)
  y <- sample(c(-1, 1), 30, TRUE)
  f <- factor(ifelse(y > 0, "pos", "neg"), levels = c("pos", "neg"))
  res <- threshold_search(x, y)
  expect_identical(threshold_search(x, f), res)
  expect_identical(threshold_search(x, y > 0), res)
  expect_identical(threshold_search(x, as.integer(y)), res)
})

test_that("all scores equal: no split, every point to the majority class", {
  res <- threshold_search(rep(2, 5), c(1, 1, -1, 1, -1))
  expect_identical(res$split, 0L)
  expect_identical(res$sign, 1L)
  expect_gt(2 + res$b, 0)
  res <- threshold_search(rep(2, 5), c(1, -1, -1, 1, -1))
  expect_lt(2 + res$b, 0)
  expect_identical(threshold_search(3, 1)$split, 0L)
})

test_that("large inputs agree with a vectorised R search", {
  set.seed(5)
  n <- 1e5
  x <- round(rnorm(n), 3)
  y <- ifelse(x + rnorm(n) > 0.2, 1, -1)
  o <- order(x)
  xs <- x[o]
  S <- cumsum(y[o])
  k <- seq_len(n - 1)
  s <- abs(S[k]) + abs(S[n] - S[k])
  s[xs[k] == xs[k + 1]] <- -1
  best <- which.max(s)
  res <- threshold_search(x, y)
  expect_identical(res$split, best)
  expect_equal(res$b, -(xs[best] + xs[best + 1]) / 2)
  expect_equal(res$consistency, s[best])
})

test_that("bad input is an error naming the argument", {
  expect_error(threshold_search(c(1, NA), c(1, -1)), "`score`", class = "kernclass_error")
  expect_error(threshold_search(c(1, Inf), c(1, -1)), "`score`", class = "kernclass_error")
  expect_error(threshold_search(numeric(0), numeric(0)), "`score`", class = "kernclass_error")
  expect_error(threshold_search("a", 1), "`score`", class = "kernclass_error")
  expect_error(threshold_search(1:3, c(1, -1)), "`y` has length 2", class = "kernclass_error")
  expect_error(threshold_search(1:3, c(1, 0, -1)), "`y` must be", class = "kernclass_error")
  expect_error(threshold_search(1:3, factor(c("a", "b", "c"))), "`y` must have two levels",
               class = "kernclass_error")
  expect_error(threshold_search(1:3, c(TRUE, NA, FALSE)), "`y` has missing",
               class = "kernclass_error")
})

test_that("threshold = \"search\" in kernel_means() and kernel_parzen()", {
  set.seed(6)
  x <- matrix(rnorm(80), 40, 2)
  y <- factor(ifelse(x[, 1] + rnorm(40, sd = 0.7) > 0.3, "a", "b"))
  kp <- list(kernel = "rbf", gamma = 0.7, degree = 3, coef0 = 0)
  # means: b from the search on mean k(x, S+) - mean k(x, S-)
  K <- Kr(x, x, kp)
  p <- rowMeans(K[, y == "a"]) - rowMeans(K[, y == "b"])
  ref <- ref_search(p, ifelse(y == "a", 1, -1))
  fit <- kernel_means(x, y, gamma = 0.7, scale = FALSE, threshold = "search")
  expect_equal(fit$search, ref)
  expect_equal(unname(predict(fit, type = "decision")), p + ref$b)
  expect_equal(coef(fit)$b, ref$b)
  # analytic stays the centroid rule's offset
  fit0 <- kernel_means(x, y, gamma = 0.7, scale = FALSE)
  expect_identical(fit0$threshold, "analytic")
  b0 <- (mean(K[y == "a", y == "a"]) - mean(K[y == "b", y == "b"])) / 2
  expect_equal(unname(predict(fit0, type = "decision")), p - b0)
  # parzen: the search on the log density ratio gives the effective prior
  lr <- log(rowMeans(K[, y == "a"])) - log(rowMeans(K[, y == "b"]))
  ref <- ref_search(lr, ifelse(y == "a", 1, -1))
  fitp <- kernel_parzen(x, y, gamma = 0.7, scale = FALSE, threshold = "search")
  expect_equal(fitp$search, ref)
  expect_equal(unname(fitp$prior), c(plogis(ref$b), plogis(-ref$b)))
  expect_identical(predict(fitp) == "a", lr + ref$b > 0)
  # errors name `threshold`
  y3 <- factor(rep(c("a", "b", "c"), length.out = 40))
  expect_error(kernel_means(x, y3, threshold = "search"), "`y` has 3",
               class = "kernclass_error")
  expect_error(kernel_parzen(x, y, threshold = "serch"), "`threshold` must be one of",
               class = "kernclass_error")
  expect_error(kernel_parzen(x, y, threshold = "search", kernel = "linear"),
               "density kernel", class = "kernclass_error")
  expect_error(kernel_parzen(x, y, threshold = "search", prior = c(0.5, 0.5)),
               "`prior` and threshold", class = "kernclass_error")
  # formula methods pass it on; partial matching as match.arg
  d <- data.frame(x, cls = y)
  expect_equal(kernel_means(cls ~ ., data = d, threshold = "s", gamma = 0.7,
                            scale = FALSE)$search$b, fit$search$b)
})

test_that("the radix sort orders signs, zeros and magnitudes as R does", {
  set.seed(41)
  for (i in 1:20) {
    n <- sample(2:400, 1)
    x <- sample(c(-0, 0, -1e300, 1e300, -5e-324, 5e-324, round(rnorm(n) * 10^sample(-5:5, n, TRUE), 2)), n,
                replace = TRUE)
    y <- sample(c(-1, 1), n, replace = TRUE)
    expect_equal(threshold_search(x, y), ref_search(x, y))
  }
})
