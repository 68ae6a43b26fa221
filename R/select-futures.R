# Where the work runs: futures for folds, grid cells and an SVM's class
# pairs (future.apply, parallel-safe seeds), one unit of work with its
# warnings and errors kept as values, and their relay to the caller once
# each. kernel_cv(), kernel_tune() and kernel_svm() share them.

# future.apply when installed (it is imported), one element per future with
# its own seed; warnings and errors come back as values (kc_relay()).
# seed = FALSE for work that draws no random numbers (future then says so if
# it does): the session's random numbers are left as they were, and under
# the sequential plan the elements run as a plain loop, the same work
# without the futures around it (about 2 ms an element, measured: half the
# R time of a race on the benchmarks' synthetic 5 x 5 grid, n = 2,000).
kc_future_lapply <- function(x, f, seed = TRUE) {
  if (isFALSE(seed) && inherits(future::plan(), "sequential")) return(lapply(x, f))
  # recent versions of future turn a Ctrl-C inside a future into a FutureInterruptError,
  # an error that tryCatch(error = ) would swallow: it stays an interrupt here
  tryCatch(future.apply::future_lapply(x, f, future.seed = seed, future.scheduling = 1,
                                       future.packages = "kernclass"),
           FutureInterruptError = function(e) kc_interrupt())
}

# Signals an interrupt as R's own Ctrl-C does: a condition of class
# "interrupt" for the handlers that ask for one, then back to the top level.
# C raises its interrupts through it too (kc_raise_interrupt, src/callback.c).
kc_interrupt <- function() {
  signalCondition(structure(class = c("interrupt", "condition"),
                            list(message = "", call = NULL)))
  invokeRestart("abort")
}

# The independent problems inside one fit (kernel_svm's class pairs, and
# the folds of their probability models): futures when future::plan() has
# workers, so that they run side by side, each worker's engine on one
# thread; else a plain loop, with the engine's threads inside each problem
# (no cost of futures on small fits). They draw no random numbers, so the
# model does not depend on the plan; their warnings and errors reach the
# caller as they are.
kc_problems_lapply <- function(x, f) {
  if (length(x) > 1L && future::nbrOfWorkers() > 1L) kc_future_lapply(x, f, seed = FALSE)
  else lapply(x, f)
}

# One unit of work (a fold of cells, an SVM path over its folds, a cell's
# exact leave-one-out), with its warnings collected and an error returned
# as a value, so that the caller reports each once and names the grid row.
# sel: the selection problem (kc_selection()), task$cells positions in its
# cells.
kc_run_task <- function(task, sel) {
  task <- kc_unship(task)
  warnings <- list()
  fold <- sel$fold
  rows <- switch(task$kind, exact = seq_along(sel$d$y), path = which(fold %in% task$folds),
                 which(fold == task$fold))
  own <- kc_selection_cells(sel, task$cells)
  result <- withCallingHandlers(
    tryCatch(switch(task$kind,
      exact = list(list(predicted = as.character(kc_loo_exact(sel$fit, sel$d$x, sel$d$y,
                                                              c(own$cells[[1L]], sel$args))))),
      path = kc_fitter_path(sel$fit)$plan_fits(task, own, rows),
      kc_fold_fits(own, rows)
    ), error = function(e) e),
    warning = function(wn) {
      wn$call <- NULL
      warnings[[length(warnings) + 1L]] <<- wn
      invokeRestart("muffleWarning")
    })
  list(task = task, rows = rows, result = result, warnings = warnings)
}

# A unit of work's share of the progress bar: `steps` steps (its folds x
# grid rows) over its `units` (NULL: none inside it; the C path's class
# pairs on a fold, src/units.c). The function returned takes the number of
# units newly finished and advances the progressor p by the whole steps
# they make; called with none, by the steps left (the unit of work ended).
# An error of a progress handler reaches the caller's handlers as from R
# code (src/callback.c holds it until the units have stopped).
kc_task_progress <- function(p, steps, units = NULL) {
  done <- 0
  told <- 0
  tell <- function(amount) {
    told <<- told + amount
    p(amount = amount)
  }
  function(n) {
    if (missing(n)) {
      if (steps > told) tell(steps - told)
      return(invisible())
    }
    done <<- done + n
    now <- floor(steps * min(done / units, 1))
    if (now > told) tell(now - told)
    invisible()
  }
}

# Warnings once each; the first error (in task order) with its grid row.
kc_relay <- function(out, cells) {
  warns <- unlist(lapply(out, `[[`, "warnings"), recursive = FALSE)
  for (w in warns[!duplicated(vapply(warns, conditionMessage, character(1)))]) warning(w)
  for (o in out) {
    r <- o$result
    if (inherits(r, "condition")) {
      i <- o$task$cells[if (is.null(r$kc_cell)) 1L else r$kc_cell]
      r$kc_cell <- NULL
      if (length(cells) > 1L || length(cells[[1L]])) {
        r$message <- sprintf("Grid row %d (%s): %s", i, kc_grid_label(cells[[i]]),
                             conditionMessage(r))
      }
      stop(r)
    }
  }
}

# ---- where the shared SVM paths run ---------------------------------------------

#' Where the work runs: threads, local workers and clusters
#'
#' kernclass runs in parallel in two ways: the kernel engine's threads inside
#' this R session ([kernclass_threads()]), and the workers of a
#' [future::plan()], which [kernel_tune()], [kernel_cv()], `cells()` and the
#' class pairs of [kernel_svm()] hand their units of work to. Results never
#' depend on which: every unit computes the same numbers wherever it runs,
#' and units that draw random numbers get parallel-safe streams.
#'
#' @section On one machine: The default, `plan(sequential)`, runs
#'   everything here with the engine's threads (all the cores this process
#'   may use). For [kernel_svm()]'s searches (dense inputs, the `"rbf"` or
#'   `"laplace"` kernel, C-classification: the shared cost paths of
#'   [kernel_tune()]) the threads already run whole units side by side: a
#'   class pair's costs on a fold is one unit, each on one thread. Workers on
#'   the same machine would run the same units on the same cores, but pay
#'   for each future and for a copy of the data in each worker, at every
#'   fold of a race. So under a plan whose workers are processes on this
#'   machine (`multisession`, `multicore`, future.callr's `callr`,
#'   future.mirai's `mirai_multisession`) these searches run here, on at
#'   least as many threads as the plan has workers: a race and a screen on
#'   `plan(multisession, workers = 2)` take the time of 2 threads
#'   (`inst/benchmarks/run.R --only workers`). Every other unit of work (folds of
#'   other fitters, probability models, grids with other kernels) goes to
#'   the workers as futures.
#'
#' @section On other machines: A plan with workers elsewhere gets the units
#'   as futures: `plan(cluster, workers = c("host1", "host2"))` (R and
#'   kernclass installed on each; [parallelly::makeClusterPSOCK()] for more
#'   options), future.mirai's `mirai_cluster` or a scheduler's plan such as
#'   future.batchtools' `batchtools_slurm`. There each round of the shared
#'   SVM paths is one future per worker, a share of the kernel settings; a
#'   scheduler with no fixed number of workers gets one future per kernel
#'   setting. A screened search (`search = "screen"`) is one round for the
#'   whole grid; a race (the default) one round per fold, each waiting for
#'   the slowest share before the next, so on a cluster with slow round
#'   trips the screened search can be the faster one. The data go to each
#'   worker once: the worker keeps them between a race's folds and lets
#'   them go after its last (only the inputs scaled for the next fold
#'   travel); a worker that does not have them (a scheduler starts a new
#'   process for each future) gets them again, and the rest of that search
#'   sends them with every future.
#'
#'   Each worker runs the engine on one thread, as many workers as cores
#'   being the rule; one worker per machine can use more with the option
#'   set in the workers, e.g.
#'   `parallel::clusterEvalQ(cl, options(kernclass.threads = 16))`.
#'
#'   A future is two messages over the cluster's sockets. On Linux a
#'   message over about 4 KB waits some 40 ms for the other side's
#'   acknowledgement unless the socket has the `"no-delay"` option (see
#'   [socketConnection()]): set `options(socketOptions = "no-delay")` in
#'   this session before making the cluster, with
#'   [parallelly::makeClusterPSOCK()] (which sets it in the workers) or
#'   `plan(cluster, workers = ...)`, which calls it. Without it a race of
#'   [kernel_svm()] over a 5 x 5 grid on 2,000 rows (20 inputs, two
#'   classes) pays about 0.1 s a fold in waits (`inst/benchmarks/run.R
#'   --only workers`).
#'
#' @name kernclass-parallel
#' @aliases kernclass_parallel
#' @seealso [kernclass_threads()], [kernel_tune()], [future::plan()].
#' @examples
#' # the same race on threads and on two local workers (which run it here)
#' d <- iris[, 1:4]
#' set.seed(1)
#' a <- kernel_tune(kernel_svm, d, iris$Species, folds = 3,
#'                  grid = list(cost = c(1, 10), gamma = c(0.1, 1)))
#' old <- future::plan(future::multisession, workers = 2)
#' set.seed(1)
#' b <- kernel_tune(kernel_svm, d, iris$Species, folds = 3,
#'                  grid = list(cost = c(1, 10), gamma = c(0.1, 1)))
#' future::plan(old)
#' identical(a$results, b$results)
#'
#' \dontrun{
#' # other machines: R and kernclass installed on each
#' options(socketOptions = "no-delay")  # before the cluster's sockets are made
#' future::plan(future::cluster, workers = c("node1", "node1", "node2", "node2"))
#' # a mirai cluster (future.mirai), its daemons started first
#' mirai::daemons(url = mirai::host_url(), remote = mirai::ssh_config("ssh://node1"))
#' future::plan(future.mirai::mirai_cluster)
#' # a Slurm scheduler (future.batchtools): each future a job
#' future::plan(future.batchtools::batchtools_slurm, template = "slurm.tmpl")
#' tuned <- kernel_tune(kernel_svm, x, y, search = "screen")
#' future::plan(future::sequential)
#' }
NULL

# The rule: the shared SVM paths of one call (a kernel setting's costs on
# its folds, R/select-svm-path.R) run in this R session, in one call into C
# (kc_path_split()) whose units (a class pair on a fold) run side by side
# on the engine's threads, unless the plan has
# workers on other machines. Under the
# sequential plan, and where the workers are processes on this machine
# (multisession, multicore, future.callr's callr, future.mirai's
# mirai_multisession), the threads do the same units on the same cores
# without a future around each share of them nor a copy of the data in
# each worker, which a race pays again at every fold (measured on 2 cores:
# see inst/benchmarks/run.R --only workers). Any other plan (cluster,
# future.batchtools, future.mirai's mirai_cluster) is taken as other
# machines: one future per worker, each a share of the kernel settings,
# the data sent to each worker once (kc_remote_paths()). Only where every unit of the
# call is such a path: else all are futures, as before.
kc_local_plans <- c("sequential", "multisession", "multicore", "callr", "mirai_multisession")

kc_paths_here <- function() inherits(future::plan(), kc_local_plans)

# The path tasks' kernel settings (`ids`, positions of the shared plans),
# split into one list per task. Here (`others`, the number of the call's
# other tasks, is 0) one task, one call into C: its units move the
# progress bar as they finish (kc_task_progress()), and the threads wait
# once for the last units, not at the end of every call. Elsewhere one
# task per worker, in turn (round robin: neighbouring gammas cost alike);
# a scheduler's plan with no fixed number of workers, one per setting.
kc_path_split <- function(ids, others = 0L) {
  if (!length(ids)) return(list())
  if (others == 0L && kc_paths_here()) return(list(ids))
  workers <- future::nbrOfWorkers()
  chunks <- min(length(ids), if (is.finite(workers)) workers else length(ids))
  unname(split(ids, rep_len(seq_len(chunks), length(ids))))
}

# The threads the paths run on here: the engine's, under a plan of local
# workers at least as many as the workers.
kc_paths_threads <- function() {
  workers <- future::nbrOfWorkers()
  if (is.finite(workers) && workers > kc_threads()) {
    as.integer(min(workers, kc_max_threads()))
  } else {
    kc_threads()
  }
}

# Runs the tasks of one call with run(): the shared SVM paths here when
# kc_paths_here(), on kc_paths_threads(); else futures: the paths'
# (kc_remote_paths(); `keep`: their inputs serve the next call too), or
# future_lapply's, seeded.
kc_run_tasks <- function(tasks, run, keep = FALSE) {
  paths <- all(vapply(tasks, function(t) t$kind == "path", logical(1)))
  if (paths && kc_paths_here()) {
    threads <- kc_paths_threads()
    if (threads > kc_threads()) {
      old <- options(kernclass.threads = threads)
      on.exit(options(old), add = TRUE)
    }
    return(lapply(tasks, run))
  }
  if (paths) return(kc_remote_paths(tasks, run, keep))
  kc_future_lapply(lapply(tasks, kc_ship), run)
}

# The path tasks of one call on a plan's workers elsewhere: one future each
# (kc_path_split(): one per worker), made here rather than by future_lapply,
# whose futures carry several globals, each a round trip to the worker
# before the future starts: the job is a value inside the future's
# expression (no globals), and the result comes back without the plans'
# inputs. The job's large values (the data, the scaled copies) go to the
# workers once: a worker keeps those of its last job (kc_kept), and a
# later job names them by token; a worker without them (another process,
# as a scheduler's job is) answers at once and gets the job again whole,
# and after that every job goes whole. `keep`: more calls on the same
# inputs follow (a race's next fold); else the workers and this session
# let them go after this call.
kc_remote_paths <- function(tasks, run, keep = FALSE) {
  on.exit(if (!keep) kc_kept_forget(), add = TRUE)
  used <- new.env(parent = emptyenv())
  launch <- function(task, whole) {
    job <- kc_remote_job(run, task, keep, whole || isTRUE(kc_kept$whole), used)
    future::future(as.call(list(kc_remote_unit, job)), substitute = FALSE, globals = FALSE,
                   packages = "kernclass", seed = FALSE, label = "kernclass")
  }
  tryCatch({
    fs <- lapply(tasks, launch, whole = FALSE)
    out <- lapply(seq_along(fs), function(i) {
      o <- future::value(fs[[i]])
      if (!isTRUE(o$missing)) return(o)
      kc_kept$whole <- TRUE
      future::value(launch(tasks[[i]], whole = TRUE))
    })
  }, FutureInterruptError = function(e) kc_interrupt())
  kc_kept$sent <- mget(ls(used, all.names = TRUE), envir = used)
  out
}

# What one worker runs: the job's kept values put back (kc_kept_fill()),
# the unit, the result without the plans' inputs. The engine on one thread
# unless the worker's own kernclass.threads option says otherwise: the
# plan's workers are taken to be one per core.
kc_remote_unit <- function(job) {
  job <- kc_kept_fill(job)
  if (is.null(job)) return(list(missing = TRUE))
  if (!job$keep) on.exit(kc_kept_forget(), add = TRUE)
  if (is.null(kc_option("kernclass.threads"))) {
    old <- options(kernclass.threads = 1L)
    on.exit(options(old), add = TRUE)
  }
  out <- job$run(job$task)
  out$task <- job$task[setdiff(names(job$task), c("plans", "xs", "x_at"))]
  out
}

# ---- values kept on the workers ---------------------------------------------

# This session's and each worker's: `sent`, the values sent in the last
# call, by token (a value is matched by identical()); `held` (in a worker),
# those of its last job; `whole`, every job goes whole (a worker lacked a
# value); `count`, tokens made.
kc_kept <- new.env(parent = emptyenv())

kc_kept_forget <- function() rm(list = ls(kc_kept, all.names = TRUE), envir = kc_kept)

# Values at least this large are kept (bytes by object.size()).
kc_kept_bytes <- 65536

# A job: the unit's function with its environment's large values, and the
# task's inputs (kc_ship()), each replaced by a reference (kc_kept_ref())
# that carries the value too where it was not sent before or `whole`. A
# selection problem's (kc_selection()) fields are referred to one by one:
# a race's next fold has other cells, the same data.
kc_remote_job <- function(run, task, keep, whole, used) {
  task <- kc_ship(task)
  env <- as.list(environment(run), all.names = TRUE)
  ref <- function(v) {
    if (!inherits(v, "kc_selection")) return(kc_kept_ref(v, whole, used))
    v[] <- lapply(v, ref)
    v
  }
  environment(run) <- list2env(lapply(env, ref), parent = parent.env(environment(run)))
  task$xs <- lapply(task$xs, ref)
  list(run = run, task = task, keep = keep)
}

kc_kept_ref <- function(value, whole, used) {
  if (utils::object.size(value) < kc_kept_bytes) return(value)
  # this call's values (a token, then new to some workers), then those sent before
  now <- as.list(used, all.names = TRUE)
  known <- c(now, kc_kept$sent)
  at <- Position(function(v) identical(v, value), known)
  if (is.na(at) || at <= length(now)) whole <- TRUE
  if (is.na(at)) {
    kc_kept$count <- if (is.null(kc_kept$count)) 1 else kc_kept$count + 1
    token <- sprintf("%d-%s-%d", Sys.getpid(), basename(tempfile("")), kc_kept$count)
  } else {
    token <- names(known)[at]
  }
  assign(token, value, envir = used)
  structure(list(token = token, value = if (whole) list(value)), class = "kc_kept_ref")
}

# In the worker: the job with every reference replaced by its value, from
# the job or from those kept; NULL where one is neither. The values of
# this job are kept, those of earlier ones dropped.
kc_kept_fill <- function(job) {
  now <- list()
  absent <- FALSE
  value_of <- function(v) {
    if (inherits(v, "kc_selection")) {
      v[] <- lapply(v, value_of)
      return(v)
    }
    if (!inherits(v, "kc_kept_ref")) return(v)
    got <- if (length(v$value)) v$value[[1L]] else kc_kept$held[[v$token]]
    if (is.null(got)) absent <<- TRUE
    now[[v$token]] <<- got
    got
  }
  env <- environment(job$run)
  for (nm in ls(env, all.names = TRUE)) assign(nm, value_of(env[[nm]]), envir = env)
  job$task$xs <- lapply(job$task$xs, value_of)
  if (absent) return(NULL)
  kc_kept$held <- now
  job
}

# A path task as a future carries it: the plans' inputs (the same coded,
# scaled copies for every kernel setting of a call) once, not once per
# plan; kc_unship() puts them back in the worker.
kc_ship <- function(task) {
  if (!identical(task$kind, "path")) return(task)
  xs <- list()
  task$x_at <- integer(length(task$plans))
  for (j in seq_along(task$plans)) {
    x <- task$plans[[j]]$x
    at <- Position(function(y) identical(y, x), xs)
    if (is.na(at)) {
      xs[[length(xs) + 1L]] <- x
      at <- length(xs)
    }
    task$x_at[j] <- at
    task$plans[[j]]["x"] <- list(NULL)
  }
  task$xs <- xs
  task
}

kc_unship <- function(task) {
  if (is.null(task$xs)) return(task)
  for (j in seq_along(task$plans)) task$plans[[j]]["x"] <- task$xs[task$x_at[j]]
  task$xs <- task$x_at <- NULL
  task
}
