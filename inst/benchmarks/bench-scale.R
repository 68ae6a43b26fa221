# scale: kernel_means and kernel_parzen at 100,000 points (fit, then predict
# as many), and kernel_svm at 100,000 rows.
flags <- list()

run <- function(o) {
  n <- size(100000, 20000, 2000); d <- 100
  tr <- make_data(n, d, 4); te <- make_data(n, d, 5)
  for (method in c("means", "parzen")) {
    fitter <- if (method == "means") kernel_means else kernel_parzen
    task <- sprintf("kernel_%s fit n=%d + predict %d, d=%d", method, n, n, d)
    k <- measure(predict(fitter(tr$x, tr$y, gamma = 1 / d, scale = FALSE), te$x))
    pairs <- (if (method == "means") sum(table(tr$y)^2) / 2 else 0) + n * n  # Parzen: no sums at fit
    add(task, "kernclass", k, gflop = 2 * pairs * d / 1e9, accuracy = mean(k$value == te$y))
  }
  rm(tr, te); invisible(gc())
  d <- 20
  tr <- make_data(n, d, 6); te <- make_data(2000, d, 1)
  k <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 1, scale = FALSE))
  add(sprintf("SVM train, RBF, C=1, n=%d, d=%d", n, d), "kernclass::kernel_svm", k,
      accuracy = mean(predict(k$value, te$x) == te$y), svs = length(k$value$index),
      objective = k$value$objective[[1]],
      note = sprintf("%.0f SMO iterations", k$value$iterations[[1]]))
  NULL
}
