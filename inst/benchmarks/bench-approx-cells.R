# Part of the approx section (sourced by bench-approx.R): tuned cells.
cells_flags <- list(
  bench_flag("--cells-tune-n", "num", full = 1e6, quick = 2e4, smoke = 3000, help = "rows (0: none)"),
  bench_flag("--cells-tune-grid", "num", full = 10, quick = 3, smoke = 2, help = "G of the G x G grid"),
  bench_flag("--cells-tune-sub", "num", full = 20000, quick = 5000, smoke = 500,
             help = "rows of the exact SVM's subsample"),
  bench_flag("--cells-tune-size", "num", full = 2000, smoke = 1000, help = "the cells' size"),
  bench_flag("--cells-tune-folds", "num", full = 5, smoke = 3, help = "folds"),
  bench_flag("--cells-tune-fixed", "flag",
             help = "issue 47's grid: costs 2^-2 to 2^11, gammas 2^-5 to 2^4 over d"),
  bench_flag("--cells-tune-search-iter", "num", full = 1,
             help = "cells()'s search_iter (Inf: search fits uncapped)"),
  bench_flag("--cells-tune-default", "flag", help = "also each cell's own default grid"),
  bench_flag("--cells-tune-models", "chr", full = c("sub", "cells"),
             help = "sub or cells: one of the two alone"),
  bench_flag("--cells-tune-sphere", "flag", help = "also make_sphere(), room beyond a linear rule"),
  bench_flag("--cells-tune-local", "flag", help = "also make_local(), a rule that differs by region"),
  bench_flag("--cells-tune-only", "chr", help = "those problems alone, of data, sphere, local"))

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
# from many (make_local(), liquidSVM's case: large heterogeneous data).
# --cells-tune-fixed: issue 47's grid instead, G costs from 2^-2 to 2^11
# (evenly on the log scale) and G gammas 2^-5 to 2^4 times 1 / d (at G =
# 10 the powers -5 to 4); --cells-tune-search-iter: cells()'s search_iter
# (the search fits' SMO iterations per row of the cell; Inf: uncapped).
# Issue 47's target (10^6 rows, 10 x 10, 5 folds, cells of 2,000, the
# exact SVM's search on 20,000 rows beside it), one command:
#   Rscript inst/benchmarks/run.R --only approx --approx-n 0 --exact-n 0 --approx-real 0 \
#     --approx-digits 0 --approx-target 0 --cells-tune-fixed

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

# The tuned cells' lines.
approx_cells <- function(o) {
  rows_ct <- list()
  notes_ct <- NULL
  nt <- o$cells_tune_n[1L]
  # --cells-tune-only data,sphere,local: those problems alone (default: make_data(),
  # and make_sphere() and make_local() where --cells-tune-sphere and --cells-tune-local ask)
  gens_t <- list(data = function(n, seed) make_data(n, 20, seed), sphere = make_sphere,
                 local = make_local)
  keys_t <- if (!is.null(o$cells_tune_only)) o$cells_tune_only else
    c("data", if (o$cells_tune_sphere) "sphere", if (o$cells_tune_local) "local")
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
    G <- o$cells_tune_grid[1L]
    nsub <- min(nt, o$cells_tune_sub[1L])
    csize <- o$cells_tune_size[1L]
    cfolds <- o$cells_tune_folds[1L]
    tr <- sets_t[[set]](nt, 5)
    te3 <- sets_t[[set]](size(1e5, 2e4, 2000), 6)
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
    tgrid <- if (o$cells_tune_fixed) {
      list(cost = 2^seq(-2, 11, length.out = G), gamma = 2^seq(-5, 4, length.out = G) / ncol(tr$x))
    } else list(cost = signif(2^seq(-3, 9, length.out = G), 3),
                gamma = signif(g0 * 2^seq(-6, 3, length.out = G), 3))
    siter <- o$cells_tune_search_iter[1L]
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
                  v$acc, auto, others, load_avg()))
      rows_ct[[length(rows_ct) + 1L]] <<- data.frame(
        data = set, model = model, grid = grid_text,
        "fit + predict s" = sprintf("%.1f", m$seconds), "cpu s" = sprintf("%.1f", m$cpu),
        "peak MB" = sprintf("%.0f", m$peak_mb), "test accuracy" = sprintf("%.4f", v$acc),
        "auto: K (out-of-fold acc.)" = auto, "own cell / blended 5 / 10" = others,
        "chosen (cost, gamma)" = chose, load = load_avg(), check.names = FALSE)
    }
    gtext <- sprintf("%d x %d%s, %d-fold, race", G, G,
                     if (o$cells_tune_fixed) " (issue 47's)" else "", cfolds)
    which_t <- o$cells_tune_models
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
    # a build without search_iter (an A/B by --lib) runs its search uncapped
    capped <- "search_iter" %in% names(formals(cells))
    tcells <- function(...) if (capped) cells(..., search_iter = siter) else cells(...)
    specs_t <- list(tcells(size = csize, grid = tgrid, folds = cfolds))
    names(specs_t) <- sprintf("cells(size = %d, grid =, folds = %d, search_iter = %s)", csize,
                              cfolds, format(siter))
    if (o$cells_tune_default) {
      specs_t[[sprintf("cells(size = %d, tune = TRUE, search_iter = %s)", csize, format(siter))]] <-
        tcells(size = csize, tune = TRUE, folds = cfolds)
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
  if (length(rows_ct)) c(
    sprintf("Tuned cells, n = %s, d = 20, %s test rows:",
            format(nt, big.mark = ",", scientific = FALSE),
            format(nrow(te3$x), big.mark = ",")), "",
    knitr::kable(do.call(rbind, rows_ct), format = "pipe"), "",
    paste("Every cell chooses cost and gamma by kernel_tune()'s search on its rows (the",
          "folds, the grid, the race); the baseline is kernel_tune() of the exact SVM on a",
          "subsample with the same grid. The cells' search fits stop after search_iter SMO",
          "iterations per row of the cell (scored as they stand; the final fits uncapped).",
          "Seconds: the search, the fit(s) and predicting the",
          "test rows (cpu: the process's CPU time, all its threads); chosen: the most",
          "frequent choices (x cells) and how many chose the grid's smallest or largest",
          "value (the best values may lie beyond it). The cells predict as blend = \"auto\" (the default)",
          "chose: K of 1, 3, 5, 10 nearest cells by the out-of-fold accuracy of the blended",
          "predictions on up to 20,000 training rows (in brackets); own cell / blended 5 / 10: the",
          "same cells with blend = 1, 5, 10.", notes_ct), "")
}
