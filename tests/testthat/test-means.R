# kernel_means() against plain-R transcriptions of the kernel nearest-means
# formulas (the binary kernel centroid rule; Roshan's feature-space distances
# to the class means for any number of classes), against the explicit linear centroid rule and
# against MASS::lda.  Expected values never come from the package itself.

# kappa(x, x) for every row of z
self_k <- function(z, kp) {
  vapply(seq_len(nrow(z)), function(i) Kr(z[i, , drop = FALSE], z[i, , drop = FALSE], kp)[1, 1],
         numeric(1))
}

# The nearest-means rule: squared feature-space distance from each row of z to the
# mean of the rows of S:
#   kappa(x, x) + 1/|S|^2 sum_ij kappa(x_i, x_j) - 2/|S| sum_i kappa(x, x_i)
seed_dist <- function(z, S, kp) {
  nS <- nrow(S)
  self_k(z, kp) + sum(Kr(S, S, kp)) / nS^2 - 2 / nS * rowSums(Kr(z, S, kp))
}

# Distances of the rows of z to every class mean: a matrix, one column per level.
seed_dist_all <- function(z, x, y, kp) by_class(z, x, y, function(S) seed_dist(z, S, kp))

kernel_params <- list(
  list(kernel = "linear", gamma = 1, degree = 1, coef0 = 0),
  list(kernel = "polynomial", gamma = 0.3, degree = 2, coef0 = 1),
  list(kernel = "polynomial", gamma = 0.5, degree = 3, coef0 = 0),
  list(kernel = "rbf", gamma = 0.4, degree = 3, coef0 = 0),
  list(kernel = "rbf", gamma = 2.5, degree = 3, coef0 = 0),
  list(kernel = "laplace", gamma = 0.7, degree = 3, coef0 = 0),
  list(kernel = "sigmoid", gamma = 0.2, degree = 3, coef0 = -0.3))

fit_means <- function(x, y, kp, ...) fit_kp(kernel_means, x, y, kp, ...)

# two classes of unequal size; the first level ("pos") is not first alphabetically
make_binary <- function(seed, n_pos = 23, n_neg = 41, p = 3) {
  make_binary_data(seed, n_pos, n_neg, p, mean_pos = 0.8, mean_neg = -0.3, sd_neg = 1.3,
                   labels = c("pos", "neg"), sd_new = 1.5)
}

# three classes of unequal size, levels not in alphabetical order
make_three <- function(seed, sizes = c(12, 30, 21), p = 4) {
  set.seed(seed)
  centers <- matrix(c(1, 0, 0, 0,  -1, 1, 0, 0.5,  0, -1, 1, -0.5), 3, byrow = TRUE)
  x <- do.call(rbind, lapply(1:3, function(g) {
    sweep(matrix(rnorm(sizes[g] * p), sizes[g]), 2, centers[g, 1:p], "+")
  }))
  y <- factor(rep(c("c3", "a1", "b2"), sizes), levels = c("c3", "a1", "b2"))
  o <- sample(nrow(x))
  list(x = x[o, ], y = y[o], new = matrix(rnorm(20 * p, sd = 1.4), 20))
}

test_that("binary decision values are the kernel centroid rule for every kernel", {
  d <- make_binary(201)
  Sp <- d$x[d$y == "pos", ]
  Sm <- d$x[d$y == "neg", ]
  for (kp in kernel_params) {
    fit <- fit_means(d$x, d$y, kp, scale = FALSE)
    for (z in list(d$new, d$x)) {
      dplus <- seed_dist(z, Sp, kp)
      dminus <- seed_dist(z, Sm, kp)
      b <- 0.5 * (sum(Kr(Sp, Sp, kp)) / nrow(Sp)^2 - sum(Kr(Sm, Sm, kp)) / nrow(Sm)^2)
      h <- rowMeans(Kr(z, Sp, kp)) - rowMeans(Kr(z, Sm, kp)) - b
      dec <- predict(fit, z, type = "decision")
      expect_true(is.null(dim(dec)))
      expect_equal(unname(dec), h, tolerance = 1e-8, info = kp$kernel)
      # the same number: half the difference of the squared distances
      expect_equal(unname(dec), (dminus - dplus) / 2, tolerance = 1e-8, info = kp$kernel)
      # the centroid rule: +1 (the first level) if d-(x) > d+(x), -1 otherwise
      want <- factor(ifelse(dminus > dplus, "pos", "neg"), levels = c("pos", "neg"))
      expect_identical(unname(predict(fit, z)), want, info = kp$kernel)
    }
    expect_equal(unname(fit$center_norms),
                 c(sum(Kr(Sp, Sp, kp)) / nrow(Sp)^2, sum(Kr(Sm, Sm, kp)) / nrow(Sm)^2),
                 tolerance = 1e-8, info = kp$kernel)
    expect_identical(names(fit$center_norms), c("pos", "neg"))
  }
})

test_that("the centroid rule's sign: the first level is +1, ties go to -1", {
  # symmetric classes: points on the perpendicular bisector are exact ties
  x <- rbind(c(1, 0), c(-1, 0), c(1, 0.5), c(-1, 0.5))
  y <- factor(c("up", "down", "up", "down"), levels = c("up", "down"))
  new <- rbind(c(0, 5), c(0, -2), c(0.1, 0), c(-0.1, 3))
  for (k in c("linear", "rbf", "laplace")) {
    fit <- kernel_means(x, y, kernel = k, gamma = 0.5, scale = FALSE)
    dec <- unname(predict(fit, new, type = "decision"))
    expect_identical(dec[1:2], c(0, 0), info = k)
    expect_gt(dec[3], 0)
    expect_lt(dec[4], 0)
    expect_identical(as.character(predict(fit, new)), c("down", "down", "up", "down"), info = k)
  }
  # relabelling the levels flips the sign of the decision values
  set.seed(202)
  xr <- matrix(rnorm(40), 20)
  yr <- factor(rep(c("a", "b"), c(8, 12)))
  f1 <- kernel_means(xr, yr, kernel = "rbf", gamma = 0.5)
  f2 <- kernel_means(xr, factor(yr, levels = c("b", "a")), kernel = "rbf", gamma = 0.5)
  expect_equal(predict(f2, type = "decision"), -predict(f1, type = "decision"),
               tolerance = 1e-12)
  expect_identical(as.character(predict(f1)), as.character(predict(f2)))
  expect_identical(unname(as.character(predict(f1))),
                   unname(ifelse(predict(f1, type = "decision") > 0, "a", "b")))
})

test_that("multi-class scores and classes follow the distances to the class means", {
  d <- make_three(203)
  for (kp in kernel_params) {
    fit <- fit_means(d$x, d$y, kp, scale = FALSE)
    for (z in list(d$new, d$x)) {
      dist <- seed_dist_all(z, d$x, d$y, kp)
      dec <- predict(fit, z, type = "decision")
      expect_identical(colnames(dec), levels(d$y))
      # f_c(x) = (kappa(x, x) - ||phi(x) - m_c||^2) / 2
      expect_equal(unname(dec), unname((self_k(z, kp) - dist) / 2), tolerance = 1e-8,
                   info = kp$kernel)
      # ... = mean k(x, S_c) - ||m_c||^2 / 2
      f <- vapply(levels(d$y), function(l) {
        S <- d$x[d$y == l, , drop = FALSE]
        rowMeans(Kr(z, S, kp)) - sum(Kr(S, S, kp)) / nrow(S)^2 / 2
      }, numeric(nrow(z)))
      expect_equal(unname(dec), unname(f), tolerance = 1e-8, info = kp$kernel)
      # the class is the nearest mean
      nearest <- factor(levels(d$y)[apply(dist, 1, which.min)], levels = levels(d$y))
      expect_identical(unname(predict(fit, z)), nearest, info = kp$kernel)
    }
    norms <- vapply(levels(d$y), function(l) {
      S <- d$x[d$y == l, , drop = FALSE]
      sum(Kr(S, S, kp)) / nrow(S)^2
    }, numeric(1))
    expect_equal(fit$center_norms, norms, tolerance = 1e-8, info = kp$kernel)
  }
})

test_that("probabilities: softmax of f_c / sigma2, sigma2 the pooled within-class distance", {
  for (case in list(make_binary(204), make_three(205))) {
    for (kp in kernel_params[c(1, 2, 4, 6)]) {
      fit <- fit_means(case$x, case$y, kp, scale = FALSE)
      # sigma2: mean over training points of the squared distance to their own mean
      dtrain <- seed_dist_all(case$x, case$x, case$y, kp)
      s2 <- mean(dtrain[cbind(seq_len(nrow(case$x)), as.integer(case$y))])
      expect_equal(fit$sigma2, s2, tolerance = 1e-8, info = kp$kernel)
      # the documented closed form gives the same number
      n_c <- as.numeric(table(case$y))
      cn <- vapply(levels(case$y), function(l) {
        S <- case$x[case$y == l, , drop = FALSE]
        sum(Kr(S, S, kp)) / nrow(S)^2
      }, numeric(1))
      expect_equal(fit$sigma2, mean(self_k(case$x, kp)) - sum(n_c / sum(n_c) * cn),
                   tolerance = 1e-8)
      for (z in list(case$new, case$x)) {
        dist <- seed_dist_all(z, case$x, case$y, kp)
        f <- (self_k(z, kp) - dist) / 2
        e <- exp(f / s2 - apply(f / s2, 1, max))
        want <- e / rowSums(e)
        pr <- predict(fit, z, type = "prob")
        expect_identical(colnames(pr), levels(case$y))
        expect_equal(unname(pr), unname(want), tolerance = 1e-8, info = kp$kernel)
        expect_equal(unname(rowSums(pr)), rep(1, nrow(z)), tolerance = 1e-12)
        expect_true(all(pr >= 0 & pr <= 1))
        expect_identical(levels(case$y)[max.col(pr, ties.method = "first")],
                         as.character(predict(fit, z)))
      }
    }
  }
})

test_that("linear kernel: the explicit centroid rule with colMeans", {
  d <- make_binary(206, n_pos = 31, n_neg = 17, p = 5)
  fit <- kernel_means(d$x, d$y, kernel = "linear", scale = FALSE)
  mp <- colMeans(d$x[d$y == "pos", ])
  mm <- colMeans(d$x[d$y == "neg", ])
  want <- drop(d$new %*% (mp - mm)) - (sum(mp^2) - sum(mm^2)) / 2
  expect_equal(unname(predict(fit, d$new, type = "decision")), want, tolerance = 1e-8)
  # boundary: the perpendicular bisector of the two means
  mid <- (mp + mm) / 2
  expect_equal(unname(predict(fit, rbind(mid), type = "decision")), 0, tolerance = 1e-8)
  # the expansion weights give back w = m+ - m-
  cf <- coef(fit)
  expect_equal(drop(crossprod(fit$x, cf$alpha)), unname(mp - mm), tolerance = 1e-10)
  # three classes: f_c = m_c'x - |m_c|^2 / 2
  t3 <- make_three(207)
  f3 <- kernel_means(t3$x, t3$y, kernel = "linear", scale = FALSE)
  M <- t(vapply(levels(t3$y), function(l) colMeans(t3$x[t3$y == l, ]), numeric(4)))
  want3 <- t3$new %*% t(M) - matrix(rowSums(M^2) / 2, nrow(t3$new), 3, byrow = TRUE)
  expect_equal(unname(predict(f3, t3$new, type = "decision")), unname(want3), tolerance = 1e-8)
})

test_that("linear nearest means on whitened data is MASS::lda with equal priors", {
  skip_if_not_installed("MASS")
  skip_if_not_installed("mlbench")
  # MASS::lda classifies by Mahalanobis distance with the pooled within-class
  # covariance W (denominator n - g).  Whitening with W and using the linear
  # kernel makes the nearest-means scores equal lda's log posteriors up to a
  # per-row constant.
  whiten <- function(x, y) {
    gm <- t(vapply(levels(y), function(l) colMeans(x[y == l, , drop = FALSE]),
                   numeric(ncol(x))))
    r <- x - gm[as.integer(y), , drop = FALSE]
    W <- crossprod(r) / (nrow(x) - nlevels(y))
    solve(chol(W))
  }
  # on the classes b (mlbench) and new rows, both mapped by A: the linear
  # nearest-means rule on whitened inputs and lda with equal priors
  whitened_and_lda <- function(b, new) {
    x <- b$x %*% A
    y <- b$classes
    new <- new %*% A
    U <- whiten(x, y)
    fit <- kernel_means(x %*% U, y, kernel = "linear", scale = FALSE)
    list(decision = predict(fit, new %*% U, type = "decision"), class = predict(fit, new %*% U),
         lda = predict(MASS::lda(x, y, prior = rep(1 / nlevels(y), nlevels(y))), new))
  }
  set.seed(208)
  A <- matrix(c(1.5, 0.6, -0.4, 0.8), 2)
  b2 <- mlbench::mlbench.2dnormals(240, cl = 2, sd = 0.9)
  y2 <- b2$classes
  r2 <- whitened_and_lda(b2, mlbench::mlbench.2dnormals(60, cl = 2, sd = 0.9)$x)
  pl <- r2$lda
  expect_equal(unname(r2$decision), log(pl$posterior[, 1] / pl$posterior[, 2]), tolerance = 1e-8,
               ignore_attr = TRUE)
  expect_identical(as.character(r2$class), as.character(pl$class))
  # with isotropic classes the unwhitened nearest-means direction is close to
  # lda's discriminant direction
  xi <- b2$x
  fi <- kernel_means(xi, y2, kernel = "linear", scale = FALSE)
  li <- MASS::lda(xi, y2, prior = c(0.5, 0.5))
  w <- drop(crossprod(fi$x, coef(fi)$alpha))
  cosang <- sum(w * li$scaling[, 1]) / sqrt(sum(w^2) * sum(li$scaling[, 1]^2))
  expect_gt(abs(cosang), 0.95)

  # three classes
  r3 <- whitened_and_lda(mlbench::mlbench.2dnormals(300, cl = 3, sd = 1),
                         mlbench::mlbench.2dnormals(50, cl = 3, sd = 1)$x)
  s3 <- r3$decision
  lp <- log(r3$lda$posterior)
  expect_equal(unname(s3[, -1] - s3[, 1]), unname(lp[, -1] - lp[, 1]), tolerance = 1e-8)
  expect_identical(as.character(r3$class), as.character(r3$lda$class))
})

test_that("formula method gives the default method's predictions", {
  d <- make_three(209)
  df <- data.frame(d$x, cls = d$y)
  newdf <- data.frame(d$new)
  for (kp in kernel_params[c(2, 4, 6)]) {
    ff <- kernel_means(cls ~ ., data = df, kernel = kp$kernel, gamma = kp$gamma,
                       degree = kp$degree, coef0 = kp$coef0)
    fd <- fit_means(d$x, d$y, kp)
    for (type in c("class", "decision", "prob")) {
      expect_equal(predict(ff, newdf, type = type), predict(fd, d$new, type = type),
                   tolerance = 1e-12, ignore_attr = TRUE, info = type)
    }
    expect_identical(unname(predict(ff, newdf)), unname(predict(fd, d$new)))
    expect_equal(ff$sigma2, fd$sigma2, tolerance = 1e-12)
  }
  # subset and na.action: the same as fitting the default method on those rows
  df2 <- df
  df2$X1[c(2, 9)] <- NA
  ff <- kernel_means(cls ~ X1 + X2 + X3, data = df2, subset = X4 > -1, na.action = na.omit,
                     kernel = "rbf", gamma = 0.3)
  keep <- df2$X4 > -1 & !is.na(df2$X1)
  fd <- kernel_means(as.matrix(df2[keep, c("X1", "X2", "X3")]), df2$cls[keep],
                     kernel = "rbf", gamma = 0.3)
  expect_equal(predict(ff, df2, type = "decision"),
               predict(fd, as.matrix(df2[, c("X1", "X2", "X3")]), type = "decision"),
               tolerance = 1e-12, ignore_attr = TRUE)
  # rows with missing inputs predict NA
  expect_true(all(is.na(predict(ff, df2[c(2, 9), ]))))
  expect_false(anyNA(predict(ff, df2[-c(2, 9), ])))
  # a factor input: one indicator per level, left unscaled; numeric columns scaled
  set.seed(210)
  n <- 50
  dff <- data.frame(a = rnorm(n), b = rnorm(n, 3, 2),
                    f = factor(sample(c("u", "v", "w"), n, TRUE)),
                    cls = factor(sample(c("P", "Q"), n, TRUE)))
  fitf <- kernel_means(cls ~ ., data = dff, kernel = "rbf", gamma = 0.3)
  mm <- cbind(scale(dff$a), scale(dff$b), dff$f == "u", dff$f == "v", dff$f == "w")
  dist <- seed_dist_all(mm, mm, dff$cls, list(kernel = "rbf", gamma = 0.3))
  expect_equal(unname(predict(fitf, dff, type = "decision")), (dist[, 2] - dist[, 1]) / 2,
               tolerance = 1e-8)
})

test_that("scale = TRUE is fitting on scale()d data with scale = FALSE", {
  for (case in list(make_binary(211, p = 4), make_three(212))) {
    # columns on very different scales
    mult <- c(1, 100, 0.01, 7)[seq_len(ncol(case$x))]
    x <- sweep(case$x, 2, mult, "*") + 5
    new <- sweep(case$new, 2, mult, "*") + 5
    sx <- scale(x)
    ctr <- attr(sx, "scaled:center")
    sds <- attr(sx, "scaled:scale")
    snew <- scale(new, center = ctr, scale = sds)
    for (kp in kernel_params[c(2, 4, 6, 7)]) {
      f1 <- fit_means(x, case$y, kp, scale = TRUE)
      f0 <- fit_means(unclass(sx)[, ], case$y, kp, scale = FALSE)
      expect_equal(f1$x, sx, tolerance = 1e-10, ignore_attr = TRUE)
      expect_equal(unname(f1$scaling$center), unname(colMeans(x)), tolerance = 1e-10)
      expect_equal(unname(f1$scaling$scale), unname(apply(x, 2, sd)), tolerance = 1e-10)
      for (type in c("decision", "prob")) {
        expect_equal(predict(f1, new, type = type), predict(f0, snew, type = type),
                     tolerance = 1e-10, ignore_attr = TRUE)
        expect_equal(predict(f1, type = type), predict(f0, type = type),
                     tolerance = 1e-10, ignore_attr = TRUE)
      }
      expect_equal(f1$center_norms, f0$center_norms, tolerance = 1e-10)
      expect_equal(f1$sigma2, f0$sigma2, tolerance = 1e-10)
      # and against the nearest-means formulas on the scaled data
      dist <- seed_dist_all(snew, unclass(sx)[, ], case$y, kp)
      want <- factor(levels(case$y)[apply(dist, 1, which.min)], levels = levels(case$y))
      expect_identical(unname(predict(f1, new)), want)
    }
  }
})

test_that("coef() reproduces the decision values through kernel_matrix()", {
  d <- make_binary(213)
  sx <- scale(d$x)
  snew <- scale(d$new, attr(sx, "scaled:center"), attr(sx, "scaled:scale"))
  for (kp in kernel_params) {
    fit <- fit_means(d$x, d$y, kp)
    cf <- coef(fit)
    expect_length(cf$alpha, nrow(d$x))
    expect_length(cf$b, 1)
    # the centroid rule (Schölkopf and Smola 2002, eq. 1.15): weights 1/|S+| and -1/|S-|, offset -b
    n_p <- sum(d$y == "pos")
    n_m <- sum(d$y == "neg")
    expect_equal(unname(cf$alpha), ifelse(d$y == "pos", 1 / n_p, -1 / n_m), tolerance = 1e-12)
    Sp <- unclass(sx)[d$y == "pos", ]
    Sm <- unclass(sx)[d$y == "neg", ]
    b <- 0.5 * (sum(Kr(Sp, Sp, kp)) / n_p^2 - sum(Kr(Sm, Sm, kp)) / n_m^2)
    expect_equal(cf$b, -b, tolerance = 1e-8, info = kp$kernel)
    km <- kernel_matrix(snew, fit$x, kernel = kp$kernel, gamma = kp$gamma, degree = kp$degree,
                        coef0 = kp$coef0)
    expect_equal(drop(km %*% cf$alpha) + cf$b, unname(predict(fit, d$new, type = "decision")),
                 tolerance = 1e-10, info = kp$kernel)
  }
  t3 <- make_three(214)
  sx <- scale(t3$x)
  snew <- scale(t3$new, attr(sx, "scaled:center"), attr(sx, "scaled:scale"))
  for (kp in kernel_params[c(1, 4, 6)]) {
    fit <- fit_means(t3$x, t3$y, kp)
    cf <- coef(fit)
    expect_identical(dim(cf$alpha), c(nrow(t3$x), 3L))
    n_c <- as.numeric(table(t3$y))
    want_alpha <- outer(as.integer(t3$y), 1:3, "==") * matrix(1 / n_c, nrow(t3$x), 3, byrow = TRUE)
    expect_equal(unname(cf$alpha), want_alpha, tolerance = 1e-12)
    norms <- vapply(levels(t3$y), function(l) {
      S <- unclass(sx)[t3$y == l, , drop = FALSE]
      sum(Kr(S, S, kp)) / nrow(S)^2
    }, numeric(1))
    expect_equal(unname(cf$b), unname(-norms / 2), tolerance = 1e-8)
    km <- kernel_matrix(snew, fit$x, kernel = kp$kernel, gamma = kp$gamma)
    expect_equal(km %*% cf$alpha + matrix(cf$b, nrow(snew), 3, byrow = TRUE),
                 predict(fit, t3$new, type = "decision"), tolerance = 1e-10, ignore_attr = TRUE)
  }
})

test_that("fitted() is predict() on the training data", {
  for (case in list(make_binary(215), make_three(216))) {
    fit <- kernel_means(case$x, case$y, kernel = "laplace", gamma = 0.5)
    expect_identical(fitted(fit), predict(fit))
    expect_equal(fitted(fit), predict(fit, case$x), ignore_attr = TRUE)
    expect_identical(length(fitted(fit)), nrow(case$x))
    expect_identical(levels(fitted(fit)), levels(case$y))
  }
})

test_that("fit and predict are identical for 1 and 2 threads", {
  set.seed(217)
  n <- 400
  x <- matrix(rnorm(n * 6), n)
  y <- factor(sample(c("k", "l", "m"), n, TRUE, prob = c(0.2, 0.5, 0.3)))
  new <- matrix(rnorm(300 * 6), 300)
  yb <- factor(ifelse(x[, 1] + rnorm(n) > 0, "yes", "no"))
  for (kernel in c("rbf", "polynomial", "laplace")) {
    for (lab in list(y, yb)) {
      run <- function() {
        fit <- kernel_means(x, lab, kernel = kernel, gamma = 0.2, degree = 2)
        list(fit = fit, cls = predict(fit, new), dec = predict(fit, new, type = "decision"),
             prob = predict(fit, new, type = "prob"), fitted = fitted(fit))
      }
      r1 <- with_threads(1, run())
      r2 <- with_threads(2, run())
      expect_identical(r1$fit$center_norms, r2$fit$center_norms)
      expect_identical(r1$fit$sigma2, r2$fit$sigma2)
      expect_identical(r1, r2)
    }
  }
})
