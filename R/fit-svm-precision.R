# Whether the SVM's float row cache can tell the training points apart,
# and, for kernel values from the user, the centring that makes it so:
# the check kc_svm_binary() makes before the solver runs (R/fit-svm-solve.R).

# The float cache rounds a kernel value K to about |K| 2^-24, and the
# solver's steps rest on K_ii + K_jj - 2 K_ij. Where that (in double, over
# the pairs of distinct points of a sample) is mostly below the rounding of
# its three values, the solver's answer is rounding noise that can still
# pass the KKT test (a polynomial kernel on data far from the origin:
# converged, 70% of a separable training set). Distance kernels computed
# here are bounded by 1; the linear kernel's dense data are centred before.
#
# Kernel values from the user (precomputed, or a kernel function) may share
# a large common part (a linear kernel of data far from the origin). Their
# problem is then solved on centred values, in double before the cache:
# K'_ij = K_ij - u_i - u_j + g, the kernel of the points moved by the mean m
# of the sample in feature space (u_i = k(x_i, m), g = k(m, m)). With y'a = 0
# (C- and nu-classification) a'Q'a = a'Qa, so the solution is the same, and
# y_i G_i moves by s = sum_j a_j y_j u_j for every i: rho moves back by s.
# The one-class dual (sum a fixed, no y'a = 0) allows only a constant: K - c
# (u_i = c / 2, g = 0), rho back by c sum(a), the objective by c sum(a)^2 / 2.
# Returns NULL (the problem as it is) or list(x, u, c): the centred points and
# what moves rho back; an error of class "kernclass_precision_error" where
# the cache cannot tell the points apart even so.
kc_svm_precision <- function(xb, k, label = "", one = FALSE) {
  kernel_data <- inherits(xb, "kc_kernel_data")
  # sparse rows are judged for the linear kernel too; dense rows are centred
  # for it where that matters, except for the one-class SVM (which centring
  # would change), left as LIBSVM leaves it: e1071 agrees far from the origin
  if (nrow(xb) < 2L) return(NULL)
  shift <- kc_kernel_info(k)$shift
  if (!kernel_data && (shift == "invariant" ||
                       (shift == "dual" && (is.matrix(xb) || one)))) return(NULL)
  sample <- kc_precision_sample(xb, k)
  K <- kc_precision_gram(xb[sample, , drop = FALSE], k)
  same <- if (is.matrix(xb)) kc_same_rows(xb[sample, , drop = FALSE])
  if (kc_precision_enough(kc_precision_ratio(K, same))) return(NULL)
  if (kernel_data) {
    if (one) {
      shift <- mean(K)
      u <- rep(shift / 2, nrow(xb))
      g <- 0
    } else {
      u <- kc_precision_centre(xb, sample, k)
      g <- mean(K)
    }
    uR <- u[sample]
    centred <- K - uR - rep(uR, each = length(uR)) + g
    if (kc_precision_enough(kc_precision_ratio(centred, same))) {
      return(list(x = kc_centred_source(xb, u, g), u = u, c = if (one) shift))
    }
  }
  kc_abort(sprintf(paste0("The %s kernel's values on this data are too large for the SVM's ",
                          "single-precision kernel cache to tell the points apart%s (their ",
                          "differences are below its rounding%s). %s"),
                   k$name, if (nzchar(label)) paste0(" for classes ", label) else "",
                   if (kernel_data) ", even centred" else "",
                   if (kernel_data) "Give kernel values with smaller common parts." else
                     paste0("Scale the inputs (scale = TRUE), centre them, or use a smaller ",
                            "`degree`, `gamma` or `coef0`.")),
           arg = "x", class = "precision")
}

# The most points whose kernel values judge the cache's precision.
kc_precision_points <- 256L

# Up to kc_precision_points of the points, chosen by their values, not by
# their order: evenly spaced in the order of k(x, x) (ties by the row sums),
# so that the judgement does not depend on how the rows are sorted.
kc_precision_sample <- function(x, k) {
  n <- nrow(x)
  if (n <= kc_precision_points) return(seq_len(n))
  tie <- if (is.matrix(x)) rowSums(x) else if (inherits(x, "kc_csr")) {
    t <- kc_csr_triplets(x)
    sums <- numeric(n)
    r <- rowsum(t$val, t$row, reorder = TRUE)
    sums[as.integer(rownames(r))] <- r
    sums
  }
  key <- kc_kernel_diag(x, k)
  o <- if (is.null(tie)) order(key) else order(key, tie)
  o[unique(round(seq(1, n, length.out = kc_precision_points)))]
}

# The kernel matrix of a few points, in double.
kc_precision_gram <- function(x, k) {
  if (inherits(x, "kc_precomputed")) return(x$K[x$cols, x$rows, drop = FALSE])
  .Call(ffi_kernel_matrix, x, NULL, kc_kernel_code(k), kc_threads())
}

# The median, over pairs of distinct points (not `same`; where not known,
# those whose K_ii + K_jj - 2 K_ij is not 0), of that sum over the cache's
# rounding of its three values; Inf with no such pair.
kc_precision_ratio <- function(K, same = NULL) {
  d <- diag(K)
  quad <- outer(d, d, "+") - 2 * K
  noise <- 2^-22 * pmax(abs(outer(d, d, pmax)), abs(outer(d, d, pmin)), abs(K))
  pairs <- upper.tri(K) & (if (is.null(same)) quad != 0 else !same)
  if (!any(pairs)) return(Inf)
  stats::median(abs(quad[pairs]) / noise[pairs])
}

# Which pairs of dense rows are equal (by three sums that equal rows share
# and different rows, in practice, do not), in O(np).
kc_same_rows <- function(x) {
  w <- seq_len(ncol(x)) / ncol(x)
  keys <- cbind(rowSums(x), rowSums(x * x), drop(x %*% w))
  same <- matrix(TRUE, nrow(x), nrow(x))
  for (j in 1:3) same <- same & outer(keys[, j], keys[, j], "==")
  same
}

# Whether the median ratio is large enough (NaN: values that underflow to 0).
kc_precision_enough <- function(ratio) !is.na(ratio) && ratio >= 4

# u_i = the mean of k(x_i, x_r) over the sample's points r, for every point.
kc_precision_centre <- function(x, sample, k) {
  if (inherits(x, "kc_precomputed")) return(colMeans(x$K[x$cols[sample], x$rows, drop = FALSE]))
  rowMeans(.Call(ffi_kernel_matrix, x, x[sample, , drop = FALSE], kc_kernel_code(k),
                 kc_threads()))
}

# The points' kernel values K_ij - u_i - u_j + g, as a source of their own:
# precomputed values written out, a kernel function's tiles moved as they
# come (in double, before the cache).
kc_centred_source <- function(x, u, g) {
  if (inherits(x, "kc_precomputed")) {
    n <- length(x$cols)
    kc_check_memory(32 * as.numeric(n)^2,
                    sprintf("Centring the %d x %d given kernel values (in double)", n, n),
                    paste("Give kernel values with smaller common parts (centred), or the",
                          "inputs themselves.", kc_memory_route))
    K <- x$K[x$cols, x$rows, drop = FALSE]
    return(structure(list(K = K - u - rep(u, each = n) + g, rows = seq_len(n), cols = seq_len(n),
                          rownames = NULL), class = c("kc_precomputed", "kc_kernel_data")))
  }
  shift <- numeric(x$nrow)  # by row of the data
  shift[x$rows] <- u
  tile <- x$tile
  x$tile <- function(xa, ia, xb, ib) {
    tile(xa, ia, xb, ib) - shift[ia] - rep(shift[ib], each = length(ia)) + g
  }
  x
}

#' @section Precision of the kernel values:
#' The solver keeps its kernel values as floats (single precision), as
#' LIBSVM does: a cache of kernel rows of `cachesize` MB, or every value of a
#' problem that fits. By default (`options(kernclass.svm.precision =
#' "double")`) each is computed in double and rounded to a float. With
#' `options(kernclass.svm.precision = "float")` those of the rbf kernel on
#' dense inputs are computed in single precision, 16 products a register:
#' the points are moved by their column means where they lie far from the
#' origin before they are rounded to floats, and the squared norms kept in
#' double, so that a value differs from the double value by about
#' \eqn{2^{-22} \gamma (\|x - m\|^2 + \|y - m\|^2)}{2^-22 gamma
#' (|x - m|^2 + |y - m|^2)} at most, below 1e-5; where \eqn{\gamma}{gamma}
#' times the largest such squared norm exceeds 20 they are computed in
#' double. Other kernels, sparse inputs and kernel values given or computed
#' by a function are always computed in double. The models then differ from
#' the default's by the solver's tolerance; results do not depend on the
#' number of threads either way. Every route to a fit (the row cache, a
#' whole store, a multi-class fit's shared blocks, the shared path of costs
#' of [kernel_tune()] and [kernel_cv()]) stores the same values, so their
#' models agree; they can differ by the solver's tolerance only where
#' \eqn{\gamma}{gamma} times the largest squared norm passes 20 in all the
#' data but not in a fold's rows. Predictions are computed in double.
#' "double" stays the default because the dense rows' models would then
#' differ from those of the same data given as sparse rows or precomputed
#' kernel values, and the float tiles' scratch would add to the memory of
#' the other fitters' rbf kernels on wide data.
#' @rdname kernel_svm
#' @name kernel_svm
NULL
