# What the benchmark sections share (sourced by run.R before the sections):
# the command line (one parser for every section's flags, with defaults by
# size and --help), loading kernclass and its peers, timing and memory
# measurement, the synthetic data, the main table and the output file.

# ---- the command line -----------------------------------------------------
# One flag: --name VALUE or --name=VALUE. type "int" or "num" (a
# comma-separated list of numbers), "chr" (a comma-separated list of words)
# or "flag" (present or not). The default may differ by the sizes asked for:
# full (none of the two), --quick and --smoke.
bench_flag <- function(name, type = c("int", "num", "chr", "flag"), full = NULL, quick = full,
                       smoke = quick, help = "") {
  type <- match.arg(type)
  if (type == "flag") full <- quick <- smoke <- FALSE
  if (type == "int") {
    full <- if (!is.null(full)) as.integer(full)
    quick <- if (!is.null(quick)) as.integer(quick)
    smoke <- if (!is.null(smoke)) as.integer(smoke)
  }
  list(name = name, type = type, defaults = list(full = full, quick = quick, smoke = smoke),
       help = help, section = "")
}

# The flags every run takes; the sections' own come from their files.
bench_global_flags <- function(sections) list(
  bench_flag("--quick", "flag", help = "smaller sizes (about 5 minutes in all)"),
  bench_flag("--smoke", "flag",
             help = "tiny sizes, seconds a section: checks that every section runs, times nothing"),
  bench_flag("--only", "chr", full = sections,
             help = paste("the sections to run (default: all), of", paste(sections, collapse = ", "))),
  bench_flag("--out", "chr", full = "benchmark-results.md", help = "the file the tables go to"),
  bench_flag("--lib", "chr", help = paste("the library to load kernclass from (two builds side",
                                           "by side: one run each, in turn)")))

bench_value <- function(flag, value) {
  words <- strsplit(value, ",", fixed = TRUE)[[1]]
  out <- switch(flag$type, int = suppressWarnings(as.integer(words)),
                num = suppressWarnings(as.numeric(words)), chr = words)
  if (!length(out) || anyNA(out)) {
    stop(sprintf("%s takes %s, not '%s' (see --help)", flag$name,
                 if (flag$type == "chr") "a comma-separated list" else "numbers separated by commas",
                 value), call. = FALSE)
  }
  out
}

# The flags of a stand-alone script (conformal.R, venn-abers.R, the A/B
# scripts): the sizes and the library; `lib` says what --lib takes there.
bench_script_flags <- function(lib = paste("the library to load kernclass from (default: the",
                                           "KERNCLASS_LIB environment variable, else R's)")) list(
  bench_flag("--quick", "flag", help = "smaller sizes"),
  bench_flag("--smoke", "flag",
             help = "tiny sizes, seconds: checks that the script runs, times nothing"),
  bench_flag("--lib", "chr", help = lib))

# A stand-alone script's command line: its own flags and bench_script_flags(),
# parsed (--help prints `usage` and the flags), the sizes asked for set.
bench_script <- function(flags, usage, lib = NULL) {
  o <- bench_parse(commandArgs(trailingOnly = TRUE),
                   c(if (is.null(lib)) bench_script_flags() else bench_script_flags(lib), flags),
                   usage = usage)
  bench_state$mode <- o$mode
  o
}

# kernclass from `lib`, else from KERNCLASS_LIB where set, else R's library.
bench_load_kernclass <- function(lib = NULL) {
  if (is.null(lib) && nzchar(Sys.getenv("KERNCLASS_LIB"))) lib <- Sys.getenv("KERNCLASS_LIB")
  suppressPackageStartupMessages(library(kernclass, lib.loc = lib))
}

# The options of a run: a list named as the flags without "--", "-" as "_"
# (--tune-n: $tune_n), each the value given or the default for the sizes
# asked for, and $mode ("full", "quick" or "smoke").
bench_parse <- function(args, flags, usage = "Rscript inst/benchmarks/run.R [flags]") {
  names(flags) <- vapply(flags, `[[`, "", "name")
  if (anyDuplicated(names(flags))) {
    stop("two sections declare ", names(flags)[duplicated(names(flags))][1], call. = FALSE)
  }
  given <- list()
  i <- 1L
  while (i <= length(args)) {
    a <- args[i]
    if (a %in% c("--help", "-h")) {
      bench_help(flags, usage)
      quit(save = "no", status = 0)
    }
    key <- sub("=.*", "", a)
    if (!key %in% names(flags)) stop(sprintf("unknown argument '%s' (see --help)", a), call. = FALSE)
    f <- flags[[key]]
    if (f$type == "flag") {
      if (key != a) stop(sprintf("%s takes no value", key), call. = FALSE)
      given[[key]] <- TRUE
    } else {
      if (key == a) {
        i <- i + 1L
        if (i > length(args)) stop(sprintf("%s needs a value (see --help)", key), call. = FALSE)
        value <- args[i]
      } else {
        value <- sub("^[^=]*=", "", a)
      }
      given[[key]] <- bench_value(f, value)
    }
    i <- i + 1L
  }
  mode <- if (isTRUE(given[["--smoke"]])) "smoke" else if (isTRUE(given[["--quick"]])) "quick" else "full"
  out <- lapply(flags, function(f) if (is.null(given[[f$name]])) f$defaults[[mode]] else given[[f$name]])
  names(out) <- gsub("-", "_", sub("^--", "", names(flags)))
  out$mode <- mode
  out
}

bench_help <- function(flags, usage = "Rscript inst/benchmarks/run.R [flags]") {
  show <- function(v) {
    paste(if (is.character(v)) v else format(v, scientific = FALSE, trim = TRUE), collapse = ",")
  }
  cat("Usage: ", usage, "   (from the package root)\n",
      "Flags take a value as --flag VALUE or --flag=VALUE; defaults: full [--quick] {--smoke}.\n",
      sep = "")
  for (s in unique(vapply(flags, `[[`, "", "section"))) {
    cat(sprintf("\n%s:\n", if (nzchar(s)) paste("section", s) else "every run"))
    for (f in flags[vapply(flags, `[[`, "", "section") == s]) {
      d <- f$defaults
      default <- if (f$type == "flag" || is.null(d$full) || f$name == "--only") "" else {
        vals <- vapply(d, show, "")
        sprintf(" (default %s%s%s)", vals[["full"]],
                if (vals[["quick"]] != vals[["full"]]) sprintf(" [%s]", vals[["quick"]]) else "",
                if (vals[["smoke"]] != vals[["quick"]]) sprintf(" {%s}", vals[["smoke"]]) else "")
      }
      cat(sprintf("  %-26s %s%s\n", paste(f$name, if (f$type != "flag") toupper(f$type)),
                  f$help, default))
    }
  }
}

# The state of a run: the sizes asked for, the main table's rows.
bench_state <- new.env()
bench_state$mode <- "full"
bench_state$rows <- list()

# A size by the sizes asked for: full, --quick (small), --smoke (tiny).
size <- function(full, small, tiny) {
  switch(bench_state$mode, full = full, quick = small, smoke = tiny)
}

# kernclass (from --lib where given) and the peers every section may use.
bench_load <- function(lib = NULL) {
  bench_load_kernclass(lib)
  suppressPackageStartupMessages({
    library(e1071)
    library(kernlab)
  })
}

# ---- measurement --------------------------------------------------------
# Memory a (virtual) machine has never handed to this process is slow to touch
# the first time (measured on the development VM: about 1 GB/s, so the first
# SVM fit of a session paid a second for its 1 GB row cache, later ones did
# not). Touching 3 GB once, as any long R session has, makes every package's
# timed run a warm one.
bench_warm_memory <- function() {
  invisible(numeric(3 * 2^27))
  invisible(gc())
}
status_kb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  if (length(line)) as.numeric(gsub("[^0-9]", "", line)) else NA_real_
}
reset_peak <- function() {
  tryCatch({ writeLines("5", "/proc/self/clear_refs"); TRUE }, error = function(e) FALSE,
           warning = function(w) FALSE)
}
# Peak memory is the rise of the process's resident set (VmHWM, reset before
# each task through /proc/self/clear_refs): it counts malloc'ed memory too
# (the caches of e1071 and kernlab), not just R's heap.
measure <- function(expr) {
  gc()
  can_reset <- reset_peak()
  before <- status_kb("VmRSS")
  st <- system.time(value <- force(expr))
  peak <- if (can_reset) (status_kb("VmHWM") - before) / 1024 else NA_real_
  list(value = value, seconds = st[["elapsed"]], peak_mb = max(peak, 0),
       cpu = st[["user.self"]] + st[["sys.self"]])
}
median_seconds <- function(f, reps) {
  stats::median(vapply(seq_len(reps), function(i) {
    invisible(gc())
    system.time(f())[["elapsed"]]
  }, numeric(1)))
}
with_threads <- function(n, f) function() {
  old <- options(kernclass.threads = n)
  on.exit(options(old))
  f()
}
default_threads <- function() {
  old <- options(kernclass.threads = NULL)
  on.exit(options(old))
  kernclass_threads()
}
# The machine's 1-minute load average (other programs count).
load_avg <- function() {
  if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg"), " ")[[1]][1] else "?"
}

# ---- data ---------------------------------------------------------------
# Two classes from a fixed labelling rule (the same for training and test
# data of one dimension d), with label noise.
make_data <- function(n, d, seed) {
  set.seed(d)
  w <- rnorm(d)
  set.seed(seed)
  x <- matrix(rnorm(n * d), n)
  f <- drop(x %*% w) / sqrt(d) + 0.5 * sin(3 * x[, 1])
  list(x = x, y = factor(ifelse(f + rnorm(n, sd = 0.5) > 0, "a", "b")), f = f)
}

# Real data sets that CRAN packages ship (datasets, MASS, mlbench), each as
# list(x = numeric inputs, y = classes, source = the package): the ones of
# `names` that are installed (mlbench's need mlbench). Each mlbench set is
# named in its own data() call, which tools/check-data.R checks.
bench_datasets <- function(names = c("iris", "Pima", "Sonar", "Ionosphere", "Glass", "Vehicle",
                                     "Vowel")) {
  mlb <- function(load) {
    if (!requireNamespace("mlbench", quietly = TRUE)) return(NULL)
    e <- new.env()
    load(e)
    e[[ls(e)]]
  }
  make <- list(
    iris = function() list(x = iris[, 1:4], y = iris$Species, source = "datasets"),
    # the Pima Indians diabetes rows without missing values, as MASS (a
    # recommended package) ships them in two parts (CRAN's mlbench dropped
    # its PimaIndiansDiabetes in 2.1-10)
    Pima = function() {
      utils::data("Pima.tr", "Pima.te", package = "MASS", envir = e <- new.env())
      d <- rbind(e$Pima.tr, e$Pima.te)
      list(x = d[, 1:7], y = d$type, source = "MASS's Pima.tr + Pima.te")
    },
    Sonar = function() {
      d <- mlb(function(e) utils::data("Sonar", package = "mlbench", envir = e))
      if (!is.null(d)) list(x = d[, 1:60], y = d$Class, source = "mlbench")
    },
    Ionosphere = function() {
      d <- mlb(function(e) utils::data("Ionosphere", package = "mlbench", envir = e))
      # V2 is constant, V1 a factor 0/1
      if (!is.null(d)) list(x = data.frame(V1 = as.numeric(as.character(d$V1)), d[, 3:34]),
                            y = d$Class, source = "mlbench")
    },
    Glass = function() {
      d <- mlb(function(e) utils::data("Glass", package = "mlbench", envir = e))
      if (!is.null(d)) list(x = d[, 1:9], y = droplevels(d$Type), source = "mlbench")
    },
    Vehicle = function() {
      d <- mlb(function(e) utils::data("Vehicle", package = "mlbench", envir = e))
      if (!is.null(d)) list(x = d[, 1:18], y = d$Class, source = "mlbench")
    },
    Vowel = function() {
      d <- mlb(function(e) utils::data("Vowel", package = "mlbench", envir = e))
      if (!is.null(d)) list(x = d[, 2:11], y = d$Class, source = "mlbench")
    })
  unknown <- setdiff(names, names(make))
  if (length(unknown)) {
    stop(sprintf("no data set %s; there are %s", paste(unknown, collapse = ", "),
                 paste(names(make), collapse = ", ")), call. = FALSE)
  }
  Filter(Negate(is.null), lapply(stats::setNames(names, names), function(nm) make[[nm]]()))
}

# ---- the main table -----------------------------------------------------
# One row of the main table (seconds, ratio of each peer's time to
# kernclass's, GFLOP/s, test accuracy, support vectors, dual objective, peak
# memory), printed as soon as it is measured.
add <- function(task, who, m, gflop = NA, accuracy = NA, svs = NA, objective = NA, note = "") {
  bench_state$rows[[length(bench_state$rows) + 1L]] <- data.frame(
    task = task, implementation = who, seconds = m$seconds,
    gflops = gflop / m$seconds, accuracy = accuracy, svs = svs, objective = objective,
    peak_mb = m$peak_mb, note = note)
  cat(sprintf("%-48s %-34s %8.3f s %8.0f MB %s\n", task, who, m$seconds, m$peak_mb,
              if (is.na(accuracy)) "" else sprintf("acc %.4f svs %s", accuracy, svs)))
}

bench_main_table <- function() {
  if (!length(bench_state$rows)) return(NULL)
  tab <- do.call(rbind, bench_state$rows)
  first <- tab$seconds[match(tab$task, tab$task)]
  num <- function(x, fmt) ifelse(is.na(x), "", sprintf(fmt, x))
  fmt <- data.frame(task = tab$task, implementation = tab$implementation,
                    seconds = sprintf("%.3f", tab$seconds),
                    "x kernclass" = sprintf("%.1f", tab$seconds / first),
                    "GFLOP/s" = num(tab$gflops, "%.1f"), accuracy = num(tab$accuracy, "%.4f"),
                    SVs = num(tab$svs, "%.0f"), objective = num(tab$objective, "%.3f"),
                    "peak MB" = num(tab$peak_mb, "%.0f"), note = tab$note, check.names = FALSE)
  c(knitr::kable(fmt, format = "pipe", align = "llrrrrrrrl"), "",
    "x kernclass: seconds divided by kernclass's seconds on the same task (higher is slower).",
    "Same data, kernel (RBF, gamma = 1/d), C = 1, tolerance 1e-3 and scale = FALSE for every",
    "SVM; each package at its default cache size. Objective: the dual 1/2 a'Qa - sum(a).",
    "Peak MB: rise of the resident set during the task.", "")
}

# The versions and the machine the tables came from.
bench_header <- function() {
  cpu <- grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1]
  c(sprintf("kernclass %s (engine: %s), e1071 %s, kernlab %s, %s", packageVersion("kernclass"),
            kernclass:::kc_engine(), packageVersion("e1071"), packageVersion("kernlab"),
            R.version.string),
    sprintf("%s, %d cores, %.0f GB; %s; %s", sub("^model name\\s*:\\s*", "", cpu),
            parallel::detectCores(),
            as.numeric(gsub("[^0-9]", "", readLines("/proc/meminfo")[1])) / 2^20,
            format(Sys.time(), "%Y-%m-%d"),
            switch(bench_state$mode, full = "full sizes", quick = "--quick sizes",
                   smoke = "--smoke sizes")),
    sprintf("default threads: %d; scikit-learn: %s", default_threads(), sklearn_version()))
}
