# Where the units of a search run (R/select-futures.R): the shared SVM paths here
# on the engine's threads under the sequential plan and local workers, as
# futures (their inputs shipped once) under any other plan.

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

test_that("the kernel settings' paths are one task here, a share per worker elsewhere", {
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old))
  expect_identical(kc_path_split(integer()), list())
  expect_identical(kc_path_split(c(2L, 5L, 7L)), list(c(2L, 5L, 7L)))
  # beside other units (futures): a share per worker, one worker here
  expect_identical(kc_path_split(c(2L, 5L, 7L), others = 3L), list(c(2L, 5L, 7L)))
  future::plan(future::multicore, workers = 2)  # sequential on Windows: here all the same
  expect_identical(kc_path_split(1:5), list(1:5))
  if (future::nbrOfWorkers() == 2) {
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
