# Reading e1071::svm() models, for the tests that compare kernel_svm() with
# LIBSVM (test-svm-e1071.R, test-svm-types.R).

# LIBSVM's one-vs-one layout: m$labels gives the class order, the SVs are
# grouped by class (m$nSV per class), and for the pair (i, j), i < j in that
# order, the coefficients of class i's SVs are in column j - 1 and those of
# class j's SVs in column i; positive for class i. Returns, per pair named
# "li/lj" (LIBSVM order), the SV rows of m$SV and their coefficients.
e1071_pairs <- function(m) {
  k <- length(m$labels)
  lev <- m$levels[m$labels]
  cls <- rep(seq_len(k), m$nSV)
  out <- list()
  for (i in seq_len(k - 1L)) for (j in (i + 1L):k) {
    si <- which(cls == i)
    sj <- which(cls == j)
    out[[paste(lev[i], lev[j], sep = "/")]] <- list(
      sv = c(si, sj), coef = c(m$coefs[si, j - 1L], m$coefs[sj, i]))
  }
  out
}

# For each of our pairs "a/b": the name of the same pair in `other` and the
# sign that turns the other's decision (positive for its first class) into
# ours (positive for a).
match_pairs <- function(ours, other) {
  flipped <- vapply(strsplit(ours, "/", fixed = TRUE),
                    function(ab) paste(ab[2], ab[1], sep = "/"), character(1))
  same <- ours %in% other
  stopifnot(all(same | flipped %in% other))
  list(name = ifelse(same, ours, flipped), sign = ifelse(same, 1, -1))
}

# Decision values of an e1071 model as a matrix with our pair names and signs.
e1071_decision <- function(m, newx, pairs) {
  dv <- attr(predict(m, newx, decision.values = TRUE), "decision.values")
  mp <- match_pairs(pairs, colnames(dv))
  out <- dv[, mp$name, drop = FALSE] * rep(mp$sign, each = nrow(dv))
  colnames(out) <- pairs
  out
}

