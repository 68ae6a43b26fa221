# engine: the kernel engine, RBF kernel sums K(x, x) w on two threads and on
# one, next to R's BLAS on a matrix product of the same shape, and the Gram
# matrix against kernlab::kernelMatrix; the SVM's float kernel store in single
# and double precision.
flags <- list()

run <- function(o) {
  n <- size(20000, 8000, 800); d <- 100
  x <- make_data(n, d, 1)$x
  w <- matrix(rnorm(n), n)
  spec <- kernclass:::kc_kernel("rbf", gamma = 1 / d, degree = 3, coef0 = 0, x = x)
  task <- sprintf("RBF kernel expansion K(x, x) w, n=%d, d=%d", n, d)
  flop <- 2 * n * n * d
  options(kernclass.threads = 1)
  one <- measure(kernclass:::kc_expand(x, x, w, spec))
  options(kernclass.threads = NULL)
  two <- measure(kernclass:::kc_expand(x, x, w, spec))
  add(task, "kernclass, 2 threads", two, flop / 1e9,
      note = sprintf("engine %s; 1 and 2 threads identical: %s", kernclass:::kc_engine(),
                     identical(one$value, two$value)))
  add(task, "kernclass, 1 thread", one, flop / 1e9)
  m <- size(4000, 4000, 400)
  blas <- measure(tcrossprod(x, x[seq_len(m), ]))
  add(sprintf("matrix product x %%*%% t(x[1:%d, ]), same n, d", m), "R's BLAS (dgemm)", blas,
      2 * n * m * d / 1e9, note = basename(extSoftVersion()[["BLAS"]]))
  rm(blas); invisible(gc())

  n <- size(4000, 4000, 400)
  xg <- x[seq_len(n), ]
  kg <- measure(kernel_matrix(xg, kernel = "rbf", gamma = 1 / d))
  lg <- measure(kernelMatrix(rbfdot(sigma = 1 / d), xg))
  task <- sprintf("Gram matrix, RBF, n=%d, d=%d", n, d)
  add(task, "kernclass::kernel_matrix", kg, 2 * n * n * d / 1e9)
  add(task, "kernlab::kernelMatrix", lg, 2 * n * n * d / 1e9,
      note = sprintf("max difference %.1e", max(abs(kg$value - lg$value))))
  # the SVM's float kernel store (kc_gram_float) in single precision (the
  # default for the rbf kernel, src/kernel-float.c) and in double rounded
  # to floats, interleaved
  # (a build without the float path, run by --lib for an A/B, has no row)
  if (!exists("kc_kernel_matrix_float", envir = asNamespace("kernclass"))) return(NULL)
  n <- size(8000, 4000, 400); d <- 784
  xf <- matrix(pmin(pmax(rnorm(n * d, 0.3, 0.3), 0), 1), n)
  spec <- kernclass:::kc_kernel("rbf", gamma = 1 / d, degree = 3, coef0 = 0, x = xf)
  store <- function(precision) {
    options(kernclass.svm.precision = precision)
    on.exit(options(kernclass.svm.precision = NULL))
    measure(kernclass:::kc_kernel_matrix_float(xf, NULL, spec))
  }
  runs <- list(double = store("double"), float = store("float"))
  runs2 <- list(double = store("double"), float = store("float"))
  task <- sprintf("SVM's float kernel store, RBF, n=%d, d=%d (symmetric: half the products)", n, d)
  for (p in c("float", "double")) {
    best <- if (runs2[[p]]$seconds < runs[[p]]$seconds) runs2[[p]] else runs[[p]]
    add(task, sprintf("kernclass, precision = \"%s\"", p), best, n * n * d / 1e9,
        note = if (p == "float") sprintf("max difference from double %.1e",
                                          max(abs(runs$float$value - runs$double$value))) else "")
  }
  NULL
}
