# Data sets shared by the tests. Every one comes from base R or from what the
# current CRAN release of a package ships; tools/check-data.R checks that
# each name the tests take from another package is still there.

# The Pima Indians diabetes data of MASS (a recommended package): 532
# complete rows, 7 numeric inputs and the factor `type` (No / Yes).
pima_data <- function() {
  skip_if_not_installed("MASS")
  rbind(MASS::Pima.tr, MASS::Pima.te)
}

# Two classes in p standard normal inputs, separated by a curved boundary
# with noise (the approximations' tests): list(x, y).
two_class <- function(n = 120, p = 3, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p)
  y <- factor(ifelse(x[, 1] + 0.5 * x[, 2]^2 + rnorm(n, sd = 0.5) > 0.4, "a", "b"))
  list(x = x, y = y)
}

# n rows of p standard normal inputs in `classes` classes (letters, drawn at
# random), the first input moved by the class's number (the cost paths'
# tests): list(x, y), with `new` (n_new rows of the same inputs) where
# n_new > 0.
shifted_classes <- function(n, classes, p, seed = 1, n_new = 0) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p)
  y <- factor(sample(letters[seq_len(classes)], n, TRUE))
  x[, 1] <- x[, 1] + as.integer(y)
  if (n_new > 0) list(x = x, y = y, new = matrix(rnorm(n_new * p), n_new, p)) else list(x = x, y = y)
}

# Two classes "a" and "b" of n / 2 rows each in two standard normal inputs,
# moved by +shift and -shift (the observation weights' tests): list(x, y).
two_shifted <- function(n, shift) {
  x <- rbind(matrix(stats::rnorm(n), n / 2) + shift, matrix(stats::rnorm(n), n / 2) - shift)
  list(x = x, y = factor(rep(c("a", "b"), each = n / 2)))
}

# The first `n` rows of the data frame df with a missing value in row `row`
# of column `column` (the rows predict() must give NA for).
rows_with_na <- function(df, n = 5, row = 2, column = "X1") {
  new <- df[seq_len(n), ]
  new[[column]][row] <- NA
  new
}

# object as saveRDS() then readRDS() give it back.
rds_round_trip <- function(object) {
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(object, path)
  readRDS(path)
}

# One binary problem through the SVM's solve entry (ffi_svm_solve), on the
# store `plan` asks for: "whole" (every row first, where cachesize holds
# them: kind "binary"), "cache" (an LRU cache of cachesize MB: a cost path,
# kind "costs", with no budget for a store) or "kept" (a cost path's store).
smo_solve <- function(x, y, C, spec, plan = "whole", cachesize = 100, threads = 1L,
                      shrinking = TRUE, type = "C-classification", alpha0 = NULL,
                      tolerance = 1e-3, max_iter = 1e6, test = NULL) {
  options <- list(kernel = spec, type = type, tolerance = tolerance, max_iter = max_iter,
                  cachesize = cachesize, shrinking = shrinking, threads = threads,
                  budget = switch(plan, whole = NULL, cache = 0, kept = Inf))
  solve <- asNamespace("kernclass")$ffi_svm_solve
  if (plan == "whole") {
    return(.Call(solve, list(kind = "binary", x = x, y = y, C = C, alpha0 = alpha0, test = test),
                 options))
  }
  r <- .Call(solve, list(kind = "costs", x = x, y = y, C = matrix(C), alpha0 = alpha0), options)
  c(r$fits[[1L]][setdiff(names(r$fits[[1L]]), "start")], plan = r$plan)
}

# The SVM's solve entry on the class pairs of one fit (ffi_svm_solve, kind
# "pairs"), with a cachesize that holds every pair.
pairs_solve <- function(x, problems, spec, threads, budget, tolerance = 1e-3, max_iter = 1e7) {
  .Call(asNamespace("kernclass")$ffi_svm_solve, list(kind = "pairs", x = x, pairs = problems),
        list(kernel = spec, type = "C-classification", tolerance = tolerance,
             max_iter = max_iter, cachesize = 1e6, shrinking = TRUE, threads = threads,
             budget = budget))
}

# The SVM's solve entry on a shared cost path (ffi_svm_solve, kind "path"):
# the plans' pairs on up to `threads` threads.
path_solve <- function(plans, fold, run, threads, kept = NULL, budget = Inf) {
  .Call(asNamespace("kernclass")$ffi_svm_solve,
        list(kind = "path", plans = plans, fold = fold, run = run, kept = kept),
        list(threads = threads, budget = budget))
}

# One plan of the shared SVM path as the solve entry (ffi_svm_solve, kind
# "path") takes it (kc_svm_shared_plan's fields).
path_plan <- function(x, y, nclass, cost, w, cw, spec, tolerance = 1e-3, max_iter = 1e7,
                      shrinking = TRUE) {
  list(x = x, y = y, nclass = nclass, cost = cost, w = w, cw = cw, spec = spec,
       tolerance = tolerance, max_iter = max_iter, shrinking = shrinking)
}

# iris's four measurements as a matrix, and its classes.
iris_x <- as.matrix(iris[, 1:4])
iris_y <- iris$Species

# Three classes in 3 inputs, the last class rare (6 of n rows).
rare_class <- function(n = 300, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * 3), n, 3)
  y <- factor(ifelse(x[, 1] + 0.5 * x[, 2] > 0, "a", "b"), levels = c("a", "b", "r"))
  y[seq_len(6)] <- "r"
  list(x = x, y = y)
}
