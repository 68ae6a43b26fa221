# Data sources other than a dense matrix: sparse rows, given kernel values,
# and kernels computed by an R function.  Each is a small S3 list the C
# engine reads (src/ffi.c: sparse_from, precomputed_from, callback_from),
# with a row map `rows` so that subsets of points (one-vs-one pairs, folds,
# support vectors) are re-indexed, never copied:
#
# kc_csr:         rowptr, col (0-based), val: compressed sparse rows; dim, dimnames.
# kc_precomputed: K (kernel values: a column per point of the source, its
#                 values against the training points down the column), rows
#                 (the columns of K of the points), cols (the training point
#                 each point is: rows of K; NULL for new points).
# kc_user:        data (any object with rows: matrix, data frame, list, character
#                 vector), rows, nrow (of data), tile(xa, ia, xb, ib): the
#                 checked kernel values of rows ia of xa against rows ib of xb,
#                 called by the engine on tiles, on the main thread.
#
# Sparse input is read from its slots (Matrix's dgCMatrix and dgRMatrix,
# SparseM's matrix.csr) without Matrix or SparseM at run time.

kc_source_classes <- c("kc_csr", "kc_precomputed", "kc_user")

# Whether x is one of the engine's source objects.
kc_is_source <- function(x) inherits(x, kc_source_classes)

# Whether x is sparse input from Matrix or SparseM.
kc_is_sparse_input <- function(x) {
  inherits(x, "kc_csr") || inherits(x, "matrix.csr") ||
    (isS4(x) && identical(attr(class(x), "package"), "Matrix") && !kc_is_dense_Matrix(x) &&
       !is.matrix(x))
}

# Whether x is a dense Matrix (dgeMatrix and the like): taken as the matrix
# it holds.
kc_is_dense_Matrix <- function(x) isS4(x) && inherits(x, "denseMatrix")

# Whether `kernel` says that the data are kernel values or are given to a
# kernel function: "precomputed", an R function, a kernlab kernel.
kc_is_kernel_data <- function(kernel) identical(kernel, "precomputed") || is.function(kernel)

# ---- sparse rows --------------------------------------------------------

kc_new_csr <- function(rowptr, col, val, dim, dimnames = NULL) {
  structure(list(rowptr = as.integer(rowptr), col = as.integer(col), val = as.double(val),
                 dim = as.integer(dim), dimnames = dimnames, rows = NULL),
            class = "kc_csr")
}

# Sparse input (or a dense matrix, for new data of a sparse model) as kc_csr,
# checked: finite values, at most 2^31 - 1 non-zeros.
kc_as_csr <- function(x, arg = "x") {
  slot <- function(name) attr(x, name, exact = TRUE)
  if (inherits(x, "kc_csr")) return(x)
  cls <- class(x)[1L]
  if (is.matrix(x) || is.data.frame(x) || kc_is_dense_Matrix(x)) {
    m <- kc_as_numeric_matrix(x, arg)
    kc_check_finite(m, arg)
    tm <- t(m)  # row-major order
    nz <- which(tm != 0) - 1
    p <- ncol(m)
    return(kc_new_csr(c(0L, cumsum(tabulate(nz %/% p + 1, nrow(m)))), nz %% p, tm[nz + 1],
                      dim(m), dimnames(m)))
  }
  if (identical(cls, "dgCMatrix")) {
    dim <- slot("Dim")
    i <- slot("i")
    colidx <- rep.int(seq_len(dim[2L]) - 1L, diff(slot("p")))
    o <- order(i, method = "radix")  # stable: columns stay in order within a row
    val <- slot("x")[o]
    out <- kc_new_csr(c(0L, cumsum(tabulate(i + 1L, dim[1L]))), colidx[o], val, dim,
                      slot("Dimnames"))
  } else if (identical(cls, "dgRMatrix")) {
    out <- kc_new_csr(slot("p"), slot("j"), slot("x"), slot("Dim"), slot("Dimnames"))
  } else if (inherits(x, "matrix.csr")) {
    out <- kc_new_csr(slot("ia") - 1L, slot("ja") - 1L, slot("ra"), slot("dimension"))
  } else {
    kc_abort(sprintf(paste0("`%s` is a sparse matrix of class %s; kernclass takes dgCMatrix, ",
                            "dgRMatrix and SparseM's matrix.csr: convert it with ",
                            "as(%s, \"dgCMatrix\")."), arg, cls, arg), arg = arg, class = "sparse")
  }
  if (length(out$val) > .Machine$integer.max) {
    kc_abort(sprintf("`%s` has more than 2^31 - 1 non-zero values.", arg), arg = arg,
             class = "sparse")
  }
  bad <- !is.finite(out$val)
  if (any(bad)) {
    rows <- findInterval(which(bad) - 1, out$rowptr, left.open = FALSE)
    kc_abort(sprintf(paste0("`%s` has %s values (rows %s); sparse input must be finite: ",
                            "remove or replace them."), arg,
                     if (anyNA(out$val)) "missing (NA or NaN)" else "infinite",
                     paste(utils::head(unique(rows), 5), collapse = ", ")),
             arg = arg, class = "sparse")
  }
  # (new data may have no rows: their predictions have none)
  if (nrow(out) == 0L && arg != "newdata") kc_abort(sprintf("`%s` has no rows.", arg), arg = arg)
  if (ncol(out) == 0L) kc_abort(sprintf("`%s` has no columns.", arg), arg = arg)
  out
}

# The points' rows in the source (the row map, or all).
kc_source_rows <- function(x) if (is.null(x$rows)) seq_len(x$dim[1L]) else x$rows

#' @export
dim.kc_csr <- function(x) c(length(kc_source_rows(x)), x$dim[2L])

#' @export
dimnames.kc_csr <- function(x) {
  rn <- x$dimnames[[1L]]
  if (!is.null(rn)) rn <- rn[kc_source_rows(x)]
  if (is.null(rn) && is.null(x$dimnames[[2L]])) NULL else list(rn, x$dimnames[[2L]])
}

#' @export
`dimnames<-.kc_csr` <- function(x, value) {
  if (is.null(value)) value <- list(NULL, NULL)
  rn <- value[[1L]]
  if (!is.null(rn)) {  # names of the points: kept for the source's rows
    all <- character(x$dim[1L])
    all[kc_source_rows(x)] <- rn
    rn <- all
  }
  x$dimnames <- list(rn, value[[2L]])
  x
}

# Row subsets: x[i, , drop = FALSE] re-indexes the points; column subsets
# x[, j, drop = FALSE] (by number or name, in any order) build new rows.
#' @export
`[.kc_csr` <- function(x, i, j, drop = FALSE) {
  if (!missing(i)) {
    x$rows <- kc_source_rows(x)[i]
    if (anyNA(x$rows)) stop("kernclass internal: row index out of range")
  }
  if (!missing(j)) x <- kc_csr_columns(x, j)
  x
}

# The columns j of the points, in the order of j (distinct columns).
kc_csr_columns <- function(x, j) {
  names <- x$dimnames[[2L]]
  j <- if (is.character(j)) match(j, names) else seq_len(x$dim[2L])[j]
  if (anyNA(j) || anyDuplicated(j)) stop("kernclass internal: bad column subset")
  t <- kc_csr_triplets(x)
  to <- match(t$col, j)  # the column's place in the result
  keep <- !is.na(to)
  o <- order(t$row[keep], to[keep], method = "radix")
  row <- t$row[keep][o]
  kc_new_csr(c(0L, cumsum(tabulate(row, nrow(x)))), to[keep][o] - 1L, t$val[keep][o],
             c(nrow(x), length(j)), list(dimnames(x)[[1L]], names[j]))
}

# Dense rows (for kernel_bayes and for dense models' new data), guarded.
#' @export
as.matrix.kc_csr <- function(x, ...) {
  kc_check_dense_size(nrow(x), ncol(x))
  rows <- kc_source_rows(x)
  out <- matrix(0, length(rows), ncol(x))
  len <- diff(x$rowptr)[rows]
  nz <- sequence(len, from = x$rowptr[rows] + 1L)
  out[cbind(rep.int(seq_along(rows), len), x$col[nz] + 1L)] <- x$val[nz]
  dimnames(out) <- dimnames(x)
  out
}

# The most values kernclass writes out densely from sparse rows (1e8: 800 MB).
kc_max_dense <- 1e8

kc_check_dense_size <- function(n, p, arg = "x") {
  if (as.numeric(n) * p > kc_max_dense) {
    kc_abort(sprintf(paste0("`%s` is sparse with %.0f x %.0f values: too many to write out ",
                            "densely (at most %.0e), which kernel_bayes needs for its ",
                            "covariance matrices. Use another classifier, or fewer columns."),
                     arg, as.numeric(n), as.numeric(p), kc_max_dense),
             arg = arg, class = "sparse")
  }
}

# The non-zeros of the points, as vectors: value, row (1-based point), column (1-based).
kc_csr_triplets <- function(x) {
  rows <- kc_source_rows(x)
  len <- diff(x$rowptr)[rows]
  nz <- sequence(len, from = x$rowptr[rows] + 1L)
  list(val = x$val[nz], row = rep.int(seq_along(rows), len), col = x$col[nz] + 1L)
}

# Column means and standard deviations (as colMeans and sd) from the non-zeros.
kc_csr_moments <- function(x) {
  t <- kc_csr_triplets(x)
  n <- nrow(x)
  p <- ncol(x)
  sum1 <- numeric(p)
  s <- rowsum(t$val, t$col, reorder = TRUE)
  sum1[as.integer(rownames(s))] <- s
  mean <- sum1 / n
  dev <- rowsum((t$val - mean[t$col])^2, t$col, reorder = TRUE)
  ss <- (n - tabulate(t$col, p)) * mean^2  # the zeros' deviations
  ss[as.integer(rownames(dev))] <- ss[as.integer(rownames(dev))] + dev
  list(mean, if (n > 1L) sqrt(ss / (n - 1)) else rep(NA_real_, p))
}

# Values divided by the column scale (sparse scaling never centres).
kc_csr_scale <- function(x, scale) {
  x$val <- x$val / scale[x$col + 1L]
  x
}

# ---- given kernel values ----------------------------------------------------

# The numbers of a kernel matrix: a numeric matrix or kernlab's kernelMatrix.
kc_kernel_values <- function(K, arg) {
  if (isS4(K) && is.matrix(K@.Data)) K <- K@.Data  # kernlab's kernelMatrix
  if (is.data.frame(K)) K <- as.matrix(K)
  if (!is.matrix(K) || !(is.numeric(K) || is.logical(K))) {
    kc_abort(sprintf(paste0("With kernel = \"precomputed\", `%s` must be a numeric kernel ",
                            "matrix (or kernlab's kernelMatrix); got %s."), arg,
                     paste(class(K), collapse = "/")), arg = arg, class = "kernel_data")
  }
  storage.mode(K) <- "double"
  if (!all(is.finite(K))) {
    kc_abort(sprintf("`%s` (kernel values) has NA, NaN or infinite values.", arg), arg = arg,
             class = "kernel_data")
  }
  K
}

# Training kernel values: an n x n symmetric matrix.
kc_as_precomputed <- function(x, arg = "x") {
  if (inherits(x, "kc_precomputed")) return(x)
  K <- kc_kernel_values(x, arg)
  if (nrow(K) != ncol(K) || nrow(K) == 0L) {
    kc_abort(sprintf(paste0("With kernel = \"precomputed\", `%s` must be the square n x n ",
                            "matrix of kernel values between the training points; got %d x %d."),
                     arg, nrow(K), ncol(K)), arg = arg, class = "kernel_data")
  }
  if (!isSymmetric(unname(K), tol = 1e-10)) {
    kc_abort(sprintf(paste0("`%s` is not symmetric: a kernel matrix is (k(x, y) = k(y, x)). ",
                            "Symmetrise it, e.g. (K + t(K)) / 2."), arg),
             arg = arg, class = "kernel_data")
  }
  tK <- t(K)
  if (!identical(unname(tK), unname(K))) K <- (K + tK) / 2  # symmetric to the last digit
  n <- nrow(K)
  structure(list(K = K, rows = seq_len(n), cols = seq_len(n), rownames = rownames(K)),
            class = c("kc_precomputed", "kc_kernel_data"))
}

# Both kernel-data sources (kc_precomputed, kc_user) are sets of rows: n x 1
# to the code that counts and names rows.
#' @export
dim.kc_kernel_data <- function(x) c(length(x$rows), 1L)

#' @export
dimnames.kc_kernel_data <- function(x) {
  rn <- x$rownames
  if (is.null(rn)) NULL else list(rn[x$rows], NULL)
}

#' @export
`dimnames<-.kc_kernel_data` <- function(x, value) {
  if (is.null(value) || is.null(value[[1L]])) x$rownames <- NULL
  x
}

#' @export
`[.kc_precomputed` <- function(x, i, j, drop = FALSE) {
  if (!is.null(x$cols)) x$cols <- x$cols[i]
  x$rows <- x$rows[i]
  if (anyNA(x$rows)) stop("kernclass internal: row index out of range")
  x
}

# New points' kernel values against a model's training points (`train`, a
# kc_precomputed of n points): an m x n matrix, its columns in the order of
# the training rows.
kc_new_precomputed <- function(train, newdata, arg = "newdata") {
  K <- kc_kernel_values(newdata, arg)
  n <- length(train$rows)
  if (ncol(K) != n) {
    kc_abort(sprintf(paste0("With kernel = \"precomputed\", `%s` must be the m x %d ",
                            "matrix of kernel values between the new points and the %d ",
                            "training points; got %d x %d."), arg, n, n, nrow(K), ncol(K)),
             arg = arg, class = "kernel_data")
  }
  # its columns are the training points: by name where the training points
  # have unique names and K's columns names, else in the training order
  names_fit <- if (!is.null(train$rownames)) train$rownames[train$rows]
  if (!kc_names_unique(names_fit)) names_fit <- NULL
  K <- kc_match_columns(K, names_fit, n, arg = arg)
  # the training points are rows train$cols of their matrix: place them there
  Kt <- t(K)
  if (!identical(train$cols, seq_len(nrow(train$K)))) {
    Kt <- matrix(0, nrow(train$K), nrow(K))
    Kt[train$cols, ] <- t(K)
  }
  structure(list(K = Kt, rows = seq_len(nrow(K)), cols = NULL, rownames = rownames(K)),
            class = c("kc_precomputed", "kc_kernel_data"))
}

# ---- kernels computed by R --------------------------------------------------

# The rows `i` of any data with rows.
kc_data_rows <- function(x, i) if (is.null(dim(x))) x[i] else x[i, , drop = FALSE]

kc_data_nrow <- function(x) if (is.null(dim(x))) length(x) else nrow(x)

# A kernel function of two row blocks: an R function f(a, b) returning the
# length(a) x length(b) matrix, or a kernlab kernel (rbfdot(), stringdot()...),
# whose blocks kernlab::kernelMatrix() computes.
kc_kernel_function <- function(kernel) {
  if (inherits(kernel, "kernel")) {  # kernlab's kernel classes
    if (!requireNamespace("kernlab", quietly = TRUE)) {
      kc_abort("A kernlab kernel needs the kernlab package: install it.", arg = "kernel")
    }
    return(function(a, b) {
      if (is.character(a)) a <- as.list(a)  # string kernels take lists of strings
      if (is.character(b)) b <- as.list(b)
      if (is.data.frame(a)) a <- as.matrix(a)
      if (is.data.frame(b)) b <- as.matrix(b)
      kernlab::kernelMatrix(kernel, a, b)
    })
  }
  kernel
}

# The tile function of a kernel function `fun`: the checked kernel values of
# rows ia of xa against rows ib of xb. Made here, so that its environment
# holds `fun` alone, not the training data (a saved model holds them once).
kc_user_tile <- function(fun) {
  fun <- kc_portable_function(fun)
  function(xa, ia, xb, ib) {
    v <- fun(kc_data_rows(xa, ia), kc_data_rows(xb, ib))
    if (isS4(v) && is.matrix(v@.Data)) v <- v@.Data
    if (!is.matrix(v) || !(is.numeric(v) || is.logical(v)) ||
        nrow(v) != length(ia) || ncol(v) != length(ib)) {
      got <- if (is.matrix(v)) sprintf("a %d x %d %s matrix", nrow(v), ncol(v), typeof(v)) else
        sprintf("an object of class %s", paste(class(v), collapse = "/"))
      kc_abort(sprintf(paste0("The kernel function must return the numeric %d x %d matrix of ",
                              "kernel values of its two blocks of points; it returned %s."),
                       length(ia), length(ib), got), arg = "kernel", class = "kernel_function")
    }
    storage.mode(v) <- "double"
    if (!all(is.finite(v))) {
      kc_abort("The kernel function returned NA, NaN or infinite values.", arg = "kernel",
               class = "kernel_function")
    }
    dimnames(v) <- NULL
    v
  }
}

# `fun` with the globals it uses from the global environment (variables and
# functions, and theirs in turn) copied into an environment of its own. A
# function defined at top level finds its globals in the session's global
# environment, which is not serialized with it: in a future's worker, or in
# a model saved and read in another session, they would be missing. The
# model keeps the values they had when it was fitted.
kc_portable_function <- function(fun) {
  if (!is.function(fun) || !identical(environment(fun), globalenv())) return(fun)
  found <- globals::globalsOf(fun, envir = globalenv(), mustExist = FALSE, recursive = TRUE)
  mine <- vapply(attr(found, "where"), identical, logical(1), globalenv())
  if (!any(mine)) return(fun)
  env <- new.env(parent = globalenv())
  for (name in names(found)[mine]) {
    value <- found[[name]]
    if (is.function(value) && identical(environment(value), globalenv())) environment(value) <- env
    assign(name, value, envir = env)
  }
  environment(fun) <- env
  fun
}

# The kc_user source of `data` for the kernel function `fun`, or new data
# for an existing source `like` (the same tile function, as the engine checks).
kc_as_user <- function(data, kernel = NULL, arg = "x", like = NULL) {
  if (inherits(data, "kc_user")) return(data)
  if (is.null(data) || is.function(data) || is.environment(data)) {
    kc_abort(sprintf("`%s` must hold the points the kernel function takes (rows of a matrix, ",
                     "elements of a list or character vector).", arg), arg = arg,
             class = "kernel_data")
  }
  n <- kc_data_nrow(data)
  if (n == 0L && is.null(like)) kc_abort(sprintf("`%s` has no rows.", arg), arg = arg)
  if (!is.null(like)) {
    like$data <- data
    like$rows <- seq_len(n)
    like$nrow <- as.integer(n)
    like$rownames <- if (is.null(dim(data))) names(data) else rownames(data)
    return(like)
  }
  tile <- kc_user_tile(kc_kernel_function(kernel))
  structure(list(data = data, rows = seq_len(n), nrow = as.integer(n), tile = tile,
                 rownames = if (is.null(dim(data))) names(data) else rownames(data)),
            class = c("kc_user", "kc_kernel_data"))
}

#' @export
`[.kc_user` <- function(x, i, j, drop = FALSE) {
  x$rows <- x$rows[i]
  if (anyNA(x$rows)) stop("kernclass internal: row index out of range")
  x
}

# ---- the same questions of any points ---------------------------------------

# Squared row norms (the precomputed and user sources: k(x, x)).
kc_sqnorms <- function(x) {
  if (is.matrix(x)) return(rowSums(x * x))
  .Call(ffi_kernel_diag, x, kc_plain_code())
}

# Which points can be used: rows without NA (sources are complete).
kc_complete_rows <- function(x) {
  if (kc_is_source(x)) rep(TRUE, nrow(x)) else stats::complete.cases(x)
}

# The design of inputs that are kernel values or a kernel function's points.
kc_design_source <- function(x, y, kernel, labels) {
  src <- if (identical(kernel, "precomputed")) kc_as_precomputed(x) else kc_as_user(x, kernel)
  d <- list(x = src, y = NULL, terms = NULL, xlevels = NULL, contrasts = NULL,
            scalable = logical(0), na.action = NULL)
  if (labels) d$y <- kc_as_labels(y, nrow(src), "y")
  d
}
