# kernel_parzen() against plain-R transcriptions of the Parzen-window Bayes
# classifier of Schölkopf and Smola (2002), section 1.2 (Parzen window
# estimates p_c(x) = 1/m_c sum_{i in c} k(x, x_i), eq. 1.14, weighted by the
# class priors) and its link to the nearest-means rule (eq. 1.11 with b = 0).
# Expected values never come from the package itself.

# Schölkopf and Smola (2002), eq. (1.14): p_c(x) for every row of z and every class
parzen_p <- function(z, x, y, kp) by_class(z, x, y, function(S) rowSums(Kr(z, S, kp)) / nrow(S))

kernel_params <- list(
  list(kernel = "rbf", gamma = 0.5, degree = 3, coef0 = 0),
  list(kernel = "rbf", gamma = 3, degree = 3, coef0 = 0),
  list(kernel = "laplace", gamma = 0.8, degree = 3, coef0 = 0),
  list(kernel = "linear", gamma = 1, degree = 3, coef0 = 0),
  list(kernel = "polynomial", gamma = 0.4, degree = 2, coef0 = 1),
  list(kernel = "sigmoid", gamma = 0.3, degree = 3, coef0 = 0.2))

fit_parzen <- function(x, y, kp, ...) fit_kp(kernel_parzen, x, y, kp, ...)

make_binary <- function(seed, n_pos = 19, n_neg = 44, p = 3) {
  make_binary_data(seed, n_pos, n_neg, p, mean_pos = 0.7, mean_neg = -0.4, sd_neg = 1.2,
                   labels = c("yes", "no"), sd_new = 1.4)
}

make_three <- function(seed) {
  skip_if_not_installed("mlbench")  # skips the test that asks for these data
  set.seed(seed)
  m <- mlbench::mlbench.cassini(90)
  x <- m$x + matrix(rnorm(length(m$x), sd = 0.3), nrow(m$x))
  keep <- c(which(m$classes == 1)[1:15], which(m$classes == 2), which(m$classes == 3)[1:9])
  y <- factor(c("one", "two", "three")[as.integer(m$classes[keep])],
              levels = c("two", "three", "one"))
  list(x = x[keep, ], y = y, new = mlbench::mlbench.cassini(30)$x)
}

test_that("binary decision: prior_+ p_+(x) - prior_- p_-(x), default priors = proportions", {
  d <- make_binary(301)
  props <- as.numeric(table(d$y)) / length(d$y)
  for (kp in kernel_params) {
    fit <- fit_parzen(d$x, d$y, kp, scale = FALSE)
    expect_equal(unname(fit$prior), props, tolerance = 1e-12)
    for (z in list(d$new, d$x)) {
      p <- parzen_p(z, d$x, d$y, kp)
      want <- props[1] * p[, 1] - props[2] * p[, 2]
      dec <- predict(fit, z, type = "decision")
      expect_true(is.null(dim(dec)))
      expect_equal(unname(dec), want, tolerance = 1e-8, info = kp$kernel)
      cls <- factor(ifelse(want > 0, "yes", "no"), levels = c("yes", "no"))
      expect_identical(unname(predict(fit, z)), cls, info = kp$kernel)
    }
  }
})

test_that("given priors, named or not, weight the Parzen estimates", {
  d <- make_binary(302)
  kp <- kernel_params[[1]]
  f_named <- fit_parzen(d$x, d$y, kp, scale = FALSE, prior = c(no = 0.35, yes = 0.65))
  f_plain <- fit_parzen(d$x, d$y, kp, scale = FALSE, prior = c(0.65, 0.35))
  p <- parzen_p(d$new, d$x, d$y, kp)
  want <- 0.65 * p[, 1] - 0.35 * p[, 2]
  expect_equal(unname(predict(f_named, d$new, type = "decision")), want, tolerance = 1e-8)
  expect_equal(unname(predict(f_plain, d$new, type = "decision")), want, tolerance = 1e-8)
  expect_equal(f_named$prior, c(yes = 0.65, no = 0.35))

  t3 <- make_three(303)
  pri <- c(two = 0.2, one = 0.5, three = 0.3)
  for (kp in kernel_params) {
    fit <- fit_parzen(t3$x, t3$y, kp, scale = FALSE, prior = pri)
    for (z in list(t3$new, t3$x)) {
      p <- parzen_p(z, t3$x, t3$y, kp)
      f <- sweep(p, 2, pri[levels(t3$y)], "*")
      dec <- predict(fit, z, type = "decision")
      expect_identical(colnames(dec), levels(t3$y))
      expect_equal(unname(dec), unname(f), tolerance = 1e-8, info = kp$kernel)
      cls <- factor(levels(t3$y)[apply(f, 1, which.max)], levels = levels(t3$y))
      expect_identical(unname(predict(fit, z)), cls, info = kp$kernel)
    }
    # default priors: the class proportions
    fd <- fit_parzen(t3$x, t3$y, kp, scale = FALSE)
    props <- as.numeric(table(t3$y)) / length(t3$y)
    p <- parzen_p(t3$new, t3$x, t3$y, kp)
    expect_equal(unname(predict(fd, t3$new, type = "decision")),
                 unname(sweep(p, 2, props, "*")), tolerance = 1e-8)
  }
})

test_that("posterior: prior_c p_c / sum, sums to 1, argmax is the class", {
  for (case in list(make_binary(304), make_three(305))) {
    G <- nlevels(case$y)
    pri <- seq_len(G) / sum(seq_len(G))
    for (kp in kernel_params[1:3]) {
      for (prior in list(NULL, pri)) {
        fit <- fit_parzen(case$x, case$y, kp, scale = FALSE, prior = prior)
        use <- if (is.null(prior)) as.numeric(table(case$y)) / length(case$y) else prior
        for (z in list(case$new, case$x)) {
          f <- sweep(parzen_p(z, case$x, case$y, kp), 2, use, "*")
          pr <- predict(fit, z, type = "prob")
          expect_identical(colnames(pr), levels(case$y))
          expect_equal(unname(pr), unname(f / rowSums(f)), tolerance = 1e-8, info = kp$kernel)
          expect_equal(unname(rowSums(pr)), rep(1, nrow(z)), tolerance = 1e-12)
          expect_identical(levels(case$y)[max.col(pr, ties.method = "first")],
                           as.character(predict(fit, z)))
        }
      }
    }
  }
})

test_that("rbf posterior is the Bayes posterior of Gaussian Parzen densities (dnorm)", {
  # gamma = 1 / (2 h^2): k(x, x_i) is, up to a constant, prod_k dnorm(x_k, x_ik, h)
  d <- make_binary(306)
  h <- 0.6
  fit <- kernel_parzen(d$x, d$y, kernel = "rbf", gamma = 1 / (2 * h^2), scale = FALSE,
                       prior = c(0.3, 0.7))
  dens <- function(z, S) {
    apply(z, 1, function(pt) mean(apply(S, 1, function(s) prod(dnorm(pt, s, h)))))
  }
  py <- dens(d$new, d$x[d$y == "yes", ])
  pn <- dens(d$new, d$x[d$y == "no", ])
  post <- 0.3 * py / (0.3 * py + 0.7 * pn)
  expect_equal(unname(predict(fit, d$new, type = "prob")[, "yes"]), post, tolerance = 1e-8)
})

test_that("prob needs a density kernel; decision values still work", {
  d <- make_binary(307)
  for (kp in kernel_params[4:6]) {
    fit <- fit_parzen(d$x, d$y, kp, scale = FALSE)
    expect_error(predict(fit, d$new, type = "prob"),
                 class = "kernclass_prob_unavailable_error")
    expect_error(predict(fit, type = "prob"), class = "kernclass_error")
    expect_length(predict(fit, d$new, type = "decision"), nrow(d$new))
  }
})

test_that("equal priors, two classes, rbf: the nearest-means rule with b = 0", {
  d <- make_binary(308)
  kp <- list(kernel = "rbf", gamma = 0.6, degree = 3, coef0 = 0)
  fit <- fit_parzen(d$x, d$y, kp, scale = FALSE, prior = c(0.5, 0.5))
  z <- rbind(d$new, d$x)
  Sp <- d$x[d$y == "yes", ]
  Sm <- d$x[d$y == "no", ]
  diffk <- rowMeans(Kr(z, Sp, kp)) - rowMeans(Kr(z, Sm, kp))
  dec <- unname(predict(fit, z, type = "decision"))
  expect_equal(dec, diffk / 2, tolerance = 1e-8)
  expect_identical(sign(dec), sign(diffk))
  expect_identical(unname(as.character(predict(fit, z))), ifelse(diffk > 0, "yes", "no"))
  # kernel_means adds -b; removing the centroid rule's b gives twice the Parzen value
  fm <- kernel_means(d$x, d$y, kernel = "rbf", gamma = 0.6, scale = FALSE)
  b <- 0.5 * (mean(Kr(Sp, Sp, kp)) - mean(Kr(Sm, Sm, kp)))
  expect_equal(unname(predict(fm, z, type = "decision")) + b, 2 * dec, tolerance = 1e-8)

  # class means at the same distance from the origin (mirror-image classes):
  # b = 0 and the two classifiers agree exactly (Schölkopf and Smola, 1.2)
  set.seed(309)
  half <- matrix(rnorm(30 * 2, mean = 0.5), 30)
  xm <- rbind(half, -half)
  ym <- factor(rep(c("A", "B"), each = 30))
  newm <- matrix(rnorm(40 * 2, sd = 1.5), 40)
  fp <- kernel_parzen(xm, ym, kernel = "rbf", gamma = 0.6, scale = FALSE)
  fmm <- kernel_means(xm, ym, kernel = "rbf", gamma = 0.6, scale = FALSE)
  expect_equal(unname(fmm$center_norms[1]), unname(fmm$center_norms[2]), tolerance = 1e-12)
  expect_equal(predict(fmm, newm, type = "decision"), 2 * predict(fp, newm, type = "decision"),
               tolerance = 1e-10)
  expect_identical(predict(fmm, newm), predict(fp, newm))
})

test_that("formula method gives the default method's predictions", {
  t3 <- make_three(310)
  df <- data.frame(u = t3$x[, 1], v = t3$x[, 2], cls = t3$y)
  newdf <- data.frame(v = t3$new[, 2], u = t3$new[, 1]) # columns in another order
  for (kp in kernel_params[c(1, 3)]) {
    ff <- kernel_parzen(cls ~ u + v, data = df, kernel = kp$kernel, gamma = kp$gamma,
                        prior = c(0.2, 0.3, 0.5))
    fd <- fit_parzen(t3$x, t3$y, kp, prior = c(0.2, 0.3, 0.5))
    for (type in c("class", "decision", "prob")) {
      expect_equal(predict(ff, newdf, type = type), predict(fd, t3$new, type = type),
                   tolerance = 1e-12, ignore_attr = TRUE, info = type)
    }
    expect_identical(unname(fitted(ff)), unname(fitted(fd)))
  }
  # subset: the same as the default method on those rows
  ff <- kernel_parzen(cls ~ ., data = df, subset = u > -1, kernel = "laplace", gamma = 0.8)
  keep <- df$u > -1
  fd <- kernel_parzen(t3$x[keep, ], droplevels(t3$y[keep]), kernel = "laplace", gamma = 0.8)
  expect_equal(predict(ff, newdf, type = "prob"), predict(fd, t3$new, type = "prob"),
               tolerance = 1e-12, ignore_attr = TRUE)
})

test_that("scale = TRUE is fitting on scale()d data with scale = FALSE", {
  d <- make_binary(311, p = 3)
  x <- sweep(d$x, 2, c(50, 0.02, 3), "*") - 10
  new <- sweep(d$new, 2, c(50, 0.02, 3), "*") - 10
  sx <- scale(x)
  snew <- scale(new, attr(sx, "scaled:center"), attr(sx, "scaled:scale"))
  for (kp in kernel_params[c(1, 3, 5)]) {
    f1 <- fit_parzen(x, d$y, kp, scale = TRUE)
    f0 <- fit_parzen(unclass(sx)[, ], d$y, kp, scale = FALSE)
    expect_equal(f1$x, sx, tolerance = 1e-10, ignore_attr = TRUE)
    expect_equal(predict(f1, new, type = "decision"), predict(f0, snew, type = "decision"),
                 tolerance = 1e-10, ignore_attr = TRUE)
    expect_identical(unname(predict(f1, new)), unname(predict(f0, snew)))
    props <- as.numeric(table(d$y)) / length(d$y)
    p <- parzen_p(snew, unclass(sx)[, ], d$y, kp)
    expect_equal(unname(predict(f1, new, type = "decision")),
                 props[1] * p[, 1] - props[2] * p[, 2], tolerance = 1e-8)
  }
})

test_that("coef() reproduces the decision values through kernel_matrix()", {
  d <- make_binary(312)
  sx <- scale(d$x)
  snew <- scale(d$new, attr(sx, "scaled:center"), attr(sx, "scaled:scale"))
  pri <- c(0.4, 0.6)
  n_c <- as.numeric(table(d$y))
  for (kp in kernel_params) {
    fit <- fit_parzen(d$x, d$y, kp, prior = pri)
    cf <- coef(fit)
    expect_equal(unname(cf$alpha), ifelse(d$y == "yes", pri[1] / n_c[1], -pri[2] / n_c[2]),
                 tolerance = 1e-12)
    expect_equal(cf$b, 0)
    km <- kernel_matrix(snew, fit$x, kernel = kp$kernel, gamma = kp$gamma, degree = kp$degree,
                        coef0 = kp$coef0)
    expect_equal(drop(km %*% cf$alpha) + cf$b, unname(predict(fit, d$new, type = "decision")),
                 tolerance = 1e-10, info = kp$kernel)
  }
  t3 <- make_three(313)
  fit <- kernel_parzen(t3$x, t3$y, kernel = "rbf", gamma = 0.5)
  cf <- coef(fit)
  sx <- scale(t3$x)
  snew <- scale(t3$new, attr(sx, "scaled:center"), attr(sx, "scaled:scale"))
  km <- kernel_matrix(snew, fit$x, kernel = "rbf", gamma = 0.5)
  expect_equal(km %*% cf$alpha + matrix(cf$b, nrow(snew), 3, byrow = TRUE),
               predict(fit, t3$new, type = "decision"), tolerance = 1e-10, ignore_attr = TRUE)
  expect_equal(unname(colSums(cf$alpha)), as.numeric(table(t3$y)) / length(t3$y),
               tolerance = 1e-12)
})

test_that("fitted() is predict() on the training data", {
  t3 <- make_three(314)
  fit <- kernel_parzen(t3$x, t3$y, kernel = "rbf", gamma = 2)
  expect_identical(fitted(fit), predict(fit))
  expect_equal(fitted(fit), predict(fit, t3$x), ignore_attr = TRUE)
})

test_that("fit and predict are identical for 1 and 2 threads", {
  set.seed(315)
  n <- 400
  x <- matrix(rnorm(n * 5), n)
  y <- factor(sample(c("r", "s", "t"), n, TRUE, prob = c(0.5, 0.3, 0.2)))
  yb <- factor(ifelse(x[, 2] - x[, 1] + rnorm(n) > 0, "hi", "lo"))
  new <- matrix(rnorm(300 * 5), 300)
  for (kernel in c("rbf", "laplace")) {
    for (lab in list(y, yb)) {
      run <- function() {
        fit <- kernel_parzen(x, lab, kernel = kernel, gamma = 0.3)
        list(fit = fit, cls = predict(fit, new), dec = predict(fit, new, type = "decision"),
             prob = predict(fit, new, type = "prob"), fitted = fitted(fit))
      }
      expect_identical(with_threads(1, run()), with_threads(2, run()))
    }
  }
})
