# threshold: threshold_search() on 10^6 scores against vectorised R.
flags <- list()

r_search <- function(x, y) {
  o <- order(x); xs <- x[o]; S <- cumsum(y[o]); k <- seq_len(length(x) - 1L)
  s <- abs(S[k]) + abs(S[length(x)] - S[k])
  s[xs[k] == xs[k + 1L]] <- -1
  best <- which.max(s)
  list(b = -(xs[best] + xs[best + 1L]) / 2, split = best, consistency = s[best])
}

run <- function(o) {
  set.seed(7)
  n <- size(1e6, 1e6, 1e5)
  yy <- sample(c(-1, 1), n, TRUE)
  score <- yy * 0.5 + rnorm(n)
  task <- sprintf("threshold_search, 10^%d scores", as.integer(round(log10(n))))
  k <- measure(threshold_search(score, yy))
  r <- measure(r_search(score, yy))
  add(task, "kernclass", k)
  add(task, "vectorised R (order + cumsum)", r,
      note = sprintf("same answer: %s", isTRUE(all.equal(k$value, r$value))))
  NULL
}
