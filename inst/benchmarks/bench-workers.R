# workers: workers against threads. The synthetic grid's race and screen
# (5 x 5, 5-fold) on 1 and 2 engine threads under plan(sequential), under
# plan(multisession, workers = 2) (local workers: the paths run here on
# threads) and on a local 2-process cluster, plan(cluster) (the futures
# that other machines get), made as ?kernclass-parallel says (sockets with
# the "no-delay" option) and as parallel::makeCluster(2) makes it; the
# five in turn, rounds of them, medians; the workers started, and kernclass
# loaded in them, before the clock.
flags <- list(
  bench_flag("--workers-n", "int", full = 2000, smoke = 200, help = "rows"),
  bench_flag("--workers-reps", "int", full = 5, smoke = 1, help = "rounds (their medians)"))

run <- function(o) {
  nw <- o$workers_n[1L]
  wreps <- o$workers_reps[1L]
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
    loads <- c(loads, load_avg())
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
  c(
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
