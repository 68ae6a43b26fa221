# The benchmark suite: kernclass side by side with e1071 (LIBSVM), kernlab,
# scikit-learn's SVC (when Debian's python3-sklearn is installed) and plain R,
# in one process on one machine, so that the ratios are comparable.
#
#   Rscript inst/benchmarks/run.R            the full sizes (about 35 minutes on 2 cores)
#   Rscript inst/benchmarks/run.R --quick    smaller sizes (about 5 minutes)
#   Rscript inst/benchmarks/run.R --out FILE (default: benchmark-results.md)
#   Rscript inst/benchmarks/run.R --only tune --tune-n 2000 --loo-n 10000 \
#       --tune-default-n 5000 --tune-reps 3 --tune-threads 1
#       (the tune section's sizes: n of the 5 x 5 grid searches, n of
#       leave-one-out, n of the default-grid searches; kernel_tune's times
#       the median of --tune-reps runs; its threads, default all; 0: none of
#       a size; --tune-real Satellite (default) or 0: the real-data rows)
#   Rscript inst/benchmarks/run.R --only svm --svm-large 60000 (the 10-class,
#       d = 784 rows at 60,000 too, kernclass alone)
#   Rscript inst/benchmarks/run.R --only contention,scaling
#       sections: engine, svm, sums, scale, threshold, prob, sparse (the main
#       table), contention, scaling, tune, gammas, workers, latency, approx
#   Rscript inst/benchmarks/run.R --only workers --workers-n 2000 --workers-reps 5
#       (a race and a screen on threads, local workers and a local cluster)
#   Rscript inst/benchmarks/run.R --only approx --approx-n 100000,1000000 --exact-n 20000
#       (n of the approximate fits, n of the comparison with the exact models;
#       0: none; --approx-specs nystrom and --approx-fitters kernel_svm,... a
#       subset of the maps and classifiers; --approx-real mlbench::Shuttle
#       (or 0: none) and --approx-real-fitters kernel_svm,... the real data
#       sets and their classifiers; --approx-digits 20000 (0: none) the
#       MNIST-shaped rows, nystrom(m = 500, 1000, 2000) at cost 10, with
#       --approx-digits-exact the exact SVM too; --approx-target 60000 (0:
#       none) issue 35's nystrom(m = 2000) target, --approx-target-threads
#       2,1 its threads, --approx-target-exact the exact SVM beside it,
#       --approx-target-sklearn scikit-learn's Nystroem + LinearSVC too)
#   Rscript inst/benchmarks/run.R --only approx --approx-n 0 --exact-n 0 --approx-digits 0 \
#       --approx-real 0 --approx-target 0 --cells-tune-n 1000000 --cells-tune-grid 10 \
#       --cells-tune-sub 20000
#       (tuned cells against kernel_tune() of the exact SVM on a subsample;
#       --cells-tune-n 0: none; --cells-tune-size 2000, --cells-tune-folds 5,
#       --cells-tune-default: also each cell's own default grid;
#       --cells-tune-models sub or cells: one of the two alone;
#       --cells-tune-sphere: also make_sphere(), room beyond a linear rule;
#       --cells-tune-local: also make_local(), a rule that differs by region;
#       --cells-tune-only local (or data,sphere,local): those problems alone)
#
# contention: every large task on one thread and on the default number,
#   idle and beside one busy process that the suite starts and stops itself;
# scaling: 1, 2, 4, ... up to all cores, with speed-up and efficiency;
# tune: kernel_tune() (raced, the default; screened; exhaustive) against e1071 on a 5 x 5 cost
#   x gamma grid, 5-fold (e1071::tune.svm with its own folds, and e1071::svm
#   over kernel_tune's folds: the same cells, so the same best cell; the race
#   also on one thread; scikit-learn's GridSearchCV(SVC) on kernel_tune's
#   folds), mlbench's Satellite (6 classes) the same way, the
#   default 10 x 10 grid screened against exhaustive, and kernel_tune()'s exact
#   leave-one-out of kernel_means and kernel_parzen over 10 gammas;
# gammas: the three kernel-sum classifiers over 10 gammas, 5-fold, with the
#   gammas sharing their kernel sums and each grid row alone (--gammas-n,
#   default 5000; --gammas-reps, default 3);
# latency: how soon a Ctrl-C (SIGINT) stops each long computation;
# approx: the four classifiers with approx = random_fourier() and nystrom(),
#   and kernel_svm with cells(), at 10^5 and 10^6 rows (fit, then predict
#   10^5 rows), and their test accuracy against the exact models at 20,000
#   synthetic rows and on real data of 50,000-60,000 rows (mlbench's Shuttle,
#   ggplot2's diamonds), over m and the cell size.
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
sections <- c("engine", "svm", "sums", "scale", "threshold", "prob", "sparse", "contention",
              "scaling", "tune", "gammas", "workers", "latency", "approx")
if ("--only" %in% args) sections <- strsplit(args[which(args == "--only") + 1L], ",")[[1]]
run_section <- function(name) name %in% sections

# ---- measurement --------------------------------------------------------
# Memory a (virtual) machine has never handed to this process is slow to touch
# the first time (measured on the development VM: about 1 GB/s, so the first
# SVM fit of a session paid a second for its 1 GB row cache, later ones did
# not). Touching 3 GB once, as any long R session has, makes every package's
# timed run a warm one.
invisible(numeric(3 * 2^27))
invisible(gc())
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
  st <- system.time(value <- force(expr))
  peak <- if (can_reset) (status_kb("VmHWM") - before) / 1024 else NA_real_
  list(value = value, seconds = st[["elapsed"]], peak_mb = max(peak, 0),
       cpu = st[["user.self"]] + st[["sys.self"]])
}

rows <- list()
add <- function(task, who, m, gflop = NA, accuracy = NA, svs = NA, objective = NA, note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(
    task = task, implementation = who, seconds = m$seconds,
    gflops = gflop / m$seconds, accuracy = accuracy, svs = svs, objective = objective,
    peak_mb = m$peak_mb, note = note)
  cat(sprintf("%-48s %-34s %8.3f s %8.0f MB %s\n", task, who, m$seconds, m$peak_mb,
              if (is.na(accuracy)) "" else sprintf("acc %.4f svs %s", accuracy, svs)))
}

# Two classes from a fixed labelling rule (the same for training and test
# data of one dimension d), with label noise.
make_data <- function(n, d, seed) {
  set.seed(d)
  w <- rnorm(d)
  set.seed(seed)
  x <- matrix(rnorm(n * d), n)
  f <- drop(x %*% w) / sqrt(d) + 0.5 * sin(3 * x[, 1])
  list(x = x, y = factor(ifelse(f + rnorm(n, sd = 0.5) > 0, "a", "b")), f = f)
}

# ---- 1. the kernel engine -----------------------------------------------
if (run_section("engine")) {
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
}

# ---- 2. SVM training and prediction --------------------------------------
dual_objective <- function(coefs, sv, gamma) {
  K <- kernel_matrix(sv, kernel = "rbf", gamma = gamma)
  0.5 * sum(coefs * (K %*% coefs)) - sum(abs(coefs))
}

# scikit-learn's SVC, through a Python with sklearn (Debian's python3-sklearn),
# on the same data: list(fit, predict (seconds), svs, objective, accuracy), or
# NULL when there is none.
find_sklearn <- function() {
  for (py in unique(c(Sys.which("python3"), "/usr/bin/python3"))) {
    if (nzchar(py) && file.exists(py) &&
        identical(suppressWarnings(system2(py, c("-c", shQuote("import sklearn")),
                                           stdout = FALSE, stderr = FALSE)), 0L)) return(py)
  }
  ""
}
python <- find_sklearn()
# Runs one of the Python peers (a script beside this one) on tr and te,
# written for it into a temporary folder with y as +1 / -1; `read` takes what
# the script left in the folder. NULL when there is no Python with
# scikit-learn or the script fails.
sklearn_run <- function(script, tr, te, extra, read) {
  if (!nzchar(python)) return(NULL)
  dir <- tempfile("sklearn")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  writeBin(as.vector(tr$x), file.path(dir, "x.bin"), endian = "little")
  # two classes as +1 / -1, more as their codes 1, 2, ...
  y <- if (nlevels(tr$y) > 2L) as.integer(tr$y) else ifelse(tr$y == levels(tr$y)[1], 1, -1)
  writeBin(as.numeric(y), file.path(dir, "y.bin"), endian = "little")
  writeBin(as.vector(te$x), file.path(dir, "xt.bin"), endian = "little")
  path <- system.file("benchmarks", script, package = "kernclass")
  if (!nzchar(path)) path <- file.path("inst/benchmarks", script)
  # (-B: no __pycache__ of sklearn_peer.py beside the scripts)
  status <- system2(python, c("-B", path, dir, nrow(tr$x), ncol(tr$x), nrow(te$x), extra))
  if (!identical(status, 0L)) return(NULL)
  read(dir)
}

# The +1 / -1 predictions a script wrote, as tr's labels.
sklearn_labels <- function(dir, tr) {
  pred <- scan(file.path(dir, "pred.txt"), quiet = TRUE)
  if (nlevels(tr$y) > 2L) return(levels(tr$y)[pred])
  ifelse(pred == 1, levels(tr$y)[1], levels(tr$y)[2])
}

sklearn_svc <- function(tr, te, cost, gamma, tol = 1e-3) {
  sklearn_run("sklearn_svc.py", tr, te, c(cost, gamma, tol), function(dir) {
    times <- scan(file.path(dir, "times.txt"), quiet = TRUE)
    support <- scan(file.path(dir, "support.txt"), quiet = TRUE)
    coefs <- scan(file.path(dir, "coef.txt"), quiet = TRUE)
    list(fit = times[1], predict = times[2], iterations = times[3], svs = length(support),
         objective = if (nlevels(tr$y) == 2L)
           dual_objective(coefs, tr$x[support, , drop = FALSE], gamma) else NA,
         accuracy = mean(sklearn_labels(dir, tr) == te$y))
  })
}

# scikit-learn's Nystroem or RBFSampler features + LinearSVC (hinge loss) at
# the same m, cost and gamma as kernel_svm(approx = ...), on the data scaled
# as kernel_svm(scale = TRUE) scales them (as given where scale = FALSE):
# list(seconds (fit + predict, as Python measures them), accuracy), or NULL.
sklearn_approx <- function(tr, te, features, m, cost, gamma, scale = TRUE) {
  if (scale) {
    sx <- base::scale(tr$x)
    tr <- list(x = sx, y = tr$y)
    te <- list(x = base::scale(te$x, attr(sx, "scaled:center"), attr(sx, "scaled:scale")), y = te$y)
  }
  sklearn_run("sklearn_approx.py", tr, te, c(features, m, cost, gamma), function(dir) {
    times <- scan(file.path(dir, "times.txt"), quiet = TRUE)
    list(seconds = sum(times), accuracy = mean(sklearn_labels(dir, tr) == te$y))
  })
}

if (run_section("svm")) for (d in c(20, 100)) {
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
      objective = k$value$objective[[1]],
      note = sprintf("%d SMO iterations", as.integer(k$value$iterations[[1]])))
  add(task, "e1071::svm", e, accuracy = acc(ep), svs = e$value$tot.nSV,
      objective = dual_objective(e$value$coefs[, 1], e$value$SV, gamma))
  add(task, "kernlab::ksvm", l, accuracy = acc(lp), svs = l$value@nSV, objective = -l$value@obj)
  sk <- sklearn_svc(tr, te, cost = 1, gamma = gamma)
  if (!is.null(sk)) {
    add(task, "scikit-learn SVC", list(seconds = sk$fit, peak_mb = NA), accuracy = sk$accuracy,
        svs = sk$svs, objective = sk$objective,
        note = paste0("fit time measured in Python",
                      if (sk$iterations >= 0) sprintf("; %d SMO iterations (LIBSVM)",
                                                      as.integer(sk$iterations))))
  }
  add(ptask, "kernclass", kp, accuracy = acc(kp))
  add(ptask, "e1071", ep, accuracy = acc(ep))
  add(ptask, "kernlab", lp, accuracy = acc(lp))
  if (!is.null(sk)) add(ptask, "scikit-learn", list(seconds = sk$predict, peak_mb = NA),
                        accuracy = sk$accuracy)
  rm(k, e, l); invisible(gc())
}

# 10 classes on wide data, the shape of an image set (d = 784; RBF, gamma
# 1/784, cost 10): 45 class pairs, which kernel_svm solves side by side on
# one kernel of all the rows (src/svm-pairs.c). Simulated: 10 Gaussian
# blobs around random centres, spread along 30 shared directions plus
# noise.
make_blobs <- function(n, d, classes, seed, latent = 30) {
  set.seed(d + classes)
  mu <- matrix(rnorm(classes * d, sd = 0.4), classes, d)
  A <- matrix(rnorm(latent * d), latent, d) / sqrt(latent)
  set.seed(seed)
  cl <- sample(classes, n, TRUE)
  list(x = mu[cl, ] + matrix(rnorm(n * latent), n) %*% A + matrix(rnorm(n * d, sd = 0.3), n),
       y = factor(cl, levels = seq_len(classes)))
}
if (run_section("svm")) {
  n <- size(10000, 3000); d <- 784
  tr <- make_blobs(n, d, 10, 1)
  te <- make_blobs(2000, d, 10, 2)
  task <- sprintf("SVM train, 10 classes, RBF, C=10, n=%d, d=%d", n, d)
  acc <- function(fit) mean(predict(fit, te$x) == te$y)
  options(kernclass.threads = 1)
  k1 <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
  options(kernclass.threads = NULL)
  k <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
  e <- measure(svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
  add(task, sprintf("kernclass::kernel_svm, %d threads", kernclass:::kc_threads()), k,
      accuracy = acc(k$value), svs = length(k$value$index),
      note = sprintf("%d SMO iterations over 45 pairs", as.integer(sum(k$value$iterations))))
  add(task, "kernclass::kernel_svm, 1 thread", k1, accuracy = acc(k1$value),
      svs = length(k1$value$index))
  add(task, "e1071::svm", e, accuracy = acc(e$value), svs = e$value$tot.nSV)
  # with Platt's probability model: 5 folds per pair, solved on the pairs'
  # kernel blocks (kernclass alone: e1071 refits every fold from scratch)
  set.seed(1)
  kp <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE,
                           probability = TRUE))
  add(sub("train", "train with probability = TRUE", task),
      sprintf("kernclass::kernel_svm, %d threads", kernclass:::kc_threads()), kp,
      accuracy = acc(kp$value), svs = length(kp$value$index))
  rm(kp)
  sk <- sklearn_svc(tr, te, cost = 10, gamma = 1 / d)
  if (!is.null(sk)) {
    add(task, "scikit-learn SVC", list(seconds = sk$fit, peak_mb = NA), accuracy = sk$accuracy,
        svs = sk$svs, note = "fit time measured in Python, one thread")
  }
  rm(k, k1, e, tr); invisible(gc())
  # --svm-large 60000 (default 0: none): the same shape at that many rows,
  # kernclass alone (e1071 takes hours), within the default memory budget
  nl <- if ("--svm-large" %in% args) as.numeric(args[which(args == "--svm-large") + 1L]) else 0
  if (nl > 0) {
    tr <- make_blobs(nl, d, 10, 1)
    k <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
    add(sprintf("SVM train, 10 classes, RBF, C=10, n=%d, d=%d", nl, d),
        sprintf("kernclass::kernel_svm, %d threads", kernclass:::kc_threads()), k,
        accuracy = acc(k$value), svs = length(k$value$index),
        note = sprintf("memory budget %.1f GB (a quarter of the memory available)",
                       kernclass:::kc_memory_limit() / 4 / 2^30))
    rm(k, tr); invisible(gc())
  }
  rm(te); invisible(gc())
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
if (run_section("sums")) {
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
}

# ---- 4. scale: 100,000 points --------------------------------------------
if (run_section("scale")) {
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
}

# ---- 5. threshold search --------------------------------------------------
if (run_section("threshold")) {
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
}

# ---- 5b. SVM probabilities: type = "prob" against type = "decision" --------
# Both expand the same support vectors; "prob" adds Platt's sigmoids and the
# pairwise coupling of 5 classes (10 pairs), which should cost little.
if (run_section("prob")) {
n <- size(50000, 10000); d <- 20; ntr <- 2500
set.seed(8)
ytr <- factor(sample(paste0("c", 1:5), ntr, TRUE))
xtr <- matrix(rnorm(ntr * d), ntr) + 0.8 * outer(as.integer(ytr), seq_len(d) <= 5)
yte <- factor(sample(levels(ytr), n, TRUE), levels(ytr))
xte <- matrix(rnorm(n * d), n) + 0.8 * outer(as.integer(yte), seq_len(d) <= 5)
set.seed(9)
fit <- kernel_svm(xtr, ytr, gamma = 1 / d, scale = FALSE, probability = TRUE)
set.seed(9)
efit <- svm(xtr, ytr, gamma = 1 / d, scale = FALSE, probability = TRUE)
task <- sprintf("SVM predict %d rows, 5 classes (%d SVs), d=%d", n, length(fit$index), d)
kd <- measure(predict(fit, xte, type = "decision"))
kp <- measure(predict(fit, xte, type = "prob"))
ed <- measure(predict(efit, xte, decision.values = TRUE))
ep <- measure(predict(efit, xte, probability = TRUE))
pe <- attr(ep$value, "probabilities")[, levels(ytr)]
add(task, "kernclass, type = \"decision\"", kd)
add(task, "kernclass, type = \"prob\"", kp,
    accuracy = mean(levels(ytr)[max.col(kp$value)] == yte),
    note = sprintf("prob / decision: %.2f", kp$seconds / kd$seconds))
add(task, "e1071, decision.values = TRUE", ed, accuracy = mean(ed$value == yte))
add(task, "e1071, probability = TRUE", ep, accuracy = mean(levels(ytr)[max.col(pe)] == yte),
    note = sprintf("mean |p - kernclass p| %.3f (different folds)", mean(abs(pe - kp$value))))
rm(fit, efit, xte, kd, kp, ed, ep, pe); invisible(gc())
}

# ---- 5c. sparse text-like data: kernel_svm and e1071::svm on one dgCMatrix ----
# Rows like tf-idf vectors of documents: about 100 distinct words a row from a
# 50,000-word vocabulary of Zipf-like frequencies, log counts, unit length;
# the classes from a linear rule with label noise.  Both packages take the
# same dgCMatrix (e1071 through SparseM's matrix.csr) and compute sparse.
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
if (run_section("sparse") && requireNamespace("Matrix", quietly = TRUE) &&
    requireNamespace("SparseM", quietly = TRUE)) {
  n <- size(20000, 4000)
  p <- size(50000, 10000)
  tr <- make_text(n, p, 100, 2)
  te <- make_text(2000, p, 100, 3)
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
}

# ---- 6. under load: one thread and the default, idle and beside a busy process
median_seconds <- function(f, reps) {
  stats::median(vapply(seq_len(reps), function(i) {
    invisible(gc())
    system.time(f())[["elapsed"]]
  }, numeric(1)))
}
# A busy loop in a forked child, bounded in time, stopped by stop_busy().
start_busy <- function(seconds = 1800) {
  parallel::mcparallel({
    end <- Sys.time() + seconds
    while (Sys.time() < end) NULL
    NULL
  }, silent = TRUE)
}
stop_busy <- function(job) {
  tools::pskill(job$pid, tools::SIGKILL)
  invisible(suppressWarnings(parallel::mccollect(job, wait = TRUE, timeout = 5)))  # killed: no result
}
with_threads <- function(n, f) function() {
  old <- options(kernclass.threads = n)
  on.exit(options(old))
  f()
}
default_threads <- function() {
  old <- options(kernclass.threads = NULL)
  on.exit(options(old))
  kernclass_threads()
}
large_tasks <- function() {
  s20 <- make_data(size(20000, 5000), 20, 20020)
  s100 <- make_data(size(20000, 5000), 100, 20100)
  m <- size(20000, 8000)
  sums <- make_data(m, 100, 4); sums_te <- make_data(m, 100, 5)
  data(spam, package = "kernlab", envir = environment())
  tasks <- list(
    function() kernel_svm(s20$x, s20$y, gamma = 1 / 20, scale = FALSE),
    function() kernel_svm(s100$x, s100$y, gamma = 1 / 100, scale = FALSE),
    function() kernel_svm(type ~ ., data = spam),
    function() predict(kernel_means(sums$x, sums$y, gamma = 0.01, scale = FALSE), sums_te$x),
    function() predict(kernel_parzen(sums$x, sums$y, gamma = 0.01, scale = FALSE), sums_te$x))
  names(tasks) <- c(sprintf("kernel_svm n=%d, d=20", nrow(s20$x)),
                    sprintf("kernel_svm n=%d, d=100", nrow(s100$x)),
                    "kernel_svm on kernlab's spam (4601 x 57)",
                    sprintf("kernel_means fit + predict, %d x %d, d=100", m, m),
                    sprintf("kernel_parzen fit + predict, %d x %d, d=100", m, m))
  tasks
}
contention_lines <- NULL
if (run_section("contention")) {
  tasks <- large_tasks()
  nt <- default_threads()
  reps <- 3L
  cat(sprintf("contention: %d tasks x {1, %d threads} x {idle, busy}, median of %d\n",
              length(tasks), nt, reps))
  times <- array(NA_real_, c(length(tasks), 2, 2),
                 list(names(tasks), c("one", "default"), c("idle", "busy")))
  for (load in c("idle", "busy")) {
    if (load == "busy") busy <- start_busy()
    for (t in names(tasks)) {
      times[t, "one", load] <- median_seconds(with_threads(1L, tasks[[t]]), reps)
      times[t, "default", load] <- median_seconds(with_threads(NULL, tasks[[t]]), reps)
      cat(sprintf("  %-46s %s: %.2f s on 1 thread, %.2f s on %d\n", t, load,
                  times[t, "one", load], times[t, "default", load], nt))
    }
    if (load == "busy") stop_busy(busy)
  }
  tab <- data.frame(task = names(tasks),
                    "idle, 1 thread" = sprintf("%.2f", times[, "one", "idle"]),
                    "idle, default" = sprintf("%.2f", times[, "default", "idle"]),
                    "idle speed-up" = sprintf("%.2fx", times[, "one", "idle"] / times[, "default", "idle"]),
                    "busy, 1 thread" = sprintf("%.2f", times[, "one", "busy"]),
                    "busy, default" = sprintf("%.2f", times[, "default", "busy"]),
                    "busy: default / 1 thread" = sprintf("%.2f", times[, "default", "busy"] / times[, "one", "busy"]),
                    check.names = FALSE)
  contention_lines <- c(
    sprintf("### Under load: seconds (median of %d) on 1 thread and on the default (%d threads)", reps, nt), "",
    knitr::kable(tab, format = "pipe", align = "lrrrrrr"), "",
    "busy: beside one other process running a busy loop (started and stopped by the suite).",
    "default / 1 thread above 1 means the default was slower than one thread.", "")
}

# ---- 7. thread scaling ----------------------------------------------------
scaling_lines <- NULL
if (run_section("scaling")) {
  cores <- parallel::detectCores()
  counts <- sort(unique(c(2^(0:floor(log2(cores))), cores)))
  n50 <- size(50000, 10000)
  sv <- make_data(n50, 20, 50020)
  s100 <- make_data(size(20000, 5000), 100, 20100)
  sums <- make_data(n50, 100, 4); sums_te <- make_data(n50, 100, 5)
  tasks <- list(
    sums = list(name = sprintf("kernel sums: kernel_means fit + predict, %d x %d, d=100", n50, n50),
                f = function() predict(kernel_means(sums$x, sums$y, gamma = 0.01, scale = FALSE),
                                       sums_te$x, type = "decision")),
    svm50 = list(name = sprintf("kernel_svm n=%d, d=20 (default cache)", n50),
                 f = function() kernel_svm(sv$x, sv$y, gamma = 1 / 20, scale = FALSE)$objective),
    svm100 = list(name = sprintf("kernel_svm n=%d, d=100", nrow(s100$x)),
                  f = function() kernel_svm(s100$x, s100$y, gamma = 1 / 100, scale = FALSE)$objective))
  rows_s <- list()
  for (task in tasks) {
    first <- NULL
    base <- NA
    for (k in counts) {
      # the faster of two runs: a machine's other programs come and go
      secs <- Inf
      for (rep in 1:2) {
        invisible(gc())
        secs <- min(secs, system.time(value <- with_threads(k, task$f)())[["elapsed"]])
      }
      if (is.null(first)) { first <- value; base <- secs }
      cat(sprintf("  %-58s %3d threads: %.2f s\n", task$name, k, secs))
      rows_s[[length(rows_s) + 1L]] <- data.frame(
        task = task$name, threads = k, seconds = sprintf("%.2f", secs),
        "speed-up" = sprintf("%.2fx", base / secs), efficiency = sprintf("%.0f%%", 100 * base / secs / k),
        "same result as 1 thread" = identical(value, first), check.names = FALSE)
    }
  }
  scaling_lines <- c(sprintf("### Thread scaling (%d cores; the faster of two runs)", cores), "",
                     knitr::kable(do.call(rbind, rows_s), format = "pipe", align = "lrrrrl"), "")
}

# ---- 8. model selection ----------------------------------------------------
tune_lines <- NULL
if (run_section("tune")) {
  load_avg <- function() {
    if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg"), " ")[[1]][1] else "?"
  }
  grid <- list(cost = 2^c(-3, -1, 1, 3, 5), gamma = 2^c(-9, -7, -5, -3, -1))
  # e1071::svm over given folds: every cell of the grid, the accuracy out of fold
  e1071_cells <- function(x, y, fold) {
    cells <- expand.grid(grid, KEEP.OUT.ATTRS = FALSE)
    acc <- vapply(seq_len(nrow(cells)), function(i) {
      hits <- 0
      for (f in sort(unique(fold))) {
        te <- fold == f
        m <- svm(x[!te, ], y[!te], cost = cells$cost[i], gamma = cells$gamma[i])
        hits <- hits + sum(predict(m, x[te, ]) == y[te])
      }
      hits / length(y)
    }, numeric(1))
    list(cells = cells, accuracy = acc, best = which.max(acc))
  }
  cell_text <- function(cost, gamma) sprintf("cost %g, gamma %g", cost, gamma)
  rows_t <- list()
  sizes_arg <- function(flag, default) {
    if (flag %in% args) as.integer(strsplit(args[which(args == flag) + 1L], ",")[[1]]) else default
  }
  workers <- min(2L, default_threads())
  reps <- sizes_arg("--tune-reps", 1L)[1L]
  # --tune-threads 1: the sequential searches on one thread (the engine's
  # threads meet at every SMO iteration, which a busy machine makes costly)
  tune_threads <- if ("--tune-threads" %in% args) sizes_arg("--tune-threads", NA)[1L]
  old_threads <- options(kernclass.threads = tune_threads)
  # the kernel_tune() search (median seconds of `reps` runs, the last run's
  # result), sequential or under the workers of plan(multisession) (started
  # before the clock, as in a session)
  timed_search <- function(search, dat, grid, multisession = FALSE, threads = NULL) {
    if (!is.null(threads)) {
      old_t <- options(kernclass.threads = threads)
      on.exit(options(old_t), add = TRUE)
    }
    if (multisession) {
      old_plan <- future::plan("multisession", workers = workers)
      on.exit(future::plan(old_plan), add = TRUE)
      invisible(future::value(future::future(NULL)))
    }
    runs <- lapply(seq_len(reps), function(i) measure({
      set.seed(1)
      kernel_tune(kernel_svm, dat$x, dat$y, grid = grid, folds = 5, search = search)
    }))
    m <- runs[[reps]]
    m$runs <- vapply(runs, `[[`, numeric(1), "seconds")
    m$cpus <- vapply(runs, `[[`, numeric(1), "cpu")
    m$seconds <- stats::median(m$runs)
    m$cpu <- stats::median(m$cpus)
    m
  }
  # one search timed before and after the peers (the machine's load moving
  # between them): b's result, the median seconds of all runs of a and b
  pooled <- function(a, b) {
    b$runs <- c(a$runs, b$runs)
    b$cpus <- c(a$cpus, b$cpus)
    b$seconds <- stats::median(b$runs)
    b$cpu <- stats::median(b$cpus)
    b$same <- identical(a$value$results, b$value$results)
    b
  }
  # scikit-learn's GridSearchCV over SVC (StandardScaler in a pipeline, so
  # each fold scaled by its training rows, as e1071::svm(scale = TRUE) and
  # kernel_tune(scale = TRUE) scale them) on the grid and the folds `fold`,
  # n_jobs processes: list(seconds (the search with its refit, as Python
  # measures it), cost, gamma, cv (its mean fold accuracy), accuracy on te),
  # or NULL
  sklearn_grid <- function(tr, te, fold, grid, n_jobs) {
    fold_file <- tempfile("folds")
    on.exit(unlink(fold_file))
    writeLines(as.character(fold), fold_file)
    sklearn_run("sklearn_grid.py", tr, te, c(fold_file, paste(grid$cost, collapse = ","),
                                              paste(grid$gamma, collapse = ","), n_jobs),
                function(dir) {
      times <- scan(file.path(dir, "times.txt"), quiet = TRUE)
      best <- scan(file.path(dir, "best.txt"), quiet = TRUE)
      list(seconds = times[1], cost = best[1], gamma = best[2], cv = best[3],
           accuracy = mean(sklearn_labels(dir, tr) == te$y))
    })
  }
  # the exact CV accuracy (exhaustive table kx, same folds) of a cell
  exact_cv <- function(kx, cost, gamma) {
    r <- kx$value$results
    r$accuracy[which(abs(r$cost / cost - 1) < 1e-9 & abs(r$gamma / gamma - 1) < 1e-9)[1]]
  }
  test_accuracy <- function(model, te) mean(predict(model, te$x) == te$y)
  # the screened search against the exhaustive one: the chosen rows, the
  # exact cross-validated accuracy of the screened choice against the best
  # (from the exhaustive table, same folds), the returned models' test accuracy
  versus <- function(s, x, te) {
    b <- s$value$best_index
    list(same = b == x$value$best_index,
         cv_gap = 100 * (x$value$best_accuracy - x$value$results$accuracy[b]),
         test = c(test_accuracy(s$value$model, te), test_accuracy(x$value$model, te)))
  }
  # the columns on the chosen cells of the screened and raced searches
  quality <- function(k, kr, kx, te) {
    v <- versus(k, kx, te)
    vr <- versus(kr, kx, te)
    kb <- k$value$best
    xb <- kx$value$best
    data.frame(
      "best cell: screened / exhaustive" = sprintf("%s / %s", cell_text(kb$cost, kb$gamma),
                                                   if (v$same) "same" else
                                                     cell_text(xb$cost, xb$gamma)),
      "exact CV accuracy: best, screened choice's gap" =
        sprintf("%.4f, %.2f points", kx$value$best_accuracy, v$cv_gap),
      "test accuracy: screened / exhaustive model" = sprintf("%.4f / %.4f", v$test[1], v$test[2]),
      "raced: best cell, exact CV gap, test accuracy" =
        sprintf("%s, %.2f points, %.4f", if (vr$same) "same" else
                  cell_text(kr$value$best$cost, kr$value$best$gamma), vr$cv_gap, vr$test[1]),
      check.names = FALSE)
  }
  for (n in setdiff(sizes_arg("--tune-n", c(size(2000, 1000), size(5000, 2000))), 0L)) {
    dat <- make_data(n, 20, n + 7)
    te <- make_data(10000, 20, n + 8)
    before <- load_avg()
    k <- timed_search("screen", dat, grid)
    kr <- timed_search("race", dat, grid)
    kx <- timed_search("exhaustive", dat, grid)
    km <- timed_search("screen", dat, grid, multisession = TRUE)
    kmr <- timed_search("race", dat, grid, multisession = TRUE)
    kt <- timed_search("screen", dat, grid, threads = workers)
    ktr <- timed_search("race", dat, grid, threads = workers)
    k1r <- timed_search("race", dat, grid, threads = 1L)
    same_plan <- identical(km$value$results, k$value$results) &&
      identical(kmr$value$results, kr$value$results) &&
      identical(kt$value$results, k$value$results) &&
      identical(ktr$value$results, kr$value$results)
    e <- measure(e1071_cells(dat$x, dat$y, k$value$fold))
    set.seed(1)
    ts <- measure(tune.svm(dat$x, dat$y, cost = grid$cost, gamma = grid$gamma,
                           tunecontrol = tune.control(cross = 5)))
    # the race on one thread and on `workers` again after the e1071 runs
    k1r <- pooled(k1r, timed_search("race", dat, grid, threads = 1L))
    ktr <- pooled(ktr, timed_search("race", dat, grid, threads = workers))
    same_plan <- same_plan && identical(k1r$value$results, kr$value$results)
    sk <- sklearn_grid(dat, te, k$value$fold, grid, workers)
    xb <- kx$value$best
    eb <- e$value$cells[e$value$best, ]
    tb <- ts$value$best.parameters
    same <- isTRUE(all.equal(c(xb$cost, xb$gamma), c(eb$cost, eb$gamma)))
    task <- sprintf("5 x 5 cost x gamma, 5-fold, n=%d, d=20", n)
    rows_t[[length(rows_t) + 1L]] <- data.frame(
      task = task,
      "screened s (x e1071 same folds / x tune.svm)" =
        sprintf("%.2f (%.1fx / %.1fx)", k$seconds, e$seconds / k$seconds, ts$seconds / k$seconds),
      "screened, multisession s" = sprintf("%.2f (%.1fx / %.1fx)%s", km$seconds,
                                           e$seconds / km$seconds, ts$seconds / km$seconds,
                                           if (same_plan) "" else ", results differ!"),
      "raced s" = sprintf("%.2f (%.1fx / %.1fx)", kr$seconds, e$seconds / kr$seconds,
                          ts$seconds / kr$seconds),
      "raced, multisession s" = sprintf("%.2f (%.1fx / %.1fx)%s", kmr$seconds,
                                        e$seconds / kmr$seconds, ts$seconds / kmr$seconds,
                                        if (same_plan) "" else ", results differ!"),
      "screened, 2 threads s" = sprintf("%.2f (%.1fx / %.1fx)", kt$seconds,
                                        e$seconds / kt$seconds, ts$seconds / kt$seconds),
      "raced, 2 threads s" = sprintf("%.2f (%.1fx / %.1fx)", ktr$seconds,
                                     e$seconds / ktr$seconds, ts$seconds / ktr$seconds),
      "raced, 1 thread s" = sprintf("%.2f (%.1fx / %.1fx)", k1r$seconds,
                                    e$seconds / k1r$seconds, ts$seconds / k1r$seconds),
      "exhaustive s" = sprintf("%.2f (%.1fx / %.1fx)", kx$seconds, e$seconds / kx$seconds,
                               ts$seconds / kx$seconds),
      "e1071::svm, same folds s" = sprintf("%.2f", e$seconds),
      "tune.svm s" = sprintf("%.2f", ts$seconds),
      quality(k, kr, kx, te),
      "exhaustive's best as e1071's on its folds" = if (same) "yes" else
        sprintf("no: %s (%.4f)", cell_text(eb$cost, eb$gamma), e$value$accuracy[e$value$best]),
      "tune.svm's best (its own folds)" = cell_text(tb$cost, tb$gamma),
      "scikit-learn GridSearchCV s (x kernel_tune raced 2 threads): best, test accuracy" =
        if (is.null(sk)) "no scikit-learn" else
          sprintf("%.2f (%.1fx): %s, %.4f", sk$seconds, sk$seconds / ktr$seconds,
                  cell_text(sk$cost, sk$gamma), sk$accuracy),
      "CPU s: screened / raced / exhaustive / e1071 / tune.svm" =
        sprintf("%.1f / %.1f / %.1f / %.1f / %.1f", k$cpu, kr$cpu, kx$cpu, e$cpu, ts$cpu),
      "load before / after" = paste(before, load_avg(), sep = " / "),
      check.names = FALSE)
    cat(sprintf(paste0("%-40s screened %.2f s, raced (default) %.2f s, exhaustive %.2f s, ",
                       "multisession %.2f s (raced %.2f s), %d threads %.2f s (raced %.2f s), ",
                       "e1071 same folds %.2f s (%.1fx), tune.svm %.2f s (raced %.1fx; raced, ",
                       "%d threads: %.1fx; 1 thread %.2f s: %.1fx)\n"),
                task, k$seconds, kr$seconds, kx$seconds, km$seconds, kmr$seconds, workers,
                kt$seconds, ktr$seconds, e$seconds, e$seconds / kr$seconds, ts$seconds,
                ts$seconds / kr$seconds, workers, ts$seconds / ktr$seconds, k1r$seconds,
                ts$seconds / k1r$seconds))
  }
  # the default grid (10 x 10 around the median heuristic), screened and
  # exhaustive; no e1071 (its 500 fits a size take too long to repeat)
  rows_d <- list()
  for (n in setdiff(sizes_arg("--tune-default-n", size(5000, 1000)), 0L)) {
    dat <- make_data(n, 20, n + 7)
    te <- make_data(10000, 20, n + 8)
    k <- timed_search("screen", dat, NULL)
    km <- timed_search("screen", dat, NULL, multisession = TRUE)
    kt <- timed_search("screen", dat, NULL, threads = workers)
    kr <- timed_search("race", dat, NULL)
    ktr <- timed_search("race", dat, NULL, threads = workers)
    kx <- timed_search("exhaustive", dat, NULL)
    rows_d[[length(rows_d) + 1L]] <- data.frame(
      task = sprintf("default 10 x 10 grid, 5-fold, n=%d, d=20", n),
      "screened s" = sprintf("%.2f", k$seconds),
      "screened, multisession s" = sprintf("%.2f", km$seconds),
      "screened, 2 threads s" = sprintf("%.2f", kt$seconds),
      "raced s" = sprintf("%.2f", kr$seconds),
      "raced, 2 threads s" = sprintf("%.2f", ktr$seconds),
      "exhaustive s" = sprintf("%.2f", kx$seconds),
      quality(k, kr, kx, te),
      load = load_avg(), check.names = FALSE)
    cat(sprintf(paste0("%-40s screened %.2f s, multisession %.2f s, %d threads %.2f s, raced ",
                       "%.2f s (%d threads %.2f s), exhaustive %.2f s\n"),
                rows_d[[length(rows_d)]]$task, k$seconds, km$seconds, workers, kt$seconds,
                kr$seconds, workers, ktr$seconds, kx$seconds))
  }
  # real multi-class data (--tune-real Satellite, or 0: none): mlbench's
  # Satellite (Statlog Landsat, 6 classes, 36 inputs), its 6,435 rows the
  # Statlog training set (the first 4,435: the search) and test set (the last
  # 2,000: fresh data). The race on one thread and on `workers`, each before
  # and after tune.svm (median of all runs), the exhaustive search (its exact
  # table gives every chosen cell's exact CV accuracy on kernel_tune's folds),
  # tune.svm on its own folds and GridSearchCV on kernel_tune's.
  real <- if ("--tune-real" %in% args) args[which(args == "--tune-real") + 1L] else "Satellite"
  rows_r <- NULL
  real_lines <- NULL
  if (identical(real, "Satellite") && requireNamespace("mlbench", quietly = TRUE)) {
    sat_env <- new.env()
    utils::data("Satellite", package = "mlbench", envir = sat_env)
    sat <- sat_env$Satellite
    xs <- as.matrix(sat[, names(sat) != "classes"])
    ys <- droplevels(sat$classes)
    train <- seq_len(4435)
    sat_tr <- list(x = xs[train, ], y = ys[train])
    sat_te <- list(x = xs[-train, ], y = ys[-train])
    before <- load_avg()
    r1 <- timed_search("race", sat_tr, grid, threads = 1L)
    r2 <- timed_search("race", sat_tr, grid, threads = workers)
    set.seed(1)
    ts <- measure(tune.svm(sat_tr$x, sat_tr$y, cost = grid$cost, gamma = grid$gamma,
                           tunecontrol = tune.control(cross = 5)))
    r1 <- pooled(r1, timed_search("race", sat_tr, grid, threads = 1L))
    r2 <- pooled(r2, timed_search("race", sat_tr, grid, threads = workers))
    kx <- timed_search("exhaustive", sat_tr, grid, threads = workers)
    fold <- r2$value$fold
    sk1 <- sklearn_grid(sat_tr, sat_te, fold, grid, 1L)
    sk2 <- sklearn_grid(sat_tr, sat_te, fold, grid, workers)
    after <- load_avg()
    nt <- length(sat_tr$y)
    # one row per search: the time and its ratio to tune.svm's, the chosen
    # cell, the figure the search chose it by (what it is), that cell's exact
    # CV accuracy on kernel_tune's folds and its gap to the best there (in
    # held-out rows: 0 is a tie or the same cell), the test accuracy
    real_row <- function(who, m, cost, gamma, figure, test) {
      a <- exact_cv(kx, cost, gamma)
      data.frame(search = who, seconds = sprintf("%.2f", m$seconds),
                 "x tune.svm" = sprintf("%.1fx", ts$seconds / m$seconds),
                 "CPU s" = if (is.null(m$cpu)) "" else sprintf("%.1f", m$cpu),
                 "chosen cell" = cell_text(cost, gamma), "its figure (what it is)" = figure,
                 "exact CV accuracy, kernel_tune's folds (gap to best, rows)" =
                   sprintf("%.4f (%.2f points, %d rows)", a, 100 * (kx$value$best_accuracy - a),
                           as.integer(round(nt * (kx$value$best_accuracy - a)))),
                 "test accuracy (2,000 rows)" = sprintf("%.4f", test), check.names = FALSE)
    }
    # summary()'s lines down to its table's end (not the refitted model's)
    summary_table <- function(tuned) {
      old_width <- options(width = 150)
      on.exit(options(old_width))
      out <- utils::capture.output(print(summary(tuned)))
      out[seq_len(grep("^Model refitted", out)[1] - 2L)]
    }
    raced_figure <- function(r) {
      fin <- sum(r$value$results$folds_run == 5L)
      sprintf("%.4f: screening estimate (tol 0.1), all 5 folds; %d of 25 cells ran every fold",
              r$value$best_accuracy, fin)
    }
    rows_r <- list(
      real_row("kernel_tune, raced (default), 1 thread", r1, r1$value$best$cost,
               r1$value$best$gamma, raced_figure(r1), test_accuracy(r1$value$model, sat_te)),
      real_row(sprintf("kernel_tune, raced (default), %d threads", workers), r2,
               r2$value$best$cost, r2$value$best$gamma, raced_figure(r2),
               test_accuracy(r2$value$model, sat_te)),
      real_row(sprintf("kernel_tune, exhaustive, %d threads", workers), kx, kx$value$best$cost,
               kx$value$best$gamma, sprintf("%.4f: full CV at tol 0.001", kx$value$best_accuracy),
               test_accuracy(kx$value$model, sat_te)),
      real_row("e1071::tune.svm (its own 5 folds)", ts, ts$value$best.parameters$cost,
               ts$value$best.parameters$gamma,
               sprintf("%.4f: full CV, its folds (mean of fold accuracies)",
                       1 - ts$value$best.performance),
               mean(predict(ts$value$best.model, sat_te$x) == sat_te$y)))
    for (sk in list(list(1L, sk1), list(workers, sk2))) if (!is.null(sk[[2]])) {
      rows_r[[length(rows_r) + 1L]] <- real_row(
        sprintf("scikit-learn GridSearchCV(SVC), n_jobs = %d", sk[[1]]),
        list(seconds = sk[[2]]$seconds, cpu = NULL), sk[[2]]$cost, sk[[2]]$gamma,
        sprintf("%.4f: full CV, same folds (mean of fold accuracies)", sk[[2]]$cv),
        sk[[2]]$accuracy)
    }
    cat(sprintf(paste0("Satellite 4435 x 36, 6 classes: raced 1 thread %.2f s (%.1fx tune.svm), ",
                       "%d threads %.2f s (%.1fx), exhaustive %.2f s, tune.svm %.2f s%s; ",
                       "load %s / %s\n"),
                r1$seconds, ts$seconds / r1$seconds, workers, r2$seconds, ts$seconds / r2$seconds,
                kx$seconds, ts$seconds,
                if (is.null(sk2)) "" else sprintf(", GridSearchCV %.2f s (n_jobs %d)",
                                                  sk2$seconds, workers),
                before, after))
    real_lines <- c(
      sprintf(paste("#### Real data: mlbench's Satellite, 6 classes, 4,435 training rows x 36,",
                    "2,000 test rows; the 5 x 5 grid, 5-fold (load %s before, %s after)"),
              before, after), "",
      knitr::kable(do.call(rbind, rows_r), format = "pipe"), "",
      paste0("seconds: the search with its refit on all training rows; kernel_tune's races the ",
             "median of ", 2L * reps, " runs, half before tune.svm and half after (results ",
             if (isTRUE(r1$same) && isTRUE(r2$same) &&
                 identical(r1$value$results, r2$value$results)) "identical" else "NOT identical",
             " across runs and threads); scikit-learn's as Python measures it, its n_jobs ",
             "processes started inside it; CPU s: this process's (tune.svm one thread). ",
             "gap: the exhaustive search's best exact CV accuracy minus the chosen cell's, ",
             "same folds; a tie (0 rows) is as good as exhaustive search's choice. ",
             "scikit-learn's StandardScaler divides by the population sd (e1071 and ",
             "kernclass: the sample sd)."), "",
      "The raced search's own summary (its table's figures say what each is):", "", "```",
      summary_table(r2$value), "```", "")
  }
  nl <- sizes_arg("--loo-n", size(10000, 3000))
  dat <- make_data(max(nl, 1L), 20, 99)
  gammas <- data.frame(gamma = 2^seq(-9, 0, length.out = 10))
  loo <- if (nl > 0L) lapply(c("kernel_means", "kernel_parzen"), function(f) {
    fun <- get(f, envir = asNamespace("kernclass"))
    m <- measure(kernel_tune(fun, dat$x, dat$y, grid = gammas, folds = "loo", scale = FALSE))
    cat(sprintf("%-48s %.2f s\n", sprintf("%s, 10 gammas, loo, n=%d", f, nl), m$seconds))
    data.frame(task = sprintf("kernel_tune(%s), 10 gammas, leave-one-out, n=%d, d=20", f, nl),
               seconds = sprintf("%.2f", m$seconds),
               "best gamma" = sprintf("%.4g", m$value$best$gamma),
               accuracy = sprintf("%.4f", m$value$best_accuracy),
               load = load_avg(), check.names = FALSE)
  })
  options(old_threads)
  tune_lines <- c(
    sprintf("### Model selection (kernel_tune, sequential plan, %s)",
            if (is.null(tune_threads)) "default threads" else
              sprintf("%d thread(s), --tune-threads", tune_threads)), "",
    if (length(rows_t)) knitr::kable(do.call(rbind, rows_t), format = "pipe"), "",
    paste0(paste("Grid: cost 2^(-3, -1, 1, 3, 5) x gamma 2^(-9, -7, -5, -3, -1), RBF, scale = TRUE,",
                 "tolerance 1e-3. screened: the grid cross-validated at solver tolerance 0.1, the",
                 "chosen row refitted at 1e-3; raced: kernel_tune()'s default search, screened, and",
                 "successive halving over the folds; exhaustive: every row at",
                 "1e-3. (x e1071 same folds / x tune.svm): the e1071 times over kernel_tune's, all in",
                 "this process"),
           if (reps > 1L) sprintf(" (kernel_tune: median of %d runs).", reps) else "."),
    paste("exact CV accuracy: the exhaustive search's best, and how many points the screened",
          "choice's exact CV accuracy (same folds) is below it; test accuracy: the returned",
          "models on 10,000 new rows of the same distribution."),
    "load: the 1-minute load average of the machine before and after (other programs count);",
    "CPU s: the seconds of CPU this process used (e1071 runs on one thread).",
    paste0("multisession: the same search under future::plan(\"multisession\", workers = ",
           workers, ") (workers started before the clock); 2 threads: the sequential plan ",
           "with options(kernclass.threads = ", workers, "), the kernel settings' fits side by ",
           "side on the threads; it says so where the results of either are not identical to ",
           "the sequential plan's on one thread."), "",
    if (length(rows_d)) c(knitr::kable(do.call(rbind, rows_d), format = "pipe"), "",
                          paste("The default grid: 10 costs from 50/n to 500 x 10 gammas 2^(-6, ..., 3)",
                                "times estimate_gamma()'s median heuristic."), ""),
    real_lines,
    if (length(loo)) c(knitr::kable(do.call(rbind, loo), format = "pipe"), "",
                       "Exact leave-one-out from one pass of kernel sums per gamma (scale = FALSE).",
                       ""))
}

# ---- 8b. the kernel-sum classifiers over gamma ------------------------------
# kernel_tune() of kernel_means, kernel_parzen and kernel_bayes over 10 gammas,
# 5-fold: the gammas sharing their kernel sums on each fold (kernel_tune's
# way) against each grid row alone (the registry without the gamma path, as
# before it), the same folds, one thread; --gammas-n rows (default 5000),
# --gammas-reps runs (median; default 3).
gammas_lines <- NULL
if (run_section("gammas")) {
  flag_value <- function(flag, default) {
    if (flag %in% args) as.integer(args[which(args == flag) + 1L]) else default
  }
  ng <- flag_value("--gammas-n", size(5000, 2000))
  reps <- flag_value("--gammas-reps", 3L)
  gammas <- data.frame(gamma = 2^seq(-9, 0, length.out = 10))
  shared_rows <- list()
  registry <- get("kc_fitters", envir = asNamespace("kernclass"))
  alone <- lapply(registry, function(r) {
    if (identical(r$path, "gamma")) r$path <- NULL
    r
  })
  with_registry <- function(reg, f) {
    assignInNamespace("kc_fitters", reg, "kernclass")
    on.exit(assignInNamespace("kc_fitters", registry, "kernclass"))
    f()
  }
  for (d in c(20, 100)) {
    dat <- make_data(ng, d, 98)
    for (f in c("kernel_means", "kernel_parzen", "kernel_bayes")) {
      fun <- get(f, envir = asNamespace("kernclass"))
      run <- function() {
        set.seed(5)
        kernel_tune(fun, dat$x, dat$y, grid = gammas, folds = 5, search = "exhaustive")
      }
      one <- function(reg) with_threads(1L, function() with_registry(reg, run))
      t_shared <- median_seconds(one(registry), reps)
      t_alone <- median_seconds(one(alone), reps)
      same <- identical(one(registry)()$results, one(alone)()$results)
      cat(sprintf("%-48s shared %.2f s, alone %.2f s\n",
                  sprintf("%s, 10 gammas, 5-fold, n=%d d=%d", f, ng, d), t_shared, t_alone))
      shared_rows[[length(shared_rows) + 1L]] <- data.frame(
        task = sprintf("kernel_tune(%s), 10 gammas, 5-fold, n=%d, d=%d", f, ng, d),
        "gammas shared" = sprintf("%.2f", t_shared), "each row alone" = sprintf("%.2f", t_alone),
        speed_up = sprintf("%.2fx", t_alone / t_shared),
        identical = if (same) "yes" else "NO", check.names = FALSE)
    }
  }
  gammas_lines <- c(
    "### Kernel-sum classifiers over gamma (kernel_tune, 10 gammas, 5-fold, one thread)", "",
    knitr::kable(do.call(rbind, shared_rows), format = "pipe"), "",
    paste("scale = TRUE, gamma 2^(-9, ..., 0), the same folds; gammas shared: the grid rows",
          "that differ only in gamma fitted together on each fold, every kernel sum computed for",
          "all the gammas from one pass of inner products or distances (and kernel_bayes's",
          "covariances and whitened points once); each row alone: the same search with that",
          "sharing switched off; identical: the results tables are identical();",
          sprintf("median of %d runs.", reps)), "")
}

# ---- 8c. workers against threads --------------------------------------------
# The synthetic grid's race and screen (5 x 5, 5-fold, --workers-n rows, default
# 2000) on 1 and 2 engine threads under plan(sequential), under
# plan(multisession, workers = 2) (local workers: the paths run here on
# threads) and on a local 2-process cluster, plan(cluster) (the futures
# that other machines get), made as ?kernclass-parallel says (sockets with
# the "no-delay" option) and as parallel::makeCluster(2) makes it; the
# five in turn, --workers-reps rounds (default 5), medians; the workers
# started, and kernclass loaded in them, before the clock.
workers_lines <- NULL
if (run_section("workers")) {
  wflag <- function(flag, default) {
    if (flag %in% args) as.integer(args[which(args == flag) + 1L]) else default
  }
  nw <- wflag("--workers-n", 2000L)
  wreps <- wflag("--workers-reps", 5L)
  dat <- make_data(nw, 20, nw + 7)
  wgrid <- list(cost = 2^c(-3, -1, 1, 3, 5), gamma = 2^c(-9, -7, -5, -3, -1))
  ways <- c("1 thread", "2 threads", "multisession, 2 workers", "cluster, 2 local workers",
            "parallel::makeCluster(2)")
  old_so <- options(socketOptions = "no-delay")
  cl <- parallelly::makeClusterPSOCK(2L, rscript_libs = .libPaths())
  options(old_so)
  cl_plain <- parallel::makeCluster(2L)
  parallel::clusterCall(cl_plain, function(lib) invisible(.libPaths(lib)), .libPaths())
  secs <- list()
  tables <- list()
  loads <- character()
  for (r in seq_len(wreps)) {
    for (way in ways) {
      switch(way, "multisession, 2 workers" = future::plan(future::multisession, workers = 2),
             "cluster, 2 local workers" = future::plan(future::cluster, workers = cl),
             "parallel::makeCluster(2)" = future::plan(future::cluster, workers = cl_plain),
             future::plan(future::sequential))
      if (!inherits(future::plan(), "sequential")) {
        invisible(future.apply::future_lapply(1:2, function(i) loadNamespace("kernclass"),
                                              future.scheduling = 1))
      }
      old_t <- options(kernclass.threads = switch(way, "1 thread" = 1L, "2 threads" = 2L, NULL))
      for (search in c("race", "screen")) {
        key <- paste(search, way, sep = "|")
        m <- measure({
          set.seed(1)
          kernel_tune(kernel_svm, dat$x, dat$y, grid = wgrid, folds = 5, search = search)
        })
        secs[[key]] <- c(secs[[key]], m$seconds)
        tables[[key]] <- m$value$results
      }
      options(old_t)
    }
    loads <- c(loads, strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  }
  future::plan(future::sequential)
  parallel::stopCluster(cl)
  parallel::stopCluster(cl_plain)
  workers_rows <- lapply(c("race", "screen"), function(search) {
    med <- vapply(ways, function(w) stats::median(secs[[paste(search, w, sep = "|")]]), 0)
    same <- all(vapply(ways, function(w) identical(tables[[paste(search, w, sep = "|")]],
                                                   tables[[paste(search, ways[1], sep = "|")]]),
                       logical(1)))
    cat(sprintf("%-48s %s\n", sprintf("%s, workers vs threads, n=%d", search, nw),
                paste(sprintf("%s %.2f s", ways, med), collapse = ", ")))
    data.frame(task = sprintf("%s, 5 x 5 cost x gamma, 5-fold, n=%d, d=20", search, nw),
               "1 thread s" = sprintf("%.2f", med[[1]]), "2 threads s" = sprintf("%.2f", med[[2]]),
               "multisession, 2 workers s" = sprintf("%.2f (%.2fx 2 threads)", med[[3]],
                                                     med[[3]] / med[[2]]),
               "cluster, 2 local workers s" = sprintf("%.2f (%.2fx 2 threads)", med[[4]],
                                                      med[[4]] / med[[2]]),
               "parallel::makeCluster(2) s" = sprintf("%.2f (%.2fx 2 threads)", med[[5]],
                                                      med[[5]] / med[[2]]),
               identical = if (same) "yes" else "NO", check.names = FALSE)
  })
  workers_lines <- c(
    sprintf("### Workers against threads (kernel_tune of kernel_svm, median of %d rounds)", wreps),
    "", knitr::kable(do.call(rbind, workers_rows), format = "pipe"), "",
    paste("The synthetic grid (make_data(), 20 inputs, two classes; cost 2^(-3, ..., 5) x gamma",
          "2^(-9, ..., -1), RBF, scale = TRUE),",
          "raced (the default) and screened, the five ways in turn in each round:",
          "plan(sequential) on 1 and 2 engine threads; plan(multisession, workers = 2), whose",
          "local workers leave the shared SVM paths to this session's threads; plan(cluster)",
          "on 2 local R processes, the futures other machines get (one per worker per round,",
          "the data sent to each worker once), the cluster made by",
          "parallelly::makeClusterPSOCK() after options(socketOptions = \"no-delay\") as",
          "?kernclass-parallel says, and by a plain parallel::makeCluster(2) (each message",
          "over 4 KB then waits about 40 ms for TCP's delayed acknowledgement); workers",
          "started and kernclass loaded in them before the clock. identical: the results",
          "tables of all five are identical().",
          sprintf("1-minute load average after each round: %s.", paste(loads, collapse = ", "))),
    "")
}

# ---- 9. interrupt latency ------------------------------------------------
latency_lines <- NULL
if (run_section("latency") && file.exists("tests/testthat/test-sigint.R") &&
    requireNamespace("testthat", quietly = TRUE)) {
  Sys.setenv(KERNCLASS_SHOW_LATENCY = "1")
  out <- utils::capture.output({
    source("tests/testthat/helper-child.R", local = TRUE)
    testthat::test_file("tests/testthat/test-sigint.R", reporter = "silent")
  })
  Sys.unsetenv("KERNCLASS_SHOW_LATENCY")
  at <- grep("^latency", out)
  latency_lines <- c("### Interrupt latency (seconds from SIGINT to the R handler; fastest of up to 3)", "",
                     "```", out[c(at - 1L, at, at + 1L)], "```", "")
}

# ---- 10. approximate classifiers past 10^5 rows ---------------------------
approx_lines <- NULL
if (run_section("approx")) {
  sizes_of <- function(flag, default) {
    if (flag %in% args) as.numeric(strsplit(args[which(args == flag) + 1L], ",")[[1]]) else default
  }
  fitters <- list(
    kernel_means = function(x, y, approx) kernel_means(x, y, approx = approx),
    kernel_parzen = function(x, y, approx) kernel_parzen(x, y, approx = approx),
    "kernel_bayes (type 1)" = function(x, y, approx) kernel_bayes(x, y, type = 1, approx = approx),
    kernel_svm = function(x, y, approx) kernel_svm(x, y, approx = approx))
  te <- make_data(size(1e5, 2e4), 20, 2)
  specs <- list("random_fourier(m = 300)" = random_fourier(m = 300), "nystrom(m = 200)" = nystrom(m = 200),
                "cells(size = 2000)" = cells(size = 2000))
  # cells() is kernel_svm's alone
  applies <- function(spec, f) spec$method != "cells" || f == "kernel_svm"
  pick <- function(flag, all) {  # by name, or by the name before its "("
    if (!flag %in% args) return(all)
    want <- strsplit(args[which(args == flag) + 1L], ",")[[1]]
    all[names(all) %in% want | trimws(sub("\\(.*", "", names(all))) %in% want]
  }
  specs <- pick("--approx-specs", specs)
  fitters <- pick("--approx-fitters", fitters)
  rows_a <- list()
  for (n in setdiff(sizes_of("--approx-n", size(c(1e5, 1e6), c(2e4, 1e5))), 0)) {
    tr <- make_data(n, 20, 1)
    for (sp in names(specs)) for (f in names(fitters)) {
      if (!applies(specs[[sp]], f)) next
      set.seed(1)
      m <- measure({
        fit <- fitters[[f]](tr$x, tr$y, specs[[sp]])
        list(fit = fit, pred = predict(fit, te$x))
      })
      acc <- mean(m$value$pred == te$y)
      cat(sprintf("%-48s %-20s %8.1f s %6.0f MB acc %.4f\n", sprintf("%s, n=%.0f", f, n), sp,
                  m$seconds, m$peak_mb, acc))
      rows_a[[length(rows_a) + 1L]] <- data.frame(
        classifier = f, n = format(n, big.mark = ",", scientific = FALSE), approx = sp,
        "fit + predict s" = sprintf("%.1f", m$seconds), "peak MB" = sprintf("%.0f", m$peak_mb),
        "test accuracy" = sprintf("%.4f", acc),
        "kernel rel. error" = if (specs[[sp]]$method == "cells") "" else
          sprintf("%.3f", m$value$fit$approx$error[["rel_frobenius"]]),
        check.names = FALSE)
      rm(m)
    }
    # the peer: scikit-learn's features of the same kind and size + LinearSVC
    for (sp in names(specs)) if ("kernel_svm" %in% names(fitters)) {
      spec <- specs[[sp]]
      sk <- sklearn_approx(tr, te, if (spec$method == "nystrom") "nystroem" else "rbf", spec$m,
                           cost = 1, gamma = 1 / ncol(tr$x))
      if (is.null(sk)) next
      peer <- sprintf("%s(n_components = %d) + LinearSVC",
                      if (spec$method == "nystrom") "Nystroem" else "RBFSampler", spec$m)
      cat(sprintf("%-48s %-20s %8.1f s acc %.4f\n", sprintf("scikit-learn, n=%.0f", n), peer,
                  sk$seconds, sk$accuracy))
      rows_a[[length(rows_a) + 1L]] <- data.frame(
        classifier = "scikit-learn (peer of kernel_svm)",
        n = format(n, big.mark = ",", scientific = FALSE), approx = peer,
        "fit + predict s" = sprintf("%.1f", sk$seconds), "peak MB" = "",
        "test accuracy" = sprintf("%.4f", sk$accuracy), "kernel rel. error" = "",
        check.names = FALSE)
    }
  }
  # accuracy against the exact models where those are feasible
  ne <- sizes_of("--exact-n", size(20000, 5000))
  rows_e <- list()
  if (ne > 0) {
    tr <- make_data(ne, 20, 3)
    te2 <- make_data(10000, 20, 4)
    grid <- list("random_fourier(m = 300)" = random_fourier(m = 300), "random_fourier(m = 1500)" = random_fourier(m = 1500),
                 "nystrom(m = 100)" = nystrom(m = 100), "nystrom(m = 400)" = nystrom(m = 400),
                 "nystrom(m = 1000)" = nystrom(m = 1000), "cells(size = 500)" = cells(size = 500),
                 "cells(size = 2000)" = cells(size = 2000), "cells(size = 5000)" = cells(size = 5000))
    for (f in names(fitters)) {
      set.seed(1)
      ex <- measure(mean(predict(fitters[[f]](tr$x, tr$y, NULL), te2$x) == te2$y))
      row <- list(classifier = f, exact = sprintf("%.4f (%.0f s)", ex$value, ex$seconds))
      for (g in names(grid)) {
        row[[g]] <- ""
        if (!applies(grid[[g]], f)) next
        set.seed(1)
        ap <- measure(mean(predict(fitters[[f]](tr$x, tr$y, grid[[g]]), te2$x) == te2$y))
        row[[g]] <- sprintf("%+.4f (%.0f s)", ap$value - ex$value, ap$seconds)
        cat(sprintf("%-48s %-20s %.4f vs exact %.4f\n", sprintf("%s, n=%d", f, ne), g, ap$value,
                    ex$value))
      }
      rows_e[[length(rows_e) + 1L]] <- as.data.frame(row, check.names = FALSE)
    }
  }
  # MNIST-shaped data (--approx-digits n, 0: none; default 20,000, quick
  # 5,000): 28 x 28 inputs in [0, 1], 10 classes, each a mixture of 4 smooth
  # prototypes blended with another class's, 30 shared deformations, pixel
  # noise, 1% of labels redrawn; 4,000 test rows. kernel_svm with nystrom()
  # at cost 10 (Falkon's setting), the median heuristic's gamma, unscaled,
  # against the exact SVM where --approx-digits-exact is given.
  make_digits <- function(n, seed, side = 28L, classes = 10L) {
    set.seed(seed)
    d <- side * side
    at <- expand.grid(r = seq_len(side), c = seq_len(side))
    blob <- function() {
      v <- numeric(d)
      for (s in 1:3) {
        cr <- stats::runif(2, 7, 22)
        sd <- stats::runif(1, 1.5, 3.5)
        v <- v + exp(-((at$r - cr[1])^2 + (at$c - cr[2])^2) / (2 * sd^2))
      }
      pmin(v, 1)
    }
    protos <- lapply(seq_len(classes), function(k) lapply(1:4, function(j) blob()))
    shared <- matrix(stats::rnorm(d * 30), d, 30) / sqrt(d) * 4
    y <- sample.int(classes, n, replace = TRUE)
    x <- matrix(0, n, d)
    for (i in seq_len(n)) {
      t <- stats::rbeta(1, 1, 3) * 0.9
      p <- (1 - t) * protos[[y[i]]][[sample.int(4, 1)]] +
        t * protos[[sample.int(classes, 1)]][[sample.int(4, 1)]]
      x[i, ] <- p + shared %*% stats::rnorm(30, sd = 0.5) + stats::rnorm(d, sd = 0.05)
    }
    flip <- stats::runif(n) < 0.01
    y[flip] <- sample.int(classes, sum(flip), replace = TRUE)
    list(x = pmin(pmax(x, 0), 1), y = factor(y - 1L))
  }
  rows_g <- list()
  for (ng in setdiff(sizes_of("--approx-digits", size(20000, 5000)), 0)) {
    all <- make_digits(ng + 4000, 11)
    trg <- list(x = all$x[seq_len(ng), ], y = all$y[seq_len(ng)])
    teg <- list(x = all$x[-seq_len(ng), ], y = all$y[-seq_len(ng)])
    gd <- estimate_gamma(trg$x, scale = FALSE)
    digit_fit <- function(approx) {
      set.seed(1)
      measure({
        fit <- kernel_svm(trg$x, trg$y, cost = 10, gamma = gd, scale = FALSE, approx = approx)
        mean(predict(fit, teg$x) == teg$y)
      })
    }
    models <- list("nystrom(m = 500)" = nystrom(m = 500), "nystrom(m = 1000)" = nystrom(m = 1000),
                   "nystrom(m = 2000)" = nystrom(m = 2000))
    if ("--approx-digits-exact" %in% args) models <- c(list(exact = NULL), models)
    for (g in names(models)) {
      m <- digit_fit(models[[g]])
      cat(sprintf("%-48s %-20s %8.1f s acc %.4f\n", sprintf("digits, n=%d", ng), g, m$seconds,
                  m$value))
      rows_g[[length(rows_g) + 1L]] <- data.frame(
        n = format(ng, big.mark = ","), model = g, "fit + predict s" = sprintf("%.1f", m$seconds),
        "CPU s" = sprintf("%.1f", m$cpu), "test accuracy" = sprintf("%.4f", m$value),
        load = if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
               else "?", check.names = FALSE)
    }
  }
  # issue 35's Nystrom target (--approx-target n, 0: none; default 60,000,
  # quick 10,000): kernel_svm(kernel = "radial", gamma = 1/784, cost = 10,
  # approx = nystrom(m = 2000)) on MNIST-shaped rows (make_digits, unscaled;
  # 10,000 test rows), on --approx-target-threads (default: the default and
  # 1), against the exact SVM where --approx-target-exact is given.
  rows_target <- list()
  for (n_target in setdiff(sizes_of("--approx-target", size(60000, 10000)), 0)) {
    all <- make_digits(n_target + 10000, 12)
    trt <- list(x = all$x[seq_len(n_target), ], y = all$y[seq_len(n_target)])
    tet <- list(x = all$x[-seq_len(n_target), ], y = all$y[-seq_len(n_target)])
    threads_t <- sizes_of("--approx-target-threads", unique(c(default_threads(), 1)))
    target_fit <- function(approx, threads) {
      old <- options(kernclass.threads = threads)
      on.exit(options(old))
      set.seed(1)
      measure({
        fit <- kernel_svm(trt$x, trt$y, kernel = "radial", gamma = 1 / 784, cost = 10,
                          scale = FALSE, approx = approx)
        mean(predict(fit, tet$x) == tet$y)
      })
    }
    runs <- lapply(threads_t, function(th) list(model = "nystrom(m = 2000)", threads = th,
                                                approx = nystrom(m = 2000)))
    if ("--approx-target-exact" %in% args) {
      runs <- c(list(list(model = "exact", threads = threads_t[1], approx = NULL)), runs)
    }
    exact_acc <- NA
    for (run in runs) {
      m <- target_fit(run$approx, run$threads)
      if (run$model == "exact") exact_acc <- m$value
      cat(sprintf("%-48s %-20s %2d threads %8.1f s (CPU %.1f s, load %s) acc %.4f\n",
                  sprintf("target, n=%d", n_target), run$model, run$threads, m$seconds, m$cpu,
                  strsplit(readLines("/proc/loadavg"), " ")[[1]][1], m$value))
      rows_target[[length(rows_target) + 1L]] <- data.frame(
        n = format(n_target, big.mark = ","), model = run$model, threads = run$threads,
        "fit + predict s" = sprintf("%.1f", m$seconds), "CPU s" = sprintf("%.1f", m$cpu),
        "test accuracy" = sprintf("%.4f", m$value),
        "vs exact (points)" = if (is.na(exact_acc)) "" else sprintf("%+.2f", 100 * (m$value - exact_acc)),
        load = if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
               else "?", check.names = FALSE)
    }
    # the peer where --approx-target-sklearn is given (slow: minutes at
    # 10,000 rows): scikit-learn's Nystroem of the same size + LinearSVC (one
    # against the rest, hinge loss, cost 10), on the same unscaled rows
    sk <- if ("--approx-target-sklearn" %in% args) {
      sklearn_approx(trt, tet, "nystroem", 2000, cost = 10, gamma = 1 / 784, scale = FALSE)
    }
    if (!is.null(sk)) {
      cat(sprintf("%-48s %-20s %8.1f s acc %.4f\n", sprintf("target, n=%d", n_target),
                  "scikit-learn", sk$seconds, sk$accuracy))
      rows_target[[length(rows_target) + 1L]] <- data.frame(
        n = format(n_target, big.mark = ","),
        model = "scikit-learn Nystroem(n_components = 2000) + LinearSVC", threads = NA,
        "fit + predict s" = sprintf("%.1f", sk$seconds), "CPU s" = "",
        "test accuracy" = sprintf("%.4f", sk$accuracy),
        "vs exact (points)" = if (is.na(exact_acc)) "" else
          sprintf("%+.2f", 100 * (sk$accuracy - exact_acc)),
        load = if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
               else "?", check.names = FALSE)
    }
  }
  # real data where the exact models are feasible (50,000-60,000 rows): each
  # set split at random into 10,000 test rows and the rest for training
  real_sets <- list(
    "mlbench::Shuttle" = function() {
      if (!requireNamespace("mlbench", quietly = TRUE)) return(NULL)
      e <- new.env()
      utils::data("Shuttle", package = "mlbench", envir = e)
      list(x = as.matrix(e$Shuttle[, 1:9]), y = e$Shuttle$Class,
           about = "58,000 rows, 9 numeric inputs, 7 classes (80% Rad.Flow)")
    },
    "ggplot2::diamonds" = function() {
      if (!requireNamespace("ggplot2", quietly = TRUE)) return(NULL)
      d <- as.data.frame(ggplot2::diamonds)
      list(x = cbind(carat = d$carat, color = as.integer(d$color),
                     clarity = as.integer(d$clarity), depth = d$depth, table = d$table,
                     log_price = log(d$price), x = d$x, y = d$y, z = d$z),
           y = factor(d$cut, ordered = FALSE),
           about = paste("53,940 rows, `cut` (5 classes) from the other 9 columns (color and",
                         "clarity as their level numbers, log price)"))
    })
  real_sets <- pick("--approx-real", real_sets)
  if ("--approx-real" %in% args && identical(args[which(args == "--approx-real") + 1L], "0")) {
    real_sets <- list()
  }
  real_grid <- list("nystrom(m = 200)" = nystrom(m = 200), "nystrom(m = 1000)" = nystrom(m = 1000),
                    "cells(size = 500)" = cells(size = 500), "cells(size = 2000)" = cells(size = 2000),
                    "cells(size = 5000)" = cells(size = 5000))
  real_fitters <- pick("--approx-real-fitters", fitters)
  rows_r <- list()
  about_r <- character()
  for (set in names(real_sets)) {
    r <- real_sets[[set]]()
    if (is.null(r)) next
    set.seed(1)
    test <- sample.int(nrow(r$x), 10000)
    xtr <- r$x[-test, , drop = FALSE]
    ytr <- droplevels(r$y[-test])
    xte <- r$x[test, , drop = FALSE]
    yte <- factor(r$y[test], levels(ytr))
    about_r <- c(about_r, sprintf("%s: %s; %d training rows.", set, r$about, nrow(xtr)))
    for (f in names(real_fitters)) {
      set.seed(1)
      ex <- measure(mean(predict(real_fitters[[f]](xtr, ytr, NULL), xte) == yte))
      row <- list(data = set, classifier = f, exact = sprintf("%.4f (%.0f s)", ex$value, ex$seconds))
      cat(sprintf("%-48s %-20s %.4f %6.1f s\n", paste(set, f), "exact", ex$value, ex$seconds))
      for (g in names(real_grid)) {
        row[[g]] <- ""
        if (!applies(real_grid[[g]], f)) next
        set.seed(1)
        ap <- measure(mean(predict(real_fitters[[f]](xtr, ytr, real_grid[[g]]), xte) == yte))
        row[[g]] <- sprintf("%+.4f (%.0f s)", ap$value - ex$value, ap$seconds)
        cat(sprintf("%-48s %-20s %.4f %6.1f s\n", paste(set, f), g, ap$value, ap$seconds))
      }
      rows_r[[length(rows_r) + 1L]] <- as.data.frame(row, check.names = FALSE)
    }
  }
  # tuned cells (issue 35): kernel_svm(approx = cells(size, grid, folds)), every
  # cell choosing cost and gamma by its own cross-validation, against the exact
  # SVM tuned by kernel_tune() on the first --cells-tune-sub rows (the
  # baseline every approximation must beat), the same G x G grid, folds and
  # search (the race); --cells-tune-n rows (0: none), --cells-tune-grid G
  # (costs 2^-3 to 2^9, gammas 2^-6 to 2^3 times the median heuristic of the
  # training rows), --cells-tune-size, --cells-tune-folds;
  # --cells-tune-default adds cells(tune = TRUE), each cell's own 10 x 10
  # default grid; --cells-tune-models sub,cells (the default: both) runs the
  # subsample's search or the cells alone (the two halves of a long run in
  # separate processes). The cells' model is the default, blend = "auto"
  # (its chosen K and the candidates' out-of-fold accuracies beside it); its
  # row also gives the same fit's accuracy predicting from each row's own
  # cell and from the 5 and 10 nearest blended (cells(blend =), untimed).
  # --cells-tune-sphere adds a second problem with room beyond a linear rule
  # (make_sphere(): its Bayes and linear-rule accuracies in the notes);
  # --cells-tune-local one whose rule differs from region to region, which a
  # global model on a subsample learns from few rows per region and the cells
  # from many (make_local(), liquidSVM's case: large heterogeneous data). The
  # full target: --cells-tune-n 1000000 --cells-tune-grid 10.
  one_of <- function(flag, default) {
    if (flag %in% args) as.numeric(args[which(args == flag) + 1L]) else default
  }
  rows_ct <- list()
  notes_ct <- NULL
  load_1m <- function() strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
  # two classes in d = 20 whose rule a line cannot follow: sign(f + noise),
  # f = (|x|^2 - 20) / sqrt(40) + 0.5 x_1 (a tilted sphere), noise sd 0.5
  make_sphere <- function(n, seed) {
    set.seed(seed)
    x <- matrix(rnorm(n * 20), n)
    f <- (rowSums(x^2) - 20) / sqrt(40) + 0.5 * x[, 1]
    list(x = x, y = factor(ifelse(f + rnorm(n, sd = 0.5) > 0, "a", "b")), f = f)
  }
  # two classes in d = 20 whose rule differs from region to region: 150
  # clusters, centres drawn once (seed 35) with sd 4 per coordinate, rows
  # around them with sd 1, each cluster its own linear rule through its centre:
  # sign(f + noise), f = u_c . (x - centre_c) for a random unit vector u_c,
  # noise sd 0.5 (classes balanced within each cluster). Row i is drawn from
  # its own row of random numbers, so the first rows are the same at every n
  make_local <- function(n, seed) {
    set.seed(35)
    k <- 150
    centres <- matrix(rnorm(k * 20, sd = 4), k)
    u <- matrix(rnorm(k * 20), k)
    u <- u / sqrt(rowSums(u^2))
    set.seed(seed)
    r <- matrix(rnorm(n * 22), n, byrow = TRUE)
    cl <- pmin(floor(pnorm(r[, 22]) * k), k - 1) + 1
    x <- centres[cl, ] + r[, 1:20]
    f <- rowSums(r[, 1:20] * u[cl, ])
    list(x = x, y = factor(ifelse(f + 0.5 * r[, 21] > 0, "a", "b")), f = f)
  }
  nt <- one_of("--cells-tune-n", size(1e6, 2e4))
  # --cells-tune-only data,sphere,local: those problems alone (default: make_data(),
  # and make_sphere() and make_local() where --cells-tune-sphere and --cells-tune-local ask)
  gens_t <- list(data = function(n, seed) make_data(n, 20, seed), sphere = make_sphere,
                 local = make_local)
  keys_t <- if ("--cells-tune-only" %in% args) {
    strsplit(args[which(args == "--cells-tune-only") + 1L], ",")[[1]]
  } else c("data", if ("--cells-tune-sphere" %in% args) "sphere",
           if ("--cells-tune-local" %in% args) "local")
  if (!all(keys_t %in% names(gens_t))) {
    stop("--cells-tune-only takes a comma-separated subset of ", toString(names(gens_t)))
  }
  sets_t <- stats::setNames(gens_t[keys_t], sprintf("make_%s()", keys_t))
  about_t <- list("make_sphere()" = paste(
    "make_sphere(): sign(f + noise), f = (|x|^2 - 20) / sqrt(40) + 0.5 x_1, x standard normal",
    "in d = 20, noise sd 0.5."),
    "make_local()" = paste(
    "make_local(): 150 clusters in d = 20 (centres drawn once with sd 4 per coordinate, rows",
    "around them with sd 1), each with its own linear rule through its centre: sign(f + noise),",
    "f = u_c . (x - centre_c) for a random unit vector u_c, noise sd 0.5; the first 20,000 rows",
    "are the same at every n."))
  for (set in names(sets_t)[rep(nt > 0, length(sets_t))]) {
    G <- one_of("--cells-tune-grid", size(10, 3))
    nsub <- min(nt, one_of("--cells-tune-sub", size(20000, 5000)))
    csize <- one_of("--cells-tune-size", 2000)
    cfolds <- one_of("--cells-tune-folds", 5)
    tr <- sets_t[[set]](nt, 5)
    te3 <- sets_t[[set]](size(1e5, 2e4), 6)
    if (!is.null(te3$f)) {
      # the Bayes rule sign(f) is right with probability pnorm(|f| / sd); the
      # best linear rule: a logistic regression on the first 10^5 rows
      lin <- seq_len(min(nt, 1e5))
      lr <- stats::glm(tr$y[lin] ~ tr$x[lin, ], family = stats::binomial())
      right <- (drop(cbind(1, te3$x) %*% stats::coef(lr)) > 0) == (te3$y == "b")
      notes_ct <- c(notes_ct, about_t[[set]],
                    sprintf(paste0("%s: Bayes accuracy %.4f, a linear rule (logistic ",
                                   "regression on %s rows) %.4f."), set,
                                      mean(pnorm(abs(te3$f) / 0.5)),
                                      format(length(lin), big.mark = ","), mean(right)))
    }
    g0 <- estimate_gamma(tr$x[seq_len(min(nt, 10000)), ], scale = TRUE)
    tgrid <- list(cost = signif(2^seq(-3, 9, length.out = G), 3),
                  gamma = signif(g0 * 2^seq(-6, 3, length.out = G), 3))
    # the 3 most frequent choices, and how many chose each edge of the grid
    # (as print() reports it: the best values may lie beyond the grid)
    chosen <- function(cost, gamma) {
      tab <- sort(table(sprintf("(%s, %s)", format(cost), format(gamma))), decreasing = TRUE)
      edge <- mapply(function(cost, gamma) {
        kernclass:::kc_grid_edge(tgrid, list(cost = cost, gamma = gamma))
      }, cost[!is.na(cost)], gamma[!is.na(cost)])
      edge <- table(unlist(strsplit(edge, ", ", fixed = TRUE)))
      paste0(paste(sprintf("%s x %d", names(tab), tab)[seq_len(min(3L, length(tab)))],
                   collapse = "; "),
             if (length(edge)) sprintf("; on the grid's edge: %s",
                                       paste(sprintf("%s %d", names(edge), edge), collapse = ", ")))
    }
    trow <- function(model, grid_text, m, chose) {
      v <- m$value
      others <- if (is.null(v$acc_own)) "" else
        sprintf("%.4f / %.4f / %.4f", v$acc_own, v$acc_blend5, v$acc_blend10)
      auto <- if (is.null(v$blend)) "" else
        sprintf("%d (%s)", v$blend$K, paste(sprintf("%d: %.4f", v$blend$candidates$K,
                                                    v$blend$candidates$accuracy), collapse = ", "))
      cat(sprintf("%-48s %-34s %8.1f s (cpu %.1f s) %6.0f MB acc %.4f K %s (own/5/10: %s) load %s\n",
                  sprintf("tuned, n=%.0f, %s", nt, set), model, m$seconds, m$cpu, m$peak_mb,
                  v$acc, auto, others, load_1m()))
      rows_ct[[length(rows_ct) + 1L]] <<- data.frame(
        data = set, model = model, grid = grid_text,
        "fit + predict s" = sprintf("%.1f", m$seconds), "cpu s" = sprintf("%.1f", m$cpu),
        "peak MB" = sprintf("%.0f", m$peak_mb), "test accuracy" = sprintf("%.4f", v$acc),
        "auto: K (out-of-fold acc.)" = auto, "own cell / blended 5 / 10" = others,
        "chosen (cost, gamma)" = chose, load = load_1m(), check.names = FALSE)
    }
    gtext <- sprintf("%d x %d, %d-fold, race", G, G, cfolds)
    which_t <- if ("--cells-tune-models" %in% args) {
      strsplit(args[which(args == "--cells-tune-models") + 1L], ",")[[1]]
    } else c("sub", "cells")
    if ("sub" %in% which_t) {
      set.seed(1)
      m <- measure({
        tuned <- kernel_tune(kernel_svm, tr$x[seq_len(nsub), ], tr$y[seq_len(nsub)], grid = tgrid,
                             folds = cfolds)
        list(best = tuned$best, acc = mean(predict(tuned$model, te3$x) == te3$y))
      })
      trow(sprintf("exact SVM on the first %s rows, kernel_tune()", format(nsub, big.mark = ",")),
           gtext, m, chosen(m$value$best$cost, m$value$best$gamma))
    }
    specs_t <- list(cells(size = csize, grid = tgrid, folds = cfolds))
    names(specs_t) <- sprintf("cells(size = %d, grid =, folds = %d)", csize, cfolds)
    if ("--cells-tune-default" %in% args) {
      specs_t[[sprintf("cells(size = %d, tune = TRUE)", csize)]] <- cells(size = csize, tune = TRUE,
                                                                           folds = cfolds)
    }
    for (sp in names(specs_t)[rep("cells" %in% which_t, length(specs_t))]) {
      set.seed(1)
      m <- measure({
        fit <- kernel_svm(tr$x, tr$y, approx = specs_t[[sp]])
        list(cells = summary(fit)$tuning, acc = mean(predict(fit, te3$x) == te3$y),
             blend = fit$approx$blend)
      })
      tab <- m$value$cells
      # the same cells, predicting from each row's own cell and the nearest 5
      # and 10 blended (untimed)
      for (b in c(1L, 5L, 10L)) {
        fit$approx$spec$blend <- b
        m$value[[if (b == 1L) "acc_own" else sprintf("acc_blend%d", b)]] <-
          mean(predict(fit, te3$x) == te3$y)
      }
      trow(sprintf("%s, %d cells", sp, nrow(tab)),
           if (is.null(specs_t[[sp]]$tune$grid)) "each cell's default 10 x 10, race" else gtext,
           m, chosen(tab$cost, tab$gamma))
    }
    rm(tr)
  }
  approx_lines <- c(
    paste("### Approximate classifiers (approx = random_fourier(), nystrom() or, for",
          "kernel_svm, cells(); RBF, gamma = 1/d, cost = 1, scale = TRUE)"), "",
    if (length(rows_a)) knitr::kable(do.call(rbind, rows_a), format = "pipe"), "",
    paste0("Synthetic data (make_data(): a linear rule plus 0.5 sin(3 x_1), label noise sd 0.5), ",
           "d = 20; the time fits the model and predicts ", format(nrow(te$x), big.mark = ","),
           " test rows. Peak MB: rise of the resident set. Kernel rel. error: the relative ",
           "Frobenius error of the approximate kernel on 1000 random training pairs, as the ",
           "model reports it. scikit-learn (where installed): its Nystroem (uniform landmarks) or ",
           "RBFSampler features of the same size, gamma and scaled data, then LinearSVC(C = 1, ",
           "loss = \"hinge\"); seconds as Python measures them, peak memory not measured."), "",
    if (length(rows_e)) c(knitr::kable(do.call(rbind, rows_e), format = "pipe"), "",
      sprintf(paste0("Test accuracy of the exact models at n = %d (10,000 test rows) and the ",
                     "difference of each approximation to it, with the seconds of fit + predict."),
              ne), ""),
    if (length(rows_g)) c(knitr::kable(do.call(rbind, rows_g), format = "pipe"), "",
      paste("MNIST-shaped synthetic data (28 x 28 inputs in [0, 1], 10 classes: smooth prototypes",
            "blended with other classes', shared deformations, pixel noise, 1% labels redrawn;",
            "4,000 test rows): kernel_svm(cost = 10, gamma = the median heuristic, scale = FALSE)",
            "with nystrom() (k-means++ landmarks), fit + predict."), ""),
    if (length(rows_target)) c(knitr::kable(do.call(rbind, rows_target), format = "pipe"), "",
      paste("Issue 35's Nystrom target (under 30 s on 2 cores, within 0.5 points of the exact",
            "SVM): kernel_svm(kernel = \"radial\", gamma = 1/784, cost = 10, scale = FALSE,",
            "approx = nystrom(m = 2000)) on MNIST-shaped rows (as above, 10,000 test rows),",
            "fit + predict; load: the 1-minute load average after the run. scikit-learn (where",
            "installed): Nystroem(n_components = 2000, uniform landmarks) of the same gamma and",
            "rows, then LinearSVC(C = 10, hinge loss, one class against the rest), seconds as",
            "Python measures them (Nystroem's products on the BLAS numpy links to)."), ""),
    if (length(rows_r)) c(
      "Real data:", "", knitr::kable(do.call(rbind, rows_r), format = "pipe"), "",
      paste("Test accuracy of the exact models on 10,000 random test rows of each set, and the",
            "difference of each approximation to it (the same kernel, gamma = 1/d and cost;",
            "cells() gives a cell of n_c of the n rows cost x n / n_c, the same regularisation",
            "per row),",
            "with the seconds of fit + predict.", paste(about_r, collapse = " ")), ""),
    if (length(rows_ct)) c(
      sprintf("Tuned cells, n = %s, d = 20, %s test rows:",
              format(nt, big.mark = ",", scientific = FALSE),
              format(nrow(te3$x), big.mark = ",")), "",
      knitr::kable(do.call(rbind, rows_ct), format = "pipe"), "",
      paste("Every cell chooses cost and gamma by kernel_tune()'s search on its rows (the",
            "folds, the grid, the race); the baseline is kernel_tune() of the exact SVM on a",
            "subsample with the same grid. Seconds: the search, the fit(s) and predicting the",
            "test rows (cpu: the process's CPU time, all its threads); chosen: the most",
            "frequent choices (x cells) and how many chose the grid's smallest or largest",
            "value (the best values may lie beyond it). The cells predict as blend = \"auto\" (the default)",
            "chose: K of 1, 3, 5, 10 nearest cells by the out-of-fold accuracy of the blended",
            "predictions on up to 20,000 training rows (in brackets); own cell / blended 5 / 10: the",
            "same cells with blend = 1, 5, 10.", notes_ct), ""))
}

# ---- the table ----------------------------------------------------------
cpu <- grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1]
header <- c(
  sprintf("kernclass %s (engine: %s), e1071 %s, kernlab %s, %s", packageVersion("kernclass"),
          kernclass:::kc_engine(), packageVersion("e1071"), packageVersion("kernlab"),
          R.version.string),
  sprintf("%s, %d cores, %.0f GB; %s; %s", sub("^model name\\s*:\\s*", "", cpu),
          parallel::detectCores(), as.numeric(gsub("[^0-9]", "", readLines("/proc/meminfo")[1])) / 2^20, format(Sys.time(), "%Y-%m-%d"),
          if (quick) "--quick sizes" else "full sizes"),
  sprintf("default threads: %d; scikit-learn: %s", default_threads(),
          if (nzchar(python)) system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")),
                                      stdout = TRUE) else "not found"))
main_lines <- NULL
if (length(rows)) {
tab <- do.call(rbind, rows)
first <- tab$seconds[match(tab$task, tab$task)]
num <- function(x, fmt) ifelse(is.na(x), "", sprintf(fmt, x))
fmt <- data.frame(task = tab$task, implementation = tab$implementation,
                  seconds = sprintf("%.3f", tab$seconds),
                  "x kernclass" = sprintf("%.1f", tab$seconds / first),
                  "GFLOP/s" = num(tab$gflops, "%.1f"), accuracy = num(tab$accuracy, "%.4f"),
                  SVs = num(tab$svs, "%.0f"), objective = num(tab$objective, "%.3f"),
                  "peak MB" = num(tab$peak_mb, "%.0f"), note = tab$note, check.names = FALSE)
main_lines <- c(knitr::kable(fmt, format = "pipe", align = "llrrrrrrrl"), "",
           "x kernclass: seconds divided by kernclass's seconds on the same task (higher is slower).",
           "Same data, kernel (RBF, gamma = 1/d), C = 1, tolerance 1e-3 and scale = FALSE for every",
           "SVM; each package at its default cache size. Objective: the dual 1/2 a'Qa - sum(a).",
           "Peak MB: rise of the resident set during the task.", "")
}
lines <- c(header, "", main_lines, contention_lines, scaling_lines, tune_lines, gammas_lines,
           workers_lines, latency_lines, approx_lines)
writeLines(lines)
writeLines(lines, out_file)
