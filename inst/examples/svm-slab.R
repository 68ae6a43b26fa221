# The exercises of the chapter "Support Vector Machines" of S. S. Watson's
# course Machine Learning (Data Gymnasia), with kernel_svm():
# 1. the thickest slab separating two classes (hard margin, cost = Inf);
# 2. overlapping classes: the hard margin is refused, the soft margin's cost
#    is chosen by leave-one-out cross-validation (C = 1 / (2 lambda n)).
# The vignette "From nearest means to the SVM" (vignette("means-to-svm", package =
# "kernclass")) knits the chunks of this file (the "## ----" lines name them).

## ---- slab-data ----
library(kernclass)
# the chapter's samplepoint(): class -1 ~ N(0, I), class +1 ~ mu + A z with
# A = [1 -1/2; -1/2 1], each point's class drawn at random
sample_points <- function(n, mu) {
  cls <- sample(c(-1, 1), n, replace = TRUE)
  x <- matrix(rnorm(2 * n), n, dimnames = list(NULL, c("x1", "x2")))
  shifted <- x %*% matrix(c(1, -0.5, -0.5, 1), 2) + rep(mu, each = n)
  x[cls == 1, ] <- shifted[cls == 1, ]
  list(x = x, y = factor(cls, levels = c(1, -1)))
}
set.seed(1234)
sep <- sample_points(100, c(3, 3))

## ---- slab-hard ----
hard <- kernel_svm(sep$x, sep$y, kernel = "linear", cost = Inf, scale = FALSE)
beta <- drop(crossprod(hard$SV, hard$coefs))  # beta = X'(eta * y)
c(beta, alpha = unname(hard$b), width = 2 / sqrt(sum(beta^2)))
# every support vector lies on an edge of the slab, |f(x)| = 1
round(predict(hard, sep$x[hard$index, ], type = "decision"), 4)

## ---- slab-hard-plot ----
plot(hard, main = "The thickest slab (cost = Inf)")

## ---- slab-overlap ----
overlap <- sample_points(100, c(1, 1))
tryCatch(kernel_svm(overlap$x, overlap$y, kernel = "linear", cost = Inf),
         kernclass_not_separable_error = function(e) conditionMessage(e))

## ---- slab-loo ----
# the chapter's lambda, largest (widest margin) first, so that ties go to it
lambda <- c(0.25, 0.1, 0.03, 0.01, 0.003, 0.001)
tuned <- kernel_tune(kernel_svm, overlap$x, overlap$y, folds = "loo",
                     grid = data.frame(cost = 1 / (2 * lambda * nrow(overlap$x))),
                     kernel = "linear", scale = FALSE)
cbind(lambda, tuned$results[c("cost", "accuracy")])
soft <- tuned$model
c(cost = soft$cost, support_vectors = length(soft$index), at_bound = unname(soft$n_at_bound))

## ---- slab-soft-plot ----
plot(soft, main = sprintf("Soft margin, C = %.3g by leave-one-out", soft$cost))
