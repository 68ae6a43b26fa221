# The gammas of one kernel setting share their kernel sums: the engine's
# kernel sets (one tile of inner products or distances, each kernel's values
# from it) equal each kernel alone bit for bit, and kernel_tune() of
# kernel_means, kernel_parzen and kernel_bayes over gamma gives what each
# grid row gives alone.

ns <- asNamespace("kernclass")

set_data <- function(n = 300, p = 4, seed = 3) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n)
  y <- factor(sample(c("a", "b", "c"), n, replace = TRUE))
  list(x = x, y = y, new = matrix(rnorm(70 * p), 70))
}

kernel_of <- function(name, gamma) list(name = name, gamma = gamma, degree = 2L, coef0 = 0.5)

test_that("a set of kernels gives each kernel's sums bit for bit, on any threads", {
  d <- set_data()
  gammas <- c(0.02, 0.3, 1.7)
  W <- cbind(runif(nrow(d$x)), -runif(nrow(d$x)))
  for (name in c("rbf", "laplace", "polynomial", "sigmoid", "linear")) {
    ks <- lapply(gammas, kernel_of, name = name)
    codes <- ns$kc_kernel_codes(ks)
    for (th in 1:2) {
      within <- .Call(ns$ffi_within_sums, d$x, as.integer(d$y), 3L, codes, th)
      expand <- .Call(ns$ffi_kernel_expansion, d$new, d$x, W, codes, th)
      expect_identical(dim(within), c(3L, 3L))
      expect_identical(dim(expand), c(70L, 6L))
      for (i in seq_along(ks)) {
        one <- ns$kc_kernel_code(ks[[i]])
        expect_identical(within[, i], .Call(ns$ffi_within_sums, d$x, as.integer(d$y), 3L,
                                            one, 1L)[, 1L], info = paste(name, th, i))
        expect_identical(expand[, 2L * i - 1:0],
                         .Call(ns$ffi_kernel_expansion, d$new, d$x, W, one, 1L),
                         info = paste(name, th, i))
        # against the plain-R kernel
        K <- ref_kernel(d$x, d$x, name, gammas[i], 2L, 0.5)
        ref <- vapply(levels(d$y), function(l) sum(K[d$y == l, d$y == l]), numeric(1))
        expect_equal(within[, i], unname(ref), tolerance = 1e-10, info = name)
        expect_equal(expand[, 2L * i - 1:0], ref_kernel(d$new, d$x, name, gammas[i], 2L, 0.5) %*% W,
                     tolerance = 1e-10, info = name)
      }
    }
  }
})

test_that("sparse rows share their kernel sums too", {
  skip_if_not_installed("Matrix")
  d <- set_data(p = 6)
  d$x[abs(d$x) < 0.8] <- 0
  xs <- ns$kc_as_csr(Matrix::Matrix(d$x, sparse = TRUE))
  ks <- lapply(c(0.05, 0.5), kernel_of, name = "rbf")
  within <- .Call(ns$ffi_within_sums, xs, as.integer(d$y), 3L, ns$kc_kernel_codes(ks), 2L)
  for (i in 1:2) {
    expect_identical(within[, i], .Call(ns$ffi_within_sums, xs, as.integer(d$y), 3L,
                                        ns$kc_kernel_code(ks[[i]]), 1L)[, 1L])
  }
})

test_that("a kernel set of mixed types or a ragged spec is refused", {
  d <- set_data(n = 20)
  y <- as.integer(d$y)
  expect_error(.Call(ns$ffi_within_sums, d$x, y, 3L, c(3, 1, 3, 0, 4, 1, 3, 0), 1L),
               "one type", class = "kernclass_internal_error")
  expect_error(.Call(ns$ffi_kernel_expansion, d$x, d$x, matrix(1, 20, 1), c(3, 1, 3, 0, 3), 1L),
               "4 values per kernel", class = "kernclass_internal_error")
})

# kernel_tune()'s kernel sets: how many kernels each call of the engine took
count_sets <- function(expr) {
  seen <- new.env()
  seen$sizes <- integer()
  suppressMessages(trace("kc_kernel_codes", where = ns, print = FALSE,
                         exit = bquote(assign("sizes", c(get("sizes", .(seen)), length(ks)),
                                              envir = .(seen)))))
  on.exit(suppressMessages(untrace("kc_kernel_codes", where = ns)))
  force(expr)
  seen$sizes
}

test_that("kernel_tune over gamma gives each grid row's own cross-validation, sharing the sums", {
  d <- set_data(n = 240)
  grid <- expand.grid(gamma = c(0.05, 0.4, 2), kernel = c("rbf", "laplace"),
                      stringsAsFactors = FALSE)
  cases <- list(
    means = list(fit = kernel_means, args = list()),
    parzen = list(fit = kernel_parzen, args = list()),
    bayes2 = list(fit = kernel_bayes, args = list(type = 2)),
    bayes3 = list(fit = kernel_bayes, args = list(type = 3)))
  for (nm in names(cases)) {
    cs <- cases[[nm]]
    for (metric in c("accuracy", "logloss")) {
      set.seed(4)
      sizes <- count_sets(tuned <- do.call(kernel_tune, c(list(cs$fit, d$x, d$y, grid = grid,
                                                              folds = 4, metric = metric,
                                                              search = "exhaustive"),
                                                         cs$args)))
      expect_true(any(sizes == 3L), info = nm)  # the three gammas of a kernel together
      for (i in seq_len(nrow(grid))) {
        set.seed(4)
        cv <- do.call(kernel_cv, c(list(cs$fit, d$x, d$y, folds = 4, metric = metric,
                                        gamma = grid$gamma[i], kernel = grid$kernel[i]),
                                   cs$args))
        expect_identical(tuned$results[[metric]][i], cv$value, info = paste(nm, metric, i))
      }
    }
  }
})

test_that("two classes' decision values and threshold searches are those of each row alone", {
  d <- two_class(n = 200, p = 3, seed = 5)
  grid <- list(gamma = c(0.1, 1, 5))
  for (case in list(list(kernel_means, list(threshold = "search")),
                    list(kernel_parzen, list(threshold = "search")),
                    list(kernel_bayes, list(type = 1)))) {
    set.seed(6)
    tuned <- do.call(kernel_tune, c(list(case[[1]], d$x, d$y, grid = grid, folds = 5,
                                         metric = "auc", search = "exhaustive"), case[[2]]))
    for (i in 1:3) {
      set.seed(6)
      cv <- do.call(kernel_cv, c(list(case[[1]], d$x, d$y, folds = 5, metric = "auc",
                                      gamma = grid$gamma[i]), case[[2]]))
      expect_identical(tuned$results$auc[i], cv$value)
    }
  }
})

test_that("shared sums do not depend on the threads, and leave nothing behind", {
  d <- set_data(n = 400)
  grid <- list(gamma = c(0.03, 0.3, 3))
  runs <- lapply(1:2, function(th) with_threads(th, {
    set.seed(8)
    kernel_tune(kernel_means, d$x, d$y, grid = grid, folds = 3, metric = "logloss")
  }))
  expect_identical(runs[[1]]$results, runs[[2]]$results)
  # with no room in the tuning budget nothing is kept: each row computes its own
  old <- options(kernclass.tune.store_mb = 0)
  set.seed(8)
  sizes <- count_sets(none <- kernel_tune(kernel_means, d$x, d$y, grid = grid, folds = 3,
                                          metric = "logloss"))
  options(old)
  expect_true(all(sizes == 1L))
  expect_identical(none$results, runs[[1]]$results)
  # the refitted model holds no store of the folds' sums
  expect_null(runs[[1]]$model$kernel$shared)
  # an error inside a fold is the fitter's, not the store's
  expect_error(kernel_tune(kernel_means, d$x, d$y, grid = list(gamma = c(0.1, 1)), folds = 3,
                           coef0 = NA))
  expect_null(none$model$kernel$shared)
})

test_that("the gammas' store is handed to the fits that use it, and to no other", {
  got <- ns$kc_gamma_store(c(1, 2, 2))
  expect_identical(got$gammas, c(1, 2))
  expect_identical(got$kept, list())
  # a fitter outside kernel_tune() has none; `.shared` is checked
  expect_null(kernel_means(iris[, 1:4], iris$Species)$kernel$shared)
  expect_error(kernel_means(iris[, 1:4], iris$Species, .shared = 1),
               class = "kernclass_input_error")
  # two stores are two: what one keeps the other does not see
  inner <- ns$kc_gamma_store(c(3, 4))
  outer <- ns$kc_gamma_store(c(1, 2))
  expect_identical(inner$gammas, c(3, 4))
  expect_identical(outer$gammas, c(1, 2))
  # a kernel holding a store keeps its sums there (x and y as kc_within_sums
  # reads them), one entry per store, whatever the other stores hold
  d <- set_data(n = 30)
  k <- kernel_of("rbf", 2)
  sums <- function() {
    store <- ns$kc_gamma_store(c(1, 2))
    ns$kc_within_sums(d$x, d$y, ns$kc_kernel_shared(k, store))
    length(store$kept)
  }
  expect_identical(c(sums(), sums()), c(1L, 1L))
})
