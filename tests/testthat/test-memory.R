# The C engine works in tiles: fitting and predicting must never hold an
# n x n kernel matrix. With n = 20,000 training points that matrix would be
# 20000^2 * 8 bytes = 3.2 GB; the data themselves are 8 MB.

testthat::local_edition(3)

# R heap (vector cells, 8 bytes each) in MB: in use now and peak since reset.
vcells_mb <- function(g, col) g["Vcells", col] * 8 / 2^20

# Peak resident set size of this process in MB (Linux only), else NA.
peak_rss_mb <- function() {
  status <- "/proc/self/status"
  if (!file.exists(status)) return(NA_real_)
  line <- grep("^VmHWM:", readLines(status), value = TRUE)
  if (length(line) != 1L) return(NA_real_)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}

# Count the calls of an internal function of kernclass while `expr` runs.
count_calls <- function(fun, expr) {
  counter <- new.env()
  counter$n <- 0L
  bump <- function() counter$n <- counter$n + 1L
  ns <- asNamespace("kernclass")
  suppressMessages(trace(fun, tracer = bquote(.(bump)()), where = ns, print = FALSE))
  on.exit(suppressMessages(untrace(fun, where = ns)), add = TRUE)
  force(expr)
  counter$n
}

test_that("fit and predict on 20,000 x 50 points never allocate an n x n matrix", {
  set.seed(303)
  n <- 20000L
  d <- 50L
  x <- matrix(rnorm(n * d), n, d)
  y <- factor(rep(c("neg", "pos"), length.out = n))
  x[y == "pos", 1:5] <- x[y == "pos", 1:5] + 1
  xnew <- matrix(rnorm(2000L * d), 2000L, d)
  ynew <- factor(rep(c("neg", "pos"), length.out = 2000L))
  xnew[ynew == "pos", 1:5] <- xnew[ynew == "pos", 1:5] + 1
  nn_mb <- n^2 * 8 / 2^20  # 3052 MB

  rss_before <- peak_rss_mb()
  g0 <- gc(reset = TRUE)

  fit <- kernel_means(x, y)
  cls <- predict(fit, xnew)
  prob <- predict(fit, xnew, type = "prob")
  fitp <- kernel_parzen(x, y)
  dec <- predict(fitp, xnew, type = "decision")

  g1 <- gc()
  rss_after <- peak_rss_mb()

  peak_increase <- vcells_mb(g1, "max used") - vcells_mb(g0, "used")
  expect_lt(peak_increase, 300)
  expect_lt(peak_increase, nn_mb / 10)
  if (!is.na(rss_before) && !is.na(rss_after)) {
    # the process-wide peak also sees memory the C code takes outside R's heap
    expect_lt(rss_after - rss_before, 1000)
  }

  # the results are right-sized, and the model holds O(n p) numbers
  expect_length(cls, 2000L)
  expect_identical(dim(prob), c(2000L, 2L))
  expect_length(dec, 2000L)
  expect_lt(as.numeric(object.size(fit)) / 2^20, 30)
  expect_lt(as.numeric(object.size(fitp)) / 2^20, 30)
  # and the separable classes are found
  expect_gt(mean(cls == ynew), 0.75)
})

test_that("fitting does not predict: summary() and fitted() are not run at fit time", {
  set.seed(304)
  x <- matrix(rnorm(3000 * 10), 3000, 10)
  y <- factor(sample(c("a", "b", "c"), 3000, TRUE))
  fits <- list()
  n_fit <- count_calls("kc_scores", {
    fits$means <- kernel_means(x, y)
    fits$parzen <- kernel_parzen(x, y)
    fits$formula <- kernel_means(cls ~ ., data = data.frame(x, cls = y))
  })
  expect_identical(n_fit, 0L)
  # no fitted values, confusion table or accuracy is stored in the model
  for (fit in fits) {
    expect_false(any(c("fitted", "fitted.values", "confusion", "accuracy", "pred") %in%
                       names(fit)))
  }
  # the counter works: summary() and fitted() do score the training data
  expect_gt(count_calls("kc_scores", summary(fits$means)), 0L)
  expect_gt(count_calls("kc_scores", fitted(fits$parzen)), 0L)
  # and the fit computes the within-class sums once (kernel_means only)
  expect_identical(count_calls("kc_within_sums", kernel_means(x, y)), 1L)
  expect_identical(count_calls("kc_within_sums", kernel_parzen(x, y)), 0L)
})

# The stated bound for every fitter: the R heap's peak increase during a fit
# and predict stays within `mult` times the data (the training matrix) plus
# the tiles (per thread: the packed rows of three tiles, 392 p doubles, as
# the kernel expansion holds them, and a 128 x 129 tile) plus `slack` MB for
# the model and R's own work.
tiles_mb <- function(p) kernclass::kernclass_threads() * (392 * p + 128 * 129) * 8 / 2^20
peak_mb <- function(expr) {
  g0 <- gc(reset = TRUE)
  force(expr)
  g1 <- gc()
  vcells_mb(g1, "max used") - vcells_mb(g0, "used")
}

test_that("peak memory follows the data for every fitter (a multiple of the data plus the tiles)", {
  set.seed(305)
  mult <- 8
  slack <- 30
  # many small classes of wide rows (was: each class padded to 128 rows, 64
  # times the data, twice)
  G <- 300L
  p <- 2000L
  x <- matrix(rnorm(2L * G * p), 2L * G, p)
  y <- factor(rep(seq_len(G), each = 2L))
  data_mb <- as.numeric(object.size(x)) / 2^20
  bound <- mult * data_mb + tiles_mb(p) + slack
  expect_lt(peak_mb(predict(kernel_means(x, y), x[1:50, ])), bound)
  expect_lt(peak_mb(predict(kernel_parzen(x, y), x[1:50, ])), bound)
  # kernel_bayes with many more columns than rows (was: p x p covariances and
  # eigen decompositions, 12.6 GB at 10 x 20,000)
  xb <- matrix(rnorm(10 * 20000), 10, 20000)
  yb <- gl(2, 5)
  data_mb <- as.numeric(object.size(xb)) / 2^20
  for (type in 1:3) {
    expect_lt(peak_mb(predict(kernel_bayes(xb, yb, type = type), xb)),
              mult * data_mb + tiles_mb(20000) + slack, label = paste("bayes type", type))
  }
  # kernel_bayes and kernel_svm with more rows than columns: the covariances
  # are p x p (small), the SVM's kernel cache is cachesize MB
  xs <- matrix(rnorm(4000 * 20), 4000, 20)
  ys <- factor(ifelse(xs[, 1] + rnorm(4000) > 0, "a", "b"))
  data_mb <- as.numeric(object.size(xs)) / 2^20
  bound <- mult * data_mb + tiles_mb(20) + slack
  expect_lt(peak_mb(predict(kernel_bayes(xs, ys, type = 3), xs)), bound)
  expect_lt(peak_mb(predict(kernel_svm(xs, ys, cachesize = 8), xs)), bound + 8)
})
