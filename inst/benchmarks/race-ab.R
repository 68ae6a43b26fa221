# kernel_tune()'s race (the default search) on run.R's synthetic grid, two builds
# of kernclass side by side (A/B):
#   Rscript inst/benchmarks/race-ab.R LIB_A LIB_B [rounds] [readme|satellite] [threads]
# LIB_A, LIB_B: libraries with kernclass installed (R CMD INSTALL -l LIB .).
# Each round runs one fresh R process per build, A then B, each timing 7
# searches (gc() before each) after one untimed; readme: run.R's
# make_data(2000, 20, 2007); satellite: mlbench's first 4,435 rows. The grid
# is run.R's: cost 2^(-3, -1, 1, 3, 5) x gamma 2^(-9, -7, -5, -3, -1), 5
# folds, set.seed(1). Prints per build the best and the median of all
# searches, elapsed and CPU seconds, and whether both builds' results
# tables were identical.
args <- commandArgs(TRUE)
if (length(args) >= 2 && args[1] == "--worker") {
  suppressMessages(library(kernclass, lib.loc = args[2]))
  options(kernclass.threads = as.integer(args[4]))
  if (args[3] == "readme") {
    src <- readLines(file.path(args[6], "common.R"))
    at <- grep("^make_data <- function", src)
    eval(parse(text = src[at:(at + 7L)]))
    dat <- make_data(2000, 20, 2007)
  } else {
    e <- new.env()
    utils::data("Satellite", package = "mlbench", envir = e)
    x <- as.matrix(e$Satellite[, names(e$Satellite) != "classes"])
    dat <- list(x = x[1:4435, ], y = droplevels(e$Satellite$classes)[1:4435])
  }
  grid <- list(cost = 2^c(-3, -1, 1, 3, 5), gamma = 2^c(-9, -7, -5, -3, -1))
  search <- function() {
    set.seed(1)
    kernel_tune(kernel_svm, dat$x, dat$y, grid = grid, folds = 5)
  }
  res <- search()$results
  times <- t(vapply(1:7, function(i) {
    gc()
    t <- system.time(search())
    c(t[[3]], t[[1]] + t[[2]])
  }, numeric(2)))
  saveRDS(list(times = times, results = res), args[5])
  quit(save = "no")
}
lib <- args[1:2]
rounds <- if (length(args) >= 3) as.integer(args[3]) else 3L
data <- if (length(args) >= 4) match.arg(args[4], c("readme", "satellite")) else "readme"
threads <- if (length(args) >= 5) as.integer(args[5]) else 2L
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
rscript <- file.path(R.home("bin"), "Rscript")
runs <- list(list(), list())
load <- function() tryCatch(readLines("/proc/loadavg", 1L), error = function(e) "?")
cat("load before:", load(), "\n")
for (r in seq_len(rounds)) for (b in 1:2) {
  out <- tempfile(fileext = ".rds")
  system2(rscript, c("--vanilla", sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                           value = TRUE)),
                     "--worker", lib[b], data, threads, out, here))
  runs[[b]][[r]] <- readRDS(out)
  unlink(out)
}
cat("load after:", load(), "\n")
for (b in 1:2) {
  tm <- do.call(rbind, lapply(runs[[b]], `[[`, "times"))
  cat(sprintf("%s: %s, %d threads, %d searches: elapsed best %.3f median %.3f s; CPU best %.3f median %.3f s\n",
              c("A", "B")[b], data, threads, nrow(tm), min(tm[, 1]), stats::median(tm[, 1]),
              min(tm[, 2]), stats::median(tm[, 2])))
}
cat("results identical:", identical(runs[[1]][[1]]$results, runs[[2]][[1]]$results), "\n")
