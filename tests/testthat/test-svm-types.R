# kernel_svm(type = "nu-classification") and (type = "one-classification"):
# each dual is transcribed in plain R and solved by quadprog on a small
# problem; both agree with LIBSVM (e1071::svm) on several data sets (the
# objective computed from e1071's own coefficients and a plain-R kernel,
# rho, support vectors, predictions, decision values); nu-SVC is the C-SVC
# of cost 1/r; weights are replication counts; bad input is a classed error.

testthat::local_edition(3)

# ---- plain-R references ----------------------------------------------------

# The one-class dual (Schoelkopf et al. 2001, in LIBSVM's scaling):
#   min 1/2 a'Ka  s.t.  sum(a) = nu n, 0 <= a <= 1,
# and rho, the mean of (Ka)_i over the free a_i.
oneclass_qp <- function(K, nu, ridge = 1e-10) {
  n <- nrow(K)
  qp <- quadprog::solve.QP(K + ridge * diag(n), rep(0, n), cbind(1, diag(n), -diag(n)),
                           c(nu * n, rep(0, n), rep(-1, n)), meq = 1)
  a <- pmin(pmax(qp$solution, 0), 1)
  free <- a > 1e-6 & a < 1 - 1e-6
  list(alpha = a, rho = mean((K %*% a)[free]), objective = 0.5 * sum(a * (K %*% a)))
}

# The nu-SVC dual of Chang and Lin (2001), as LIBSVM solves it:
#   min 1/2 a'Qa  s.t.  sum over each class of a = nu n / 2, 0 <= a <= 1,
# with r1, r2 the means of (Qa)_i over the free a_i of each class; LIBSVM
# reports coefs = a y / r, rho = (r1 - r2) / 2 / r, r = (r1 + r2) / 2.
nusvc_qp <- function(K, y, nu, ridge = 1e-10) {
  n <- nrow(K)
  Q <- K * outer(y, y)
  A <- cbind(y == 1, y == -1, diag(n), -diag(n))
  qp <- quadprog::solve.QP(Q + ridge * diag(n), rep(0, n), A,
                           c(nu * n / 2, nu * n / 2, rep(0, n), rep(-1, n)), meq = 2)
  a <- pmin(pmax(qp$solution, 0), 1)
  G <- drop(Q %*% a)
  free <- a > 1e-6 & a < 1 - 1e-6
  r1 <- mean(G[free & y == 1])
  r2 <- mean(G[free & y == -1])
  r <- (r1 + r2) / 2
  list(coefs = a * y / r, b = -(r1 - r2) / 2 / r, cost = 1 / r,
       objective = 0.5 * sum(a * (Q %*% a)) / r^2)
}

# The objective LIBSVM reports for both nu types, 1/2 c'Kc per problem,
# from e1071's own coefficients and scaled support vectors.
e1071_nu_objective <- function(m, kp) {
  K <- ref_kernel(m$SV, m$SV, kp$kernel, kp$gamma, kp$degree, kp$coef0)
  if (m$type == 2) return(0.5 * sum(m$coefs * (K %*% m$coefs)))
  vapply(e1071_pairs(m), function(p) {
    0.5 * sum(p$coef * (K[p$sv, p$sv, drop = FALSE] %*% p$coef))
  }, numeric(1))
}

kernels <- list(
  rbf = list(kernel = "rbf", e1071 = "radial", degree = 3, coef0 = 0),
  linear = list(kernel = "linear", e1071 = "linear", degree = 3, coef0 = 0),
  polynomial = list(kernel = "polynomial", e1071 = "polynomial", degree = 2, coef0 = 1),
  sigmoid = list(kernel = "sigmoid", e1071 = "sigmoid", degree = 3, coef0 = 0))

agreement <- NULL  # one row per comparison, printed for the report on request

# One fit by both packages with the same parameters, everything compared.
# x is scaled by both (scale = TRUE); y NULL for the one-class SVM. (The
# nu-SVC solution is divided by r, which the stopping rule knows to about
# tolerance: with a small r, as for small nu, a smaller tolerance.)
expect_agree_nu <- function(label, x, y, xte, kp, nu, obj_tol = 1e-3, agree_min = 0.99,
                            tolerance = 1e-3) {
  skip_if_not_installed("e1071")
  one <- is.null(y)
  type <- if (one) "one-classification" else "nu-classification"
  fit <- kernel_svm(x, y, kernel = kp$kernel, gamma = kp$gamma, degree = kp$degree,
                    coef0 = kp$coef0, type = type, nu = nu, tolerance = tolerance)
  m <- e1071::svm(x, y, type = type, kernel = kp$e1071, gamma = kp$gamma, degree = kp$degree,
                  coef0 = kp$coef0, nu = nu, tolerance = tolerance, scale = TRUE)
  expect_true(fit$converged, label = label)
  expect_equal(unname(fit$scaling$scale), unname(m$x.scale$`scaled:scale`), tolerance = 1e-12)

  # objective, within 1e-3 relative (absolute below 1: the one-class
  # objective of centred data with the linear kernel is near 0)
  eo <- e1071_nu_objective(m, kp)
  pairs <- names(fit$b)
  if (!one) eo <- eo[match_pairs(pairs, names(eo))$name]
  rel_obj <- max(abs(fit$objective - eo) / pmax(1, abs(eo)))
  expect_lte(rel_obj, obj_tol, label = paste(label, "objective"))

  # support vectors: the same rows, up to 1% (at least one) either way
  slack <- max(1, floor(0.01 * m$tot.nSV))
  expect_lte(abs(length(fit$index) - m$tot.nSV), slack, label = paste(label, "nSV"))
  expect_lte(length(union(setdiff(fit$index, m$index), setdiff(m$index, fit$index))),
             2 * slack, label = paste(label, "SV rows"))
  if (!one) {
    nsv_e <- stats::setNames(m$nSV, m$levels[m$labels])[fit$levels]
    expect_lte(max(abs(fit$nSV - nsv_e)), slack, label = paste(label, "nSV per class"))
  }

  # rho (b = -rho), sign matched by pair names
  if (one) {
    rho_diff <- abs(fit$b + m$rho)
  } else {
    rn <- names(e1071_pairs(m))
    mp <- match_pairs(pairs, rn)
    rho_diff <- abs(fit$b - mp$sign * -stats::setNames(m$rho, rn)[mp$name])
  }
  expect_lte(max(rho_diff), 1e-2 * max(1, abs(m$rho)), label = paste(label, "rho"))

  # predictions and decision values on new data
  pe <- predict(m, xte)
  po <- predict(fit, xte)
  if (one) {
    expect_s3_class(po, "factor")
    expect_identical(levels(po), c("inlier", "outlier"))
    po <- po == "inlier"  # e1071's TRUE
    de <- attr(predict(m, xte, decision.values = TRUE), "decision.values")
  } else {
    po <- as.character(po)
    pe <- as.character(pe)
    de <- e1071_decision(m, xte, pairs)
  }
  agree <- mean(po == pe)
  expect_gte(agree, agree_min, label = paste(label, "prediction agreement"))
  do <- as.matrix(predict(fit, xte, type = "decision"))
  dmax <- max(abs(do - de)) / max(1, max(abs(de)))
  expect_lte(dmax, 0.02, label = paste(label, "decision difference"))
  agreement <<- rbind(agreement, data.frame(
    comparison = label, n = nrow(x), nu = nu, max_rel_objective = rel_obj,
    nSV = length(fit$index), nSV_e1071 = m$tot.nSV, max_rho_diff = max(rho_diff),
    prediction_agreement = agree, max_rel_decision = dmax))
  invisible(list(fit = fit, m = m))
}

# ---- data sets -------------------------------------------------------------

gaussian_classes <- function(seed, sizes, p, shift) {
  set.seed(seed)
  k <- length(sizes)
  y <- factor(rep(letters[seq_len(k)], sizes))
  x <- matrix(stats::rnorm(sum(sizes) * p), ncol = p)
  for (c in seq_len(k)) x[y == letters[c], c] <- x[y == letters[c], c] + shift
  o <- sample(length(y))  # LIBSVM's class order is by first appearance
  list(x = x[o, ], y = y[o], new = matrix(stats::rnorm(400 * p, sd = 1.3), ncol = p))
}

# with, for nu-SVC, values of nu that leave a margin (below about 0.35 the
# reduced convex hulls of `two` overlap with the linear kernel; see the
# test of that error) and stay feasible (at most 2 min(n1, n2) / (n1 + n2),
# 0.8 for `three`, 0.4 for `unbalanced`)
set.seed(60)
nu_sets <- list(
  iris = list(x = as.matrix(iris[, 1:4]), y = iris$Species,
              new = as.matrix(iris[, 1:4]) + stats::rnorm(600, sd = 0.3),
              nu = c(0.1, 0.3, 0.6, 0.95)),
  two = c(gaussian_classes(61, c(150, 150), 5, 1.5), list(nu = c(0.4, 0.6, 0.95))),
  three = c(gaussian_classes(62, c(100, 80, 120), 4, 2), list(nu = c(0.2, 0.4, 0.76))),
  unbalanced = c(gaussian_classes(63, c(60, 240), 3, 1.5), list(nu = c(0.3, 0.38))))

# ---- the plain-R transcriptions --------------------------------------------

test_that("the one-class SVM solves its dual (quadprog) on a small problem", {
  skip_if_not_installed("quadprog")
  set.seed(71)
  x <- rbind(matrix(stats::rnorm(50), 25), matrix(stats::rnorm(10, mean = 3), 5))
  for (nu in c(0.05, 0.2, 0.5, 0.93)) {
    for (kp in list(list(kernel = "rbf", gamma = 0.5), list(kernel = "laplace", gamma = 0.7))) {
      ref <- oneclass_qp(ref_kernel(x, x, kp$kernel, kp$gamma), nu)
      fit <- kernel_svm(x, kernel = kp$kernel, gamma = kp$gamma, scale = FALSE,
                        type = "one-classification", nu = nu, tolerance = 1e-9)
      lab <- paste(kp$kernel, nu)
      alpha <- coef(fit)$alpha
      expect_equal(alpha, ref$alpha, tolerance = 1e-5, label = lab)
      expect_equal(sum(alpha), nu * nrow(x), tolerance = 1e-12, label = lab)
      expect_equal(unname(fit$objective), ref$objective, tolerance = 1e-7, label = lab)
      expect_equal(-coef(fit)$b, ref$rho, tolerance = 1e-5, label = lab)
      # the decision is sum a k(x, x_i) - rho, and 0 < a < 1 lie on it
      dec <- drop(ref_kernel(x, x, kp$kernel, kp$gamma) %*% alpha) + coef(fit)$b
      expect_equal(unname(predict(fit, type = "decision")), dec, tolerance = 1e-10)
      free <- alpha > 1e-8 & alpha < 1 - 1e-8
      expect_lte(max(abs(dec[free])), 1e-6, label = lab)
      expect_true(all(dec[alpha == 0] >= -1e-6) && all(dec[alpha >= 1] <= 1e-6), label = lab)
    }
  }
})

test_that("nu-SVC solves Chang and Lin's dual (quadprog), scaled by 1/r as LIBSVM", {
  skip_if_not_installed("quadprog")
  set.seed(72)
  n <- 40
  x <- matrix(stats::rnorm(2 * n), n)
  y <- ifelse(x[, 1] + x[, 2]^2 + stats::rnorm(n, sd = 0.7) > 1, 1, -1)
  f <- factor(y, levels = c(1, -1))  # +1 the first level
  nmin <- min(table(y))
  for (nu in c(0.1, 0.3, 0.95 * 2 * nmin / n)) {
    ref <- nusvc_qp(ref_kernel(x, x, "rbf", 0.5), y, nu)
    fit <- kernel_svm(x, f, gamma = 0.5, scale = FALSE, type = "nu-classification", nu = nu,
                      tolerance = 1e-9)
    lab <- paste("nu", nu)
    expect_equal(coef(fit)$alpha, ref$coefs, tolerance = 1e-5, label = lab)
    expect_equal(coef(fit)$b, ref$b, tolerance = 1e-5, label = lab)
    expect_equal(unname(fit$cost), ref$cost, tolerance = 1e-5, label = lab)
    # the objective from the gradient of float kernel values (LIBSVM's way,
    # every store alike), divided by r^2: to float rounding times 1/r^2
    expect_equal(unname(fit$objective), ref$objective, tolerance = 1e-5, label = lab)
  }
})

test_that("nu-SVC is the C-SVC of cost 1/r, with the nu-property", {
  s <- nu_sets$three
  x <- scale(s$x)  # scale = FALSE below: each pair's C-SVC sees the same inputs
  new <- scale(s$new, attr(x, "scaled:center"), attr(x, "scaled:scale"))
  for (nu in c(0.2, 0.6)) {
    fit <- kernel_svm(x, s$y, type = "nu-classification", nu = nu, scale = FALSE,
                      tolerance = 1e-6)
    dec <- predict(fit, new, type = "decision")
    for (m in seq_along(fit$b)) {
      pair <- strsplit(names(fit$b)[m], "/", fixed = TRUE)[[1]]
      rows <- s$y %in% pair
      csvc <- kernel_svm(x[rows, ], droplevels(s$y[rows]), cost = fit$cost[[m]], scale = FALSE,
                         tolerance = 1e-6)
      expect_equal(unname(predict(csvc, new, type = "decision")), unname(dec[, m]),
                   tolerance = 1e-4, label = paste(nu, names(fit$b)[m]))
      # nu bounds the fraction of margin errors (eta at the bound) from above
      # and the fraction of support vectors from below (Schoelkopf et al. 2000)
      eta <- numeric(length(fit$y))
      eta[fit$index] <- fit$eta[, m]
      expect_lte(fit$n_at_bound[[m]] / sum(rows), nu + 1e-9)
      expect_gte(sum(eta[rows] > 0) / sum(rows), nu - 1e-9)
    }
  }
})

# ---- against LIBSVM (e1071) -------------------------------------------------

test_that("the one-class SVM agrees with e1071 on several data sets and kernels", {
  skip_if_not_installed("e1071")
  for (ds in names(nu_sets)) {
    s <- nu_sets[[ds]]
    for (kn in names(kernels)) {
      kp <- kernels[[kn]]
      kp$gamma <- if (kn == "sigmoid") 0.05 else 1 / ncol(s$x)
      for (nu in c(0.1, 0.5)) {
        if (kn == "sigmoid" && nu == 0.5) next
        expect_agree_nu(sprintf("one-class %s %s nu %g", ds, kn, nu), s$x, NULL, s$new, kp, nu)
      }
    }
  }
})

test_that("nu-SVC agrees with e1071 on several data sets and kernels", {
  skip_if_not_installed("e1071")
  for (ds in names(nu_sets)) {
    s <- nu_sets[[ds]]
    for (kn in c("rbf", "linear", "polynomial")) {
      kp <- kernels[[kn]]
      kp$gamma <- 1 / ncol(s$x)
      for (nu in s$nu) {
        expect_agree_nu(sprintf("nu-SVC %s %s nu %.3g", ds, kn, nu), s$x, s$y, s$new, kp, nu,
                        tolerance = 1e-5)
      }
    }
  }
})

test_that("a nu below the overlap of the classes is a classed error (w = 0 by quadprog)", {
  s <- nu_sets$two
  err <- expect_error(kernel_svm(s$x, s$y, kernel = "linear", type = "nu-classification",
                                 nu = 0.2), class = "kernclass_nu_infeasible_error")
  expect_identical(err$arg, "nu")
  expect_match(conditionMessage(err), "larger `nu`")
  expect_s3_class(kernel_svm(s$x, s$y, kernel = "linear", type = "nu-classification", nu = 0.4),
                  "kernel_svm")
  # in double precision, min a'Qa = |w|^2 is 0 at nu = 0.2 and not at 0.4
  skip_if_not_installed("quadprog")
  xs <- scale(s$x)
  y <- ifelse(s$y == "a", 1, -1)
  n <- length(y)
  w2 <- vapply(c(0.2, 0.4), function(nu) {
    2 * quadprog::solve.QP(tcrossprod(xs * y) + 1e-9 * diag(n), rep(0, n),
                           cbind(y == 1, y == -1, diag(n), -diag(n)),
                           c(nu * n / 2, nu * n / 2, rep(0, n), rep(-1, n)), meq = 2)$value
  }, numeric(1))
  expect_lt(w2[1], 1e-5)
  expect_gt(w2[2], 10)
})

test_that("nu outside (0, 1] and an infeasible nu are classed errors naming nu", {
  s <- nu_sets$unbalanced  # 60 and 240 rows: nu at most 2 * 60 / 300 = 0.4
  for (nu in list(0, -0.1, 1.01, NA, "a", c(0.1, 0.2), Inf)) {
    expect_error(kernel_svm(s$x, s$y, type = "nu-classification", nu = nu),
                 class = "kernclass_input_error")
    expect_identical(arg_of(kernel_svm(s$x, s$y, type = "nu-classification", nu = nu)), "nu")
    expect_identical(arg_of(kernel_svm(s$x, type = "one-classification", nu = nu)), "nu")
  }
  err <- expect_error(kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.41),
                      class = "kernclass_nu_infeasible_error")
  expect_identical(err$arg, "nu")
  expect_match(conditionMessage(err), "nu <= 0.4")
  # at the largest feasible nu the small class has exactly nu W / 2 of bound:
  # all of its rows are support vectors, every one at the bound
  top <- kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.4)
  small <- s$y[top$index] == "a"
  expect_identical(sum(small), sum(s$y == "a"))
  bound <- max(abs(top$coefs))
  expect_equal(abs(drop(top$coefs[small])), rep(bound, sum(small)), tolerance = 1e-9)
  if (requireNamespace("e1071", quietly = TRUE)) {
    # LIBSVM's own check says the same
    expect_error(e1071::svm(s$x, s$y, type = "nu-classification", nu = 0.41), "infeasible")
  }
  # class weights change the balance: weight 2 for the small class gives
  # W = 120 + 240, so nu up to 2 * 120 / 360; weight 4 makes any nu work
  expect_error(kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.66),
               class = "kernclass_nu_infeasible_error")
  expect_s3_class(kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.66,
                             class.weights = c(a = 2)), "kernel_svm")
  err <- expect_error(kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.67,
                                 class.weights = c(a = 2)),
                      class = "kernclass_nu_infeasible_error")
  expect_match(conditionMessage(err), sprintf("nu <= %s", format(2 * 120 / 360, digits = 6)),
               fixed = TRUE)
  expect_s3_class(kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.9,
                             class.weights = c(a = 4)), "kernel_svm")
  expect_error(kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.9,
                          class.weights = c(b = 4)), class = "kernclass_nu_infeasible_error")
})

# ---- weights -----------------------------------------------------------------

test_that("weights are replication counts for both nu types", {
  set.seed(74)
  n <- 60
  x <- matrix(stats::rnorm(2 * n), n)
  y <- factor(ifelse(x[, 1] - x[, 2] + stats::rnorm(n) > 0, "p", "q"))
  w <- sample(1:3, n, replace = TRUE)
  rep_rows <- rep(seq_len(n), w)
  new <- matrix(stats::rnorm(100), 50)
  # scale = FALSE: the replicated data would be scaled differently. The
  # float kernel cache limits the gradients to about 1e-7 of sum(a), and
  # nu-SVC divides by r, which is small beside it: 1e-4 relative
  for (type in c("nu-classification", "one-classification")) {
    yy <- if (type == "one-classification") NULL else y
    wf <- kernel_svm(x, yy, weights = w, type = type, nu = 0.3, scale = FALSE,
                     tolerance = 1e-7)
    rf <- kernel_svm(x[rep_rows, ], yy[rep_rows], type = type, nu = 0.3, scale = FALSE,
                     tolerance = 1e-7)
    expect_equal(predict(wf, new, type = "decision"), predict(rf, new, type = "decision"),
                 tolerance = 1e-4, label = type)
    expect_equal(unname(wf$objective), unname(rf$objective), tolerance = 1e-4, label = type)
    expect_identical(sort(unique(rep_rows[rf$index])), wf$index)
  }
})

test_that("class.weights reweigh nu-SVC as they reweigh C-SVC (scale-free)", {
  s <- nu_sets$unbalanced
  # (the stopping rule is on the gradient, which the weights scale: a tight
  # tolerance for both)
  plain <- kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.3, tolerance = 1e-8)
  same <- kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.3, tolerance = 1e-8,
                     class.weights = c(a = 2.5, b = 2.5))
  expect_equal(predict(same, s$new, type = "decision"), predict(plain, s$new, type = "decision"),
               tolerance = 1e-6)
  expect_equal(same$b, plain$b, tolerance = 1e-6)
  # weighted nu-SVC = weighted C-SVC with C_i = w_i / r
  wt <- kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.3, class.weights = c(a = 4),
                   tolerance = 1e-6)
  cs <- kernel_svm(s$x, s$y, cost = wt$cost[[1]], class.weights = c(a = 4), tolerance = 1e-6)
  expect_equal(predict(wt, s$new, type = "decision"), predict(cs, s$new, type = "decision"),
               tolerance = 1e-4)
  expect_gt(mean(predict(wt, s$new) == "a"), mean(predict(plain, s$new) == "a"))
})

# ---- the solver ----------------------------------------------------------------

test_that("threads, cache and shrinking: the same nu solutions", {
  s <- nu_sets$three
  for (type in c("nu-classification", "one-classification")) {
    y <- if (type == "one-classification") NULL else s$y
    run <- function(threads, ...) {
      with_threads(threads, kernel_svm(s$x, y, type = type, nu = 0.3, ...))
    }
    one <- run(1, cachesize = 0.01)
    expect_identical(one, run(2, cachesize = 0.01))
    big <- run(2)
    expect_equal(big$coefs, one$coefs, tolerance = 1e-9)
    expect_identical(big$index, one$index)
    noshrink <- run(1, shrinking = FALSE)
    expect_equal(unname(noshrink$objective), unname(big$objective), tolerance = 1e-4)
    expect_lte(max(abs(predict(noshrink, s$new, type = "decision") -
                         predict(big, s$new, type = "decision"))), 0.01)
  }
})

test_that("max_iter reached: a convergence warning for the nu types too", {
  s <- nu_sets$iris
  expect_warning(fit <- kernel_svm(s$x, s$y, type = "nu-classification", max_iter = 2),
                 class = "kernclass_convergence_warning")
  expect_false(fit$converged)
  expect_warning(fit <- kernel_svm(s$x, type = "one-classification", max_iter = 2),
                 class = "kernclass_convergence_warning")
  expect_false(fit$converged)
  expect_output(print(fit), "did not converge")
})

test_that("the one-class start is LIBSVM's: a feasible point, no iteration when optimal", {
  # nu = 1: every a_i = 1, nothing to optimise
  x <- as.matrix(iris[1:20, 1:2])
  fit <- kernel_svm(x, type = "one-classification", nu = 1)
  expect_equal(unname(fit$iterations), 0)
  expect_equal(coef(fit)$alpha, rep(1, 20))
})

# ---- predict, print, summary, plot ----------------------------------------------

test_that("one-class predict: inlier/outlier factor, decision values, NA rows, no probabilities", {
  fit <- kernel_svm(~ ., data = iris[, 1:4], type = "one-classification", nu = 0.2)
  expect_s3_class(fit, c("kernel_svm_oneclass", "kernel_svm", "kernclass"), exact = TRUE)
  new <- iris[c(1, 51, 101), 1:4]
  new[2, 1] <- NA
  p <- predict(fit, new)
  d <- predict(fit, new, type = "decision")
  expect_identical(levels(p), c("inlier", "outlier"))
  expect_true(is.na(p[2]) && is.na(d[2]))
  expect_identical(as.character(p[-2]), unname(ifelse(d[-2] > 0, "inlier", "outlier")))
  expect_error(predict(fit, new, type = "prob"), class = "kernclass_prob_unavailable_error")
  expect_identical(fitted(fit), unname(predict(fit, iris[, 1:4])))
  # the default method on the same matrix gives the same model
  mfit <- kernel_svm(as.matrix(iris[, 1:4]), type = "one", nu = 0.2)
  expect_equal(mfit$coefs, fit$coefs)
  expect_equal(predict(mfit, as.matrix(iris[, 1:4]), type = "decision"),
               unname(predict(fit, iris[, 1:4], type = "decision")))
  # an outlier far away
  expect_identical(as.character(predict(fit, data.frame(Sepal.Length = 20, Sepal.Width = 0,
                                                        Petal.Length = 0, Petal.Width = 9))),
                   "outlier")
})

test_that("print and summary of both nu types", {
  one <- kernel_svm(as.matrix(iris[, 1:4]), type = "one-classification", nu = 0.15)
  expect_output(print(one), "One-class support vector machine")
  expect_output(print(one), "nu: 0.15")
  s <- summary(one)
  expect_s3_class(s, "summary.kernel_svm_oneclass")
  expect_output(print(s), "outliers")
  # the nu-property: at the bound <= nu <= support vectors
  expect_lte(s$fractions[["at_bound"]], 0.15 + 1e-9)
  expect_gte(s$fractions[["support_vectors"]], 0.15 - 1e-9)
  expect_equal(s$fractions[["outliers"]], mean(fitted(one) == "outlier"))
  expect_output(expect_invisible(print(s)))

  nu <- kernel_svm(Species ~ ., data = iris, type = "nu-classification", nu = 0.3)
  expect_output(print(nu), "nu: 0.3")
  expect_output(print(nu), "nu-support vector machine")
  sn <- summary(nu)
  expect_equal(sn$pairs$cost, unname(nu$cost))
  expect_output(print(sn), "cost")
})

test_that("accessors and broom methods on both nu types", {
  skip_if_not_installed("generics")
  one <- kernel_svm(~ Petal.Length + Petal.Width, data = iris, type = "one-classification",
                    nu = 0.1)
  expect_identical(nobs(one), 150L)
  expect_identical(nrow(model.frame(one)), 150L)
  expect_identical(formula(one), ~ Petal.Length + Petal.Width)
  td <- generics::tidy(one, component = "coefficients")
  expect_identical(td$row, one$index)
  expect_equal(td$estimate, unname(one$coefs[, 1L]))
  expect_true(all(is.na(td$class)))
  tf <- generics::tidy(one)
  expect_equal(tf$offset, unname(one$b))
  expect_identical(tf$n_coef, length(one$index))
  gl <- generics::glance(one)
  expect_identical(gl$nobs, 150L)
  expect_true(is.na(gl$accuracy) && is.na(gl$cost))
  expect_identical(gl$nu, 0.1)
  au <- generics::augment(one)
  expect_identical(as.character(au$.fitted), as.character(fitted(one)))
  expect_equal(au$.decision, unname(predict(one, iris, type = "decision")))
  # nu-SVC: a cost per pair, so none in glance()'s one row
  nu <- kernel_svm(Species ~ ., data = iris, type = "nu-classification", nu = 0.3)
  gn <- generics::glance(nu)
  expect_identical(nrow(gn), 1L)
  expect_true(is.na(gn$cost))
  expect_identical(gn$nu, 0.3)
  expect_identical(generics::glance(kernel_svm(Species ~ ., data = iris, cost = 2))$cost, 2)
})

test_that("both nu types on kernel values, a kernel function and sparse rows", {
  old <- options(kernclass.svm.precision = "double")  # the sparse/precomputed engines' values
  on.exit(options(old))
  xs <- scale(as.matrix(iris[, 1:4]))
  rbf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.5)
  for (type in c("nu-classification", "one-classification")) {
    y <- if (type == "nu-classification") iris$Species
    dense <- kernel_svm(xs, y, gamma = 0.5, scale = FALSE, type = type, nu = 0.3)
    pre <- kernel_svm(rbf(xs, xs), y, kernel = "precomputed", type = type, nu = 0.3)
    usr <- kernel_svm(xs, y, kernel = rbf, scale = FALSE, type = type, nu = 0.3)
    for (f in list(pre, usr)) {
      expect_identical(f$index, dense$index, info = type)
      expect_equal(f$coefs, dense$coefs, tolerance = 1e-6, info = type)
      expect_equal(f$b, dense$b, tolerance = 1e-6, info = type)
    }
    expect_identical(predict(pre, rbf(xs[1:20, ], xs)), predict(dense, xs[1:20, ]))
    expect_output(print(summary(usr)), "given to the kernel as they are")
  }
})

test_that("both nu types on sparse rows (Matrix) give the dense solution", {
  old <- options(kernclass.svm.precision = "double")  # the sparse/precomputed engines' values
  on.exit(options(old))
  skip_if_not_installed("Matrix")
  xs <- scale(as.matrix(iris[, 1:4]))
  sp <- Matrix::Matrix(xs, sparse = TRUE)
  for (type in c("nu-classification", "one-classification")) {
    y <- if (type == "nu-classification") iris$Species
    dense <- kernel_svm(xs, y, gamma = 0.5, scale = FALSE, type = type, nu = 0.3)
    sparse <- kernel_svm(sp, y, gamma = 0.5, scale = FALSE, type = type, nu = 0.3)
    expect_identical(sparse$index, dense$index, info = type)
    expect_equal(sparse$coefs, dense$coefs, tolerance = 1e-6, info = type)
    expect_identical(predict(sparse, sp), predict(dense, xs))
  }
})

test_that("plot() of a one-class SVM draws the region predict() gives", {
  fit <- kernel_svm(~ Petal.Length + Petal.Width, data = iris, type = "one-classification",
                    nu = 0.1)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  g <- plot(fit, iris, grid = 30)
  grid <- expand.grid(Petal.Length = g$x1, Petal.Width = g$x2)
  expect_identical(as.vector(g$class), as.character(predict(fit, grid)))
  expect_equal(g$decision, unname(predict(fit, grid, type = "decision")))
  expect_true(all(c("inlier", "outlier") %in% g$class))
  # a matrix fit draws its training data
  mfit <- kernel_svm(as.matrix(iris[, 3:4]), type = "one-classification", nu = 0.1)
  expect_silent(plot(mfit, grid = 20))
})

test_that("nu-SVC probabilities: Platt scaling as for C-SVC, reproducible", {
  s <- nu_sets$three
  set.seed(5)
  a <- kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.4, probability = TRUE)
  set.seed(5)
  b <- kernel_svm(s$x, s$y, type = "nu-classification", nu = 0.4, probability = TRUE)
  expect_identical(a, b)
  p <- predict(a, s$new, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, nrow(s$new)), tolerance = 1e-12)
  expect_gte(mean(colnames(p)[max.col(p)] == as.character(predict(a, s$new))), 0.9)
  # nu at the largest value a pair allows: Platt's folds, whose training
  # parts may be more unequal, take min(nu, 2 min(n1, n2) / (n1 + n2)) of
  # their own part (seen by tracing the binary solver's calls)
  u <- nu_sets$unbalanced
  ns <- asNamespace("kernclass")
  seen <- list()
  record <- function(nu, y) seen[[length(seen) + 1L]] <<- list(nu = nu, y = y)
  suppressMessages(trace("kc_svm_binary", where = ns, print = FALSE,
                         tracer = bquote(.(record)(control$nu, y[rows]))))
  on.exit(suppressMessages(untrace("kc_svm_binary", where = ns)), add = TRUE)
  set.seed(6)
  expect_s3_class(kernel_svm(u$x, u$y, type = "nu-classification", nu = 0.4,
                             probability = TRUE), "kernel_svm")
  used <- vapply(seen, `[[`, 0, "nu")
  allowed <- vapply(seen, function(z) {
    n <- table(z$y)
    min(0.4, 2 * min(n) / sum(n))
  }, 0)
  expect_gt(length(used), 1L)
  expect_equal(used, allowed)
  expect_true(any(used < 0.4))
})

# ---- bad input -------------------------------------------------------------------

test_that("arguments the type does not use are classed errors naming them", {
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  expect_identical(arg_of(kernel_svm(x, y, type = "nu-classification", cost = 2)), "cost")
  expect_identical(arg_of(kernel_svm(x, type = "one-classification", cost = 2)), "cost")
  expect_identical(arg_of(kernel_svm(x, y, nu = 0.2)), "nu")
  expect_identical(arg_of(kernel_svm(Species ~ ., iris, nu = 0.2)), "nu")
  expect_identical(arg_of(kernel_svm(x, y, type = "one-classification")), "y")
  expect_identical(arg_of(kernel_svm(Species ~ ., iris, type = "one-classification")), "formula")
  expect_identical(arg_of(kernel_svm(x, type = "one-classification",
                                     class.weights = c(a = 1))), "class.weights")
  expect_identical(arg_of(kernel_svm(x, type = "one-classification", probability = TRUE)),
                   "probability")
  expect_identical(arg_of(kernel_svm(x, y, type = "two-class")), "type")
  expect_identical(arg_of(kernel_svm(x, type = "one-classification", weights = rep(0, 150))),
                   "weights")
  expect_error(kernel_svm(x, type = "one-classification", weights = rep(0, 150)),
               class = "kernclass_input_error")
  expect_identical(arg_of(kernel_svm(x, type = "one-classification",
                                     weights = c(1, rep(0, 149)))), "weights")
  expect_identical(arg_of(kernel_svm(x[1, , drop = FALSE], type = "one-classification")), "x")
  # without y, C-classification says what is missing
  expect_identical(arg_of(kernel_svm(x)), "y")
  # the e1071 spellings, partially matched as e1071 does
  expect_s3_class(kernel_svm(x, type = "one", nu = 0.3), "kernel_svm_oneclass")
  expect_identical(kernel_svm(x, y, type = "nu", nu = 0.3)$type, "nu-classification")
})

if (nzchar(Sys.getenv("KERNCLASS_SVM_REPORT"))) print(agreement, digits = 3)
