# The benchmark suite: kernclass side by side with e1071 (LIBSVM), kernlab and
# plain R, in one process on one machine, so that the ratios are comparable.
#
#   Rscript inst/benchmarks/run.R            the issue's sizes (about 25 minutes)
#   Rscript inst/benchmarks/run.R --quick    smaller sizes (about 3 minutes)
#   Rscript inst/benchmarks/run.R --out FILE (default: benchmark-results.md)
#
# Prints a table (seconds, ratio of each peer's time to kernclass's, GFLOP/s,
# test accuracy, support vectors, dual objective, peak memory) and writes it,
# with the machine it ran on, to the output file.  Peak memory is the rise of
# the process's resident set (VmHWM, reset before each task through
# /proc/self/clear_refs): it counts malloc'ed memory too (the caches of e1071
# and kernlab), not just R's heap.
suppressPackageStartupMessages({
  library(kernclass)
  library(e1071)
  library(kernlab)
})
args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
out_file <- if ("--out" %in% args) args[which(args == "--out") + 1L] else "benchmark-results.md"
size <- function(full, small) if (quick) small else full

# ---- measurement --------------------------------------------------------
status_kb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  if (length(line)) as.numeric(gsub("[^0-9]", "", line)) else NA_real_
}
reset_peak <- function() {
  tryCatch({ writeLines("5", "/proc/self/clear_refs"); TRUE }, error = function(e) FALSE,
           warning = function(w) FALSE)
}
measure <- function(expr) {
  gc()
  can_reset <- reset_peak()
  before <- status_kb("VmRSS")
  seconds <- system.time(value <- force(expr))[["elapsed"]]
  peak <- if (can_reset) (status_kb("VmHWM") - before) / 1024 else NA_real_
  list(value = value, seconds = seconds, peak_mb = max(peak, 0))
}

rows <- list()
add <- function(task, who, m, gflop = NA, accuracy = NA, svs = NA, objective = NA, note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(
    task = task, implementation = who, seconds = m$seconds,
    gflops = gflop / m$seconds, accuracy = accuracy, svs = svs, objective = objective,
    peak_mb = m$peak_mb, note = note)
  cat(sprintf("%-48s %-34s %8.3f s\n", task, who, m$seconds))
}

# Two classes from a fixed labelling rule (the same for training and test
# data of one dimension d), with label noise.
make_data <- function(n, d, seed) {
  set.seed(d)
  w <- rnorm(d)
  set.seed(seed)
  x <- matrix(rnorm(n * d), n)
  f <- drop(x %*% w) / sqrt(d) + 0.5 * sin(3 * x[, 1])
  list(x = x, y = factor(ifelse(f + rnorm(n, sd = 0.5) > 0, "a", "b")))
}

# ---- 1. the kernel engine -----------------------------------------------
n <- size(20000, 8000); d <- 100
x <- make_data(n, d, 1)$x
w <- matrix(rnorm(n), n)
spec <- kernclass:::kc_kernel("rbf", gamma = 1 / d, degree = 3, coef0 = 0, x = x)
task <- sprintf("RBF kernel expansion K(x, x) w, n=%d, d=%d", n, d)
flop <- 2 * n * n * d
options(kernclass.threads = 1)
one <- measure(kernclass:::kc_expand(x, x, w, spec))
options(kernclass.threads = NULL)
two <- measure(kernclass:::kc_expand(x, x, w, spec))
add(task, "kernclass, 2 threads", two, flop / 1e9,
    note = sprintf("engine %s; 1 and 2 threads identical: %s", kernclass:::kc_engine(),
                   identical(one$value, two$value)))
add(task, "kernclass, 1 thread", one, flop / 1e9)
m <- 4000
blas <- measure(tcrossprod(x, x[seq_len(m), ]))
add(sprintf("matrix product x %%*%% t(x[1:%d, ]), same n, d", m), "R's BLAS (dgemm)", blas,
    2 * n * m * d / 1e9, note = basename(extSoftVersion()[["BLAS"]]))
rm(blas); invisible(gc())

n <- 4000
xg <- x[seq_len(n), ]
kg <- measure(kernel_matrix(xg, kernel = "rbf", gamma = 1 / d))
lg <- measure(kernelMatrix(rbfdot(sigma = 1 / d), xg))
task <- sprintf("Gram matrix, RBF, n=%d, d=%d", n, d)
add(task, "kernclass::kernel_matrix", kg, 2 * n * n * d / 1e9)
add(task, "kernlab::kernelMatrix", lg, 2 * n * n * d / 1e9,
    note = sprintf("max difference %.1e", max(abs(kg$value - lg$value))))
rm(kg, lg, x, xg); invisible(gc())

# ---- 2. SVM training and prediction --------------------------------------
dual_objective <- function(coefs, sv, gamma) {
  K <- kernel_matrix(sv, kernel = "rbf", gamma = gamma)
  0.5 * sum(coefs * (K %*% coefs)) - sum(abs(coefs))
}
for (d in c(20, 100)) {
  n <- size(20000, 5000)
  tr <- make_data(n, d, n + d)
  te <- make_data(2000, d, 1)
  gamma <- 1 / d
  task <- sprintf("SVM train, RBF, C=1, n=%d, d=%d", n, d)
  ptask <- sprintf("SVM predict 2000 points, n=%d, d=%d", n, d)
  k <- measure(kernel_svm(tr$x, tr$y, gamma = gamma, cost = 1, scale = FALSE))
  e <- measure(svm(tr$x, tr$y, gamma = gamma, cost = 1, scale = FALSE))
  l <- measure(ksvm(tr$x, tr$y, kernel = rbfdot(sigma = gamma), C = 1, scaled = FALSE))
  kp <- measure(predict(k$value, te$x))
  ep <- measure(predict(e$value, te$x))
  lp <- measure(predict(l$value, te$x))
  acc <- function(p) mean(p$value == te$y)
  add(task, "kernclass::kernel_svm", k, accuracy = acc(kp), svs = length(k$value$index),
      objective = k$value$objective[[1]])
  add(task, "e1071::svm", e, accuracy = acc(ep), svs = e$value$tot.nSV,
      objective = dual_objective(e$value$coefs[, 1], e$value$SV, gamma))
  add(task, "kernlab::ksvm", l, accuracy = acc(lp), svs = l$value@nSV, objective = -l$value@obj)
  add(ptask, "kernclass", kp, accuracy = acc(kp))
  add(ptask, "e1071", ep, accuracy = acc(ep))
  add(ptask, "kernlab", lp, accuracy = acc(lp))
  rm(k, e, l); invisible(gc())
}

# ---- 3. nearest means and Parzen against plain R on kernelMatrix ----------
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
n <- size(10000, 5000); d <- 20; gamma <- 1 / d
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
rm(tr, te); invisible(gc())

# ---- 4. scale: 100,000 points --------------------------------------------
n <- size(100000, 20000); d <- 100
tr <- make_data(n, d, 4); te <- make_data(n, d, 5)
for (method in c("means", "parzen")) {
  fitter <- if (method == "means") kernel_means else kernel_parzen
  task <- sprintf("kernel_%s fit n=%d + predict %d, d=%d", method, n, n, d)
  k <- measure(predict(fitter(tr$x, tr$y, gamma = 1 / d, scale = FALSE), te$x))
  pairs <- (if (method == "means") sum(table(tr$y)^2) / 2 else 0) + n * n  # Parzen: no sums at fit
  add(task, "kernclass", k, gflop = 2 * pairs * d / 1e9, accuracy = mean(k$value == te$y))
}
rm(tr, te); invisible(gc())
n <- size(100000, 20000); d <- 20
tr <- make_data(n, d, 6); te <- make_data(2000, d, 1)
k <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 1, scale = FALSE))
add(sprintf("SVM train, RBF, C=1, n=%d, d=%d", n, d), "kernclass::kernel_svm", k,
    accuracy = mean(predict(k$value, te$x) == te$y), svs = length(k$value$index),
    objective = k$value$objective[[1]],
    note = sprintf("%.0f SMO iterations", k$value$iterations[[1]]))
rm(tr, te, k); invisible(gc())

# ---- 5. threshold search --------------------------------------------------
set.seed(7)
n <- 1e6
yy <- sample(c(-1, 1), n, TRUE)
score <- yy * 0.5 + rnorm(n)
r_search <- function(x, y) {
  o <- order(x); xs <- x[o]; S <- cumsum(y[o]); k <- seq_len(length(x) - 1L)
  s <- abs(S[k]) + abs(S[length(x)] - S[k])
  s[xs[k] == xs[k + 1L]] <- -1
  best <- which.max(s)
  list(b = -(xs[best] + xs[best + 1L]) / 2, split = best, consistency = s[best])
}
k <- measure(threshold_search(score, yy))
r <- measure(r_search(score, yy))
add("threshold_search, 10^6 scores", "kernclass", k)
add("threshold_search, 10^6 scores", "vectorised R (order + cumsum)", r,
    note = sprintf("same answer: %s", isTRUE(all.equal(k$value, r$value))))

# ---- the table ----------------------------------------------------------
tab <- do.call(rbind, rows)
first <- tab$seconds[match(tab$task, tab$task)]
num <- function(x, fmt) ifelse(is.na(x), "", sprintf(fmt, x))
fmt <- data.frame(task = tab$task, implementation = tab$implementation,
                  seconds = sprintf("%.3f", tab$seconds),
                  "x kernclass" = sprintf("%.1f", tab$seconds / first),
                  "GFLOP/s" = num(tab$gflops, "%.1f"), accuracy = num(tab$accuracy, "%.4f"),
                  SVs = num(tab$svs, "%.0f"), objective = num(tab$objective, "%.3f"),
                  "peak MB" = num(tab$peak_mb, "%.0f"), note = tab$note, check.names = FALSE)
cpu <- grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1]
header <- c(
  sprintf("kernclass %s (engine: %s), e1071 %s, kernlab %s, %s", packageVersion("kernclass"),
          kernclass:::kc_engine(), packageVersion("e1071"), packageVersion("kernlab"),
          R.version.string),
  sprintf("%s, %d cores, %.0f GB; %s; %s", sub("^model name\\s*:\\s*", "", cpu),
          parallel::detectCores(), as.numeric(gsub("[^0-9]", "", readLines("/proc/meminfo")[1])) / 2^20, format(Sys.time(), "%Y-%m-%d"),
          if (quick) "--quick sizes" else "full sizes"))
lines <- c(header, "", knitr::kable(fmt, format = "pipe", align = "llrrrrrrrl"), "",
           "x kernclass: seconds divided by kernclass's seconds on the same task (higher is slower).",
           "Same data, kernel (RBF, gamma = 1/d), C = 1, tolerance 1e-3 and scale = FALSE for every",
           "SVM; each package at its default cache size. Objective: the dual 1/2 a'Qa - sum(a).",
           "Peak MB: rise of the resident set during the task.")
writeLines(lines)
writeLines(lines, out_file)
