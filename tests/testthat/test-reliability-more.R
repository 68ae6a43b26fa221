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
