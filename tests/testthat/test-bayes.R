# kernel_bayes() against a plain-R transcription of the MATLAB
# listing in R. Wang's notes on the kernelized Bayes classifier, the Gaussian discriminants of MASS, and its own invariants.

testthat::local_edition(3)

# K(A, x) of the listing: the kernel values of the columns of A with x.
ref_K <- function(kp) {
  function(A, x) {
    x <- as.vector(x)
    switch(kp$kernel,
      linear = colSums(A * as.vector(x)),
      polynomial = (kp$gamma * colSums(A * x) + kp$coef0)^kp$degree,
      rbf = exp(-kp$gamma * colSums((A - x)^2)),
      laplace = exp(-kp$gamma * sqrt(colSums((A - x)^2))))
  }
}

# K(z, z) with z'z = q (the real formulation of type 3)
ref_Kself <- function(kp, q) {
  switch(kp$kernel, linear = q, polynomial = (kp$gamma * q + kp$coef0)^kp$degree,
         rbf = 1, laplace = 1)
}

# The listing, line by line: X is p x N (points in columns), y in {+1, -1}.
# Returns the training scores x(i), the offset b and the scores of Xnew.
ref_listing <- function(X, y, type, kp, Xnew) {
  K <- ref_K(kp)
  n <- ncol(X)
  X0 <- X[, y > 0, drop = FALSE]; n0 <- ncol(X0)
  X1 <- X[, y < 0, drop = FALSE]; n1 <- ncol(X1)
  C0 <- cov(t(X0)); C1 <- cov(t(X1))
  sqrtm <- function(C) { e <- eigen(C); t(e$vectors %*% diag(sqrt(e$values), nrow(C))) }
  if (type == 1) {
    f <- function(x) sum(K(X0, x)) / n0 - sum(K(X1, x)) / n1
  } else if (type == 2) {
    U <- sqrtm(solve(C0 + C1))
    Z0 <- U %*% X0; Z1 <- U %*% X1
    f <- function(x) { z <- U %*% x; sum(K(Z0, z)) / n0 - sum(K(Z1, z)) / n1 }
  } else {
    C0 <- solve(C0); C1 <- solve(C1); W <- -(C0 - C1) / 2
    U0 <- sqrtm(C0); Z00 <- U0 %*% X0
    U1 <- sqrtm(C1); Z11 <- U1 %*% X1
    f <- function(x) {
      ref_Kself(kp, drop(t(x) %*% W %*% x)) + sum(K(Z00, U0 %*% x)) / n0 -
        sum(K(Z11, U1 %*% x)) / n1
    }
  }
  x <- vapply(seq_len(n), function(i) f(X[, i]), numeric(1))
  o <- order(x)
  xs <- x[o]; ys <- y[o]
  smax <- 0
  for (i in 1:(n - 1)) {
    s <- abs(sum(ys[1:i])) + abs(sum(ys[(i + 1):n]))
    if (s > smax) { smax <- s; b <- -(xs[i] + xs[i + 1]) / 2; k <- i }
  }
  # orientation: the side that classifies more training points right
  above <- sum(ys[1:k] < 0) + sum(ys[(k + 1):n] > 0)
  list(train = x, b = b, sign = if (2 * above >= n) 1 else -1, new = apply(Xnew, 2, f))
}

set.seed(2002)
n_pos <- 14
n_neg <- 11
xa <- rbind(matrix(rnorm(n_pos * 3, sd = 1), n_pos, 3),
            matrix(rnorm(n_neg * 3, mean = 0.8, sd = 1.6), n_neg, 3))
xa[, 2] <- xa[, 2] + 0.5 * xa[, 1]
ya <- factor(rep(c("pos", "neg"), c(n_pos, n_neg)), levels = c("pos", "neg"))
pm1 <- ifelse(ya == "pos", 1, -1)
xnew <- matrix(rnorm(12 * 3), 12, 3)

kernels <- list(
  list(kernel = "linear", gamma = 1, degree = 3, coef0 = 0),
  list(kernel = "polynomial", gamma = 0.5, degree = 2, coef0 = 1),
  list(kernel = "rbf", gamma = 0.3, degree = 3, coef0 = 0),
  list(kernel = "laplace", gamma = 0.5, degree = 3, coef0 = 0))

test_that("scores and b are those of the kernelized Bayes listing, types 1-3, four kernels", {
  for (kp in kernels) for (type in 1:3) {
    info <- paste(kp$kernel, type)
    ref <- ref_listing(t(xa), pm1, type, kp, t(xnew))
    fit <- kernel_bayes(xa, ya, type = type, kernel = kp$kernel, gamma = kp$gamma,
                        degree = kp$degree, coef0 = kp$coef0, scale = FALSE, ridge = 0)
    expect_equal(coef(fit)$b, ref$sign * ref$b, tolerance = 1e-8, info = info)
    expect_equal(unname(predict(fit, type = "decision")), ref$sign * (ref$train + ref$b),
                 tolerance = 1e-8, info = info)
    expect_equal(unname(predict(fit, xnew, type = "decision")), ref$sign * (ref$new + ref$b),
                 tolerance = 1e-8, info = info)
    expect_identical(as.character(predict(fit, xnew)),
                     ifelse(ref$sign * (ref$new + ref$b) > 0, "pos", "neg"), info = info)
  }
})

test_that("type 3's real K(z,z) is the listing's complex z.'z (linear kernel)", {
  C0 <- solve(cov(xa[ya == "pos", ])); C1 <- solve(cov(xa[ya == "neg", ]))
  W <- -(C0 - C1) / 2
  e <- eigen(W)
  expect_true(any(e$values < 0) && any(e$values > 0))   # indefinite here
  U <- t(e$vectors %*% diag(sqrt(as.complex(e$values))))  # U = (V D^(1/2)).'
  for (i in 1:5) {
    z <- U %*% xnew[i, ]
    zz <- sum(z * z)                                      # z.' * z, no conjugate
    expect_equal(Im(zz), 0, tolerance = 1e-12)
    expect_equal(Re(zz), drop(t(xnew[i, ]) %*% W %*% xnew[i, ]))
  }
})

test_that("linear kernel, type 3: the quadratic discriminant of equation (172) and qda", {
  fit <- kernel_bayes(xa, ya, type = 3, kernel = "linear", scale = FALSE, ridge = 0)
  S0 <- solve(cov(xa[ya == "pos", ])); S1 <- solve(cov(xa[ya == "neg", ]))
  W <- -(S0 - S1) / 2
  w <- S0 %*% colMeans(xa[ya == "pos", ]) - S1 %*% colMeans(xa[ya == "neg", ])
  quad <- rowSums((xnew %*% W) * xnew) + drop(xnew %*% w)
  dec <- unname(predict(fit, xnew, type = "decision"))
  expect_equal(dec - coef(fit)$b, quad)
  # MASS::qda's log posterior ratio differs by a constant only
  skip_if_not_installed("MASS")
  q <- MASS::qda(xa, ya)
  post <- predict(q, xnew)$posterior
  diff <- log(post[, "pos"] / post[, "neg"]) - dec
  expect_equal(unname(diff), rep(diff[1], length(diff)), tolerance = 1e-8)
})

test_that("linear kernel, type 2 ranks points as Fisher's discriminant (MASS::lda)", {
  skip_if_not_installed("MASS")
  # equal class sizes: (Sigma+ + Sigma-) is twice the pooled covariance
  set.seed(7)
  x <- rbind(matrix(rnorm(60), 20, 3), matrix(rnorm(60, 1), 20, 3) %*% diag(c(1, 2, 0.5)))
  y <- gl(2, 20, labels = c("u", "v"))
  fit <- kernel_bayes(x, y, type = 2, kernel = "linear", scale = FALSE, ridge = 0)
  dec <- unname(predict(fit, xnew, type = "decision"))
  ld <- drop(predict(MASS::lda(x, y), xnew)$x)
  expect_equal(abs(cor(dec, ld)), 1, tolerance = 1e-10)
  expect_equal(abs(cor(rank(dec), rank(ld))), 1)
  # and the direction is (Sigma+ + Sigma-)^{-1} (m+ - m-)
  a <- solve(cov(x[y == "u", ]) + cov(x[y == "v", ]),
             colMeans(x[y == "u", ]) - colMeans(x[y == "v", ]))
  expect_equal(dec - coef(fit)$b, drop(xnew %*% a))
})

test_that("linear kernel, type 1 is the nearest-means direction (kernel_means)", {
  fit <- kernel_bayes(xa, ya, type = 1, kernel = "linear", scale = FALSE)
  dec <- unname(predict(fit, xnew, type = "decision"))
  d <- colMeans(xa[ya == "pos", ]) - colMeans(xa[ya == "neg", ])
  expect_equal(dec - coef(fit)$b, drop(xnew %*% d))
  km <- kernel_means(xa, ya, kernel = "linear", scale = FALSE)
  diff <- unname(predict(km, xnew, type = "decision")) - dec
  expect_equal(diff, rep(diff[1], length(diff)))
  # with the search, kernel_means gives exactly type 1 (any kernel)
  for (kp in kernels) {
    km <- kernel_means(xa, ya, kernel = kp$kernel, gamma = kp$gamma, degree = kp$degree,
                       coef0 = kp$coef0, threshold = "search")
    kb <- kernel_bayes(xa, ya, kernel = kp$kernel, gamma = kp$gamma, degree = kp$degree,
                       coef0 = kp$coef0, type = 1)
    expect_equal(predict(km, xnew, type = "decision"), predict(kb, xnew, type = "decision"),
                 info = kp$kernel)
  }
})

test_that("coef() reproduces the decision values through kernel_matrix()", {
  for (type in 1:3) {
    fit <- kernel_bayes(xa, ya, type = type, kernel = "polynomial", degree = 2, coef0 = 1)
    cf <- coef(fit)
    km <- function(a, b) kernel_matrix(a, b, kernel = "polynomial", gamma = fit$kernel$gamma,
                                      degree = 2, coef0 = 1)
    X <- fit$x
    if (type == 1) {
      dec <- km(X, X) %*% cf$alpha
    } else if (type == 2) {
      U <- cf$whitening$U
      dec <- km(X %*% U, X %*% U) %*% cf$alpha
    } else {
      w <- cf$whitening
      pos <- fit$y == "pos"
      q <- rowSums((X %*% w$W) * X)
      dec <- cf$sign * (fit$kernel$gamma * q + 1)^2 +
        km(X %*% w$U_first, X[pos, ] %*% w$U_first) %*% cf$alpha[pos] +
        km(X %*% w$U_second, X[!pos, ] %*% w$U_second) %*% cf$alpha[!pos]
    }
    expect_equal(drop(dec) + cf$b, unname(predict(fit, type = "decision")), info = type)
  }
})

test_that("more classes: each pair is the two-class fit on its classes; votes decide", {
  train <- seq(1, 150, by = 2)
  for (type in 1:3) {
    fit <- kernel_bayes(Species ~ Petal.Length + Petal.Width, data = iris[train, ],
                        type = type, kernel = "laplace", gamma = 2)
    dec <- predict(fit, iris[-train, ], type = "decision")
    expect_identical(colnames(dec), c("setosa/versicolor", "setosa/virginica",
                                      "versicolor/virginica"))
    lev <- levels(iris$Species)
    pairs <- t(utils::combn(3, 2))
    for (m in 1:3) {
      sub <- iris[train, ][iris$Species[train] %in% lev[pairs[m, ]], ]
      sub$Species <- factor(sub$Species, levels = lev[pairs[m, ]])
      # the pair's own scaling differs: fit on the scaled matrix of the full fit
      xs <- fit$x[fit$y %in% lev[pairs[m, ]], ]
      # and the same absolute ridge lambda (relative to the full data's variance)
      two <- kernel_bayes(xs, sub$Species, type = type, kernel = "laplace", gamma = 2,
                          scale = FALSE, ridge = fit$lambda / mean(apply(xs, 2, var)))
      xnew <- kernclass:::kc_new_x(fit, iris[-train, ])
      expect_equal(unname(dec[, m]), unname(predict(two, xnew, type = "decision")),
                   info = paste(type, m))
    }
    votes <- t(apply(dec, 1, function(d) {
      v <- integer(3)
      for (m in 1:3) v[if (d[m] > 0) pairs[m, 1] else pairs[m, 2]] <- v[if (d[m] > 0) pairs[m, 1] else pairs[m, 2]] + 1L
      v
    }))
    expect_identical(as.character(predict(fit, iris[-train, ])),
                     lev[max.col(votes, ties.method = "first")])
  }
})

test_that("probabilities: Platt per pair on training decisions, then coupling", {
  train <- seq(1, 150, by = 2)
  fit <- kernel_bayes(Species ~ ., data = iris[train, ], type = 3, kernel = "rbf", gamma = 0.2)
  dtrain <- predict(fit, type = "decision")
  dtest <- predict(fit, iris[-train, ], type = "decision")
  lev <- levels(iris$Species)
  pairs <- t(utils::combn(3, 2))
  r <- sapply(1:3, function(m) {
    rows <- fit$y %in% lev[pairs[m, ]]
    f <- dtrain[rows, m]
    label <- fit$y[rows] == lev[pairs[m, 1]]
    t <- ifelse(label, (sum(label) + 1) / (sum(label) + 2), 1 / (sum(!label) + 2))
    g <- suppressWarnings(glm(t ~ f, family = quasibinomial()))
    plogis(coef(g)[1] + coef(g)[2] * dtest[, m])
  })
  # coupling: the exact minimiser on the simplex, from the linear system
  ref <- t(apply(pmin(pmax(r, 1e-7), 1 - 1e-7), 1, function(rr) {
    Q <- matrix(0, 3, 3)
    for (m in 1:3) {
      i <- pairs[m, 1]; j <- pairs[m, 2]
      Q[i, i] <- Q[i, i] + (1 - rr[m])^2
      Q[j, j] <- Q[j, j] + rr[m]^2
      Q[i, j] <- Q[j, i] <- -rr[m] * (1 - rr[m])
    }
    solve(rbind(cbind(Q, 1), c(1, 1, 1, 0)), c(0, 0, 0, 1))[1:3]
  }))
  prob <- predict(fit, iris[-train, ], type = "prob")
  expect_identical(colnames(prob), lev)
  expect_equal(unname(prob), unname(ref), tolerance = 1e-4)
  expect_equal(unname(rowSums(prob)), rep(1, 75))
  # two classes: the sigmoid of the one pair
  two <- droplevels(subset(iris, Species != "setosa"))
  fit2 <- kernel_bayes(Species ~ ., data = two, type = 2, kernel = "rbf")
  d <- predict(fit2, type = "decision")
  p <- predict(fit2, type = "prob")
  AB <- fit2$pairs[[1]]$platt
  expect_equal(unname(p[, 1]), unname(plogis(-(AB[["A"]] * d + AB[["B"]]))))
  expect_equal(unname(p[, 2]), 1 - unname(p[, 1]))
})

test_that("singular covariances are regularised: finite answers, never NaN", {
  set.seed(8)
  # more columns than points in a class, and a column constant within a class
  x <- matrix(rnorm(12 * 8), 12, 8)
  x[1:6, 3] <- 1
  y <- gl(2, 6, labels = c("a", "b"))
  for (type in 1:3) for (ridge in c(0, 1e-3, 1)) for (k in c("linear", "rbf", "polynomial")) {
    fit <- kernel_bayes(x, y, type = type, kernel = k, ridge = ridge)
    dec <- predict(fit, rbind(x, xnew %*% matrix(1, 3, 8)), type = "decision")
    expect_true(all(is.finite(dec)), info = paste(type, ridge, k))
    expect_true(all(is.finite(predict(fit, x, type = "prob"))))
  }
  # the ridge is relative to the mean input variance
  fit <- kernel_bayes(x, y, type = 2, ridge = 0.1, scale = FALSE)
  expect_equal(fit$lambda, 0.1 * mean(apply(x, 2, var)))
  # with ridge, type 2's whitening is (Sigma+ + Sigma- + 2 lambda I)^{-1}
  U <- coef(fit)$whitening$U
  S <- cov(x[1:6, ]) + cov(x[7:12, ]) + 2 * fit$lambda * diag(8)
  expect_equal(tcrossprod(U), solve(S))
})

test_that("formula and default methods, scale = TRUE as fitting scaled data", {
  d <- data.frame(xa, cls = ya)
  f1 <- kernel_bayes(cls ~ ., data = d, type = 3, kernel = "rbf", gamma = 0.4)
  f2 <- kernel_bayes(xa, ya, type = 3, kernel = "rbf", gamma = 0.4)
  expect_equal(predict(f1, d, type = "decision"), predict(f2, xa, type = "decision"),
               ignore_attr = TRUE)
  f3 <- kernel_bayes(scale(xa), ya, type = 3, kernel = "rbf", gamma = 0.4, scale = FALSE)
  expect_equal(unname(predict(f2, type = "decision")), unname(predict(f3, type = "decision")))
  expect_identical(f1$call[[1]], as.name("kernel_bayes"))
  expect_s3_class(f1, c("kernel_bayes", "kernclass_ovo", "kernclass"), exact = TRUE)
})

test_that("print, summary, fitted, plot", {
  fit <- kernel_bayes(Species ~ Petal.Length + Petal.Width, data = iris, type = 3,
                      kernel = "laplace", gamma = 5, scale = FALSE)
  expect_output(print(fit), "Kernelized Bayes classifier, type 3")
  s <- summary(fit)
  expect_output(print(s), "Training accuracy")
  expect_equal(s$b, coef(fit)$b)
  expect_equal(s$accuracy, mean(fitted(fit) == iris$Species))
  pdf(NULL)
  on.exit(dev.off())
  r <- plot(fit, iris, grid = 30)
  expect_named(r, c("x1", "x2", "class", "decision", "held", "boundary"))
  expect_equal(dim(r$decision), c(900L, 3L))
  two <- droplevels(subset(iris, Species != "setosa"))
  r2 <- plot(kernel_bayes(as.matrix(two[, 3:4]), two$Species, type = 1), grid = 20)
  expect_length(r2$decision, 400L)
})

test_that("Wang's iris experiment (petal length and width, half to train): all three types classify the test half well", {
  train <- unlist(lapply(split(seq_len(150), iris$Species), function(r) r[c(TRUE, FALSE)]))
  for (k in c("rbf", "laplace")) for (type in 1:3) {
    fit <- kernel_bayes(Species ~ Petal.Length + Petal.Width, data = iris[train, ],
                        type = type, kernel = k, gamma = 5, scale = FALSE)
    acc <- mean(predict(fit, iris[-train, ]) == iris$Species[-train])
    expect_gt(acc, 0.9)
  }
})

# The kernelized Bayes classifier's covariances in the full p-dimensional space, transcribed: the
# ridge-regularised covariances, their pseudo-inverse square roots by a p x p
# eigen decomposition, and the pair's scores p(x) (two classes).
ref_full_scores <- function(x, y, type, kp, ridge, xnew) {
  K <- function(a, b) kernel_matrix(a, b, kernel = kp$kernel, gamma = kp$gamma,
                                    degree = kp$degree, coef0 = kp$coef0)
  Kself <- function(q) switch(kp$kernel, linear = q,
                              polynomial = (kp$gamma * q + kp$coef0)^kp$degree,
                              sigmoid = tanh(kp$gamma * q + kp$coef0), 1)
  pos <- y == levels(y)[1]
  lambda <- ridge * mean(apply(x, 2, var))
  S <- function(rows) cov(x[rows, , drop = FALSE]) + lambda * diag(ncol(x))
  isqrt <- function(M) {
    e <- eigen(M, symmetric = TRUE)
    keep <- e$values > max(e$values[1], 0) * sqrt(.Machine$double.eps) & e$values > 0
    e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(e$values[keep]), sum(keep))
  }
  m <- function(kmat, rows) rowMeans(kmat[, rows, drop = FALSE])
  if (type == 2) {
    U <- isqrt(S(pos) + S(!pos))
    k <- K(xnew %*% U, x %*% U)
    m(k, pos) - m(k, !pos)
  } else {
    U1 <- isqrt(S(pos)); U2 <- isqrt(S(!pos))
    W <- -(tcrossprod(U1) - tcrossprod(U2)) / 2
    Kself(rowSums((xnew %*% W) * xnew)) + m(K(xnew %*% U1, x %*% U1), pos) -
      m(K(xnew %*% U2, x %*% U2), !pos)
  }
}

test_that("more columns than rows: the span of the data gives the full-space answers", {
  set.seed(2014)
  kps <- list(list(kernel = "linear", gamma = 1, degree = 1, coef0 = 0),
              list(kernel = "polynomial", gamma = 0.05, degree = 2, coef0 = 1),
              list(kernel = "rbf", gamma = 0.02, degree = 1, coef0 = 0),
              list(kernel = "laplace", gamma = 0.1, degree = 1, coef0 = 0),
              list(kernel = "sigmoid", gamma = 0.01, degree = 1, coef0 = 0))
  for (shape in list(c(14, 40), c(40, 6))) {
    n <- shape[1]; p <- shape[2]
    x <- matrix(rnorm(n * p), n, p)
    x[, 2] <- x[, 1]                       # a repeated column
    x <- rbind(x, x[1, ])                  # a duplicated row
    y <- factor(rep(c("u", "v"), length.out = n + 1))
    xnew <- rbind(matrix(rnorm(5 * p, sd = 2), 5, p), x[2:3, ])
    for (kp in kps) for (type in 2:3) for (ridge in c(0, 1e-3, 1)) {
      info <- paste(n, p, kp$kernel, type, ridge)
      fit <- kernel_bayes(x, y, type = type, kernel = kp$kernel, gamma = kp$gamma,
                          degree = kp$degree, coef0 = kp$coef0, ridge = ridge,
                          scale = FALSE, .span = TRUE)
      cf <- coef(fit)
      ref <- ref_full_scores(x, y, type, kp, ridge, xnew)
      expect_equal(unname(predict(fit, xnew, type = "decision")), cf$sign * ref + cf$b,
                   tolerance = 1e-8, info = info)
      # and the span is what the default takes with more columns than rows
      if (p > n) {
        def <- kernel_bayes(x, y, type = type, kernel = kp$kernel, gamma = kp$gamma,
                            degree = kp$degree, coef0 = kp$coef0, ridge = ridge, scale = FALSE)
        expect_identical(predict(def, xnew, type = "decision"),
                         predict(fit, xnew, type = "decision"), info = info)
        expect_identical(ncol(cf$whitening$basis), as.integer(n + 1))
      }
    }
  }
  # three classes, scaled, against the full-space code path (.span = FALSE)
  x <- matrix(rnorm(15 * 60), 15, 60)
  y <- gl(3, 5)
  xnew <- matrix(rnorm(4 * 60), 4, 60)
  for (type in 2:3) for (k in c("rbf", "polynomial")) {
    a <- kernel_bayes(x, y, type = type, kernel = k, coef0 = 1, ridge = 1, .span = TRUE)
    b <- kernel_bayes(x, y, type = type, kernel = k, coef0 = 1, ridge = 1, .span = FALSE)
    expect_equal(predict(a, xnew, type = "decision"), predict(b, xnew, type = "decision"),
                 tolerance = 1e-8)
    expect_equal(predict(a, xnew, type = "prob"), predict(b, xnew, type = "prob"),
                 tolerance = 1e-8)
  }
})

test_that("more columns than rows: coef()'s whitening in the span reproduces the scores", {
  set.seed(2015)
  x <- matrix(rnorm(12 * 50), 12, 50)
  y <- gl(2, 6, labels = c("a", "b"))
  xnew <- matrix(rnorm(3 * 50), 3, 50)
  fit <- kernel_bayes(x, y, type = 2, kernel = "rbf", gamma = 0.01, scale = FALSE)
  w <- coef(fit)$whitening
  expect_equal(crossprod(w$basis), diag(12))
  r <- sqrt(rowSums((xnew - xnew %*% w$basis %*% t(w$basis))^2))
  z <- cbind(xnew %*% w$basis %*% w$U, r * sqrt(w$outside[["U"]]))
  zt <- cbind(x %*% w$basis %*% w$U, 0)
  dec <- kernel_matrix(z, zt, kernel = "rbf", gamma = 0.01) %*% coef(fit)$alpha + coef(fit)$b
  expect_equal(drop(dec), unname(predict(fit, xnew, type = "decision")))
})
