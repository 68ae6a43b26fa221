# The options kernclass reads: one row each in kc_options, with its default
# and the rule its value must meet. Code reads an option only through
# kc_option(), which checks the value each time it is read, so that a bad
# value is a classed error ("kernclass_option_error") naming the option,
# wherever it is first used.
#
# Columns of kc_options:
# - default: the value when the option is unset (NULL: the reader computes
#   its own, e.g. the cores or the memory available);
# - valid: a function of a set value, TRUE where it meets the rule;
# - what: the rule, for the error message;
# - deprecated: NULL, or what to do instead (a set value then warns and is
#   ignored).
kc_option_row <- function(default, valid, what, deprecated = NULL) {
  list(default = default, valid = valid, what = what, deprecated = deprecated)
}

# A count R holds as an integer: a whole number from `lower` to
# .Machine$integer.max (past it as.integer() gives NA, which a stored
# option would carry into every later call).
kc_is_count <- function(v, lower) {
  is.numeric(v) && length(v) == 1L && !is.na(v) && v >= lower && v <= .Machine$integer.max &&
    v == round(v)
}

kc_options <- list(
  # the threads of the kernel engine (kernclass_threads(n) sets it); more
  # than the engine's maximum are cut to it, more than R's integers hold
  # are an error
  kernclass.threads = kc_option_row(
    NULL, function(v) kc_is_count(v, 1),
    "one whole number of threads from 1 to 2147483647 (or NULL for the default)"),
  # MB the exact routes may take (R/engine-memory.R); Inf: no limit
  kernclass.memory_limit = kc_option_row(
    NULL, function(v) is.numeric(v) && length(v) == 1L && !is.na(v) && v > 0,
    "one number of MB > 0 (Inf: no limit; NULL: what the system reports as available)"),
  # MB kernel_tune() may keep on a fold: the SVM path's kernel rows, the
  # gammas' shared kernel sums (kc_tune_budget(), R/engine-memory.R)
  kernclass.tune.store_mb = kc_option_row(
    512, function(v) is.numeric(v) && length(v) == 1L && !is.na(v) && v >= 0,
    "one number of MB >= 0 (0: keep nothing; default 512)"),
  # the rows of one block of the features' streaming passes (R/repr-approx.R);
  # for the tests of progress reporting
  kernclass.block_rows = kc_option_row(
    100000L, function(v) kc_is_count(v, 1),
    "one whole number of rows from 1 to 2147483647 (default 100000)"),
  # the precision of the kernel values the SVM stores as floats: "double"
  # computes them in double, "float" in single precision where that is
  # accurate (rbf kernel, dense rows; R/fit-svm-precision.R); the C engine
  # reads an unset option as this default (src/kernel-float.c)
  kernclass.svm.precision = kc_option_row(
    "double", function(v) is.character(v) && length(v) == 1L && v %in% c("float", "double"),
    "\"float\" or \"double\" (default \"double\")"),
  kernclass.tune.cores = kc_option_row(
    NULL, function(v) TRUE, "unset",
    deprecated = paste0("kernel_tune() runs where future::plan() says, e.g. ",
                        "future::plan(\"multisession\", workers = 2)"))
)

# The value of option `name` (a row of kc_options): its default when unset,
# else the value, checked.
kc_option <- function(name) {
  row <- kc_options[[name]]
  if (is.null(row)) {
    kc_abort(sprintf("kernclass internal: no option %s in kc_options", name), input = FALSE)
  }
  v <- getOption(name)
  if (is.null(v)) return(row$default)
  if (!is.null(row$deprecated)) {
    kc_warn(sprintf("The option `%s` is deprecated and ignored: %s.", name, row$deprecated),
            class = "deprecated")
    return(row$default)
  }
  kc_check_option_value(name, v)
  v
}

# A value for option `name`, checked; `arg` the argument it came from where
# a function takes it (kernclass_threads(n)).
kc_check_option_value <- function(name, v, arg = NULL) {
  row <- kc_options[[name]]
  if (isTRUE(row$valid(v))) return(invisible(v))
  got <- if (is.atomic(v) && length(v) == 1L) {
    if (is.character(v)) sprintf("\"%s\"", v) else format(v)
  } else sprintf("an object of class %s and length %d", class(v)[1L], length(v))
  if (is.null(arg)) {
    kc_abort(sprintf("The option `%s` must be %s; got %s. Set it with options(%s = ...).",
                     name, row$what, got, name), arg = name, class = "option")
  }
  kc_abort(sprintf("`%s` must be %s; got %s.", arg, row$what, got), arg = arg)
}
