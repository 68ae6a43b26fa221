# A multi-class C-SVC's class pairs in one call (kc_svm_pairs in R/fit-svm-solve.R,
# src/svm-pairs.c): side by side on the threads, on each class's float
# kernel with itself, computed once, where the memory budget holds them,
# else each pair on its own block. Every way must give today's per-pair fits (kc_svm_binary, one
# pair at a time): the same iterations, support vectors, coefficients, b
# and decision values, bit for bit. (About 8 s in all.)

ns <- asNamespace("kernclass")

pairs_data <- function(n, classes, p = 6, seed = 1) {
  set.seed(seed)
  cl <- sample(classes, n, TRUE)
  mu <- matrix(rnorm(classes * p, sd = 1.2), classes, p)
  list(x = mu[cl, , drop = FALSE] + matrix(rnorm(n * p), n, p),
       y = factor(letters[cl], levels = letters[seq_len(classes)]))
}

# The one-vs-one problems of the solve entry (ffi_svm_solve, kind "pairs")
# for classes y at cost C: each pair's rows, its first class as +1.
pair_problems <- function(y, C) {
  pairs <- ns$kc_ovo_pairs(levels(y))
  lapply(seq_len(nrow(pairs)), function(m) {
    rows <- which(as.integer(y) %in% pairs[m, ])
    list(rows = rows, y = ifelse(as.integer(y[rows]) == pairs[m, "first"], 1L, -1L),
         C = rep(C, length(rows)))
  })
}

# today's per-pair fits, each pair alone through kc_svm_binary, as the
# coefficients, b and iterations kernel_svm keeps
per_pair <- function(x, y, kernel, gamma, cost, cachesize, w = NULL, cw = NULL) {
  k <- ns$kc_kernel(kernel, gamma, 3, 0, x)
  C <- cost * ns$kc_obs_weights(w, nrow(x))
  C <- ns$kc_class_weights(cw, y)[as.integer(y)] * C
  control <- list(kernel = k, type = "C-classification", nu = 0.5, tolerance = 1e-3,
                  max_iter = 1e7, cachesize = cachesize, shrinking = TRUE)
  pairs <- ns$kc_ovo_pairs(levels(y))
  eta <- matrix(0, nrow(x), nrow(pairs))
  rho <- it <- numeric(nrow(pairs))
  for (m in seq_len(nrow(pairs))) {
    rows <- which(as.integer(y) %in% pairs[m, ])
    r <- ns$kc_svm_binary(x, y, rows, pairs[m, "first"], C, control, rownames(pairs)[m])
    sgn <- ifelse(as.integer(y[r$rows]) == pairs[m, "first"], 1, -1)
    eta[r$rows, m] <- r$alpha * sgn
    rho[m] <- r$rho
    it[m] <- r$iterations
  }
  index <- which(rowSums(abs(eta)) > 0)
  list(coefs = unname(eta[index, , drop = FALSE]), index = index, b = -rho, iterations = it)
}

expect_same_fit <- function(fit, ref, x) {
  expect_identical(fit$index, ref$index)
  expect_identical(unname(fit$coefs), ref$coefs)
  expect_identical(unname(fit$b), ref$b)
  expect_identical(unname(fit$iterations), ref$iterations)
  # the decision values, from the fit against the plain sum over the
  # reference's support vectors
  K <- kernel_matrix(x, x[ref$index, , drop = FALSE], kernel = fit$kernel$name,
                     gamma = fit$kernel$gamma)
  dec <- matrix(unname(predict(fit, x, type = "decision")), nrow(x))
  expect_equal(dec, sweep(K %*% ref$coefs, 2L, ref$b, `+`), tolerance = 1e-10)
}

test_that("the pairs in one call give today's per-pair fits (2, 3, 10 classes, 1 and 2 threads)", {
  for (classes in c(2, 3, 10)) {
    dat <- pairs_data(40 * classes, classes, seed = classes)
    w <- runif(nrow(dat$x), 0.2, 2)
    w[1:3] <- 0  # rows left out of their pairs
    cw <- stats::setNames(seq_len(classes) / classes + 0.5, levels(dat$y))
    ref <- list(
      plain = per_pair(dat$x, dat$y, "rbf", 0.2, 10, 40),
      weights = per_pair(dat$x, dat$y, "rbf", 0.2, 3, 40, w = w),
      class = per_pair(dat$x, dat$y, "laplacian", 0.3, 2, 40, cw = cw))
    for (threads in 1:2) with_threads(threads, {
      expect_same_fit(kernel_svm(dat$x, dat$y, gamma = 0.2, cost = 10, scale = FALSE,
                                 cachesize = 40), ref$plain, dat$x)
      expect_same_fit(kernel_svm(dat$x, dat$y, gamma = 0.2, cost = 3, weights = w,
                                 scale = FALSE, cachesize = 40), ref$weights, dat$x)
      expect_same_fit(kernel_svm(dat$x, dat$y, kernel = "laplacian", gamma = 0.3, cost = 2,
                                 class.weights = cw, scale = FALSE, cachesize = 40),
                      ref$class, dat$x)
    })
  }
})

test_that("past the memory budget each pair computes its own block, with the same fits", {
  dat <- pairs_data(300, 3, seed = 5)
  ref <- per_pair(dat$x, dat$y, "rbf", 0.2, 5, 0.2)
  # the largest pair has 206 rows, its block 170 KB: a quarter of 2 MB holds
  # two blocks but not with the classes' kernels and each thread's tile
  # scratch: pairs side by side on their own blocks; a quarter of 0.8 MB one
  # block, of 0.5 MB none: one pair at a time
  for (mb in c(2, 0.8, 0.5)) for (threads in 1:2) {
    old <- options(kernclass.memory_limit = mb)
    fit <- with_threads(threads, kernel_svm(dat$x, dat$y, gamma = 0.2, cost = 5, scale = FALSE,
                                            cachesize = 0.2))
    options(old)
    expect_same_fit(fit, ref, dat$x)
  }
})

test_that("the shared kernel and the per-pair blocks give the same solutions in C", {
  dat <- pairs_data(200, 4, seed = 9)
  probs <- pair_problems(dat$y, 4)
  spec <- ns$kc_kernel_code(ns$kc_kernel("rbf", 0.3, 3, 0, dat$x))
  run <- function(budget, threads) {
    r <- pairs_solve(dat$x, probs, spec, threads, budget)
    # the rows each pair computed itself: none from a shared kernel
    expect_true(all(vapply(r$fits, `[[`, 0, "rows_computed") == if (r$shared) 0 else
                      lengths(lapply(probs, `[[`, "rows"))))
    r$fits <- lapply(r$fits, function(f) f[names(f) != "rows_computed"])
    r
  }
  shared <- run(Inf, 2L)
  expect_true(shared$shared)
  for (b in list(run(Inf, 1L), run(0, 1L), run(0, 2L), run(2 * 4 * 120^2, 2L))) {
    expect_identical(b$fits, shared$fits)
  }
  expect_false(run(0, 2L)$shared)
  expect_false(run(2 * 4 * 120^2, 2L)$shared)  # two blocks, not the classes' kernels too
  # a pair whose side is not a whole class (a row left out of one pair
  # only): nothing shared, each pair's own block
  probs[[2]] <- lapply(probs[[2]], `[`, -1L)
  odd <- run(Inf, 2L)
  expect_false(odd$shared)
  expect_identical(odd$fits, run(0, 1L)$fits)
})

test_that("classes of several tiles share their kernels with the same fits", {
  # 3 classes of about 230 rows (two tiles of 128 each, the class blocks
  # packed, mirrored across tiles); about 1 s
  dat <- pairs_data(700, 3, seed = 13)
  ref <- per_pair(dat$x, dat$y, "rbf", 0.1, 5, 40)
  for (threads in 1:2) {
    fit <- with_threads(threads, kernel_svm(dat$x, dat$y, gamma = 0.1, cost = 5, scale = FALSE,
                                            cachesize = 40))
    expect_same_fit(fit, ref, dat$x)
  }
  probs <- pair_problems(dat$y, 5)
  spec <- ns$kc_kernel_code(ns$kc_kernel("rbf", 0.1, 3, 0, dat$x))
  shared <- pairs_solve(dat$x, probs, spec, 2L, Inf)
  alone <- pairs_solve(dat$x, probs, spec, 2L, 0)
  expect_true(shared$shared)
  expect_false(alone$shared)
  drop_rows <- function(f) lapply(f, function(r) r[names(r) != "rows_computed"])
  expect_identical(drop_rows(shared$fits), drop_rows(alone$fits))
})

# Platt's folds solved with the pairs (kernel_svm(probability = TRUE)): each
# fold's SVM is today's (kc_svm_binary on the fold's other rows) and its
# decision values the plain sum over its support vectors of the kernel values
# as the float store holds them (kc_kernel_matrix_float); against the double
# kernel values (today's kc_svm_platt) they differ by that rounding only. (About 1 s.)
test_that("Platt's folds from the pairs' kernel blocks: today's fold fits, float kernel values", {
  dat <- pairs_data(240, 4, seed = 21)
  C <- runif(nrow(dat$x), 0.5, 4)
  k <- ns$kc_kernel("rbf", 0.25, 3, 0, dat$x)
  control <- list(kernel = k, type = "C-classification", nu = 0.5, tolerance = 1e-3,
                  max_iter = 1e7, cachesize = 40, shrinking = TRUE)
  pairs <- ns$kc_ovo_pairs(levels(dat$y))
  probs <- pair_problems(dat$y, 1)
  for (m in seq_along(probs)) probs[[m]]$C <- C[probs[[m]]$rows]
  set.seed(4)
  fold <- ns$kc_platt_folds(lapply(probs, `[[`, "rows"))
  fold[[1]][fold[[1]] == 5L] <- 4L  # a fold with no rows
  # a fold whose other rows are all of one class: +1 for its rows
  pos <- probs[[2]]$y > 0
  fold[[2]] <- ifelse(pos, 2L, 1L)
  for (m in seq_along(probs)) probs[[m]]$fold <- fold[[m]]
  spec <- ns$kc_kernel_code(k)
  runs <- list(pairs_solve(dat$x, probs, spec, 2L, Inf),
               pairs_solve(dat$x, probs, spec, 1L, 0))
  expect_true(runs[[1]]$shared)
  expect_false(runs[[2]]$shared)
  drop_rows <- function(f) lapply(f, function(r) r[names(r) != "rows_computed"])
  expect_identical(drop_rows(runs[[1]]$fits), drop_rows(runs[[2]]$fits))
  for (m in seq_along(probs)) {
    rows <- probs[[m]]$rows
    dec <- runs[[1]]$fits[[m]]$dec
    expect_false(runs[[1]]$fits[[m]]$fold_bad)
    for (f in 1:5) {
      test <- fold[[m]] == f
      if (!any(test)) next
      train <- rows[!test]
      if (length(unique(probs[[m]]$y[!test])) == 1L) {
        expect_identical(dec[test], rep(probs[[m]]$y[!test][1] * 1, sum(test)))
        next
      }
      r <- ns$kc_svm_binary(dat$x, dat$y, train, pairs[m, "first"], C, control)
      sv <- r$alpha > 0
      coef <- r$alpha[sv] * ifelse(as.integer(dat$y[train[sv]]) == pairs[m, "first"], 1, -1)
      K <- kernel_matrix(dat$x[rows[test], , drop = FALSE], dat$x[train[sv], , drop = FALSE],
                         kernel = "rbf", gamma = 0.25)
      # the store's values: the float tiles' (or the doubles rounded, in "double")
      Ks <- ns$kc_kernel_matrix_float(dat$x[rows[test], , drop = FALSE],
                                      dat$x[train[sv], , drop = FALSE], k)
      expect_equal(dec[test], drop(Ks %*% coef) - r$rho, tolerance = 1e-12)
      expect_equal(dec[test], drop(as.matrix(K) %*% coef) - r$rho, tolerance = 1e-6)
    }
  }
  # kernel_svm: the sigmoids of today's kc_svm_platt (the same folds from the
  # same seed, each fold refitted alone) up to that rounding
  y <- dat$y
  for (threads in 1:2) {
    set.seed(11)
    fit <- with_threads(threads, kernel_svm(dat$x, y, gamma = 0.25, cost = 3, scale = FALSE,
                                            probability = TRUE, cachesize = 40))
    set.seed(11)
    control$cost <- 3
    rows <- lapply(seq_len(nrow(pairs)), function(m) which(as.integer(y) %in% pairs[m, ]))
    ab <- ns$kc_svm_platt(dat$x, y, rows, pairs[, "first"], rep(3, nrow(dat$x)), control)
    expect_equal(unname(fit$probA), ab[1, ], tolerance = 1e-6)
    expect_equal(unname(fit$probB), ab[2, ], tolerance = 1e-6)
  }
  # folds given back (a fold's solution not finite): kc_svm_platt refits
  # the same folds alone
  r <- list(x = dat$x, y = y)
  fits <- lapply(rows, function(rr) list(rows = rr))
  set.seed(11)
  attr(fits, "platt") <- list(fold = ns$kc_platt_folds(rows), ab = NULL)
  expect_identical(ns$kc_repr_svm_platt.kc_exact(r, fits, pairs, rep(3, nrow(dat$x)), control),
                   ab)
})

test_that("past the budget the classes' blocks go through a cache, with the same fits", {
  # 6 classes of about 60 rows: budgets from too small for the cache (each
  # pair its own block) through a cache of a few class blocks (batches of
  # pairs, least recently used blocks evicted) to all of them at once, with
  # and without Platt's folds; every way the same fits, and no pair computes
  # a kernel row where the classes' blocks serve it. (About 3 s.)
  dat <- pairs_data(360, 6, seed = 2)
  probs <- pair_problems(dat$y, 2)
  spec <- ns$kc_kernel_code(ns$kc_kernel("rbf", 0.3, 3, 0, dat$x))
  set.seed(3)
  fold <- ns$kc_platt_folds(lapply(probs, `[[`, "rows"))
  with_folds <- Map(function(p, f) c(p, list(fold = f)), probs, fold)
  drop_rows <- function(f) lapply(f, function(r) r[names(r) != "rows_computed"])
  for (pr in list(probs, with_folds)) {
    ref <- pairs_solve(dat$x, pr, spec, 2L, Inf)
    expect_identical(ref$batches, 1L)
    batches <- integer(0)
    for (threads in 1:2) for (b in seq(2e5, 1.2e6, by = 5e4)) {
      r <- pairs_solve(dat$x, pr, spec, threads, b)
      expect_identical(drop_rows(r$fits), drop_rows(ref$fits))
      expect_identical(r$shared, r$batches > 0L)
      computed <- vapply(r$fits, `[[`, 0, "rows_computed")
      expect_true(all(computed == if (r$shared) 0 else lengths(lapply(pr, `[[`, "rows"))))
      batches <- c(batches, r$batches)
    }
    expect_true(any(batches == 0L) && any(batches == 1L) && any(batches > 1L))
  }
})
