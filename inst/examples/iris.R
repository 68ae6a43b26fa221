# kernclass on iris: half of each species for training, half for testing,
# the kernel classifiers side by side, test accuracy.
library(kernclass)

train <- unlist(lapply(split(seq_len(nrow(iris)), iris$Species),
                       function(rows) rows[seq(1, length(rows), by = 2)]))
test <- setdiff(seq_len(nrow(iris)), train)

accuracy <- function(fit) mean(predict(fit, iris[test, ]) == iris$Species[test])

fits <- list(
  "kernel_means,  rbf"     = kernel_means(Species ~ ., data = iris[train, ], kernel = "rbf"),
  "kernel_means,  linear"  = kernel_means(Species ~ ., data = iris[train, ], kernel = "linear"),
  "kernel_parzen, rbf"     = kernel_parzen(Species ~ ., data = iris[train, ], kernel = "rbf",
                                           gamma = 1),
  "kernel_parzen, laplace" = kernel_parzen(Species ~ ., data = iris[train, ], kernel = "laplace",
                                           gamma = 1),
  "kernel_bayes,  rbf"     = kernel_bayes(Species ~ ., data = iris[train, ], kernel = "rbf",
                                          type = 2),
  "kernel_svm,    rbf"     = kernel_svm(Species ~ ., data = iris[train, ], kernel = "rbf",
                                        cost = 10),
  "kernel_svm,    linear"  = kernel_svm(Species ~ ., data = iris[train, ], kernel = "linear")
)

cat("iris, 75 training and 75 test points, all four measurements, scaled\n\n")
for (name in names(fits)) {
  cat(sprintf("%-24s test accuracy %5.1f%%\n", name, 100 * accuracy(fits[[name]])))
}
cat("\n")
print(table(predicted = predict(fits[["kernel_svm,    rbf"]], iris[test, ]),
            actual = iris$Species[test]))
