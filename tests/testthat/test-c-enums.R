# The C engine's enums as R reads them (ffi_enums, src/ffi-misc.c; kc_c,
# R/engine-c-enums.R): R's kernel table and feature maps pinned to them, and each
# status code shown to mean what its name says by a solve that ends that way.
# About a second.

ns <- asNamespace("kernclass")
codes <- .Call(ns$ffi_enums)

test_that("R holds the C enums as named integer vectors, read from C at load time", {
  expect_identical(ns$kc_c, codes)
  for (nm in names(codes)) {
    expect_type(codes[[nm]], "integer")
    expect_false(anyDuplicated(names(codes[[nm]])) > 0, label = nm)
    expect_false(anyDuplicated(codes[[nm]]) > 0, label = nm)
  }
  # a path's own statuses follow the solver's
  expect_length(intersect(codes$smo_status, codes$path_status), 0L)
})

test_that("the kernel table's rows are the C enum's kernels, in its order", {
  table <- ns$kc_kernel_table()
  expect_identical(names(codes$kernel), table$name)
  expect_identical(unname(codes$kernel) + 1L, table$code)
  for (i in seq_len(nrow(table))) {
    k <- ns$kc_kernel(table$name[i], 0.5, 2, 1, diag(2))
    expect_identical(ns$kc_kernel_code(k)[1], as.numeric(codes$kernel[[table$name[i]]] + 1L))
  }
})

test_that("the feature maps carry the C enum's codes, and C computes what each names", {
  specs <- list(nystrom(m = 4), random_fourier(m = 5))
  expect_setequal(names(codes$feature), vapply(specs, `[[`, "", "method"))
  set.seed(3)
  x <- matrix(rnorm(24), 8, 3)
  k <- ns$kc_kernel("rbf", 0.4, 3, 0, diag(3))
  spec <- ns$kc_kernel_code(k)
  for (s in specs) {
    map <- ns$kc_feature_map(s, x, k)
    expect_identical(map$type, codes$feature[[s$method]])
    z <- .Call(ns$ffi_feature_product, x, NULL, map, spec, 1L)
    # plain-R transcriptions of the two maps (src/features.c)
    expected <- if (s$method == "nystrom") {
      exp(-0.4 * outer(rowSums(x^2), rowSums(map$landmarks^2), "+") +
            0.8 * tcrossprod(x, map$landmarks)) %*% map$proj
    } else {
      sqrt(2 / ncol(map$freq)) * cos(sweep(x %*% map$freq, 2, map$phase, "+"))
    }
    expect_equal(z, expected, tolerance = 1e-12, label = s$method)
  }
})

test_that("the solvers' status codes mean what their names say", {
  x <- matrix(c(0, 1, 2, 3, 0, 1, 2, 3), 4)
  y <- c(1L, -1L, 1L, -1L)
  rbf <- c(3, 1, 3, 0)
  smo <- function(C, max_iter, xx = x, yy = y) {
    smo_solve(xx, yy, C, rbf, "cache", cachesize = 1, max_iter = max_iter)$status
  }
  expect_identical(smo(rep(1, 4), 1e4), codes$smo_status[["converged"]])
  expect_identical(smo(rep(1, 4), 1), codes$smo_status[["max_iter"]])
  # cost = Inf on a point given both labels: not separable, the dual unbounded
  xx <- rbind(x, x[1, ])
  expect_identical(smo(rep(Inf, 5), 1e6, xx, c(y, -1L)), codes$smo_status[["unbounded"]])

  # the shared path: fold 2 trains on rows of one class only
  plan <- path_plan(list(cbind(c(0, 1, 2, 3, 4, 5), 0)), c(1L, 2L, 1L, 1L, 1L, 1L), 2L, 1,
                    rep(1, 6), matrix(1, 2, 2), rbf)
  path <- path_solve(list(plan), c(1L, 1L, 2L, 2L, 2L, 2L), 1:2, 1L)[[1]]
  expect_identical(path$status, c(codes$path_status[["empty"]], codes$smo_status[["converged"]]))

  store <- .Call(ns$ffi_feature_store, x, list(type = codes$feature[["nystrom"]], landmarks = x,
                                               proj = diag(4)), rbf, 1L)
  linear <- function(max_pass) {
    set.seed(1)
    .Call(ns$ffi_linear_svm, store, 4L, 1:4, y, rep(1, 4), 1e-6, max_pass, TRUE)$status
  }
  expect_identical(linear(1e4), codes$linear_status[["converged"]])
  expect_identical(linear(1), codes$linear_status[["max_pass"]])
})

test_that("each C error kind is the condition class its name gives", {
  # the kinds test-c-errors.R and R's handlers (kernclass_memory_error, as
  # kc_check_memory()'s) rely on
  expect_setequal(names(codes$error_kind), c("internal", "size", "memory"))
  err <- expect_error(.Call(ns$ffi_kernel_matrix, "a", NULL, c(3, 1, 3, 0), 1L))
  expect_s3_class(err, paste0("kernclass_", names(codes$error_kind)[codes$error_kind == 0L],
                              "_error"))
})
