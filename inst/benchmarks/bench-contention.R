# contention: every large task on one thread and on the default number,
# idle and beside one busy process that the suite starts and stops itself.
flags <- list()

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

large_tasks <- function() {
  s20 <- make_data(size(20000, 5000, 500), 20, 20020)
  s100 <- make_data(size(20000, 5000, 500), 100, 20100)
  m <- size(20000, 8000, 800)
  sums <- make_data(m, 100, 4); sums_te <- make_data(m, 100, 5)
  data(spam, package = "kernlab", envir = environment())
  spam <- spam[round(seq(1, nrow(spam), length.out = size(nrow(spam), nrow(spam), 500))), ]  # both classes
  tasks <- list(
    function() kernel_svm(s20$x, s20$y, gamma = 1 / 20, scale = FALSE),
    function() kernel_svm(s100$x, s100$y, gamma = 1 / 100, scale = FALSE),
    function() kernel_svm(type ~ ., data = spam),
    function() predict(kernel_means(sums$x, sums$y, gamma = 0.01, scale = FALSE), sums_te$x),
    function() predict(kernel_parzen(sums$x, sums$y, gamma = 0.01, scale = FALSE), sums_te$x))
  names(tasks) <- c(sprintf("kernel_svm n=%d, d=20", nrow(s20$x)),
                    sprintf("kernel_svm n=%d, d=100", nrow(s100$x)),
                    sprintf("kernel_svm on kernlab's spam (%d x 57)", nrow(spam)),
                    sprintf("kernel_means fit + predict, %d x %d, d=100", m, m),
                    sprintf("kernel_parzen fit + predict, %d x %d, d=100", m, m))
  tasks
}

run <- function(o) {
  tasks <- large_tasks()
  nt <- default_threads()
  reps <- size(3L, 3L, 1L)
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
  c(sprintf("### Under load: seconds (median of %d) on 1 thread and on the default (%d threads)", reps, nt), "",
    knitr::kable(tab, format = "pipe", align = "lrrrrrr"), "",
    "busy: beside one other process running a busy loop (started and stopped by the suite).",
    "default / 1 thread above 1 means the default was slower than one thread.", "")
}
