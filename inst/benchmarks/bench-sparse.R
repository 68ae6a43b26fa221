# sparse: text-like data, kernel_svm and e1071::svm on one dgCMatrix. Rows
# like tf-idf vectors of documents: about 100 distinct words a row from a
# 50,000-word vocabulary of Zipf-like frequencies, log counts, unit length;
# the classes from a linear rule with label noise. Both packages take the
# same dgCMatrix (e1071 through SparseM's matrix.csr) and compute sparse.
flags <- list()

make_text <- function(n, p, words, seed) {
  set.seed(1)
  w <- rnorm(p)
  set.seed(seed)
  i <- rep(seq_len(n), each = words)
  j <- sample.int(p, n * words, replace = TRUE, prob = 1 / (seq_len(p) + 50))
  x <- Matrix::sparseMatrix(i, j, x = 1, dims = c(n, p))  # repeated words add up
  x@x <- log1p(x@x)
  x <- Matrix::Diagonal(x = 1 / sqrt(Matrix::rowSums(x^2))) %*% x
  x <- methods::as(x, "CsparseMatrix")
  f <- as.vector(x %*% w)
  list(x = x, y = factor(ifelse(f + rnorm(n, sd = 0.3 * sd(f)) > stats::median(f), "a", "b")))
}

run <- function(o) {
  if (!requireNamespace("Matrix", quietly = TRUE) || !requireNamespace("SparseM", quietly = TRUE)) {
    return(NULL)
  }
  n <- size(20000, 4000, 400)
  p <- size(50000, 10000, 1000)
  tr <- make_text(n, p, 100, 2)
  te <- make_text(size(2000, 2000, 200), p, 100, 3)
  load <- sprintf("load average %s at the start", paste(
    strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "))
  cat(sprintf("sparse: %d x %d, %.1f non-zeros a row, %.0f MB as dgCMatrix; %s\n", n, p,
              length(tr$x@x) / n, as.numeric(utils::object.size(tr$x)) / 2^20, load))
  acc <- function(m) mean(predict(m, te$x) == te$y)
  task <- function(kern) sprintf("SVM train, sparse %s, C=1, n=%d, p=%d", kern, n, p)
  gamma <- 1  # rows of unit length
  # each row as soon as it is measured; kernclass's default cache (1 GB) first,
  # then its cache at e1071's 40 MB
  for (kern in c("linear", "rbf")) {
    k <- measure(kernel_svm(tr$x, tr$y, kernel = kern, gamma = gamma, cost = 1, scale = FALSE))
    add(task(kern), "kernclass::kernel_svm", k, accuracy = acc(k$value),
        svs = length(k$value$index), objective = k$value$objective[[1]],
        note = paste("default cache (1 GB);", load))
    e <- measure(svm(tr$x, tr$y, kernel = if (kern == "rbf") "radial" else "linear",
                     gamma = gamma, cost = 1, scale = FALSE))
    add(task(kern), "e1071::svm", e, accuracy = acc(e$value), svs = e$value$tot.nSV,
        note = "same dgCMatrix (as matrix.csr); cachesize 40")
    rm(k, e); invisible(gc())
  }
  for (kern in c("linear", "rbf")) {
    k <- measure(kernel_svm(tr$x, tr$y, kernel = kern, gamma = gamma, cost = 1, scale = FALSE,
                            cachesize = 40))
    add(task(kern), "kernclass::kernel_svm", k, accuracy = acc(k$value),
        svs = length(k$value$index), objective = k$value$objective[[1]],
        note = "cachesize = 40, as e1071's")
    rm(k); invisible(gc())
  }
  NULL
}
