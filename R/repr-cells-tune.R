#' @name approximations
#' @section Capped search fits: A tuned cell's search fits many SVMs that
#'   only score a grid row, most at large costs that converge slowly; those
#'   fits stop after `search_iter` (default 1) SMO iterations per row of the
#'   cell, and a fit that stops there is scored as it stands. The cell's
#'   final fit at the chosen values is not capped (it runs to convergence or
#'   [kernel_svm()]'s `max_iter`), nor are the refits of `blend = "auto"`.
#'   `print()` and `summary()` say so (`summary(fit)$tuning$search_max_iter`:
#'   each cell's cap); `search_iter = Inf` runs every search fit to
#'   convergence. Measured on `make_data()` of `inst/benchmarks/run.R`
#'   (\eqn{10^5}{10^5} rows, d = 20, 50 cells of 2,000 rows, issue 47's 10 x
#'   10 grid, 5 folds, `inst/benchmarks/bench-approx-cells.R`): the fit took
#'   0.70 times the CPU time of uncapped searches, with the same test
#'   accuracy (0.8308 on 20,000 rows); at \eqn{10^6}{10^6} rows (500 cells)
#'   the fit and prediction took 228 s on 2 cores (test accuracy 0.8329).
#'   Tuned cells of size `"auto"` hold
#'   2,000 rows at any n: cells of 5,000 took 1.9 times the CPU for test
#'   accuracy 0.8317.
NULL

# The tuning part of a cells() spec: the checked grid (NULL: each cell's
# default grid), the folds, the search and its fits' SMO iterations per row
# of the cell (search_iter; Inf: uncapped).
kc_cells_tune_spec <- function(grid, folds, search, search_iter = Inf) {
  if (!is.numeric(search_iter) || length(search_iter) != 1L || is.na(search_iter) ||
      search_iter <= 0) {
    kc_abort("`search_iter` must be one number > 0 (SMO iterations per row of a cell), or Inf.",
             arg = "search_iter")
  }
  if (!is.null(grid)) {
    grid <- kc_check_grid(grid, kernel_svm, list())
    bad <- setdiff(names(grid), c("cost", "gamma"))
    if (length(bad)) {
      kc_abort(sprintf("`grid` of cells() varies `cost` and `gamma` only; got column(s) %s.",
                       kc_enum(bad)), arg = "grid")
    }
    for (nm in names(grid)) {
      v <- grid[[nm]]
      if (!is.numeric(v) || anyNA(v) || any(!is.finite(v)) || any(v <= 0)) {
        kc_abort(sprintf("`grid`'s `%s` must be finite numbers > 0.", nm), arg = "grid")
      }
    }
  }
  list(grid = grid, folds = kc_as_count(folds, "folds", lower = 2), search = search,
       search_iter = as.numeric(search_iter))
}

# The max_iter of a cell's search fits: search_iter per row of the cell's
# `rows`, at most the model's `max_iter` (NULL search_iter, a spec made
# before the cap: max_iter).
kc_cells_search_max_iter <- function(search_iter, rows, max_iter) {
  if (is.null(search_iter) || !is.finite(search_iter)) return(max_iter)
  min(max_iter, max(1, ceiling(search_iter * rows)))
}

# A cell's problem for its search: the names of the arguments its grid
# varies (a default grid: cost, and gamma unless the user gave it), which
# the user may not also give.
kc_cells_tune_problem <- function(tune, given) {
  free <- if (is.null(tune$grid)) c("cost", if (!"gamma" %in% given) "gamma") else
    names(tune$grid)
  both <- intersect(names(tune$grid), given)
  if (length(both)) {
    kc_abort(sprintf(paste0("`approx`: %s given both to kernel_svm() and as a column of ",
                            "cells()'s `grid`; give each once."), kc_enum(both)),
             arg = "approx", class = "approx_unsupported")
  }
  c(tune, list(free = free))
}

# One tuned cell: kernel_tune()'s search on its rows (the grid's parameters
# left out of its arguments, no probabilities: those are fitted once, on
# the choice), then kc_fit_cell() with the chosen values; `tuning` says what
# was chosen and how. A cell of one class is kc_fit_cell()'s.
kc_fit_cell_tuned <- function(p) {
  counts <- tabulate(p$y, nlevels(p$y))
  if (length(counts) < 2L) return(kc_fit_cell(p))
  t <- p$tune
  seed <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
  searched <- NULL
  if (min(counts) >= 2L) {
    args <- p$args[setdiff(names(p$args), c(t$free, "probability"))]
    args <- c(Filter(Negate(is.null), args), list(scale = FALSE))
    # the search's fits capped (kc_cells_search_max_iter()); one that stops
    # at the cap is scored as it stands, without a warning
    args$max_iter <- kc_cells_search_max_iter(t$search_iter, length(p$rows), args$max_iter)
    searched <- tryCatch(withCallingHandlers(
      kc_tune_grid(kernel_svm, "kernel_svm", p$x, p$y, t$grid, min(t$folds, length(p$rows)),
                   args, "accuracy", p$weights, t$search, 0.1)$result,
      kernclass_convergence_warning = function(w) invokeRestart("muffleWarning")),
      error = function(e) e)
    if (inherits(searched, "condition")) return(searched)
    p$args[names(searched$best)] <- searched$best
  }
  m <- kc_fit_cell(p)
  if (inherits(m, "condition")) return(m)
  m$tuning <- if (is.null(searched)) {
    list(cost = p$args$cost, gamma = p$args$gamma, accuracy = NA_real_, folds_run = 0L,
         fits = 0L, grid_rows = 0L, folds = 0L, search = "none", fold = NULL, seed = NULL)
  } else {
    r <- searched$results
    list(cost = p$args$cost, gamma = p$args$gamma, accuracy = searched$best_accuracy,
         folds_run = r$folds_run[searched$best_index], fits = sum(r$folds_run),
         grid_rows = nrow(r), folds = searched$folds, search = searched$search,
         fold = searched$fold, seed = seed,
         edge = kc_grid_edge(r[names(searched$best)], searched$best),
         search_max_iter = args$max_iter)
  }
  m
}

# Where a choice sits on its grid's edge: for each numeric parameter the
# grid varies (two or more values), "smallest <name>" or "largest <name>"
# when the chosen value is the grid's least or greatest, joined by ", " (""
# when none is). grid: the grid's parameter columns; best: the chosen
# values. Used by tuned cells and by kernel_tune()'s print and plots.
kc_grid_edge <- function(grid, best) {
  edge <- unlist(lapply(names(grid), function(nm) {
    v <- unique(grid[[nm]])
    if (!is.numeric(v) || length(v) < 2L) NULL else if (best[[nm]] == min(v)) {
      paste("smallest", nm)
    } else if (best[[nm]] == max(v)) paste("largest", nm)
  }))
  paste(edge, collapse = ", ")
}

# What an edge choice suggests, for `n` edges: give `who` a wider grid.
kc_grid_edge_advice <- function(who, n) {
  sprintf("the best values may lie beyond the grid: give %s a `grid` reaching past %s", who,
          if (n == 1L) "it" else "them")
}

# Per tuned cell: what it chose (NA for a cell of one class) and the
# search behind it; `fits` the fold fits its search ran, of grid rows x
# `folds` (the folds of the cell's search: fewer than cells()'s in a cell of
# fewer rows; 0 for a cell without a search); `edge` where the choice sits
# on the edge of the cell's grid (kc_grid_edge(); NA for a cell without a
# search).
kc_cells_tune_table <- function(models) {
  pick <- function(f) {
    vapply(models, function(m) {
      v <- m$tuning[[f]]
      if (is.null(v)) NA_real_ else as.numeric(v)
    }, numeric(1))
  }
  data.frame(cell = seq_along(models),
             rows = vapply(models, function(m) sum(m$counts), numeric(1)),
             cost = pick("cost"), gamma = pick("gamma"), cv_accuracy = pick("accuracy"),
             folds_run = as.integer(pick("folds_run")), fits = as.integer(pick("fits")),
             grid_rows = as.integer(pick("grid_rows")), folds = as.integer(pick("folds")),
             search_max_iter = pick("search_max_iter"),
             edge = vapply(models, function(m) {
               e <- m$tuning$edge
               if (is.null(e)) NA_character_ else e
             }, character(1)))
}

# The share of searched cells at which an edge of the grid is reported:
# twice the 10% at each end of choices spread evenly over 10 values (the
# default grid's); at 10^6 rows of run.R's make_data() (10 x 10 grid), 23%
# of the cells chose the smallest gamma.
kc_cells_edge_share <- 0.2

# The line that says which edges of the grid at least kc_cells_edge_share
# of the searched cells chose (NULL when none): a sign that the best values
# lie beyond the grid.
kc_cells_edge_line <- function(table) {
  e <- table$edge[!is.na(table$edge)]
  if (!length(e)) return(NULL)
  parts <- unlist(strsplit(e, ", ", fixed = TRUE))
  count <- table(parts)
  count <- count[count >= kc_cells_edge_share * length(e)]
  if (!length(count)) return(NULL)
  sprintf("  on the grid's edge: %s\n  (%s)\n",
          paste(sprintf("the %s in %d of %d cells", names(count), count, length(e)),
                collapse = ", "), kc_grid_edge_advice("cells()", length(count)))
}

# The lines print() and summary() give a tuned model: how the cells were
# tuned, the range of the choices of the cells that searched (a cell of one
# class, or with a class of one row, ran none: it keeps the model's cost and
# gamma), then the table (its first `head` rows), where a cell without a
# search has no accuracy and "no search" for its fits, and a searched
# cell's fits are out of its grid rows x its own folds.
kc_cells_tune_lines <- function(spec, table, head) {
  t <- spec$tune
  cat(sprintf("  cost and gamma chosen in each cell: %s, %d-fold, %s search\n",
              if (is.null(t$grid)) "the default grid of the cell's rows" else
                sprintf("a grid of %d rows", nrow(t$grid)), t$folds, t$search))
  cat(kc_cells_cap_line(t$search_iter, table$search_max_iter))
  # models fitted before `folds` was kept: the folds as kc_fit_cell_tuned() chose them
  folds <- if (is.null(table$folds)) pmin(t$folds, table$rows) else table$folds
  searched <- !is.na(table$grid_rows) & table$grid_rows > 0L
  if (any(searched)) {
    cat(sprintf(paste0("  chosen in the %d of %d cells that searched: cost %s to %s, gamma %s ",
                       "to %s; CV accuracy median %.2f%%\n"), sum(searched), nrow(table),
                format(min(table$cost[searched]), digits = 4),
                format(max(table$cost[searched]), digits = 4),
                format(min(table$gamma[searched]), digits = 4),
                format(max(table$gamma[searched]), digits = 4),
                100 * stats::median(table$cv_accuracy[searched])))
  }
  if (!all(searched)) {
    cat(sprintf(paste0("  %d cell(s) ran no search: of one class (which it predicts) or with ",
                       "a class of one row (at the model's cost and gamma)\n"), sum(!searched)))
  }
  small <- searched & folds < t$folds
  if (any(small)) {
    cat(sprintf(paste0("  %d cell(s) of fewer than %d rows: as many folds as rows (the fits ",
                       "below are out of their grid rows x their folds)\n"), sum(small), t$folds))
  }
  cat(kc_cells_edge_line(table))
  shown <- utils::head(table, head)
  on <- utils::head(searched, head)
  shown$cv_accuracy <- ifelse(on, sprintf("%.2f%%", 100 * shown$cv_accuracy), "")
  shown$fits <- ifelse(on, sprintf("%d of %d", shown$fits, shown$grid_rows * utils::head(folds, head)),
                       "no search")
  shown[c("grid_rows", "folds", "edge", "search_max_iter")] <- NULL
  print(shown, row.names = FALSE, digits = 4)
  if (nrow(table) > head) {
    cat(sprintf("  ... and %d more cells (summary(fit)$tuning has them all)\n", nrow(table) - head))
  }
}

# The line that says whether the search fits were capped (search_iter of
# the spec, NULL before the cap: none) and at how many iterations (`cap`,
# the cells' search max_iter, NA for a cell without a search).
kc_cells_cap_line <- function(search_iter, cap) {
  if (is.null(search_iter)) return(NULL)
  if (!is.finite(search_iter)) {
    return("  search fits run to convergence (search_iter = Inf), as the final fits\n")
  }
  cap <- cap[!is.na(cap)]
  sprintf(paste0("  search fits capped at %s SMO iteration(s) per row of the cell%s, scored as ",
                 "they stand; each cell's final fit at its choice is not capped\n"),
          format(search_iter), if (length(cap)) sprintf(" (%s to %s)", format(min(cap)),
                                                        format(max(cap))) else "")
}

# f(task) followed by a progress step p(message): a closure over f, p and
# message only, so that a future carries nothing else to its worker.
kc_with_progress <- function(f, p, message) {
  force(f)
  force(p)
  force(message)
  function(task) {
    out <- f(task)
    p(message = message)
    out
  }
}

# ---- blend = "auto" ------------------------------------------------------------

# How many training rows blend = "auto" scores, and the numbers of nearest
# cells it tries.
kc_cells_blend_rows <- 20000L
kc_cells_blend_candidates <- c(1L, 3L, 5L, 10L)

# blend = "auto" for untuned cells, which have no held-out values to choose
# by: the 5 nearest from 20,000 training rows on (at 40,000 rows, d = 20, 20
# cells of 2,000, gamma 1 / d, cost 1, two nonlinear rules: test accuracy
# 3.5 and 5.0 points above each row's own cell's, the fit the same), else
# NULL (each row's own cell).
kc_cells_untuned_blend <- function(n) {
  if (n < 20000) return(NULL)
  list(K = 5L, rule = "5 nearest for untuned cells of 20,000 rows or more")
}

# The choice of blend = "auto" for tuned cells: of the candidates (at most
# the cells), the K whose blended predictions (the vote of the weighted
# decision values) are right on the most of up to kc_cells_blend_rows
# training rows, ties to the smaller K. No row is scored by a model that
# learnt from it: in its own cell the row has the value of its fold's
# model (kc_cell_oof()), the other cells never saw it. The rows: those of
# the first F folds of each cell, F the fewest folds that hold the rows
# wanted; where one fold of every cell holds more, the first fold of cells
# taken in random order until they hold them (so that only those cells
# refit), then a random subsample of kc_cells_blend_rows. The cells' refits
# run as the cells did (futures, each with its own random-number stream,
# after the cells' own: the model is that of blend = 1 with the same seed).
kc_cells_choose_blend <- function(d, centres, cell, problems, models, gap) {
  lv <- levels(d$y)
  size <- lengths(lapply(problems, `[[`, "rows"))
  folds <- vapply(seq_along(models), function(j) {
    f <- models[[j]]$tuning$fold
    if (is.null(f)) min(problems[[j]]$tune$folds, size[j]) else max(f)
  }, numeric(1))
  want <- kc_cells_blend_rows
  runs <- pmin(folds, ceiling(min(1, want / sum(size)) * folds))
  chosen <- seq_along(models)
  # a first fold (stratified) holds at least size / folds - classes rows
  least <- pmax(0, size / folds - length(lv))
  if (sum(least) >= want) {
    chosen <- sample.int(length(models))
    chosen <- sort(chosen[seq_len(which.max(cumsum(least[chosen]) >= want))])
    runs <- rep(1, length(models))
  }
  tasks <- lapply(chosen, function(j) list(p = problems[[j]], m = models[[j]], runs = runs[j],
                                           levels = lv))
  oof <- kc_future_lapply(tasks, kc_cell_oof, seed = TRUE)
  for (t in seq_along(oof)) {
    e <- oof[[t]]
    if (inherits(e, "condition")) {
      e$message <- sprintf("Cell %d of %d (%d rows), a fold's refit for blend = \"auto\": %s",
                           chosen[t], length(models), size[chosen[t]], conditionMessage(e))
      stop(e)
    }
  }
  rows <- unlist(lapply(oof, `[[`, "rows"))
  own <- do.call(rbind, lapply(oof, `[[`, "values"))
  pick <- if (length(rows) > want) sort(sample.int(length(rows), want)) else seq_along(rows)
  rows <- rows[pick]
  x <- d$x[rows, , drop = FALSE]
  cand <- unique(pmin(kc_cells_blend_candidates, nrow(centres)))
  near <- kc_nearest_centre(x, centres, max(cand))
  mine <- near == cell[rows]
  dec <- kc_cells_values(models, x, near, lv, FALSE, skip = mine)$dec
  dec[which(mine), ] <- own[pick[(which(mine) - 1L) %% length(rows) + 1L], ]
  accuracy <- vapply(cand, function(k) {
    w <- kc_cells_weights(attr(near, "gap")[, seq_len(k), drop = FALSE], gap)
    mean(kc_ovo_vote(kc_cells_sum(dec, w), lv) == d$y[rows])
  }, numeric(1))
  list(K = cand[which.max(accuracy)], candidates = data.frame(K = cand, accuracy = accuracy),
       rows = length(rows), cells = length(chosen),
       fits = sum(vapply(oof, `[[`, numeric(1), "fits")))
}

# One cell's out-of-fold decision values for blend = "auto" (task: the
# cell's problem p, model m, the number of folds `runs`, the whole model's
# levels): those of its rows in folds 1 to `runs` of the cell's search's
# folds (drawn here, stratified as kernel_tune() draws them, for a cell
# that ran none), in the whole model's pairs (kc_cell_values()), each from
# the cell's SVM at its chosen values fitted without that fold's rows
# (`fits` of them; a cell of one class predicts it from any of its folds);
# an error as a value.
kc_cell_oof <- function(task) {
  p <- task$p
  m <- task$m
  fold <- m$tuning$fold
  if (is.null(fold)) fold <- kc_cv_folds(p$y, min(p$tune$folds, length(p$rows)))
  te <- which(fold <= task$runs)
  svm <- inherits(m, "kernel_svm")
  values <- kc_cell_values(m, NULL, task$levels, length(te))
  for (f in if (svm) seq_len(task$runs)) {
    tr <- which(fold != f)
    q <- p
    q$x <- p$x[tr, , drop = FALSE]
    q$y <- droplevels(p$y[tr])
    q$rows <- p$rows[tr]
    q$weights <- p$weights[tr]
    q$args[c("cost", "gamma")] <- m$tuning[c("cost", "gamma")]
    q$args$probability <- FALSE
    if (!is.null(q$args$class.weights)) q$args$class.weights <- q$args$class.weights[levels(q$y)]
    fm <- kc_fit_cell(q)
    if (inherits(fm, "condition")) return(fm)
    h <- which(fold == f)
    values[match(h, te), ] <- kc_cell_values(
      fm, if (inherits(fm, "kernel_svm")) kc_scores(fm, p$x[h, , drop = FALSE]), task$levels,
      length(h))
  }
  list(rows = p$rows[te], values = values, fits = if (svm) task$runs else 0)
}

# The number of nearest cells a prediction averages, at most the cells: an
# integer `blend` of the spec, the choice of blend = "auto" (1 where it had
# none to make: untuned cells), 1 for a model fitted before `blend`.
kc_cells_blend <- function(object) {
  b <- object$approx$spec$blend
  K <- if (is.null(b)) 1L else if (identical(b, "auto")) {
    if (is.null(object$approx$blend)) 1L else object$approx$blend$K
  } else b
  min(K, nrow(object$approx$centres))
}

# Each row's weights of its K nearest cells (the gaps of kc_nearest_centre(x,
# , K)), summing to 1: exp(-gap / (4 g)), gap the squared distance to the
# cell's centre less that to the nearest, g the training rows' median of it
# for the second nearest (the model's `gap`); g = 0: the nearest cells alone.
kc_cells_weights <- function(gap, g) {
  w <- if (g > 0) exp(-gap / (4 * g)) else (gap <= 0) + 0
  w / rowSums(w)
}

# What predictions average, and for blend = "auto" how K was chosen.
kc_cells_blend_text <- function(fit) {
  K <- kc_cells_blend(fit)
  what <- if (K > 1L) {
    sprintf("the mean of the %d nearest cells' decision values%s", K,
            if (isTRUE(fit$probability)) " and probabilities" else "")
  } else "each row's own cell"
  if (!identical(fit$approx$spec$blend, "auto")) return(what)
  b <- fit$approx$blend
  if (is.null(b)) {
    return(paste0(what, if (nrow(fit$approx$centres) > 1L) {
      " (blend = \"auto\": own cells for untuned cells of fewer than 20,000 rows)"
    }))
  }
  if (!is.null(b$rule)) return(sprintf("%s (blend = \"auto\": %s)", what, b$rule))
  sprintf("%s (blend = \"auto\": out-of-fold accuracy on %d training rows, %s; %d refits)",
          what, b$rows, paste(sprintf("%d: %.2f%%", b$candidates$K, 100 * b$candidates$accuracy),
                              collapse = ", "), b$fits)
}
