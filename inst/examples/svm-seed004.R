# Seed 004's exercises with kernel_svm():
# 1. the thickest slab separating two classes (hard margin, cost = Inf);
# 2. overlapping classes: the hard margin is refused, the soft margin's cost
#    is chosen by leave-one-out cross-validation (C = 1 / (2 lambda n)).
library(kernclass)

sample_points <- function(n, mu) {
  cls <- sample(c(-1, 1), n, replace = TRUE)
  x <- matrix(rnorm(2 * n), n)
  shift <- x %*% matrix(c(1, -0.5, -0.5, 1), 2) + rep(mu, each = n)
  x[cls == 1, ] <- shift[cls == 1, ]
  list(x = x, y = factor(cls, levels = c(1, -1)))
}

set.seed(1234)
sep <- sample_points(100, c(3, 3))
hard <- kernel_svm(sep$x, sep$y, kernel = "linear", cost = Inf, scale = FALSE)
beta <- drop(crossprod(hard$SV, hard$coefs))
cat(sprintf("Hard margin: beta = (%.3f, %.3f), alpha = %.3f, slab width 2/|beta| = %.3f,\n",
            beta[1], beta[2], hard$b, 2 / sqrt(sum(beta^2))),
    sprintf("%d support vectors, all on the slab edges (|f| = 1): %s\n", length(hard$index),
            format(all(abs(abs(predict(hard, sep$x[hard$index, ], type = "decision")) - 1) < 1e-3))))

overlap <- sample_points(100, c(1, 1))
refused <- tryCatch(kernel_svm(overlap$x, overlap$y, kernel = "linear", cost = Inf),
                    kernclass_not_separable_error = function(e) conditionMessage(e))
cat("\nHard margin on overlapping data:", refused, "\n")

loo_error <- function(cost) {
  wrong <- vapply(seq_len(nrow(overlap$x)), function(i) {
    fit <- kernel_svm(overlap$x[-i, ], overlap$y[-i], kernel = "linear", cost = cost,
                      scale = FALSE)
    predict(fit, overlap$x[i, , drop = FALSE]) != overlap$y[i]
  }, logical(1))
  mean(wrong)
}
lambda <- c(0.001, 0.003, 0.01, 0.03, 0.1, 0.25)
cost <- 1 / (2 * lambda * nrow(overlap$x))
errors <- vapply(cost, loo_error, numeric(1))
print(data.frame(lambda = lambda, cost = cost, loo_error = errors))
best <- cost[which.min(errors)]
soft <- kernel_svm(overlap$x, overlap$y, kernel = "linear", cost = best, scale = FALSE)
cat(sprintf("\nChosen cost %.3g: %d support vectors, %d of them at the bound (eta = C)\n",
            best, length(soft$index), soft$n_at_bound))
