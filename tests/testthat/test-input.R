# Bad input (R/input-checks.R) must give a classed kernclass error whose `arg`
# and message name the argument and say what is wrong: never a crash, never a
# bare error from deep inside R or the C engine. Here one table of bad inputs
# across every exported function (the messages' wording and the warnings are
# test-input-messages.R's).
#
# Each row is a call
# and what it must give: either an error of class "kernclass_input_error"
# whose field `arg` and message name the argument, or a documented result
# (checked by a function of the result). Nothing may crash or leak a bare
# error from R or the C engine.
#
# Documented results held here:
# * one row in a class: kernel_means, kernel_parzen and kernel_svm fit (a
#   class mean, a density, a support vector need only one point);
#   kernel_bayes types 2 and 3 need a covariance matrix per class (an error,
#   type 1 fits), kernel_cv and kernel_tune need every class in every
#   training set (an error);
# * kernel_matrix on 0 rows gives a matrix with 0 rows; kernel values that
#   overflow are Inf there (the fitters stop with an error instead);
# * newdata: extra columns are ignored, columns are matched by name, rows
#   with NA give NA, logical columns count as numbers, 0 rows give length 0.

testthat::local_edition(3)

set.seed(701)
x <- matrix(rnorm(48), 24, 2, dimnames = list(NULL, c("a", "b")))
x[, 1] <- x[, 1] + rep(c(1.5, -1.5), 12)
y <- factor(rep(c("u", "v"), 12))
dat <- data.frame(x, f = factor(rep(c("p", "q", "r"), 8)), cls = y)
with_na <- function(m, value, at = c(3, 2)) {
  m[at[1], at[2]] <- value
  m
}
fitters <- c("kernel_means", "kernel_parzen", "kernel_bayes", "kernel_svm")
numeric_bad <- list(`NA` = NA_real_, negative = -1, zero = 0, infinite = Inf, `length 2` = c(1, 2))

# ---- the table ---------------------------------------------------------------

cases <- list()
add <- function(fun, label, call, expect = "error", arg = NA_character_) {
  cases[[length(cases) + 1L]] <<- list(fun = fun, label = label, call = call,
                                       expect = expect, arg = arg)
}
ok <- "ok"  # fits without error and returns a kernclass model

# data problems, for every fitter (and the cross-validation wrappers)
for (fun in fitters) {
  f <- as.name(fun)
  add(fun, "NA in x", bquote(.(f)(with_na(x, NA), y)), arg = "x")
  add(fun, "NaN in x", bquote(.(f)(with_na(x, NaN), y)), arg = "x")
  add(fun, "Inf in x", bquote(.(f)(with_na(x, -Inf), y)), arg = "x")
  add(fun, "0 rows", bquote(.(f)(x[0, ], y[0])), arg = "x")
  add(fun, "0 columns", bquote(.(f)(x[, 0], y)), arg = "x")
  add(fun, "0 columns, data frame", bquote(.(f)(dat[, 0], y)), arg = "x")
  add(fun, "0 rows, formula", bquote(.(f)(cls ~ ., data = dat[0, ])), arg = "data")
  add(fun, "no predictors, formula", bquote(.(f)(cls ~ 1, data = dat)), arg = "formula")
  add(fun, "one class", bquote(.(f)(x, factor(rep("u", 24)))), arg = "y")
  add(fun, "one class, formula", bquote(.(f)(cls ~ a, data = dat[y == "u", ])), arg = "cls")
  add(fun, "one row in a class", bquote(.(f)(x[c(1:12 * 2, 1), ], y[c(1:12 * 2, 1)])),
      expect = if (fun == "kernel_bayes") "error" else ok, arg = "y")
  add(fun, "character x", bquote(.(f)(matrix(letters[1:24], 12), y[1:12])), arg = "x")
  add(fun, "list x", bquote(.(f)(list(x[, 1], x[, 2]), y)), arg = "x")
  add(fun, "list column", bquote(.(f)(data.frame(a = 1:24, l = I(as.list(1:24))), y)), arg = "x")
  add(fun, "complex column", bquote(.(f)(data.frame(a = 1:24, z = complex(24)), y)), arg = "x")
  add(fun, "one-level factor column", bquote(.(f)(data.frame(a = x[, 1], s = "k"), y)), arg = "x")
  add(fun, "x missing", bquote(.(f)()), arg = "x")
  add(fun, "y missing", bquote(.(f)(x)), arg = "y")
  add(fun, "y shorter than x", bquote(.(f)(x, y[-1])), arg = "y")
  add(fun, "y longer than x", bquote(.(f)(x, c(y, y))), arg = "y")
  add(fun, "NA in y", bquote(.(f)(x, replace(y, 5, NA))), arg = "y")
  add(fun, "numeric y", bquote(.(f)(x, as.integer(y))), arg = "y")
  add(fun, "unknown argument", bquote(.(f)(x, y, gama = 1)), arg = "...")
  add(fun, "polynomial overflow", bquote(.(f)(x, y, kernel = "polynomial", degree = 1e5,
                                              gamma = 10)), arg = "degree")
  add(fun, "huge unscaled x", bquote(.(f)(x * 1e200, y, scale = FALSE)), arg = "x")
  # the kernel's numeric arguments
  for (nm in names(numeric_bad)) {
    v <- numeric_bad[[nm]]
    add(fun, paste("gamma", nm), bquote(.(f)(x, y, gamma = .(v))), arg = "gamma")
    add(fun, paste("degree", nm), bquote(.(f)(x, y, kernel = "polynomial", degree = .(v))),
        arg = "degree")
    add(fun, paste("coef0", nm), bquote(.(f)(x, y, kernel = "sigmoid", coef0 = .(v))),
        expect = if (nm %in% c("negative", "zero")) ok else "error", arg = "coef0")
    add(fun, paste("threads option", nm), bquote(with_threads(.(v), .(f)(x, y))),
        arg = "kernclass.threads")
  }
}

for (nm in names(numeric_bad)) {
  v <- numeric_bad[[nm]]
  add("kernel_svm", paste("cost", nm), bquote(kernel_svm(x, y, cost = .(v))),
      expect = if (nm == "infinite") ok else "error", arg = "cost")
  for (a in c("tolerance", "cachesize", "max_iter")) {
    add("kernel_svm", paste(a, nm), as.call(c(quote(kernel_svm), quote(x), quote(y),
                                              stats::setNames(list(v), a))), arg = a)
  }
  add("kernel_svm", paste("class.weights", nm),
      bquote(kernel_svm(x, y, class.weights = c(u = .(v[1])))), arg = "class.weights",
      expect = if (nm == "length 2") ok else "error")  # (length 2 = weight 1 for "u")
  add("kernel_svm", paste("weights", nm), bquote(kernel_svm(x, y, weights = rep(.(v), 24))),
      arg = "weights")  # length 2: 48 weights for 24 rows
  add("kernel_bayes", paste("ridge", nm), bquote(kernel_bayes(x, y, ridge = .(v))), arg = "ridge",
      expect = if (nm == "zero") ok else "error")
  add("kernel_bayes", paste("type", nm), bquote(kernel_bayes(x, y, type = .(v))), arg = "type")
  add("kernel_parzen", paste("prior", nm), bquote(kernel_parzen(x, y, prior = c(.(v[1]), 0.5))),
      arg = "prior")
  add("kernel_cv", paste("folds", nm), bquote(kernel_cv(kernel_means, x, y, folds = .(v))),
      arg = "folds")
  add("kernel_tune", paste("folds", nm),
      bquote(kernel_tune(kernel_means, x, y, grid = list(gamma = 1), folds = .(v))), arg = "folds")
  add("kernel_tune", paste("grid gamma", nm),
      bquote(kernel_tune(kernel_svm, x, y, grid = list(gamma = .(v)), folds = 2)), arg = "gamma",
      expect = if (nm == "length 2") function(r) expect_s3_class(r, "kernel_tune") else "error")
  add("kernel_matrix", paste("gamma", nm), bquote(kernel_matrix(x, gamma = .(v))), arg = "gamma")
  add("kernel_matrix", paste("degree", nm),
      bquote(kernel_matrix(x, kernel = "polynomial", degree = .(v))), arg = "degree")
}
add("kernel_svm", "weights of length 2", quote(kernel_svm(x, y, weights = c(1, 2))), arg = "weights")
add("kernel_svm", "formula weights negative",
    quote(kernel_svm(cls ~ a + b, data = dat, weights = rep(-1, 24))), arg = "weights")
add("kernel_svm", "probability NA", quote(kernel_svm(x, y, probability = NA)), arg = "probability")
add("kernel_bayes", "type 1, one row in a class",
    quote(kernel_bayes(x[c(1:12 * 2, 1), ], y[c(1:12 * 2, 1)], type = 1)), expect = ok)
add("kernel_parzen", "prior of length 3", quote(kernel_parzen(x, y, prior = rep(1 / 3, 3))),
    arg = "prior")

# estimate_gamma
# the approximations' specifications, and the fitters' approx argument
for (nm in names(numeric_bad)) {
  v <- numeric_bad[[nm]]
  add("nystrom", paste("m", nm), bquote(nystrom(m = .(v))), arg = "m")
  add("random_fourier", paste("m", nm), bquote(random_fourier(m = .(v))), arg = "m")
  add("cells", paste("size", nm), bquote(cells(size = .(v))), arg = "size")
}
add("cells", "size not whole", quote(cells(size = 2.5)), arg = "size")
add("cells", "check negative", quote(cells(check = -1)), arg = "check")
add("cells", "scale_cost NA", quote(cells(scale_cost = NA)), arg = "scale_cost")
add("cells", "defaults", quote(cells()),
    expect = function(r) expect_s3_class(r, "kernclass_approximation"))
add("kernel_means", "cells() (kernel_svm's only)", quote(kernel_means(x, y, approx = cells())),
    arg = "approx")
add("kernel_svm", "cells() with nu-classification",
    quote(kernel_svm(x, y, type = "nu-classification", approx = cells())), arg = "approx")
add("nystrom", "m not whole", quote(nystrom(m = 2.5)), arg = "m")
add("nystrom", "unknown landmarks", quote(nystrom(landmarks = "random")), arg = "landmarks")
add("nystrom", "tol 0", quote(nystrom(tol = 0)), arg = "tol")
add("nystrom", "check negative", quote(nystrom(check = -1)), arg = "check")
add("random_fourier", "check not whole", quote(random_fourier(check = 0.5)), arg = "check")
add("nystrom", "defaults", quote(nystrom()),
    expect = function(r) expect_s3_class(r, "kernclass_approximation"))
add("random_fourier", "defaults", quote(random_fourier(m = 10)),
    expect = function(r) expect_s3_class(r, "kernclass_approximation"))
for (fun in fitters) {
  f <- as.name(fun)
  add(fun, "approx a string", bquote(.(f)(x, y, approx = "nystrom")), arg = "approx")
  # kernel_bayes refuses given kernel values first (`kernel`), as test-bayes-input.R checks
  if (fun != "kernel_bayes") add(fun, "approx with given kernel values",
      bquote(.(f)(kernel_matrix(x, kernel = "rbf", gamma = 0.5), y, kernel = "precomputed",
                  approx = nystrom(m = 5))), arg = "approx")
}
add("kernel_svm", "random_fourier with a polynomial kernel",
    quote(kernel_svm(x, y, kernel = "polynomial", approx = random_fourier(m = 10))),
    arg = "approx")
add("estimate_gamma", "NA in x", quote(estimate_gamma(with_na(x, NA))), arg = "x")
add("estimate_gamma", "Inf in x", quote(estimate_gamma(with_na(x, Inf))), arg = "x")
add("estimate_gamma", "one row", quote(estimate_gamma(x[1, , drop = FALSE])), arg = "x")
add("estimate_gamma", "0 rows", quote(estimate_gamma(x[0, ])), arg = "x")
add("estimate_gamma", "all rows equal", quote(estimate_gamma(matrix(1, 5, 2))), arg = "x")
add("estimate_gamma", "character x", quote(estimate_gamma(letters)), arg = "x")
add("estimate_gamma", "unknown kernel", quote(estimate_gamma(x, kernel = "cubic")), arg = "kernel")
add("estimate_gamma", "scale NA", quote(estimate_gamma(x, scale = NA)), arg = "scale")
for (nm in names(numeric_bad)) {
  add("estimate_gamma", paste("max_rows", nm),
      bquote(estimate_gamma(x, max_rows = .(numeric_bad[[nm]]))), arg = "max_rows")
}
add("estimate_gamma", "unknown argument", quote(estimate_gamma(x, foo = 1)), arg = "...")
add("estimate_gamma", "formula, data without the variables",
    quote(estimate_gamma(cls ~ nope, data = dat)), arg = "data")
add("estimate_gamma", "a constant column is fine",
    quote(estimate_gamma(cbind(x, 1))), expect = function(r) expect_true(is.finite(r) && r > 0))

# kernel_matrix
add("kernel_matrix", "NA in x", quote(kernel_matrix(with_na(x, NA))), arg = "x")
add("kernel_matrix", "Inf in y", quote(kernel_matrix(x, with_na(x, Inf))), arg = "y")
add("kernel_matrix", "0 columns", quote(kernel_matrix(x[, 0])), arg = "x")
add("kernel_matrix", "0 rows", quote(kernel_matrix(x[0, ], x)),
    expect = function(r) expect_identical(dim(r), c(0L, 24L)))
add("kernel_matrix", "character x", quote(kernel_matrix(letters)), arg = "x")
add("kernel_matrix", "list y", quote(kernel_matrix(x, list(1, 2))), arg = "y")
add("kernel_matrix", "columns of x and y differ", quote(kernel_matrix(x, cbind(x, 1))), arg = "y")
add("kernel_matrix", "x missing", quote(kernel_matrix()), arg = "x")
add("kernel_matrix", "polynomial overflow",
    quote(kernel_matrix(x * 10, kernel = "polynomial", degree = 1e5)),
    expect = function(r) expect_true(all(is.infinite(diag(r)))))
# sizes whose product overflows an R vector are refused before anything is
# allocated. The C guard in src/ffi.c (alloc_result) needs two inputs of
# 2^26 rows (GBs) to be reached, so the same check in R is tested with fake
# sizes. A result too large for memory is refused by R's allocator and
# reported as a classed error: tested under a limit on R's vector heap (so
# that no machine tries to find the 7 GB)
with_vsize_limit <- function(expr) {
  old <- mem.maxVSize()
  # 500 MB above the heap's present size (R ignores a limit below it, as after
  # a test that grew the heap)
  mem.maxVSize(gc()["Vcells", "gc trigger"] * 8 / 2^20 + 500)
  on.exit(mem.maxVSize(old))
  expr
}
add("kernel_matrix", "n x n beyond 2^52 values", quote(kernclass:::kc_check_result_size(2^27, 2^27)),
    arg = "x")
add("kernel_matrix", "n x n beyond memory", quote(with_vsize_limit(kernel_matrix(matrix(0, 3e4, 1)))),
    arg = "x")
add("kernel_matrix", "threads option NA", quote(with_threads(NA, kernel_matrix(x))),
    arg = "kernclass.threads")

# kernclass_threads: the count, and the option it reads
for (nm in names(numeric_bad)) {
  add("kernclass_threads", paste("n", nm), bquote(kernclass_threads(.(numeric_bad[[nm]]))),
      arg = "n")
}
add("kernclass_threads", "n not a number", quote(kernclass_threads("4")), arg = "n")
add("kernclass_threads", "n fractional", quote(kernclass_threads(1.5)), arg = "n")
add("kernclass_threads", "threads option negative", quote(with_threads(-2, kernclass_threads())),
    arg = "kernclass.threads")

# kernel_cv and kernel_tune
add("kernel_cv", "fit missing", quote(kernel_cv(x = x, y = y)), arg = "fit")
add("kernel_cv", "fit not a function", quote(kernel_cv("kernel_means", x, y)), arg = "fit")
add("kernel_cv", "y missing", quote(kernel_cv(kernel_means, x)), arg = "y")
add("kernel_cv", "one row in a class",
    quote(kernel_cv(kernel_svm, x[c(1:12 * 2, 1), ], y[c(1:12 * 2, 1)], folds = 2)), arg = "y")
add("kernel_cv", "NA in x", quote(kernel_cv(kernel_svm, with_na(x, NA), y)), arg = "x")
add("kernel_cv", "0 rows", quote(kernel_cv(kernel_svm, x[0, ], y[0])), arg = "x")
add("kernel_cv", "folds more than rows", quote(kernel_cv(kernel_means, x, y, folds = 25)),
    arg = "folds")
add("kernel_cv", "folds not a whole number", quote(kernel_cv(kernel_means, x, y, folds = 2.5)),
    arg = "folds")
add("kernel_cv", "bad argument for the fitter", quote(kernel_cv(kernel_svm, x, y, cost = -1)),
    arg = "cost")
add("kernel_tune", "grid missing where no default grid is made",
    quote(kernel_tune(kernel_parzen, x, y)), arg = "grid")
add("kernel_tune", "grid not a list", quote(kernel_tune(kernel_svm, x, y, grid = 1:3)),
    arg = "grid")
add("kernel_tune", "grid column unknown",
    quote(kernel_tune(kernel_svm, x, y, grid = list(cst = 1))), arg = "grid")
add("kernel_tune", "one class", quote(kernel_tune(kernel_svm, x, rep("u", 24),
                                                  grid = list(cost = 1))), arg = "y")

# threshold_search
add("threshold_search", "NA in score", quote(threshold_search(c(1, NA), c(1, -1))), arg = "score")
add("threshold_search", "Inf in score", quote(threshold_search(c(1, Inf), c(1, -1))),
    arg = "score")
add("threshold_search", "empty score", quote(threshold_search(numeric(0), numeric(0))),
    arg = "score")
add("threshold_search", "character score", quote(threshold_search("1", 1)), arg = "score")
add("threshold_search", "y of other length", quote(threshold_search(c(1, 2, 3), c(1, -1))),
    arg = "y")
add("threshold_search", "y not +1/-1", quote(threshold_search(c(1, 2), c(0, 1))), arg = "y")
add("threshold_search", "y missing", quote(threshold_search(c(1, 2))), arg = "y")
add("threshold_search", "y a three-level factor",
    quote(threshold_search(c(1, 2, 3), factor(1:3))), arg = "y")

# predict: newdata for a model of each fitter, fitted by matrix, data frame
# and formula
models <- list()
for (fun in fitters) {
  f <- get(fun)
  models[[fun]] <- list(matrix = f(x, y), frame = f(dat[c("a", "b", "f")], y),
                        formula = f(cls ~ ., data = dat))
}
nd <- dat[c(2, 7, 11), ]
same_as <- function(model, newdata) {
  force(model)
  force(newdata)
  function(r) expect_identical(r, predict(model, newdata, type = "decision"))
}
na_then_same <- function(model, rest) {
  force(model)
  force(rest)
  function(r) {
    expect_true(is.na(r[1]))
    expect_identical(r[-1], predict(model, rest, type = "decision"))
  }
}
for (fun in fitters) {
  mm <- models[[fun]]$matrix
  mf <- models[[fun]]$frame
  mo <- models[[fun]]$formula
  p <- function(model, newdata) {
    bquote(predict(models[[.(fun)]][[.(model)]], .(newdata), type = "decision"))
  }
  # what is missing, of the wrong type, or unseen
  add(fun, "newdata lacks a column", p("matrix", quote(x[, "b", drop = FALSE])), arg = "newdata")
  add(fun, "newdata lacks a column, formula", p("formula", quote(nd[c("a", "f")])),
      arg = "newdata")
  add(fun, "newdata with too many unnamed columns", p("matrix", quote(unname(cbind(x, x)))),
      arg = "newdata")
  add(fun, "newdata character matrix", p("matrix", quote(matrix("1", 2, 2))), arg = "newdata")
  add(fun, "newdata character for numeric",
      p("formula", quote(transform(nd, a = as.character(a)))), arg = "newdata")
  add(fun, "newdata numeric for factor", p("frame", quote(transform(nd, f = 2))), arg = "newdata")
  add(fun, "newdata unseen factor level gives NA for its row",
      p("formula", quote(transform(nd, f = c("p", "zz", "q")))),
      expect = function(r) expect_identical(unname(is.na(r)), c(FALSE, TRUE, FALSE)))
  add(fun, "newdata list", p("formula", quote(as.list(nd))), arg = "newdata")
  add(fun, "newdata Inf", p("matrix", quote(with_na(x, Inf))), arg = "newdata")
  add(fun, "predict type unknown",
      bquote(predict(models[[.(fun)]]$matrix, x, type = "probability")), arg = "type")
  # documented results
  add(fun, "newdata extra columns are ignored", p("formula", quote(cbind(nd, z = "extra"))),
      expect = same_as(mo, nd))
  add(fun, "newdata permuted columns are matched by name", p("frame", quote(nd[c("f", "b", "a")])),
      expect = same_as(mf, nd))
  add(fun, "newdata permuted matrix columns are matched by name",
      p("matrix", quote(x[1:3, c("b", "a")])), expect = same_as(mm, x[1:3, ]))
  add(fun, "newdata factor given as character", p("formula", quote(transform(nd, f = c("p", "q", "r")))),
      expect = same_as(mo, transform(nd, f = factor(c("p", "q", "r")))))
  add(fun, "newdata logical for numeric", p("formula", quote(transform(nd, b = c(TRUE, FALSE, TRUE)))),
      expect = same_as(mo, transform(nd, b = c(1, 0, 1))))
  add(fun, "newdata NA rows give NA", p("formula", quote(transform(nd, a = c(NA, a[2:3])))),
      expect = na_then_same(mo, nd[2:3, ]))
  add(fun, "newdata NA factor gives NA", p("frame", quote(transform(nd, f = NA))),
      expect = function(r) expect_true(all(is.na(r))))
  add(fun, "newdata with 0 rows", p("formula", quote(nd[0, ])),
      expect = function(r) expect_length(r, 0L))
}

# tidymodels and caret (their argument checks come before the packages are
# needed, so these rows hold without parsnip, dials or caret)
add("kernel_classifier", "mode regression", quote(kernel_classifier(mode = "regression")),
    arg = "mode")
add("kernel_classifier", "engine kernlab", quote(kernel_classifier(engine = "kernlab")),
    arg = "engine")
add("kernel_classifier_fit", "method unknown",
    quote(kernel_classifier_fit(x, y, method = "knn")), arg = "method")
add("kernel_classifier_fit", "NA in x", quote(kernel_classifier_fit(with_na(x, NA), y)), arg = "x")
add("kernel_classifier_fit", "engine argument of another method",
    quote(kernel_classifier_fit(x, y, method = "means", ridge = 1)), arg = "...")
add("kernel_svm_fit", "model unknown", quote(kernel_svm_fit(x, y, model = "svm_tree")),
    arg = "model")
add("kernel_svm_fit", "NA in x", quote(kernel_svm_fit(with_na(x, NA), y)), arg = "x")
add("kernclass_gamma", "range reversed", quote(kernclass_gamma(range = c(1, -3))), arg = "range")
add("kernclass_gamma", "range text", quote(kernclass_gamma(range = c("a", "b"))), arg = "range")
add("kernclass_method", "values unknown", quote(kernclass_method(values = "knn")), arg = "values")
add("kernclass_method", "values empty", quote(kernclass_method(values = character())),
    arg = "values")
add("kernclass_caret", "method unknown", quote(kernclass_caret("knn")), arg = "method")
add("kernclass_caret", "kernel unknown", quote(kernclass_caret("svm", "spline")), arg = "kernel")
add("kernclass_caret", "kernel NA", quote(kernclass_caret("svm", NA_character_)), arg = "kernel")

# prediction sets and calibration
pz <- kernel_parzen(x, y)
add("conformal", "score unknown", quote(conformal(pz, x, y, score = "lac")), arg = "score")
add("conformal", "mondrian NA", quote(conformal(pz, x, y, mondrian = NA)), arg = "mondrian")
add("conformal", "y missing", quote(conformal(pz, x)), arg = "y")
add("conformal", "y shorter than x", quote(conformal(pz, x, y[-1])), arg = "y")
add("conformal", "cv not a cross-validation", quote(conformal(pz, cv = list())), arg = "cv")
add("conformal", "no probabilities", quote(conformal(kernel_svm(x, y), x, y)), arg = "object")
add("conformal", "no leave-one-out", quote(conformal(kernel_svm(x, y, probability = TRUE))),
    arg = "x")
add("conformal", "level 1", quote(predict(conformal(pz, x, y), x, type = "set", level = 1)),
    arg = "level")
add("conformal", "rule unknown", quote(predict(pz, x, rule = "majority")), arg = "rule")
add("recalibrate", "method unknown", quote(recalibrate(pz, x, y, method = "beta")), arg = "method")
add("recalibrate", "not a model", quote(recalibrate(x, x, y)), arg = "object")
add("venn_abers", "not a model", quote(venn_abers(x, x, y)), arg = "object")
add("venn_abers", "y missing", quote(venn_abers(pz, x)), arg = "y")
add("venn_abers", "one class in y", quote(venn_abers(pz, x[y == "u", ], y[y == "u"])), arg = "y")
add("venn_abers", "no probabilities", quote(venn_abers(kernel_svm(x, y), x, y)), arg = "object")
add("venn_abers", "cv not a cross-validation", quote(venn_abers(pz, cv = list())), arg = "cv")
add("venn_abers", "interval without venn_abers", quote(predict(pz, x, type = "interval")),
    arg = "type")
add("calibration_curve", "bins 0", quote(calibration_curve(pz, x, y, bins = 0)), arg = "bins")
add("calibration_curve", "y missing", quote(calibration_curve(pz, x)), arg = "y")

# ONNX export
svm <- kernel_svm(x, y)
onnx <- tempfile(fileext = ".onnx")
add("write_onnx", "not an SVM", quote(write_onnx(pz, onnx)), arg = "model")
add("write_onnx", "laplace kernel", quote(write_onnx(kernel_svm(x, y, kernel = "laplace"), onnx)),
    arg = "model")
add("write_onnx", "file missing", quote(write_onnx(svm)), arg = "file")
add("write_onnx", "file NA", quote(write_onnx(svm, NA_character_)), arg = "file")
add("write_onnx", "no probabilities", quote(write_onnx(svm, onnx, probability = TRUE)),
    arg = "probability")
add("write_onnx", "rule prob without probabilities", quote(write_onnx(svm, onnx, rule = "prob")),
    arg = "rule")

table <- data.frame(fun = vapply(cases, `[[`, "", "fun"),
                    label = vapply(cases, `[[`, "", "label"),
                    arg = vapply(cases, `[[`, "", "arg"))
table$call <- lapply(cases, `[[`, "call")
table$expect <- lapply(cases, `[[`, "expect")

# ---- the loop ----------------------------------------------------------------

check_case <- function(case) {
  info <- sprintf("%s: %s", case$fun, case$label)
  expect <- case$expect[[1L]]
  if (identical(expect, "error")) {
    # (warnings on the way, e.g. of empty levels, are not the point here)
    cnd <- expect_error(suppressWarnings(eval(case$call[[1L]])), class = "kernclass_input_error",
                        info = info)
    if (inherits(cnd, "kernclass_input_error")) {
      expect_identical(cnd$arg, case$arg, info = info)
      expect_true(grepl(paste0("`", case$arg, "`"), conditionMessage(cnd), fixed = TRUE),
                  info = paste(info, "-", conditionMessage(cnd)))
      expect_s3_class(cnd, "kernclass_error")
    }
  } else {
    r <- suppressWarnings(eval(case$call[[1L]]))  # e.g. constant columns of tiny data
    if (identical(expect, ok)) expect_s3_class(r, "kernclass") else expect(r)
  }
}

test_that("the table covers every exported function", {
  exports <- getNamespaceExports("kernclass")
  expect_setequal(unique(table$fun), exports)
  expect_gt(nrow(table), 300)
})

for (fun in unique(table$fun)) {
  test_that(paste("bad input to", fun, "gives a classed error naming the argument, or the",
                  "documented result"), {
    rows <- which(table$fun == fun)
    for (i in rows) check_case(table[i, ])
  })
}
