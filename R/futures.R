# Where the work runs: futures for folds, grid cells and an SVM's class
# pairs (future.apply, parallel-safe seeds), one unit of work with its
# warnings and errors kept as values, and their relay to the caller once
# each. kernel_cv(), kernel_tune() and kernel_svm() share them.

# future.apply when installed (it is imported), one element per future with
# its own seed; warnings and errors come back as values (kc_relay()).
# seed = FALSE for work that draws no random numbers (future then says so if
# it does): the session's random numbers are left as they were, and under
# the sequential plan the elements run as a plain loop, the same work
# without the futures around it (about 2 ms an element, measured: half the
# R time of a race on the README's grid).
kc_future_lapply <- function(x, f, seed = TRUE) {
  if (isFALSE(seed) && inherits(future::plan(), "sequential")) return(lapply(x, f))
  # recent versions of future turn a Ctrl-C inside a future into a FutureInterruptError,
  # an error that tryCatch(error = ) would swallow: it stays an interrupt here
  tryCatch(future.apply::future_lapply(x, f, future.seed = seed, future.scheduling = 1,
                                       future.packages = "kernclass"),
           FutureInterruptError = function(e) kc_interrupt())
}

# Signals an interrupt as R's own Ctrl-C does: a condition of class
# "interrupt" for the handlers that ask for one, then back to the top level.
# C raises its interrupts through it too (kc_raise_interrupt, src/callback.c).
kc_interrupt <- function() {
  signalCondition(structure(class = c("interrupt", "condition"),
                            list(message = "", call = NULL)))
  invokeRestart("abort")
}

# The independent problems inside one fit (kernel_svm's class pairs, and
# the folds of their probability models): futures when future::plan() has
# workers, so that they run side by side, each worker's engine on one
# thread; else a plain loop, with the engine's threads inside each problem
# (no cost of futures on small fits). They draw no random numbers, so the
# model does not depend on the plan; their warnings and errors reach the
# caller as they are.
kc_problems_lapply <- function(x, f) {
  if (length(x) > 1L && future::nbrOfWorkers() > 1L) kc_future_lapply(x, f, seed = FALSE)
  else lapply(x, f)
}

# One unit of work (a fold of cells, an SVM path over its folds, a cell's
# exact leave-one-out), with its warnings collected and an error returned
# as a value, so that the caller reports each once and names the grid row.
kc_run_task <- function(task, fit, d, w, fold, cells, args, needs) {
  warnings <- list()
  rows <- switch(task$kind, exact = seq_along(d$y), path = which(fold %in% task$folds),
                 which(fold == task$fold))
  result <- withCallingHandlers(
    tryCatch(switch(task$kind,
      exact = list(list(predicted = as.character(kc_loo_exact(fit, d$x, d$y,
                                                              c(cells[[task$cells]], args))))),
      path = kc_svm_shared_fits(task, fit, d, w, fold, cells[task$cells], args, needs, rows),
      kc_fold_fits(fit, d, w, rows, cells[task$cells], args, needs)
    ), error = function(e) e),
    warning = function(wn) {
      wn$call <- NULL
      warnings[[length(warnings) + 1L]] <<- wn
      invokeRestart("muffleWarning")
    })
  list(task = task, rows = rows, result = result, warnings = warnings)
}

# Warnings once each; the first error (in task order) with its grid row.
kc_relay <- function(out, cells) {
  warns <- unlist(lapply(out, `[[`, "warnings"), recursive = FALSE)
  for (w in warns[!duplicated(vapply(warns, conditionMessage, character(1)))]) warning(w)
  for (o in out) {
    r <- o$result
    if (inherits(r, "condition")) {
      i <- o$task$cells[if (is.null(r$kc_cell)) 1L else r$kc_cell]
      r$kc_cell <- NULL
      if (length(cells) > 1L || length(cells[[1L]])) {
        r$message <- sprintf("Grid row %d (%s): %s", i, kc_grid_label(cells[[i]]),
                             conditionMessage(r))
      }
      stop(r)
    }
  }
}
