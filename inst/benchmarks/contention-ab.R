# Short SVM fits on 1 and 2 threads, two builds of kernclass side by side
# (A/B), beside one busy process or not:
#   Rscript inst/benchmarks/contention-ab.R --lib LIB_A,LIB_B [--rounds 3] [--idle]
#   Rscript inst/benchmarks/contention-ab.R --smoke   (seconds: tiny tasks, one round)
#   Rscript inst/benchmarks/contention-ab.R --help    (every flag, with its defaults)
# LIB_A, LIB_B: libraries with kernclass installed (R CMD INSTALL -l LIB .);
# without --lib, the library kernclass loads from (KERNCLASS_LIB, else R's)
# for both. Each round runs one fresh R process per build, A then B, each
# timing every task on 1 and on 2 threads alternately (--pairs pairs);
# beside a busy loop that this script starts and stops, unless --idle.
# Prints, per build and task, the medians over all pairs and the median of
# the pairs' ratios 2 threads / 1 thread. The fits on 1 and 2 threads must
# give identical objectives ("same"). The tasks are run.R's contention
# tasks at --quick sizes (common.R's make_data(), the same seeds).

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(script)) dirname(normalizePath(script[1])) else "inst/benchmarks"
source(file.path(bench_dir, "common.R"))
o <- bench_script(list(
  bench_flag("--rounds", "int", full = 3, smoke = 1, help = "rounds (a process per build each)"),
  bench_flag("--pairs", "int", full = 3, smoke = 1,
             help = "timings of each task on 1 and 2 threads per process"),
  bench_flag("--idle", "flag", help = "no busy process beside the fits"),
  bench_flag("--worker", "chr", help = "(internal) one build's timings, printed as CSV")),
  usage = "Rscript inst/benchmarks/contention-ab.R [flags]",
  lib = "LIB_A,LIB_B: the two builds (default: the library kernclass loads from, twice)")

if (!is.null(o$worker)) {
  bench_load_kernclass(o$worker)
  s20 <- make_data(size(5000, 5000, 300), 20, 20020)
  s100 <- make_data(size(5000, 5000, 300), 100, 20100)
  data(spam, package = "kernlab", envir = environment())
  spam <- spam[round(seq(1, nrow(spam), length.out = size(nrow(spam), nrow(spam), 300))), ]
  tasks <- list(
    spam = function() kernel_svm(type ~ ., data = spam)$objective,
    s20 = function() kernel_svm(s20$x, s20$y, gamma = 1 / 20, scale = FALSE)$objective,
    s100 = function() kernel_svm(s100$x, s100$y, gamma = 1 / 100, scale = FALSE)$objective)
  for (t in names(tasks)) for (r in seq_len(o$pairs)) {
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

if (is.null(o$lib)) {
  bench_load_kernclass()
  o$lib <- rep(dirname(find.package("kernclass")), 2L)
}
if (length(o$lib) != 2L) stop("--lib takes two libraries, LIB_A,LIB_B", call. = FALSE)
libs <- c(A = o$lib[1], B = o$lib[2])
busy <- !o$idle
job <- if (busy) parallel::mcparallel({ end <- Sys.time() + 3600; while (Sys.time() < end) NULL })
rows <- list()
for (round in seq_len(o$rounds)) for (b in names(libs)) {
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c("--vanilla", shQuote(file.path(bench_dir, "contention-ab.R")),
                   "--worker", shQuote(libs[[b]]), "--pairs", o$pairs,
                   switch(o$mode, full = NULL, quick = "--quick", smoke = "--smoke")),
                 stdout = TRUE)
  r <- utils::read.csv(text = out, header = FALSE, col.names = c("task", "one", "two", "same"))
  rows[[length(rows) + 1L]] <- cbind(build = b, r)
}
if (busy) {
  tools::pskill(job$pid, tools::SIGKILL)
  invisible(suppressWarnings(parallel::mccollect(job, wait = TRUE, timeout = 5)))
}
d <- do.call(rbind, rows)
cat(sprintf("%s; %d rounds x %d pairs; load average %s at the end\n",
            if (busy) "beside one busy process" else "no busy process of ours", o$rounds, o$pairs,
            paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")))
for (key in unique(paste(d$build, d$task))) {
  s <- d[paste(d$build, d$task) == key, ]
  cat(sprintf("%s (%s) %-5s 1 thread %.3f s, 2 threads %.3f s, 2/1 ratio %.2f, same %s\n",
              s$build[1], libs[[s$build[1]]], s$task[1], stats::median(s$one),
              stats::median(s$two), stats::median(s$two / s$one), all(s$same)))
}
