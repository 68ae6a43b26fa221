# kernel_svm(): the solution satisfies the KKT conditions of the soft-margin
# SVM's dual (Cortes and Vapnik 1995); the hard margin is the thickest slab (against quadprog); the
# soft margin matches the primal QP and e1071's leave-one-out errors; and the
# options (threads, scaling, cache, shrinking, weights, formula, predict,
# coef, summary, plot) behave. Expected values come from plain R, quadprog
# and e1071, never from kernclass itself.

testthat::local_edition(3)

# ---- plain-R references ----------------------------------------------------

svm_k <- function(a, b, kernel, gamma, degree = 3, coef0 = 0) {
  ref_kernel(as.matrix(a), as.matrix(b), kernel, gamma, degree, coef0)  # helper-reference.R
}
svm_fk <- function(fit, a, b) {
  svm_k(a, b, fit$kernel$name, fit$kernel$gamma, fit$kernel$degree, fit$kernel$coef0)
}

# For each class pair: the training rows, labels +1 (first class) / -1, the
# dual variables, upper bounds and the decision values f = sum coefs k + b,
# recomputed in R from the training data (fit$x, scaled) and fit$coefs.
svm_pairs <- function(fit) {
  lev <- fit$levels
  pairs <- utils::combn(length(lev), 2)
  K <- svm_fk(fit, fit$x, fit$SV)
  lapply(seq_len(ncol(pairs)), function(m) {
    rows <- which(as.integer(fit$y) %in% pairs[, m])
    eta <- numeric(length(fit$y))
    eta[fit$index] <- fit$eta[, m]
    list(name = paste(lev[pairs[1, m]], lev[pairs[2, m]], sep = "/"),
         rows = rows,
         y = ifelse(as.integer(fit$y[rows]) == pairs[1, m], 1, -1),
         eta = eta[rows], C = fit$C[rows], other = eta[-rows],
         f = drop(K[rows, , drop = FALSE] %*% fit$coefs[, m]) + fit$b[[m]])
  })
}

# The KKT conditions of every pair's dual, within tol:
#   eta = 0 -> y f >= 1 - tol;  0 < eta < C -> |y f - 1| <= tol;
#   eta = C -> y f <= 1 + tol;  0 <= eta <= C;  eta'y = 0.
expect_kkt <- function(fit, tol = 2 * fit$tolerance, label = "") {
  for (p in svm_pairs(fit)) {
    lab <- paste(label, p$name)
    yf <- p$y * p$f
    zero <- p$eta == 0 & p$C > 0  # weight-0 observations take no part
    upper <- p$eta >= p$C & p$C > 0
    free <- p$eta > 0 & p$eta < p$C
    expect_true(all(p$eta >= 0 & p$eta <= p$C), label = paste(lab, "0 <= eta <= C"))
    expect_true(all(p$other == 0), label = paste(lab, "no dual variables outside the pair"))
    expect_lte(abs(sum(p$eta * p$y)), 1e-9 * max(1, sum(p$eta)), label = paste(lab, "eta'y = 0"))
    expect_true(all(yf[zero] >= 1 - tol), label = paste(lab, "eta = 0 -> y f >= 1"))
    expect_true(all(abs(yf[free] - 1) <= tol), label = paste(lab, "0 < eta < C -> y f = 1"))
    expect_true(all(yf[upper] <= 1 + tol), label = paste(lab, "eta = C -> y f <= 1"))
    # the reported objective is 1/2 (eta y)'K(eta y) - sum eta
    K <- svm_fk(fit, fit$x[p$rows, , drop = FALSE], fit$x[p$rows, , drop = FALSE])
    v <- p$eta * p$y
    obj <- 0.5 * sum(v * (K %*% v)) - sum(p$eta)
    expect_equal(unname(fit$objective[p$name]), obj, tolerance = 1e-6,
                 label = paste(lab, "objective"))
    expect_equal(unname(fit$n_at_bound[p$name]), sum(upper),
                 label = paste(lab, "n_at_bound"))
  }
}

# The two-Gaussian sampler of the SVM examples: class -1 ~ N(0, I), class +1 ~ mu + A z.
seed_A <- matrix(c(1, -1/2, -1/2, 1), 2)
seed_sample <- function(n, mu) {
  y <- sample(c(-1, 1), n, replace = TRUE)
  x <- t(vapply(y, function(cl) if (cl == -1) stats::rnorm(2) else
    mu + drop(seed_A %*% stats::rnorm(2)), numeric(2)))
  list(x = x, y = y, f = factor(y, levels = c(1, -1)))  # first level is +1
}

# The hard-margin primal, min |beta|^2 s.t. y (beta'x + alpha) >= 1, by
# quadprog; `ridge` keeps Dmat positive definite in the alpha direction.
# Both QPs skip the test that calls them when quadprog is not installed.
hard_margin_qp <- function(x, y, ridge = 1e-10) {
  skip_if_not_installed("quadprog")
  sol <- quadprog::solve.QP(diag(c(rep(1, ncol(x)), ridge)), rep(0, ncol(x) + 1),
                            t(y * cbind(x, 1)), rep(1, nrow(x)))$solution
  list(beta = sol[seq_len(ncol(x))], alpha = sol[ncol(x) + 1])
}

# The soft-margin primal, min 1/2 |beta|^2 + C sum zeta s.t.
# y (beta'x + alpha) >= 1 - zeta, zeta >= 0.
soft_margin_qp <- function(x, y, C, ridge = 1e-10) {
  skip_if_not_installed("quadprog")
  n <- nrow(x)
  p <- ncol(x)
  D <- diag(c(rep(1, p), rep(ridge, 1 + n)))
  A <- cbind(rbind(t(y * x), y, diag(n)), rbind(matrix(0, p + 1, n), diag(n)))
  qp <- quadprog::solve.QP(D, c(rep(0, p + 1), rep(-C, n)), A, c(rep(1, n), rep(0, n)))
  s <- qp$solution
  list(beta = s[seq_len(p)], alpha = s[p + 1], zeta = s[-seq_len(p + 1)],
       value = 0.5 * sum(s[seq_len(p)]^2) + C * sum(s[-seq_len(p + 1)]))
}

# ---- KKT conditions --------------------------------------------------------

test_that("the solution satisfies the KKT conditions for every kernel", {
  set.seed(11)
  tr <- sample(150, 120)
  x <- as.matrix(iris[tr, 1:4])
  y <- iris$Species[tr]
  for (kernel in c("linear", "polynomial", "rbf", "laplace", "sigmoid")) {
    gamma <- if (kernel == "sigmoid") 0.05 else 0.5
    fit <- kernel_svm(x, y, kernel = kernel, gamma = gamma, coef0 = 1, degree = 2, cost = 3)
    expect_true(fit$converged)
    expect_true(all(fit$kkt_violation < fit$tolerance))
    expect_kkt(fit, label = kernel)
  }
  # binary, smaller tolerance, class and observation weights
  two <- droplevels(y[y != "setosa"])
  x2 <- x[y != "setosa", ]
  w <- rep(c(0.5, 1, 2), length.out = length(two))
  fit <- kernel_svm(x2, two, cost = 10, tolerance = 1e-5, weights = w,
                    class.weights = c(virginica = 3))
  expect_equal(unname(fit$C), 10 * w * ifelse(two == "virginica", 3, 1))
  expect_kkt(fit, label = "weighted")
})

test_that("the stored fields describe the same solution", {
  set.seed(12)
  fit <- kernel_svm(Species ~ ., data = iris, cost = 2)
  eta <- fit$eta
  expect_identical(fit$index, which(rowSums(abs(coef(fit)$alpha)) > 0))
  expect_true(all(rowSums(eta) > 0))
  expect_equal(fit$SV, fit$x[fit$index, ])
  sign <- vapply(1:3, function(m) {
    pr <- utils::combn(3, 2)[, m]
    ifelse(as.integer(iris$Species[fit$index]) == pr[1], 1,
           ifelse(as.integer(iris$Species[fit$index]) == pr[2], -1, 0))
  }, numeric(length(fit$index)))
  expect_equal(unname(fit$coefs), unname(eta * sign))
  expect_identical(colnames(fit$eta), c("setosa/versicolor", "setosa/virginica",
                                        "versicolor/virginica"))
  expect_identical(unname(fit$nSV), tabulate(iris$Species[fit$index], 3))
  # training rows of a pair are the only ones with eta > 0 in its column
  out <- sign == 0
  expect_true(all(eta[out] == 0))
})

# ---- the hard margin: the thickest slab ------------------------------------

test_that("the hard margin on separable data is the thickest slab (quadprog)", {
  set.seed(2)
  d <- seed_sample(100, c(3, 3))
  # separable: the hard-margin QP is feasible and its solution satisfies
  # every constraint
  qp <- hard_margin_qp(d$x, d$y)
  expect_true(all(d$y * (d$x %*% qp$beta + qp$alpha) >= 1 - 1e-8))
  # the ridge on alpha does not matter
  qp2 <- hard_margin_qp(d$x, d$y, ridge = 1e-7)
  expect_equal(c(qp2$beta, qp2$alpha), c(qp$beta, qp$alpha), tolerance = 1e-6)

  fit <- kernel_svm(d$x, d$f, kernel = "linear", cost = Inf, scale = FALSE)
  expect_true(fit$converged)
  expect_identical(fit$cost, Inf)
  beta <- colSums(fit$coefs[, 1] * fit$SV)
  alpha <- unname(fit$b)
  expect_equal(c(beta, alpha), c(qp$beta, qp$alpha), tolerance = 1e-3)
  # slab width 2/|beta|, which is also the gap between the classes along beta
  width <- 2 / sqrt(sum(beta^2))
  expect_equal(width, 2 / sqrt(sum(qp$beta^2)), tolerance = 1e-3)
  u <- drop(d$x %*% qp$beta) / sqrt(sum(qp$beta^2))
  expect_equal(width, min(u[d$y == 1]) - max(u[d$y == -1]), tolerance = 1e-3)
  # every point is on its side of the slab, support vectors on the edges
  yf <- d$y * drop(d$x %*% beta + alpha)
  expect_true(all(yf >= 1 - 1e-3))
  expect_true(all(abs(yf[fit$index] - 1) <= 1e-3))
  expect_identical(unname(fit$n_at_bound), 0)
  # the support vectors are points on the edge of quadprog's slab
  yq <- d$y * drop(d$x %*% qp$beta + qp$alpha)
  expect_true(all(yq[fit$index] <= 1 + 2e-3))
  expect_setequal(fit$index, which(yq <= 1 + 1e-6))
  # decision values are beta'x + alpha
  expect_equal(unname(predict(fit, type = "decision")), drop(d$x %*% beta) + alpha,
               tolerance = 1e-10)
  expect_kkt(fit, label = "hard margin")
  # a tighter tolerance gets closer to the QP
  tight <- kernel_svm(d$x, d$f, kernel = "linear", cost = Inf, scale = FALSE, tolerance = 1e-7)
  expect_equal(c(colSums(tight$coefs[, 1] * tight$SV), tight$b), c(qp$beta, qp$alpha),
               tolerance = 1e-6, ignore_attr = TRUE)
})

test_that("the hard margin on overlapping data is a not-separable error", {
  set.seed(4)
  d <- seed_sample(100, c(1, 1))
  for (scale in c(FALSE, TRUE)) {
    expect_error(kernel_svm(d$x, d$f, kernel = "linear", cost = Inf, scale = scale),
                 class = "kernclass_not_separable_error")
  }
  expect_error(kernel_svm(d$x, d$f, kernel = "linear", cost = Inf), "`cost`",
               class = "kernclass_error")
  # with a finite cost it is fine
  expect_true(kernel_svm(d$x, d$f, kernel = "linear", cost = 1)$converged)
  # not linearly separable indeed: the hard-margin QP has no feasible point
  expect_error(hard_margin_qp(d$x, d$y), "constraints are inconsistent")
})

test_that("the hard margin with the rbf kernel separates overlapping data", {
  # distinct points are always separable in the rbf feature space
  set.seed(4)
  d <- seed_sample(100, c(1, 1))
  fit <- kernel_svm(d$x, d$f, kernel = "rbf", gamma = 5, cost = Inf)
  expect_true(fit$converged)
  expect_identical(predict(fit), d$f)
  expect_identical(unname(fit$n_at_bound), 0)
  expect_kkt(fit, label = "rbf hard margin")
  # LIBSVM with a cost far above every dual variable solves the same problem
  skip_if_not_installed("e1071")
  m <- e1071::svm(d$x, d$f, kernel = "radial", gamma = 5, cost = 1e8)
  K <- svm_k(m$SV, m$SV, "rbf", 5)
  obj <- 0.5 * sum(m$coefs * (K %*% m$coefs)) - sum(abs(m$coefs))
  expect_lt(max(abs(m$coefs)), 1e6)
  expect_equal(unname(fit$objective), obj, tolerance = 1e-3)
})

# ---- the soft margin: hinge loss and its dual -----------------------------

test_that("the soft margin of the two-Gaussian example: eta by position in the slab", {
  set.seed(1)
  n <- 20
  X <- rbind(cbind(stats::rnorm(n) + 1, stats::rnorm(n) + 1),
             cbind(stats::rnorm(n) - 1, stats::rnorm(n)))
  y <- rep(c(1, -1), each = n)
  for (C in c(0.05, 0.5, 5)) {
    fit <- kernel_svm(X, factor(y, levels = c(1, -1)), kernel = "linear", cost = C,
                      scale = FALSE)
    eta <- abs(coef(fit)$alpha)
    beta <- colSums(fit$coefs[, 1] * fit$SV)
    yf <- y * drop(X %*% beta + fit$b)
    tol <- 2e-3
    # 0 on the correct side of the slab, C inside it or on the wrong side,
    # strictly between 0 and C only on its edges
    expect_true(all(eta[yf > 1 + tol] == 0), label = paste("C =", C, "outside"))
    expect_true(all(eta[yf < 1 - tol] == C), label = paste("C =", C, "inside"))
    between <- eta > 0 & eta < C
    expect_true(any(between))
    expect_true(all(abs(yf[between] - 1) <= tol), label = paste("C =", C, "edge"))
    # the soft-margin primal QP: same beta, alpha, and objective (duality)
    qp <- soft_margin_qp(X, y, C)
    expect_equal(c(beta, fit$b), c(qp$beta, qp$alpha), tolerance = 1e-3, ignore_attr = TRUE)
    expect_equal(-unname(fit$objective), qp$value, tolerance = 1e-4)
    # and the regularised hinge-loss (lambda) form: minimised at the same point, C = 1/(2 lambda n)
    lambda <- 1 / (2 * C * 2 * n)
    L <- function(b, a) lambda * sum(b^2) + mean(pmax(0, 1 - y * (X %*% b + a)))
    expect_equal(L(beta, fit$b), L(qp$beta, qp$alpha), tolerance = 1e-4)
  }
})

test_that("cost chosen by leave-one-out CV: same errors and choice as e1071", {
  skip_if_not_installed("e1071")
  set.seed(4)
  d <- seed_sample(60, c(1, 1))
  n <- nrow(d$x)
  # a lambda range of the hinge-loss form, mapped by C = 1/(2 lambda n) for the n - 1 points of a fit
  lambda <- c(0.001, 0.005, 0.02, 0.05, 0.25)
  costs <- 1 / (2 * lambda * (n - 1))
  loo <- function(fitter) {
    vapply(costs, function(C) {
      sum(vapply(seq_len(n), function(i) {
        pred <- fitter(d$x[-i, , drop = FALSE], d$f[-i], C, d$x[i, , drop = FALSE])
        as.character(pred) != as.character(d$f[i])
      }, logical(1)))
    }, numeric(1))
  }
  ours <- loo(function(x, y, C, new) {
    predict(kernel_svm(x, y, kernel = "linear", cost = C, scale = FALSE), new)
  })
  theirs <- loo(function(x, y, C, new) {
    predict(e1071::svm(x, y, kernel = "linear", cost = C, scale = FALSE), new)
  })
  expect_identical(ours, theirs)
  expect_identical(which.min(ours), which.min(theirs))
  expect_true(all(ours < n / 2))
})

# ---- options that must not change the answer ------------------------------

test_that("results are identical for 1 and 2 threads", {
  set.seed(21)
  n <- 600
  x <- matrix(stats::rnorm(n * 6), n)
  y <- factor(sample(c("a", "b", "c"), n, replace = TRUE))
  x[y == "a", 1] <- x[y == "a", 1] + 1.5
  x[y == "b", 2] <- x[y == "b", 2] - 1
  newx <- matrix(stats::rnorm(300 * 6), 300)
  for (kernel in c("rbf", "laplace", "polynomial")) {
    run <- function(threads) {
      old <- options(kernclass.threads = threads)
      on.exit(options(old))
      fit <- kernel_svm(x, y, kernel = kernel, cost = 2, cachesize = 1)
      list(fit = fit, dec = predict(fit, newx, type = "decision"))
    }
    one <- run(1)
    two <- run(2)
    expect_identical(one, two)
  }
})

test_that("scale = TRUE is scale() by hand with scale = FALSE", {
  skip_if_not_installed("mlbench")
  e <- new.env()
  utils::data("Sonar", package = "mlbench", envir = e)
  x <- as.matrix(e$Sonar[, 1:60])
  y <- e$Sonar$Class
  set.seed(22)
  tr <- sample(nrow(x), 150)
  xs <- scale(x[tr, ])
  fit1 <- kernel_svm(x[tr, ], y[tr], cost = 3)
  fit2 <- kernel_svm(xs, y[tr], cost = 3, scale = FALSE, gamma = 1 / 60)
  expect_equal(unname(fit1$scaling$center), unname(colMeans(x[tr, ])))
  expect_equal(unname(fit1$scaling$scale), unname(apply(x[tr, ], 2, stats::sd)))
  expect_null(fit2$scaling)
  expect_equal(fit1$eta, fit2$eta, tolerance = 1e-6)
  expect_equal(fit1$b, fit2$b, tolerance = 1e-6)
  expect_identical(fit1$index, fit2$index)
  newx <- scale(x[-tr, ], attr(xs, "scaled:center"), attr(xs, "scaled:scale"))
  expect_equal(predict(fit1, x[-tr, ], type = "decision"),
               predict(fit2, newx, type = "decision"), tolerance = 1e-6, ignore_attr = TRUE)
})

test_that("coef() gives the expansion of the decision values", {
  set.seed(23)
  newx <- as.matrix(iris[sample(150, 40), 1:4]) + stats::rnorm(160, sd = 0.2)
  scaled <- function(fit, x) {
    sweep(sweep(x, 2, fit$scaling$center), 2, fit$scaling$scale, "/")
  }
  # multi-class: a column of alpha and an offset per pair
  fit <- kernel_svm(as.matrix(iris[, 1:4]), iris$Species, kernel = "polynomial", degree = 2,
                    gamma = 0.3, coef0 = 1)
  cf <- coef(fit)
  expect_identical(dim(cf$alpha), c(150L, 3L))
  expect_identical(colnames(cf$alpha), names(fit$b))
  dec <- svm_fk(fit, scaled(fit, newx), fit$x) %*% cf$alpha + rep(cf$b, each = nrow(newx))
  expect_equal(predict(fit, newx, type = "decision"), dec, ignore_attr = TRUE,
               tolerance = 1e-10)
  # two classes: a vector and a number
  two <- iris$Species != "setosa"
  fit2 <- kernel_svm(as.matrix(iris[two, 1:4]), droplevels(iris$Species[two]),
                     kernel = "laplace", gamma = 0.7)
  cf2 <- coef(fit2)
  expect_length(cf2$alpha, sum(two))
  expect_length(cf2$b, 1)
  dec2 <- unname(drop(svm_fk(fit2, scaled(fit2, newx), fit2$x) %*% cf2$alpha) + cf2$b)
  expect_equal(unname(predict(fit2, newx, type = "decision")), dec2, tolerance = 1e-10)
  # the class is the sign of the decision
  expect_identical(unname(as.character(predict(fit2, newx))),
                   ifelse(dec2 > 0, "versicolor", "virginica"))
})

test_that("the formula method equals the default method", {
  set.seed(24)
  df <- iris
  df$w <- sample(1:3, 150, replace = TRUE)
  f1 <- kernel_svm(Species ~ Sepal.Length + Petal.Length + Petal.Width, data = df, cost = 2)
  f2 <- kernel_svm(df[, c("Sepal.Length", "Petal.Length", "Petal.Width")], df$Species, cost = 2)
  f3 <- kernel_svm(as.matrix(df[, c("Sepal.Length", "Petal.Length", "Petal.Width")]),
                   df$Species, cost = 2)
  for (f in list(f2, f3)) {
    expect_equal(f1$eta, f$eta)
    expect_equal(f1$b, f$b)
    expect_identical(f1$index, f$index)
    expect_identical(predict(f1, df), predict(f, df))
  }
  # subset and weights come from the data
  keep <- df$Sepal.Width > 2.8
  f4 <- kernel_svm(Species ~ . - w, data = df, subset = Sepal.Width > 2.8, weights = w,
                   kernel = "linear")
  f5 <- kernel_svm(df[keep, 1:4], df$Species[keep], weights = df$w[keep], kernel = "linear")
  expect_equal(f4$eta, f5$eta)
  expect_equal(f4$b, f5$b)
  expect_equal(unname(f4$C), df$w[keep])
  expect_identical(predict(f4, df), predict(f5, df))
})

test_that("the model is the same bit for bit whatever the cache, the memory limit and threads", {
  # The kernel rows in the LRU cache (tiny cachesize), the whole float store
  # (large), the class pairs' shared blocks (several classes) and the
  # default cachesize that the memory limit sets: one model, to the last
  # bit, with shrinking on (the gradient of shrunk variables is rebuilt).
  # Until the rebuild was one for every store, a tiny cache changed the
  # iterations and the coefficients at cost 100. (About 2 s.)
  set.seed(3)
  n <- 500
  x <- matrix(stats::rnorm(n * 4), n)
  y2 <- factor(ifelse(x[, 1] * x[, 2] + stats::rnorm(n, sd = 0.5) > 0, "p", "q"))
  y3 <- factor(ifelse(x[, 1] + stats::rnorm(n, sd = 0.8) > 0.4, "a",
                      ifelse(x[, 2] + stats::rnorm(n, sd = 0.8) > 0, "b", "c")))
  what <- function(f) list(coefs = f$coefs, b = f$b, index = f$index, iterations = f$iterations)
  # (0.6 MB: an LRU cache of more than half the rows, which computes them 4
  # at a time)
  settings <- list(list(cachesize = 0.02), list(cachesize = 100), list(cachesize = 0.6),
                   list(memory = 1), list(memory = 1e5), list(cachesize = 0.02, threads = 2),
                   list(cachesize = 100, threads = 2))
  fits <- function(...) lapply(settings, function(s) {
    old <- options(kernclass.memory_limit = s$memory)
    on.exit(options(old))
    with_threads(if (is.null(s$threads)) 1 else s$threads,
                 what(kernel_svm(x, ..., cachesize = s$cachesize, shrinking = TRUE)))
  })
  for (case in list(list(y2, cost = 100), list(y3, cost = 100),
                    list(y2, type = "nu-classification", nu = 0.6),
                    list(y3, type = "nu-classification", nu = 0.4),
                    list(type = "one-classification", nu = 0.1))) {
    got <- do.call(fits, case)
    for (g in got[-1]) expect_identical(g, got[[1]])
  }
})

test_that("a tiny cache and no shrinking give the same solution", {
  pima <- pima_data()
  x <- as.matrix(pima[, 1:7])
  big <- kernel_svm(x, pima$type, cost = 2, cachesize = 200)
  small <- kernel_svm(x, pima$type, cost = 2, cachesize = 0.01)
  expect_equal(small$eta, big$eta)
  expect_equal(small$b, big$b)
  expect_identical(small$index, big$index)
  noshrink <- kernel_svm(x, pima$type, cost = 2, shrinking = FALSE)
  expect_true(noshrink$converged)
  expect_equal(noshrink$objective, big$objective, tolerance = 1e-4)
  expect_lte(abs(length(noshrink$index) - length(big$index)), 3)
  expect_kkt(noshrink, label = "no shrinking")
  dec_a <- predict(big, x[1:200, ], type = "decision")
  dec_b <- predict(noshrink, x[1:200, ], type = "decision")
  expect_lte(max(abs(dec_a - dec_b)), 0.01)
})

test_that("max_iter reached: a warning and converged = FALSE", {
  set.seed(26)
  expect_warning(
    fit <- kernel_svm(Species ~ ., data = iris, max_iter = 5),
    "`max_iter`", class = "kernclass_warning")
  expect_false(fit$converged)
  expect_true(all(fit$iterations <= 5))
  expect_true(any(fit$kkt_violation > fit$tolerance))
  expect_output(print(fit), "did not converge")
  # the warning has its own class, too
  expect_warning(kernel_svm(Species ~ ., data = iris, max_iter = 1),
                 class = "kernclass_convergence_warning")
})

test_that("observation weights are replication counts and multiply the cost", {
  skip_if_not_installed("e1071")
  set.seed(27)
  n <- 50
  d <- two_shifted(n, 0.8)
  x <- d$x
  y <- d$y
  w <- sample(1:3, n, replace = TRUE)
  rep_rows <- rep(seq_len(n), w)
  for (C in c(0.01, 1, 10)) {
    fw <- kernel_svm(x, y, kernel = "rbf", gamma = 0.5, cost = C, weights = w, scale = FALSE)
    expect_equal(unname(fw$C), C * w)
    expect_kkt(fw, label = paste("weights, C =", C))
    fr <- kernel_svm(x[rep_rows, ], y[rep_rows], kernel = "rbf", gamma = 0.5, cost = C,
                     scale = FALSE)
    m <- e1071::svm(x[rep_rows, ], y[rep_rows], kernel = "radial", gamma = 0.5, cost = C,
                    scale = FALSE)
    K <- svm_k(m$SV, m$SV, "rbf", 0.5)
    obj <- 0.5 * sum(m$coefs * (K %*% m$coefs)) - sum(abs(m$coefs))
    expect_equal(unname(fw$objective), obj, tolerance = 1e-3, label = paste("C =", C))
    expect_equal(unname(fw$objective), unname(fr$objective), tolerance = 1e-3)
    newx <- matrix(stats::rnorm(60), 30)
    dm <- attr(predict(m, newx, decision.values = TRUE), "decision.values")[, "a/b"]
    expect_lte(max(abs(predict(fw, newx, type = "decision") - dm)), 0.01)
    expect_identical(predict(fw, newx), predict(fr, newx))
  }
})

# ---- methods -----------------------------------------------------------------

test_that("summary() prints invisibly with the table of class pairs", {
  fit <- kernel_svm(Species ~ ., data = iris, cost = 0.5)
  s <- summary(fit)
  expect_s3_class(s, "summary.kernel_svm")
  expect_identical(rownames(s$pairs), names(fit$b))
  expect_identical(unname(s$pairs$support_vectors), unname(colSums(fit$eta > 0)))
  at_bound <- vapply(svm_pairs(fit), function(p) sum(p$eta > 0 & p$eta >= p$C), numeric(1))
  expect_equal(unname(s$pairs$at_bound), at_bound)
  expect_equal(unname(s$pairs$b), unname(fit$b))
  expect_identical(s$nSV, fit$nSV)
  out <- capture.output(res <- withVisible(print(s)))
  expect_false(res$visible)
  expect_true(any(grepl("Binary problems", out)))
  for (p in names(fit$b)) expect_true(any(grepl(p, out, fixed = TRUE)), label = p)
  expect_true(any(grepl("Support vectors per class", out)))
  # training accuracy from the predictions
  expect_equal(s$accuracy, mean(predict(fit) == iris$Species))
  out <- capture.output(res <- withVisible(print(fit)))
  expect_false(res$visible)
  expect_true(any(grepl(sprintf("Support vectors: %d", length(fit$index)), out)))
  hard <- kernel_svm(Species ~ Petal.Length + Petal.Width,
                     data = droplevels(iris[iris$Species != "virginica", ]),
                     kernel = "linear", cost = Inf)
  expect_output(print(summary(hard)), "hard margin")
})

test_that("plot() of a 3-class fit draws the regions predict() gives", {
  fit <- kernel_svm(Species ~ Petal.Length + Petal.Width, data = iris, cost = 5)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  res <- withVisible(plot(fit, iris, grid = 30))
  expect_false(res$visible)
  g <- res$value
  grid <- expand.grid(Petal.Length = g$x1, Petal.Width = g$x2)
  expect_identical(as.vector(g$class), as.character(predict(fit, grid)))
  expect_equal(unname(g$decision), unname(predict(fit, grid, type = "decision")))
  # and a two-class fit on a matrix, without data
  two <- iris$Species != "setosa"
  fit2 <- kernel_svm(as.matrix(iris[two, 3:4]), droplevels(iris$Species[two]),
                     kernel = "linear", cost = 10)
  expect_no_error(plot(fit2))
})

test_that("plot() circles support vectors only when it draws the training points", {
  train <- seq(1, 150, by = 2)
  fit <- kernel_svm(Species ~ Petal.Length + Petal.Width, data = iris[train, ])
  expect_true(kernclass:::kc_plot_is_training(fit, iris[train, 3:4]))
  # as many points, but others (the test half of iris)
  expect_false(kernclass:::kc_plot_is_training(fit, iris[-train, 3:4]))
  expect_false(kernclass:::kc_plot_is_training(fit, iris[3:4]))
  two <- iris$Species != "setosa"
  fit2 <- kernel_svm(as.matrix(iris[two, 3:4]), droplevels(iris$Species[two]))
  pd <- kernclass:::kc_plot_data(fit2, NULL, NULL)  # the training data, unscaled again
  expect_true(kernclass:::kc_plot_is_training(fit2, pd$inputs))
  pd$inputs[1, 1] <- pd$inputs[1, 1] + 1
  expect_false(kernclass:::kc_plot_is_training(fit2, pd$inputs))
})

# ---- regressions ----------------------------------------------------------------

test_that("class.weights = \"balanced\" predicts the minority class of imbalanced data", {
  set.seed(42)
  n1 <- 190
  n2 <- 10
  draw <- function() rbind(matrix(rnorm(n1 * 2), n1), matrix(rnorm(n2 * 2, mean = 1), n2))
  x <- draw()
  xt <- draw()
  y <- factor(rep(c("major", "minor"), c(n1, n2)))
  minority <- function(cw) sum(predict(kernel_svm(x, y, class.weights = cw), xt) == "minor")
  # unweighted, and with e1071's "inverse" weights 1 / n_c (bounds 0.005 and
  # 0.1 at cost = 1), no row is predicted "minor"
  expect_identical(minority(NULL), 0L)
  expect_identical(minority(c(major = 1 / n1, minor = 1 / n2)), 0L)
  # balanced: bounds n / (k n_c) = 200 / 380 and 200 / 20
  bal <- kernel_svm(x, y, class.weights = "balanced")
  expect_equal(unname(bal$C), ifelse(y == "major", 200 / (2 * n1), 200 / (2 * n2)))
  p <- predict(bal, xt)
  expect_gt(sum(p == "minor"), 0L)
  expect_gte(mean(p[y == "minor"] == "minor"), 0.3)
})

test_that("observations with weight 0 are as if left out, offset b included", {
  skip_if_not_installed("e1071")
  # A weight of 0 must act as a replication count of 0. With small costs no
  # support vector is free and b comes from the feasible interval, where
  # points with C_i = 0 (both 'at the lower' and 'at the upper' bound) were
  # once counted as at the upper bound, moving b (even its sign).
  set.seed(3)
  n <- 40
  d <- two_shifted(n, 1)
  x <- d$x
  y <- d$y
  w <- rep(c(1, 0, 2), length.out = n)
  keep <- rep(seq_len(n), w)
  for (C in c(0.001, 0.01, 1)) {
    fw <- kernel_svm(x, y, kernel = "linear", cost = C, weights = w, scale = FALSE)
    expect_false(any(w[fw$index] == 0))
    expect_kkt(fw, label = paste("weight 0, C =", C))
    m <- e1071::svm(x[keep, ], y[keep], kernel = "linear", cost = C, scale = FALSE)
    # with free support vectors b is an average over them: within tolerance
    expect_equal(unname(fw$b), -m$rho, tolerance = if (C < 1) 1e-6 else 1e-2,
                 label = paste("b, C =", C))
    newx <- matrix(stats::rnorm(40), 20)
    expect_identical(predict(fw, newx), predict(m, newx), ignore_attr = TRUE,
                     label = paste("predictions, C =", C))
  }
})
