# The iris experiment of Ruye Wang's notes "Kernelized Bayes classifier": Fisher's iris data, petal length and width
# only, half of each species for training (the odd rows of each species) and
# half for testing; the kernel classifiers of kernclass side by side with
# e1071::svm (LIBSVM), by test accuracy, and their decision regions.
#
# Run it with `Rscript inst/experiments/iris.R` (from the source tree) or
# `Rscript $(Rscript -e 'cat(system.file("experiments/iris.R", package = "kernclass"))')`.
# The vignette "The iris experiment" (vignette("iris", package = "kernclass"))
# knits the chunks of this file (the "## ----" lines name them), so the two
# never disagree.

## ---- setup ----
library(kernclass)
options(kernclass.threads = 2)

## ---- split ----
train <- unlist(lapply(split(seq_len(nrow(iris)), iris$Species),
                       function(rows) rows[seq(1, length(rows), by = 2)]))
test <- setdiff(seq_len(nrow(iris)), train)
form <- Species ~ Petal.Length + Petal.Width
table(iris$Species[train])

## ---- methods ----
# The notes' settings: the inputs in their own units (no scaling), gamma = 5.
# Each method: the fitter and its own arguments. e1071::svm gets e1071's
# names for the same kernels (it has no Laplacian kernel) and, for
# gamma = "median", the number estimate_gamma() gives.
methods <- list(
  "kernel_means"         = list(kernel_means),
  "kernel_parzen"        = list(kernel_parzen),
  "kernel_bayes, type 1" = list(kernel_bayes, type = 1),
  "kernel_bayes, type 2" = list(kernel_bayes, type = 2),
  "kernel_bayes, type 3" = list(kernel_bayes, type = 3),
  "kernel_svm, C = 1"    = list(kernel_svm, cost = 1))
if (requireNamespace("e1071", quietly = TRUE)) {
  methods[["e1071::svm, C = 1"]] <- list(function(formula, data, kernel, gamma, scale, ...) {
    e1071_kernel <- c(linear = "linear", rbf = "radial")[kernel]
    if (is.na(e1071_kernel)) return(NULL)
    if (identical(gamma, "median")) gamma <- estimate_gamma(formula, data, kernel = kernel,
                                                            scale = scale)
    e1071::svm(formula, data, kernel = e1071_kernel, gamma = gamma, scale = scale, ...)
  }, cost = 1)
}
kernels <- c("linear", "rbf", "laplace")

fit_method <- function(method, kernel, gamma = 5) {
  do.call(method[[1L]], c(list(form, data = iris[train, ], kernel = kernel, gamma = gamma,
                               scale = FALSE), method[-1L]))
}
test_accuracy <- function(method, kernel, gamma = 5) {
  fit <- fit_method(method, kernel, gamma)
  if (is.null(fit)) return(NA_real_)
  mean(predict(fit, iris[test, ]) == iris$Species[test])
}
accuracy_table <- function(kernels, gamma = 5) {
  sapply(kernels, function(kernel) {
    vapply(methods, test_accuracy, numeric(1), kernel = kernel, gamma = gamma)
  })
}

## ---- accuracy ----
accuracy <- accuracy_table(kernels)

## ---- print ----
cat("iris, petal length and width, 75 training and 75 test points, gamma = 5, unscaled\n")
cat("test accuracy (%); laplace is exp(-gamma |x - y|), the notes' \"RBF\":\n\n")
print(round(100 * accuracy, 1))

## ---- regions ----
# The figure of the notes: the SVM (linear kernel, as their fitcsvm) and
# the three kernel Bayes types (their "RBF", kernclass's "laplace"),
# with the test points.
op <- par(mfrow = c(2, 2), mar = c(4, 4, 2, 1))
plot(fit_method(methods[["kernel_svm, C = 1"]], "linear"), iris[test, ],
     main = "kernel_svm, linear")
for (type in 1:3) {
  plot(fit_method(methods[[sprintf("kernel_bayes, type %d", type)]], "laplace"), iris[test, ],
       main = sprintf("kernel_bayes, type %d, laplace", type))
}
par(op)

## ---- median ----
# The same methods with gamma from the data: the median heuristic on the
# training points (the linear kernel has no gamma).
c(rbf = estimate_gamma(form, iris[train, ], scale = FALSE),
  laplace = estimate_gamma(form, iris[train, ], kernel = "laplace", scale = FALSE))
accuracy_median <- accuracy_table(c("rbf", "laplace"), gamma = "median")

## ---- print-median ----
cat("\nthe same with gamma = \"median\":\n\n")
print(round(100 * accuracy_median, 1))
