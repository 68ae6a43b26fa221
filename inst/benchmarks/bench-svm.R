# svm: SVM training and prediction against e1071::svm, kernlab::ksvm and
# scikit-learn's SVC (RBF, C = 1, gamma = 1/d, tolerance 1e-3, no scaling,
# each at its default cache size) at d = 20 and 100; then 10 classes on wide
# rows (d = 784), with and without Platt's probabilities.
flags <- list(
  bench_flag("--svm-large", "num", full = 0,
             help = "n of the 10-class, d = 784 rows again, kernclass alone (0: none)"))

# 10 classes on wide data, the shape of an image set (d = 784; RBF, gamma
# 1/784, cost 10): 45 class pairs, which kernel_svm solves side by side on
# one kernel of all the rows (src/svm-pairs.c). Simulated: 10 Gaussian
# blobs around random centres, spread along 30 shared directions plus
# noise.
make_blobs <- function(n, d, classes, seed, latent = 30) {
  set.seed(d + classes)
  mu <- matrix(rnorm(classes * d, sd = 0.4), classes, d)
  A <- matrix(rnorm(latent * d), latent, d) / sqrt(latent)
  set.seed(seed)
  cl <- sample(classes, n, TRUE)
  list(x = mu[cl, ] + matrix(rnorm(n * latent), n) %*% A + matrix(rnorm(n * d, sd = 0.3), n),
       y = factor(cl, levels = seq_len(classes)))
}

two_classes <- function(d) {
  n <- size(20000, 5000, 500)
  tr <- make_data(n, d, n + d)
  te <- make_data(2000, d, 1)
  gamma <- 1 / d
  task <- sprintf("SVM train, RBF, C=1, n=%d, d=%d", n, d)
  ptask <- sprintf("SVM predict 2000 points, n=%d, d=%d", n, d)
  k <- measure(kernel_svm(tr$x, tr$y, gamma = gamma, cost = 1, scale = FALSE))
  e <- measure(svm(tr$x, tr$y, gamma = gamma, cost = 1, scale = FALSE))
  l <- measure(ksvm(tr$x, tr$y, kernel = rbfdot(sigma = gamma), C = 1, scaled = FALSE))
  kp <- measure(predict(k$value, te$x))
  ep <- measure(predict(e$value, te$x))
  lp <- measure(predict(l$value, te$x))
  acc <- function(p) mean(p$value == te$y)
  add(task, "kernclass::kernel_svm", k, accuracy = acc(kp), svs = length(k$value$index),
      objective = k$value$objective[[1]],
      note = sprintf("%d SMO iterations", as.integer(k$value$iterations[[1]])))
  add(task, "e1071::svm", e, accuracy = acc(ep), svs = e$value$tot.nSV,
      objective = dual_objective(e$value$coefs[, 1], e$value$SV, gamma))
  add(task, "kernlab::ksvm", l, accuracy = acc(lp), svs = l$value@nSV, objective = -l$value@obj)
  sk <- sklearn_svc(tr, te, cost = 1, gamma = gamma)
  if (!is.null(sk)) {
    add(task, "scikit-learn SVC", list(seconds = sk$fit, peak_mb = NA), accuracy = sk$accuracy,
        svs = sk$svs, objective = sk$objective,
        note = paste0("fit time measured in Python",
                      if (sk$iterations >= 0) sprintf("; %d SMO iterations (LIBSVM)",
                                                      as.integer(sk$iterations))))
  }
  add(ptask, "kernclass", kp, accuracy = acc(kp))
  add(ptask, "e1071", ep, accuracy = acc(ep))
  add(ptask, "kernlab", lp, accuracy = acc(lp))
  if (!is.null(sk)) add(ptask, "scikit-learn", list(seconds = sk$predict, peak_mb = NA),
                        accuracy = sk$accuracy)
}

ten_classes <- function(o) {
  n <- size(10000, 3000, 300); d <- 784
  tr <- make_blobs(n, d, 10, 1)
  te <- make_blobs(2000, d, 10, 2)
  task <- sprintf("SVM train, 10 classes, RBF, C=10, n=%d, d=%d", n, d)
  acc <- function(fit) mean(predict(fit, te$x) == te$y)
  options(kernclass.threads = 1)
  k1 <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
  options(kernclass.threads = NULL)
  k <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
  # the rbf values computed in single precision (src/kernel-float.c; by
  # default in double before they are rounded to floats)
  # (a build without it, run by --lib for an A/B, has no row)
  float <- exists("kc_kernel_matrix_float", envir = asNamespace("kernclass"))
  options(kernclass.svm.precision = "float")
  if (float) kf <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
  options(kernclass.svm.precision = NULL)
  e <- measure(svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
  add(task, sprintf("kernclass::kernel_svm, %d threads", kernclass:::kc_threads()), k,
      accuracy = acc(k$value), svs = length(k$value$index),
      note = sprintf("%d SMO iterations over 45 pairs", as.integer(sum(k$value$iterations))))
  dec <- function(fit) predict(fit, te$x, type = "decision")
  if (float) {
    add(task, sprintf("kernclass::kernel_svm, %d threads, precision = \"float\"",
                      kernclass:::kc_threads()), kf,
        accuracy = acc(kf$value), svs = length(kf$value$index),
        note = sprintf("time %.2f x the double default's; decision values within %.1e of it",
                       kf$seconds / k$seconds, max(abs(dec(kf$value) - dec(k$value)))))
    rm(kf)
  }
  add(task, "kernclass::kernel_svm, 1 thread", k1, accuracy = acc(k1$value),
      svs = length(k1$value$index))
  add(task, "e1071::svm", e, accuracy = acc(e$value), svs = e$value$tot.nSV)
  # with Platt's probability model: 5 folds per pair, solved on the pairs'
  # kernel blocks (kernclass alone: e1071 refits every fold from scratch)
  set.seed(1)
  kp <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE,
                           probability = TRUE))
  add(sub("train", "train with probability = TRUE", task),
      sprintf("kernclass::kernel_svm, %d threads", kernclass:::kc_threads()), kp,
      accuracy = acc(kp$value), svs = length(kp$value$index))
  rm(kp)
  sk <- sklearn_svc(tr, te, cost = 10, gamma = 1 / d)
  if (!is.null(sk)) {
    add(task, "scikit-learn SVC", list(seconds = sk$fit, peak_mb = NA), accuracy = sk$accuracy,
        svs = sk$svs, note = "fit time measured in Python, one thread")
  }
  rm(k, k1, e, tr); invisible(gc())
  # --svm-large: the same shape at that many rows, kernclass alone (e1071
  # takes hours), within the default memory budget
  nl <- o$svm_large
  if (nl > 0) {
    tr <- make_blobs(nl, d, 10, 1)
    k <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
    ltask <- sprintf("SVM train, 10 classes, RBF, C=10, n=%d, d=%d", nl, d)
    add(ltask, sprintf("kernclass::kernel_svm, %d threads", kernclass:::kc_threads()), k,
        accuracy = acc(k$value), svs = length(k$value$index),
        note = sprintf("memory budget %.1f GB (a quarter of the memory available)",
                       kernclass:::kc_memory_limit() / 4 / 2^30))
    if (float) {
      options(kernclass.svm.precision = "float")
      kf <- measure(kernel_svm(tr$x, tr$y, gamma = 1 / d, cost = 10, scale = FALSE))
      options(kernclass.svm.precision = NULL)
      add(ltask, sprintf("kernclass::kernel_svm, %d threads, precision = \"float\"",
                         kernclass:::kc_threads()), kf,
          accuracy = acc(kf$value), svs = length(kf$value$index),
          note = sprintf("time %.2f x the double default's; decision values within %.1e of it",
                         kf$seconds / k$seconds, max(abs(dec(kf$value) - dec(k$value)))))
    }
  }
}

run <- function(o) {
  for (d in c(20, 100)) two_classes(d)
  ten_classes(o)
  NULL
}
