# Where the units of a search run (R/select-futures.R): the shared SVM paths here
# on the engine's threads under the sequential plan and local workers, as
# futures (their data sent to each worker once) under any other plan.

test_that("a path task ships its plans' inputs once and gets them back as they were", {
  x1 <- list(matrix(rnorm(600), 200))
  x2 <- list(matrix(rnorm(600), 200), matrix(rnorm(600), 200))
  plan <- function(x, cost) list(x = x, y = rep(1:2, 100), cost = cost, spec = list("rbf"))
  task <- list(kind = "path", folds = 1:2, cells = 1:4,
               plans = list(plan(x1, 1), plan(x2, 2), plan(x1, 3), plan(x2, 4)))
  shipped <- kc_ship(task)
  expect_length(shipped$xs, 2L)  # one copy of each distinct input
  expect_identical(shipped$x_at, c(1L, 2L, 1L, 2L))
  expect_true(all(vapply(shipped$plans, function(p) is.null(p$x), logical(1))))
  expect_lt(length(serialize(shipped, NULL)), 0.6 * length(serialize(task, NULL)))
  expect_identical(kc_unship(shipped), task)  # the same fields in the same order
  fold_task <- list(kind = "fold", fold = 1L, cells = 1L)
  expect_identical(kc_ship(fold_task), fold_task)
  expect_identical(kc_unship(fold_task), fold_task)
})

test_that("the kernel settings' paths are one call here, a share per worker elsewhere", {
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old))
  old_t <- options(kernclass.threads = 1)
  on.exit(options(old_t), add = TRUE)
  expect_identical(kc_path_split(integer()), list())
  # here, on any number of threads: one call (its units move the progress bar)
  expect_identical(kc_path_split(c(2L, 5L, 7L)), list(c(2L, 5L, 7L)))
  if (kc_max_threads() >= 3L) {
    options(kernclass.threads = 3)
    expect_identical(kc_path_split(1:5), list(1:5))
  }
  # beside other units (futures): a share per worker, one worker here
  expect_identical(kc_path_split(c(2L, 5L, 7L), others = 3L), list(c(2L, 5L, 7L)))
  options(kernclass.threads = 1)
  future::plan(future::multicore, workers = 2)  # sequential on Windows
  if (future::nbrOfWorkers() == 2) {
    # local workers: here, on as many threads
    expect_identical(kc_path_split(1:5), list(1:5))
    expect_identical(kc_path_split(1:5, others = 1L), list(c(1L, 3L, 5L), c(2L, 4L)))
  }
})

test_that("local workers run the paths here on as many threads, other units as futures", {
  # about 2 s: starting two workers
  skip_if_not_installed("future")
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old))
  old_t <- options(kernclass.threads = 1)
  on.exit(options(old_t), add = TRUE)
  where <- function(task) c(pid = Sys.getpid(), threads = kc_threads())
  path <- list(kind = "path")
  here <- kc_run_tasks(list(path), where)
  expect_identical(here, list(c(pid = Sys.getpid(), threads = 2L)))
  expect_identical(kc_threads(), 1L)  # the option restored
  mixed <- kc_run_tasks(list(path, list(kind = "fold")), where)
  expect_true(all(vapply(mixed, `[[`, numeric(1), "pid") != Sys.getpid()))
})

test_that("a worker keeps a job's large values, and one without them gets the job whole", {
  # about 2 s, most of it starting one worker
  skip_if_not_installed("future")
  skip_if_not_installed("parallelly")
  cl <- parallelly::makeClusterPSOCK(1L, autoStop = TRUE, rscript_libs = .libPaths())
  old <- future::plan(future::cluster, workers = cl)
  on.exit(future::plan(old))
  on.exit(kc_kept_forget(), add = TRUE)
  big <- matrix(runif(20000), 1000)  # 160 KB: kept; `small` is not
  small <- 1:10
  run <- local(function(task) {
    task <- kc_unship(task)  # as kc_run_task() does
    list(task = task, result = c(sum(big), sum(small), sum(task$plans[[1]]$x[[1]])))
  }, envir = list2env(list(big = big, small = small), parent = asNamespace("kernclass")))
  task <- function(x) list(kind = "path", cells = 1L, plans = list(list(x = list(x))))
  x1 <- matrix(runif(20000), 1000)
  x2 <- x1 + 1
  want <- function(x) c(sum(big), sum(small), sum(x))
  held <- function() parallel::clusterCall(cl, function() names(kernclass:::kc_kept$held))[[1]]
  # the first call sends both; the next, on new inputs, only those
  out <- kc_remote_paths(list(task(x1)), run, keep = TRUE)
  expect_identical(out[[1]]$result, want(x1))
  expect_null(out[[1]]$task$plans)  # the result comes back without the inputs
  expect_length(held(), 2L)
  job <- kc_remote_job(run, task(x2), keep = TRUE, whole = FALSE, used = new.env())
  expect_null(environment(job$run)$big$value)  # a token without its value
  expect_identical(environment(job$run)$small, small)
  expect_length(job$task$xs[[1]]$value, 1L)  # new: sent
  expect_lt(length(serialize(job, NULL)), 0.7 * length(serialize(list(run, task(x2)), NULL)))
  out <- kc_remote_paths(list(task(x2)), run, keep = TRUE)
  expect_identical(out[[1]]$result, want(x2))
  expect_false(isTRUE(kc_kept$whole))
  # a worker that lost them (a new process) answers at once and gets the job whole
  parallel::clusterCall(cl, function() kernclass:::kc_kept_forget())
  out <- kc_remote_paths(list(task(x1)), run, keep = TRUE)
  expect_identical(out[[1]]$result, want(x1))
  expect_true(kc_kept$whole)
  # the last call lets them go, here and in the worker
  out <- kc_remote_paths(list(task(x2)), run)
  expect_identical(out[[1]]$result, want(x2))
  expect_length(ls(kc_kept), 0L)
  expect_length(held(), 0L)
})

test_that("a selection problem goes to the workers field by field, its data once", {
  on.exit(kc_kept_forget())
  d <- list(x = matrix(runif(20000), 1000), y = factor(rep(c("a", "b"), 500)))  # 160 KB
  sel <- kc_selection(kernel_svm, d, NULL, rep_len(1:4, 1000), 4L,
                      list(list(cost = 1), list(cost = 2)), list(), "accuracy")
  used <- new.env()
  job <- kc_remote_job(kc_task_runner(function(...) NULL, sel), list(kind = "fold"),
                       keep = TRUE, whole = FALSE, used = used)
  shipped <- environment(job$run)$sel
  expect_s3_class(shipped, "kc_selection")
  expect_s3_class(shipped$d, "kc_kept_ref")  # the data by reference, the value with it
  expect_length(shipped$d$value, 1L)
  expect_identical(shipped[c("cells", "fold", "w")], sel[c("cells", "fold", "w")])
  kc_kept$sent <- mget(ls(used), envir = used)
  # a race's next fold (fewer cells): the data by their token alone
  next_sel <- kc_selection_cells(sel, 2L)
  job <- kc_remote_job(kc_task_runner(function(...) NULL, next_sel), list(kind = "fold"),
                       keep = TRUE, whole = FALSE, used = new.env())
  expect_length(environment(job$run)$sel$d$value, 0L)
  # a worker that kept them puts the problem back as it was
  kc_kept$held <- kc_kept$sent
  expect_identical(environment(kc_kept_fill(job)$run)$sel, next_sel)
})

test_that("a kernel function with globals fits and cross-validates under plan(multisession)", {
  # defined at top level, as a user does: its environment is the global one,
  # which futures do not ship, and so are its globals
  dist <- function(a, b) outer(rowSums(a^2), rowSums(b^2), "+") - 2 * tcrossprod(a, b)
  k <- function(a, b) exp(-kc_rm_dist(a, b) / kc_rm_width)
  environment(dist) <- environment(k) <- globalenv()
  assign("kc_rm_width", 0.7, envir = globalenv())
  assign("kc_rm_dist", dist, envir = globalenv())
  on.exit(rm(list = c("kc_rm_width", "kc_rm_dist"), envir = globalenv()), add = TRUE)
  x <- as.matrix(iris[c(1:15, 51:65, 101:115), 1:4])
  y <- droplevels(iris$Species[c(1:15, 51:65, 101:115)])

  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  seq_fit <- kernel_svm(x, y, kernel = k, cost = 2)
  set.seed(5)
  seq_cv <- kernel_cv(kernel_svm, x, y, folds = 3, kernel = k, cost = 2)
  set.seed(6)
  seq_tune <- kernel_tune(kernel_svm, x, y, grid = list(cost = c(1, 4)), folds = 3, kernel = k)
  future::plan(future::multisession, workers = 2)
  par_fit <- kernel_svm(x, y, kernel = k, cost = 2)
  set.seed(5)
  par_cv <- kernel_cv(kernel_svm, x, y, folds = 3, kernel = k, cost = 2)
  set.seed(6)
  par_tune <- kernel_tune(kernel_svm, x, y, grid = list(cost = c(1, 4)), folds = 3, kernel = k)
  future::plan(future::sequential)

  expect_identical(predict(par_fit, x, type = "decision"), predict(seq_fit, x, type = "decision"))
  expect_identical(par_fit$coefs, seq_fit$coefs)
  expect_identical(par_cv$predicted, seq_cv$predicted)
  expect_identical(par_cv$accuracy, seq_cv$accuracy)
  expect_identical(par_tune$results, seq_tune$results)
})
