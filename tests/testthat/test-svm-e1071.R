# kernel_svm() against LIBSVM (through e1071::svm) on real data sets: the
# same dual problem must give the same dual objective (computed here from
# e1071's own solution, not taken from kernclass), the same support vectors,
# the same test predictions and the same decision values. The Laplace kernel,
# which e1071 lacks, is checked against kernlab::ksvm on a kernel matrix
# computed in plain R.

testthat::local_edition(3)

# ---- plain-R references ----------------------------------------------------

# (e1071_pairs(), match_pairs(), e1071_decision(): helper-e1071.R)

# k(a_i, b_j) straight from the kernel formulas
svm_ref_kernel <- function(a, b, kernel, gamma, degree = 3, coef0 = 0) {
  ref_kernel(as.matrix(a), as.matrix(b), kernel, gamma, degree, coef0)  # helper-reference.R
}

# The dual objective 1/2 c'Kc - sum |c| of each pair, from e1071's solution
# and its own scaled support vectors.
e1071_objective <- function(m, kp) {
  K <- svm_ref_kernel(m$SV, m$SV, kp$kernel, kp$gamma, kp$degree, kp$coef0)
  vapply(e1071_pairs(m), function(p) {
    cc <- p$coef
    0.5 * sum(cc * (K[p$sv, p$sv, drop = FALSE] %*% cc)) - sum(abs(cc))
  }, numeric(1))
}

agreement <- NULL  # one row per comparison, printed for the report on request

# Fit both with the same parameters and compare everything; kp has the
# kernel in our name and e1071's, gamma, degree, coef0, cost.
expect_agree_e1071 <- function(label, xtr, ytr, xte, kp, class.weights = NULL,
                               obj_tol = 1e-3, agree_min = 0.995) {
  fit <- kernel_svm(xtr, ytr, kernel = kp$kernel, gamma = kp$gamma, degree = kp$degree,
                    coef0 = kp$coef0, cost = kp$cost, class.weights = class.weights,
                    tolerance = 1e-3, scale = TRUE)
  m <- e1071::svm(xtr, ytr, kernel = kp$e1071, gamma = kp$gamma, degree = kp$degree,
                  coef0 = kp$coef0, cost = kp$cost, class.weights = class.weights,
                  tolerance = 1e-3, scale = TRUE)
  pairs <- names(fit$b)
  expect_true(fit$converged, label = label)

  # the scaling is e1071's
  expect_equal(unname(fit$scaling$center), unname(m$x.scale$`scaled:center`), tolerance = 1e-12,
               label = label)
  expect_equal(unname(fit$scaling$scale), unname(m$x.scale$`scaled:scale`), tolerance = 1e-12,
               label = label)

  # dual objective of every pair, within 1e-3 relative
  eo <- e1071_objective(m, kp)
  mp <- match_pairs(pairs, names(eo))
  rel_obj <- abs(fit$objective[pairs] - eo[mp$name]) / abs(eo[mp$name])
  expect_lte(max(rel_obj), obj_tol, label = paste(label, "objective"))

  # support vectors: total and per class within 1% (at least one SV of slack:
  # a dual variable at 1e-5 counts as an SV for one solver and 0 for the other)
  nsv_e <- stats::setNames(m$nSV, m$levels[m$labels])[fit$levels]
  slack <- max(1, floor(0.01 * m$tot.nSV))
  expect_lte(abs(length(fit$index) - m$tot.nSV), slack, label = paste(label, "total nSV"))
  expect_lte(max(abs(fit$nSV - nsv_e)), slack, label = paste(label, "nSV per class"))
  expect_identical(fit$nSV, stats::setNames(tabulate(ytr[fit$index], nlevels(ytr)),
                                            levels(ytr)))
  # the SVs are (nearly) the same training rows
  expect_lte(length(union(setdiff(fit$index, m$index), setdiff(m$index, fit$index))), 2 * slack,
             label = paste(label, "SV rows"))

  # test predictions and decision values
  pe <- predict(m, xte)
  po <- predict(fit, xte)
  agree <- mean(as.character(po) == as.character(pe))
  expect_gte(agree, agree_min, label = paste(label, "prediction agreement"))
  do <- as.matrix(predict(fit, xte, type = "decision"))
  de <- e1071_decision(m, xte, pairs)
  dcor <- stats::cor(as.vector(do), as.vector(de))
  dmax <- max(abs(do - de)) / max(1, max(abs(de)))
  expect_gt(dcor, 0.999, label = paste(label, "decision correlation"))
  expect_lte(dmax, 0.02, label = paste(label, "decision difference"))
  # the offsets b are LIBSVM's -rho, sign matched by pair names
  mb <- match_pairs(pairs, names(eo))
  rho <- stats::setNames(-m$rho, names(eo))
  expect_lte(max(abs(fit$b[pairs] - mb$sign * rho[mb$name])), 0.05 * max(1, max(abs(rho))),
             label = paste(label, "offset"))

  agreement <<- rbind(agreement, data.frame(
    comparison = label, n_train = nrow(xtr), n_test = nrow(xte), classes = nlevels(ytr),
    max_rel_objective = max(rel_obj), nSV = length(fit$index), nSV_e1071 = m$tot.nSV,
    prediction_agreement = agree, decision_cor = dcor, max_rel_decision = dmax))
  invisible(list(fit = fit, m = m))
}

# ---- data sets -------------------------------------------------------------

# every test below is on mlbench's data: without it, the file is skipped
skip_if_not_installed("mlbench")

svm_data_sets <- local({
  e <- new.env()
  utils::data(list = c("Sonar", "Ionosphere", "BreastCancer", "Glass"), package = "mlbench",
              envir = e)
  ion <- e$Ionosphere[, -2]  # V2 is constant
  ion$V1 <- as.numeric(as.character(ion$V1))
  bc <- stats::na.omit(e$BreastCancer[, -1])  # no Id, no rows with NA
  for (j in 1:9) bc[[j]] <- as.numeric(as.character(bc[[j]]))
  set <- function(df, ycol, ntrain) {
    list(x = as.matrix(df[, setdiff(names(df), ycol)]), y = df[[ycol]], ntrain = ntrain)
  }
  list(iris = set(iris, "Species", 100),
       Pima = set(pima_data(), "type", 350),
       Sonar = set(e$Sonar, "Class", 140),
       Ionosphere = set(ion, "Class", 240),
       BreastCancer = set(bc, "Class", 450),
       Glass = set(e$Glass, "Type", 150))
})

# kernels e1071 has; gamma NULL means 1/p (both packages' default)
svm_kernels <- list(
  linear = list(kernel = "linear", e1071 = "linear", gamma = NULL, degree = 3, coef0 = 0,
                cost = 1),
  polynomial = list(kernel = "polynomial", e1071 = "polynomial", gamma = NULL, degree = 3,
                    coef0 = 1, cost = 0.5),
  rbf = list(kernel = "rbf", e1071 = "radial", gamma = NULL, degree = 3, coef0 = 0, cost = 4),
  sigmoid = list(kernel = "sigmoid", e1071 = "sigmoid", gamma = 0.02, degree = 3, coef0 = 0,
                 cost = 1))

for (ds in names(svm_data_sets)) {
  test_that(paste("kernel_svm agrees with e1071::svm on", ds, "for every kernel"), {
    skip_if_not_installed("e1071")
    s <- svm_data_sets[[ds]]
    set.seed(20240 + match(ds, names(svm_data_sets)))
    # training rows in random order, so that LIBSVM's class order (by first
    # appearance) differs from the level order and pair signs get flipped
    tr <- sample(nrow(s$x), s$ntrain)
    xtr <- s$x[tr, , drop = FALSE]
    xte <- s$x[-tr, , drop = FALSE]
    ytr <- droplevels(s$y[tr])
    for (kn in names(svm_kernels)) {
      kp <- svm_kernels[[kn]]
      if (is.null(kp$gamma)) kp$gamma <- 1 / ncol(xtr)
      expect_agree_e1071(paste(ds, kn), xtr, ytr, xte, kp)
    }
  })
}

test_that("the class order of LIBSVM is exercised: some pairs are flipped", {
  skip_if_not_installed("e1071")
  # guards the test above: with shuffled rows the label order is not the
  # level order for at least one multi-class set
  s <- svm_data_sets$Glass
  set.seed(20240 + match("Glass", names(svm_data_sets)))
  tr <- sample(nrow(s$x), s$ntrain)
  m <- e1071::svm(s$x[tr, ], droplevels(s$y[tr]), kernel = "linear")
  expect_false(identical(m$labels, sort(m$labels)))
})

test_that("class.weights (named and \"inverse\") agree with e1071 on unbalanced data", {
  skip_if_not_installed("e1071")
  pima <- pima_data()
  set.seed(77)
  rows <- c(sample(which(pima$type == "No"), 250), sample(which(pima$type == "Yes"), 50))
  rows <- sample(rows)
  x <- as.matrix(pima[rows, 1:7])
  y <- pima$type[rows]
  te <- sample(setdiff(seq_len(nrow(pima)), rows), 200)
  xte <- as.matrix(pima[te, 1:7])
  kp <- list(kernel = "rbf", e1071 = "radial", gamma = 1 / 7, degree = 3, coef0 = 0, cost = 1)

  r <- expect_agree_e1071("Pima unbalanced, class.weights = c(Yes = 5)", x, y, xte, kp,
                          class.weights = c(Yes = 5))
  expect_equal(unname(r$fit$C), ifelse(y == "Yes", 5, 1))
  # the weights matter: the positive class gets more support vectors' weight
  plain <- kernel_svm(x, y, kernel = "rbf", gamma = 1 / 7)
  expect_gt(mean(predict(r$fit, xte) == "Yes"), mean(predict(plain, xte) == "Yes"))

  # e1071's class.weights = "inverse" (1 / n_c) as a named vector: kernclass's
  # "inverse" is deprecated and means "balanced" (n / (k n_c))
  kp$cost <- 100
  inverse <- stats::setNames(1 / as.vector(table(y)), levels(y))
  r <- expect_agree_e1071("Pima unbalanced, class.weights = 1 / table(y)", x, y, xte, kp,
                          class.weights = inverse)
  expect_equal(unname(r$fit$C), 100 / as.vector(table(y)[as.character(y)]))

  # linear kernel, weights on the first level
  kp <- list(kernel = "linear", e1071 = "linear", gamma = 1 / 7, degree = 3, coef0 = 0, cost = 0.5)
  expect_agree_e1071("Pima unbalanced linear, class.weights = c(No = 0.3)", x, y, xte, kp,
                     class.weights = c(No = 0.3))
})

test_that("degree, coef0 and cost other than the defaults agree with e1071", {
  skip_if_not_installed("e1071")
  s <- svm_data_sets$Sonar
  set.seed(31)
  tr <- sample(nrow(s$x), 150)
  settings <- list(
    list(kernel = "polynomial", e1071 = "polynomial", gamma = 0.01, degree = 2, coef0 = 0,
         cost = 10),
    list(kernel = "polynomial", e1071 = "polynomial", gamma = 0.02, degree = 4, coef0 = 2,
         cost = 0.1),
    list(kernel = "rbf", e1071 = "radial", gamma = 0.05, degree = 3, coef0 = 0, cost = 100),
    list(kernel = "sigmoid", e1071 = "sigmoid", gamma = 0.01, degree = 3, coef0 = -0.5,
         cost = 0.5))
  for (kp in settings) {
    expect_agree_e1071(sprintf("Sonar %s degree %d coef0 %g cost %g", kp$kernel, kp$degree,
                               kp$coef0, kp$cost),
                       s$x[tr, ], s$y[tr], s$x[-tr, ], kp)
  }
})

test_that("a formula with a factor input equals e1071 on the same coded matrix", {
  skip_if_not_installed("e1071")
  # the factor V1 of Ionosphere (its first input) becomes one indicator column
  # per level, as in e1071's formula method, not scaled (as e1071)
  e <- new.env()
  utils::data("Ionosphere", package = "mlbench", envir = e)
  ion <- e$Ionosphere[, -2]
  set.seed(12)
  tr <- sample(nrow(ion), 240)
  fit <- kernel_svm(Class ~ ., data = ion[tr, ], cost = 2)
  X <- stats::model.matrix(~ . + 0, data = ion[, names(ion) != "Class"])
  dummy <- attr(X, "assign") == 1  # the term V1 (its dummy "V11" repeats a column's name)
  expect_identical(colnames(fit$x), make.unique(colnames(X)))
  expect_identical(unname(fit$scaling$scale[dummy]), c(1, 1))
  expect_identical(unname(fit$scaling$center[dummy]), c(0, 0))
  m <- e1071::svm(X[tr, ], ion$Class[tr], cost = 2, gamma = 1 / ncol(X), scale = !dummy)
  kp <- list(kernel = "rbf", gamma = 1 / ncol(X), degree = 3, coef0 = 0)
  eo <- e1071_objective(m, kp)
  expect_equal(unname(fit$objective), unname(eo), tolerance = 1e-3)
  pe <- predict(m, X[-tr, ])
  expect_gte(mean(as.character(predict(fit, ion[-tr, ])) == as.character(pe)), 0.995)
  de <- e1071_decision(m, X[-tr, ], names(fit$b))
  expect_lte(max(abs(predict(fit, ion[-tr, ], type = "decision") - de[, 1])), 0.02)
})

test_that("the Laplace kernel agrees with kernlab::ksvm (laplacedot)", {
  skip_if_not_installed("kernlab")
  # e1071 has no Laplace kernel: kernlab's laplacedot is exp(-sigma ||x - y||).
  # The data are scaled here in plain R and kernlab is told not to scale;
  # the objective of its solution is computed with the plain-R Gram matrix.
  for (ds in c("iris", "Glass", "Sonar")) {
    s <- svm_data_sets[[ds]]
    set.seed(404)
    tr <- sample(nrow(s$x), s$ntrain)
    ytr <- droplevels(s$y[tr])
    gamma <- 1 / sqrt(ncol(s$x))
    cost <- 2
    fit <- kernel_svm(s$x[tr, ], ytr, kernel = "laplace", gamma = gamma, cost = cost)
    expect_true(fit$converged)
    xs <- scale(s$x[tr, ])
    xt <- scale(s$x[-tr, ], attr(xs, "scaled:center"), attr(xs, "scaled:scale"))
    K <- svm_ref_kernel(xs, xs, "laplace", gamma)
    m <- kernlab::ksvm(xs, ytr, kernel = "laplacedot", kpar = list(sigma = gamma), C = cost,
                       scaled = FALSE, tol = 1e-3)
    # kernlab: one binary problem per pair in level order, with the
    # coefficients and their training rows per pair
    pairs <- names(fit$b)
    expect_length(kernlab::coef(m), length(pairs))
    pr <- utils::combn(nlevels(ytr), 2)
    sgn <- numeric(length(pairs))
    for (q in seq_along(pairs)) {
      cc <- kernlab::coef(m)[[q]]
      idx <- kernlab::alphaindex(m)[[q]]
      obj <- 0.5 * sum(cc * (K[idx, idx] %*% cc)) - sum(abs(cc))
      expect_equal(unname(fit$objective[q]), obj, tolerance = 1e-3,
                   label = paste(ds, pairs[q], "objective"))
      # kernlab's sign: that of the coefficients of the pair's first class
      first <- as.integer(ytr[idx]) == pr[1, q]
      sgn[q] <- sign(mean(cc[first]))
    }
    dk <- as.matrix(kernlab::predict(m, xt, type = "decision")) * rep(sgn, each = nrow(xt))
    do <- as.matrix(predict(fit, s$x[-tr, ], type = "decision"))
    expect_gt(stats::cor(as.vector(do), as.vector(dk)), 0.999, label = ds)
    expect_lte(max(abs(do - dk)), 0.02 * max(1, max(abs(dk))), label = ds)
    pk <- kernlab::predict(m, xt)
    expect_gte(mean(as.character(predict(fit, s$x[-tr, ])) == as.character(pk)), 0.995,
               label = ds)
  }
})

if (nzchar(Sys.getenv("KERNCLASS_SVM_REPORT"))) print(agreement, digits = 3)
