# Every .Call entry point on tiny data under gctorture(TRUE) (a garbage
# collection at every allocation), called directly so that little R code runs
# under the torture and the test takes a second: a quick guard against
# crashes from objects the C code left unprotected. The thorough check,
# through the exported functions and with results used after more
# allocations, is tools/gctorture.R (bash tools/check.sh gctorture).

ns <- asNamespace("kernclass")

# .Call(ns[[entry]], ...) under gctorture: the value, or the error as a
# condition object (caught before the torture ends, so that testthat's own
# condition handling runs at normal speed).
torture <- function(entry, ...) {
  f <- ns[[entry]]
  args <- list(...)
  gctorture(TRUE)
  out <- tryCatch(do.call(.Call, c(list(f), args)), error = function(e) e)
  gctorture(FALSE)
  out
}

set.seed(5)
x <- matrix(rnorm(12), 6, 2)
y <- c(1L, -1L, 1L, -1L, 1L, -1L)
rbf <- c(3, 0.5, 3, 0)
# feature maps (R/repr-approx.R): Nystrom on three landmarks, rank 2; Fourier
nystrom_map <- list(type = 1L, landmarks = x[1:3, ], proj = diag(3)[, 1:2])
fourier_map <- list(type = 2L, freq = matrix(c(1, -2, 0.5, 1, 2, 0, -1, 3), 2, 4),
                    phase = c(0.1, 2, 4, 6))
store <- .Call(ns$ffi_feature_store, x, nystrom_map, rbf, 1L)
# two class pairs of three classes (ffi_svm_solve's kind "pairs")
pair_problems <- list(list(rows = 1:4, y = c(1L, -1L, 1L, -1L), C = rep(1, 4)),
                      list(rows = c(1L, 3L, 5L, 6L), y = c(1L, 1L, -1L, -1L), C = rep(2, 4)))
# the SVM solve entry's problems and options (read by name)
binary <- function(x, ...) list(kind = "binary", x = x, y = y, C = rep(1, 6), ...)
svm_options <- function(spec = rbf, ...) {
  list(kernel = spec, type = "C-classification", tolerance = 1e-3, max_iter = 1e4, cachesize = 1,
       shrinking = TRUE, threads = 1L, ...)
}
path_problem <- function(plans, kept = NULL) {
  list(kind = "path", plans = plans, fold = rep(1:2, 3), run = 1:2, kept = kept)
}
calls <- list(
  ffi_kernel_matrix = list(x, x[1:4, ], rbf, 1L),
  ffi_kernel_matrix_float = list(x, x[1:4, ], rbf, 1L),
  ffi_kernel_expansion = list(x, x, cbind(y == 1, y == -1) + 0, rbf, 1L),
  ffi_within_sums = list(x, rep(1:2, 3), 2L, rbf, 1L),
  ffi_loo_sums = list(x, rep(1:2, 3), 2L, rbf, 1L),
  # a start, a new store kept for a path's next cost, held-out decision values
  ffi_svm_solve = list(binary(x, alpha0 = rep(0.5, 6), test = x[1:3, ]), svm_options(keep = Inf)),
  # a path's warm start, on the LRU cache (no budget left for a store)
  ffi_svm_solve = list(binary(x, warm = list(alpha = c(1, 0.5, 1, 0, 0.2, 1), C = rep(0.5, 6))),
                       svm_options(keep = 0)),
  ffi_svm_solve = list(binary(x), svm_options(type = "nu-classification")),
  ffi_threshold_search = list(x[, 1], y),
  ffi_kernel_table = list(),
  ffi_pairwise_coupling = list(matrix(c(0.2, 0.9, 0.5, 0.7, 0.1, 1), 2, 3), 3L, 1L),
  # pairwise Venn-Abers couples the ends of its intervals, which reach 0 and 1
  ffi_pairwise_coupling = list(matrix(c(0, 1, 0.5, 1, 0, 0.25, 1, 1, 0), 3, 3), 3L, 2L),
  ffi_column_moments = list(x),
  ffi_scale_columns = list(x, c(0.1, -0.2), c(2, 0.5)),
  ffi_count_nonfinite = list(c(1, NA, Inf, -Inf)),
  ffi_pm1 = list(factor(c("a", "b", "a")), TRUE),
  ffi_threads = list(NULL, 2L),
  ffi_kernel_diag = list(x, c(1, 1, 1, 0)),
  ffi_feature_sums = list(x, rep(1:2, 3), 2L, nystrom_map, rbf, 1L),
  ffi_feature_product = list(x, matrix(1:8 / 8, 4, 2), fourier_map, rbf, 1L),
  ffi_feature_store = list(x, nystrom_map, rbf, 1L),
  ffi_store_product = list(store, 2L, 6:1, matrix(c(1, -1, 0.5, 2), 2, 2)),
  ffi_linear_svm = list(store, 2L, 1:6, y, rep(1, 6), 0.1, 100, TRUE),
  ffi_linear_many = list(store, 2L, list(1:6, 2:5), list(y, y[2:5]), list(rep(1, 6), rep(2, 4)),
                         0.1, 100, TRUE, 2L),
  ffi_kmeanspp = list(x, rbf, 3L, 1L),
  ffi_triangular_inverse = list(matrix(c(2, 0, 1, 3), 2, 2), 1L),
  ffi_svm_solve = list(path_problem(list(path_plan(list(x, x * 2), rep(1:2, 3), 2L, c(1, 10),
                                                   rep(1, 6), matrix(1, 2, 2), rbf, 1e-3, 1e4),
                                         path_plan(list(x), rep(1:2, 3), 2L, 1, rep(1, 6),
                                                   matrix(1, 2, 2), rbf, 1e-3, 1e4))),
                       list(threads = 2L, budget = Inf)),
  # its buffers kept across calls, as a race keeps them
  ffi_svm_solve = list(path_problem(list(path_plan(list(x, x * 2), rep(1:2, 3), 2L, c(1, 10),
                                                   rep(1, 6), matrix(1, 2, 2), rbf, 1e-3, 1e4)),
                                    .Call(ns$ffi_svm_path_kept)),
                       list(threads = 2L, budget = Inf)),
  # the shared kernel, and past a budget of 0 each pair on its own block
  ffi_svm_solve = list(list(kind = "pairs", x = x, pairs = pair_problems),
                       svm_options(threads = 2L, budget = Inf)),
  ffi_svm_solve = list(list(kind = "pairs", x = x, pairs = pair_problems),
                       svm_options(threads = 2L, budget = 0)),
  ffi_svm_plan = list(list(kind = "path", n = 6, nclass = 3L, m = 4, t = 2, trained = 4, nx = 2L,
                           nrun = 3L, inputs = 96), list(budget = 1e4)),
  ffi_svm_plan = list(list(kind = "pairs", x = x, pairs = pair_problems), svm_options()),
  ffi_svm_plan = list(binary(x), svm_options()),
  ffi_enums = list()
)

# The other data sources (R/input-sources.R): sparse rows, given kernel values, an
# R kernel function called from C (the callback's objects must be protected).
sparse <- ns$kc_as_csr(x)
given <- ns$kc_as_precomputed(kernel_matrix(x, kernel = "rbf", gamma = 0.5))
# the rbf kernel in a few primitive calls: every line of R run under the
# torture costs a collection per allocation (kernel_matrix()'s checks made this
# file take minutes)
user <- ns$kc_as_user(x, function(a, b) {
  exp(-0.5 * (outer(rowSums(a^2), rowSums(b^2), "+") - 2 * tcrossprod(a, b)))
})
# the same source whose tile function looks its values up in the kernel matrix
# computed through `user` before: the C calls and their callbacks are tortured
# as before, the user's R code (checked untortured by the comparison below)
# is not (it made user_smo this file's slowest case, and the suite's)
tortured_user <- user
tortured_user$tile <- local({
  k <- user$tile(x, 1:6, x, 1:6)
  function(xa, ia, xb, ib) k[ia, ib, drop = FALSE]
})
identity <- c(1, 1, 1, 0)
sources <- list(
  sparse_smo = list("ffi_svm_solve", binary(sparse, test = sparse), svm_options(keep = 0)),
  sparse_diag = list("ffi_kernel_diag", sparse, c(2, 0.5, 2, 1)),
  given_smo = list("ffi_svm_solve", binary(given), svm_options(identity)),
  user_smo = list("ffi_svm_solve", binary(tortured_user), svm_options(identity)),
  user_sums = list("ffi_within_sums", tortured_user, rep(1:2, 3), 2L, identity, 1L),
  user_diag = list("ffi_kernel_diag", tortured_user, identity))

test_that("the list above has every registered entry point", {
  registered <- names(getDLLRegisteredRoutines("kernclass")$.Call)
  expect_setequal(c(names(calls), "ffi_engine", "ffi_svm_path_kept", "ffi_svm_path_kept_free"),
                  registered)
})

test_that("the shared path's kept buffers are made and freed under gctorture", {
  kept <- torture("ffi_svm_path_kept")
  expect_type(kept, "externalptr")
  expect_null(torture("ffi_svm_path_kept_free", kept))
  expect_null(torture("ffi_svm_path_kept_free", kept))  # freed: nothing left to free
})

test_that("the .Call entry points give the same results under gctorture", {
  for (i in seq_along(calls)) {  # an entry may be named twice
    entry <- names(calls)[i]
    set.seed(1)  # the linear SVM's coordinate order
    expected <- do.call(.Call, c(list(ns[[entry]]), calls[[i]]))
    set.seed(1)
    expect_equal(do.call(torture, c(list(entry), calls[[i]])), expected,
                 tolerance = 1e-12, label = entry)
  }
})

test_that("the sparse, precomputed and callback sources give the same results under gctorture", {
  for (nm in names(sources)) {
    args <- sources[[nm]]
    expected <- do.call(.Call, c(list(ns[[args[[1]]]]), args[-1]))
    expect_equal(do.call(torture, args), expected, tolerance = 1e-12, label = nm)
  }
  # the same models as from the dense rows
  dense <- .Call(ns$ffi_svm_solve, binary(x), svm_options(keep = 0))
  for (nm in c("sparse_smo", "given_smo", "user_smo")) {
    args <- sources[[nm]]
    expect_equal(do.call(.Call, c(list(ns[[args[[1]]]]), args[-1]))$alpha, dense$alpha,
                 tolerance = 1e-10, label = nm)
  }
  user_model <- .Call(ns$ffi_svm_solve, binary(user), svm_options(identity))
  expect_equal(user_model$alpha, dense$alpha, tolerance = 1e-10, label = "the user's kernel")
})

test_that("an error in an R kernel function unwinds cleanly under gctorture", {
  bad <- ns$kc_as_user(x, function(a, b) stop("no kernel here"))
  err <- torture("ffi_kernel_diag", bad, identity)
  expect_match(conditionMessage(err), "no kernel here")
  err <- torture("ffi_svm_solve", binary(bad), svm_options(identity, max_iter = 10))
  expect_match(conditionMessage(err), "no kernel here")
})

# kernel_tune()'s shared cost path with a progress function (kernel_tune()
# passes kc_task_progress() over its progressor): the C code calls it on R's
# thread as the class pairs of a fold finish (src/units.c, through
# src/callback.c's R_UnwindProtect). Three classes in 12 rows, two folds, two
# kernel settings: 12 units. (Through kernel_tune() itself its R code takes
# minutes under the torture; conformal()'s p-values, CV+ and pairwise
# Venn-Abers reach C only through the expansion, solve and coupling entries
# above, their R code taking 25 to 50 s on three rows.)
set.seed(6)
x12 <- matrix(rnorm(24), 12, 2)
progress_problem <- path_problem(lapply(c(1, 0.5), function(g) {
  path_plan(list(x12), rep(1:3, 4), 3L, c(1, 10), rep(1, 12), matrix(1, 3, 2), c(3, g, 3, 0),
            1e-3, 1e4)
}))
progress_problem$fold <- rep(1:2, 6)

test_that("the cost path tells a progress function under gctorture, on one and two threads", {
  expected <- .Call(ns$ffi_svm_solve, progress_problem, list(threads = 1L, budget = Inf))
  for (threads in 1:2) {
    told <- 0
    got <- torture("ffi_svm_solve", progress_problem,
                   list(threads = threads, budget = Inf, progress = function(n) told <<- told + n))
    expect_equal(got, expected, tolerance = 1e-12, label = sprintf("%d thread(s)", threads))
    expect_identical(told, 12, label = sprintf("units told on %d thread(s)", threads))
  }
  # kernel_tune()'s progress function over a progressor of 4 steps
  steps <- 0
  p <- ns$kc_task_progress(function(amount) steps <<- steps + amount, steps = 4, units = 12)
  got <- torture("ffi_svm_solve", progress_problem,
                 list(threads = 2L, budget = Inf, progress = p))
  p()
  expect_equal(got, expected, tolerance = 1e-12)
  expect_identical(steps, 4)
})

test_that("an error in the progress function unwinds the cost path cleanly under gctorture", {
  # two threads: the other thread's units stop too (an error here takes R's
  # condition code under the torture, seconds; one thread is the same jump)
  err <- torture("ffi_svm_solve", progress_problem,
                 list(threads = 2L, budget = Inf, progress = function(n) stop("told enough")))
  expect_match(conditionMessage(err), "told enough")
  # and the path runs as before afterwards
  expect_equal(.Call(ns$ffi_svm_solve, progress_problem, list(threads = 2L, budget = Inf)),
               .Call(ns$ffi_svm_solve, progress_problem, list(threads = 1L, budget = Inf)),
               tolerance = 1e-12)
})

test_that("errors in the .Call entry points unwind cleanly under gctorture", {
  err <- torture("ffi_kernel_matrix", x, matrix(1, 2, 3), rbf, 1L)
  expect_match(conditionMessage(err), "kernclass internal")
  err <- torture("ffi_svm_solve", list(kind = "binary", x = x, y = y[-1], C = rep(1, 6)),
                 svm_options())
  expect_match(conditionMessage(err), "kernclass internal")
  err <- torture("ffi_svm_solve", binary(x, alpha0 = rep(2, 6)),
                 svm_options(type = "nu-classification"))
  expect_match(conditionMessage(err), "kernclass internal")
  err <- torture("ffi_svm_solve", list(kind = "costs", x = x, y = y, C = matrix(-1, 6, 2)),
                 svm_options(budget = Inf))
  expect_match(conditionMessage(err), "kernclass internal")
  err <- torture("ffi_svm_solve", binary(x), svm_options()[-1])  # no kernel
  expect_match(conditionMessage(err), "no element `kernel`")
  err <- torture("ffi_svm_solve",
                 path_problem(list(path_plan(list(x, x, x), rep(1:2, 3), 2L, 1, rep(1, 6),
                                             matrix(1, 2, 2), rbf, 1e-3, 1e4))),
                 list(threads = 1L, budget = Inf))
  expect_match(conditionMessage(err), "kernclass internal")
  err <- torture("ffi_svm_solve",
                 list(kind = "pairs", x = x,
                      pairs = list(list(rows = c(2L, 1L), y = c(1L, -1L), C = c(1, 1)))),
                 svm_options(budget = Inf))
  expect_match(conditionMessage(err), "kernclass internal")
})
