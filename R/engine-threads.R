#' Threads of the kernel engine
#'
#' `kernclass_threads()` tells how many threads the kernel engine uses;
#' `kernclass_threads(n)` sets it for this R session, and
#' `kernclass_threads(NULL)` goes back to the default. Results never depend
#' on the number of threads: every sum is taken in an order fixed by the data.
#'
#' @section Default: The cores this R process may use, as
#'   [parallelly::availableCores()] counts them: the CPU affinity mask,
#'   cgroup CPU quotas (containers, Slurm and other schedulers), the
#'   `mc.cores` option and `_R_CHECK_LIMIT_CORES_` (the workers that
#'   `plan(multisession)` starts set `mc.cores = 1`, so they run the engine
#'   on one thread; a worker of a cluster you make yourself sees all its
#'   machine's cores, and kernclass's own jobs there set one thread unless
#'   that worker's `kernclass.threads` says otherwise, see
#'   [kernclass-parallel]); then no more than the environment variables
#'   `OMP_THREAD_LIMIT` and `OMP_NUM_THREADS` allow. The option
#'   `kernclass.threads` (what `kernclass_threads(n)` sets) overrides all
#'   of these.
#'
#' @section Limits the engine applies itself: Whatever is asked for, the
#'   engine uses
#'   * one thread in a forked child process (`parallel::mclapply()`,
#'     `parallel::makeForkCluster()`, future's `multicore`): OpenMP's
#'     threads do not survive `fork()`, and a child that used them would
#'     wait forever;
#'   * no more threads than the processors it can see;
#'   * no more threads than the system lets it create (under `ulimit -v`,
#'     say): a team is tried once with plain threads before it is used, and
#'     cut to what could be created, so that a failed thread never ends R.
#'
#' @section Busy machines: Work is split among threads only where each
#'   thread gets enough of it: tiles of kernel values by the thousand, or,
#'   inside the SVM solver, its passes over the variables and its batches of
#'   kernel rows, which are repeated thousands of times, and the kernel
#'   matrix it fills 128 rows at a time when all of it fits in the cache.
#'   For those the solver measures, as it runs, whether all threads or one
#'   is faster per unit of work, and uses the faster, trying the other now
#'   and then (at most 2% of the time; the fill's runs, long enough, try
#'   both at once): on an idle machine threads win, beside a busy program a
#'   thread that waits for the scheduler can cost more than it saves, and
#'   then one thread wins.
#'
#' @param n The number of threads: one whole number from 1 to
#'   `.Machine$integer.max` (the engine cuts it to the threads it can run),
#'   or `NULL` for the default; anything else (`NA`, a fraction, a negative
#'   number, `3e9`) is an error of class `"kernclass_input_error"` naming
#'   `n`, and the option is left as it was. Missing: only report.
#' @param verbose `TRUE` to print where the number comes from.
#' @return Without `n`, the number of threads the engine uses now (an
#'   integer). With `n`, the previous value of the option
#'   `kernclass.threads` (`NULL` when it was not set), invisibly.
#' @export
#' @examples
#' kernclass_threads()
#' old <- kernclass_threads(1)   # one thread from here on
#' kernclass_threads()
#' kernclass_threads(old)        # back to what it was
kernclass_threads <- function(n, verbose = FALSE) {
  if (!missing(n)) {
    if (!is.null(n)) kc_check_option_value("kernclass.threads", n, arg = "n")
    old <- options(kernclass.threads = if (!is.null(n)) as.integer(n))
    return(invisible(old[[1L]]))
  }
  policy <- kc_threads_policy()
  requested <- policy[["requested"]]
  used <- policy[["used"]]
  if (isTRUE(verbose)) {
    opt <- kc_option("kernclass.threads")
    why <- c(if (!is.null(opt)) sprintf("option kernclass.threads = %s", opt)
             else sprintf("the default, %d: %s", requested, kc_default_threads_source()),
             if (used < requested) "cut by the engine (a forked child, the processors, or the threads it could create)")
    cat(sprintf("kernclass engine: %d thread%s; %s\n", used, if (used == 1L) "" else "s",
                paste(why, collapse = "; ")))
  }
  used
}

# The threads policy, whose one home is C (kc_threads_request() and
# kc_threads_cap() in src/threads.c: the option, else the cores cut by
# OMP_THREAD_LIMIT and OMP_NUM_THREADS; the engine's limit; what this
# process can run): c(requested, used, max). R gives it the option and,
# where the option is not set, the cores parallelly counts.
kc_threads_policy <- function() {
  opt <- kc_option("kernclass.threads")
  .Call(ffi_threads, if (!is.null(opt)) as.numeric(opt),
        if (is.null(opt)) kc_cores() else NA_integer_)
}

# The threads asked for, which workers take (each cuts them to what the
# process can run).
kc_threads <- function() kc_threads_policy()[["requested"]]

# The most threads the C engine ever uses.
kc_max_threads <- function() kc_threads_policy()[["max"]]

# availableCores() reads the system's files (about 8 ms): its result is kept
# for this process and the settings it depends on.
kc_thread_cache <- new.env(parent = emptyenv())

kc_cores <- function() {
  key <- paste(Sys.getpid(), getOption("mc.cores", ""), Sys.getenv("_R_CHECK_LIMIT_CORES_"))
  if (!identical(kc_thread_cache$key, key)) {
    kc_thread_cache$cores <- as.integer(parallelly::availableCores())
    kc_thread_cache$key <- key
  }
  kc_thread_cache$cores
}

kc_default_threads_source <- function() {
  cores <- parallelly::availableCores()
  env <- Sys.getenv(c("OMP_THREAD_LIMIT", "OMP_NUM_THREADS"))
  env <- env[nzchar(env)]
  paste0("parallelly::availableCores() = ", cores, " (", names(cores), ")",
         if (length(env)) paste0(", ", paste0(names(env), " = ", env, collapse = ", ")))
}
