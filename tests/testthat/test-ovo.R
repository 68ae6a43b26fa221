# One-vs-one helpers against direct constructions.

test_that("pairs come in LIBSVM order, as combn", {
  for (k in 2:6) {
    lev <- letters[seq_len(k)]
    p <- kernclass:::kc_ovo_pairs(lev)
    expect_equal(unname(p), t(utils::combn(k, 2)))
    expect_equal(rownames(p), apply(utils::combn(lev, 2), 2, paste, collapse = "/"))
  }
})

test_that("voting counts pairwise wins, ties to the first class", {
  set.seed(5)
  lev <- c("u", "v", "w", "z")
  pairs <- t(utils::combn(4, 2))
  d <- matrix(sample(c(-1, 1), 200 * 6, TRUE) * runif(200 * 6), 200)
  expected <- apply(d, 1, function(row) {
    votes <- integer(4)
    for (m in 1:6) {
      w <- if (row[m] > 0) pairs[m, 1] else pairs[m, 2]
      votes[w] <- votes[w] + 1L
    }
    lev[which(votes == max(votes))[1]]
  })
  expect_identical(as.character(kernclass:::kc_ovo_vote(d, lev)), expected)
  # two classes: the sign decides, 0 goes to the second class
  expect_identical(as.character(kernclass:::kc_ovo_vote(matrix(c(2, -1, 0)), c("p", "q"))),
                   c("p", "q", "q"))
})

test_that("class layers: root, class-score and one-vs-one families, each method once", {
  two <- droplevels(subset(iris, Species != "setosa"))
  set.seed(3)
  fits <- list(
    kernel_means = kernel_means(Species ~ ., data = iris),
    kernel_parzen = kernel_parzen(Species ~ ., data = two),
    kernel_svm = kernel_svm(Species ~ ., data = iris, probability = TRUE),
    kernel_bayes = kernel_bayes(Species ~ ., data = two))
  layer <- c(kernel_means = "kernclass_scores", kernel_parzen = "kernclass_scores",
             kernel_svm = "kernclass_ovo", kernel_bayes = "kernclass_ovo")
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    expect_s3_class(fit, c(nm, layer[[nm]], "kernclass"), exact = TRUE)
    other <- setdiff(c("kernclass_scores", "kernclass_ovo"), layer[[nm]])
    expect_false(inherits(fit, other), info = nm)
    # weights and offsets per class are the class-score family's alone
    expect_identical(all(c("weight", "offset") %in% names(fit)),
                     layer[[nm]] == "kernclass_scores", info = nm)
    p <- predict(fit, iris[c(1, 60, 120), ], type = "prob")
    expect_equal(unname(rowSums(p)), rep(1, 3), info = nm)
  }
  # the root holds no default that assumes one score per class (the
  # classifiers' own generics, which the representation layer calls)
  method <- function(generic, class) utils::getS3method(generic, class, optional = TRUE,
                                                        envir = asNamespace("kernclass"))
  for (g in c("kc_exact_scores", "kc_model_decision", "kc_model_classify", "kc_model_posterior",
              "kc_coef_exact", "coef")) {
    expect_null(method(g, "kernclass"), label = g)
  }
  for (g in c("kc_exact_scores", "kc_model_decision", "kc_model_classify", "kc_coef_exact")) {
    expect_false(is.null(method(g, "kernclass_scores")), label = g)
  }
  # one posterior for every one-vs-one model, from one shape of Platt coefficients
  expect_false(is.null(method("kc_model_posterior", "kernclass_ovo")))
  for (leaf in c("kernel_svm", "kernel_bayes")) {
    expect_null(method("kc_model_posterior", leaf), label = leaf)
  }
  for (nm in c("kernel_svm", "kernel_bayes")) {
    platt <- kernclass:::kc_platt(fits[[nm]])
    expect_identical(dim(platt), c(nrow(kernclass:::kc_ovo_pairs(fits[[nm]]$levels)), 2L))
    expect_identical(colnames(platt), c("A", "B"))
  }
  expect_identical(unname(kernclass:::kc_platt(fits$kernel_svm)[, "A"]), unname(fits$kernel_svm$probA))
  expect_identical(unname(kernclass:::kc_platt(fits$kernel_bayes)[1, ]),
                   unname(fits$kernel_bayes$pairs[[1]]$platt))
  expect_null(kernclass:::kc_platt(kernel_svm(Species ~ ., data = two)))
})

test_that("class pairs and Platt folds run as futures under a plan with workers: the same model, errors, warnings", {
  skip_if_not_installed("future")
  set.seed(5)
  y <- factor(sample(c("a", "b", "c", "d"), 240, TRUE))
  x <- matrix(rnorm(240 * 3), 240) + 0.8 * as.integer(y)
  fit <- function() {
    set.seed(9)
    m <- kernel_svm(x, y, probability = TRUE)
    # two classes: the probability model's folds are the independent problems
    two <- y %in% c("a", "b")
    b <- kernel_svm(x[two, ], droplevels(y[two]), probability = TRUE)
    m$call <- b$call <- NULL
    list(model = m, binary = b, after = runif(1))
  }
  a <- fit()
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old))
  expect_equal(future::nbrOfWorkers(), 2)
  b <- fit()
  expect_identical(b, a)  # the Platt folds drawn here, in pair order: the same
  # the pairs ran in both workers: a kernel function notes the process it runs in
  dir <- tempfile("pids")
  dir.create(dir)
  noting <- function(a, b) {
    file.create(file.path(dir, Sys.getpid()))
    exp(-0.5 * pmax(outer(rowSums(a^2), rowSums(b^2), "+") - 2 * tcrossprod(a, b), 0))
  }
  kernel_svm(x, y, kernel = noting, scale = FALSE)
  # (this process computes some kernel values too: the checks of the function)
  expect_length(setdiff(as.integer(list.files(dir)), Sys.getpid()), 2L)
  # a classed error of one pair, and one warning for the pairs that stopped early
  expect_error(kernel_svm(rbind(x, x), factor(c(as.character(y), rev(as.character(y)))),
                          kernel = "linear", cost = Inf),
               class = "kernclass_not_separable_error")
  warned <- 0L
  withCallingHandlers(kernel_svm(x, y, max_iter = 3),
                      kernclass_convergence_warning = function(w) {
                        warned <<- warned + 1L
                        invokeRestart("muffleWarning")
                      })
  expect_identical(warned, 1L)
})
