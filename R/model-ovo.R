# Classifiers built from class pairs (one-vs-one, as LIBSVM): a model of
# class c(<method>, "kernclass_ovo", "kernclass") scores every pair (i, j),
# i < j in level order, with a decision value that is positive for class i.
# With two classes there is one pair and the decision is a plain vector.
# Each method supplies kc_scores (the n x M decision values), coef and
# kc_platt; the votes and the probabilities are the same for all.

# The pairs in LIBSVM's order (1-2, 1-3, ..., 1-k, 2-3, ...): a matrix with
# columns first and second (level indices) and rows named "first/second".
# Labels that contain "/" would make such names ambiguous ("a/b" + "c" and
# "a" + "b/c" both give "a/b/c"): then the separator is the first of " vs ",
# " | ", " <-> " whose token no label contains (the tokens have no overlap
# with themselves, so the split is unique), else the level numbers.
kc_ovo_pairs <- function(levels) {
  k <- length(levels)
  first <- rep(seq_len(k), times = rev(seq_len(k)) - 1L)
  second <- unlist(lapply(seq_len(k), function(i) seq_len(k)[seq_len(k) > i]))
  out <- cbind(first = first, second = second)
  sep <- NULL
  for (s in c("/", " vs ", " | ", " <-> ")) {
    if (!any(grepl(kc_ovo_tokens[[s]], levels, fixed = TRUE))) {
      sep <- s
      break
    }
  }
  rownames(out) <- if (is.null(sep)) paste(first, second, sep = "/") else
    paste(levels[first], levels[second], sep = sep)
  out
}

# The separators' tokens (without their spaces), which no label may contain.
kc_ovo_tokens <- c("/" = "/", " vs " = "vs", " | " = "|", " <-> " = "<->")

# Votes of the pairwise decisions (n x M): the class with most votes, ties to
# the class that comes first in level order (as LIBSVM). `pairs`: the
# levels' kc_ovo_pairs(), for a caller that votes many times.
kc_ovo_vote <- function(decision, levels, pairs = kc_ovo_pairs(levels)) {
  votes <- matrix(0L, nrow(decision), length(levels))
  for (m in seq_len(nrow(pairs))) {
    winner <- ifelse(decision[, m] > 0, pairs[m, "first"], pairs[m, "second"])
    votes[cbind(seq_len(nrow(decision)), winner)] <- votes[cbind(seq_len(nrow(decision)), winner)] + 1L
  }
  factor(levels[max.col(votes, ties.method = "first")], levels = levels)
}

#' @export
kc_model_decision.kernclass_ovo <- function(object, scores) {
  if (ncol(scores) == 1L) return(stats::setNames(scores[, 1L], rownames(scores)))
  colnames(scores) <- rownames(kc_ovo_pairs(object$levels))
  scores
}

#' @export
kc_model_classify.kernclass_ovo <- function(object, scores) kc_ovo_vote(scores, object$levels)

# The Platt coefficients of a model's pairs in one shape: an M x 2 matrix
# with columns A and B, a row per pair (kc_ovo_pairs order); NULL when the
# model has no probability model.
kc_platt <- function(object) UseMethod("kc_platt")

# P(first | first or second) of each pair from its sigmoid, then coupled
# into class probabilities (R/model-calibration.R); with two classes too, so that
# they stay inside [1e-7, 1 - 1e-7] as LIBSVM's.
#' @export
kc_model_posterior.kernclass_ovo <- function(object, scores) {
  platt <- kc_platt(object)
  if (is.null(platt)) {
    kc_abort("type = \"prob\" needs a model fitted with `probability = TRUE`.", arg = "type",
             class = "prob_unavailable")
  }
  n <- nrow(scores)
  r <- kc_platt_prob(scores, rep(platt[, "A"], each = n), rep(platt[, "B"], each = n))
  p <- kc_pairwise_coupling(r)
  dimnames(p) <- list(rownames(scores), object$levels)
  p
}
