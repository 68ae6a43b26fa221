# From user data to the coded, scaled design matrix, and back for new data.
#
# A "design" is list(x, y, terms, xlevels, contrasts, scalable, na.action):
# x the coded numeric matrix (each factor as one indicator column per level,
# intercept dropped), `scalable` the columns that scaling may touch (not the
# indicator columns, as in e1071). kc_design_xy() builds it for the default
# methods, kc_design_formula() for the formula methods (with `weights`); the
# fitters' workers scale it with kc_scale_design().

# Coded matrix for a model frame: drop the intercept column, mark dummies.
# Factors get one indicator per level (no contrasts): every two levels are
# then at the same distance, which kernels on distances need.
# Columns R cannot code (lists, complex numbers) and factors with a single
# level are errors naming `arg`, the user's argument.
kc_model_matrix <- function(tt, mf, contrasts = NULL, arg = "x") {
  if (is.null(contrasts)) {
    factors <- names(mf)[vapply(mf, function(v) is.factor(v) || is.character(v), logical(1))]
    factors <- intersect(factors, attr(tt, "term.labels"))
    single <- factors[vapply(factors, function(f) {
      length(unique(stats::na.omit(as.character(mf[[f]])))) < 2L
    }, logical(1))]
    if (length(single)) {
      kc_abort(sprintf(paste0("`%s` has factor or character column(s) %s with a single value; ",
                              "a constant column tells the classes nothing: drop it."),
                       arg, kc_enum(single)), arg = arg)
    }
    # a factor keeps its levels, used or not, as model.matrix() does (in the
    # default and the formula methods alike): an unused level is a column of
    # zeros, so folds of one data frame are coded alike and predict that level
    contrasts <- lapply(stats::setNames(factors, factors), function(f) {
      v <- mf[[f]]
      stats::contrasts(if (is.factor(v)) v else factor(v), contrasts = FALSE)
    })
  }
  mm <- tryCatch(stats::model.matrix(tt, mf, contrasts.arg = contrasts), error = function(e) {
    kc_abort(sprintf("`%s` has column(s) that cannot be coded as numbers: %s", arg,
                     conditionMessage(e)), arg = arg)
  })
  assign <- attr(mm, "assign")
  ctr <- attr(mm, "contrasts")
  keep <- colnames(mm) != "(Intercept)"
  factor_terms <- which(attr(tt, "term.labels") %in% names(ctr))
  x <- mm[, keep, drop = FALSE]
  if (ncol(x)) colnames(x) <- make.unique(colnames(x))  # a factor's level can repeat a column's name
  attr(x, "assign") <- NULL
  attr(x, "contrasts") <- NULL
  list(x = x, scalable = !(assign[keep] %in% factor_terms), contrasts = ctr, assign = assign[keep])
}

# bit64::integer64 columns (data.table's fread, DBI, arrow) are doubles
# whose bits hold 64-bit integers: read as they are, they would be numbers
# near 1e-320. They are read as the numbers they hold, through bit64's
# as.double(), with a warning where a value is 2^53 or more in size, where
# doubles no longer hold every integer. x: a vector, matrix or data frame
# (its columns); `arg` names it.
kc_read_integer64 <- function(x, arg) {
  is64 <- function(v) inherits(v, "integer64")
  if (is.data.frame(x)) {
    cols <- which(vapply(x, is64, logical(1)))
    for (j in cols) x[[j]] <- kc_read_integer64(x[[j]], sprintf("%s$%s", arg, names(x)[j]))
    return(x)
  }
  if (!is64(x)) return(x)
  if (!requireNamespace("bit64", quietly = TRUE)) {
    kc_abort(sprintf(paste0("`%s` holds bit64::integer64 values; install the bit64 package to ",
                            "read them, or convert them with as.numeric() first."), arg),
             arg = arg)
  }
  out <- suppressWarnings(as.double(x))  # bit64's method: its own warning is ours below
  attributes(out) <- attributes(unclass(x))  # dim and names, not the class
  if (any(abs(out) >= 2^53, na.rm = TRUE)) {
    kc_warn(sprintf(paste0("`%s` has integer64 values of 2^53 or more in size, which doubles ",
                           "may hold only approximately (the nearest double is used)."), arg),
            class = "precision")
  }
  out
}

# The coded inputs of a model frame, as a design without labels (the step
# kc_design_xy() and kc_design_formula() share).
kc_design_frame <- function(tt, mf, arg) {
  if (nrow(mf) == 0L) {
    kc_abort(sprintf("`%s` has no rows%s.", arg,
                     if (arg == "data") " (after `subset` and `na.action`)" else ""), arg = arg)
  }
  mm <- kc_model_matrix(tt, mf, arg = arg)
  if (ncol(mm$x) == 0L) {
    kc_abort("`formula` has no predictors: give at least one input column.", arg = "formula")
  }
  list(x = mm$x, y = NULL, terms = tt, xlevels = stats::.getXlevels(tt, mf),
       contrasts = mm$contrasts, scalable = mm$scalable,
       na.action = attr(mf, "na.action"))
}

# The design of a default method: x a matrix, numeric vector, data frame or
# sparse matrix, y the labels (with labels = FALSE there are none:
# estimate_gamma()). With kernel = "precomputed" or a kernel function, x is
# kernel values or the function's points (R/input-sources.R).
kc_design_xy <- function(x, y = NULL, labels = TRUE, kernel = NULL) {
  if (kc_is_kernel_data(kernel)) return(kc_design_source(x, y, kernel, labels))
  if (inherits(x, "kc_kernel_data")) {
    kc_abort(sprintf(paste0("`x` holds kernel values or a kernel function's points, but ",
                            "`kernel` is \"%s\"; give the kernel they were made for."),
                     paste(format(kernel), collapse = " ")), arg = "kernel", class = "kernel_data")
  }
  if (kc_is_sparse_input(x)) {
    m <- kc_as_csr(x, "x")
    d <- list(x = m, y = NULL, terms = NULL, xlevels = NULL, contrasts = NULL,
              scalable = rep(TRUE, ncol(m)), na.action = NULL)
    if (labels) d$y <- kc_as_labels(y, nrow(m), "y")
    return(d)
  }
  x <- kc_read_integer64(x, "x")
  if (is.data.frame(x)) {
    if (ncol(x) == 0L) kc_abort("`x` has no columns.", arg = "x")
    kc_check_names(names(x), "x")  # a data frame's columns are found by name
    tt <- stats::terms(~ ., data = x)
    environment(tt) <- baseenv()  # keep no reference to this frame and its data
    mf <- tryCatch(stats::model.frame(tt, x, na.action = stats::na.pass), error = function(e) {
      kc_abort(sprintf("`x` has column(s) that cannot be used: %s", conditionMessage(e)),
               arg = "x")
    })
    d <- kc_design_frame(attr(mf, "terms"), mf, arg = "x")  # terms with dataClasses
  } else {
    m <- kc_as_numeric_matrix(x, "x")
    if (nrow(m) == 0L) kc_abort("`x` has no rows.", arg = "x")
    if (!is.null(colnames(m))) colnames(m)[is.na(colnames(m))] <- ""
    d <- list(x = m, y = NULL, terms = NULL, xlevels = NULL, contrasts = NULL,
              scalable = rep(TRUE, ncol(m)), na.action = NULL)
  }
  kc_check_finite(d$x, "x")
  if (labels) d$y <- kc_as_labels(y, nrow(d$x), "y")
  d
}

# The design of a formula method, from the method's own call (as MASS::lda):
# model frame, then the coded inputs, the labels and any `weights`. With
# labels = FALSE the response is optional and not used (estimate_gamma).
kc_design_formula <- function(call, env, labels = TRUE) {
  # the formula gives what the default method takes as x and y: both at
  # once would leave one of them silently unused
  if ("y" %in% names(call)) {
    kc_abort(paste0("`y` cannot be given with a formula: the formula's left-hand side ",
                    "gives the class labels."), arg = "y", class = "formula_conflict")
  }
  if ("x" %in% names(call)) {
    kc_abort("`x` cannot be given with a formula: the formula and `data` give the inputs.",
             arg = "x", class = "formula_conflict")
  }
  if (is.null(call$formula) || !inherits(eval(call$formula, env), "formula")) {
    kc_abort("`formula` must be a formula such as Species ~ .", arg = "formula")
  }
  mf <- call[c(1L, match(c("formula", "data", "subset", "na.action", "weights"), names(call), 0L))]
  mf[[1L]] <- quote(stats::model.frame)
  mf <- tryCatch(eval(mf, env), error = function(e) {
    kc_abort(sprintf("Cannot build the model frame from `formula` and `data`: %s",
                     conditionMessage(e)), arg = "data")
  })
  mf <- kc_read_integer64(mf, "data")
  tt <- attr(mf, "terms")
  if (labels && attr(tt, "response") == 0L) {
    kc_abort("`formula` needs a response on its left-hand side, e.g. Species ~ .", arg = "formula")
  }
  # unused levels of the inputs are kept, as the default method keeps them
  # (kc_model_matrix()); those of the response are reported and dropped by
  # kc_as_labels(), for both methods
  d <- kc_design_frame(tt, mf, arg = "data")
  kc_check_finite(d$x, "data", row_names = rownames(mf))
  if (labels) {
    response <- deparse(tt[[2L]], width.cutoff = 500L)[1L]
    d$y <- kc_as_labels(stats::model.response(mf), nrow(d$x), response)
  }
  d$weights <- stats::model.weights(mf)
  d
}

# Centre and scale the scalable columns; constant columns are left alone.
# Sparse rows are scaled without centring (centring would fill them in):
# for the distance kernels (rbf, laplace) the same model as centred data.
kc_scaling <- function(x, scalable) {
  moments <- if (is.matrix(x)) .Call(ffi_column_moments, x) else kc_csr_moments(x)
  center <- stats::setNames(moments[[1L]], colnames(x))
  spread <- stats::setNames(moments[[2L]], colnames(x))
  # constant: no spread, or one below the rounding of the values themselves
  # (relative, so that columns of any magnitude are judged alike)
  constant <- scalable & !(spread > .Machine$double.eps * abs(center))
  if (any(constant)) {
    nm <- colnames(x)
    if (is.null(nm)) nm <- rep("", ncol(x))
    nm[nm == ""] <- paste0("column ", which(nm == ""))
    kc_warn(sprintf("Column(s) %s of `x` are constant and were left unscaled.",
                    kc_enum(nm[constant])), class = "constant_column")
  }
  keep <- scalable & !constant
  center[!keep | !is.matrix(x)] <- 0
  spread[!keep] <- 1
  list(center = center, scale = spread, sparse = if (!is.matrix(x)) TRUE)
}

# (x - center) / scale by column, dimnames kept.
kc_apply_scaling <- function(x, scaling) {
  if (is.null(scaling)) return(x)
  if (inherits(x, "kc_csr")) return(kc_csr_scale(x, as.double(scaling$scale)))
  out <- .Call(ffi_scale_columns, x, as.double(scaling$center), as.double(scaling$scale))
  dimnames(out) <- dimnames(x)
  out
}

# The coded, scaled matrix for new data; rows with NA stay (as NA rows).
# `arg`: the argument that holds them, for the messages (conformal()'s and
# recalibrate()'s calibration rows are `x`).
kc_new_x <- function(object, newdata, arg = "newdata") {
  if (inherits(object$x, "kc_precomputed")) {
    return(if (inherits(newdata, "kc_precomputed")) newdata else
      kc_new_precomputed(object$x, newdata, arg))
  }
  if (inherits(object$x, "kc_user")) {
    if (inherits(newdata, "kc_user")) return(newdata)
    return(kc_as_user(newdata, arg = arg, like = object$x))
  }
  if (kc_is_dense_Matrix(newdata)) newdata <- as.matrix(newdata)  # Matrix's own method
  newdata <- kc_read_integer64(newdata, arg)
  sparse_model <- inherits(object$x, "kc_csr")
  # new data take the form of the training rows: sparse new data of a dense
  # model are the dense rows they stand for, with their column names
  if (kc_is_sparse_input(newdata) && !sparse_model) {
    newdata <- as.matrix(kc_as_csr(newdata, arg))
  }
  if (is.null(object$terms)) {
    # columns are matched by name only where the model's names are unique and
    # non-empty (cbind(x, v) leaves one empty) and newdata has names, by
    # position else; sparse or dense alike
    names_fit <- colnames(object$x)
    if (!kc_names_unique(names_fit)) names_fit <- NULL
    if (is.data.frame(newdata) && !is.null(names_fit) && all(names_fit %in% names(newdata))) {
      newdata <- newdata[names_fit]  # other columns, numeric or not, are not used
    }
    if (is.null(dim(newdata)) && (is.numeric(newdata) || is.logical(newdata)) &&
        (ncol(object$x) > 1L || sparse_model) && length(newdata) == ncol(object$x)) {
      newdata <- matrix(newdata, nrow = 1L, dimnames = list(NULL, names(newdata)))  # one point
    }
    x <- if (sparse_model) kc_as_csr(newdata, arg) else
      kc_as_numeric_matrix(newdata, arg)
    x <- kc_match_columns(x, names_fit, ncol(object$x), arg = arg)
    if (sparse_model) {
      x <- kc_apply_scaling(x, object$scaling)
      dimnames(x) <- list(rownames(x), colnames(object$x))
      return(x)
    }
  } else {
    if (is.matrix(newdata)) newdata <- as.data.frame(newdata)
    if (!is.data.frame(newdata)) {
      kc_abort(sprintf("`%s` must be a data frame with the columns used to fit the model.", arg),
               arg = arg)
    }
    tt <- stats::delete.response(object$terms)
    missing <- setdiff(all.vars(tt), names(newdata))
    if (length(missing)) {
      kc_abort(sprintf("`%s` lacks column(s) %s used by the model.", arg, kc_enum(missing)),
               arg = arg)
    }
    kc_check_names(names(newdata), arg, used = all.vars(tt))
    newdata <- kc_fill_na_columns(newdata, tt, object$xlevels)
    # rows that cannot be predicted become NA rows (one warning for all), as
    # e1071 and kernlab predict every other row: levels not seen in training
    why <- character(0)
    lost <- integer(0)
    for (nm in intersect(names(object$xlevels), names(newdata))) {
      v <- newdata[[nm]]
      if (!is.factor(v) && !is.character(v)) next
      unseen <- !is.na(v) & !(as.character(v) %in% object$xlevels[[nm]])
      if (!any(unseen)) next
      why <- c(why, sprintf("`%s` has level(s) %s not seen in training", nm,
                            kc_enum(unique(as.character(v[unseen])))))
      lost <- c(lost, which(unseen))
      v <- as.character(v)
      v[unseen] <- NA
      newdata[[nm]] <- if (is.factor(newdata[[nm]])) factor(v, levels = object$xlevels[[nm]]) else v
    }
    misfit <- function(e) {
      kc_abort(sprintf("`%s` does not fit the model: %s", arg, conditionMessage(e)),
               arg = arg)
    }
    warned <- character(0)
    mf <- withCallingHandlers(tryCatch({
      mf <- stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object$xlevels)
      classes <- attr(tt, "dataClasses")
      if (!is.null(classes)) stats::.checkMFClasses(classes, mf)
      mf
    }, error = misfit), warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    x <- kc_model_matrix(tt, mf, object$contrasts, arg = arg)$x
    # and rows whose inputs are all there but whose terms are not numbers
    # (log of a negative); any other warning (e.g. "variable 'f' is not a
    # factor") means newdata does not fit
    nan <- which(!stats::complete.cases(x) &
                   stats::complete.cases(newdata[intersect(all.vars(tt), names(newdata))]))
    if (length(warned) && !length(nan)) misfit(simpleError(warned[1L]))
    if (length(nan)) {
      why <- c(why, sprintf("the formula's terms are not numbers there%s",
                            if (length(warned)) sprintf(" (%s)", warned[1L]) else ""))
      lost <- c(lost, nan)
    }
    if (length(lost)) {
      lost <- sort(unique(lost))
      kc_warn(sprintf("%d row(s) of `%s` cannot be predicted (e.g. rows %s) and give NA: %s.",
                      length(lost), arg, paste(utils::head(lost, 5), collapse = ", "),
                      paste(why, collapse = "; ")), class = "unpredictable")
    }
  }
  kc_check_finite(x, arg, allow_na = TRUE)
  x <- kc_apply_scaling(x, object$scaling)
  dimnames(x) <- list(rownames(newdata), colnames(object$x))
  x
}

# The columns of new data `x` (a matrix or sparse rows) in the order of the
# columns they must match (the model's, or kernel_matrix()'s x, `by`): by
# name where those names `names_fit` are usable (non-NULL) and x has names,
# else by position (then x must have `p` columns).
kc_match_columns <- function(x, names_fit, p, arg = "newdata", by = "the model") {
  if (!is.null(names_fit) && !is.null(colnames(x))) {
    missing <- setdiff(names_fit, colnames(x))
    if (length(missing)) {
      kc_abort(sprintf("`%s` lacks column(s) %s used by %s.", arg, kc_enum(missing), by),
               arg = arg)
    }
    kc_check_names(colnames(x), arg, used = names_fit)
    return(x[, names_fit, drop = FALSE])
  }
  if (ncol(x) != p) {
    kc_abort(sprintf("`%s` has %d column(s) but %s %s %d.", arg, ncol(x), by,
                     if (by == "the model") "was fitted on" else "has", p), arg = arg)
  }
  x
}

# Logical columns of newdata where the model was fitted on numbers are taken
# as 0/1 (as for matrix fits); logical columns that are all NA (as
# data.frame(a = NA) makes them) take the fitted type: their rows predict NA.
kc_fill_na_columns <- function(newdata, tt, xlevels) {
  classes <- attr(tt, "dataClasses")
  for (nm in intersect(names(classes), names(newdata))) {
    v <- newdata[[nm]]
    if (!is.logical(v) || classes[[nm]] == "logical") next
    if (classes[[nm]] == "numeric") {
      newdata[[nm]] <- as.numeric(v)
    } else if (all(is.na(v))) {
      newdata[[nm]] <- if (!is.null(xlevels[[nm]])) factor(v, levels = xlevels[[nm]]) else
        as.character(v)
    }
  }
  newdata
}

# A formula method's fit: `worker` (the fitter's kc_fit_<name>(), whose
# signature is the default method's but x and y) on the formula's design `d`
# with the formula method's other arguments `args`, and those the call left
# out at the default method's defaults: the default method's signature is
# their one home (and what kernel_tune() reads). d and call enter the
# worker's call as symbols, so that errors do not print the data and the
# call is not run.
kc_fit_formula <- function(worker, default, d, args, call = NULL) {
  f <- formals(default)
  left_out <- setdiff(names(f), c("x", "y", "...", names(args)))
  args <- c(list(quote(d)), lapply(f[left_out], eval, envir = baseenv()), args,
            if (!is.null(call)) list(call = quote(call)))
  do.call(worker, args, envir = environment())
}

# Scale a design's inputs (scale = TRUE) and keep the scaling for predict().
kc_scale_design <- function(d, scale) {
  kc_check_flag(scale, "scale")
  if (inherits(d$x, "kc_kernel_data")) return(d)  # the kernel sees x as given
  d$scaling <- if (scale) kc_scaling(d$x, d$scalable) else NULL
  d$x <- kc_apply_scaling(d$x, d$scaling)
  rownames(d$x) <- NULL
  d
}
