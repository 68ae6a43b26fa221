# The threads policy (R/engine-threads.R, src/threads.c): the getter and setter, the
# default and what it follows, forked children that must never hang, a
# thread that cannot be created, and results that do not depend on how the
# work was split. Whatever could hang runs in a child R process with a time
# limit, so that a failure is a failed test, not a stuck suite.

testthat::local_edition(3)

# Run R `lines` in a child Rscript (this session's library) within `timeout`
# seconds, through `shell_prefix` (e.g. "ulimit -v ...;"). Returns the exit
# status and what the child put in the file `out` (saveRDS), or NULL.
run_child <- function(lines, timeout = 120, shell_prefix = "", env = character()) {
  dir <- tempfile("kcthreads")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  script <- file.path(dir, "child.R")
  out <- file.path(dir, "out.rds")
  writeLines(c(sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
               "suppressPackageStartupMessages(library(kernclass))",
               sprintf("out <- %s", deparse(out)), lines), script)
  rscript <- shQuote(file.path(R.home("bin"), "Rscript"))
  cmd <- sprintf("%s %s --vanilla %s", shell_prefix, rscript, shQuote(script))
  log <- file.path(dir, "log")
  status <- system2("bash", c("-c", shQuote(cmd)), stdout = log, stderr = log,
                    timeout = timeout, env = env)
  list(status = status, value = if (file.exists(out)) readRDS(out),
       log = paste(readLines(log), collapse = "\n"))
}

test_that("kernclass_threads() reports, sets and restores the thread count", {
  old <- getOption("kernclass.threads")
  on.exit(options(kernclass.threads = old))
  options(kernclass.threads = NULL)
  default <- kernclass_threads()
  expect_type(default, "integer")
  expect_gte(default, 1L)
  expect_lte(default, max(1L, parallel::detectCores()))
  expect_null(kernclass_threads(1))           # returns the old option, NULL
  expect_identical(kernclass_threads(), 1L)
  expect_identical(getOption("kernclass.threads"), 1L)
  expect_identical(kernclass_threads(NULL), 1L)  # back to the default
  expect_null(getOption("kernclass.threads"))
  expect_identical(kernclass_threads(), default)
  # more than the processors are cut to them by the engine
  kernclass_threads(10000)
  expect_lte(kernclass_threads(), max(1L, parallel::detectCores()))
  expect_output(kernclass_threads(verbose = TRUE), "option kernclass.threads = 10000")
})

test_that("kernclass_threads(n) refuses counts R cannot hold, and keeps the option", {
  old <- getOption("kernclass.threads")
  on.exit(options(kernclass.threads = old))
  options(kernclass.threads = 2L)
  # 3e9 once became NA (as.integer) and broke every later call
  for (bad in list(3e9, .Machine$integer.max + 1, 2.5, 0, -1, NA, NA_integer_, Inf, "2", 1:2)) {
    err <- tryCatch(kernclass_threads(bad), error = identity)
    label <- deparse(bad)
    expect_s3_class(err, "kernclass_input_error")
    expect_identical(err$arg, "n", label = label)
    expect_match(conditionMessage(err), "`n`", fixed = TRUE, label = label)
    expect_identical(getOption("kernclass.threads"), 2L, label = label)
  }
  expect_type(kernclass_threads(), "integer")
  # the largest integer is a count the engine cuts to what it can run
  kernclass_threads(.Machine$integer.max)
  expect_identical(getOption("kernclass.threads"), .Machine$integer.max)
  expect_lte(kernclass_threads(), max(1L, parallel::detectCores()))
})

test_that("the default follows mc.cores and OMP_NUM_THREADS, as future's workers set them", {
  old <- options(kernclass.threads = NULL, mc.cores = 1L)
  on.exit(options(old))
  expect_identical(kernclass_threads(), 1L)
  options(mc.cores = NULL)
  old_env <- Sys.getenv("OMP_NUM_THREADS", unset = NA)
  on.exit(if (is.na(old_env)) Sys.unsetenv("OMP_NUM_THREADS") else
    Sys.setenv(OMP_NUM_THREADS = old_env), add = TRUE)
  Sys.setenv(OMP_NUM_THREADS = "1")
  expect_identical(kernclass_threads(), 1L)
  expect_output(kernclass_threads(verbose = TRUE), "OMP_NUM_THREADS = 1")
})

fork_lines <- c(
  "options(kernclass.threads = 2L)",
  "set.seed(1)",
  "x <- matrix(rnorm(3000 * 10), 3000)",
  "y <- factor(ifelse(x[, 1] + rnorm(3000) > 0, 'a', 'b'))",
  "# threaded work in the parent first: that is what used to hang the children",
  "fit <- kernel_svm(x, y)",
  "k <- kernel_matrix(x[1:1500, ])",
  "m <- kernel_means(x, y)",
  "small <- x[1:300, ]; ys <- y[1:300]",
  "set.seed(2); cv <- kernel_cv(kernel_svm, small, ys, folds = 3)",
  "one <- function(i) list(obj = kernel_svm(x, y)$objective, k = kernel_matrix(x[1:1500, ]),",
  "                        means = predict(m, x[1:500, ], type = 'decision'),",
  "                        threads = kernclass_threads())",
  "res <- list()",
  "res$mclapply <- parallel::mclapply(1:2, one, mc.cores = 2)",
  "cl <- parallel::makeForkCluster(2)",
  "res$fork_cluster <- parallel::parLapply(cl, 1:2, one)",
  "parallel::stopCluster(cl)",
  "if (requireNamespace('future', quietly = TRUE)) {",
  "  future::plan(future::multicore, workers = 2)",
  "  fs <- lapply(1:2, function(i) future::future(one(i), seed = TRUE))",
  "  res$multicore <- lapply(fs, future::value)",
  "  future::plan(future::sequential)",
  "}",
  "res$cv <- parallel::mclapply(1:2, function(i) {",
  "  set.seed(2); kernel_cv(kernel_svm, small, ys, folds = 3)}, mc.cores = 2)",
  "res$tune <- parallel::mclapply(1:2, function(i) {",
  "  set.seed(3); kernel_tune(kernel_svm, small, ys, grid = list(cost = c(1, 4)), folds = 3)",
  "}, mc.cores = 2)",
  "set.seed(3); tune <- kernel_tune(kernel_svm, small, ys, grid = list(cost = c(1, 4)), folds = 3)",
  "# (uncompressed: gzip took most of the run for its seven 1500 x 1500 matrices)",
  "saveRDS(list(res = res, parent = one(0), cv = cv, tune = tune), out, compress = FALSE)")

test_that("forked children after threaded work in the parent finish, with the parent's results", {
  skip_on_os("windows")  # no fork
  run <- run_child(fork_lines, timeout = 300)
  expect_identical(run$status, 0L, info = run$log)
  v <- run$value
  expect_false(is.null(v))
  parent <- v$parent
  parent$threads <- 1L  # a forked child runs on one thread
  for (way in names(v$res)[names(v$res) %in% c("mclapply", "fork_cluster", "multicore")]) {
    for (r in v$res[[way]]) expect_identical(r, parent, info = way)
  }
  if (requireNamespace("future", quietly = TRUE)) expect_length(v$res$multicore, 2L)
  for (r in v$res$cv) expect_identical(r$accuracy, v$cv$accuracy)
  for (r in v$res$tune) expect_identical(r$results, v$tune$results)
})

test_that("a thread that cannot be created means fewer threads, not the end of R", {
  skip_on_os(c("windows", "mac"))
  skip_if(parallel::detectCores() < 2L, "one core: no second thread to create")
  # Two ways a new thread is refused: a stack (OMP_STACKSIZE, which libgomp
  # uses) larger than any address space, and every new thread asking for a
  # 30 GB stack (ulimit -s) under a 20 GB address space limit (ulimit -v; R's
  # own stack is grown as it is used, so R starts). AddressSanitizer reserves
  # terabytes of shadow memory, so an address space limit is left out there.
  limits <- list(stack = list(prefix = "", env = "OMP_STACKSIZE=200000000G"),
                 address_space = list(prefix = "ulimit -s 30000000 && ulimit -v 20000000 &&",
                                      env = character()))
  if (grepl("asan", Sys.getenv("LD_PRELOAD"))) limits$address_space <- NULL
  for (way in names(limits)) {
    run <- run_child(c(
      "options(kernclass.threads = 2L)",
      "set.seed(1); x <- matrix(rnorm(2000 * 10), 2000)",
      "k <- kernel_matrix(x)",
      "saveRDS(list(threads = kernclass_threads(), ok = isTRUE(all.equal(k[1:5, 1:5],",
      "  unname(exp(-as.matrix(dist(x[1:5, ]))^2 / 10)), tolerance = 1e-12))), out)"),
      shell_prefix = limits[[way]]$prefix, env = limits[[way]]$env)
    expect_identical(run$status, 0L, info = paste(way, run$log))
    expect_identical(run$value, list(threads = 1L, ok = TRUE), info = paste(way, run$log))
  }
})

test_that("future's multisession workers run the engine on one thread", {
  skip_if_not_installed("future")
  run <- run_child(c(
    "future::plan(future::multisession, workers = 2)",
    "f <- future::future({ library(kernclass); kernclass_threads() })",
    "saveRDS(future::value(f), out)",
    "future::plan(future::sequential)"))
  expect_identical(run$status, 0L, info = run$log)
  expect_identical(run$value, 1L, info = run$log)
})

test_that("the SVM's passes and kernel rows give the same model on one thread or all", {
  # KERNCLASS_TUNER fixes the tuner's choice: "all" runs every pass over the
  # (more than 1024) active variables and every batch of rows on all threads
  set.seed(31)
  n <- 2500
  x <- matrix(rnorm(n * 6), n)
  y <- factor(ifelse(x[, 1] * x[, 2] + rnorm(n, sd = 0.3) > 0, "a", "b"))
  fit_with <- function(tuner, threads, cachesize = 5) {
    old_env <- Sys.getenv("KERNCLASS_TUNER", unset = NA)
    Sys.setenv(KERNCLASS_TUNER = tuner)
    on.exit(if (is.na(old_env)) Sys.unsetenv("KERNCLASS_TUNER") else
      Sys.setenv(KERNCLASS_TUNER = old_env))
    with_threads(threads, kernel_svm(x, y, cost = 10, cachesize = cachesize))
  }
  one <- fit_with("one", 1L)
  expect_identical(fit_with("all", 2L), one)
  expect_identical(fit_with("one", 2L), one)
  expect_identical(fit_with("", 2L), one)  # the tuner's own choices
  # a cache that holds every row: the kernel matrix filled first, 128 rows a
  # run, under the same tuner
  whole <- fit_with("one", 1L, cachesize = 100)
  expect_identical(fit_with("all", 2L, cachesize = 100), whole)
  expect_identical(fit_with("", 2L, cachesize = 100), whole)
})

test_that("R caps the threads at the C engine's limit, read from C", {
  ns <- asNamespace("kernclass")
  cap <- ns$kc_max_threads()
  expect_true(is.integer(cap) && length(cap) == 1L && cap >= 1L)
  # C never uses more than its limit, whatever is asked
  expect_lte(.Call(ns$ffi_threads, .Machine$integer.max, NA_integer_)[["used"]], cap)
  old <- options(kernclass.threads = .Machine$integer.max)  # past it: an error (test-options.R)
  on.exit(options(old))
  expect_identical(ns$kc_threads(), cap)
  options(kernclass.threads = cap + 1)
  expect_identical(ns$kc_threads(), cap)
})

test_that("the policy's one getter reads the option, else the cores cut by the OpenMP variables", {
  ns <- asNamespace("kernclass")
  policy <- function(option, cores) .Call(ns$ffi_threads, option, cores)
  old_env <- Sys.getenv(c("OMP_THREAD_LIMIT", "OMP_NUM_THREADS"), unset = NA)
  on.exit(for (v in names(old_env)) {
    if (is.na(old_env[[v]])) Sys.unsetenv(v) else do.call(Sys.setenv, as.list(old_env[v]))
  })
  Sys.unsetenv(c("OMP_THREAD_LIMIT", "OMP_NUM_THREADS"))
  cap <- ns$kc_max_threads()
  expect_identical(names(policy(NULL, 8L)), c("requested", "used", "max"))
  expect_identical(policy(NULL, 8L)[["requested"]], min(8L, cap))
  expect_identical(policy(NULL, 100000L)[["requested"]], cap)
  expect_identical(policy(3, 8L)[["requested"]], min(3L, cap))   # the option wins
  expect_identical(policy(1e9, NA_integer_)[["requested"]], cap)
  # the first whole number of each variable cuts the default, never the option
  for (case in list(c(OMP_NUM_THREADS = "3", want = 3), c(OMP_NUM_THREADS = "3,2", want = 3),
                    c(OMP_NUM_THREADS = " 2 ", want = 2), c(OMP_NUM_THREADS = "abc", want = 8),
                    c(OMP_NUM_THREADS = "0", want = 8), c(OMP_NUM_THREADS = "Inf", want = 8),
                    c(OMP_NUM_THREADS = "2x", want = 8), c(OMP_THREAD_LIMIT = "2", want = 2))) {
    Sys.unsetenv(c("OMP_THREAD_LIMIT", "OMP_NUM_THREADS"))
    do.call(Sys.setenv, as.list(case[1]))
    want <- as.integer(min(as.numeric(case[["want"]]), cap))
    expect_identical(policy(NULL, 8L)[["requested"]], want, label = paste(case, collapse = " "))
    expect_identical(policy(5, 8L)[["requested"]], min(5L, cap))
  }
  # a bad value from R is an internal error, never a crash
  expect_error(policy("2", 8L), class = "kernclass_internal_error")
  expect_error(policy(NULL, 8), class = "kernclass_internal_error")
})
