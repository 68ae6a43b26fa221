# The kernel specification and the Gram matrix; the facts about each kernel
# are in the kernel table (R/table-kernels.R).

# A checked kernel: list(name, gamma, degree, coef0), and gamma_rule = "median"
# when gamma was estimated. `x` is the matrix the kernel is applied to (for
# the fitters: the coded, scaled training inputs): gamma defaults to
# 1 / ncol(x), and gamma = "median" is estimate_gamma()'s value on x.
kc_kernel <- function(kernel, gamma, degree, coef0, x) {
  if (kc_is_kernel_data(kernel)) {
    # the kernel is in the data (R/input-sources.R): no parameters of ours
    name <- if (is.function(kernel)) "user" else "precomputed"
    if (!inherits(x, if (name == "user") "kc_user" else "kc_precomputed")) {
      # a formula's design is columns, not kernel values or a function's points
      kc_abort(sprintf(paste0("kernel = %s takes `x` as it is: use the default method ",
                              "(x, y), not a formula."),
                       if (name == "user") "<a function>" else "\"precomputed\""),
               arg = "kernel", class = "kernel_data")
    }
    return(list(name = name, gamma = 1, degree = 1L, coef0 = 0))
  }
  name <- kc_kernel_name(kernel)
  rule <- NULL
  if (is.null(gamma)) {
    gamma <- 1 / ncol(x)
  } else if (is.character(gamma)) {
    if (!identical(gamma, "median")) {
      kc_abort(sprintf('`gamma` must be a number > 0 or "median"; got %s.',
                       kc_enum(gamma, max = 3)), arg = "gamma")
    }
    gamma <- kc_median_gamma(x, name)
    rule <- "median"
  }
  kc_check_number(gamma, "gamma", lower = 0, lower_open = TRUE)
  kc_check_number(degree, "degree", lower = 1, whole = TRUE)
  if (degree > 1e6) kc_abort("`degree` must be at most 1e6.", arg = "degree")
  kc_check_number(coef0, "coef0")
  k <- list(name = name, gamma = as.numeric(gamma), degree = as.integer(degree),
            coef0 = as.numeric(coef0))
  k$gamma_rule <- rule
  k
}

# Kernel values of the rows of x must be finite numbers: the squared norms
# must not overflow, nor the kernel's bound of its values (kc_kernels$bound).
# `float = TRUE` (the SVM, whose row cache holds floats): the bound must also
# stay within the float range, where values would become Inf.
kc_check_kernel_range <- function(x, k, arg = "x", float = FALSE) {
  sq <- if (nrow(x)) max(kc_sqnorms(x)) else 0
  if (!is.finite(sq)) {
    kc_abort(sprintf(paste0("`%s` has values so large that their squares overflow; ",
                            "rescale them (or use scale = TRUE)."), arg), arg = arg)
  }
  kc_check_distance_range(sq, k, arg)
  bound <- kc_kernel_info(k)$bound(sq, k)
  if (!is.finite(bound)) kc_abort_overflow(k)
  if (float && bound > kc_float_max) kc_abort_overflow(k, float = TRUE)
  invisible(x)
}

# Kernels on distances: squared distances, up to 2 (|x|^2 + |y|^2) <= 4 sq
# for rows of squared norm at most sq, must be finite numbers, else every
# engine would give 0 for points whose kernel value is not.
kc_check_distance_range <- function(sq, k, arg = "x") {
  if (kc_row_uses_distance(kc_kernel_info(k)) && !is.finite(4 * sq)) {
    kc_abort(sprintf(paste0("`%s` has rows so far from the origin (squared norm %.3g) that ",
                            "their squared distances can overflow; rescale them (or use ",
                            "scale = TRUE)."), arg, sq), arg = arg, class = "overflow")
  }
}

# FLT_MAX, the largest single-precision number.
kc_float_max <- 3.4028234663852886e38

# The argument to blame: the degree where the kernel has one (its values
# grow as a power), else gamma.
kc_abort_overflow <- function(k, float = FALSE) {
  has_degree <- "degree" %in% kc_kernel_info(k)$label
  what <- if (float) {
    paste0("its values exceed the single-precision range (3.4e38) of the SVM's kernel ",
           "cache")
  } else {
    "its values are not finite numbers"
  }
  kc_abort(sprintf(paste0("The %s kernel overflows on this data: %s. Use a smaller `degree` ",
                          "or `gamma`, or scale the inputs."),
                   kc_kernel_label(k), what), arg = if (has_degree) "degree" else "gamma",
           class = "overflow")
}

# An n x m result must be an R vector: at most 2^52 elements (R_XLEN_T_MAX,
# as the guard in src/ffi.c), checked before anything is allocated.
kc_check_result_size <- function(n, m) {
  if (as.numeric(n) * as.numeric(m) > 2^52) {
    kc_abort(sprintf("The %.0f x %.0f kernel matrix of `x` is too large for R (over 2^52 values).",
                     as.numeric(n), as.numeric(m)), arg = "x", class = "memory")
  }
  kc_check_memory(8 * as.numeric(n) * as.numeric(m),
                  sprintf("The %.0f x %.0f kernel matrix of `x`", as.numeric(n), as.numeric(m)),
                  paste("The classifiers never form it: give them the inputs.", kc_memory_route))
  invisible(TRUE)
}

# The numeric form the C engine takes: the code is the row of the kernel
# table (R/table-kernels.R). The engine also reads the option
# kernclass.svm.precision where it parses the kernel (src/ffi.c): checked here.
kc_kernel_code <- function(k) {
  kc_option("kernclass.svm.precision")
  engine <- kc_kernel_info(k)$engine
  c(match(if (is.null(engine)) k$name else engine, names(kc_kernels)), k$gamma, k$degree,
    k$coef0)
}

# The kernel matrix as the SVM's float stores hold it: in single precision
# where the option kernclass.svm.precision and the data allow it
# (src/kernel-float.c), else the double values rounded; as doubles. For the
# tests and benchmarks of the float tiles.
kc_kernel_matrix_float <- function(x, y = NULL, k, threads = kc_threads()) {
  .Call(ffi_kernel_matrix_float, x, y, kc_kernel_code(k), threads)
}

# k(x, x) for each row of x: the diagonal of the Gram matrix, in O(np).
kc_kernel_diag <- function(x, k) kc_kernel_self(kc_sqnorms(x), k)

#' Kernel (Gram) matrix
#'
#' Computes the matrix of kernel values \eqn{k(x_i, y_j)} between the rows of
#' `x` and the rows of `y` (or of `x` with itself) with the package's C
#' kernel engine: inner products as a blocked matrix product, in tiles, on
#' the threads [kernclass_threads()] reports.
#'
#' The kernels, with e1071's argument names:
#' * `"linear"`: \eqn{x'y}
#' * `"polynomial"`: \eqn{(\gamma x'y + c_0)^d}{(gamma x'y + coef0)^degree}
#' * `"rbf"` (also `"radial"`): \eqn{\exp(-\gamma \|x - y\|^2)}{exp(-gamma ||x - y||^2)}
#' * `"laplace"`: \eqn{\exp(-\gamma \|x - y\|)}{exp(-gamma ||x - y||)}
#' * `"sigmoid"`: \eqn{\tanh(\gamma x'y + c_0)}{tanh(gamma x'y + coef0)}
#'
#' Results do not depend on the number of threads, which
#' [kernclass_threads()] reports and sets (default: the cores this process
#' may use). The data are not
#' scaled here; the classifiers scale their inputs themselves.
#'
#' @param x A numeric matrix (or data frame of numeric columns, or numeric
#'   vector taken as one column), or a sparse matrix (`dgCMatrix`,
#'   `dgRMatrix`, `matrix.csr`: computed from its non-zeros; a dense
#'   `dgeMatrix` is taken as a matrix), or, for a
#'   kernel function, the points it takes.
#' @param y `NULL` (the default) for the symmetric matrix of `x` with itself,
#'   or a numeric matrix with the columns of `x` (as many): found by name
#'   where the names of `x` are unique and `y` has names (as
#'   [predict()][predict.kernclass] finds those of new data), else by
#'   position.
#' @param kernel One of `"linear"`, `"polynomial"`, `"rbf"`, `"laplace"`,
#'   `"sigmoid"`, or a kernel function of two blocks of points (see
#'   [kernel_means()]), which is then called on tiles.
#' @param gamma Kernel scale \eqn{\gamma > 0}{gamma > 0}; default `1 / ncol(x)`.
#'   `"median"`: [estimate_gamma()]'s value for `x` as given (not scaled).
#' @param degree Degree of the polynomial kernel, a positive whole number.
#' @param coef0 Constant \eqn{c_0}{coef0} of the polynomial and sigmoid kernels.
#' @return A numeric matrix with `nrow(x)` rows and `nrow(y)` columns, with
#'   the row names of `x` and `y` as dimnames.
#' @export
#' @examples
#' x <- as.matrix(iris[1:5, 1:4])
#' kernel_matrix(x, kernel = "rbf", gamma = 0.5)
#' kernel_matrix(x, x[1:2, ], kernel = "polynomial", degree = 2)
kernel_matrix <- function(x, y = NULL, kernel = "rbf", gamma = 1 / ncol(x), degree = 3,
                          coef0 = 0) {
  kc_require(missing(x), "x", "a numeric matrix")
  if (identical(kernel, "precomputed")) {
    kc_abort("kernel = \"precomputed\" gives the kernel matrix itself: there is none to compute.",
             arg = "kernel", class = "kernel_data")
  }
  sparse <- kc_is_sparse_input(x) || kc_is_sparse_input(y)
  user <- is.function(kernel)
  as_input <- function(m, arg) {
    if (user) return(kc_as_user(m, kernel, arg, like = if (arg == "y") x))
    if (sparse) return(kc_as_csr(m, arg))
    m <- kc_as_numeric_matrix(m, arg)
    kc_check_finite(m, arg)
    m
  }
  x <- as_input(x, "x")
  if (!is.null(y)) {
    y <- as_input(y, "y")
    if (ncol(y) != ncol(x)) {
      kc_abort(sprintf("`y` has %d column(s) but `x` has %d; they must match.", ncol(y), ncol(x)),
               arg = "y")
    }
    # the same columns: by name where x's names are unique and y has names
    # (as predict() matches new data), else by position
    names_x <- if (!user) colnames(x)
    if (!kc_names_unique(names_x)) names_x <- NULL
    if (!user) y <- kc_match_columns(y, names_x, ncol(x), arg = "y", by = "`x`")
  }
  k <- kc_kernel(kernel, gamma, degree, coef0, x)
  for (m in list(x, y)) if (!is.null(m) && nrow(m)) kc_check_distance_range(max(kc_sqnorms(m)), k)
  kc_check_result_size(nrow(x), if (is.null(y)) nrow(x) else nrow(y))
  out <- tryCatch(.Call(ffi_kernel_matrix, x, y, kc_kernel_code(k), kc_threads()),
    error = function(e) {
      if (!grepl("cannot allocate|vector memory", conditionMessage(e))) stop(e)
      kc_abort(sprintf(paste0("The %d x %d kernel matrix of `x` (%.1f GB) cannot be allocated; ",
                              "the classifiers never form it."), nrow(x),
                       if (is.null(y)) nrow(x) else nrow(y),
                       8 * nrow(x) * as.numeric(if (is.null(y)) nrow(x) else nrow(y)) / 2^30),
               arg = "x", class = "memory")
    })
  names <- list(rownames(x), if (is.null(y)) rownames(x) else rownames(y))
  if (!all(vapply(names, is.null, logical(1)))) dimnames(out) <- names
  out
}

# The instruction set of the C kernel engine on this CPU ("avx512", "avx2" or
# "c"); the environment variable KERNCLASS_ISA = "c" or "avx2", set before the
# package is loaded, caps it.
kc_engine <- function() .Call(ffi_engine)
