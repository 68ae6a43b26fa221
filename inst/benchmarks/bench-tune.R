# tune: kernel_tune() (raced, the default; screened; exhaustive) against
# e1071 on a 5 x 5 cost x gamma grid, 5-fold (e1071::tune.svm with its own
# folds, and e1071::svm over kernel_tune's folds: the same cells, so the
# same best cell; the race also on one thread; scikit-learn's
# GridSearchCV(SVC) on kernel_tune's folds), mlbench's Satellite (6
# classes) the same way, the default 10 x 10 grid screened against
# exhaustive, and kernel_tune()'s exact leave-one-out of kernel_means and
# kernel_parzen over 10 gammas. --tune-foreign: the default race on data
# the benchmark did not design, as a user would run it, beside tune.svm.
flags <- list(
  bench_flag("--tune-n", "int", full = c(2000, 5000), quick = c(1000, 2000), smoke = 200,
             help = "n of the 5 x 5 grid searches (0: none)"),
  bench_flag("--tune-default-n", "int", full = 5000, quick = 1000, smoke = 200,
             help = "n of the default-grid searches (0: none)"),
  bench_flag("--loo-n", "int", full = 10000, quick = 3000, smoke = 300,
             help = "n of leave-one-out (0: none)"),
  bench_flag("--tune-reps", "int", full = 1,
             help = "kernel_tune's times the median of this many runs"),
  bench_flag("--tune-threads", "int",
             help = "the sequential searches' threads (default: all)"),
  bench_flag("--tune-real", "chr", full = "Satellite",
             help = "the real-data rows: Satellite or 0 (none)"),
  bench_flag("--tune-foreign", "chr", full = c("radial", "Satellite"), smoke = "radial",
             help = paste("the default race on data not designed here, beside tune.svm:",
                          "radial (the README-shaped problem), Satellite, or 0 (none)")),
  bench_flag("--tune-foreign-svm", "num",
             help = paste("tune.svm's seconds on the --tune-foreign problems, in their order,",
                          "measured earlier on this machine: tune.svm is then not run here",
                          "(its time is the same for every build of kernclass); 0: run it")))

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

# The README-shaped problem: n rows of d standard normal inputs, two
# classes by a radial rule in the first two (x1^2 + x2^2 above its median),
# the other d - 2 inputs pure noise.
radial_data <- function(n, d, seed) {
  set.seed(seed)
  x <- matrix(rnorm(n * d), n)
  r2 <- x[, 1]^2 + x[, 2]^2
  list(x = x, y = factor(ifelse(r2 > 1.386294, "out", "in")))  # qchisq(0.5, 2): the median
}

# The default race (kernel_tune() with only a grid) on data the benchmark
# did not choose, as a user would run it, beside e1071::tune.svm with the
# same grid and folds count, in this process: the race on one thread and on
# two, each before and after tune.svm (median of the runs), and the
# returned models' accuracy on fresh rows. radial: radial_data(2000, 20),
# 5 x 5 grid cost 0.1-100 x gamma 0.001-1 (log spaced), scale = FALSE;
# Satellite: mlbench's first 4,435 rows (the last 2,000 the fresh data),
# this file's 5 x 5 grid, scale = TRUE.
# svm_s: tune.svm's seconds measured earlier (then it is not run: A/B runs
# of kernclass builds time only kernclass), NA: run it here.
foreign_rows <- function(what, reps, svm_s = NA) {
  if (what == "radial") {
    tr <- radial_data(size(2000, 2000, 300), 20, 11)
    te <- radial_data(10000, 20, 12)
    g <- list(cost = 10^seq(-1, 2, length.out = 5), gamma = 10^seq(-3, 0, length.out = 5))
    scale <- FALSE
    task <- sprintf("radial rule in 2 of 20 inputs, n=%d, 5 x 5 cost 0.1-100 x gamma 0.001-1, scale = FALSE",
                    length(tr$y))
  } else if (what == "Satellite" && requireNamespace("mlbench", quietly = TRUE)) {
    e <- new.env()
    utils::data("Satellite", package = "mlbench", envir = e)
    xs <- as.matrix(e$Satellite[, names(e$Satellite) != "classes"])
    ys <- droplevels(e$Satellite$classes)
    train <- round(seq(1, 4435, length.out = size(4435, 4435, 600)))
    tr <- list(x = xs[train, ], y = ys[train])
    te <- list(x = xs[-seq_len(4435), ], y = ys[-seq_len(4435)])
    g <- grid
    scale <- TRUE
    task <- sprintf("Satellite %d x 36, 6 classes, 5 x 5 grid (this file's), scale = TRUE",
                    length(tr$y))
  } else {
    return(NULL)
  }
  race <- function(threads) {
    old <- options(kernclass.threads = threads)
    on.exit(options(old))
    runs <- lapply(seq_len(reps), function(i) measure({
      set.seed(1)
      kernel_tune(kernel_svm, tr$x, tr$y, grid = g, scale = scale)
    }))
    list(value = runs[[reps]]$value, runs = vapply(runs, `[[`, 0, "seconds"),
         cpu = vapply(runs, `[[`, 0, "cpu"))
  }
  before <- load_avg()
  r1 <- race(1L)
  r2 <- race(2L)
  stored <- !is.na(svm_s) && svm_s > 0
  ts <- if (stored) list(seconds = svm_s, cpu = NA_real_) else {
    set.seed(1)
    measure(tune.svm(tr$x, tr$y, cost = g$cost, gamma = g$gamma, scale = scale,
                     tunecontrol = tune.control(cross = 5)))
  }
  r1b <- race(1L)
  r2b <- race(2L)
  after <- load_avg()
  s1 <- stats::median(c(r1$runs, r1b$runs))
  s2 <- stats::median(c(r2$runs, r2b$runs))
  c1 <- stats::median(c(r1$cpu, r1b$cpu))
  c2 <- stats::median(c(r2$cpu, r2b$cpu))
  acc <- function(m) mean(predict(m, te$x) == te$y)
  kb <- r2$value$best
  tb <- if (!stored) ts$value$best.parameters
  same <- identical(r1$value$results, r2$value$results) &&
    identical(r1$value$results, r1b$value$results)
  cat(sprintf("%-10s tune.svm %.2f s%s; race 1 thread %.3f s (%.0fx), 2 threads %.3f s (%.0fx); load %s / %s\n",
              what, ts$seconds, if (stored) " (stored)" else "", s1, ts$seconds / s1, s2,
              ts$seconds / s2, before, after))
  data.frame(
    data = task,
    "tune.svm s" = sprintf("%.2f%s", ts$seconds, if (stored) " (stored)" else ""),
    "race, 1 thread s (x tune.svm)" = sprintf("%.3f (%.0fx)", s1, ts$seconds / s1),
    "race, 2 threads s (x tune.svm)" = sprintf("%.3f (%.0fx)", s2, ts$seconds / s2),
    "race CPU s, 1 / 2 threads" = sprintf("%.3f / %.3f", c1, c2),
    "chosen cell: race / tune.svm" = sprintf("%s / %s", cell_text(kb$cost, kb$gamma),
                                             if (stored) "(not run)" else
                                               cell_text(tb$cost, tb$gamma)),
    "fresh-data accuracy: race / tune.svm" =
      sprintf("%.4f / %s", acc(r2$value$model),
              if (stored) "(not run)" else sprintf("%.4f", acc(ts$value$best.model))),
    "race rows on every fold" = sprintf("%d of %d", sum(r2$value$results$folds_run == 5L),
                                        nrow(r2$value$results)),
    "results same across threads, runs" = if (same) "yes" else "NO",
    "load before / after" = paste(before, after, sep = " / "), check.names = FALSE)
}

run <- function(o) {
  rows_t <- list()
  workers <- min(2L, default_threads())
  reps <- o$tune_reps[1L]
  # --tune-threads 1: the sequential searches on one thread (the engine's
  # threads meet at every SMO iteration, which a busy machine makes costly)
  tune_threads <- o$tune_threads[1L]
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
  for (n in setdiff(o$tune_n, 0L)) {
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
  for (n in setdiff(o$tune_default_n, 0L)) {
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
  real <- o$tune_real
  rows_r <- NULL
  real_lines <- NULL
  if (identical(real, "Satellite") && requireNamespace("mlbench", quietly = TRUE)) {
    sat_env <- new.env()
    utils::data("Satellite", package = "mlbench", envir = sat_env)
    sat <- sat_env$Satellite
    xs <- as.matrix(sat[, names(sat) != "classes"])
    ys <- droplevels(sat$classes)
    train <- round(seq(1, 4435, length.out = size(4435, 4435, 600)))  # smoke: rows of all 6 classes
    sat_tr <- list(x = xs[train, ], y = ys[train])
    sat_te <- list(x = xs[-seq_len(4435), ], y = ys[-seq_len(4435)])
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
    cat(sprintf(paste0("Satellite %d x 36, 6 classes: raced 1 thread %.2f s (%.1fx tune.svm), ",
                       "%d threads %.2f s (%.1fx), exhaustive %.2f s, tune.svm %.2f s%s; ",
                       "load %s / %s\n"),
                length(train), r1$seconds, ts$seconds / r1$seconds, workers, r2$seconds, ts$seconds / r2$seconds,
                kx$seconds, ts$seconds,
                if (is.null(sk2)) "" else sprintf(", GridSearchCV %.2f s (n_jobs %d)",
                                                  sk2$seconds, workers),
                before, after))
    real_lines <- c(
      sprintf(paste("#### Real data: mlbench's Satellite, 6 classes, %s training rows x 36,",
                    "2,000 test rows; the 5 x 5 grid, 5-fold (load %s before, %s after)"),
              format(length(train), big.mark = ","), before, after), "",
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
  nl <- o$loo_n[1L]
  dat <- make_data(max(nl, 1L), 20, 99)
  gammas <- data.frame(gamma = 2^seq(-9, 0, length.out = 10))
  loo <- if (nl > 0L) lapply(c("kernel_means", "kernel_parzen"), function(f) {
    fun <- match.fun(f)
    m <- measure(kernel_tune(fun, dat$x, dat$y, grid = gammas, folds = "loo", scale = FALSE))
    cat(sprintf("%-48s %.2f s\n", sprintf("%s, 10 gammas, loo, n=%d", f, nl), m$seconds))
    data.frame(task = sprintf("kernel_tune(%s), 10 gammas, leave-one-out, n=%d, d=20", f, nl),
               seconds = sprintf("%.2f", m$seconds),
               "best gamma" = sprintf("%.4g", m$value$best$gamma),
               accuracy = sprintf("%.4f", m$value$best_accuracy),
               load = load_avg(), check.names = FALSE)
  })
  todo <- setdiff(o$tune_foreign, "0")
  svm_s <- rep_len(if (length(o$tune_foreign_svm)) o$tune_foreign_svm else NA_real_, length(todo))
  foreign <- Map(foreign_rows, todo, svm_s = svm_s, MoreArgs = list(reps = max(reps, 3L)))
  foreign <- unname(Filter(Negate(is.null), foreign))
  options(old_threads)
  c(
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
                       ""),
    if (length(foreign)) c(
      "#### The default race on data not designed here (--tune-foreign)", "",
      knitr::kable(do.call(rbind, foreign), format = "pipe"), "",
      paste("kernel_tune(kernel_svm, x, y, grid = ...) with nothing else given (the race,",
            "screened at tolerance 0.1, the best refitted at 1e-3), against",
            "tune.svm(cost =, gamma =, tunecontrol = tune.control(cross = 5)) in this process;",
            "the race's seconds the median of its runs before and after tune.svm",
            "(race CPU s: the CPU seconds this process used, the same medians);",
            "tune.svm s (stored): given by --tune-foreign-svm, measured earlier, not here;",
            "fresh-data accuracy: the returned models on 10,000 (radial) or 2,000",
            "(Satellite) rows not used."), ""))
}
