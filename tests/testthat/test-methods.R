# print, summary, coef, fitted, plot, and what a model object is made of.

testthat::local_edition(3)

set.seed(404)
two <- droplevels(subset(iris, Species != "setosa"))
xm <- as.matrix(two[, 3:4])
ym <- two$Species

fit_f3 <- kernel_means(Species ~ ., data = iris, gamma = 0.5)
fit_p3 <- kernel_parzen(Species ~ Petal.Length + Petal.Width, data = iris, gamma = 2)
fit_m2 <- kernel_means(xm, ym, kernel = "polynomial", degree = 2)
fit_p2 <- kernel_parzen(unname(xm), ym, gamma = 2, prior = c(0.3, 0.7))

# Class scores computed without predict(): the coef() expansion over the
# Gram matrix from kernel_matrix(), then the largest score (or the sign).
independent_class <- function(fit) {
  k <- fit$kernel
  gram <- kernel_matrix(fit$x, kernel = k$name, gamma = k$gamma, degree = k$degree,
                        coef0 = k$coef0)
  cf <- coef(fit)
  if (length(fit$levels) == 2L) {
    dec <- drop(gram %*% cf$alpha) + cf$b
    factor(fit$levels[ifelse(dec > 0, 1L, 2L)], levels = fit$levels)
  } else {
    sc <- gram %*% cf$alpha + rep(cf$b, each = nrow(gram))
    factor(fit$levels[max.col(sc, ties.method = "first")], levels = fit$levels)
  }
}

test_that("print returns its argument invisibly and names kernel and classes", {
  out <- capture.output(res <- withVisible(print(fit_f3)))
  expect_false(res$visible)
  expect_identical(res$value, fit_f3)
  expect_output(expect_invisible(print(fit_m2)), "polynomial")
  out <- paste(out, collapse = "\n")
  expect_match(out, "Kernel nearest-means classifier")
  expect_match(out, "Kernel: rbf \\(gamma = 0.5\\)")
  expect_match(out, "Classes: setosa \\(50\\), versicolor \\(50\\), virginica \\(50\\)")
  expect_match(out, "150 points, 4 input column\\(s\\), scaled")
  expect_match(out, "Call: kernel_means\\(formula = Species ~ \\.")

  outp <- paste(capture.output(print(fit_p2)), collapse = "\n")
  expect_match(outp, "Parzen-window Bayes classifier")
  expect_match(outp, "Kernel: rbf \\(gamma = 2\\)")
  expect_match(outp, "versicolor \\(50\\), virginica \\(50\\)")
  expect_match(outp, "Prior: versicolor 0.3, virginica 0.7")
  # auto-printing at top level goes through the same method
  expect_output(print(fit_m2), "degree = 2")
})

test_that("summary has class summary.kernclass with the training accuracy and confusion table", {
  for (fit in list(fit_f3, fit_p3, fit_m2, fit_p2)) {
    s <- summary(fit)
    expect_s3_class(s, "summary.kernclass")
    # accuracy computed independently of predict()
    pred <- independent_class(fit)
    expect_equal(s$accuracy, mean(pred == fit$y))
    expect_equal(s$accuracy, mean(predict(fit) == fit$y))
    expect_equal(unclass(s$confusion),
                 unclass(table(actual = fit$y, predicted = pred)))
    expect_identical(names(dimnames(s$confusion)), c("actual", "predicted"))
    expect_identical(s$n, length(fit$y))
    expect_identical(s$counts, fit$counts)
  }
  # iris, with the full model, is learnt well
  expect_gt(summary(fit_f3)$accuracy, 0.9)
  expect_equal(summary(fit_f3)$accuracy,
               mean(predict(fit_f3, iris) == iris$Species))
  expect_equal(summary(fit_p2)$prior, c(versicolor = 0.3, virginica = 0.7))
  expect_null(summary(fit_f3)$prior)
  expect_error(summary(fit_f3, foo = 1), "Unknown argument", class = "kernclass_error")
})

test_that("print.summary.kernclass returns invisibly and shows accuracy and confusion table", {
  s <- summary(fit_f3)
  out <- capture.output(res <- withVisible(print(s)))
  expect_false(res$visible)
  expect_identical(res$value, s)
  expect_output(expect_invisible(print(s)), "Confusion table")
  out <- paste(out, collapse = "\n")
  expect_match(out, sprintf("Training accuracy: %.2f%%", 100 * s$accuracy), fixed = TRUE)
  expect_match(out, "Confusion table (training data):", fixed = TRUE)
  expect_match(out, "predicted")
  expect_match(out, "actual")
  expect_match(out, "virginica")
  expect_match(out, "Class sizes")
  # the table printed is the confusion table
  tab <- paste(capture.output(print(s$confusion)), collapse = "\n")
  expect_match(out, tab, fixed = TRUE)
  outp <- paste(capture.output(print(summary(fit_p2))), collapse = "\n")
  expect_match(outp, "Prior:")
  expect_match(outp, "Parzen-window Bayes classifier")
})

test_that("coef has one weight per training point, and one offset per class", {
  n2 <- nrow(xm)
  cf <- coef(fit_m2)
  expect_named(cf, c("alpha", "b"))
  expect_null(dim(cf$alpha))
  expect_length(cf$alpha, n2)
  expect_length(cf$b, 1L)
  # nearest means: +1/n_c for the first class, -1/n_c for the second
  expect_equal(cf$alpha, ifelse(ym == "versicolor", 1 / 50, -1 / 50))
  expect_equal(cf$b, unname(fit_m2$offset[1] - fit_m2$offset[2]))

  cfp <- coef(fit_p2)
  expect_length(cfp$alpha, n2)
  expect_equal(cfp$alpha, ifelse(ym == "versicolor", 0.3 / 50, -0.7 / 50))
  expect_identical(cfp$b, 0)

  cf3 <- coef(fit_f3)
  expect_true(is.matrix(cf3$alpha))
  expect_identical(dim(cf3$alpha), c(150L, 3L))
  expect_identical(colnames(cf3$alpha), levels(iris$Species))
  expect_length(cf3$b, 3L)
  expect_named(cf3$b, levels(iris$Species))
  # one non-zero weight per row, in the column of its class
  expect_identical(unname(rowSums(cf3$alpha != 0)), rep(1, 150))
  expect_identical(max.col(cf3$alpha != 0), as.integer(iris$Species))
  expect_error(coef(fit_f3, 1), "Unknown argument", class = "kernclass_error")
})

test_that("fitted gives the predicted classes of the training data", {
  for (fit in list(fit_f3, fit_p3, fit_m2, fit_p2)) {
    f <- fitted(fit)
    expect_s3_class(f, "factor")
    expect_length(f, length(fit$y))
    expect_identical(levels(f), fit$levels)
    expect_identical(unname(f), unname(independent_class(fit)))
  }
  expect_error(fitted(fit_m2, foo = 2), "Unknown argument", class = "kernclass_error")
})

test_that("plot draws a 3-class formula fit and returns the grid invisibly", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  res <- withVisible(plot(fit_p3, iris, grid = 25))
  expect_false(res$visible)
  r <- res$value
  expect_named(r, c("x1", "x2", "class", "decision", "held", "boundary"))
  expect_length(r$x1, 25L)
  expect_length(r$x2, 25L)
  # the axes are the first two inputs, covering the data
  expect_lte(min(r$x1), min(iris$Petal.Length))
  expect_gte(max(r$x1), max(iris$Petal.Length))
  expect_lte(min(r$x2), min(iris$Petal.Width))
  expect_identical(dim(r$class), c(25L, 25L))
  expect_true(all(r$class %in% levels(iris$Species)))
  expect_identical(dim(r$decision), c(625L, 3L))
  # the classes of the grid are its predictions
  g <- expand.grid(Petal.Length = r$x1, Petal.Width = r$x2)
  expect_identical(as.vector(r$class), as.character(predict(fit_p3, g)))
  expect_equal(r$decision, unname(predict(fit_p3, g, type = "decision")))
  expect_invisible(plot(fit_f3, iris, vars = c("Petal.Length", "Sepal.Width"), grid = 10,
                        slice = list(Sepal.Length = 6)))
  expect_invisible(plot(fit_f3, iris, vars = 3:4, grid = 10, col = 1:3, main = "t"))
})

test_that("plot draws a matrix fit without data", {
  grDevices::png(tempfile(fileext = ".png"))
  on.exit(grDevices::dev.off(), add = TRUE)
  for (fit in list(fit_m2, fit_p2)) {
    res <- withVisible(plot(fit, grid = 20))
    expect_false(res$visible)
    r <- res$value
    expect_named(r, c("x1", "x2", "class", "decision", "held", "boundary"))
    expect_length(r$x1, 20L)
    expect_identical(dim(r$class), c(20L, 20L))
    # two classes: one decision value per grid point
    expect_null(dim(r$decision))
    expect_length(r$decision, 400L)
    expect_identical(as.vector(r$class), ifelse(r$decision > 0, "versicolor", "virginica"))
    # axes in the original units of the data
    expect_lte(min(r$x1), min(xm[, 1]))
    expect_gte(max(r$x1), max(xm[, 1]))
  }
  # with data and labels given
  expect_invisible(plot(fit_m2, two[, 3:4], y = ym, grid = 10))
})

test_that("plot errors for bad vars and other bad arguments", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_error(plot(fit_f3, iris, vars = c("Sepal.Length", "nope")),
               "`vars` must name two input variables", class = "kernclass_error")
  expect_error(plot(fit_f3, iris, vars = "Sepal.Length"),
               "`vars` must name two input variables", class = "kernclass_error")
  expect_error(plot(fit_f3, iris, vars = c(1, 9)),
               "`vars` must name two input variables", class = "kernclass_error")
  expect_error(plot(fit_f3, iris, vars = c(1, 2, 3)),
               "`vars` must name two input variables", class = "kernclass_error")
  expect_error(plot(fit_f3, iris, vars = c("Species", "Sepal.Length")),
               "`vars` must name two input variables", class = "kernclass_error")
  expect_error(plot(fit_m2, vars = c("a", "b")), "`vars` must name two input variables",
               class = "kernclass_error")
  df <- data.frame(a = rnorm(40), b = rnorm(40), f = gl(2, 20), cls = gl(2, 1, 40))
  fit_fac <- kernel_means(cls ~ ., data = df)
  expect_error(plot(fit_fac, df, vars = c("a", "f")), "`vars` must be numeric input variables",
               class = "kernclass_error")
  expect_invisible(plot(fit_fac, df, grid = 5))
  expect_error(plot(fit_f3), "`data` must be the data frame", class = "kernclass_error")
  expect_error(plot(fit_f3, iris[1:3]), "`data` lacks column\\(s\\) \"Petal.Width\"",
               class = "kernclass_error")
  expect_error(plot(fit_f3, iris, grid = 1), "`grid` must be a whole number",
               class = "kernclass_error")
  expect_error(plot(fit_f3, iris, slice = list(1)), "`slice` must be a named list",
               class = "kernclass_error")
  expect_error(plot(fit_m2, xm, y = ym[1:3]), "`y` must give one label per row",
               class = "kernclass_error")
})

# Every external pointer and environment in an object, with its path.
find_refs <- function(obj, path = "fit") {
  hits <- character()
  type <- typeof(obj)
  if (type %in% c("externalptr", "environment", "closure", "weakref", "bytecode")) {
    return(stats::setNames(type, path))
  }
  if (is.list(obj) || is.expression(obj)) {
    nm <- names(obj)
    for (i in seq_along(obj)) {
      el <- if (!is.null(nm) && nzchar(nm[i])) nm[i] else paste0("[[", i, "]]")
      hits <- c(hits, find_refs(obj[[i]], paste0(path, "$", el)))
    }
  }
  for (a in names(attributes(obj))) {
    hits <- c(hits, find_refs(attr(obj, a, exact = TRUE), sprintf("%s@%s", path, a)))
  }
  hits
}

test_that("the model holds only plain R objects, no external pointers", {
  df <- data.frame(a = rnorm(30), f = gl(3, 10))
  fits <- list(fit_f3, fit_p3, fit_m2, fit_p2, kernel_parzen(df, gl(2, 1, 30)),
               kernel_means(df, gl(2, 1, 30), kernel = "laplace"))
  for (fit in fits) {
    refs <- find_refs(unclass(fit))
    expect_false(any(refs == "externalptr"))
    expect_false(any(refs %in% c("closure", "weakref", "bytecode")))
    # the only environment is that of the terms
    expect_true(all(names(refs) == "fit$terms@.Environment"), info = paste(names(refs), collapse = ", "))
    expect_true(all(vapply(unclass(fit), function(el) is.null(el) || is.atomic(el) ||
                             is.list(el) || is.language(el), logical(1))))
  }
  expect_identical(names(find_refs(unclass(fit_f3))), "fit$terms@.Environment")
  # a formula fit keeps the environment of its formula, as lm() does
  fit_here <- kernel_means(Species ~ ., data = iris)
  expect_identical(environment(fit_here$terms), environment())
  expect_null(fit_m2$terms)
  # the walker does find pointers and environments
  expect_identical(unname(find_refs(list(a = 1, b = list(c = new.env())))), "environment")
})

test_that("a model survives saveRDS/readRDS with identical predictions", {
  df <- data.frame(a = rnorm(30), f = gl(3, 10))
  fits <- list(fit_f3 = fit_f3, fit_p3 = fit_p3, fit_m2 = fit_m2, fit_p2 = fit_p2,
               fit_df = kernel_parzen(df, gl(2, 1, 30)))
  newdata <- list(fit_f3 = iris[c(1, 60, 120, 77), ], fit_p3 = iris[c(3, 80, 140), ],
                  fit_m2 = xm[c(5, 70), ], fit_p2 = unname(xm[c(1, 99), ]),
                  fit_df = data.frame(a = c(0, 1), f = c("1", "3")))
  for (nm in names(fits)) {
    path <- tempfile(fileext = ".rds")
    saveRDS(fits[[nm]], path)
    back <- readRDS(path)
    unlink(path)
    expect_s3_class(back, class(fits[[nm]]), exact = TRUE)
    for (type in c("class", "decision", "prob")) {
      expect_identical(predict(back, newdata[[nm]], type = type),
                       predict(fits[[nm]], newdata[[nm]], type = type), info = nm)
      expect_identical(predict(back, type = type), predict(fits[[nm]], type = type))
    }
    expect_identical(summary(back)$accuracy, summary(fits[[nm]])$accuracy)
    expect_identical(coef(back), coef(fits[[nm]]))
  }
  # and through serialize() in memory, as parallel workers do
  back <- unserialize(serialize(fit_m2, NULL))
  expect_identical(predict(back, xm, type = "prob"), predict(fit_m2, xm, type = "prob"))
})

test_that("a data-frame fit does not carry its training data in the terms", {
  set.seed(405)
  df <- data.frame(matrix(rnorm(5000 * 5), 5000, 5))
  lab <- gl(2, 1, 5000)
  fit_df <- kernel_parzen(df, lab)
  fit_mat <- kernel_parzen(as.matrix(df), lab)
  expect_lt(length(serialize(fit_df, NULL)), 1.2 * length(serialize(fit_mat, NULL)))
  expect_false(any(c("x", "y", "d", "mf") %in% ls(environment(fit_df$terms))))
})

test_that("every print method returns its argument invisibly; summaries print themselves", {
  set.seed(406)
  objects <- list(svm = kernel_svm(Species ~ ., data = iris, cost = 10),
                  hard = kernel_svm(as.matrix(iris[1:100, 3:4]), droplevels(iris$Species[1:100]),
                                    kernel = "linear", cost = Inf),
                  bayes = kernel_bayes(Species ~ ., data = iris, type = 3),
                  parzen = fit_p3,
                  cv = kernel_cv(kernel_means, iris[, 1:4], iris$Species, folds = 3),
                  tune = kernel_tune(kernel_parzen, iris[, 3:4], iris$Species, folds = 3,
                                     grid = list(gamma = c(0.5, 2))))
  for (nm in names(objects)) {
    obj <- objects[[nm]]
    out <- capture.output(res <- withVisible(print(obj)))
    expect_false(res$visible, info = nm)
    expect_identical(res$value, obj, info = nm)
    expect_gt(length(out), 2L)
    s <- summary(obj)
    expect_true(class(s)[1] != class(obj)[1] && grepl("^summary", class(s)[1]), info = nm)
    expect_false(is.null(utils::getS3method("print", class(s)[1], optional = TRUE)), info = nm)
    out <- capture.output(res <- withVisible(print(s)))
    expect_false(res$visible, info = nm)
    expect_identical(res$value, s, info = nm)
  }
})

# ---- the nu-property as summary() states it ---------------------------------

# The numbers of "a <= nu <= b" in printed output.
nu_chain <- function(lines) {
  hit <- regmatches(lines, regexpr("[0-9.]+ <= nu( = [0-9.]+)? <= [a-z ]*[0-9.]+", lines))
  lapply(hit, function(h) as.numeric(regmatches(h, gregexpr("[0-9]+(\\.[0-9]+)?", h))[[1L]]))
}

test_that("one-class summary states only the nu-property's exact bounds", {
  # the dual: sum(alpha) = nu W, 0 <= alpha_i <= w_i; counted from the model's alpha
  for (seed in 1:12) {
    set.seed(seed)
    x <- matrix(rnorm(200), 100)
    w <- if (seed %% 3 == 0) runif(100, 0.5, 2) else NULL
    nu <- c(0.1, 0.3, 0.05)[seed %% 3 + 1]
    fit <- kernel_svm(x, type = "one-classification", nu = nu, weights = w)
    wt <- fit$C / sum(fit$C)
    alpha <- numeric(100)
    alpha[fit$index] <- fit$eta[, 1L]
    expect_equal(sum(alpha), nu * sum(fit$C))
    s <- summary(fit)
    expect_equal(s$fractions[["at_bound"]], sum(wt[alpha >= fit$C]))
    expect_equal(s$fractions[["support_vectors"]], sum(wt[alpha > 0]))
    expect_equal(s$fractions[["outliers"]], sum(wt[fitted(fit) == "outlier"]))
    expect_lte(s$fractions[["at_bound"]], nu + 1e-12)
    expect_gte(s$fractions[["support_vectors"]], nu - 1e-12)
    if (is.null(w)) expect_equal(s$fractions[["at_bound"]] * 100, unname(fit$n_at_bound))
    # every inequality printed holds
    out <- capture.output(print(s))
    chains <- nu_chain(out)
    expect_length(chains, 1L)
    for (ch in chains) {
      expect_lte(ch[1L], nu + 1e-4)
      expect_gte(ch[length(ch)], nu - 1e-4)
    }
  }
  # the old statement "outliers <= nu" is false on some of these fits
  set.seed(1)
  fit <- kernel_svm(matrix(rnorm(200), 100), type = "one-classification", nu = 0.1)
  expect_gt(summary(fit)$fractions[["outliers"]], 0.1)
  expect_false(any(grepl("outliers [0-9.]+ <= nu", capture.output(print(summary(fit))))))
})

test_that("nu-SVC summary gives each pair's exact nu-property", {
  for (seed in 1:4) {
    set.seed(seed)
    w <- if (seed %% 2 == 0) runif(150, 0.5, 2) else NULL
    fit <- kernel_svm(Species ~ ., data = iris, type = "nu-classification", nu = 0.25,
                      weights = w)
    s <- summary(fit)
    expect_true(all(s$pairs$at_bound_fraction <= 0.25 + 1e-12))
    expect_true(all(s$pairs$sv_fraction >= 0.25 - 1e-12))
    pairs <- kernclass:::kc_ovo_pairs(fit$levels)
    for (m in seq_len(nrow(pairs))) {
      rows <- which(as.integer(fit$y) %in% pairs[m, ])
      eta <- numeric(150)
      eta[fit$index] <- fit$eta[, m]
      wt <- fit$C[rows] / sum(fit$C[rows])
      # the solution times r is LIBSVM's: sum = nu W, bounds w_i
      expect_equal(sum(eta[rows]) / unname(fit$cost[m]), 0.25 * sum(fit$C[rows]))
      expect_equal(s$pairs$sv_fraction[m], sum(wt[eta[rows] > 0]))
      if (is.null(w)) expect_equal(s$pairs$at_bound_fraction[m] * length(rows),
                                   unname(fit$n_at_bound[m]))
    }
    expect_output(print(s), "at the bound <= nu = 0.25 <= support vectors")
  }
})
