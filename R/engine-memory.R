# Memory, stated: where an exact route would take more memory than the
# machine has, it stops before allocating, with an error of class
# "kernclass_memory_error" that says how much it needs, how much there is,
# and the approximate route that needs less. (R's own "cannot allocate
# vector" comes only after the machine has started to swap, or never, when
# the kernel kills the process first.)

# The bytes this process may still take: the option kernclass.memory_limit
# (MB; Inf for no limit; R/table-options.R) where set, else what Linux reports as available
# (MemAvailable, and a cgroup's limit less its use where lower), else Inf.
kc_memory_limit <- function() {
  opt <- kc_option("kernclass.memory_limit")
  if (is.null(opt)) kc_memory_available() else opt * 2^20
}

kc_memory_available <- function() {
  read_number <- function(path) {
    if (!file.exists(path)) return(NA_real_)
    v <- suppressWarnings(as.numeric(readLines(path, n = 1L, warn = FALSE)))
    if (length(v) == 1L) v else NA_real_
  }
  avail <- Inf
  if (file.exists("/proc/meminfo")) {
    line <- grep("^MemAvailable:", readLines("/proc/meminfo", warn = FALSE), value = TRUE)
    if (length(line) == 1L) avail <- as.numeric(gsub("[^0-9]", "", line)) * 1024
  }
  # cgroup v2 ("max" reads as NA: no limit)
  left <- read_number("/sys/fs/cgroup/memory.max") - read_number("/sys/fs/cgroup/memory.current")
  if (!is.na(left)) avail <- min(avail, max(left, 0))
  avail
}

# The bytes the exact SVM may keep for speed alone: a quarter of the memory
# available (kc_memory_limit()). Its one reader: the default cachesize
# (R/fit-svm.R) and the class pairs' shared kernel blocks (kc_svm_pairs(),
# R/fit-svm-solve.R; the store chosen by the solve's planner, src/svm-plan.c).
# Whichever store the budget gives, the model is the same (src/smo.c).
kc_svm_budget <- function() kc_memory_limit() / 4

# The bytes kernel_tune() may keep on a fold being fitted (option
# kernclass.tune.store_mb): the SVM path's kernel rows and its shared
# kernel (R/select-svm-path.R), the gammas' shared kernel sums (R/select.R).
kc_tune_budget <- function() kc_option("kernclass.tune.store_mb") * 2^20

kc_format_bytes <- function(bytes) {
  if (bytes >= 2^30) sprintf("%.1f GB", bytes / 2^30) else sprintf("%.0f MB", bytes / 2^20)
}

# Stops when `bytes` exceed the memory available: `what` needs them, `route`
# says what to do instead.
kc_check_memory <- function(bytes, what, route, arg = "x") {
  limit <- kc_memory_limit()
  if (bytes <= limit) return(invisible(TRUE))
  kc_abort(sprintf("%s needs about %s of memory; %s available%s. %s", what,
                   kc_format_bytes(bytes),
                   if (limit > 0) paste("only", kc_format_bytes(limit), "is") else "none is",
                   if (is.null(kc_option("kernclass.memory_limit"))) "" else
                     " (option kernclass.memory_limit)", route),
           arg = arg, class = "memory")
}

# The approximate routes, for the messages.
kc_memory_route <- paste0(
  "For large data use approx = cells(size = ...) with kernel_svm() (an exact SVM in each cell ",
  "of about `size` rows) or approx = nystrom(m = ...) with any classifier (m features per ",
  "row); see ?approximations.")
