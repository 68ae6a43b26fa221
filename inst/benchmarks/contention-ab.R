# Short SVM fits on 1 and 2 threads, two builds of kernclass side by side
# (A/B), beside one busy process or not:
#   Rscript inst/benchmarks/contention-ab.R LIB_A LIB_B [rounds] [busy|idle]
# LIB_A, LIB_B: libraries with kernclass installed (R CMD INSTALL -l LIB .).
# Each round runs one fresh R process per build, A then B, each timing every
# task on 1 and on 2 threads alternately (3 pairs); busy: beside a busy loop
# that this script starts and stops. Prints, per build and task, the medians
# over all pairs and the median of the pairs' ratios 2 threads / 1 thread.
# The fits on 1 and 2 threads must give identical objectives ("same").
args <- commandArgs(TRUE)
if (length(args) >= 2 && args[1] == "--worker") {
  suppressMessages(library(kernclass, lib.loc = args[2]))
  make_data <- function(n, d, seed) {
    set.seed(seed)
    x <- matrix(rnorm(n * d), n, d)
    list(x = x, y = factor(ifelse(x[, 1] + x[, 2]^2 - 1 + rnorm(n, sd = 0.5) > 0, "a", "b")))
  }
  # the sizes and seeds of run.R's contention tasks at --quick sizes, with a
  # rule of their own (not run.R's make_data())
  s20 <- make_data(5000, 20, 20020)
  s100 <- make_data(5000, 100, 20100)
  data(spam, package = "kernlab", envir = environment())
  tasks <- list(
    spam = function() kernel_svm(type ~ ., data = spam)$objective,
    s20 = function() kernel_svm(s20$x, s20$y, gamma = 1 / 20, scale = FALSE)$objective,
    s100 = function() kernel_svm(s100$x, s100$y, gamma = 1 / 100, scale = FALSE)$objective)
  for (t in names(tasks)) for (r in 1:3) {
    secs <- c(NA, NA); v <- list()
    for (k in 1:2) {
      options(kernclass.threads = k)
      invisible(gc())
      secs[k] <- system.time(v[[k]] <- tasks[[t]]())[["elapsed"]]
    }
    cat(sprintf("%s,%.4f,%.4f,%s\n", t, secs[1], secs[2], identical(v[[1]], v[[2]])))
  }
  quit(save = "no")
}
if (length(args) < 2) stop("usage: contention-ab.R LIB_A LIB_B [rounds] [busy|idle]")
libs <- c(A = args[1], B = args[2])
rounds <- if (length(args) >= 3) as.integer(args[3]) else 3L
busy <- length(args) < 4 || args[4] == "busy"
me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
job <- if (busy) parallel::mcparallel({ end <- Sys.time() + 3600; while (Sys.time() < end) NULL })
rows <- list()
for (round in seq_len(rounds)) for (b in names(libs)) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(me), "--worker",
                                                        shQuote(libs[[b]])), stdout = TRUE)
  r <- utils::read.csv(text = out, header = FALSE, col.names = c("task", "one", "two", "same"))
  rows[[length(rows) + 1L]] <- cbind(build = b, r)
}
if (busy) {
  tools::pskill(job$pid, tools::SIGKILL)
  invisible(suppressWarnings(parallel::mccollect(job, wait = TRUE, timeout = 5)))
}
d <- do.call(rbind, rows)
cat(sprintf("%s; %d rounds x 3 pairs; load average %s at the end\n",
            if (busy) "beside one busy process" else "no busy process of ours", rounds,
            paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")))
for (key in unique(paste(d$build, d$task))) {
  s <- d[paste(d$build, d$task) == key, ]
  cat(sprintf("%s (%s) %-5s 1 thread %.3f s, 2 threads %.3f s, 2/1 ratio %.2f, same %s\n",
              s$build[1], libs[[s$build[1]]], s$task[1], stats::median(s$one),
              stats::median(s$two), stats::median(s$two / s$one), all(s$same)))
}
