# Running code in a fresh R process (Rscript) that loads the same kernclass
# as this session: for interrupts sent with a real SIGINT and for models read
# back by another process.

# Start `lines` of R code in a child Rscript, in the background, with the
# kernclass of this session attached and `dir` (a directory shared with the
# parent) defined. Returns list(dir, pid, log).
start_child <- function(lines, dir = tempfile("kcchild")) {
  dir.create(dir, showWarnings = FALSE)
  script <- file.path(dir, "child.R")
  writeLines(c(sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
               "suppressPackageStartupMessages(library(kernclass))",
               sprintf("dir <- %s", deparse(dir)),
               "writeLines(as.character(Sys.getpid()), file.path(dir, 'pid.tmp'))",
               "file.rename(file.path(dir, 'pid.tmp'), file.path(dir, 'pid'))",
               lines), script)
  log <- file.path(dir, "child.log")
  # the engine of this process (under valgrind, which hides AVX-512, it is
  # not the CPU's best), so that results can be compared bit for bit
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
          env = paste0("KERNCLASS_ISA=", kernclass:::kc_engine()),
          wait = FALSE, stdout = log, stderr = log)
  wait_for_file(file.path(dir, "pid"), log)
  list(dir = dir, pid = as.integer(readLines(file.path(dir, "pid"))), log = log)
}

# Wait until `path` exists (files are written under another name and renamed,
# so an existing file is complete); an error with the child's log on timeout.
wait_for_file <- function(path, log = NULL, timeout = 60) {
  start <- proc.time()[["elapsed"]]
  while (!file.exists(path)) {
    if (proc.time()[["elapsed"]] - start > timeout) {
      stop("no ", basename(path), " from the child after ", timeout, " s; its log:\n",
           if (!is.null(log) && file.exists(log)) paste(readLines(log), collapse = "\n"))
    }
    Sys.sleep(0.005)
  }
  invisible(path)
}

# Child side: write `value` (R code) so that the parent sees it complete.
child_write_lines <- c(
  "put <- function(name, value) {",
  "  tmp <- file.path(dir, paste0(name, '.tmp'))",
  "  saveRDS(value, tmp)",
  "  file.rename(tmp, file.path(dir, name))",
  "}",
  "take <- function(name) {",
  "  path <- file.path(dir, name)",
  "  while (!file.exists(path)) Sys.sleep(0.005)",
  "  readRDS(path)",
  "}")

# Parent side: the value the child put under `name`.
take_from_child <- function(child, name, timeout = 60) {
  wait_for_file(file.path(child$dir, name), child$log, timeout)
  readRDS(file.path(child$dir, name))
}

put_for_child <- function(child, name, value) {
  tmp <- file.path(child$dir, paste0(name, ".tmp"))
  saveRDS(value, tmp)
  file.rename(tmp, file.path(child$dir, name))
}

# Let the child end on its own (within `timeout` s: under covr it writes its
# coverage at exit, and a kill in the middle leaves a corrupt file), then
# kill it if it is still there; remove its directory.
stop_child <- function(child, timeout = 10) {
  start <- proc.time()[["elapsed"]]
  while (isTRUE(tools::pskill(child$pid, 0L)) && proc.time()[["elapsed"]] - start < timeout) {
    Sys.sleep(0.05)
  }
  tools::pskill(child$pid, tools::SIGKILL)
  unlink(child$dir, recursive = TRUE)
}

# Run `lines` of R code, which leave their results in `res`, in a fresh
# Rscript (run to its end) with this session's library paths, kernclass
# attached and the environment variables `env` (such as "KERNCLASS_ISA=c":
# read when the package loads). Expects the child to exit with status 0;
# returns its `res`.
run_script <- function(lines, env = character()) {
  script <- tempfile(fileext = ".R")
  out <- tempfile(fileext = ".rds")
  on.exit(unlink(c(script, out)))
  writeLines(c(sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
               "suppressPackageStartupMessages(library(kernclass))", lines,
               sprintf("saveRDS(res, %s)", deparse(out))), script)
  status <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
                    env = env, stdout = FALSE, stderr = FALSE)
  expect_equal(status, 0L)
  readRDS(out)
}
