# predict(): the shape and type of every kind of result, NA rows, matching
# of newdata columns, factor inputs and empty newdata.

testthat::local_edition(3)

set.seed(202)
n <- 60
x2 <- matrix(rnorm(n * 3), n, 3, dimnames = list(NULL, c("p", "q", "r")))
y2 <- factor(ifelse(x2[, 1] + x2[, 2] > 0, "pos", "neg"), levels = c("pos", "neg"))
x3 <- x2
y3 <- factor(c("a", "b", "c")[1 + (x2[, 1] > 0.4) + (x2[, 1] > -0.4)])
new <- matrix(rnorm(10 * 3), 10, 3, dimnames = list(NULL, c("p", "q", "r")))

classifiers <- list(kernel_means = kernel_means, kernel_parzen = kernel_parzen)

test_that("class predictions are a factor with the training levels, one per row", {
  for (nm in names(classifiers)) {
    for (yy in list(y2, y3)) {
      fit <- classifiers[[nm]](x2, yy)
      pr <- predict(fit, new)
      expect_s3_class(pr, "factor")
      expect_identical(levels(pr), levels(yy), info = nm)
      expect_length(pr, nrow(new))
      expect_false(anyNA(pr))
      expect_identical(predict(fit, new, type = "class"), pr)
    }
  }
})

test_that("decision values: a vector for two classes, a matrix per class for three", {
  for (nm in names(classifiers)) {
    fit2 <- classifiers[[nm]](x2, y2)
    d2 <- predict(fit2, new, type = "decision")
    expect_type(d2, "double")
    expect_null(dim(d2))
    expect_length(d2, nrow(new))
    # positive for the first level
    expect_identical(as.character(predict(fit2, new)),
                     ifelse(d2 > 0, "pos", "neg"), info = nm)

    fit3 <- classifiers[[nm]](x3, y3)
    d3 <- predict(fit3, new, type = "decision")
    expect_true(is.matrix(d3))
    expect_identical(dim(d3), c(nrow(new), 3L))
    expect_identical(colnames(d3), levels(y3))
    # the class is the largest score
    expect_identical(as.character(predict(fit3, new)), levels(y3)[max.col(d3)], info = nm)
  }
})

test_that("probabilities are a matrix with a column per level, rows summing to 1", {
  for (nm in names(classifiers)) {
    for (yy in list(y2, y3)) {
      fit <- classifiers[[nm]](x2, yy)
      pr <- predict(fit, new, type = "prob")
      expect_true(is.matrix(pr))
      expect_identical(dim(pr), c(nrow(new), nlevels(yy)))
      expect_identical(colnames(pr), levels(yy))
      expect_true(all(pr >= 0 & pr <= 1))
      expect_equal(rowSums(pr), rep(1, nrow(new)))
      # the most probable class is the predicted class
      expect_identical(levels(yy)[max.col(pr, ties.method = "first")],
                       as.character(predict(fit, new)), info = nm)
    }
  }
})

test_that("rows of newdata with NA give NA and leave the other rows unaffected", {
  nd <- new
  nd[3, 2] <- NA
  nd[7, 1] <- NaN
  bad <- c(3L, 7L)
  for (nm in names(classifiers)) {
    for (yy in list(y2, y3)) {
      fit <- classifiers[[nm]](x2, yy)
      cls <- predict(fit, nd)
      expect_length(cls, nrow(nd))
      expect_identical(which(is.na(cls)), bad)
      expect_identical(cls[-bad], predict(fit, nd[-bad, ]), info = nm)
      for (type in c("decision", "prob")) {
        pr <- predict(fit, nd, type = type)
        if (is.matrix(pr)) {
          expect_true(all(is.na(pr[bad, ])))
          expect_false(anyNA(pr[-bad, ]))
          expect_equal(pr[-bad, ], predict(fit, nd[-bad, ], type = type))
        } else {
          expect_identical(which(is.na(pr)), bad)
          expect_equal(pr[-bad], predict(fit, nd[-bad, ], type = type))
        }
      }
    }
  }
  # all rows NA
  fit <- kernel_means(x2, y3)
  nd[] <- NA
  expect_true(all(is.na(predict(fit, nd))))
  expect_identical(levels(predict(fit, nd)), levels(y3))
})

test_that("NA rows in a data frame for a formula fit give NA, with row names kept", {
  d <- data.frame(x2, cls = y3)
  fit <- kernel_parzen(cls ~ ., data = d)
  nd <- d[c(5, 9, 12, 40), ]
  nd$q[2] <- NA
  pr <- predict(fit, nd)
  expect_identical(names(pr), c("5", "9", "12", "40"))
  expect_identical(unname(is.na(pr)), c(FALSE, TRUE, FALSE, FALSE))
  expect_identical(pr[-2], predict(fit, nd[-2, ]))
  expect_identical(rownames(predict(fit, nd, type = "prob")), c("5", "9", "12", "40"))
})

test_that("without newdata predict gives the fitted values of the training data", {
  for (nm in names(classifiers)) {
    fit <- classifiers[[nm]](x2, y3)
    expect_identical(unname(predict(fit)), unname(predict(fit, x2)))
    expect_identical(predict(fit), fitted(fit))
    expect_identical(predict(fit, NULL), predict(fit))
    expect_equal(unname(predict(fit, type = "prob")), unname(predict(fit, x2, type = "prob")))
    expect_equal(unname(predict(fit, type = "decision")),
                 unname(predict(fit, x2, type = "decision")))
  }
  d <- data.frame(x2, cls = y2)
  fit <- kernel_means(cls ~ ., data = d)
  expect_identical(unname(predict(fit)), unname(predict(fit, d)))
  expect_length(fitted(fit), n)
})

test_that("columns of newdata are matched by name; reordered or extra columns are fine", {
  for (nm in names(classifiers)) {
    fit <- classifiers[[nm]](x2, y3)
    ref <- predict(fit, new, type = "prob")
    expect_equal(predict(fit, new[, c("r", "p", "q")], type = "prob"), ref)
    extra <- cbind(z = rnorm(10), new[, c("q", "r", "p")])
    expect_equal(predict(fit, extra, type = "prob"), ref)
    expect_equal(predict(fit, as.data.frame(extra), type = "prob"), ref, ignore_attr = TRUE)
    # extra columns are ignored even when they hold NA or Inf
    extra[, "z"] <- c(NA, Inf)
    expect_equal(predict(fit, extra, type = "prob"), ref)

    d <- data.frame(x2, cls = y3)
    fitf <- classifiers[[nm]](cls ~ ., data = d)
    nd <- as.data.frame(new)
    ref <- predict(fitf, nd, type = "prob")
    expect_equal(predict(fitf, nd[c("q", "r", "p")], type = "prob"), ref)
    expect_equal(predict(fitf, cbind(junk = letters[1:10], nd[c("r", "q", "p")]),
                         type = "prob"), ref)
    # a matrix is taken as a data frame
    expect_equal(predict(fitf, new[, 3:1], type = "prob"), ref, ignore_attr = TRUE)
  }
})

test_that("without names on the model, columns are matched by position", {
  fit <- kernel_means(unname(x2), y3)
  ref <- predict(fit, unname(new), type = "decision")
  expect_equal(predict(fit, new[, c("r", "q", "p")], type = "decision"),
               predict(fit, unname(new[, c("r", "q", "p")]), type = "decision"))
  expect_equal(predict(fit, new, type = "decision"), ref)
  expect_equal(unname(predict(kernel_means(x2, y3), new, type = "decision")), unname(ref))
})

test_that("factor predictors are coded, for data frame x and for formulas", {
  set.seed(203)
  m <- 90
  df <- data.frame(a = rnorm(m), f = factor(sample(c("lo", "mid", "hi"), m, TRUE)),
                   s = sample(c("u", "v"), m, TRUE), stringsAsFactors = FALSE)
  lab <- factor(ifelse(df$a + (df$f == "hi") * 2 - 0.5 > 0, "yes", "no"))
  nd <- data.frame(a = c(-1, 0, 1, 2), f = factor(c("hi", "lo", "mid", "hi")),
                   s = c("v", "u", "u", "v"), stringsAsFactors = FALSE)
  fits <- list(
    default_df = kernel_means(df, lab),
    formula = kernel_means(lab ~ a + f + s, data = cbind(df, lab = lab)),
    parzen_df = kernel_parzen(df, lab),
    parzen_formula = kernel_parzen(lab ~ ., data = cbind(df, lab = lab)))
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    # one indicator column per level
    expect_identical(colnames(fit$x), c("a", "fhi", "flo", "fmid", "su", "sv"), info = nm)
    expect_equal(unname(fit$x[, 2:4]), outer(as.character(df$f), c("hi", "lo", "mid"), "==") + 0)
    # dummy columns are not scaled
    expect_equal(unname(fit$scaling$scale[2:6]), rep(1, 5))
    expect_equal(unname(fit$scaling$center[2:6]), rep(0, 5))
    pr <- predict(fit, nd)
    expect_s3_class(pr, "factor")
    expect_length(pr, 4L)
    expect_identical(levels(pr), c("no", "yes"))
    # factor given as character in newdata, or with its levels in another order
    nd2 <- nd
    nd2$f <- factor(as.character(nd$f), levels = c("mid", "lo", "hi"))
    expect_identical(predict(fit, nd2), pr, info = nm)
    nd2$f <- as.character(nd$f)
    expect_identical(predict(fit, nd2), pr, info = nm)
    # NA in a factor column gives NA for that row only
    nd3 <- nd
    nd3$f[2] <- NA
    p3 <- predict(fit, nd3)
    expect_identical(unname(is.na(p3)), c(FALSE, TRUE, FALSE, FALSE), info = nm)
    expect_identical(p3[-2], pr[-2])
    # a subset of levels in newdata is fine
    expect_identical(predict(fit, nd[1, ]), pr[1])
    # the training data predicted through newdata agree with the fitted values
    expect_identical(unname(predict(fit, df)), unname(fitted(fit)), info = nm)
  }
  expect_equal(predict(fits$default_df, nd, type = "prob"),
               predict(fits$formula, nd, type = "prob"))
})

test_that("a 0-row newdata gives length-0 results", {
  for (nm in names(classifiers)) {
    fit2 <- classifiers[[nm]](x2, y2)
    fit3 <- classifiers[[nm]](x3, y3)
    e <- new[0, , drop = FALSE]
    p <- predict(fit2, e)
    expect_s3_class(p, "factor")
    expect_length(p, 0L)
    expect_identical(levels(p), levels(y2))
    expect_length(predict(fit2, e, type = "decision"), 0L)
    expect_identical(dim(predict(fit2, e, type = "prob")), c(0L, 2L))
    expect_identical(dim(predict(fit3, e, type = "decision")), c(0L, 3L))
    expect_identical(dim(predict(fit3, e, type = "prob")), c(0L, 3L))

    fitf <- classifiers[[nm]](cls ~ ., data = data.frame(x2, cls = y3))
    ed <- as.data.frame(new)[0, ]
    expect_length(predict(fitf, ed), 0L)
    expect_identical(dim(predict(fitf, ed, type = "prob")), c(0L, 3L))
  }
})

test_that("a fit on a data frame predicts from a data frame", {
  d <- as.data.frame(x2)
  for (nm in names(classifiers)) {
    fit <- classifiers[[nm]](d, y3)
    nd <- as.data.frame(new)
    pr <- predict(fit, nd, type = "prob")
    expect_identical(dim(pr), c(10L, 3L))
    # same model as a matrix fit
    fm <- classifiers[[nm]](x2, y3)
    expect_equal(unname(pr), unname(predict(fm, new, type = "prob")))
    expect_identical(unname(predict(fit, nd)), unname(predict(fm, new)))
  }
})

test_that("character and logical y work", {
  ych <- as.character(y3)
  for (nm in names(classifiers)) {
    fit <- classifiers[[nm]](x2, ych)
    expect_identical(fit$levels, c("a", "b", "c"))
    ref <- classifiers[[nm]](x2, y3)
    expect_identical(predict(fit, new), predict(ref, new))
    fitl <- classifiers[[nm]](x2, as.character(y2) == "pos")
    expect_identical(levels(predict(fitl, new)), c("FALSE", "TRUE"))
    fitf <- classifiers[[nm]](cls ~ ., data = data.frame(x2, cls = ych))
    expect_identical(levels(predict(fitf, as.data.frame(new))), c("a", "b", "c"))
  }
})

test_that("decision values agree with the expansion in coef()", {
  for (nm in names(classifiers)) {
    fit <- classifiers[[nm]](x2, y2, kernel = "rbf", gamma = 0.3)
    cf <- coef(fit)
    k <- kernel_matrix(fit$x, kernel = "rbf", gamma = 0.3)
    expect_equal(drop(k %*% cf$alpha) + cf$b, unname(predict(fit, type = "decision")))
    fit3 <- classifiers[[nm]](x3, y3, kernel = "polynomial", degree = 2, gamma = 0.5, coef0 = 1)
    cf3 <- coef(fit3)
    k3 <- kernel_matrix(fit3$x, kernel = "polynomial", degree = 2, gamma = 0.5, coef0 = 1)
    expect_equal(k3 %*% cf3$alpha + rep(cf3$b, each = n),
                 predict(fit3, type = "decision"), ignore_attr = TRUE)
  }
})

test_that("every kernel predicts with both classifiers", {
  for (kern in c("linear", "polynomial", "rbf", "laplace", "sigmoid")) {
    for (nm in names(classifiers)) {
      fit <- classifiers[[nm]](x2, y3, kernel = kern)
      pr <- predict(fit, new)
      expect_length(pr, 10L)
      expect_false(anyNA(pr), info = paste(nm, kern))
    }
  }
})

test_that("Parzen probabilities fall back to the priors far from all data", {
  fit <- kernel_parzen(x3, y3, prior = c(a = 0.2, b = 0.3, c = 0.5))
  far <- matrix(1e4, 1, 3, dimnames = list(NULL, c("p", "q", "r")))
  expect_equal(predict(fit, far, type = "prob"), matrix(c(0.2, 0.3, 0.5), 1, 3,
               dimnames = list(NULL, c("a", "b", "c"))))
  expect_equal(unname(predict(fit, far, type = "decision")), matrix(0, 1, 3))
})


test_that("non-numeric extra columns of newdata are ignored for a matrix fit", {
  fit <- kernel_means(as.matrix(iris[, 1:4]), iris$Species)
  expect_identical(predict(fit, iris[1:5, ]), predict(fit, iris[1:5, 1:4]))
})

test_that("the Parzen class follows the priors where the probabilities do", {
  fit <- kernel_parzen(x3, y3, prior = c(a = 0.2, b = 0.3, c = 0.5))
  far <- matrix(1e4, 1, 3, dimnames = list(NULL, c("p", "q", "r")))
  expect_identical(as.character(predict(fit, far)), "c")
})

test_that("one point given as a plain vector, and partial type names, are understood", {
  fit <- kernel_means(as.matrix(iris[, 1:4]), iris$Species)
  point <- unlist(iris[51, 1:4])
  expect_identical(unname(predict(fit, point)), unname(predict(fit, iris[51, 1:4])))
  expect_identical(predict(fit, iris[1:3, 1:4], type = "dec"),
                   predict(fit, iris[1:3, 1:4], type = "decision"))
  expect_error(predict(fit, iris[1:3, 1:4], type = "x"), "`type`", class = "kernclass_error")
})

# ---- na.action = na.exclude pads as lm does -----------------------------------

test_that("na.exclude: fitted() and predict() give a value per row of data", {
  ir <- iris
  ir$Sepal.Length[c(3, 70)] <- NA
  ir$Petal.Width[140] <- NA
  miss <- c(3, 70, 140)
  two <- droplevels(ir[51:150, ])
  set.seed(1)
  fits <- list(
    kernel_means(Species ~ ., data = ir, na.action = na.exclude),
    kernel_parzen(Species ~ ., data = ir, na.action = na.exclude),
    kernel_bayes(Species ~ ., data = ir, na.action = na.exclude),
    kernel_bayes(Species ~ ., data = two, na.action = na.exclude),
    kernel_svm(Species ~ ., data = ir, na.action = na.exclude, probability = TRUE),
    kernel_svm(Species ~ ., data = two, na.action = na.exclude, probability = TRUE),
    kernel_svm(~ ., data = ir[1:4], na.action = na.exclude, type = "one-classification"))
  for (fit in fits) {
    two_classes <- identical(fit$levels, levels(two$Species))
    n <- if (two_classes) 100L else 150L
    gone <- if (two_classes) miss[miss > 50] - 50L else miss
    expect_equal(unname(c(fit$na.action)), gone)
    expect_length(fitted(fit), n)
    expect_true(all(is.na(fitted(fit)[gone])))
    expect_false(anyNA(fitted(fit)[-gone]))
    types <- if (inherits(fit, "kernel_svm_oneclass")) c("class", "decision") else
      c("class", "decision", "prob")
    for (type in types) {
      p <- predict(fit, type = type)
      expect_equal(NROW(p), n)
      kept <- kernclass:::kc_predict_rows(fit, fit$x, type)
      if (is.null(dim(p))) {
        expect_true(all(is.na(p[gone])))
        expect_equal(unname(p[-gone]), unname(kept))
      } else {
        expect_true(all(is.na(p[gone, ])))
        expect_equal(unname(p[-gone, , drop = FALSE]), unname(kept))
      }
    }
    # as lm: predict(newdata = NULL) is the same
    expect_identical(predict(fit, NULL), fitted(fit))
    # what uses the training rows stays on the rows used
    if (!is.null(fit$y)) expect_equal(sum(summary(fit)$confusion), nrow(fit$x))
  }
  # na.omit keeps one value per row used, as lm
  fit <- kernel_means(Species ~ ., data = ir, na.action = na.omit)
  expect_length(fitted(fit), 147L)
  # lm pads the same rows
  expect_identical(which(is.na(fitted(fits[[1]]))),
                   unname(which(is.na(fitted(lm(Sepal.Width ~ ., data = ir, na.action = na.exclude))))))
})

# ---- predictions of no rows and of NA rows have the right shape ---------------

test_that("prob, decision and class predictions of 0 rows and of all-NA rows", {
  set.seed(1)
  check <- function(fit, nd, K) {
    pairs <- K * (K - 1) / 2
    for (type in c("class", "decision", "prob")) {
      for (rows in list(integer(0), 1L, 1:2)) {
        newd <- nd[rows, , drop = FALSE]
        p <- predict(fit, newd, type = type)
        expect_equal(NROW(p), length(rows))
        if (type == "class") {
          expect_s3_class(p, "factor")
          expect_identical(levels(p), fit$levels)
        } else if (type == "prob") {
          expect_equal(colnames(p), fit$levels)
        } else if (K > 2) {
          expect_equal(ncol(p), if (inherits(fit, "kernclass_ovo")) pairs else K)
        } else {
          expect_null(dim(p))
        }
        expect_true(all(is.na(p)))
      }
    }
  }
  for (K in 2:3) {
    d <- droplevels(iris[iris$Species %in% levels(iris$Species)[seq_len(K)], ])
    nd <- d[c(1, 40), ]
    nd$Sepal.Length <- NA
    ndm <- as.matrix(nd[, 1:4])
    fits <- list(kernel_means(Species ~ ., data = d), kernel_parzen(Species ~ ., data = d),
                 kernel_bayes(Species ~ ., data = d),
                 kernel_svm(Species ~ ., data = d, probability = TRUE),
                 kernel_svm(Species ~ ., data = d, probability = TRUE,
                            type = "nu-classification", nu = 0.2))
    for (fit in fits) check(fit, nd, K)
    mfits <- list(kernel_bayes(as.matrix(d[, 1:4]), d$Species),
                  kernel_svm(as.matrix(d[, 1:4]), d$Species, probability = TRUE))
    for (fit in mfits) check(fit, ndm, K)
  }
  # sparse rows and kernel values: no rows
  skip_if_not_installed("Matrix")
  x <- as.matrix(iris[, 1:4])
  sfit <- kernel_svm(Matrix::Matrix(x, sparse = TRUE), iris$Species, probability = TRUE)
  p <- predict(sfit, Matrix::Matrix(x[0, ], sparse = TRUE), type = "prob")
  expect_equal(dim(p), c(0L, 3L))
  K <- kernel_matrix(x, kernel = "rbf", gamma = 0.5)
  kfit <- kernel_svm(K, iris$Species, kernel = "precomputed", probability = TRUE)
  expect_equal(dim(predict(kfit, K[0, ], type = "prob")), c(0L, 3L))
  rbf <- function(a, b) kernel_matrix(a, b, kernel = "rbf", gamma = 0.5)
  ffit <- kernel_means(x, iris$Species, kernel = rbf)
  expect_equal(dim(predict(ffit, x[0, ], type = "prob")), c(0L, 3L))
  expect_length(predict(ffit, x[0, ]), 0L)
})

# kernel_svm() on rows with NA (from test-svm.R)
test_that("predict() keeps rows with NA as NA and predicts the others", {
  set.seed(25)
  fit <- kernel_svm(Species ~ ., data = iris, cost = 4)
  new <- iris[sample(150, 30), ]
  na_rows <- c(3L, 10L, 22L)
  new_na <- new
  new_na$Sepal.Width[na_rows[1:2]] <- NA
  new_na$Petal.Length[na_rows[3]] <- NA
  cls <- predict(fit, new_na)
  expect_s3_class(cls, "factor")
  expect_identical(levels(cls), levels(iris$Species))
  expect_identical(unname(which(is.na(cls))), na_rows)
  expect_identical(cls[-na_rows], predict(fit, new[-na_rows, ]), ignore_attr = TRUE)
  dec <- predict(fit, new_na, type = "decision")
  expect_identical(dim(dec), c(30L, 3L))
  expect_true(all(is.na(dec[na_rows, ])))
  expect_equal(dec[-na_rows, ], predict(fit, new[-na_rows, ], type = "decision"))
  # two classes: a vector of decisions
  two <- droplevels(iris[iris$Species != "setosa", ])
  fit2 <- kernel_svm(Species ~ ., data = two)
  x <- two[1:5, ]
  x$Sepal.Length[2] <- NA
  d2 <- predict(fit2, x, type = "decision")
  expect_null(dim(d2))
  expect_identical(unname(which(is.na(d2))), 2L)
})
