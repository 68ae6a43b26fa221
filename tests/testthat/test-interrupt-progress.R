# A real Ctrl-C (SIGINT from this process to a child R) during kernel_tune()
# while a progressr handler is on: the shared SVM path tells the handler of
# each finished unit from C (src/units.c through src/callback.c's
# R_UnwindProtect, to kc_task_progress()), so the interrupt can land in the
# C code or in the handler's R code that the C code called. Either way the
# call must end with an interrupt condition, keep none of its buffers, and
# leave the engine and progressr as they were: the same search run again in
# the same process gives the result and the progress steps it gave before.

testthat::local_edition(3)

progress_child_lines <- function(threads) c(child_write_lines,
  "library(progressr)",
  sprintf("options(kernclass.threads = %dL, progressr.enable = TRUE)", threads),
  "set.seed(21)",
  "x <- matrix(rnorm(1500 * 10), 1500)",
  "y <- factor(ifelse(x[, 1] + x[, 2] + rnorm(1500) > 0, 'a', 'b'))",
  "# the steps the handler was told, the first `at` of them signalled to the parent",
  "steps <- 0",
  "counting <- function(expr, at = Inf) {",
  "  withCallingHandlers(expr, progression = function(p) {",
  "    if (!identical(p$type, 'update')) return()",
  "    steps <<- steps + p$amount",
  "    if (steps >= at && !file.exists(file.path(dir, 'ready'))) put('ready', steps)",
  "  })",
  "}",
  "with_handler <- function(expr, at = Inf) {",
  "  with_progress(counting(expr, at), handlers = handler_void(), enable = TRUE)",
  "}",
  "small <- function() {",
  "  set.seed(1)",
  "  kernel_tune(kernel_svm, x[1:300, ], y[1:300], folds = 3, search = 'exhaustive',",
  "              grid = list(cost = c(1, 10), gamma = c(0.1, 1)))",
  "}",
  "# about ten seconds on two cores, its first steps within one",
  "long <- function() {",
  "  kernel_tune(kernel_svm, x, y, folds = 5, search = 'exhaustive',",
  "              grid = list(cost = c(1, 100), gamma = 2^(-6:3)), tolerance = 1e-6)",
  "}",
  "steps <- 0",
  "before_res <- with_handler(small())$results",
  "before_steps <- steps",
  "steps <- 0",
  "invisible(gc())",
  "vcells <- gc()['Vcells', 'used']",
  "res <- tryCatch({",
  "  with_handler(long(), at = 3)",
  "  list(condition = 'none')",
  "}, interrupt = function(i) list(condition = class(i)[1]),",
  "   error = function(e) list(condition = conditionMessage(e)))",
  "res$steps <- steps",
  "res$vcells <- gc()['Vcells', 'used'] - vcells",
  "steps <- 0",
  "res$again <- with_handler(small())$results",
  "res$again_steps <- steps",
  "res$before <- before_res",
  "res$before_steps <- before_steps",
  "# and without a handler",
  "res$plain <- small()$results",
  "put('done', res)")

for (threads in 1:2) {
  test_that(sprintf("SIGINT in kernel_tune() with a progress handler, %d thread(s)", threads), {
    skip_on_os("windows")  # no SIGINT to send
    skip_if_not_installed("progressr")
    child <- start_child(progress_child_lines(threads))
    on.exit(stop_child(child), add = TRUE)
    # the handler has been told some units: the search runs, the handler on
    take_from_child(child, "ready", timeout = 300)
    Sys.sleep(0.1)
    tools::pskill(child$pid, tools::SIGINT)
    res <- take_from_child(child, "done", timeout = 300)
    expect_identical(res$condition, "interrupt")
    expect_gte(res$steps, 3)
    # the interrupted search's buffers (its fits, their kernel rows) are garbage
    expect_lt(res$vcells * 8 / 2^20, 2, label = "MB kept")
    # the same search before and after the interrupt, with the handler and without
    expect_identical(res$again, res$before)
    expect_identical(res$plain, res$before)
    expect_identical(res$again_steps, res$before_steps)
    expect_gt(res$before_steps, 0)
  })
}
