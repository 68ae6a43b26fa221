# Probabilities from decision values, for any classifier built from class
# pairs: Platt scaling of each pair's decision values, then pairwise
# coupling of the pair probabilities into class probabilities.

# Platt's sigmoid P(first class | f) = 1 / (1 + exp(A f + B)), fitted by
# maximum likelihood with Platt's target values (N+ + 1) / (N+ + 2) for the
# first class and 1 / (N- + 2) for the second (a Bayesian prior that keeps
# A finite on separable data), by the Newton method with backtracking line
# search of Lin, Lin and Weng (2007), Algorithm 1.
#   dec   decision values (finite numbers), positive for the first class
#   label logical: TRUE where the point belongs to the first class
# Returns c(A = , B = ).
kc_platt_fit <- function(dec, label, max_iter = 100L, min_step = 1e-10, sigma = 1e-12,
                         eps = 1e-5) {
  stopifnot(is.numeric(dec), is.logical(label), length(dec) == length(label),
            !anyNA(dec), !anyNA(label), all(is.finite(dec)))
  # Decision values beyond 1e100 (a linear kernel on data of 1e150, scale =
  # FALSE) overflow the Hessian's sum of f^2: fit to f / s for a power of two
  # s (exact), and A / s is the slope for f. Ordinary values are not touched.
  top <- max(abs(dec), 0)
  if (top > 1e100) {
    s <- 2^ceiling(log2(top))
    ab <- kc_platt_fit(dec / s, label, max_iter, min_step, sigma, eps)
    return(c(A = ab[["A"]] / s, B = ab[["B"]]))
  }
  n_pos <- sum(label)
  n_neg <- length(label) - n_pos
  target <- ifelse(label, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
  # -log-likelihood, with z = A f + B: sum log(1 + e^z) - (1 - t) z, written
  # to avoid overflow for either sign of z
  objective <- function(A, B) {
    z <- A * dec + B
    sum(ifelse(z >= 0, target * z + log1p(exp(-z)), (target - 1) * z + log1p(exp(z))))
  }
  A <- 0
  B <- log((n_neg + 1) / (n_pos + 1))
  fval <- objective(A, B)
  for (iter in seq_len(max_iter)) {
    z <- A * dec + B
    # p = P(first | f) = 1 / (1 + e^z), q = 1 - p, each without overflow
    ez <- exp(-abs(z))
    p <- ifelse(z >= 0, ez / (1 + ez), 1 / (1 + ez))
    q <- 1 - p
    d2 <- p * q
    h11 <- sigma + sum(dec * dec * d2)
    h22 <- sigma + sum(d2)
    h21 <- sum(dec * d2)
    d1 <- target - p
    g1 <- sum(dec * d1)
    g2 <- sum(d1)
    if (abs(g1) < eps && abs(g2) < eps) break
    det <- h11 * h22 - h21 * h21
    dA <- -(h22 * g1 - h21 * g2) / det
    dB <- -(-h21 * g1 + h11 * g2) / det
    gd <- g1 * dA + g2 * dB
    step <- 1
    while (step >= min_step) {
      newA <- A + step * dA
      newB <- B + step * dB
      newf <- objective(newA, newB)
      if (newf < fval + 1e-4 * step * gd) break
      step <- step / 2
    }
    if (step < min_step) break  # no sufficient decrease: keep the last point
    A <- newA
    B <- newB
    fval <- newf
  }
  c(A = A, B = B)
}

# P(first class | f) = 1 / (1 + exp(A f + B)) from Platt's sigmoid; A and B
# recycle along dec (a matrix keeps its shape).
kc_platt_prob <- function(dec, A, B) {
  p <- stats::plogis(-(A * dec + B))  # R's logistic: exact in both tails, fast
  # a matrix of no rows times a vector of length 0 loses its shape in R
  if (!is.null(dim(dec)) && is.null(dim(p))) dim(p) <- dim(dec)
  p
}

# Pairwise coupling, method 2 of Wu, Lin and Weng (2004) (the method of
# LIBSVM): for each row, the class probabilities p minimising
#   sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2  subject to  sum(p) = 1,
# where r_ij = P(i | i or j) and r_ji = 1 - r_ij, with r first kept inside
# [1e-7, 1 - 1e-7] as LIBSVM does (two classes: p = (r, 1 - r) so clipped).
# Solved exactly, row by row, in C (src/coupling.c).
#   r  n x M matrix of P(first | first or second), pairs in kc_ovo_pairs order
# Returns the n x k matrix of class probabilities.
kc_pairwise_coupling <- function(r) {
  r <- as.matrix(r)
  k <- (1 + sqrt(1 + 8 * ncol(r))) / 2
  if (k != round(k)) stop("kernclass internal: r must have k(k-1)/2 columns")
  storage.mode(r) <- "double"
  .Call(ffi_pairwise_coupling, r, as.integer(k), kc_threads())
}
