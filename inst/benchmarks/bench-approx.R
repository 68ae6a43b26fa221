# approx: the four classifiers with approx = random_fourier() and nystrom(),
# and kernel_svm with cells(), at 10^5 and 10^6 rows (fit, then predict
# 10^5 rows), and their test accuracy against the exact models at 20,000
# synthetic rows and on real data of 50,000-60,000 rows (mlbench's Shuttle,
# ggplot2's diamonds), over m and the cell size; MNIST-shaped rows and
# issue 35's target (bench-approx-digits.R); tuned cells against
# kernel_tune() of the exact SVM on a subsample (bench-approx-cells.R).
sys.source(file.path(bench_dir, "bench-approx-digits.R"), envir = environment())
sys.source(file.path(bench_dir, "bench-approx-cells.R"), envir = environment())
flags <- c(list(
  bench_flag("--approx-n", "num", full = c(1e5, 1e6), quick = c(2e4, 1e5), smoke = 2000,
             help = "n of the approximate fits (0: none)"),
  bench_flag("--exact-n", "num", full = 20000, quick = 5000, smoke = 1000,
             help = "n of the comparison with the exact models (0: none)"),
  bench_flag("--approx-specs", "chr", help = "a subset of the maps (default: all), e.g. nystrom"),
  bench_flag("--approx-fitters", "chr",
             help = "a subset of the classifiers (default: all), e.g. kernel_svm"),
  bench_flag("--approx-real", "chr", smoke = "0",
             help = "the real data sets (default: all), e.g. mlbench::Shuttle, or 0: none"),
  bench_flag("--approx-real-fitters", "chr",
             help = "their classifiers (default: those of --approx-fitters)")),
  digits_flags, cells_flags)

all_fitters <- list(
  kernel_means = function(x, y, approx) kernel_means(x, y, approx = approx),
  kernel_parzen = function(x, y, approx) kernel_parzen(x, y, approx = approx),
  "kernel_bayes (type 1)" = function(x, y, approx) kernel_bayes(x, y, type = 1, approx = approx),
  kernel_svm = function(x, y, approx) kernel_svm(x, y, approx = approx))
# cells() is kernel_svm's alone
applies <- function(spec, f) spec$method != "cells" || f == "kernel_svm"
# the elements of `all` named in `want` (all where NULL), by name or by the
# name before its "("
pick <- function(want, all) {
  if (is.null(want)) return(all)
  all[names(all) %in% want | trimws(sub("\\(.*", "", names(all))) %in% want]
}

run <- function(o) {
  te <- make_data(size(1e5, 2e4, 2000), 20, 2)
  specs <- list("random_fourier(m = 300)" = random_fourier(m = 300), "nystrom(m = 200)" = nystrom(m = 200),
                "cells(size = 2000)" = cells(size = 2000))
  specs <- pick(o$approx_specs, specs)
  fitters <- pick(o$approx_fitters, all_fitters)
  rows_a <- list()
  for (n in setdiff(o$approx_n, 0)) {
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
  ne <- o$exact_n[1L]
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
  digits_lines <- approx_digits(o)
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
  real_sets <- if (identical(o$approx_real, "0")) list() else pick(o$approx_real, real_sets)
  real_grid <- list("nystrom(m = 200)" = nystrom(m = 200), "nystrom(m = 1000)" = nystrom(m = 1000),
                    "cells(size = 500)" = cells(size = 500), "cells(size = 2000)" = cells(size = 2000),
                    "cells(size = 5000)" = cells(size = 5000))
  real_fitters <- pick(o$approx_real_fitters, fitters)
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
  cells_lines <- approx_cells(o)
  c(
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
    digits_lines,
    if (length(rows_r)) c(
      "Real data:", "", knitr::kable(do.call(rbind, rows_r), format = "pipe"), "",
      paste("Test accuracy of the exact models on 10,000 random test rows of each set, and the",
            "difference of each approximation to it (the same kernel, gamma = 1/d and cost;",
            "cells() gives a cell of n_c of the n rows cost x n / n_c, the same regularisation",
            "per row),",
            "with the seconds of fit + predict.", paste(about_r, collapse = " ")), ""),
    cells_lines)
}
