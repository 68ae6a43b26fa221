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

# P(first class | f) from Platt's sigmoid with coefficients AB = c(A, B).
kc_platt_prob <- function(dec, AB) {
  z <- AB[["A"]] * dec + AB[["B"]]
  ez <- exp(-abs(z))
  ifelse(z >= 0, ez / (1 + ez), 1 / (1 + ez))
}

# Pairwise coupling, method 2 of Wu, Lin and Weng (2004) (the method of
# LIBSVM): for each row, the class probabilities p minimising
#   sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2  subject to  sum(p) = 1,
# where r_ij = P(i | i or j) and r_ji = 1 - r_ij. The objective is p'Qp with
# Q_ii = sum_{j != i} r_ji^2 and Q_ij = -r_ji r_ij; the minimiser solves the
# linear system [Q 1; 1' 0] (p, b) = (0, 1), solved exactly here (Wu, Lin
# and Weng show its solution is non-negative). As LIBSVM, r is first kept
# inside [1e-7, 1 - 1e-7], so that Q is positive definite.
#   r  n x M matrix of P(first | first or second), pairs in kc_ovo_pairs order
# Returns the n x k matrix of class probabilities.
kc_pairwise_coupling <- function(r, min_prob = 1e-7) {
  r <- as.matrix(r)
  M <- ncol(r)
  k <- (1 + sqrt(1 + 8 * M)) / 2
  if (k != round(k)) stop("kernclass internal: r must have k(k-1)/2 columns")
  pairs <- kc_ovo_pairs(seq_len(k))
  r <- pmin(pmax(r, min_prob), 1 - min_prob)
  out <- matrix(0, nrow(r), k)
  if (k == 2L) {
    out[] <- cbind(r[, 1L], 1 - r[, 1L])
    return(out)
  }
  i_idx <- pairs[, "first"]
  j_idx <- pairs[, "second"]
  for (row in seq_len(nrow(r))) {
    rij <- r[row, ]          # P(i | i or j), i = first
    rji <- 1 - rij           # P(j | i or j)
    Q <- matrix(0, k, k)
    # the (i, j) and (j, i) terms are equal: each pair adds once to Q
    diag(Q) <- vapply(seq_len(k), function(c) {
      sum(rji[i_idx == c]^2) + sum(rij[j_idx == c]^2)
    }, numeric(1))
    Q[cbind(i_idx, j_idx)] <- -rij * rji
    Q[cbind(j_idx, i_idx)] <- -rij * rji
    A <- rbind(cbind(Q, 1), c(rep(1, k), 0))
    sol <- solve(A, c(rep(0, k), 1))[seq_len(k)]
    sol <- pmax(sol, 0)
    out[row, ] <- sol / sum(sol)
  }
  out
}
