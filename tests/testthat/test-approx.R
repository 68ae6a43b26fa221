# Approximate classifiers (R/repr-approx.R, src/features.c, src/linear.c), each
# formula against a plain-R transcription, and against the exact models
# where the approximation is exact (Nystrom with every training row a
# landmark: z(x)'z(y) = k(x, y) on the training points).

ns <- asNamespace("kernclass")

# Plain-R features of a fitted model's map, on scaled rows xs.
r_features <- function(fit, xs) {
  map <- fit$approx$map
  k <- fit$kernel
  if (map$type == 1L) {
    kernel_matrix(xs, map$landmarks, kernel = k$name, gamma = k$gamma, degree = k$degree,
                  coef0 = k$coef0) %*% map$proj
  } else {
    m <- ncol(map$freq)
    sqrt(2 / m) * cos(xs %*% map$freq + rep(map$phase, each = nrow(xs)))
  }
}

test_that("nystrom() and random_fourier() check their arguments and print", {
  expect_error(nystrom(m = 0), class = "kernclass_input_error")
  expect_error(nystrom(m = 2.5), class = "kernclass_input_error")
  expect_error(nystrom(landmarks = "random"), class = "kernclass_input_error")
  expect_error(random_fourier(m = -1), class = "kernclass_input_error")
  expect_output(print(nystrom(m = 50, landmarks = "uniform")),
                "Nystrom features \\(m = 50, uniform")
  expect_output(print(random_fourier()), "Random Fourier features \\(m = auto\\)")
  d <- two_class()
  expect_error(kernel_means(d$x, d$y, approx = 300), class = "kernclass_input_error")
})

test_that("Nystrom features are the plain-R pivoted Cholesky map (eigen where K_mm is indefinite)", {
  d <- two_class()
  for (kern in c("rbf", "laplace", "polynomial", "linear", "sigmoid")) {
    set.seed(11)
    fit <- kernel_means(d$x, d$y, kernel = kern, approx = nystrom(m = 20, landmarks = "uniform"))
    xs <- fit$x
    set.seed(11)
    idx <- sample.int(nrow(xs), 20)
    L <- xs[idx, ]
    Kmm <- kernel_matrix(L, kernel = kern, gamma = fit$kernel$gamma)
    Knm <- kernel_matrix(xs, L, kernel = kern, gamma = fit$kernel$gamma)
    got <- ns$kc_features(fit$approx, xs)
    expect_equal(got, r_features(fit, xs), tolerance = 1e-10, label = kern)
    if (kern == "sigmoid") {
      # indefinite: the eigen map, eigenvalues above 1e-8 of the largest
      e <- eigen(Kmm, symmetric = TRUE)
      keep <- e$values > 1e-8 * max(e$values)
      expect_lt(min(e$values), -1e-8 * max(diag(Kmm)))
      expect_equal(fit$approx$map$index, idx)
      Z <- Knm %*% e$vectors[, keep] %*% diag(1 / sqrt(e$values[keep]))
      expect_equal(ncol(got), sum(keep), label = kern)
      # the eigenvectors' signs are LAPACK's: compare the kernel z(x)z(y)'
      expect_equal(tcrossprod(got), tcrossprod(Z), tolerance = 1e-8, label = kern)
      next
    }
    # the landmarks kept are those whose residual variance given the ones
    # kept before it (greedily the largest) exceeds 1e-8 of the largest k(l, l)
    kept <- integer()
    res <- diag(Kmm)
    repeat {
      res[kept] <- -Inf
      j <- which.max(res)
      if (!(res[j] > 1e-8 * max(diag(Kmm)))) break
      kept <- c(kept, j)
      res <- diag(Kmm) - vapply(seq_len(20), function(i) {
        drop(Kmm[i, kept] %*% solve(Kmm[kept, kept], Kmm[kept, i]))
      }, numeric(1))
    }
    expect_setequal(fit$approx$map$index, idx[kept])
    expect_equal(ncol(got), length(kept), label = kern)
    # z(x)'z(y) = k(x)' K_kept^-1 k(y), and proj upper triangular
    expect_equal(tcrossprod(got), Knm[, kept] %*% solve(Kmm[kept, kept], t(Knm[, kept])),
                 tolerance = 1e-7, label = kern)
    proj <- fit$approx$map$proj
    expect_true(all(proj[lower.tri(proj)] == 0), label = kern)
  }
  # the linear kernel in 3 columns has rank 3: the cut-off drops the rest
  fit <- kernel_means(d$x, d$y, kernel = "linear", approx = nystrom(m = 20))
  expect_equal(fit$approx$rank, 3L)
})

test_that("the Nystrom map's R^-1 is backsolve()'s, across the blocks and threads", {
  set.seed(7)
  for (r in c(1L, 5L, 300L, 600L)) {
    R <- matrix(rnorm(r * r), r, r)
    R[lower.tri(R)] <- 0
    diag(R) <- 1 + abs(rnorm(r))
    for (threads in 1:2) {
      expect_equal(.Call(ns$ffi_triangular_inverse, R, threads), backsolve(R, diag(r)),
                   tolerance = 1e-10, label = paste(r, threads))
    }
  }
  expect_error(.Call(ns$ffi_triangular_inverse, matrix(1, 2, 2), 1L), "upper triangular")
})

test_that("with every row a landmark, Nystrom reproduces the kernel", {
  d <- two_class(n = 60)
  set.seed(2)
  fit <- kernel_means(d$x, d$y, gamma = 0.3, approx = nystrom(m = 60, landmarks = "uniform"))
  Z <- ns$kc_features(fit$approx, fit$x)
  expect_equal(tcrossprod(Z), kernel_matrix(fit$x, kernel = "rbf", gamma = 0.3), tolerance = 1e-7)
  expect_lt(fit$approx$error[["rel_frobenius"]], 1e-7)
})

test_that("k-means++ landmarks are distinct rows, spread over clusters, reproducible", {
  set.seed(4)
  centres <- matrix(c(0, 0, 10, 10, -10, 10), 3, 2, byrow = TRUE)
  x <- centres[rep(1:3, each = 40), ] + matrix(rnorm(240, sd = 0.1), 120, 2)
  y <- factor(rep(c("a", "b"), 60))
  for (seed in 1:5) {
    set.seed(seed)
    fit <- kernel_means(x, y, scale = FALSE, gamma = 0.1, approx = nystrom(m = 3))
    idx <- fit$approx$map$index
    expect_equal(sort(unique((idx - 1) %/% 40)), 0:2)  # one landmark per cluster
  }
  set.seed(9)
  a <- kernel_means(x, y, approx = nystrom(m = 10))
  set.seed(9)
  b <- kernel_means(x, y, approx = nystrom(m = 10))
  expect_identical(a$approx$map$index, b$approx$map$index)
  expect_false(anyDuplicated(a$approx$map$index) > 0)
})

test_that("Fourier features are the plain-R sqrt(2/m) cos(xW + b), W from the spectral density", {
  d <- two_class(n = 30, p = 2)
  set.seed(5)
  fit <- kernel_means(d$x, d$y, gamma = 0.7, approx = random_fourier(m = 50))
  set.seed(5)
  W <- matrix(rnorm(2 * 50), 2, 50) * sqrt(2 * 0.7)
  b <- runif(50, 0, 2 * pi)
  Z <- sqrt(2 / 50) * cos(fit$x %*% W + rep(b, each = 30))
  expect_equal(ns$kc_features(fit$approx, fit$x), Z, tolerance = 1e-12)
  set.seed(5)
  fit <- kernel_means(d$x, d$y, kernel = "laplace", gamma = 0.7, approx = random_fourier(m = 50))
  set.seed(5)
  W <- matrix(rnorm(2 * 50), 2, 50)
  W <- W * rep(0.7 / abs(rnorm(50)), each = 2)
  b <- runif(50, 0, 2 * pi)
  Z <- sqrt(2 / 50) * cos(fit$x %*% W + rep(b, each = 30))
  expect_equal(ns$kc_features(fit$approx, fit$x), Z, tolerance = 1e-12)
})

test_that("Fourier features approach exp(-g||x-y||^2) and the Euclidean exp(-g||x-y||)", {
  set.seed(6)
  x <- matrix(rnorm(40 * 3), 40, 3)
  y <- factor(rep(c("a", "b"), 20))
  for (kern in c("rbf", "laplace")) {
    set.seed(7)
    fit <- kernel_means(x, y, kernel = kern, gamma = 0.4, scale = FALSE,
                        approx = random_fourier(m = 40000))
    Z <- ns$kc_features(fit$approx, x)
    D <- as.matrix(dist(x))
    exact <- if (kern == "rbf") exp(-0.4 * D^2) else exp(-0.4 * D)
    expect_lt(max(abs(tcrossprod(Z) - exact)), 0.03)
    if (kern == "laplace") {
      # not the L1 kernel (independent Cauchy coordinates)
      l1 <- exp(-0.4 * as.matrix(dist(x, method = "manhattan")))
      expect_gt(max(abs(tcrossprod(Z) - l1)), 0.1)
    }
  }
  expect_error(kernel_means(x, y, kernel = "polynomial", approx = random_fourier()),
               class = "kernclass_approx_unsupported_error")
})

test_that("approximate kernel_means is the plain-R class-mean-of-features model", {
  d <- two_class()
  set.seed(3)
  fit <- kernel_means(d$x[1:90, ], d$y[1:90], approx = nystrom(m = 25))
  new <- d$x[91:120, ]
  xs <- scale(new, fit$scaling$center, fit$scaling$scale)
  Z <- r_features(fit, fit$x)
  zbar <- rbind(colMeans(Z[fit$y == "a", ]), colMeans(Z[fit$y == "b", ]))
  Zn <- r_features(fit, xs)
  f <- Zn %*% t(zbar) - rep(rowSums(zbar^2) / 2, each = 30)
  expect_equal(unname(predict(fit, new, type = "decision")), f[, 1] - f[, 2], tolerance = 1e-8)
  n_c <- as.vector(table(fit$y))
  kii <- rep(1, 90)  # rbf
  s2 <- mean(kii) - sum(n_c / 90 * rowSums(zbar^2))
  expect_equal(fit$sigma2, s2, tolerance = 1e-10)
  p <- exp(f / s2)
  expect_equal(unname(predict(fit, new, type = "prob")), unname(p / rowSums(p)), tolerance = 1e-8)
  expect_equal(as.character(predict(fit, new)), ifelse(f[, 1] > f[, 2], "a", "b"))
  # coef(): the linear model on the features
  expect_equal(coef(fit)$w, zbar[1, ] - zbar[2, ], tolerance = 1e-10)
})

test_that("with every row a landmark the approximate models equal the exact ones", {
  d <- two_class(n = 70)
  new <- two_class(n = 20, seed = 8)$x
  all <- nystrom(m = 70, landmarks = "uniform")
  pairs <- list(
    list(kernel_means, list(threshold = "analytic"), "prob"),
    list(kernel_means, list(threshold = "search"), "decision"),
    list(kernel_parzen, list(), "prob"),
    list(kernel_parzen, list(threshold = "search"), "prob"),
    list(kernel_bayes, list(type = 1), "prob"))
  for (pp in pairs) {
    set.seed(1)
    exact <- do.call(pp[[1]], c(list(d$x, d$y, gamma = 0.5), pp[[2]]))
    set.seed(1)
    approx <- do.call(pp[[1]], c(list(d$x, d$y, gamma = 0.5, approx = all), pp[[2]]))
    expect_s3_class(approx, "kernclass_approx")
    for (type in c("decision", pp[[3]])) {
      expect_equal(predict(approx, new, type = type), predict(exact, new, type = type),
                   tolerance = 1e-6, label = paste(class(exact)[1], type))
    }
    expect_identical(predict(approx, new), predict(exact, new))
  }
  # three classes, kernelized Bayes type 1: pairs, votes, coupled probabilities
  y3 <- factor(rep(c("u", "v", "w"), length.out = 70))
  set.seed(1)
  e3 <- kernel_bayes(d$x + as.integer(y3), y3, type = 1, gamma = 0.5)
  a3 <- kernel_bayes(d$x + as.integer(y3), y3, type = 1, gamma = 0.5, approx = all)
  expect_equal(predict(a3, new, type = "decision"), predict(e3, new, type = "decision"),
               tolerance = 1e-6)
  expect_equal(predict(a3, new, type = "prob"), predict(e3, new, type = "prob"), tolerance = 1e-6)
})

test_that("approximate Parzen densities below 0 are 0; kernel_bayes types 2 and 3 are refused", {
  d <- two_class()
  set.seed(2)
  fit <- kernel_parzen(d$x, d$y, approx = random_fourier(m = 30))
  far <- matrix(50, 3, 3)
  p <- predict(fit, rbind(d$x[1:5, ], far), type = "prob")
  expect_true(all(p >= 0 & p <= 1))
  expect_equal(rowSums(p), rep(1, 8), ignore_attr = TRUE)
  expect_error(kernel_bayes(d$x, d$y, approx = nystrom(m = 10)),
               class = "kernclass_approx_unsupported_error")
  expect_error(kernel_bayes(d$x, d$y, type = 3, approx = nystrom(m = 10)), "type = 1")
})

# Plain-R dual coordinate descent without shrinking, drawing the same
# permutation as the C code (j = s + floor(u (active - s))).
r_dcd <- function(Z, y, C, eps, max_pass = 1000) {
  X <- cbind(Z, 1)
  n <- nrow(X)
  a <- numeric(n)
  w <- numeric(ncol(X))
  qd <- rowSums(X^2)
  index <- seq_len(n)
  for (pass in seq_len(max_pass)) {
    for (s in seq_len(n)) {
      j <- s + min(floor(runif(1) * (n - s + 1)), n - s)
      tmp <- index[s]; index[s] <- index[j]; index[j] <- tmp
    }
    pmax_ <- -Inf; pmin_ <- Inf
    for (i in index) {
      g <- y[i] * sum(w * X[i, ]) - 1
      pg <- if (a[i] == 0) min(g, 0) else if (a[i] == C[i]) max(g, 0) else g
      pmax_ <- max(pmax_, pg); pmin_ <- min(pmin_, pg)
      if (abs(pg) > 1e-12) {
        old <- a[i]
        a[i] <- min(max(a[i] - g / qd[i], 0), C[i])
        w <- w + (a[i] - old) * y[i] * X[i, ]
      }
    }
    if (pmax_ - pmin_ <= eps) break
  }
  list(w = w, alpha = a, passes = pass)
}

# The rows as the linear solver reads them (src/linear.c): each row divided
# by the power of 2 that brings its largest value to [1/2, 1), rounded to
# IEEE half precision (to nearest, ties to even; quantum 2^-24 below 2^-14),
# times that power again.
r_halves <- function(Z) {
  top <- apply(abs(Z), 1, max)
  s <- ifelse(top > 0, 2^(floor(log2(top)) + 1), 1)
  V <- Z / s
  a <- abs(V)
  q <- 2^(pmax(floor(log2(a)), -14) - 10)
  H <- ifelse(a > 0, sign(V) * round(a / q) * q, 0)  # R's round(): ties to even
  H * s
}

# The float store of a model's training features (as C keeps them).
store_features <- function(fit) {
  s <- .Call(ns$ffi_feature_store, fit$x, fit$approx$map, ns$kc_kernel_code(fit$kernel), 1L)
  z <- readBin(s, "numeric", size = 4, n = length(s) / 4)
  matrix(z, ncol = fit$approx$rank, byrow = TRUE)
}

test_that("the linear SVM solver is the plain-R dual coordinate descent", {
  d <- two_class(n = 80)
  set.seed(4)
  fit <- kernel_svm(d$x, d$y, cost = 2, approx = nystrom(m = 15, landmarks = "uniform"))
  Z <- store_features(fit)
  expect_equal(Z, r_features(fit, fit$x), tolerance = 1e-6)
  yb <- ifelse(fit$y == "a", 1L, -1L)
  C <- rep(2, 80)
  store <- .Call(ns$ffi_feature_store, fit$x, fit$approx$map, ns$kc_kernel_code(fit$kernel), 1L)
  set.seed(10)
  got <- .Call(ns$ffi_linear_svm, store, fit$approx$rank, 1:80, yb, C, 1e-3, 1000, FALSE)
  set.seed(10)
  ref <- r_dcd(r_halves(Z), yb, C, 1e-3)
  expect_equal(got$alpha, ref$alpha, tolerance = 1e-8)
  expect_equal(got$w, ref$w, tolerance = 1e-8)
  expect_equal(got$passes, ref$passes)
  # the rows in half precision move the solution little: decision values of
  # the solution on the unrounded rows within 1e-3
  set.seed(10)
  exact <- r_dcd(Z, yb, C, 1e-6)
  set.seed(10)
  tight <- .Call(ns$ffi_linear_svm, store, fit$approx$rank, 1:80, yb, C, 1e-6, 1e4, FALSE)
  expect_lt(max(abs(cbind(Z, 1) %*% (tight$w - exact$w))), 1e-3)
  # with shrinking: the same optimum (the KKT conditions within the tolerance)
  set.seed(10)
  shr <- .Call(ns$ffi_linear_svm, store, fit$approx$rank, 1:80, yb, C, 1e-4, 1000, TRUE)
  X <- cbind(r_halves(Z), 1)
  g <- yb * drop(X %*% shr$w) - 1
  a <- shr$alpha
  expect_true(all(g[a == 0] >= -1e-3) && all(g[a == 2] <= 1e-3) &&
                all(abs(g[a > 0 & a < 2]) <= 1e-3))
  expect_equal(shr$w, drop(crossprod(X, a * yb)), tolerance = 1e-6)
  expect_equal(shr$objective, sum(shr$w^2) / 2 - sum(a), tolerance = 1e-10)
})

test_that("the solver's half-precision rows: scales, ties to even, tiny values, any scale", {
  # the transcription on values whose rounding is known
  expect_equal(r_halves(rbind(c(0.75, 0.5 + 2^-12, 0.5 + 3 * 2^-12, 2^-20, -3 * 2^-25))),
               rbind(c(0.75, 0.5, 0.5 + 2^-10, 2^-20, -2^-23)))  # 1.5 quanta of 2^-24: to 2
  expect_equal(r_halves(rbind(c(3e5, 1), c(0, 0))), rbind(c(300032, 1), c(0, 0)))  # 3e5 = 1171.875 x 256
  # a store of such rows (floats, row-major) and wide-ranging scales: the C
  # solver is the plain-R one on the rounded rows
  set.seed(7)
  n <- 40
  r <- 24L
  Z <- matrix(rnorm(n * r), n, r) * 10^runif(n, -3, 5)
  Z[, 3] <- Z[, 3] * 1e-6  # below half's normal range once scaled
  Z[1, ] <- 0.5 + (0:(r - 1)) * 2^-12  # ties
  Z <- matrix(readBin(writeBin(as.vector(Z), raw(), size = 4), "numeric", size = 4, n = n * r), n)
  store <- writeBin(as.vector(t(Z)), raw(), size = 4)
  y <- ifelse(seq_len(n) %% 2 == 0, 1L, -1L)
  C <- runif(n, 0.5, 2)
  set.seed(11)
  got <- .Call(ns$ffi_linear_svm, store, r, seq_len(n), y, C, 1e-3, 500, FALSE)
  set.seed(11)
  ref <- r_dcd(r_halves(Z), y, C, 1e-3, max_pass = 500)
  expect_equal(got$alpha, ref$alpha, tolerance = 1e-8)
  expect_equal(got$w, ref$w, tolerance = 1e-8)
  expect_equal(got$passes, ref$passes)
  # a value that is not finite is an internal error, not a solution
  bad <- store
  bad[1:4] <- writeBin(Inf, raw(), size = 4)
  expect_error(.Call(ns$ffi_linear_svm, bad, r, seq_len(n), y, C, 1e-3, 5, FALSE), "not finite")
})

test_that("the pairs' linear SVMs side by side: the single solver's optima, on any threads", {
  d <- two_class(n = 90)
  set.seed(2)
  y3 <- factor(sample(c("p", "q", "r"), 90, TRUE))
  fits <- lapply(1:2, function(threads) {
    old <- options(kernclass.threads = threads)
    on.exit(options(old))
    set.seed(3)
    kernel_svm(d$x + as.integer(y3), y3, cost = 5, tolerance = 1e-6, max_iter = 1e4,
               approx = nystrom(m = 20))
  })
  expect_identical(fits[[1]]$approx$w, fits[[2]]$approx$w)
  expect_identical(fits[[1]]$approx$b, fits[[2]]$approx$b)
  # each pair's dual optimum is the one the single solver reaches
  fit <- fits[[1]]
  store <- .Call(ns$ffi_feature_store, fit$x, fit$approx$map, ns$kc_kernel_code(fit$kernel), 1L)
  code <- as.integer(fit$y)
  pairs <- ns$kc_ovo_pairs(levels(y3))
  for (m in seq_len(nrow(pairs))) {
    rows <- which(code %in% pairs[m, ])
    yb <- ifelse(code[rows] == pairs[m, "first"], 1L, -1L)
    one <- .Call(ns$ffi_linear_svm, store, fit$approx$rank, rows, yb, rep(5, length(rows)),
                 1e-6, 1e4, TRUE)
    # (two orders of the coordinates stop at two points within the tolerance)
    expect_equal(fit$objective[[m]], one$objective, tolerance = 1e-5, label = rownames(pairs)[m])
    expect_equal(unname(c(fit$approx$w[, m], fit$approx$b[m])), one$w, tolerance = 2e-2)
  }
})

test_that("the features' Platt folds: solved side by side, the plain-R fit, any threads", {
  d <- two_class(n = 120)
  set.seed(2)
  y3 <- factor(sample(c("p", "q", "r"), 120, TRUE))
  x3 <- d$x + as.integer(y3)
  fit_on <- function(threads) {
    old <- options(kernclass.threads = threads)
    on.exit(options(old))
    set.seed(8)
    kernel_svm(x3, y3, cost = 2, probability = TRUE, approx = nystrom(m = 20))
  }
  f1 <- fit_on(1)
  expect_identical(fit_on(2)[c("probA", "probB")], f1[c("probA", "probB")])
  expect_identical(fit_on(1)[c("probA", "probB")], f1[c("probA", "probB")])
  # the sigmoids of the method: the folds drawn first (as the exact SVM's),
  # each fold's SVM on the rest, Platt's fit by glm() on their decision values
  r <- list(store = .Call(ns$ffi_feature_store, f1$x, f1$approx$map, ns$kc_kernel_code(f1$kernel), 1L),
            fa = f1$approx, y = f1$y, progress = function(...) NULL)
  pairs <- ns$kc_ovo_pairs(levels(y3))
  control <- list(tolerance = 1e-7, max_iter = 1e5, shrinking = TRUE)
  set.seed(9)
  ab <- ns$kc_repr_svm_platt.kc_features(r, NULL, pairs, f1$C, control)
  set.seed(9)
  code <- as.integer(f1$y)
  folds <- lapply(seq_len(nrow(pairs)), function(m) {
    rows <- which(code %in% pairs[m, ])
    fold <- integer(length(rows))
    fold[sample.int(length(rows))] <- rep_len(1:5, length(rows))
    fold
  })
  Z <- cbind(store_features(f1), 1)
  for (m in seq_len(nrow(pairs))) {
    rows <- which(code %in% pairs[m, ])
    pos <- code[rows] == pairs[m, "first"]
    dec <- numeric(length(rows))
    for (k in 1:5) {
      tr <- rows[folds[[m]] != k]
      s <- .Call(ns$ffi_linear_svm, r$store, f1$approx$rank, tr,
                 ifelse(code[tr] == pairs[m, "first"], 1L, -1L), f1$C[tr], 1e-7, 1e5, TRUE)
      dec[folds[[m]] == k] <- drop(Z[rows[folds[[m]] == k], ] %*% s$w)
    }
    t <- ifelse(pos, (sum(pos) + 1) / (sum(pos) + 2), 1 / (sum(!pos) + 2))
    g <- suppressWarnings(stats::glm(t ~ dec, family = stats::quasibinomial()))
    expect_equal(unname(ab[, m]), unname(-rev(coef(g))), tolerance = 1e-3, label = rownames(pairs)[m])
  }
})

test_that("the linear SVM's dual is that of quadprog, with per-row bounds", {
  skip_if_not_installed("quadprog")
  d <- two_class(n = 50)
  set.seed(5)
  w <- runif(50, 0.2, 2)
  fit <- kernel_svm(d$x, d$y, cost = 0.5, weights = w, class.weights = c(a = 3, b = 1),
                    tolerance = 1e-6, approx = nystrom(m = 8, landmarks = "uniform"))
  X <- cbind(store_features(fit), 1)
  yb <- ifelse(fit$y == "a", 1, -1)
  C <- 0.5 * w * ifelse(fit$y == "a", 3, 1)
  expect_equal(fit$C, C, ignore_attr = TRUE)
  Q <- tcrossprod(X * yb) + diag(1e-9, 50)
  qp <- quadprog::solve.QP(Q, rep(1, 50), cbind(diag(50), -diag(50)), c(rep(0, 50), -C))
  wq <- drop(crossprod(X, qp$solution * yb))
  expect_equal(c(fit$approx$w, fit$approx$b), wq, tolerance = 1e-3, ignore_attr = TRUE)
  expect_equal(fit$objective[[1]], qp$value, tolerance = 1e-4)
})

test_that("the approximate SVM is close to the exact linear SVM and keeps its interface", {
  d <- two_class(n = 150)
  lin <- kernel_svm(d$x, d$y, kernel = "linear", cost = 1)
  set.seed(1)
  ap <- kernel_svm(d$x, d$y, kernel = "linear", cost = 1, approx = nystrom(m = 3))
  # the same features up to a rotation; the offset is regularised here, and
  # the dual has no y'a = 0: close, not equal
  expect_gt(mean(predict(ap, d$x) == predict(lin, d$x)), 0.95)
  expect_gt(cor(predict(ap, d$x, type = "decision"), predict(lin, d$x, type = "decision")), 0.99)
  expect_length(ap$index, ap$support_vectors[[1]])  # the rows with alpha > 0
  set.seed(2)
  y3 <- factor(sample(c("p", "q", "r"), 150, TRUE))
  x3 <- d$x + 2 * as.integer(y3)
  set.seed(3)
  fit <- kernel_svm(x3, y3, probability = TRUE, approx = nystrom(m = 30))
  expect_equal(dim(predict(fit, x3, type = "decision")), c(150, 3))
  expect_equal(colnames(predict(fit, x3, type = "decision")), c("p/q", "p/r", "q/r"))
  p <- predict(fit, x3, type = "prob")
  expect_equal(rowSums(p), rep(1, 150), ignore_attr = TRUE)
  expect_gt(mean(predict(fit, x3) == y3), 0.8)
  # observation weights 2 are cost 2
  set.seed(3)
  a <- kernel_svm(x3, y3, cost = 2, approx = nystrom(m = 30))
  set.seed(3)
  b <- kernel_svm(x3, y3, weights = rep(2, 150), approx = nystrom(m = 30))
  expect_equal(a$approx$w, b$approx$w)
  expect_error(kernel_svm(x3, y3, type = "nu-classification", approx = nystrom(m = 5)),
               class = "kernclass_approx_unsupported_error")
  expect_error(kernel_svm(x3, y3, cost = Inf, approx = nystrom(m = 5)),
               class = "kernclass_approx_unsupported_error")
  expect_error(kernel_svm(x3, y3, cachesize = 10, approx = nystrom(m = 5)),
               class = "kernclass_approx_unsupported_error")
  expect_warning(kernel_svm(x3, y3, max_iter = 1, tolerance = 1e-9, approx = nystrom(m = 30)),
                 class = "kernclass_convergence_warning")
})

test_that("print and summary state the approximation and its error", {
  d <- two_class()
  set.seed(1)
  fit <- kernel_svm(d$x, d$y, approx = random_fourier(m = 100, check = 30))
  out <- capture.output(print(fit))
  expect_true(any(grepl("Approximation: Random Fourier features \\(m = 100\\)", out)))
  expect_true(any(grepl("kernel error on 1000 random training pairs", out)))
  expect_true(any(grepl("against the exact model", out)))
  expect_named(fit$approx$check, c("rows", "agreement", "exact_accuracy", "approx_accuracy"))
  s <- summary(fit)
  expect_s3_class(s, "summary.kernclass_approx")
  expect_output(print(s), "Linear SVM per class pair")
  # the error is the plain-R one on the same pairs
  set.seed(1)
  fa <- ns$kc_approx_fit(random_fourier(m = 100), fit$x, fit$kernel)
  set.seed(1)
  fa0 <- ns$kc_feature_map(random_fourier(m = 100), fit$x, fit$kernel)
  i <- sample.int(nrow(fit$x), 1000, TRUE)
  j <- sample.int(nrow(fit$x), 1000, TRUE)
  ex <- exp(-fit$kernel$gamma * rowSums((fit$x[i, ] - fit$x[j, ])^2))
  ZZ <- rowSums(r_features(list(approx = list(map = fa0), kernel = fit$kernel), fit$x[i, ]) *
                  r_features(list(approx = list(map = fa0), kernel = fit$kernel), fit$x[j, ]))
  expect_equal(fa$error[["mae"]], mean(abs(ex - ZZ)), tolerance = 1e-10)
  expect_equal(fa$error[["rel_frobenius"]], sqrt(sum((ex - ZZ)^2) / sum(ex^2)), tolerance = 1e-10)
  expect_output(print(kernel_means(d$x, d$y, approx = nystrom(m = 5))), "Nystrom features")
})

test_that("approximate models plug in: NA rows, saveRDS, update, kernel_cv, kernel_tune", {
  d <- two_class()
  df <- data.frame(d$x, cls = d$y)
  set.seed(1)
  fit <- kernel_parzen(cls ~ ., data = df, approx = nystrom(m = 20))
  p <- predict(fit, rows_with_na(df), type = "prob")
  expect_true(all(is.na(p[2, ])) && !anyNA(p[-2, ]))
  back <- rds_round_trip(fit)
  expect_equal(predict(back, df, type = "prob"), predict(fit, df, type = "prob"))
  set.seed(2)
  up <- update(fit, approx = random_fourier(m = 50))
  expect_equal(up$approx$spec$method, "fourier")
  set.seed(2)
  again <- kernel_parzen(cls ~ ., data = df, approx = random_fourier(m = 50))
  expect_equal(predict(up, df, type = "prob"), predict(again, df, type = "prob"))
  set.seed(3)
  cv <- kernel_cv(kernel_means, d$x, d$y, folds = 4, approx = nystrom(m = 10))
  expect_gt(cv$accuracy, 0.6)
  # leave-one-out refits the approximate model (the exact shortcut is not it)
  expect_false(ns$kc_loo_applies(kernel_means, d$x, list(scale = FALSE, approx = nystrom(m = 5))))
  set.seed(3)
  loo <- kernel_cv(kernel_means, d$x[1:20, ], d$y[1:20], folds = "loo", scale = FALSE,
                   approx = nystrom(m = 5))
  expect_length(loo$predicted, 20)
  set.seed(4)
  tu <- kernel_tune(kernel_svm, d$x, d$y, folds = 3,
                    grid = list(approx = list(nystrom(m = 5), nystrom(m = 40)), cost = c(1, 10)))
  expect_equal(nrow(tu$results), 4L)
  # a grid of costs with approx is fitted cell by cell, as kernel_cv would
  set.seed(4)
  folds_fit <- kernel_tune(kernel_svm, d$x, d$y, folds = 3, grid = list(cost = c(1, 10)),
                           approx = nystrom(m = 10))
  expect_true(all(is.finite(folds_fit$results$accuracy)))
  expect_s3_class(tu$best$approx, "kernclass_approximation")
  expect_error(kernel_means(ns$kc_as_csr(d$x), d$y, approx = nystrom(m = 5)),
               class = "kernclass_approx_unsupported_error")
})

test_that("feature passes and the linear solver stop at an interrupt", {
  set.seed(11)
  x <- matrix(rnorm(40000 * 100), 40000)
  map <- list(type = 1L, landmarks = x[1:600, ], proj = diag(600))
  spec <- c(3, 0.01, 3, 0)
  msg <- run_until_limit(.Call(ns$ffi_feature_sums, x, rep(1:2, 20000), 2L, map, spec, 2L))
  expect_match(msg, "time limit")
  store <- .Call(ns$ffi_feature_store, x[1:20000, 1:50], list(type = 1L, landmarks = x[1:50, 1:50],
                                                              proj = diag(50)), spec, 2L)
  yb <- sample(c(-1L, 1L), 20000, TRUE)  # random labels: no quick optimum
  msg <- run_until_limit(.Call(ns$ffi_linear_svm, store, 50L, 1:20000, yb, rep(100, 20000),
                               1e-12, 1e9, FALSE))
  expect_match(msg, "time limit")
  # the pairs side by side on two threads stop too (their units' checks)
  msg <- run_until_limit(.Call(ns$ffi_linear_many, store, 50L, list(1:20000, 1:20000),
                               list(yb, -yb), list(rep(100, 20000), rep(100, 20000)),
                               1e-12, 1e9, FALSE, 2L))
  expect_match(msg, "time limit")
  expect_equal(kernel_matrix(x[1:3, ], kernel = "linear"), tcrossprod(x[1:3, ]), tolerance = 1e-12)
})

test_that("sizes past the integer range: one cell, m clamped, or a classed error", {
  big <- .Machine$integer.max
  expect_no_warning(spec <- cells(size = 1e10))
  expect_identical(spec$size, big)
  # Inf is no whole number: an error, as before
  expect_error(cells(size = Inf), class = "kernclass_input_error")
  d <- rare_class(n = 100)
  set.seed(8)
  one <- kernel_svm(d$x, d$y, approx = cells(size = 1e10))
  exact <- kernel_svm(d$x, d$y)
  expect_length(one$approx$models, 1L)
  expect_equal(unname(predict(one, d$x, type = "decision")),
               unname(predict(exact, d$x, type = "decision")))
  expect_no_warning(spec <- nystrom(m = 3e9))
  expect_identical(spec$m, big)
  set.seed(8)
  expect_no_warning(fit <- kernel_means(d$x, d$y, approx = spec))
  expect_lte(fit$approx$rank, 100L)
  for (call in list(quote(random_fourier(m = 3e9)), quote(nystrom(check = 3e9)),
                    quote(cells(check = 1.5e9)), quote(random_fourier(check = 2^31)))) {
    err <- tryCatch(eval(call), error = identity, warning = identity)
    expect_s3_class(err, "kernclass_size_error")
    expect_identical(err$arg, if (grepl("check", deparse(call))) "check" else "m")
  }
})
