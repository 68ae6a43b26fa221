# Deep check (bash tools/check.sh gctorture): every .Call entry point of
# kernclass, reached through the exported functions on tiny data, under
# gctorture(TRUE), which runs the garbage collector at every allocation. An
# object the C code forgot to PROTECT is then collected while still in use:
# the run crashes or a result differs from the one computed without torture.
# The bad calls check that the error paths unwind cleanly too. Then
# tools/gctorture-entries.R, the quick check: each entry point called
# directly (testthat expectations). Ends with the line "N passed, N failed"
# (its expectations and each case here), which .ci/run adds to the tests'.
library(kernclass)
options(kernclass.threads = 2L)

set.seed(7)
x <- matrix(rnorm(16 * 2), 16, 2)
y3 <- factor(rep(c("a", "b", "c"), length.out = 16))
y2 <- factor(rep(c("neg", "pos"), length.out = 16))
x[y2 == "pos", 1] <- x[y2 == "pos", 1] + 2
new <- x[1:5, ] + 0.1
many <- x[rep(1:16, 9), ] + 0.1  # more rows than a tile: the packed path
# models fitted without torture, whose prediction or leave-one-out sums are
# tortured below
parzen <- kernel_parzen(x, y3, scale = FALSE)
set.seed(3)  # Platt's cross-validation folds
platt <- kernel_svm(x, y3, probability = TRUE)

# Each entry: an expression whose value depends on the named .Call entry point.
cases <- list(
  ffi_kernel_matrix = quote(list(kernel_matrix(x, new, kernel = "rbf"),
                                 kernel_matrix(x, kernel = "polynomial", degree = 2))),
  ffi_within_sums = quote(list(kernel_means(x, y3, kernel = "laplace")$center_norms,
                               # a kernel set: three gammas from one tile, two threads
                               .Call(kernclass:::ffi_within_sums, many, rep(1:3, 48), 3L,
                                     c(3, 0.1, 3, 0, 3, 1, 3, 0, 3, 4, 3, 0), 2L))),
  # the leave-one-out sums of kernel_cv(folds = "loo") on a model fitted
  # before (through kernel_cv() its R code took 80 s under torture)
  ffi_loo_sums = quote(kernclass:::kc_loo_sums(parzen)),
  ffi_kernel_expansion = quote(list(predict(kernel_means(x, y3), new, type = "decision"),
                                    predict(kernel_parzen(x, y2), many, type = "prob"),
                                    .Call(kernclass:::ffi_kernel_expansion, many, x,
                                          cbind(y2 == "neg", y2 == "pos") + 0,
                                          c(2, 0.5, 2, 1, 2, 2, 2, 1), 2L))),
  # the SVM's one solve entry (ffi_svm_solve): binary problems (two classes
  # on a whole store; nu-SVC; the one-class SVM on the cache)
  "ffi_svm_solve binary" = quote(list(predict(kernel_svm(x, y2, kernel = "rbf", cost = 10), new,
                                              type = "decision"),
                                      predict(kernel_svm(x, y3, type = "nu-classification",
                                                         nu = 0.5), new),
                                      predict(kernel_svm(x, type = "one-classification",
                                                         nu = 0.3), new, type = "decision"))),
  # (directly: through kernel_tune() its R code took 85 s under torture)
  # a cost path: two kernel settings in one call, their pairs side by side
  # on two threads
  "ffi_svm_solve path" = quote(kernclass:::kc_svm_solve(
    list(kind = "path", plans = lapply(c(1, 0.5), function(g) {
      list(x = list(x), y = as.integer(y3), nclass = 3L, cost = c(1, 10), w = rep(1, 16),
           cw = matrix(1, 3, 2), spec = c(3, g, 3, 0), tolerance = 1e-3, max_iter = 100,
           shrinking = TRUE)
    }), fold = rep(1:2, each = 8), run = 1:2),
    list(threads = 2L, budget = Inf))),
  # three classes' pairs side by side on two threads: on one shared kernel,
  # and past a budget of 0 each on its own block
  "ffi_svm_solve pairs" = quote(list(predict(kernel_svm(x, y3, kernel = "laplacian", cost = 10),
                                             new, type = "decision"),
                                     kernclass:::kc_svm_solve(
    list(kind = "pairs", x = x, pairs = lapply(list(1:2, c(1L, 3L), 2:3), function(p) {
      rows <- which(as.integer(y3) %in% p)
      list(rows = rows, C = rep(1, length(rows)),
           y = ifelse(as.integer(y3[rows]) == p[1], 1L, -1L))
    })),
    list(kernel = c(3, 1, 3, 0), type = "C-classification", tolerance = 1e-3, max_iter = 100,
         cachesize = 1, shrinking = TRUE, threads = 2L, budget = 0)))),
  # the per-fold cost path's warm start and kept store, and Platt's
  # held-out decision values (directly, as the path)
  "ffi_svm_solve warm" = quote(kernclass:::kc_svm_solve(
    list(kind = "binary", x = x[1:6, ], y = rep(c(1L, -1L), 3), C = c(2, 2, 2, 2, 2, Inf),
         warm = list(alpha = c(1, 0.5, 1, 0, 0.2, 1), C = rep(1, 6)), test = new),
    list(kernel = c(3, 1, 3, 0), type = "C-classification", tolerance = 1e-3, max_iter = 100,
         cachesize = 1, shrinking = TRUE, threads = 1L, keep = Inf))),
  ffi_svm_plan = quote(kernclass:::kc_svm_plan(
    list(kind = "path", n = 16, nclass = 3L, m = 10, t = 4, trained = 12, nx = 3L, nrun = 3L,
         inputs = 384), list(budget = 1e4))),
  ffi_threshold_search = quote(list(threshold_search(x[, 1], y2),
                                    predict(kernel_bayes(x, y2, type = 3), new,
                                            type = "decision"))),
  ffi_kernel_table = quote(.Call(kernclass:::ffi_kernel_table)),
  ffi_enums = quote(.Call(kernclass:::ffi_enums)),
  ffi_kmeanspp = quote({
    set.seed(4)
    kernel_svm(x, y3, approx = nystrom(m = 6))
  }),
  ffi_threads = quote(kernclass:::kc_max_threads()),
  # a model with Platt's sigmoids fitted before (its folds' fits, 39 s under
  # torture, reach ffi_svm_solve, which the fits above torture)
  ffi_pairwise_coupling = quote(predict(platt, new, type = "prob")),
  ffi_column_moments = quote(kernel_means(x, y3, scale = TRUE)$scaling),
  ffi_scale_columns = quote(predict(kernel_means(x, y3, scale = TRUE), new)),
  ffi_count_nonfinite = quote(tryCatch(kernel_matrix(rbind(x, NA)), error = conditionMessage)),
  ffi_pm1 = quote(threshold_search(x[, 2], y2)),
  ffi_feature_sums = quote({
    set.seed(2)  # the landmarks and the error's pairs
    predict(kernel_means(x, y3, approx = nystrom(m = 8)), new, type = "prob")
  }),
  ffi_feature_product = quote({
    set.seed(2)
    predict(kernel_bayes(x, y3, type = 1, approx = random_fourier(m = 20)), new, type = "prob")
  }),
  ffi_feature_store = quote({
    set.seed(2)
    predict(kernel_svm(x, y2, approx = nystrom(m = 6)), new, type = "decision")
  }),
  ffi_linear_svm = quote({
    set.seed(2)
    predict(kernel_svm(x, y3, approx = random_fourier(m = 12)), new, type = "decision")
  }),
  ffi_store_product = quote({
    set.seed(2)  # Platt's folds, decision values from the store
    predict(kernel_svm(x, y3, probability = TRUE, approx = nystrom(m = 8)), new, type = "prob")
  }),
  ffi_kernel_diag = quote({  # the sparse, precomputed and R-function sources
    xs <- kernclass:::kc_as_csr(x)
    rbf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.5)
    list(predict(kernel_svm(xs, y3, gamma = 0.5), kernclass:::kc_as_csr(new), type = "decision"),
         predict(kernel_means(kernel_matrix(x, kernel = "rbf", gamma = 0.5), y3,
                              kernel = "precomputed"),
                 kernel_matrix(new, x, kernel = "rbf", gamma = 0.5), type = "decision"),
         predict(kernel_svm(x, y3, kernel = rbf, cost = 10), new, type = "decision"))
  })
)
# Wrong calls straight to the entry points: each must be their R error.
bad <- list(
  quote(.Call(kernclass:::ffi_kernel_matrix, "a", NULL, c(3, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_kernel_expansion, x, x, matrix(1, 3, 1), c(3, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_within_sums, x, rep(9L, 16), 2L, c(3, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_within_sums, x, rep(1:2, 8), 2L, c(3, 1, 3, 0, 4, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_loo_sums, x, rep(9L, 16), 2L, c(3, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_svm_solve, list(kind = "binary", x = x, y = rep(1L, 15),
                                              C = rep(1, 16)),
              list(kernel = c(3, 1, 3, 0), type = "C-classification", tolerance = 1e-3,
                   max_iter = 100, cachesize = 1, shrinking = TRUE, threads = 1L))),
  quote(.Call(kernclass:::ffi_svm_solve,
              list(kind = "path", plans = list(list(x = x, y = rep(1L, 16), nclass = 2L, cost = 1,
                                                    w = rep(1, 16), cw = matrix(1, 2, 1),
                                                    spec = c(3, 1, 3, 0), tolerance = 1e-3,
                                                    max_iter = 100, shrinking = TRUE)),
                   fold = rep(1L, 16), run = 1L),
              list(threads = 1L, budget = Inf))),
  quote(.Call(kernclass:::ffi_svm_solve,
              list(kind = "pairs", x = x,
                   pairs = list(list(rows = 1:2, y = c(1L, 2L), C = c(1, 1)))),
              list(kernel = c(3, 1, 3, 0), type = "C-classification", tolerance = 1e-3,
                   max_iter = 100, cachesize = 1, shrinking = TRUE, threads = 1L, budget = Inf))),
  quote(.Call(kernclass:::ffi_svm_plan, list(kind = "path", n = -1), list())),
  quote(.Call(kernclass:::ffi_svm_solve,
              list(kind = "binary", x = x[1:2, ], y = c(1L, 0L), C = c(2, 2),
                   warm = list(alpha = c(1, 0), C = c(1, 1))),
              list(kernel = c(3, 1, 3, 0), type = "C-classification", tolerance = 1e-3,
                   max_iter = 100, cachesize = 1, shrinking = TRUE, threads = 1L))),
  quote(.Call(kernclass:::ffi_threshold_search, c(1, 2), 1L)),
  quote(.Call(kernclass:::ffi_pairwise_coupling, matrix(2, 2, 3), 3L, 1L)),
  quote(.Call(kernclass:::ffi_feature_sums, x, rep(1L, 16), 1L, list(type = 3L), c(3, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_feature_product, x, matrix(1, 3, 1),
              list(type = 2L, freq = matrix(1, 2, 2), phase = c(0, 1)), c(3, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_feature_store, x, list(type = 1L, landmarks = x, proj = diag(3)),
              c(3, 1, 3, 0), 1L)),
  quote(.Call(kernclass:::ffi_store_product, as.raw(1:3), 1L, 1L, matrix(1))),
  quote(.Call(kernclass:::ffi_linear_svm, as.raw(1:8), 1L, 1:2, c(1L, 2L), c(1, 1), 0.1, 10, TRUE))
)

reference <- lapply(cases, eval)
failures <- character()
for (name in names(cases)) {
  t0 <- proc.time()[["elapsed"]]
  gctorture(TRUE)
  got <- eval(cases[[name]])
  gctorture(FALSE)
  ok <- isTRUE(all.equal(got, reference[[name]], tolerance = 1e-12))
  cat(sprintf("gctorture: %-22s %s (%.0f s)\n", name, if (ok) "ok" else "DIFFERS",
              proc.time()[["elapsed"]] - t0))
  if (!ok) failures <- c(failures, name)
}
for (call in bad) {
  gctorture(TRUE)
  err <- tryCatch({ eval(call); NULL }, error = function(e) e)
  gctorture(FALSE)
  ok <- inherits(err, "error") && grepl("^kernclass internal", conditionMessage(err))
  cat(sprintf("gctorture: bad call, %-17s %s\n", as.character(call[[2]][[3]]),
              if (ok) "an error" else "NOT the expected error"))
  if (!ok) failures <- c(failures, deparse(call[[2]]))
}
checked <- length(cases) + length(bad)
if (length(failures)) {
  cat("gctorture: failed:", paste(failures, collapse = ", "), "\n")
} else {
  cat("gctorture: all entry points ok\n")
}

# The entry points called directly, with the test suite's helpers (path_plan)
library(testthat)
entries_env <- new.env(parent = asNamespace("kernclass"))
invisible(source_test_helpers("tests/testthat", env = entries_env))
entries <- as.data.frame(test_file("tools/gctorture-entries.R", env = entries_env,
                                   load_helpers = FALSE, stop_on_failure = FALSE,
                                   reporter = SummaryReporter$new(show_praise = FALSE)))
passed <- sum(entries$passed) + checked - length(failures)
failed <- sum(entries$failed) + sum(entries$error) + sum(entries$skipped) + length(failures)
cat(sprintf("gctorture: %d expectations of gctorture-entries.R, %d cases here\n",
            sum(entries$nb), checked))
cat(sprintf("%d passed, %d failed\n", passed, failed))
if (failed > 0) quit(status = 1)
