# The fitter registry (kc_fitters, kc_tunables in R/table-fitters.R): every row
# agrees with the fitter it describes (its signature, its methods, what it
# predicts), and kernel_cv(), caret and parsnip read the same rows.

testthat::local_edition(3)

ns <- asNamespace("kernclass")
fitters <- ns$kc_fitters

test_that("every fitter's row names its generic and default method", {
  expect_setequal(names(fitters), c("kernel_means", "kernel_parzen", "kernel_bayes", "kernel_svm"))
  for (nm in names(fitters)) {
    def <- ns$kc_fitter(nm)
    expect_identical(def$fun, getS3method(nm, "default"), label = nm)
    expect_identical(def$name, nm)
    # the generic and its default method both find the row; other functions none
    expect_identical(ns$kc_fitter_default(get(nm))$name, nm)
    expect_identical(ns$kc_fitter_default(def$fun)$name, nm)
  }
  expect_null(ns$kc_fitter_default(function(x, y, ...) NULL))
  expect_null(ns$kc_fitter_default(kernel_cv))
})

test_that("the tunable parameters are formals of the default method, with these defaults", {
  # the documented defaults (?kernel_svm, ?kernel_means): cost 1, gamma NULL
  # (1 / p, from the data), degree 3
  documented <- list(cost = 1, gamma = NULL, degree = 3)
  for (nm in names(fitters)) {
    def <- ns$kc_fitter(nm)
    expect_true(all(def$tunable %in% names(ns$kc_tunables)), label = nm)
    expect_true(all(def$tunable %in% names(formals(def$fun))), label = nm)
    for (p in def$tunable) {
      expect_identical(ns$kc_formal(def$fun, p), documented[[p]], label = paste(nm, p))
    }
    if (!is.null(def$path)) expect_true(def$path %in% def$tunable, label = nm)
    if (!is.null(def$prob_arg)) {
      expect_identical(ns$kc_formal(def$fun, def$prob_arg), FALSE, label = nm)
    }
  }
  # the ranges parsnip gives dials hold the defaults (cost on log2, degree as is)
  expect_true(log2(documented$cost) >= ns$kc_tunables$cost$range[1] &&
                log2(documented$cost) <= ns$kc_tunables$cost$range[2])
  expect_true(documented$degree >= ns$kc_tunables$degree$range[1] &&
                documented$degree <= ns$kc_tunables$degree$range[2])
})

test_that("a tunable parameter of the kernel applies only where the kernel uses it", {
  svm <- ns$kc_fitter("kernel_svm")
  expect_identical(ns$kc_fitter_tunable(svm, "linear"), "cost")
  expect_identical(ns$kc_fitter_tunable(svm, "rbf"), c("cost", "gamma"))
  expect_identical(ns$kc_fitter_tunable(svm, "polynomial"), c("cost", "gamma", "degree"))
  expect_identical(ns$kc_fitter_tunable(ns$kc_fitter("kernel_means"), "laplace"), "gamma")
  expect_length(ns$kc_fitter_tunable(ns$kc_fitter("kernel_bayes"), "linear"), 0L)
})

test_that("each fitter predicts the types its row lists, probabilities through prob_arg", {
  x <- iris[c(1:20, 51:70, 101:120), 1:4]
  y <- droplevels(iris$Species[c(1:20, 51:70, 101:120)])
  for (nm in names(fitters)) {
    def <- ns$kc_fitter(nm)
    args <- c(list(x, y), if (!is.null(def$prob_arg)) stats::setNames(list(TRUE), def$prob_arg))
    set.seed(3)
    fit <- do.call(get(nm), args)
    for (type in def$types) {
      p <- predict(fit, x[1:5, ], type = type)
      expect_identical(NROW(p), 5L, label = paste(nm, type))
    }
    if (!is.null(def$prob_arg)) {
      # without the argument there are no probabilities
      expect_error(predict(do.call(get(nm), list(x, y)), x[1:5, ], type = "prob"),
                   class = "kernclass_prob_unavailable_error")
    }
  }
})

test_that("exact leave-one-out is what the row says: a kc_loo() method and kernel_cv's shortcut", {
  x <- iris[c(1:15, 51:65), 3:4]
  y <- droplevels(iris$Species[c(1:15, 51:65)])
  for (nm in names(fitters)) {
    def <- ns$kc_fitter(nm)
    has <- !is.null(getS3method("kc_loo", nm, optional = TRUE, envir = ns))
    expect_identical(has, def$loo, label = nm)
    cv <- kernel_cv(get(nm), x, y, folds = "loo", gamma = 0.5, scale = FALSE)
    expect_identical(cv$method, if (def$loo) "exact" else "refit", label = nm)
  }
})

test_that("the searches, the shared path and the default grid are what the row says", {
  x <- iris[c(1:15, 51:65), 3:4]
  y <- droplevels(iris$Species[c(1:15, 51:65)])
  for (nm in names(fitters)) {
    def <- ns$kc_fitter(nm)
    expect_true(all(def$searches %in% names(ns$kc_searches)), label = nm)
    expect_true(all(ns$kc_plain_searches %in% def$searches), label = nm)
    # screening loosens a solver's stopping tolerance: a fitter lists it only with one
    expect_identical("screen" %in% def$searches, "tolerance" %in% names(formals(def$fun)),
                     label = nm)
    set.seed(1)
    tuned <- kernel_tune(get(nm), x, y, grid = list(gamma = c(0.5, 2)), folds = 3,
                         search = "screen")
    expect_identical(tuned$search, if ("screen" %in% def$searches) "screen" else "exhaustive",
                     label = nm)
    # the path: rows that differ only in its parameter are one group on a fold
    if (!is.null(def$path)) {
      expect_identical(ns$kc_paths[[def$path]]$param, def$path, label = nm)
      cells <- lapply(c(0.5, 2), function(v) stats::setNames(list(v, 3), c(def$path, "degree")))
      sel <- ns$kc_selection(get(nm), NULL, NULL, NULL, NULL, cells, list(), "accuracy")
      expect_identical(ns$kc_path_groups(sel), list(1:2), label = nm)
    }
    # a default grid where the row has one, else a classed error
    if (is.null(def$default_grid)) {
      expect_error(kernel_tune(get(nm), x, y, folds = 3), "`grid` is needed",
                   class = "kernclass_input_error")
    } else {
      expect_true(is.data.frame(def$default_grid(def, x, list())$grid), label = nm)
    }
  }
})

test_that("print() titles come from the row's label", {
  expect_output(print(kernel_means(Species ~ ., data = iris)), "^Kernel nearest-means classifier")
  expect_output(print(kernel_bayes(Species ~ ., data = iris, type = 1)),
                "^Kernelized Bayes classifier, type 1")
  expect_output(print(kernel_svm(~ ., data = iris[1:50, 1:4], type = "one-classification")),
                "^One-class support vector machine \\(SMO\\)")
  expect_output(print(kernel_svm(Species ~ ., data = iris, type = "nu-classification", nu = 0.2)),
                "^nu-support vector machine \\(SMO\\)")
  expect_identical(ns$kc_method_label(structure(list(), class = "other")), "other")
})

test_that("the method names of caret and parsnip are the registry's", {
  methods <- vapply(fitters, `[[`, character(1), "method")
  expect_setequal(eval(formals(kernclass_caret)$method), methods)
  expect_identical(eval(formals(kernclass_method)$values), ns$kc_classifier_methods())
  expect_setequal(ns$kc_classifier_methods(), setdiff(methods, "svm"))
})

test_that("caret's parameters and grid are the registry's", {
  for (kernel in c("rbf", "polynomial", "linear", "laplace")) {
    for (nm in names(fitters)) {
      def <- ns$kc_fitter(nm)
      m <- kernclass_caret(def$method, kernel)
      tuned <- ns$kc_fitter_tunable(def, kernel)
      if (length(tuned)) {
        expect_identical(m$parameters$parameter, tuned, label = paste(nm, kernel))
        expect_identical(m$parameters$label,
                         unname(vapply(ns$kc_tunables[tuned], `[[`, character(1), "label")))
      } else {
        expect_identical(m$parameters$parameter, "parameter")
      }
    }
  }
  # the grid of a polynomial SVM, written out: cost 2^(j - 3), gamma the
  # median rule times 4^(j - 2), degree 1..3
  g <- kernclass_caret("svm", "polynomial")$grid(iris[, 1:4], iris$Species, len = 3)
  g0 <- estimate_gamma(iris[, 1:4], kernel = "polynomial")
  expect_equal(g, expand.grid(cost = c(0.25, 0.5, 1), gamma = g0 * c(0.25, 1, 4), degree = 1:3,
                              KEEP.OUT.ATTRS = FALSE))
})

test_that("parsnip's engine arguments are the registry's tunable parameters and ranges", {
  skip_if_not_installed("parsnip", "1.2.0")
  loadNamespace("parsnip")
  ns$kc_register_parsnip()
  env <- parsnip::get_model_env()
  svm <- ns$kc_fitter("kernel_svm")
  for (model in names(ns$kc_parsnip_svm)) {
    a <- env[[paste0(model, "_args")]]
    a <- a[a$engine == "kernclass", ]
    tuned <- ns$kc_fitter_tunable(svm, ns$kc_parsnip_svm[[model]])
    expect_setequal(a$original, tuned)
    for (p in intersect(tuned, c("cost", "degree"))) {
      f <- a$func[[which(a$original == p)]]
      expect_identical(f$range, ns$kc_tunables[[p]]$range, label = paste(model, p))
      expect_identical(f$fun, ns$kc_tunables[[p]]$dials[["fun"]], label = paste(model, p))
    }
  }
  a <- env$kernel_classifier_args
  a <- a[a$engine == "kernclass", ]
  expect_setequal(a$original, c("method", "gamma"))
  expect_identical(a$func[[which(a$original == "gamma")]]$fun, "kernclass_gamma")
  # prediction types: the registry's, decision values as parsnip's "raw"
  parsnip_type <- c(class = "class", prob = "prob", decision = "raw")
  for (model in c(names(ns$kc_parsnip_svm), "kernel_classifier")) {
    p <- env[[paste0(model, "_predict")]]
    expect_setequal(p$type[p$engine == "kernclass"], unname(parsnip_type[svm$types]))
  }
})

test_that("each worker takes its default method's arguments by name, their defaults in its signature alone", {
  workers <- c(kernel_means = "kc_fit_means", kernel_parzen = "kc_fit_parzen",
               kernel_bayes = "kc_fit_bayes", kernel_svm = "kc_fit_svm")
  for (nm in names(fitters)) {
    f <- formals(ns[[workers[[nm]]]])
    d <- formals(ns$kc_fitter(nm)$fun)
    args <- names(d)[-(1:2)]
    # the design, the default method's arguments but x and y in its order, the call
    expect_identical(names(f)[seq_len(length(args) + 2L)], c("d", args, "call"), label = nm)
    # none has a default of its own: the default method's signature is their one home
    no_default <- vapply(f[c("d", args, "call")], identical, logical(1), quote(expr = ))
    expect_true(all(no_default), label = nm)
  }
})

test_that("the default methods pass on what they were given, lazily and by name", {
  # an unknown argument is reported before the inputs are read (the worker's
  # first check), as before the arguments were forwarded by name
  expect_error(kernel_svm(matrix("a", 2, 2), 1:2, zz = 1), "Unknown argument\\(s\\) `zz`",
               class = "kernclass_input_error")
  # partial names of arguments before `...` reach the worker in full
  set.seed(4)
  a <- kernel_svm(iris[, 1:4], iris$Species, prob = TRUE, cost = 2)
  set.seed(4)
  b <- kernel_svm(iris[, 1:4], iris$Species, probability = TRUE, cost = 2)
  expect_identical(a$probA, b$probA)
  expect_identical(update(a, cost = 3)$cost, 3)
  # choices read from the signature
  expect_error(kernel_means(iris[, 1:4], iris$Species, threshold = "z"),
               '`threshold` must be one of "analytic", "search".')
  expect_identical(kernel_means(iris[51:150, 1:4], droplevels(iris$Species[51:150]),
                                threshold = "s")$threshold, "search")
})
