# Plain-R transcriptions of the conformal scores and p-values (the papers'
# formulas, row by row), and three overlapping classes in two inputs, for
# test-conformal-sets.R and test-conformal-cvplus.R.

# s(x, c) of every class for probability rows p: 1 - p ("prob"); the
# probabilities of the classes ranked before c and c's own ("aps"), plus
# lambda per rank past k_reg ("raps", Angelopoulos et al. 2021 with U = 1);
# c's rank ("topk"). Ranks from order(): the data have no tied probabilities.
# Sums equal up to rounding are ties (rounded to 12 decimals, as the
# package's: the last class's sum is 1 in any order).
conf_ref_scores <- function(p, score, lambda = 0, k_reg = 0) {
  out <- p
  for (r in seq_len(nrow(p))) {
    o <- order(p[r, ], decreasing = TRUE)
    for (c in seq_len(ncol(p))) {
      L <- which(o == c)
      out[r, c] <- switch(score, prob = 1 - p[r, c], aps = round(sum(p[r, o[seq_len(L)]]), 12),
                          raps = round(sum(p[r, o[seq_len(L)]]) + lambda * max(L - k_reg, 0), 12),
                          topk = L)
    }
  }
  unname(out)
}

# p_c(x) = (#{calibration scores >= s(x, c)} + 1) / (m + 1), the calibration
# scores `s_cal` of classes `y_cal` (Mondrian: those of class c only).
conf_ref_pvalues <- function(s_cal, y_cal, s_new, mondrian = FALSE) {
  out <- s_new
  for (c in seq_len(ncol(s_new))) {
    ref <- if (mondrian) s_cal[as.integer(y_cal) == c] else s_cal
    out[, c] <- vapply(s_new[, c], function(v) (sum(ref >= v) + 1) / (length(ref) + 1), 0)
  }
  out
}

conf_sim <- function(n, seed = NULL) {
  if (!is.null(seed)) set.seed(seed)
  y <- factor(sample(c("a", "b", "c"), n, replace = TRUE, prob = c(0.45, 0.35, 0.2)))
  x <- matrix(rnorm(2 * n), n) + cbind(c(0, 1.3, 0)[y], c(0, 0, 1.3)[y])
  colnames(x) <- c("u", "v")
  list(x = x, y = y)
}
