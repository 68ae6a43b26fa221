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
