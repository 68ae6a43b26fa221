# The kernels are listed twice: in R's kernel table (R/table-kernels.R) and in
# the C engine (enum kc_kernel_type in src/kernel.h, kernel_def_of() in
# src/kernel.c).  A row added on one side without the other fails here.

ns <- asNamespace("kernclass")
r_table <- ns$kc_kernel_table()
c_table <- .Call(ns$ffi_kernel_table)

test_that("R and C list the same kernels, in the same order, with the same flags", {
  expect_identical(r_table$name, c_table$name)
  expect_identical(r_table$code, seq_along(c_table$name))
  expect_identical(r_table$distance, c_table$distance)
  expect_identical(r_table$plain, c_table$plain)
  expect_identical(r_table$bounded, c_table$bounded)
})

test_that("the bounded kernels' values are at most 1 in size, far from the origin too", {
  set.seed(14)
  x <- matrix(rnorm(30, sd = 50), 10)
  for (i in seq_len(nrow(r_table))) {
    K <- kernel_matrix(x, kernel = r_table$name[i], gamma = 0.3, degree = 3, coef0 = 0.5)
    expect_identical(max(abs(K)) <= 1, r_table$bounded[i], label = r_table$name[i])
  }
})

test_that("each row's code is its position, and the C engine refuses codes past the table", {
  for (i in seq_len(nrow(r_table))) {
    k <- ns$kc_kernel(r_table$name[i], 0.5, 2, 1, diag(2))
    expect_identical(ns$kc_kernel_code(k)[1], as.numeric(i))
  }
  x <- matrix(1:6 / 6, 3)
  for (code in c(0, nrow(r_table) + 1)) {
    expect_error(.Call(ns$ffi_kernel_matrix, x, NULL, c(code, 1, 3, 0), 1L),
                 "unknown kernel code")
  }
})

test_that("each code reaches the C kernel R's row describes: k(z, z) agrees", {
  set.seed(11)
  x <- matrix(rnorm(40), 10)
  for (name in r_table$name) {
    k <- ns$kc_kernel(name, 0.3, 3, 0.5, x)
    expect_equal(diag(kernel_matrix(x, kernel = name, gamma = 0.3, degree = 3, coef0 = 0.5)),
                 ns$kc_kernel_diag(x, k), tolerance = 1e-12, label = name)
  }
})

test_that("every row is complete and every alias names one kernel", {
  scales <- c("squared distance", "distance", "inner product", "nothing")
  for (row in ns$kc_kernels) {
    expect_true(row$scales %in% scales, label = row$name)
    expect_true(row$median %in% setdiff(scales, "nothing"), label = row$name)
    expect_true(is.logical(row$density) && length(row$density) == 1L, label = row$name)
    expect_true(is.function(row$self) && is.function(row$bound), label = row$name)
    expect_true(row$shift %in% c("invariant", "dual", "none"), label = row$name)
    expect_true(is.logical(row$plain) && length(row$plain) == 1L, label = row$name)
    expect_true(is.character(row$tags), label = row$name)
    for (alias in c(row$name, row$aliases)) expect_identical(ns$kc_kernel_name(alias), row$name)
  }
  aliases <- unlist(lapply(ns$kc_kernels, `[[`, "aliases"))
  expect_false(anyDuplicated(c(r_table$name, aliases)) > 0)
})

test_that("the shift column says what moving every point does to the kernel values", {
  set.seed(12)
  x <- matrix(rnorm(24), 8)
  moved <- sweep(x, 2L, c(3, -2, 5), "+")
  for (row in ns$kc_kernels) {
    K <- kernel_matrix(x, kernel = row$name, gamma = 0.3, degree = 3, coef0 = 0.5)
    M <- kernel_matrix(moved, kernel = row$name, gamma = 0.3, degree = 3, coef0 = 0.5)
    D <- M - K
    # D = u 1' + 1 u' + c exactly when its double centring vanishes
    J <- diag(8) - 1 / 8
    additive <- max(abs(J %*% D %*% J)) < 1e-8 * max(1, abs(M))
    invariant <- max(abs(D)) < 1e-12
    expect_identical(row$shift,
                     if (invariant) "invariant" else if (additive) "dual" else "none",
                     label = row$name)
  }
  # C computes exactly the shift-invariant kernels from distances
  expect_identical(vapply(ns$kc_kernels, `[[`, "", "shift") == "invariant",
                   setNames(c_table$distance, c_table$name))
})

test_that("the spectral draws are the shift-invariant kernels' (Bochner): E cos(w'd) = k", {
  has <- vapply(ns$kc_kernels, function(r) !is.null(r$frequencies), NA)
  expect_identical(has, vapply(ns$kc_kernels, `[[`, "", "shift") == "invariant")
  set.seed(21)
  x <- matrix(rnorm(8), 4, 2) / 2
  for (row in Filter(function(r) !is.null(r$frequencies), ns$kc_kernels)) {
    W <- row$frequencies(2, 2e5, 0.7)
    K <- kernel_matrix(x, kernel = row$name, gamma = 0.7)
    mc <- outer(1:4, 1:4, Vectorize(function(i, j) mean(cos(crossprod(W, x[i, ] - x[j, ])))))
    expect_equal(mc, K, tolerance = 0.01, ignore_attr = TRUE, label = row$name)
  }
})

test_that("the plain row is the one whose code gives plain inner products", {
  plain <- Filter(function(r) r$plain, ns$kc_kernels)
  expect_length(plain, 1L)
  set.seed(13)
  x <- matrix(rnorm(20), 5)
  expect_equal(.Call(ns$ffi_kernel_matrix, x, NULL, ns$kc_plain_code(), 1L), tcrossprod(x),
               tolerance = 1e-12)
  expect_equal(ns$kc_kernel_code(list(name = "user"))[1], ns$kc_plain_code()[1])
})

test_that("the density column agrees with the densities' self value and the Parzen messages", {
  for (row in ns$kc_kernels) {
    # a density kernel here is a function of the distance with k(z, z) = 1
    expect_identical(row$density, row$scales %in% c("squared distance", "distance"),
                     label = row$name)
  }
  fit <- kernel_parzen(Species ~ ., data = droplevels(iris[51:150, ]), kernel = "polynomial",
                       degree = 2)
  expect_error(predict(fit, iris[51:60, ], type = "prob"),
               paste(ns$kc_enum(ns$kc_density_kernels())), fixed = TRUE)
})

test_that("caret's tags come from the table", {
  for (row in ns$kc_kernels) {
    tags <- kernclass_caret("means", row$name)$tags
    expect_identical(tags, c("Kernel Method", row$tags), label = row$name)
  }
  expect_true("Radial Basis Function" %in% kernclass_caret("svm", "radial")$tags)
})
