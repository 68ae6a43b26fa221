# Seed 002's iris experiment: petal length and width only, half of each
# species for training (the odd rows of each species) and half for testing,
# gamma = 5, the kernelized Bayes classifier of types 1, 2 and 3 next to the
# kernel nearest-means and Parzen classifiers. Seed 002's "RBF" kernel
# exp(-gamma ||x - y||) is kernclass's "laplace"; "rbf" here is
# exp(-gamma ||x - y||^2). The inputs are used in their own units (no
# scaling), as in the seed.
library(kernclass)

train <- unlist(lapply(split(seq_len(nrow(iris)), iris$Species),
                       function(rows) rows[seq(1, length(rows), by = 2)]))
test <- setdiff(seq_len(nrow(iris)), train)
form <- Species ~ Petal.Length + Petal.Width
accuracy <- function(fit) mean(predict(fit, iris[test, ]) == iris$Species[test])

methods <- list(
  "kernel_bayes, type 1" = function(k) kernel_bayes(form, iris[train, ], kernel = k, gamma = 5,
                                                    scale = FALSE, type = 1),
  "kernel_bayes, type 2" = function(k) kernel_bayes(form, iris[train, ], kernel = k, gamma = 5,
                                                    scale = FALSE, type = 2),
  "kernel_bayes, type 3" = function(k) kernel_bayes(form, iris[train, ], kernel = k, gamma = 5,
                                                    scale = FALSE, type = 3),
  "kernel_means" = function(k) kernel_means(form, iris[train, ], kernel = k, gamma = 5,
                                            scale = FALSE),
  "kernel_parzen" = function(k) kernel_parzen(form, iris[train, ], kernel = k, gamma = 5,
                                              scale = FALSE)
)
kernels <- c("rbf", "laplace")
acc <- sapply(kernels, function(k) vapply(methods, function(m) accuracy(m(k)), numeric(1)))

cat("iris, petal length and width, 75 training and 75 test points, gamma = 5\n")
cat("test accuracy (%):\n\n")
print(round(100 * acc, 1))

# decision regions as in seed 002's figure (laplace, its "RBF")
op <- graphics::par(mfrow = c(1, 3))
for (t in 1:3) {
  plot(methods[[t]]("laplace"), iris[train, ], main = sprintf("type %d, laplace", t))
}
graphics::par(op)
