# Part of the approx section (sourced by bench-approx.R): MNIST-shaped
# rows, kernel_svm with nystrom(); and issue 35's Nystrom target.
digits_flags <- list(
  bench_flag("--approx-digits", "num", full = 20000, quick = 5000, smoke = 300,
             help = "n of the MNIST-shaped rows, nystrom(m = 500, 1000, 2000) at cost 10 (0: none)"),
  bench_flag("--approx-digits-exact", "flag", help = "the exact SVM beside them"),
  bench_flag("--approx-target", "num", full = 60000, quick = 10000, smoke = 500,
             help = "n of issue 35's nystrom(m = 2000) target (0: none)"),
  bench_flag("--approx-target-threads", "int", help = "its threads (default: the default and 1)"),
  bench_flag("--approx-target-exact", "flag", help = "the exact SVM beside the target"),
  bench_flag("--approx-target-sklearn", "flag",
             help = "scikit-learn's Nystroem + LinearSVC beside the target (slow)"))

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

# The MNIST-shaped rows' and the target's lines.
approx_digits <- function(o) {
  rows_g <- list()
  for (ng in setdiff(o$approx_digits, 0)) {
    all <- make_digits(ng + size(4000, 4000, 300), 11)
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
    if (o$approx_digits_exact) models <- c(list(exact = NULL), models)
    for (g in names(models)) {
      m <- digit_fit(models[[g]])
      cat(sprintf("%-48s %-20s %8.1f s acc %.4f\n", sprintf("digits, n=%d", ng), g, m$seconds,
                  m$value))
      rows_g[[length(rows_g) + 1L]] <- data.frame(
        n = format(ng, big.mark = ","), model = g, "fit + predict s" = sprintf("%.1f", m$seconds),
        "CPU s" = sprintf("%.1f", m$cpu), "test accuracy" = sprintf("%.4f", m$value),
        load = load_avg(), check.names = FALSE)
    }
  }
  # issue 35's Nystrom target (--approx-target n, 0: none; default 60,000,
  # quick 10,000): kernel_svm(kernel = "radial", gamma = 1/784, cost = 10,
  # approx = nystrom(m = 2000)) on MNIST-shaped rows (make_digits, unscaled;
  # 10,000 test rows), on --approx-target-threads (default: the default and
  # 1), against the exact SVM where --approx-target-exact is given.
  rows_target <- list()
  for (n_target in setdiff(o$approx_target, 0)) {
    all <- make_digits(n_target + size(10000, 10000, 500), 12)
    trt <- list(x = all$x[seq_len(n_target), ], y = all$y[seq_len(n_target)])
    tet <- list(x = all$x[-seq_len(n_target), ], y = all$y[-seq_len(n_target)])
    threads_t <- if (is.null(o$approx_target_threads)) unique(c(default_threads(), 1)) else
      o$approx_target_threads
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
    if (o$approx_target_exact) {
      runs <- c(list(list(model = "exact", threads = threads_t[1], approx = NULL)), runs)
    }
    exact_acc <- NA
    for (run in runs) {
      m <- target_fit(run$approx, run$threads)
      if (run$model == "exact") exact_acc <- m$value
      cat(sprintf("%-48s %-20s %2d threads %8.1f s (CPU %.1f s, load %s) acc %.4f\n",
                  sprintf("target, n=%d", n_target), run$model, run$threads, m$seconds, m$cpu,
                  load_avg(), m$value))
      rows_target[[length(rows_target) + 1L]] <- data.frame(
        n = format(n_target, big.mark = ","), model = run$model, threads = run$threads,
        "fit + predict s" = sprintf("%.1f", m$seconds), "CPU s" = sprintf("%.1f", m$cpu),
        "test accuracy" = sprintf("%.4f", m$value),
        "vs exact (points)" = if (is.na(exact_acc)) "" else sprintf("%+.2f", 100 * (m$value - exact_acc)),
        load = load_avg(), check.names = FALSE)
    }
    # the peer where --approx-target-sklearn is given (slow: minutes at
    # 10,000 rows): scikit-learn's Nystroem of the same size + LinearSVC (one
    # against the rest, hinge loss, cost 10), on the same unscaled rows
    sk <- if (o$approx_target_sklearn) {
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
        load = load_avg(), check.names = FALSE)
    }
  }
  c(if (length(rows_g)) c(knitr::kable(do.call(rbind, rows_g), format = "pipe"), "",
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
          "Python measures them (Nystroem's products on the BLAS numpy links to)."), ""))
}
