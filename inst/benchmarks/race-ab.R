# kernel_tune()'s race (the default search) on run.R's synthetic grid, two builds
# of kernclass side by side (A/B):
#   Rscript inst/benchmarks/race-ab.R --lib LIB_A,LIB_B [--rounds 3] [--data readme|satellite]
#                                     [--threads 2]
#   Rscript inst/benchmarks/race-ab.R --smoke   (seconds: 300 rows, one round, 2 searches)
#   Rscript inst/benchmarks/race-ab.R --help    (every flag, with its defaults)
# LIB_A, LIB_B: libraries with kernclass installed (R CMD INSTALL -l LIB .);
# without --lib, the library kernclass loads from (KERNCLASS_LIB, else R's)
# for both. Each round runs one fresh R process per build, A then B, each
# timing --searches searches (gc() before each) after one untimed; readme:
# common.R's make_data(2000, 20, 2007); satellite: mlbench's first 4,435
# rows. The grid is run.R's: cost 2^(-3, -1, 1, 3, 5) x gamma 2^(-9, -7,
# -5, -3, -1), 5 folds, set.seed(1). Prints per build the best and the
# median of all searches, elapsed and CPU seconds, and whether both builds'
# results tables were identical.

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(script)) dirname(normalizePath(script[1])) else "inst/benchmarks"
source(file.path(bench_dir, "common.R"))
o <- bench_script(list(
  bench_flag("--rounds", "int", full = 3, smoke = 1, help = "rounds (a process per build each)"),
  bench_flag("--searches", "int", full = 7, smoke = 2, help = "timed searches per process"),
  bench_flag("--data", "chr", full = "readme", help = "readme or satellite"),
  bench_flag("--threads", "int", full = 2, help = "the engine's threads"),
  bench_flag("--worker", "chr", help = "(internal) one build's searches, saved to --result"),
  bench_flag("--result", "chr", help = "(internal) the worker's file")),
  usage = "Rscript inst/benchmarks/race-ab.R [flags]",
  lib = "LIB_A,LIB_B: the two builds (default: the library kernclass loads from, twice)")
data <- match.arg(o$data, c("readme", "satellite"))

if (!is.null(o$worker)) {
  bench_load_kernclass(o$worker)
  options(kernclass.threads = o$threads)
  if (data == "readme") {
    dat <- make_data(size(2000, 2000, 300), 20, 2007)
  } else {
    e <- new.env()
    utils::data("Satellite", package = "mlbench", envir = e)
    x <- as.matrix(e$Satellite[, names(e$Satellite) != "classes"])
    m <- size(4435, 4435, 300)
    dat <- list(x = x[1:m, ], y = droplevels(e$Satellite$classes)[1:m])
  }
  grid <- list(cost = 2^c(-3, -1, 1, 3, 5), gamma = 2^c(-9, -7, -5, -3, -1))
  search <- function() {
    set.seed(1)
    kernel_tune(kernel_svm, dat$x, dat$y, grid = grid, folds = 5)
  }
  res <- search()$results
  times <- t(vapply(seq_len(o$searches), function(i) {
    gc()
    t <- system.time(search())
    c(t[[3]], t[[1]] + t[[2]])
  }, numeric(2)))
  saveRDS(list(times = times, results = res), o$result)
  quit(save = "no")
}

if (is.null(o$lib)) {
  bench_load_kernclass()
  o$lib <- rep(dirname(find.package("kernclass")), 2L)
}
if (length(o$lib) != 2L) stop("--lib takes two libraries, LIB_A,LIB_B", call. = FALSE)
rscript <- file.path(R.home("bin"), "Rscript")
runs <- list(list(), list())
load <- function() tryCatch(readLines("/proc/loadavg", 1L), error = function(e) "?")
cat("load before:", load(), "\n")
for (r in seq_len(o$rounds)) for (b in 1:2) {
  out <- tempfile(fileext = ".rds")
  system2(rscript, c("--vanilla", shQuote(file.path(bench_dir, "race-ab.R")),
                     "--worker", shQuote(o$lib[b]), "--data", data, "--threads", o$threads,
                     "--searches", o$searches, "--result", shQuote(out),
                     switch(o$mode, full = NULL, quick = "--quick", smoke = "--smoke")))
  runs[[b]][[r]] <- readRDS(out)
  unlink(out)
}
cat("load after:", load(), "\n")
for (b in 1:2) {
  tm <- do.call(rbind, lapply(runs[[b]], `[[`, "times"))
  cat(sprintf("%s: %s, %d threads, %d searches: elapsed best %.3f median %.3f s; CPU best %.3f median %.3f s\n",
              c("A", "B")[b], data, o$threads, nrow(tm), min(tm[, 1]), stats::median(tm[, 1]),
              min(tm[, 2]), stats::median(tm[, 2])))
}
cat("results identical:", identical(runs[[1]][[1]]$results, runs[[2]][[1]]$results), "\n")
