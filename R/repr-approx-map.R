# The Nystrom feature map (the nystrom() row of kc_approximations) of m
# landmarks L, z(x)'z(y) = k_L(x)' K_LL^+ k_L(y) restricted as follows.
# The pivoted Cholesky factorisation of K_LL (LAPACK's dpstrf), K[piv, piv]
# = R'R, stops where the largest residual diagonal (the variance of a
# landmark that the landmarks before it leave unexplained) is at or below
# `tol` times the largest k(l, l); the landmarks past that point are dropped
# and the r kept ones map z(x) = R^-T k_r(x): z(x)'z(y) = k_r(x)' K_rr^-1
# k_r(y). proj = R^-1 is upper triangular (the C code skips its zeros: half
# the flops of a dense projection), and the factorisation takes a fraction
# of an eigendecomposition's time (m = 2,000: 1.2 s against 12.5 s, and no
# m^3 product with diag(), 5 s more, with R's reference BLAS; R^-1 by the
# engine's products, not backsolve()'s 2.6 s). Where K_LL is
# not positive semi-definite (a residual diagonal below -tol times the
# largest: the sigmoid kernel, a user's kernel), the eigen map instead:
# z(x) = diag(l^-1/2) V' k_L(x) over the eigenvalues l above tol times the
# largest.
kc_nystrom_map <- function(spec, x, k) {
  n <- nrow(x)
  m <- min(spec$m, n)
  idx <- if (spec$landmarks == "uniform") sample.int(n, m) else kc_kmeanspp(x, k, m)
  L <- x[idx, , drop = FALSE]
  K <- kc_gram(L, NULL, k)
  cut <- spec$tol * max(diag(K), 0)
  if (cut > 0) {
    # rank below m is the rule's doing: R's warning that says so is muffled
    R <- withCallingHandlers(chol(K, pivot = TRUE, tol = cut),
                             warning = function(w) invokeRestart("muffleWarning"))
    r <- attr(R, "rank")
    kept <- attr(R, "pivot")[seq_len(r)]
    rest <- attr(R, "pivot")[-seq_len(r)]
    residual <- diag(K)[rest] - colSums(R[seq_len(r), -seq_len(r), drop = FALSE]^2)
    if (r > 0L && all(residual >= -cut)) {
      proj <- .Call(ffi_triangular_inverse, R[seq_len(r), seq_len(r), drop = FALSE], kc_threads())
      return(list(landmarks = L[kept, , drop = FALSE], proj = proj, rank = r, index = idx[kept]))
    }
  }
  e <- eigen(K, symmetric = TRUE)
  keep <- e$values > spec$tol * max(e$values, 0)
  if (!any(keep)) {
    kc_abort(sprintf(paste0("The %s kernel matrix of the Nystrom landmarks has no positive ",
                            "eigenvalue; the features are empty. Use another kernel or `gamma`."),
                     k$name), arg = "approx", class = "approx_unsupported")
  }
  proj <- e$vectors[, keep, drop = FALSE] * rep(1 / sqrt(e$values[keep]), each = m)
  list(landmarks = L, proj = proj, rank = ncol(proj), index = idx)
}

# The linear SVMs of kernel_svm(approx = ) on a feature store, one per class
# pair (the rows of its problem with C > 0, the first class +1), in one call that
# runs the pairs in parallel (each with a generator seeded from R's RNG:
# the same results on any number of threads): a list per pair of
# ffi_linear_svm's results and its `rows`.
kc_linear_pairs <- function(store, r, code, problems, pairs, C, tolerance, passes, shrinking) {
  rows <- lapply(problems, function(rw) rw[C[rw] > 0])
  y <- lapply(seq_len(nrow(pairs)), function(m) ifelse(code[rows[[m]]] == pairs[m, "first"], 1L, -1L))
  fits <- .Call(ffi_linear_many, store, r, rows, y, lapply(rows, function(rw) C[rw]), tolerance,
                passes, shrinking, kc_threads())
  Map(function(f, rw) c(f, list(rows = rw)), fits, rows)
}
