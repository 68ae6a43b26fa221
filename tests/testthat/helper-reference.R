# Plain-R references shared by the tests.

# k(x_i, y_j) from the kernel definitions, with distances taken from the
# explicit coordinate differences (not from ||x||^2 + ||y||^2 - 2 x'y).
ref_kernel <- function(x, y = x, kernel, gamma, degree = 3, coef0 = 0) {
  ip <- matrix(0, nrow(x), nrow(y))
  d2 <- ip
  for (k in seq_len(ncol(x))) {
    ip <- ip + outer(x[, k], y[, k])
    d2 <- d2 + outer(x[, k], y[, k], "-")^2
  }
  switch(kernel,
    linear = ip,
    polynomial = (gamma * ip + coef0)^degree,
    rbf = exp(-gamma * d2),
    laplace = exp(-gamma * sqrt(d2)),
    sigmoid = tanh(gamma * ip + coef0))
}

# the same, with the kernel parameters in a list kp
Kr <- function(a, b, kp) ref_kernel(a, b, kp$kernel, kp$gamma, kp$degree, kp$coef0)

# evaluate expr with the kernel engine on n threads
with_threads <- function(n, expr) {
  old <- options(kernclass.threads = n)
  on.exit(options(old), add = TRUE)
  force(expr)
}

# A per-class statistic of the rows of z: column l is fun(S), S the rows of
# x in class l (fun returns one value per row of z); the columns named by
# the levels of y.
by_class <- function(z, x, y, fun) {
  out <- vapply(levels(y), function(l) fun(x[y == l, , drop = FALSE]), numeric(nrow(z)))
  matrix(out, nrow(z), nlevels(y), dimnames = list(NULL, levels(y)))
}

# fit a kernclass classifier with the kernel parameters in the list kp
fit_kp <- function(fitter, x, y, kp, ...) {
  fitter(x, y, kernel = kp$kernel, gamma = kp$gamma, degree = kp$degree, coef0 = kp$coef0, ...)
}

# two Gaussian classes of unequal size in random order (the first label is
# the first level, whatever the alphabet says) and new points to predict
make_binary_data <- function(seed, n_pos, n_neg, p, mean_pos, mean_neg, sd_neg, labels, sd_new) {
  set.seed(seed)
  x <- rbind(matrix(rnorm(n_pos * p, mean = mean_pos), n_pos),
             matrix(rnorm(n_neg * p, mean = mean_neg, sd = sd_neg), n_neg))
  y <- factor(rep(labels, c(n_pos, n_neg)), levels = labels)
  o <- sample(nrow(x))
  list(x = x[o, ], y = y[o], new = matrix(rnorm(25 * p, sd = sd_new), 25))
}

# the argument a kernclass error names (NULL when there is no error)
arg_of <- function(expr) tryCatch({
  expr
  NULL
}, kernclass_error = function(e) e$arg)

# Pairwise coupling (Wu, Lin and Weng 2004, method 2) as the package computed
# it in R before src/coupling.c: r clipped to [min_prob, 1 - min_prob], then
# per row the bordered system [Q 1; 1' 0] (p, b) = (0, 1) by solve(); negative
# p set to 0 and the rest renormalised.  r: n x k(k-1)/2, pairs 1-2, 1-3, ...
ref_pairwise_coupling <- function(r, min_prob = 1e-7) {
  r <- as.matrix(r)
  M <- ncol(r)
  k <- (1 + sqrt(1 + 8 * M)) / 2
  stopifnot(k == round(k))
  pairs <- t(utils::combn(k, 2))
  r <- pmin(pmax(r, min_prob), 1 - min_prob)
  out <- matrix(0, nrow(r), k)
  if (k == 2L) {
    out[] <- cbind(r[, 1L], 1 - r[, 1L])
    return(out)
  }
  i_idx <- pairs[, 1]
  j_idx <- pairs[, 2]
  for (row in seq_len(nrow(r))) {
    rij <- r[row, ]
    rji <- 1 - rij
    Q <- matrix(0, k, k)
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

# expr under an elapsed-time limit of 0.2 s, which C code meets at its
# R_CheckUserInterrupt() as it would a Ctrl-C: "returned" if the computation
# ran to its end, else the limit's message
run_until_limit <- function(expr) {
  setTimeLimit(elapsed = 0.2, transient = TRUE)
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  tryCatch({
    force(expr)
    "returned"
  }, error = function(e) conditionMessage(e))
}
