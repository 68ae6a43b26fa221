# Once the SMO solver has shrunk its active set, it runs its passes on the
# active variables packed side by side (smo.c, struct smo_pack: the full-set
# AVX-512 code on them) where the scan otherwise reads them through the
# index list (the portable loop). Both must take the same steps: the same
# iterations, solution and decision values, bit for bit. Each runs in a
# child R process, the packing turned off in one (KERNCLASS_SMO_PACK=0); on
# a machine without AVX-512 neither packs.

packed_fits <- function(pack) {
  run_script(env = sprintf("KERNCLASS_SMO_PACK=%s", pack), c(
    "radial <- function(n, seed) {",
    "  set.seed(seed); x <- matrix(rnorm(n * 20), n)",
    "  list(x = x, y = factor(ifelse(x[, 1]^2 + x[, 2]^2 > qchisq(0.5, 2), 'out', 'in')))",
    "}",
    "d <- radial(900, 1); z <- radial(300, 2)$x",
    "fit <- function(...) {",
    "  m <- kernel_svm(d$x, d$y, scale = FALSE, ...)",
    "  list(m$iterations, m$b, m$coefs, m$index, predict(m, z, type = 'decision'))",
    "}",
    "set.seed(3); w <- runif(900, 0.5, 2)",
    "three <- factor(cut(d$x[, 1] + d$x[, 2], 3, labels = c('a', 'b', 'c')))",
    "res <- list(",
    "  # large costs, small gamma: most iterations on a shrunk set",
    "  big = lapply(c(10, 100, 1000), function(cost) fit(cost = cost, gamma = 0.0056)),",
    "  weighted = fit(cost = 100, gamma = 0.03, weights = w),",
    "  tight = fit(cost = 100, gamma = 0.0056, tolerance = 1e-5),",
    "  ovo = { m <- kernel_svm(d$x, three, cost = 100, gamma = 0.01, scale = FALSE)",
    "          list(m$iterations, m$coefs, m$b) },",
    "  race = { set.seed(1); r <- kernel_tune(kernel_svm, d$x, d$y, scale = FALSE, folds = 3,",
    "                                         grid = list(cost = c(1, 100), gamma = c(0.0056, 0.03)))",
    "           list(r$results, r$model$coefs) })"))
}

test_that("the packed passes over a shrunk set take the unpacked passes' steps", {
  portable <- packed_fits("0")
  packed <- packed_fits("1")
  expect_identical(packed, portable)
  # the fits did shrink and converge: iterations well past the variables
  expect_true(all(vapply(portable$big, function(f) sum(f[[1]]), 0) > 900))
})

test_that("a fit on a packed shrunk set is the same on one thread and on two", {
  set.seed(7)
  n <- 2400
  x <- matrix(rnorm(n * 20), n)
  y <- factor(ifelse(x[, 1]^2 + x[, 2]^2 > qchisq(0.5, 2), "out", "in"))
  old <- options(kernclass.threads = 1L)
  on.exit(options(old))
  one <- kernel_svm(x, y, cost = 100, gamma = 0.0056, scale = FALSE)
  options(kernclass.threads = 2L)
  two <- kernel_svm(x, y, cost = 100, gamma = 0.0056, scale = FALSE)
  expect_identical(two$iterations, one$iterations)
  expect_identical(two$coefs, one$coefs)
  expect_identical(two$b, one$b)
})
