# prob: SVM probabilities, type = "prob" against type = "decision". Both
# expand the same support vectors; "prob" adds Platt's sigmoids and the
# pairwise coupling of 5 classes (10 pairs), which should cost little.
flags <- list()

run <- function(o) {
  n <- size(50000, 10000, 1000); d <- 20; ntr <- size(2500, 2500, 300)
  set.seed(8)
  ytr <- factor(sample(paste0("c", 1:5), ntr, TRUE))
  xtr <- matrix(rnorm(ntr * d), ntr) + 0.8 * outer(as.integer(ytr), seq_len(d) <= 5)
  yte <- factor(sample(levels(ytr), n, TRUE), levels(ytr))
  xte <- matrix(rnorm(n * d), n) + 0.8 * outer(as.integer(yte), seq_len(d) <= 5)
  set.seed(9)
  fit <- kernel_svm(xtr, ytr, gamma = 1 / d, scale = FALSE, probability = TRUE)
  set.seed(9)
  efit <- svm(xtr, ytr, gamma = 1 / d, scale = FALSE, probability = TRUE)
  task <- sprintf("SVM predict %d rows, 5 classes (%d SVs), d=%d", n, length(fit$index), d)
  kd <- measure(predict(fit, xte, type = "decision"))
  kp <- measure(predict(fit, xte, type = "prob"))
  ed <- measure(predict(efit, xte, decision.values = TRUE))
  ep <- measure(predict(efit, xte, probability = TRUE))
  pe <- attr(ep$value, "probabilities")[, levels(ytr)]
  add(task, "kernclass, type = \"decision\"", kd)
  add(task, "kernclass, type = \"prob\"", kp,
      accuracy = mean(levels(ytr)[max.col(kp$value)] == yte),
      note = sprintf("prob / decision: %.2f", kp$seconds / kd$seconds))
  add(task, "e1071, decision.values = TRUE", ed, accuracy = mean(ed$value == yte))
  add(task, "e1071, probability = TRUE", ep, accuracy = mean(levels(ytr)[max.col(pe)] == yte),
      note = sprintf("mean |p - kernclass p| %.3f (different folds)", mean(abs(pe - kp$value))))
  NULL
}
