# Property tests on many small random problems (seeded): predictions must
# not depend on the order of the training rows, on the names or order of the
# class levels, or (for the RBF and Laplacian kernels, which see only
# differences) on a shift of all inputs; SVM solutions must be feasible.

testthat::local_edition(3)

n_problems <- 25L
# one kernel thread: results do not depend on it (test-reproducible.R), and
# two threads on problems this small are slow on a busy machine
old_options <- options(kernclass.threads = 1L)

# A random small problem: 2 or 3 classes of 8-25 points in 2-4 dimensions,
# overlapping, in random order, with new points to predict.
random_problem <- function(seed) {
  set.seed(seed)
  G <- sample(2:3, 1)
  p <- sample(2:4, 1)
  n <- sample(8:25, G, replace = TRUE)
  centres <- matrix(rnorm(G * p, sd = 1.5), G)
  cls <- rep(seq_len(G), n)
  x <- centres[cls, , drop = FALSE] + matrix(rnorm(sum(n) * p), sum(n))
  o <- sample(length(cls))
  list(x = x[o, , drop = FALSE], y = factor(c("k1", "k2", "k3")[cls[o]], levels = c("k1", "k2", "k3")[1:G]),
       new = matrix(rnorm(30 * p, sd = 2), 30), kernel = sample(c("rbf", "laplace"), 1),
       gamma = exp(runif(1, log(0.1), log(2))), G = G)
}
problems <- lapply(800 + seq_len(n_problems), random_problem)

fit_with <- function(fitter, pr, x = pr$x, y = pr$y, ...) {
  args <- list(x, y, kernel = pr$kernel, gamma = pr$gamma, scale = FALSE, ...)
  if (fitter == "kernel_svm") args <- c(args, list(cost = 2, tolerance = 1e-7))
  suppressWarnings(do.call(fitter, args))
}
decision <- function(fit, new) {
  d <- predict(fit, new, type = "decision")
  if (is.null(dim(d))) as.matrix(d) else d
}
fitters <- c("kernel_means", "kernel_parzen", "kernel_bayes", "kernel_svm")
# SMO stops at tolerance 1e-7 on the KKT conditions: its decision values
# agree to about that; the closed forms agree to rounding
tol <- c(kernel_means = 1e-9, kernel_parzen = 1e-9, kernel_bayes = 1e-7, kernel_svm = 1e-4)

# Classes agree where the decision is not within `margin` of a tie (for
# one-vs-one models: no pair near 0 and no three-way tie of the votes).
expect_same_classes_off_boundary <- function(fit_a, fit_b, new, new_b = new, margin = 1e-3,
                                             info = NULL) {
  cls_a <- predict(fit_a, new)
  cls_b <- predict(fit_b, new_b)
  d <- decision(fit_a, new)
  if (ncol(d) == 1L || inherits(fit_a, "kernclass_ovo")) {
    clear <- apply(abs(d), 1, min) > margin
    if (ncol(d) == 3L) {  # pairs 1/2, 1/3, 2/3
      votes <- cbind((d[, 1] > 0) + (d[, 2] > 0), (d[, 1] <= 0) + (d[, 3] > 0),
                     (d[, 2] <= 0) + (d[, 3] <= 0))
      clear <- clear & apply(votes, 1, max) == 2
    }
  } else {
    s <- t(apply(d, 1, sort, decreasing = TRUE))
    clear <- s[, 1] - s[, 2] > margin
  }
  expect_identical(as.character(cls_a[clear]), as.character(cls_b[clear]), info = info)
}

test_that("permuting the training rows changes no prediction", {
  for (i in seq_along(problems)) {
    pr <- problems[[i]]
    o <- sample(nrow(pr$x))
    for (f in fitters) {
      info <- sprintf("problem %d, %s, %s", i, f, pr$kernel)
      a <- fit_with(f, pr)
      b <- fit_with(f, pr, x = pr$x[o, , drop = FALSE], y = pr$y[o])
      expect_equal(decision(b, pr$new), decision(a, pr$new), tolerance = tol[[f]], info = info)
      expect_same_classes_off_boundary(a, b, pr$new, info = info)
    }
  }
})

test_that("renaming the classes or reversing their order changes no prediction", {
  for (i in seq_along(problems)) {
    pr <- problems[[i]]
    renamed <- pr$y
    levels(renamed) <- c("zulu", "alpha", "mike")[seq_len(pr$G)]  # same order, new names
    rename <- function(cls) factor(c("zulu", "alpha", "mike")[as.integer(cls)],
                                   levels = levels(renamed))
    reversed <- factor(pr$y, levels = rev(levels(pr$y)))
    for (f in fitters) {
      info <- sprintf("problem %d, %s", i, f)
      a <- fit_with(f, pr)
      b <- fit_with(f, pr, y = renamed)
      da <- decision(a, pr$new)
      expect_equal(unname(decision(b, pr$new)), unname(da), tolerance = tol[[f]], info = info)
      expect_identical(predict(b, pr$new), rename(predict(a, pr$new)), info = info)
      if (f == "kernel_bayes") next  # its threshold search picks the first of tied splits
      r <- fit_with(f, pr, y = reversed)
      if (pr$G == 2L) {
        # the first level is the positive class: the decision changes sign
        expect_equal(unname(decision(r, pr$new)), -unname(da), tolerance = tol[[f]], info = info)
      }
      expect_same_classes_off_boundary(a, r, pr$new, info = info)
    }
  }
})

test_that("shifting all inputs changes no prediction (RBF and Laplacian kernels)", {
  for (i in seq_along(problems)) {
    pr <- problems[[i]]
    shift <- runif(ncol(pr$x), -20, 20)
    xs <- sweep(pr$x, 2, shift, "+")
    news <- sweep(pr$new, 2, shift, "+")
    for (f in fitters) {
      info <- sprintf("problem %d, %s, %s", i, f, pr$kernel)
      a <- fit_with(f, pr)
      b <- fit_with(f, pr, x = xs)
      # kernel values from ||x||^2 + ||y||^2 - 2x'y lose digits far from 0
      expect_equal(decision(b, news), decision(a, pr$new), tolerance = max(tol[[f]], 1e-7),
                   info = info)
      expect_same_classes_off_boundary(a, b, pr$new, news, info = info)
    }
  }
})

test_that("SVM solutions are feasible: 0 <= eta <= C and sum(y eta) = 0 per pair", {
  for (i in seq_along(problems)) {
    pr <- problems[[i]]
    n <- nrow(pr$x)
    w <- runif(n, 0.2, 3)
    cw <- stats::setNames(runif(pr$G, 0.5, 2), levels(pr$y))
    for (args in list(list(), list(weights = w, class.weights = cw), list(cost = Inf))) {
      info <- sprintf("problem %d, %s", i, paste(names(args), collapse = "+"))
      fit <- tryCatch(suppressWarnings(do.call(kernel_svm, c(list(pr$x, pr$y, kernel = pr$kernel,
                                                                  gamma = pr$gamma), args))),
                      kernclass_not_separable_error = function(e) NULL)
      if (is.null(fit)) next  # cost = Inf on data that are not separable
      C <- fit$C
      expect_length(C, n)
      eta <- fit$eta
      expect_true(all(eta >= 0), info = info)
      expect_true(all(eta <= C[fit$index] * (1 + 1e-12)), info = info)
      pairs <- strsplit(colnames(eta), "/", fixed = TRUE)
      for (m in seq_along(pairs)) {
        cls <- as.character(pr$y[fit$index])
        # only the pair's own classes take part in its problem
        expect_true(all(eta[!cls %in% pairs[[m]], m] == 0), info = info)
        sign <- ifelse(cls == pairs[[m]][1], 1, -1)
        expect_equal(fit$coefs[, m], sign * eta[, m], info = info)
        expect_lt(abs(sum(sign * eta[, m])), 1e-9 * max(1, sum(eta[, m])), label = info)
      }
      # with two classes coef() gives the expansion of the decision value
      if (pr$G == 2L) {
        cf <- coef(fit)
        expect_equal(sum(cf$alpha), 0, tolerance = 1e-9)
      }
    }
  }
})

options(old_options)
