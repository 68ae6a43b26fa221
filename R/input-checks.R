# Input checks and conversion: the one place where user input is validated.
# Every error is a condition of class "kernclass_error"; errors caused by the
# caller's input also inherit from "kernclass_input_error"; a more specific
# kind adds "kernclass_<kind>_error" (e.g. "kernclass_not_separable_error").
# The message names the argument (also in the field `arg`) and says what to do.

kc_abort <- function(message, arg = NULL, class = NULL, input = TRUE) {
  cls <- c(if (!is.null(class)) paste0("kernclass_", class, "_error"),
           if (input) "kernclass_input_error", "kernclass_error", "error", "condition")
  stop(structure(class = cls, list(message = message, call = NULL, arg = arg)))
}

# Warnings: "kernclass_<kind>_warning" and "kernclass_warning".
kc_warn <- function(message, class = NULL) {
  cls <- c(if (!is.null(class)) paste0("kernclass_", class, "_warning"),
           "kernclass_warning", "warning", "condition")
  warning(structure(class = cls, list(message = message, call = NULL)))
}

# "a", "b", "c" for messages, at most `max` items.
kc_enum <- function(x, max = 5) {
  x <- as.character(x)
  more <- length(x) > max
  out <- paste0('"', utils::head(x, max), '"', collapse = ", ")
  if (more) paste0(out, ", ...") else out
}

# A required argument the caller left out (R's own error would not be classed).
kc_require <- function(is_missing, arg, what) {
  if (is_missing) kc_abort(sprintf("`%s` is missing: give %s.", arg, what), arg = arg)
  invisible(TRUE)
}

# `x` of a fitter's generic; it may be left out where the call names the
# formula instead, as the call stored by a formula fit does (for update()).
kc_require_input <- function(is_missing, dots_names) {
  kc_require(is_missing && !"formula" %in% dots_names, "x",
             "a numeric matrix or data frame, or a formula")
}

kc_check_dots <- function(...) {
  dots <- list(...)
  if (length(dots)) {
    nm <- names(dots)
    if (is.null(nm)) nm <- rep("", length(dots))
    nm[nm == ""] <- "<unnamed>"
    kc_check_foreign_args(nm)
    kc_abort(sprintf("Unknown argument(s) %s in `...`: check the spelling against the documentation.",
                     paste0("`", nm, "`", collapse = ", ")), arg = "...")
  }
}

# Arguments of e1071's svm() and predict.svm() and of kernlab's ksvm() that
# kernclass does not take, each with the kernclass way to do what it does.
kc_foreign_args <- c(
  probability = paste0("class probabilities come from predict(fit, newdata, type = \"prob\") ",
                       "(kernel_svm() fits its probability model with probability = TRUE)"),
  decision.values = "decision values come from predict(fit, newdata, type = \"decision\")",
  cross = paste0("cross-validate with kernel_cv(kernel_svm, x, y, folds = 5), ",
                 "or a grid of parameters with kernel_tune()"),
  ranges = paste0("kernel_tune() takes the parameter values as `grid`: a named list expanded to ",
                  "all combinations, as e1071's tune(ranges = ), e.g. ",
                  "grid = list(cost = 2^(-2:4), gamma = 2^(-4:1)), or a data frame of rows"),
  tunecontrol = paste0("kernel_tune() takes `folds` (default 5) and `search` ",
                       "(\"race\", \"screen\" or \"exhaustive\") itself"),
  na.action = paste0("the default methods take complete rows (NA in `x` or `y` is an error): ",
                     "drop rows with NA first (keep <- stats::complete.cases(x, y)), or use the ",
                     "formula method, which takes na.action = na.omit, na.exclude or na.fail"),
  verbose = paste0("kernclass fits print nothing; summary(fit) reports the fit ",
                   "(for kernel_svm(): iterations, KKT violation, convergence)"),
  prob.model = "use probability = TRUE in kernel_svm(), then predict(type = \"prob\")",
  kpar = paste0("give the kernel's parameters as arguments: gamma (kernlab's sigma of ",
                "\"rbfdot\" and scale of \"polydot\"), degree, coef0 (kernlab's offset)"),
  sigma = "use gamma: kernclass's rbf kernel is exp(-gamma * ||x - y||^2), kernlab's sigma",
  C = "use cost",
  scaled = "use scale",
  tol = "use tolerance",
  cache = "use cachesize (in MB)",
  fitted = "the fitted classes come from fitted(fit) or predict(fit)",
  epsilon = paste0("kernclass classifies; epsilon is for regression. The solver's stopping ",
                   "tolerance is `tolerance`"))

# Values of kernlab's predict(type = ) that predict.kernclass() does not
# take, with the kernclass equivalent.
kc_foreign_types <- c(
  probabilities = "type = \"prob\" gives the class probabilities",
  response = "type = \"class\" (the default) gives the classes",
  votes = "type = \"decision\" gives the pairwise decision values the votes come from")

kc_check_foreign_type <- function(type) {
  if (is.character(type) && length(type) == 1L && type %in% names(kc_foreign_types)) {
    kc_abort(sprintf("type = \"%s\" is kernlab's; in kernclass %s.", type,
                     kc_foreign_types[[type]]), arg = "type", class = "e1071_argument")
  }
  invisible()
}

# A classed error for the foreign arguments among `nm` that says what to
# use instead.
kc_check_foreign_args <- function(nm) {
  foreign <- nm[nm %in% names(kc_foreign_args)]
  if (!length(foreign)) return(invisible())
  hints <- sprintf("`%s` (e1071/kernlab): %s.", foreign, kc_foreign_args[foreign])
  other <- setdiff(nm, foreign)
  kc_abort(paste(c(sprintf("Argument(s) %s are not kernclass's.",
                           paste0("`", foreign, "`", collapse = ", ")), hints,
                   if (length(other)) sprintf("Unknown argument(s) too: %s.",
                                              paste0("`", other, "`", collapse = ", "))),
                 collapse = "\n"), arg = foreign[1L], class = "e1071_argument")
}

kc_check_number <- function(x, arg, lower = -Inf, lower_open = FALSE, whole = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x)
  if (ok) ok <- if (lower_open) x > lower else x >= lower
  if (ok && whole) ok <- x == round(x)
  if (!ok) {
    what <- if (whole) "a whole number" else "a finite number"
    bound <- if (is.finite(lower)) sprintf(" %s %s", if (lower_open) ">" else ">=", format(lower)) else ""
    got <- if (length(x) == 1L && (is.numeric(x) || is.na(x))) format(x) else
      sprintf("an object of class %s and length %d", class(x)[1], length(x))
    kc_abort(sprintf("`%s` must be %s%s; got %s.", arg, what, bound, got), arg = arg)
  }
  invisible(x)
}

# A count (a whole number >= lower) as an integer. Past R's integer range
# (2^31 - 1), where as.integer() would give NA: `clamp` (the count's meaning
# does not change beyond that, as a cell size past the rows) takes the
# largest integer, else an error names the argument and `why` it cannot be
# that large.
kc_as_count <- function(x, arg, lower = 0, clamp = FALSE, why = NULL) {
  kc_check_number(x, arg, lower = lower, whole = TRUE)
  if (x <= .Machine$integer.max) return(as.integer(x))
  if (clamp) return(.Machine$integer.max)
  kc_abort(sprintf("`%s` = %s is beyond R's integer range (2^31 - 1 = %d)%s.", arg, format(x),
                   .Machine$integer.max, if (is.null(why)) "" else paste0(": ", why)),
           arg = arg, class = "size")
}

# One of `choices`, partial matching allowed; the whole default vector means
# its first element (as match.arg()).
# `choices` left out: those of the caller's signature (as match.arg() takes
# them), so that each choice vector is written once.
kc_match_arg <- function(x, choices, arg) {
  if (missing(choices)) choices <- kc_formal(sys.function(sys.parent()), arg)
  if (identical(x, choices)) return(choices[1L])
  i <- if (is.character(x) && length(x) == 1L) pmatch(x, choices) else NA
  if (is.na(i)) kc_abort(sprintf("`%s` must be one of %s.", arg, kc_enum(choices)), arg = arg)
  choices[i]
}

# The default of a function's argument as its signature gives it (for an
# argument with choices, the choices).
kc_formal <- function(fun, arg) eval(formals(fun)[[arg]], envir = baseenv())

kc_check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    kc_abort(sprintf("`%s` must be TRUE or FALSE.", arg), arg = arg)
  }
  invisible(x)
}

# Turn x (matrix, data frame of numbers, numeric vector, dense Matrix such
# as a dgeMatrix) into a double matrix.
kc_as_numeric_matrix <- function(x, arg) {
  if (kc_is_dense_Matrix(x)) x <- as.matrix(x)  # Matrix's own method
  x <- kc_read_integer64(x, arg)
  if (is.data.frame(x)) {
    bad <- !vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (any(bad)) {
      kc_abort(sprintf("`%s` must have numeric columns only; column(s) %s are not numeric.",
                       arg, kc_enum(names(x)[bad])), arg = arg)
    }
    x <- as.matrix(x)
  } else if (is.null(dim(x)) && (is.numeric(x) || is.logical(x))) {
    x <- matrix(x, ncol = 1L, dimnames = list(names(x), NULL))
  }
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x))) {
    kc_abort(sprintf("`%s` must be a numeric matrix or a data frame; got %s.",
                     arg, paste(class(x), collapse = "/")), arg = arg)
  }
  if (ncol(x) == 0L) kc_abort(sprintf("`%s` has no columns.", arg), arg = arg)
  storage.mode(x) <- "double"
  x
}

# Whether column names can identify columns: present, unique, non-empty.
kc_names_unique <- function(nm) {
  !is.null(nm) && !anyNA(nm) && all(nm != "") && !anyDuplicated(nm)
}

# Column names that a lookup by name needs: all of them (`used` NULL), or
# those among `used`, must be non-empty and unique, else the lookup would take
# the first of two equal names or none.
kc_check_names <- function(nm, arg, used = NULL) {
  if (is.null(nm)) return(invisible())
  empty <- is.na(nm) | nm == ""
  dup <- !empty & nm %in% nm[duplicated(nm)]
  if (!is.null(used)) {
    empty <- rep(FALSE, length(nm))
    dup <- dup & nm %in% used
  }
  if (any(empty)) {
    kc_abort(sprintf("`%s` has column(s) without a name (column(s) %s): name every column.",
                     arg, paste(utils::head(which(empty), 5), collapse = ", ")),
             arg = arg, class = "column_names")
  }
  if (any(dup)) {
    kc_abort(sprintf("`%s` has duplicated column name(s) %s: give each column its own name.",
                     arg, kc_enum(unique(nm[dup]))), arg = arg, class = "column_names")
  }
  invisible()
}

# Rows with NA are allowed only where `allow_na` (prediction); Inf never.
# Rows are reported by `row_names` where given (the rows of the user's data).
kc_check_finite <- function(x, arg, allow_na = FALSE, row_names = NULL) {
  which_rows <- function(bad) {
    rows <- which(rowSums(bad) > 0)
    if (!is.null(row_names)) rows <- row_names[rows]
    paste(utils::head(rows, 5), collapse = ", ")
  }
  counts <- .Call(ffi_count_nonfinite, x)  # c(infinite, NA): one pass, no copies
  if (counts[[1L]] > 0) {
    kc_abort(sprintf("`%s` has infinite values (rows %s); remove or replace them.",
                     arg, which_rows(is.infinite(x))), arg = arg)
  }
  if (!allow_na && counts[[2L]] > 0) {
    kc_abort(sprintf(paste0("`%s` has missing values (NA or NaN) in %d row(s), e.g. %s; ",
                            "remove them, or use the formula method with na.action = na.omit."),
                     arg, sum(rowSums(is.na(x)) > 0), which_rows(is.na(x))), arg = arg)
  }
  invisible(x)
}

# A factor of class labels with at least two classes and no NA.
kc_as_labels <- function(y, n, arg = "y") {
  if (is.null(y)) kc_abort(sprintf("`%s` is missing: give the class labels.", arg), arg = arg)
  if (is.character(y) || is.logical(y)) y <- factor(y)
  if (!is.factor(y)) {
    kc_abort(sprintf(paste0("`%s` must be a factor of class labels (or character/logical); ",
                            "got %s. For numeric codes use factor(%s)."),
                     arg, class(y)[1], arg), arg = arg)
  }
  if (!is.null(dim(y)) || length(y) != n) {
    kc_abort(sprintf("`%s` has length %d but `x` has %d rows; they must match.",
                     arg, length(y), n), arg = arg)
  }
  if (anyNA(y)) {
    kc_abort(sprintf(paste0("`%s` has %d missing label(s), e.g. at %s; remove those rows, ",
                            "or use the formula method with na.action = na.omit."),
                     arg, sum(is.na(y)), paste(utils::head(which(is.na(y)), 5), collapse = ", ")),
             arg = arg)
  }
  empty <- levels(y)[tabulate(y, nlevels(y)) == 0L]
  if (length(empty)) {
    kc_warn(sprintf("`%s` has level(s) %s with no observations; they were dropped.",
                    arg, kc_enum(empty)))
    y <- droplevels(y)
  }
  if (nlevels(y) < 2L) {
    kc_abort(sprintf("`%s` has only one class (%s); a classifier needs at least two.",
                     arg, kc_enum(levels(y))), arg = arg)
  }
  y
}

kc_check_prior <- function(prior, lev, counts) {
  if (is.null(prior)) return(stats::setNames(counts / sum(counts), lev))
  if (!is.numeric(prior) || length(prior) != length(lev) || anyNA(prior) ||
      any(!is.finite(prior)) || any(prior <= 0)) {
    kc_abort(sprintf("`prior` must be %d positive numbers, one per class (%s).",
                     length(lev), kc_enum(lev)), arg = "prior")
  }
  if (!is.null(names(prior))) {
    if (!setequal(names(prior), lev)) {
      kc_abort(sprintf("`prior` names %s do not match the classes %s.",
                       kc_enum(names(prior)), kc_enum(lev)), arg = "prior")
    }
    prior <- prior[lev]
  }
  if (abs(sum(prior) - 1) > 1e-8) {
    kc_abort(sprintf("`prior` must sum to 1; it sums to %s.", format(sum(prior))), arg = "prior")
  }
  stats::setNames(as.numeric(prior), lev)
}

