# Memory, stated (R/engine-memory.R): an exact route that needs more memory than
# there is stops before allocating, with an error of class
# "kernclass_memory_error" naming the approximate routes. The limit is
# lowered by the option kernclass.memory_limit (MB), never reached by
# allocating.

ns <- asNamespace("kernclass")

with_limit <- function(mb, expr) {
  old <- options(kernclass.memory_limit = mb)
  on.exit(options(old))
  expr
}

test_that("the limit is the option, else what the system reports", {
  expect_equal(with_limit(3, ns$kc_memory_limit()), 3 * 2^20)
  expect_equal(with_limit(Inf, ns$kc_memory_limit()), Inf)
  expect_error(with_limit("a lot", ns$kc_memory_limit()), class = "kernclass_input_error")
  expect_error(with_limit(0, ns$kc_memory_limit()), "kernclass.memory_limit")
  avail <- ns$kc_memory_available()
  expect_true(avail > 0)
  if (file.exists("/proc/meminfo")) {
    info <- readLines("/proc/meminfo")
    kb <- function(field) as.numeric(gsub("[^0-9]", "", grep(field, info, value = TRUE)))
    # at most the machine's memory (it changes as other programs run: no
    # closer comparison)
    if (length(grep("^MemAvailable:", info))) expect_lte(avail, kb("^MemTotal:") * 1024)
  }
})

test_that("kernel_matrix() beyond the limit is a classed error naming the approximations", {
  x <- matrix(rnorm(2000), 1000)
  err <- with_limit(1, tryCatch(kernel_matrix(x), error = function(e) e))
  expect_s3_class(err, "kernclass_memory_error")
  expect_s3_class(err, "kernclass_input_error")
  expect_match(conditionMessage(err),
               "1000 x 1000 kernel matrix of `x` needs about 8 MB of memory; only 1 MB is available \\(option kernclass.memory_limit\\)")
  expect_match(conditionMessage(err), "approx = cells\\(size = \\.\\.\\.\\)")
  expect_match(conditionMessage(err), "approx = nystrom\\(m = \\.\\.\\.\\)")
  expect_equal(dim(with_limit(10, kernel_matrix(x))), c(1000, 1000))
})

test_that("the exact SVM states the memory of its coefficients and cache; cells need less", {
  set.seed(1)
  x <- matrix(rnorm(4000), 2000)
  y <- factor(sample(letters[1:10], 2000, TRUE))
  # 45 pairs x 2000 rows x 32 bytes = 2.7 MB
  err <- with_limit(2, tryCatch(kernel_svm(x, y), error = function(e) e))
  expect_s3_class(err, "kernclass_memory_error")
  expect_match(conditionMessage(err), "coefficients of 45 class pair\\(s\\) over 2000 rows")
  expect_match(conditionMessage(err), "approx = cells")
  set.seed(2)
  fit <- with_limit(2, kernel_svm(x, y, approx = cells(size = 200)))
  expect_s3_class(fit, "kernclass_cells")
  # a cache beyond the limit names `cachesize`; the default fits within it
  err <- with_limit(50, tryCatch(kernel_svm(x[1:100, ], y[1:100], cachesize = 100),
                                 error = function(e) e))
  expect_s3_class(err, "kernclass_memory_error")
  expect_identical(err$arg, "cachesize")
  two <- factor(ifelse(x[, 1] > 0, "a", "b"))
  expect_identical(with_limit(8, predict(kernel_svm(x, two), x, type = "decision")),
                   predict(kernel_svm(x, two), x, type = "decision"))
})

test_that("centring given kernel values, and many classes' expansion weights, state their memory", {
  set.seed(3)
  x <- matrix(rnorm(400), 200) + 1e4
  y <- factor(ifelse(x[, 1] - 1e4 + rnorm(200, sd = 0.3) > 0, "a", "b"))
  K <- tcrossprod(x)  # the linear kernel far from the origin: centred for the cache
  expect_s3_class(kernel_svm(K, y, kernel = "precomputed"), "kernel_svm")
  # 32 x 200^2 bytes = 1.2 MB
  err <- with_limit(1, tryCatch(kernel_svm(K, y, kernel = "precomputed"), error = function(e) e))
  expect_s3_class(err, "kernclass_memory_error")
  expect_match(conditionMessage(err), "Centring the 200 x 200 given kernel values")
  # kernel_means: 8 x 2000 rows x 100 classes = 1.5 MB at predict()
  xm <- matrix(rnorm(4000), 2000)
  ym <- factor(rep(1:100, 20))
  fit <- kernel_means(xm, ym)
  err <- with_limit(1, tryCatch(predict(fit, xm[1:5, ]), error = function(e) e))
  expect_s3_class(err, "kernclass_memory_error")
  expect_match(conditionMessage(err), "100 classes over 2000 training rows")
  set.seed(4)
  ap <- with_limit(1, kernel_means(xm, ym, approx = nystrom(m = 50)))
  expect_length(with_limit(1, predict(ap, xm[1:5, ])), 5)
})
