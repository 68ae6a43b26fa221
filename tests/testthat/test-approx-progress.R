# Progress of the approximate fits past one row block (progressr), and the
# row blocks of the feature sums: the sums over several blocks are those of
# one block, and a progress handler changes nothing in the model.

ns <- asNamespace("kernclass")

# The value of `expr` and the messages of the progress updates it signals
# (progressr's "progression" conditions), with progress enabled (progressr
# disables it in non-interactive sessions) and blocks of `block` rows.
with_updates <- function(expr, block) {
  old <- options(progressr.enable = TRUE, kernclass.block_rows = block)
  on.exit(options(old))
  msgs <- character()
  value <- withCallingHandlers(expr, progression = function(p) {
    if (identical(p$type, "update")) msgs <<- c(msgs, p$message)
  })
  list(value = value, messages = msgs)
}

# A fit after set.seed(3) with blocks of `block` rows, progress enabled.
seeded <- function(f, block) {
  with_updates({
    set.seed(3)
    f()
  }, block)
}

rel_diff <- function(a, b) max(abs(a - b)) / max(abs(b))

test_that("the feature sums over several row blocks are the one-block sums and plain R's", {
  d <- two_class(n = 700)
  fit <- kernel_means(d$x, d$y, gamma = 0.4)
  for (spec in list(nystrom(m = 25), random_fourier(m = 40))) {
    set.seed(5)
    fa <- ns$kc_approx_fit(spec, fit$x, fit$kernel)
    one <- with_updates(ns$kc_feature_means(fa, fit$x, d$y), block = 1e6)
    blocks <- with_updates(ns$kc_feature_means(fa, fit$x, d$y), block = 150L)
    # 700 rows: blocks of 150, 150, 150, 150 and 100 rows, a step each
    expect_identical(blocks$messages, rep("feature sums", 5L))
    expect_identical(one$messages, character())
    expect_lt(rel_diff(blocks$value, one$value), 1e-12)
    z <- ns$kc_features(fa, fit$x)
    plain <- rbind(colMeans(z[d$y == "a", ]), colMeans(z[d$y == "b", ]))
    expect_lt(rel_diff(blocks$value, plain), 1e-6)
  }
})

test_that("means, Parzen and Bayes on features: a step per row block, the model of one block", {
  d <- two_class(n = 700)
  fits <- list(
    means = function() kernel_means(d$x, d$y, approx = nystrom(m = 20)),
    parzen = function() kernel_parzen(d$x, d$y, approx = random_fourier(m = 50)),
    bayes = function() kernel_bayes(d$x, d$y, type = 1, approx = nystrom(m = 20)))
  for (f in fits) {
    one <- seeded(f, block = 1e6)
    blocks <- seeded(f, block = 200L)
    expect_identical(one$messages, character())
    expect_identical(blocks$messages, rep("feature sums", 4L))
    expect_lt(rel_diff(blocks$value$approx$w, one$value$approx$w), 1e-12)
    expect_equal(blocks$value$approx$b, one$value$approx$b, tolerance = 1e-12)
    expect_identical(predict(blocks$value, d$x), predict(one$value, d$x))
  }
})

test_that("kernel_svm on features: named steps around the store and solver", {
  d <- two_class(n = 500)
  f <- function() kernel_svm(d$x, d$y, approx = nystrom(m = 20))
  r <- seeded(f, block = 100L)
  expect_identical(r$messages, c("feature map", "feature store", "linear SVM"))
  fp <- function() kernel_svm(d$x, d$y, approx = nystrom(m = 20), probability = TRUE)
  rp <- seeded(fp, block = 100L)
  expect_identical(rp$messages,
                   c("feature map", "feature store", "linear SVM", "probability model"))
  # quiet at or below one block
  expect_identical(seeded(f, block = 500L)$messages, character())
  # the steps change nothing: the model is that of a fit without progress
  set.seed(3)
  plain <- fp()
  plain$call <- rp$value$call <- NULL
  expect_identical(rp$value, plain)
})

test_that("cells(): a step per cell, as futures too, and the model unchanged", {
  d <- two_class(n = 600)
  f <- function() kernel_svm(d$x, d$y, probability = TRUE, approx = cells(size = 150))
  r <- seeded(f, block = 300L)
  ncell <- length(r$value$approx$models)
  expect_gt(ncell, 1L)
  expect_identical(r$messages, rep("cell", ncell))
  set.seed(3)
  plain <- f()
  expect_identical(r$value$approx, plain$approx)
  expect_identical(predict(r$value, d$x, type = "prob"), predict(plain, d$x, type = "prob"))
  skip_if_not_installed("future")
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old))
  rf <- seeded(f, block = 300L)
  # progressr relays the workers' updates to this session
  expect_identical(rf$messages, rep("cell", ncell))
  expect_identical(rf$value$approx, plain$approx)
})

test_that("a progressr handler changes nothing in the fits", {
  d <- two_class(n = 500)
  old <- options(progressr.enable = TRUE, kernclass.block_rows = 100L)
  on.exit(options(old))
  fits <- list(
    function() kernel_means(d$x, d$y, approx = random_fourier(m = 30)),
    function() kernel_svm(d$x, d$y, approx = nystrom(m = 20)),
    function() kernel_svm(d$x, d$y, approx = cells(size = 200)))
  for (f in fits) {
    set.seed(9)
    a <- f()
    set.seed(9)
    b <- progressr::with_progress(f(), handlers = progressr::handler_void())
    a$call <- b$call <- NULL
    expect_identical(b, a)
  }
})
