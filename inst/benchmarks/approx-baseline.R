# Each approximation at its default settings (sizes "auto", chosen from n)
# against an exact fit of the same fitter on a subsample that takes the
# same time (issue 47: an approximation should beat what its time buys
# exactly). Data: n training rows, d = 20 standard normal inputs, gamma
# 1 / d, cost 1, 20,000 fresh test rows, two nonlinear two-class rules:
#   sinlin  a linear rule plus 0.5 sin(3 x1), noise sd 0.5 (run.R's make_data)
#   quad    x1 x2 + 0.3 sin(2 x3), noise sd 0.3
# For each approximation (the SVM on nystrom(), random_fourier(), cells();
# kernel_means() and kernel_parzen() on nystrom()) the fit is timed, then
# exact fits of the same fitter on subsamples of 2,500, 3,536, 5,000, ... (x sqrt(2))
# rows (drawn with R's RNG) until one takes longer than the approximation:
# the row "exact, same time" is the largest subsample that took no longer
# (its test accuracy and time). Fit time only, in CPU seconds of the
# process (its threads' sum: other programs on a shared machine change it
# less than the elapsed seconds, also shown); prediction is not counted.
#
#   Rscript inst/benchmarks/approx-baseline.R                 (n = 1e5: some minutes on 2 cores)
#   Rscript inst/benchmarks/approx-baseline.R --n 20000
#   Rscript inst/benchmarks/approx-baseline.R --n 1e6         (the issue's size; not run here)
#   Rscript inst/benchmarks/approx-baseline.R --rules quad --fits svm --approx cells
#   Rscript inst/benchmarks/approx-baseline.R --smoke         (seconds: n = 2,000)
#   Rscript inst/benchmarks/approx-baseline.R --help          (every flag, with its defaults)
# --lib LIB (or KERNCLASS_LIB=LIB) picks the library kernclass is loaded from.

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(if (length(script)) dirname(normalizePath(script[1])) else "inst/benchmarks",
                 "common.R"))
o <- bench_script(list(
  bench_flag("--n", "num", full = 1e5, quick = 20000, smoke = 2000, help = "training rows"),
  bench_flag("--test-n", "num", full = 20000, smoke = 1000, help = "fresh test rows"),
  bench_flag("--rules", "chr", full = c("sinlin", "quad"), smoke = "sinlin",
             help = "the labelling rules, of sinlin, quad"),
  bench_flag("--fits", "chr", full = c("svm", "means", "parzen"),
             help = "the fitters, of svm, means, parzen"),
  bench_flag("--approx", "chr", full = c("nystrom", "fourier", "cells"), smoke = "nystrom",
             help = "the approximations, of nystrom, fourier, cells")),
  usage = "Rscript inst/benchmarks/approx-baseline.R [flags]")
bench_load_kernclass(o$lib)
options(width = 200)
n <- o$n
rules <- o$rules
fits <- o$fits
only <- o$approx
d <- 20

# sinlin is common.R's make_data(); quad the same inputs with its own rule
make <- function(n, rule, seed) {
  if (rule == "sinlin") return(make_data(n, d, seed)[c("x", "y")])
  set.seed(seed)
  x <- matrix(rnorm(n * d), n)
  f <- x[, 1] * x[, 2] + 0.3 * sin(2 * x[, 3]) + rnorm(n, sd = 0.3)
  list(x = x, y = factor(ifelse(f > 0, "a", "b")))
}

fitters <- list(svm = kernel_svm, means = kernel_means, parzen = kernel_parzen)
approxes <- list(svm = list(nystrom = nystrom(), fourier = random_fourier(), cells = cells()),
                 means = list(nystrom = nystrom()), parzen = list(nystrom = nystrom()))

# CPU seconds of this process (all its threads), which other programs on a
# shared machine change less than the elapsed time, and the elapsed time
cpu <- function() sum(proc.time()[c("user.self", "sys.self")])
timed <- function(expr) {
  t <- c(cpu(), proc.time()[["elapsed"]])
  v <- expr
  list(value = v, seconds = cpu() - t[1L], elapsed = proc.time()[["elapsed"]] - t[2L])
}

rows <- list()
add_row <- function(rule, fitter, what, size, acc, t) {
  rows[[length(rows) + 1L]] <<- data.frame(rule = rule, fitter = fitter, model = what,
                                           rows = size, accuracy = round(acc, 4),
                                           cpu_s = round(t$seconds, 2),
                                           elapsed_s = round(t$elapsed, 2))
  print(rows[[length(rows)]], row.names = FALSE)
}

for (rule in rules) {
  tr <- make(n, rule, 1)
  te <- make(o$test_n, rule, 2)
  acc <- function(f) mean(predict(f, te$x) == te$y)
  for (fn in fits) {
    fun <- fitters[[fn]]
    for (an in intersect(names(approxes[[fn]]), only)) {
      set.seed(3)
      a <- timed(fun(tr$x, tr$y, gamma = 1 / d, approx = approxes[[fn]][[an]]))
      spec <- a$value$approx$spec
      add_row(rule, fn, sprintf("%s (auto: %s)", an, format(spec)), n, acc(a$value), a)
      best <- NULL
      for (k in unique(c(Filter(function(k) k < n, round(2500 * sqrt(2)^(0:40))), n))) {
        set.seed(4)
        i <- sample.int(n, k)
        e <- timed(fun(tr$x[i, ], tr$y[i], gamma = 1 / d))
        if (e$seconds > a$seconds && !is.null(best)) break
        best <- list(k = k, acc = acc(e$value), t = e)
        if (e$seconds > a$seconds) break  # even the smallest took longer
      }
      add_row(rule, fn, "exact, same time", best$k, best$acc, best$t)
    }
  }
}
cat("\n")
print(do.call(rbind, rows), row.names = FALSE)
