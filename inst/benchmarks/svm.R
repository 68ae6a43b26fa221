# kernel_svm against e1071::svm (LIBSVM) and kernlab::ksvm, side by side in
# one process: RBF kernel, C = 1, gamma = 1/d, tolerance 1e-3, data used as
# given (scale = FALSE for all three), each at its default cache size.
#   Rscript inst/benchmarks/svm.R [output-file] [sizes]
# sizes: comma-separated n (default 2000,10000,20000); d is 20 and 100.
# Prints a table and writes it to the output file (default benchmark-svm.txt).
suppressPackageStartupMessages({
  library(kernclass)
  library(e1071)
  library(kernlab)
})
args <- commandArgs(trailingOnly = TRUE)
out_file <- if (length(args) >= 1) args[1] else "benchmark-svm.txt"
sizes <- if (length(args) >= 2) as.integer(strsplit(args[2], ",")[[1]]) else c(2000, 10000, 20000)

# the same labelling rule (w) for the training and the test data of each d
make_data <- function(n, d, seed) {
  set.seed(d)
  w <- rnorm(d)
  set.seed(seed)
  x <- matrix(rnorm(n * d), n)
  f <- drop(x %*% w) / sqrt(d) + 0.5 * sin(3 * x[, 1])
  list(x = x, y = factor(ifelse(f + rnorm(n, sd = 0.5) > 0, "a", "b")))
}
timed <- function(expr) {
  gc(reset = TRUE)
  before <- sum(gc()[, 2])
  t <- system.time(value <- force(expr))[["elapsed"]]
  list(value = value, seconds = t, peak_mb = max(sum(gc()[, 6]) - before, 0))
}
# the dual objective of e1071's solution, from its support vectors
dual_objective <- function(coefs, sv, gamma) {
  K <- kernel_matrix(sv, kernel = "rbf", gamma = gamma)
  0.5 * sum(coefs * (K %*% coefs)) - sum(abs(coefs))
}

rows <- list()
for (d in c(20, 100)) for (n in sizes) {
  tr <- make_data(n, d, seed = n + d)
  te <- make_data(2000, d, seed = 1)
  gamma <- 1 / d
  k <- timed(kernel_svm(tr$x, tr$y, gamma = gamma, cost = 1, scale = FALSE))
  kp <- timed(predict(k$value, te$x))
  e <- timed(svm(tr$x, tr$y, gamma = gamma, cost = 1, scale = FALSE))
  ep <- timed(predict(e$value, te$x))
  l <- timed(ksvm(tr$x, tr$y, kernel = rbfdot(sigma = gamma), C = 1, scaled = FALSE))
  lp <- timed(predict(l$value, te$x))
  obj_e <- dual_objective(e$value$coefs[, 1], e$value$SV, gamma)
  obj_k <- unname(k$value$objective)
  add <- function(who, fit, pred, nsv, obj) {
    rows[[length(rows) + 1L]] <<- data.frame(
      n = n, d = d, implementation = who, train_s = fit$seconds, predict_s = pred$seconds,
      train_ratio = fit$seconds / k$seconds, predict_ratio = pred$seconds / kp$seconds,
      accuracy = mean(pred$value == te$y), nSV = nsv, objective = obj,
      peak_mb = fit$peak_mb)
  }
  add("kernclass", k, kp, length(k$value$index), obj_k)
  add("e1071", e, ep, e$value$tot.nSV, obj_e)
  add("kernlab", l, lp, l$value@nSV, -l$value@obj)
  cat(sprintf("n = %d, d = %d: kernclass %.2f s, e1071 %.2f s (%.1fx), kernlab %.2f s; ",
              n, d, k$seconds, e$seconds, e$seconds / k$seconds, l$seconds),
      sprintf("objective rel. diff to e1071 %.1e\n", abs(obj_k - obj_e) / abs(obj_e)))
}
tab <- do.call(rbind, rows)
fmt <- data.frame(n = tab$n, d = tab$d, implementation = tab$implementation,
                  "train s" = sprintf("%.2f", tab$train_s),
                  "x kernclass" = sprintf("%.1f", tab$train_ratio),
                  "predict s" = sprintf("%.3f", tab$predict_s),
                  "x kernclass " = sprintf("%.1f", tab$predict_ratio),
                  "test accuracy" = sprintf("%.4f", tab$accuracy), SVs = tab$nSV,
                  objective = sprintf("%.3f", tab$objective),
                  "R heap peak MB" = sprintf("%.0f", tab$peak_mb), check.names = FALSE)
header <- sprintf("kernclass %s, e1071 %s, kernlab %s, R %s, %d core(s), kernclass.threads = %s",
                  packageVersion("kernclass"), packageVersion("e1071"), packageVersion("kernlab"),
                  getRversion(), parallel::detectCores(),
                  format(getOption("kernclass.threads", "all")))
lines <- c(header, "", knitr::kable(fmt, format = "pipe"),
           "", "Objective: the dual objective 1/2 a'Qa - sum(a) (kernlab: -obj). R heap peak",
           "counts R's allocations only (kernclass allocates through R; e1071 and kernlab",
           "use malloc for their caches). Prediction: 2,000 test points.")
writeLines(lines)
writeLines(lines, out_file)
