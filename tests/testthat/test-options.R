# Every option kernclass reads has one row in kc_options (R/table-options.R) and is
# read only through kc_option(): a bad value is a classed error naming the
# option, wherever it is first read. (About 2 s.)

ns <- asNamespace("kernclass")

with_option <- function(name, value, expr) {
  old <- options(stats::setNames(list(value), name))
  on.exit(options(old))
  expr
}

bad_values <- list(NA, NA_real_, "256", c(256, 512), -1, list(256), TRUE, NaN)

test_that("no function reads a kernclass option but kc_option()", {
  funs <- Filter(is.function, mget(ls(ns, all.names = TRUE), envir = ns))
  reads <- vapply(funs, function(f) {
    any(grepl("getOption(\"kernclass.", deparse(body(f)), fixed = TRUE))
  }, logical(1))
  expect_identical(names(funs)[reads], character(0))
  expect_true(any(grepl("getOption(name)", deparse(body(ns$kc_option)), fixed = TRUE)))
  # and every option kc_option() is asked for has its row
  asked <- unique(unlist(lapply(funs, function(f) {
    text <- paste(deparse(body(f)), collapse = "\n")
    m <- regmatches(text, gregexpr("kc_option\\(\"[a-z._]+\"\\)", text))[[1L]]
    sub("kc_option\\(\"([a-z._]+)\"\\)", "\\1", m)
  })))
  expect_true(length(asked) >= 4L)
  expect_setequal(asked, names(ns$kc_options))
})

test_that("each option's bad values are a classed error naming it", {
  for (name in names(ns$kc_options)) {
    row <- ns$kc_options[[name]]
    if (!is.null(row$deprecated)) next
    for (v in bad_values) {
      err <- with_option(name, v, tryCatch(ns$kc_option(name), error = identity))
      label <- paste(name, "=", deparse(v))
      expect_s3_class(err, "kernclass_option_error")
      expect_identical(err$arg, name, label = label)
      expect_match(conditionMessage(err), name, fixed = TRUE, label = label)
    }
    # unset: the default
    expect_identical(with_option(name, NULL, ns$kc_option(name)), row$default)
  }
  # good values pass through
  good <- list(kernclass.tune.store_mb = 0, kernclass.memory_limit = Inf, kernclass.threads = 2L,
               kernclass.block_rows = 10)
  for (name in names(good)) {
    expect_identical(with_option(name, good[[name]], ns$kc_option(name)), good[[name]])
  }
})

test_that("count options refuse what R's integers cannot hold; MB options are numbers", {
  counts <- c("kernclass.threads", "kernclass.block_rows")
  for (name in counts) {
    for (v in list(3e9, .Machine$integer.max + 1, 2.5, 0, -Inf, Inf)) {
      err <- with_option(name, v, tryCatch(ns$kc_option(name), error = identity))
      label <- paste(name, "=", deparse(v))
      expect_s3_class(err, "kernclass_option_error")
      expect_identical(err$arg, name, label = label)
    }
    expect_identical(with_option(name, .Machine$integer.max, ns$kc_option(name)),
                     .Machine$integer.max)
  }
  # a block of 3e9 rows ended in base R's seq() error
  set.seed(1)
  x <- matrix(rnorm(80), 40)
  y <- factor(rep(c("a", "b"), 20))
  err <- with_option("kernclass.block_rows", 3e9,
                     tryCatch(kernel_means(x, y, approx = nystrom(m = 5)), error = identity))
  expect_s3_class(err, "kernclass_option_error")
  expect_identical(err$arg, "kernclass.block_rows")
  # sizes in MB are doubles, not counts: large and fractional values are fine
  for (name in c("kernclass.memory_limit", "kernclass.tune.store_mb")) {
    for (v in c(3e9, 2.5)) expect_identical(with_option(name, v, ns$kc_option(name)), v)
  }
})

test_that("bad option values stop the user's call with the option's error", {
  set.seed(1)
  x <- matrix(rnorm(80), 40)
  y <- factor(rep(c("a", "b"), 20))
  calls <- list(
    kernclass.tune.store_mb = list(
      quote(kernel_tune(kernel_means, x, y, grid = list(gamma = c(0.1, 1)), folds = 2)),
      quote(kernel_tune(kernel_svm, x, y, grid = list(cost = c(0.1, 1)), folds = 2))),
    kernclass.threads = list(quote(kernel_matrix(x)), quote(kernel_svm(x, y))),
    kernclass.memory_limit = list(quote(kernel_matrix(x)), quote(kernel_svm(x, y))),
    kernclass.block_rows = list(quote(kernel_means(x, y, approx = nystrom(m = 5)))),
    kernclass.svm.precision = list(quote(kernel_svm(x, y))))
  expect_setequal(names(calls), names(Filter(function(r) is.null(r$deprecated), ns$kc_options)))
  for (name in names(calls)) {
    for (call in calls[[name]]) {
      for (v in list(NA, "256", c(256, 512))) {
        err <- with_option(name, v, tryCatch(eval(call), error = identity))
        label <- paste(name, "=", deparse(v), "in", deparse(call)[1L])
        expect_s3_class(err, "kernclass_option_error")
        expect_identical(err$arg, name, label = label)
        # named at once, not as one grid row's failure
        expect_false(grepl("Grid row", conditionMessage(err)), label = label)
      }
    }
  }
})

test_that("a deprecated option warns, whatever its value, and is ignored", {
  for (name in names(Filter(function(r) !is.null(r$deprecated), ns$kc_options))) {
    for (v in list(2, "a")) {
      expect_warning(out <- with_option(name, v, ns$kc_option(name)),
                     class = "kernclass_deprecated_warning")
      expect_identical(out, ns$kc_options[[name]]$default)
    }
  }
})
