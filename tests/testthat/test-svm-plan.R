# The SVM solve's planner (src/svm-plan.c, through kc_svm_plan()): which
# kernel store each problem gets from its size, its type and where its rows
# come from. Whichever it picks, the model is the same (test-svm.R's store
# property test); here the choice itself.

ns <- asNamespace("kernclass")

test_that("the solve's planner picks each problem's store from its size, type and source", {
  # (src/svm-plan.c) the whole float kernel where cachesize holds it, for C-
  # and nu-SVC on dense or sparse rows; else the LRU cache (the one-class
  # SVM, which asks for few rows, and kernel values or functions); in a
  # cost path a kept store where the budget holds it. The bytes: n x n
  # floats and n flags.
  ns <- asNamespace("kernclass")
  x <- matrix(rnorm(40), 20)
  plan <- function(x, type = "C-classification", mb = 1, budget = NULL) {
    kind <- if (is.null(budget)) "binary" else "costs"
    ns$kc_svm_plan(list(kind = kind, x = x),
                   list(kernel = c(3, 1, 3, 0), type = type, cachesize = mb, budget = budget))
  }
  bytes <- 20 * 20 * 4 + 20
  expect_identical(plan(x), list(store = "whole", bytes = bytes))
  expect_identical(plan(ns$kc_as_csr(x), "nu-classification")$store, "whole")
  expect_identical(plan(x, mb = (bytes - 1) / 2^20)$store, "cache")
  expect_identical(plan(x, "one-classification")$store, "cache")
  given <- ns$kc_as_precomputed(kernel_matrix(x, kernel = "rbf"))
  expect_identical(plan(given, mb = 100)$store, "cache")
  # a cost path (kind "costs"): one store for all its costs where the
  # tuning budget holds it, whatever cachesize says; else the cache
  expect_identical(plan(x, budget = bytes), list(store = "kept", bytes = bytes))
  expect_identical(plan(x, mb = 1e-6, budget = bytes), list(store = "kept", bytes = bytes))
  expect_identical(plan(x, budget = bytes - 1)$store, "cache")
  # the class pairs: side by side on one store where they are C-SVC on
  # dense rows with a distance kernel and cachesize holds the largest pair
  pairs <- function(x, type = "C-classification", kernel = c(3, 1, 3, 0), mb = 1) {
    ns$kc_svm_plan(list(kind = "pairs", x = x, pairs = list(list(rows = 1:20), list(rows = 1:10))),
                   list(kernel = kernel, type = type, cachesize = mb))$store
  }
  expect_identical(pairs(x), "pairs")
  expect_identical(pairs(x, mb = (bytes - 1) / 2^20), "apart")
  expect_identical(pairs(x, "nu-classification"), "apart")
  expect_identical(pairs(x, kernel = c(1, 1, 3, 0)), "apart")  # linear: centred per pair
  expect_identical(pairs(ns$kc_as_csr(x)), "apart")
})
