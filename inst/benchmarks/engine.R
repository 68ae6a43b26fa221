# Benchmark of the kernel engine and the two first classifiers, side by side
# with kernlab and plain R in one process. Run from anywhere:
#   Rscript inst/benchmarks/engine.R [output-file]
# Prints a table (seconds, ratio to kernclass, peak memory) and writes it to
# the output file (default: benchmark-engine.txt in the working directory).
suppressPackageStartupMessages({
  library(kernclass)
  library(kernlab)
})
out_file <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(out_file)) out_file <- "benchmark-engine.txt"

timed <- function(expr) {
  gc(reset = TRUE)
  before <- sum(gc()[, 2])
  t <- system.time(value <- force(expr))[["elapsed"]]
  peak <- sum(gc()[, 6]) - before
  list(value = value, seconds = t, peak_mb = max(peak, 0))
}

rows <- list()
add <- function(task, who, r, flops = NA, note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(task = task, implementation = who,
    seconds = r$seconds, gflops = if (is.na(flops)) NA else flops / r$seconds / 1e9,
    peak_mb = r$peak_mb, note = note)
}

set.seed(1)
threads <- getOption("kernclass.threads", 64L)

# 1. Gram matrix, RBF, n x n with d = 100
n <- 4000; d <- 100; gamma <- 1 / d
x <- matrix(rnorm(n * d), n)
flops <- 2 * n * n * d
r1 <- timed(kernel_matrix(x, kernel = "rbf", gamma = gamma))
add("gram rbf 4000x4000, d=100", "kernclass::kernel_matrix", r1, flops)
r2 <- timed(kernelMatrix(rbfdot(sigma = gamma), x))
add("gram rbf 4000x4000, d=100", "kernlab::kernelMatrix", r2, flops,
    sprintf("max diff %.1e", max(abs(r1$value - r2$value))))
r3 <- timed(tcrossprod(x))
add("gram rbf 4000x4000, d=100", "R BLAS tcrossprod (inner products only)", r3, flops)
rm(r1, r2, r3)

# 2. Nearest means and Parzen: fit on n, predict m, two classes, d = 20
n <- 10000; m <- 10000; d <- 20; gamma <- 1 / d
x <- matrix(rnorm(n * d), n); y <- factor(ifelse(x[, 1] + rnorm(n) > 0, "a", "b"))
xt <- matrix(rnorm(m * d), m)
plain_means <- function(x, y, xt) {
  kern <- rbfdot(sigma = gamma)
  ind <- sapply(levels(y), function(l) (y == l) / sum(y == l))
  norms <- sapply(levels(y), function(l) {
    xi <- x[y == l, , drop = FALSE]
    mean(kernelMatrix(kern, xi))
  })
  scores <- kernelMatrix(kern, xt, x) %*% ind
  scores <- sweep(scores, 2, norms / 2)
  factor(levels(y)[max.col(scores)], levels(y))
}
r1 <- timed(predict(kernel_means(x, y, gamma = gamma, scale = FALSE), xt))
add("kernel_means fit n=10000 + predict 10000, d=20", "kernclass", r1, 2 * (n * n / 2 + n * m) * d)
r2 <- timed(plain_means(x, y, xt))
add("kernel_means fit n=10000 + predict 10000, d=20", "plain R on kernlab::kernelMatrix", r2,
    2 * (n * n / 2 + n * m) * d, sprintf("agreement %.4f", mean(r1$value == r2$value)))
plain_parzen <- function(x, y, xt) {
  prior <- table(y) / length(y)
  ind <- sapply(levels(y), function(l) (y == l) * prior[[l]] / sum(y == l))
  scores <- kernelMatrix(rbfdot(sigma = gamma), xt, x) %*% ind
  factor(levels(y)[max.col(scores)], levels(y))
}
r1 <- timed(predict(kernel_parzen(x, y, gamma = gamma, scale = FALSE), xt))
add("kernel_parzen fit n=10000 + predict 10000, d=20", "kernclass", r1, 2 * n * m * d)
r2 <- timed(plain_parzen(x, y, xt))
add("kernel_parzen fit n=10000 + predict 10000, d=20", "plain R on kernlab::kernelMatrix", r2,
    2 * n * m * d, sprintf("agreement %.4f", mean(r1$value == r2$value)))

tab <- do.call(rbind, rows)
tab$ratio <- NA_real_
for (task in unique(tab$task)) {
  i <- tab$task == task
  tab$ratio[i] <- tab$seconds[i] / tab$seconds[i][1]
}
fmt <- data.frame(task = tab$task, implementation = tab$implementation,
                  seconds = sprintf("%.3f", tab$seconds),
                  "x kernclass" = sprintf("%.1f", tab$ratio),
                  GFLOPs = ifelse(is.na(tab$gflops), "", sprintf("%.1f", tab$gflops)),
                  "peak MB" = sprintf("%.0f", tab$peak_mb), note = tab$note,
                  check.names = FALSE)
header <- sprintf("kernclass %s, R %s, %s, %d core(s) available, kernclass.threads = %s",
                  packageVersion("kernclass"), getRversion(), R.version$platform,
                  parallel::detectCores(), format(threads))
lines <- c(header, "", knitr::kable(fmt, format = "pipe"))
writeLines(lines)
writeLines(lines, out_file)
