# threshold_search() on 10^6 scores: time of the C search (merge sort and
# prefix sums) against a vectorised R version (order + cumsum), same answer.
library(kernclass)

set.seed(1)
n <- 1e6
y <- sample(c(-1, 1), n, TRUE)
score <- y * 0.5 + rnorm(n)
score_ties <- round(score, 2)   # many ties

r_search <- function(x, y) {
  o <- order(x)
  xs <- x[o]
  S <- cumsum(y[o])
  k <- seq_len(length(x) - 1L)
  s <- abs(S[k]) + abs(S[length(x)] - S[k])
  s[xs[k] == xs[k + 1L]] <- -1
  best <- which.max(s)
  list(b = -(xs[best] + xs[best + 1L]) / 2, split = best, consistency = s[best])
}

time_it <- function(f, reps = 5) {
  median(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], numeric(1)))
}

for (case in c("distinct", "ties")) {
  x <- if (case == "distinct") score else score_ties
  stopifnot(isTRUE(all.equal(threshold_search(x, y), r_search(x, y))))
  t_c <- time_it(function() threshold_search(x, y))
  t_r <- time_it(function() r_search(x, y))
  cat(sprintf("N = 1e6, %-8s scores: threshold_search %.3f s, vectorised R %.3f s\n",
              case, t_c, t_r))
}
