# The benchmark suite: kernclass side by side with e1071 (LIBSVM), kernlab,
# scikit-learn's SVC (when Debian's python3-sklearn is installed) and plain R,
# in one process on one machine, so that the ratios are comparable. Run from
# the package root:
#   Rscript inst/benchmarks/run.R            the full sizes (about 35 minutes on 2 cores)
#   Rscript inst/benchmarks/run.R --quick    smaller sizes (about 5 minutes)
#   Rscript inst/benchmarks/run.R --smoke    tiny sizes: that every section runs (seconds each)
#   Rscript inst/benchmarks/run.R --only contention,scaling --out FILE
#   Rscript inst/benchmarks/run.R --only tune --tune-n 2000 --tune-reps 3
#   Rscript inst/benchmarks/run.R --help     every flag, by section, with its defaults
#   Rscript inst/benchmarks/run.R --lib LIB  kernclass from the library LIB
# One file per section, bench-<section>.R, in the order below: it defines
# `flags` (its own, made by bench_flag()) and `run(o)` (o: the parsed
# command line), which adds rows to the main table (add()) or returns its
# own lines of Markdown. common.R holds the parser, the measurement and the
# data; peers.R scikit-learn. Prints the tables and writes them, with the
# machine they ran on, to --out (default benchmark-results.md).
sections <- c("engine", "svm", "sums", "scale", "threshold", "prob", "sparse", "contention",
              "scaling", "tune", "gammas", "workers", "latency", "approx")

# this file's folder (Rscript), else (source() from the package root) inst/benchmarks
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(script)) dirname(normalizePath(script[1])) else "inst/benchmarks"
source(file.path(bench_dir, "common.R"))
source(file.path(bench_dir, "peers.R"))
defs <- lapply(stats::setNames(sections, sections), function(s) {
  env <- new.env(parent = globalenv())
  sys.source(file.path(bench_dir, sprintf("bench-%s.R", s)), envir = env)
  env$flags <- lapply(env$flags, function(f) `[[<-`(f, "section", s))
  env
})
o <- bench_parse(commandArgs(trailingOnly = TRUE),
                 c(bench_global_flags(sections), unlist(lapply(defs, `[[`, "flags"), FALSE)))
if (!all(o$only %in% sections)) {
  stop(sprintf("--only takes sections of %s, not %s", paste(sections, collapse = ", "),
               paste(setdiff(o$only, sections), collapse = ", ")), call. = FALSE)
}
bench_state$mode <- o$mode
bench_load(o$lib)
if (o$mode != "smoke") bench_warm_memory()  # (timing nothing, a smoke run needs no warm memory)

# the main table's sections add rows; the others return their own lines
own <- list()
for (s in intersect(sections, o$only)) own[[s]] <- defs[[s]]$run(o)
lines <- c(bench_header(), "", bench_main_table(), unlist(own, use.names = FALSE))
writeLines(lines)
writeLines(lines, o$out)
