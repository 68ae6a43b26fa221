# Platt's sigmoids of the exact SVM (kernel_svm(probability = TRUE), R/fit-svm-solve.R's
# kc_repr_svm_platt.kc_exact): the folds of each class pair drawn with R's
# random numbers, and the pair-fold fits where the class pairs did not
# solve them side by side (kc_svm_pairs()).

# Platt's folds of each pair's rows (rows[[m]]), drawn in pair order.
kc_platt_folds <- function(rows, folds = 5L) {
  lapply(rows, function(r) {
    f <- integer(length(r))
    f[sample.int(length(r))] <- rep_len(seq_len(folds), length(r))
    f
  })
}

# Platt's sigmoid for each pair (rows[[m]], class `positive[m]` against the
# other) from 5-fold cross-validated decision values: a 2 x pairs matrix of
# A and B. The folds of every pair are drawn first (or given: fold), in pair
# order; the pair-fold fits are independent problems (kc_problems_lapply).
# nu-SVC on a fold takes at most the largest nu the fold allows. (The pairs
# of kc_svm_pairs() solve their folds there, on their kernel blocks.) A
# fold's decision values are the solve's where it gives them (problems of
# the pairs' kind: float kernel values summed as the pairs sum them, so
# that the sigmoids do not depend on which store solved the pairs, hence
# on cachesize); else in double (kc_expand).
kc_svm_platt <- function(x, y, rows, positive, C, control, folds = 5L,
                         fold = kc_platt_folds(rows, folds)) {
  force(fold)  # drawn before any fit
  tasks <- expand.grid(f = seq_len(folds), m = seq_along(rows))
  dec_of <- function(t) {
    m <- tasks$m[t]
    test <- fold[[m]] == tasks$f[t]
    yb <- as.integer(y[rows[[m]]]) == positive[m]
    ytrain <- yb[!test]
    train <- rows[[m]][!test]
    if (!any(test)) return(numeric(0))
    if (all(ytrain) || !any(ytrain)) {
      return(rep(if (all(ytrain)) 1 else -1, sum(test)))  # one class only, as LIBSVM
    }
    fc <- control
    if (control$type == "nu-classification") {
      fc$nu <- min(control$nu, kc_svm_nu_max(sum(C[train][ytrain]), sum(C[train][!ytrain])))
    }
    r <- kc_svm_binary(x, y, train, positive[m], C, fc, test = rows[[m]][test])
    if (!is.null(r$decision)) return(r$decision)
    sv <- r$rows[r$alpha > 0]
    coefs <- as.matrix(r$alpha[r$alpha > 0] * ifelse(as.integer(y[sv]) == positive[m], 1, -1))
    drop(kc_expand(x[rows[[m]][test], , drop = FALSE], x[sv, , drop = FALSE], coefs,
                   control$kernel)) - r$rho
  }
  parts <- kc_problems_lapply(seq_len(nrow(tasks)), dec_of)
  vapply(seq_along(rows), function(m) {
    dec <- numeric(length(rows[[m]]))
    for (t in which(tasks$m == m)) dec[fold[[m]] == tasks$f[t]] <- parts[[t]]
    kc_platt_fit(dec, as.integer(y[rows[[m]]]) == positive[m])
  }, numeric(2))
}
