# Extreme and adversarial inputs (issue 14): a correct answer or a classed
# error, never a silent wrong one.

testthat::local_edition(3)

test_that("the threshold search's orientation is used: scores 1:4 with labels + + - -", {
  res <- threshold_search(1:4, c(1, 1, -1, -1))
  expect_identical(res$sign, -1L)
  expect_identical(res$sign * (1:4 + res$b) > 0, c(TRUE, TRUE, FALSE, FALSE))
})

test_that("kernel_bayes turns an inverted pair round (was: training accuracy below 50%)", {
  set.seed(1)
  n <- 30
  x <- matrix(rnorm(n * 2), n, 2)
  y <- factor(ifelse(rowSums(x^2) + rnorm(n, sd = 0.5) > 1.4, "a", "b"))
  fit <- kernel_bayes(x, y, type = 3, kernel = "polynomial", degree = 6)
  pm <- fit$pairs[[1]]
  expect_identical(pm$sign, -1L)
  expect_gt(mean(predict(fit) == y), 0.7)
  dec <- predict(fit, type = "decision")
  # the decision is -(p(x) + b): the search on the training p(x) finds b
  p <- -dec - pm$b
  expect_equal(threshold_search(p, y)[c("b", "split", "sign")], pm[c("b", "split", "sign")])
  expect_identical(as.character(predict(fit)), ifelse(dec > 0, "a", "b"))
})

test_that("SVM: kernel values beyond the float cache's range are a classed error, not NaN", {
  set.seed(2)
  x <- matrix(rnorm(60), 30)
  y <- factor(ifelse(x[, 1] > 0, "a", "b"))
  for (deg in c(30, 40)) {
    expect_error(kernel_svm(x, y, kernel = "polynomial", degree = deg, gamma = 10),
                 "single-precision", class = "kernclass_overflow_error")
  }
  expect_error(kernel_svm(x * 1e20, y, kernel = "linear", scale = FALSE),
               "single-precision", class = "kernclass_overflow_error")
  # within the range: still fitted
  fit <- kernel_svm(x * 1e15, y, kernel = "linear", scale = FALSE)
  expect_true(is.finite(fit$objective) && is.finite(fit$b))
})

test_that("SVM hard margin far from the origin: the same slab at every offset", {
  set.seed(1)
  n <- 40
  x <- matrix(rnorm(n * 2), n, 2)
  y <- factor(ifelse(x[, 1] > 0, "a", "b"))
  x[, 1] <- x[, 1] + ifelse(y == "a", 0.5, -0.5)
  for (kernel in c("linear", "rbf")) {
    f0 <- kernel_svm(x, y, kernel = kernel, gamma = 0.5, cost = Inf, scale = FALSE)
    for (off in c(100, 1e4, 1e6)) {
      info <- paste(kernel, off)
      f <- kernel_svm(x + off, y, kernel = kernel, gamma = 0.5, cost = Inf, scale = FALSE)
      expect_true(f$converged, label = info)
      expect_true(is.finite(f$b), label = info)
      expect_identical(predict(f, x + off), y, info = info)
      expect_equal(unname(predict(f, x + off, type = "decision")),
                   unname(predict(f0, x, type = "decision")),
                   tolerance = if (off < 1e6) 1e-4 else 1e-3, info = info)  # x'y of 1e12 in double
    }
  }
})

test_that("scaling at the ends of the double range: columns of 1e300 and 1e-310 scale as any", {
  set.seed(3)
  n <- 60
  z <- matrix(rnorm(n * 2), n, 2)
  y <- factor(ifelse(z[, 1] > 0, "a", "b"))
  ref <- kernel_means(z, y)
  for (mag in c(1e300, 1e-310, 1e-200, 1e200)) {
    x <- z
    x[, 1] <- z[, 1] * mag
    fit <- expect_no_warning(kernel_means(x, y))
    expect_true(all(is.finite(fit$scaling$scale)), label = format(mag))
    expect_equal(fit$x, ref$x, tolerance = 1e-10, info = format(mag))
    expect_identical(predict(fit, x), predict(ref, z), info = format(mag))
  }
  # the moments: sd of a column near +-1e300 is finite, as sd() of the rescaled column
  x <- z[, 1] * 1e300
  m <- kernclass:::kc_scaling(cbind(x), TRUE)
  expect_equal(unname(m$scale), sd(z[, 1]) * 1e300)
  # constant is relative: a column of equal values of any magnitude, or one
  # whose spread is below the rounding of its values
  expect_warning(kernclass:::kc_scaling(cbind(a = rep(3e-310, 5), b = 1:5), c(TRUE, TRUE)),
                 "`a`|a", class = "kernclass_constant_column_warning")
  expect_warning(kernclass:::kc_scaling(cbind(a = 1 + c(0, 1, 0, 1) * 2^-52 / 4, b = 1:4),
                                        c(TRUE, TRUE)), class = "kernclass_constant_column_warning")
})

test_that("estimate_gamma at the ends of the double range: the median rule scaled, never 0", {
  set.seed(4)
  z <- matrix(rnorm(40), 20)
  for (kernel in c("rbf", "laplace", "polynomial")) {
    g0 <- estimate_gamma(z, kernel = kernel, scale = FALSE)
    power <- if (kernel == "laplace") 1 else 2
    for (m in c(1e-150, 1e-120, 1e120, 1e150)) {
      expect_equal(estimate_gamma(z * m, kernel = kernel, scale = FALSE) * m^power, g0,
                   tolerance = 1e-12, info = paste(kernel, m))
    }
  }
  # gamma beyond the doubles: a classed error, not 0 nor "all rows are equal"
  expect_error(estimate_gamma(z * 1e200, scale = FALSE), "too small",
               class = "kernclass_overflow_error")
  expect_error(estimate_gamma(z * 1e-170, scale = FALSE), "too large",
               class = "kernclass_overflow_error")
  expect_equal(estimate_gamma(z * 1e200, kernel = "laplace", scale = FALSE) * 1e200,
               estimate_gamma(z, kernel = "laplace", scale = FALSE))
  # equal rows are still said to be equal
  expect_error(estimate_gamma(matrix(1e-170, 3, 2), scale = FALSE), "all rows are equal",
               class = "kernclass_error")
})

# Lines of R run in a child per engine (KERNCLASS_ISA is read at load time);
# `res` is returned.
extreme_with_isa <- function(isa, lines) {
  script <- tempfile(fileext = ".R")
  out <- tempfile(fileext = ".rds")
  on.exit(unlink(c(script, out)))
  writeLines(c(sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
               "suppressPackageStartupMessages(library(kernclass))", lines,
               sprintf("saveRDS(res, '%s')", out)), script)
  status <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
                    env = sprintf("KERNCLASS_ISA=%s", isa), stdout = FALSE, stderr = FALSE)
  expect_equal(status, 0L)
  readRDS(out)
}

test_that("rows with huge norms: every engine gives k(x, x) = 1 and the kernel of the data", {
  lines <- c(
    "set.seed(5)",
    "z <- matrix(rnorm(40 * 2), 40)",
    "s <- sqrt(4.4e307 / max(rowSums(z^2)))  # 4 |x|^2 within the doubles",
    "x <- z * s",
    "y <- factor(ifelse(z[, 1] > 0, 'a', 'b'))",
    "o <- order(-rowSums(z^2))[1:8]  # the rows farthest out",
    "res <- list(engine = kernclass:::kc_engine(), s = s,",
    "  rbf = kernel_matrix(x, kernel = 'rbf', gamma = 0.5 / s^2),",
    "  laplace = kernel_matrix(x, kernel = 'laplace', gamma = 0.5 / s),",
    "  rbf1 = kernel_matrix(x[1:3, ], x, kernel = 'rbf', gamma = 0.5 / s^2),",
    "  # new rows farther out: ||x||^2 + ||y||^2 overflows (NaN in C, 0 in AVX before)",
    "  pred = predict(kernel_means(x, y, gamma = 0.5 / s^2, scale = FALSE), x[o, ] * 1.9,",
    "                 type = 'decision'))")
  results <- lapply(c("c", "avx2", "best"), extreme_with_isa, lines = lines)
  expect_identical(results[[1]]$engine, "c")
  set.seed(5)
  z <- matrix(rnorm(40 * 2), 40)
  s <- sqrt(4.4e307 / max(rowSums(z^2)))
  y <- factor(ifelse(z[, 1] > 0, "a", "b"))
  o <- order(-rowSums(z^2))[1:8]
  xn <- z[o, ] * 1.9 * s
  expect_false(is.finite(max(rowSums(xn^2)) + max(rowSums((z * s)^2))))  # the case
  ref_pred <- predict(kernel_means(z, y, gamma = 0.5, scale = FALSE), z[o, ] * 1.9,
                      type = "decision")
  d <- unname(as.matrix(dist(z)))
  for (res in results) {
    info <- res$engine
    expect_equal(diag(res$rbf), rep(1, 40), info = info)
    expect_equal(diag(res$laplace), rep(1, 40), info = info)
    expect_equal(unname(res$rbf), exp(-0.5 * d^2), tolerance = 1e-10, info = info)
    expect_equal(unname(res$laplace), exp(-0.5 * d), tolerance = 1e-10, info = info)
    expect_equal(unname(res$rbf1), exp(-0.5 * d[1:3, ]^2), tolerance = 1e-10, info = info)
    # (pairs whose squared distance itself overflows, kernel values near
    # 1e-6 here, give 0)
    expect_equal(unname(res$pred), unname(ref_pred), tolerance = 1e-4, info = info)
    expect_equal(res$pred, results[[1]]$pred, tolerance = 1e-12, info = info)
  }
})

test_that("rows whose squared distances can overflow are a classed error (rbf, laplace)", {
  set.seed(5)
  z <- matrix(rnorm(40 * 2), 40)
  x <- z * 9e153 / max(abs(z))
  y <- factor(ifelse(z[, 1] > 0, "a", "b"))
  for (kernel in c("rbf", "laplace")) {
    expect_error(kernel_matrix(x, kernel = kernel, gamma = 1e-300), "squared distances",
                 class = "kernclass_overflow_error")
    expect_error(kernel_means(x, y, kernel = kernel, gamma = 1e-300, scale = FALSE),
                 "squared distances", class = "kernclass_overflow_error")
    expect_error(kernel_svm(x, y, kernel = kernel, gamma = 1e-300, scale = FALSE),
                 "squared distances", class = "kernclass_overflow_error")
  }
  # the linear kernel's values are inner products, bounded by the norms
  expect_true(all(is.finite(kernel_matrix(x / 2, kernel = "linear"))))
})

test_that("SVM polynomial kernel far from the origin: a classed error, never a wrong 'converged'", {
  set.seed(1)
  x <- matrix(rnorm(200), 100, 2)
  y <- factor(ifelse(x[, 1] > 0, "a", "b"))
  # near the origin, and at 100, the separable set is learnt; at 1e4 the
  # float cache cannot tell the points apart (was: converged, 70% right)
  for (deg in 1:3) {
    for (off in c(0, 100)) {
      f <- kernel_svm(x + off, y, kernel = "polynomial", degree = deg, coef0 = 1,
                      cost = 1e10, scale = FALSE)
      expect_true(f$converged, label = paste(deg, off))
      expect_identical(predict(f, x + off), y, info = paste(deg, off))
    }
    expect_error(kernel_svm(x + 1e4, y, kernel = "polynomial", degree = deg, coef0 = 1,
                            cost = 1e10, scale = FALSE),
                 "single-precision", class = "kernclass_precision_error")
  }
  # the same data scaled: fitted
  f <- kernel_svm(x + 1e4, y, kernel = "polynomial", degree = 2, coef0 = 1, cost = 1e10)
  expect_identical(predict(f, x + 1e4), y)
})

test_that("newdata far outside the training range: overflow gives NA and a warning", {
  set.seed(3)
  x <- matrix(rnorm(200), 100, 2)
  y <- factor(ifelse(x[, 1] > 0, "a", "b"))
  xn <- rbind(c(1e300, 0), c(0.5, 0.5), c(-1e300, 1))
  fitters <- list(means = kernel_means, parzen = kernel_parzen, svm = kernel_svm,
                  bayes = function(...) kernel_bayes(..., type = 3))
  for (nm in names(fitters)) {
    # polynomial: k(x, x_i) overflows for the far rows: NA and a warning, the rest predicted
    fit <- fitters[[nm]](x, y, kernel = "polynomial")
    w <- expect_warning(dec <- predict(fit, xn, type = "decision"),
                        class = "kernclass_unpredictable_warning")
    expect_s3_class(w, "kernclass_overflow_warning")
    expect_match(conditionMessage(w), "1, 3")
    expect_true(all(is.na(dec[c(1, 3)])), info = nm)
    expect_equal(dec[2], predict(fit, xn[2, , drop = FALSE], type = "decision")[1], info = nm)
    # rbf: the far rows' kernel values are 0, which is right: the decision of a
    # point that is far from every training point, never NaN
    fit <- fitters[[nm]](x, y, kernel = "rbf")
    dec <- predict(fit, xn, type = "decision")
    expect_true(all(is.finite(dec)), info = nm)
    expect_equal(dec[1], dec[3], info = nm)
  }
})

# The extreme-magnitude property suite: every fitter (kernel_means,
# kernel_parzen, kernel_bayes types 1-3, kernel_svm) and kernel on data with
# columns of 1e-300 ... 1e300, duplicated rows with conflicting labels,
# constant and near-constant columns, with scale = TRUE and FALSE, in a
# child per engine. Each fit gives a correct answer or a classed error;
# never NaN or Inf from a model that says it converged (NA only with a
# classed warning); the same from the C, AVX2 and AVX-512 engines; and with
# scale = TRUE, columns multiplied by any magnitude give the answers of the
# unmultiplied data.
extreme_suite <- function() {
  set.seed(14)
  n <- 40
  z <- matrix(rnorm(n * 3), n, 3)
  y <- factor(ifelse(z[, 1] + 0.5 * z[, 2] > 0, "a", "b"))
  mags <- c(1e-300, 1e-150, 1e150, 1e300)
  data <- list(base = z)
  for (m in mags) data[[paste("all", m)]] <- z * m
  data$mixed <- sweep(z, 2L, c(1e-300, 1, 1e300), `*`)
  dup <- rbind(z, z[1:8, ])
  data$duplicates <- dup
  near <- z
  near[, 3] <- 1 + 1e-15 * round(z[, 3])
  data$near_constant <- near
  const <- z
  const[, 3] <- 1e300
  data$constant <- const
  ys <- list(duplicates = factor(c(as.character(y), ifelse(y[1:8] == "a", "b", "a"))))
  fitters <- list(
    means = function(...) kernel_means(...), parzen = function(...) kernel_parzen(...),
    bayes1 = function(...) kernel_bayes(..., type = 1),
    bayes2 = function(...) kernel_bayes(..., type = 2),
    bayes3 = function(...) kernel_bayes(..., type = 3),
    svm = function(...) kernel_svm(..., tolerance = 1e-6))
  res <- list()
  for (dn in names(data)) for (scale in c(TRUE, FALSE))
    for (k in c("linear", "polynomial", "rbf", "laplace")) for (fn in names(fitters)) {
      x <- data[[dn]]
      yy <- if (is.null(ys[[dn]])) y else ys[[dn]]
      warned <- character()
      out <- withCallingHandlers(tryCatch({
        fit <- fitters[[fn]](x, yy, kernel = k, degree = 2, scale = scale)
        list(status = "ok", converged = if (is.null(fit$converged)) TRUE else fit$converged,
             decision = predict(fit, x[1:12, , drop = FALSE], type = "decision"),
             classes = as.character(predict(fit, x[1:12, , drop = FALSE])))
      }, error = function(e) list(status = "error", class = class(e)[1],
                                  kernclass = inherits(e, "kernclass_error"),
                                  message = conditionMessage(e))),
      warning = function(w) {
        warned <<- c(warned, class(w)[1])
        invokeRestart("muffleWarning")
      })
      out$warnings <- warned
      res[[paste(dn, scale, k, fn, sep = " | ")]] <- out
    }
  res
}

test_that("extreme magnitudes: every fitter and engine, a correct answer or a classed error", {
  lines <- c(paste("extreme_suite <-", paste(deparse(extreme_suite), collapse = "\n")),
             "res <- list(engine = kernclass:::kc_engine(), fits = extreme_suite())")
  runs <- lapply(c("c", "avx2", "best"), extreme_with_isa, lines = lines)
  expect_identical(runs[[1]]$engine, "c")
  ref <- runs[[1]]$fits
  for (case in names(ref)) {
    r <- ref[[case]]
    if (r$status == "error") {
      # an error, then a classed one that says what to do
      expect_true(r$kernclass, label = paste(case, r$class, r$message))
    } else {
      bad <- is.nan(r$decision) | is.infinite(r$decision)
      expect_false(any(bad), label = case)
      if (r$converged && anyNA(r$decision)) {
        expect_true(any(grepl("^kernclass_", r$warnings)), label = case)
      }
      # scale = TRUE: multiplied columns give the base data's answers
      parts <- strsplit(case, " | ", fixed = TRUE)[[1]]
      if (parts[2] == "TRUE" && (startsWith(parts[1], "all") || parts[1] == "mixed")) {
        base <- ref[[paste(c("base", parts[-1]), collapse = " | ")]]
        tol <- if (parts[4] == "svm") 1e-4 else 1e-8
        expect_equal(r$decision, base$decision, tolerance = tol, ignore_attr = TRUE,
                     label = case)
      }
    }
    # the same from every engine
    for (run in runs[-1]) {
      o <- run$fits[[case]]
      expect_identical(o$status, r$status, label = paste(case, run$engine))
      if (r$status == "ok" && o$status == "ok") {
        tol <- if (grepl("svm$", case)) 1e-6 else 1e-9
        expect_equal(o$decision, r$decision, tolerance = tol, label = paste(case, run$engine))
        expect_identical(o$converged, r$converged, label = paste(case, run$engine))
      } else if (r$status == "error" && o$status == "error") {
        expect_identical(o$class, r$class, label = paste(case, run$engine))
      }
    }
  }
})
