# Reliability: plots of models with logical, factor and character inputs;
# kernel functions with globals under a multisession future plan.

mixed_frame <- function(n = 60) {
  set.seed(11)
  x1 <- rnorm(n)
  x2 <- rnorm(n)
  flag <- rep(c(TRUE, FALSE, TRUE), length.out = n)      # TRUE most frequent
  grp <- factor(rep(c("a", "b", "b"), length.out = n), levels = c("b", "a", "c"))
  tag <- rep(c("u", "v", "v", "w"), length.out = n)      # "v" most frequent
  y <- factor(ifelse(x1 + x2 + flag > 0.5, "p", "q"))
  data.frame(x1 = x1, x2 = x2, flag = flag, grp = grp, tag = tag, y = y,
             stringsAsFactors = FALSE)
}

test_that("plot() holds logical, factor and character inputs at their most frequent value, typed", {
  d <- mixed_frame()
  fits <- list(svm = kernel_svm(y ~ ., data = d, gamma = 0.5),
               means = kernel_means(y ~ ., data = d, gamma = 0.5))
  for (nm in names(fits)) {
    grDevices::pdf(NULL)
    res <- tryCatch(plot(fits[[nm]], data = d, vars = c("x1", "x2")),
                    finally = grDevices::dev.off())
    expect_identical(res$held$flag, TRUE, info = nm)
    expect_identical(res$held$grp, factor("b", levels = levels(d$grp)), info = nm)
    expect_identical(res$held$tag, "v", info = nm)
    # the plotted classes are the model's predictions at the held values
    g <- expand.grid(x1 = res$x1, x2 = res$x2)
    nd <- data.frame(g, flag = TRUE, grp = factor("b", levels = levels(d$grp)), tag = "v",
                     stringsAsFactors = FALSE)
    expect_identical(as.vector(res$class), as.character(predict(fits[[nm]], nd)), info = nm)
  }
})

test_that("a plot whose grid the model cannot score blames the grid, not newdata", {
  d <- mixed_frame()
  fit <- kernel_svm(y ~ ., data = d, gamma = 0.5)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  err <- tryCatch(plot(fit, data = d, vars = c("x1", "x2"), slice = list(flag = 1)),
                  error = function(e) e)
  expect_s3_class(err, "kernclass_error")
  expect_identical(err$arg, "slice")
  expect_no_match(conditionMessage(err), "newdata")
  expect_identical(plot(fit, data = d, vars = c("x1", "x2"), slice = list(flag = FALSE))$held$flag,
                   FALSE)
  # a column whose type differs from the fit's: the grid built from it is named
  set.seed(2)
  n <- data.frame(a = rnorm(40), b = rnorm(40), c = rnorm(40), y = factor(rep(1:2, 20)))
  fit <- kernel_svm(y ~ ., data = n)
  n$c <- as.character(round(n$c))
  err <- tryCatch(plot(fit, data = n, vars = c("a", "b")), error = function(e) e)
  expect_s3_class(err, "kernclass_error")
  expect_match(conditionMessage(err), "grid")
  expect_no_match(conditionMessage(err), "newdata")
})

test_that("a kernel function with globals fits and cross-validates under plan(multisession)", {
  # defined at top level, as a user does: its environment is the global one,
  # which futures do not ship, and so are its globals
  dist <- function(a, b) outer(rowSums(a^2), rowSums(b^2), "+") - 2 * tcrossprod(a, b)
  k <- function(a, b) exp(-kc_rm_dist(a, b) / kc_rm_width)
  environment(dist) <- environment(k) <- globalenv()
  assign("kc_rm_width", 0.7, envir = globalenv())
  assign("kc_rm_dist", dist, envir = globalenv())
  on.exit(rm(list = c("kc_rm_width", "kc_rm_dist"), envir = globalenv()), add = TRUE)
  x <- as.matrix(iris[c(1:15, 51:65, 101:115), 1:4])
  y <- droplevels(iris$Species[c(1:15, 51:65, 101:115)])

  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  seq_fit <- kernel_svm(x, y, kernel = k, cost = 2)
  set.seed(5)
  seq_cv <- kernel_cv(kernel_svm, x, y, folds = 3, kernel = k, cost = 2)
  set.seed(6)
  seq_tune <- kernel_tune(kernel_svm, x, y, grid = list(cost = c(1, 4)), folds = 3, kernel = k)
  future::plan(future::multisession, workers = 2)
  par_fit <- kernel_svm(x, y, kernel = k, cost = 2)
  set.seed(5)
  par_cv <- kernel_cv(kernel_svm, x, y, folds = 3, kernel = k, cost = 2)
  set.seed(6)
  par_tune <- kernel_tune(kernel_svm, x, y, grid = list(cost = c(1, 4)), folds = 3, kernel = k)
  future::plan(future::sequential)

  expect_identical(predict(par_fit, x, type = "decision"), predict(seq_fit, x, type = "decision"))
  expect_identical(par_fit$coefs, seq_fit$coefs)
  expect_identical(par_cv$predicted, seq_cv$predicted)
  expect_identical(par_cv$accuracy, seq_cv$accuracy)
  expect_identical(par_tune$results, seq_tune$results)
})

test_that("plot() scores the boundaries of all class pairs together, not pair by pair", {
  set.seed(8)
  K <- 6
  y <- factor(rep(letters[1:K], each = 20))
  x <- cbind(cos(2 * pi * as.integer(y) / K), sin(2 * pi * as.integer(y) / K)) * 2 +
    matrix(rnorm(2 * length(y), sd = 0.6), ncol = 2)
  calls <- new.env()
  calls$n <- 0L
  count <- bquote(assign("n", .(calls)$n + 1L, envir = .(calls)))
  suppressMessages(trace("kc_plot_scores", tracer = count, print = FALSE,
                         where = asNamespace("kernclass")))
  on.exit(suppressMessages(untrace("kc_plot_scores", where = asNamespace("kernclass"))),
          add = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  for (fit in list(kernel_svm(x, y, gamma = 1), kernel_means(x, y, gamma = 1))) {
    calls$n <- 0L
    res <- plot(fit, grid = 40)
    expect_gt(length(res$boundary), K - 1L)  # boundaries between several pairs drawn
    # the grid once, then all contours' points once and once per bisection
    # step (12), however many of the 15 pairs have contours
    expect_lte(calls$n, 1L + 1L + 12L)
  }
})
