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
