# The engine has a portable C path and AVX2 / AVX-512 paths chosen at load
# time.  Each path is run in a child R process (the choice is made when the
# package is loaded) and must give the same kernel values and predictions as
# a plain-R reference, whatever this CPU's best path is.

# exp's arguments (as -t): 0, tiny, the whole range, the edges of the vectorised
# exp's cut at -708 and of double underflow (-745), beyond
exp_args <- c(0, 1e-300, 1e-20, 1e-8, 0.5, seq(0, 760, length.out = 1001), 707.9, 708, 708.1,
              744, 745.2, 746, 800, 1e10)

run_with_isa <- function(isa) {
  run_script(env = sprintf("KERNCLASS_ISA=%s", isa), c(
    "# the solver's paths on the double kernel values (the float tiles: fgram, fsvm)",
    "options(kernclass.svm.precision = 'double')",
    "set.seed(3)",
    "x <- matrix(rnorm(300 * 7), 300); z <- matrix(rnorm(150 * 7), 150)",
    "y <- factor(ifelse(x[, 1] + x[, 2]^2 > 1, 'a', 'b'))",
    "kernels <- c('linear', 'polynomial', 'rbf', 'laplace', 'sigmoid')",
    "res <- list(engine = kernclass:::kc_engine(),",
    "  gram = lapply(kernels, function(k) kernel_matrix(x, z, kernel = k, gamma = 0.1, coef0 = 0.5)),",
    "  row = kernel_matrix(x[1, , drop = FALSE], z, kernel = 'rbf', gamma = 0.1),  # one-row kernel",
    "  sym = kernel_matrix(x, kernel = 'rbf', gamma = 0.1),  # its tiles' copies both ways",
    "  fgram = { options(kernclass.svm.precision = 'float'); rbf <- list(name = 'rbf', gamma = 0.1, degree = 3, coef0 = 0)",
    "    list(kernclass:::kc_kernel_matrix_float(x, z, rbf), kernclass:::kc_kernel_matrix_float(x[1:3, ], z, rbf),",
    "         kernclass:::kc_kernel_matrix_float(x[1, , drop = FALSE], z, rbf), kernclass:::kc_kernel_matrix_float(x, NULL, rbf)) },",
    "  fsvm = kernel_svm(x, y, gamma = 0.1, scale = FALSE)$objective,",
    "  fdouble = { options(kernclass.svm.precision = 'double'); NULL },",
    "  rows3 = kernel_matrix(x[1:3, ], z, kernel = 'rbf', gamma = 0.1),  # four-row kernel",
    "  means = predict(kernel_means(x, y, gamma = 0.1, scale = FALSE), z, type = 'decision'),",
    "  svm = kernel_svm(x, y, gamma = 0.1, scale = FALSE)$objective,",
    "  # the solver's passes (AVX-512: eight variables at a time, then the",
    "  # rest one by one; 299 rows, shrinking on): the iterates and values",
    "  smo = lapply(c(0.1, 10, 1000), function(cost) {",
    "    m <- kernel_svm(x[-1, ], y[-1], gamma = 0.5, cost = cost, scale = FALSE)",
    "    list(m$iterations, m$b, m$coefs, predict(m, z, type = 'decision'))",
    "  }),",
    "  tune = { set.seed(1); kernel_tune(kernel_svm, x, y, folds = 3, search = 'race',",
    "                                    grid = list(cost = c(1, 100), gamma = c(0.1, 1)))$results },",
    "  # distances that cancel (a large common offset): recomputed directly,",
    "  # in every lane of the vectorised rows",
    "  near = kernel_matrix(x / 100 + 1e4, z / 100 + 1e4, kernel = 'rbf', gamma = 10),",
    "  # exp(-t) as the rbf kernel between 0 and sqrt(t), in rows of every length",
    sprintf("  expt = lapply(c(1:17, %d), function(m) kernel_matrix(matrix(0), matrix(sqrt(%s[seq_len(m)])), kernel = 'rbf', gamma = 1)))",
            length(exp_args), paste(deparse(exp_args, control = "digits17"), collapse = ""))))
}

test_that("every instruction-set path gives the reference kernel values", {
  set.seed(3)
  x <- matrix(rnorm(300 * 7), 300); z <- matrix(rnorm(150 * 7), 150)
  kernels <- c("linear", "polynomial", "rbf", "laplace", "sigmoid")
  reference <- lapply(kernels, function(k) ref_kernel(x, z, k, gamma = 0.1, degree = 3, coef0 = 0.5))
  expect_true(kernclass:::kc_engine() %in% c("c", "avx2", "avx512"))
  results <- lapply(c("c", "avx2", "best"), run_with_isa)
  engines <- vapply(results, `[[`, "", "engine")
  # (not compared with this process's choice: under valgrind, which hides
  # AVX-512 from the CPU's self-description, the children run natively)
  expect_equal(engines[1], "c")
  expect_true(engines[2] %in% c("c", "avx2"))
  expect_true(engines[3] %in% c("c", "avx2", "avx512"))
  # the solver's AVX-512 passes compute what its own loop computes, operation
  # for operation: the same iterations, b and coefficients as the AVX2 build,
  # whose row updates are the same (the portable build's may differ in the
  # last bit; predictions go through each engine's own kernel expansion)
  if (engines[2] == "avx2") {
    solver <- function(r) lapply(r$smo, `[`, 1:3)
    expect_identical(solver(results[[3]]), solver(results[[2]]))
    expect_identical(results[[3]]$tune, results[[2]]$tune)
  }
  for (res in results) {
    for (i in seq_along(kernels)) expect_equal(res$gram[[i]], reference[[i]], tolerance = 1e-12)
    expect_equal(res$row, reference[[3]][1, , drop = FALSE], tolerance = 1e-12)
    expect_equal(res$sym, ref_kernel(x, x, "rbf", gamma = 0.1), tolerance = 1e-12)
    expect_identical(res$sym, t(res$sym))
    expect_equal(res$rows3, reference[[3]][1:3, ], tolerance = 1e-12)
    expect_equal(res$means, results[[1]]$means, tolerance = 1e-12)
    expect_equal(res$svm, results[[1]]$svm, tolerance = 1e-9)
    # the float tiles (one, three, many rows; symmetric): within 1e-5, and
    # their models within the solver's tolerance of each other
    fref <- list(reference[[3]], reference[[3]][1:3, ], reference[[3]][1, , drop = FALSE],
                 ref_kernel(x, x, "rbf", gamma = 0.1))
    for (i in 1:4) expect_lt(max(abs(res$fgram[[i]] - fref[[i]])), 1e-5, label = res$engine)
    expect_equal(res$fsvm, results[[1]]$fsvm, tolerance = 1e-6)
    expect_equal(lapply(res$smo, `[[`, 4), lapply(results[[1]]$smo, `[[`, 4), tolerance = 1e-6)
    expect_equal(res$near, ref_kernel(x / 100 + 1e4, z / 100 + 1e4, "rbf", gamma = 10),
                 tolerance = 1e-9)
    # every lane, the tails of rows included: within 4e-16 of R's exp() relative to
    # it; from exp(-708) = 3.3e-308 down, zero or R's value
    for (e in res$expt) {
      t <- exp_args[seq_along(e)]
      r <- exp(-sqrt(t)^2)
      ok <- abs(e - r) <= 4e-16 * r | (t >= 708 & (e == 0 | e == r))
      expect_true(all(ok), info = res$engine)
      expect_identical(e[t == 0], rep(1, sum(t == 0)))
      expect_identical(e[t >= 746], rep(0, sum(t >= 746)))
    }
  }
})
