# sums: nearest means and Parzen against plain R on kernlab::kernelMatrix.
flags <- list()

plain_means <- function(x, y, xt, gamma) {
  kern <- rbfdot(sigma = gamma)
  ind <- sapply(levels(y), function(l) (y == l) / sum(y == l))
  norms <- sapply(levels(y), function(l) mean(kernelMatrix(kern, x[y == l, , drop = FALSE])))
  scores <- sweep(kernelMatrix(kern, xt, x) %*% ind, 2, norms / 2)
  factor(levels(y)[max.col(scores)], levels(y))
}
plain_parzen <- function(x, y, xt, gamma) {
  prior <- table(y) / length(y)
  ind <- sapply(levels(y), function(l) (y == l) * prior[[l]] / sum(y == l))
  scores <- kernelMatrix(rbfdot(sigma = gamma), xt, x) %*% ind
  factor(levels(y)[max.col(scores)], levels(y))
}

run <- function(o) {
  n <- size(10000, 5000, 500); d <- 20; gamma <- 1 / d
  tr <- make_data(n, d, 2); te <- make_data(n, d, 3)
  for (method in c("means", "parzen")) {
    fitter <- if (method == "means") kernel_means else kernel_parzen
    plain <- if (method == "means") plain_means else plain_parzen
    task <- sprintf("kernel_%s fit n=%d + predict %d, d=%d", method, n, n, d)
    k <- measure(predict(fitter(tr$x, tr$y, gamma = gamma, scale = FALSE), te$x))
    p <- measure(plain(tr$x, tr$y, te$x, gamma))
    add(task, "kernclass", k, accuracy = mean(k$value == te$y))
    add(task, "plain R on kernlab::kernelMatrix", p, accuracy = mean(p$value == te$y),
        note = sprintf("same predictions: %.4f", mean(k$value == p$value)))
  }
  NULL
}
