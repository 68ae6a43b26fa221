# One-vs-one helpers against direct constructions.

test_that("pairs come in LIBSVM order, as combn", {
  for (k in 2:6) {
    lev <- letters[seq_len(k)]
    p <- kernclass:::kc_ovo_pairs(lev)
    expect_equal(unname(p), t(utils::combn(k, 2)))
    expect_equal(rownames(p), apply(utils::combn(lev, 2), 2, paste, collapse = "/"))
  }
})

test_that("voting counts pairwise wins, ties to the first class", {
  set.seed(5)
  lev <- c("u", "v", "w", "z")
  pairs <- t(utils::combn(4, 2))
  d <- matrix(sample(c(-1, 1), 200 * 6, TRUE) * runif(200 * 6), 200)
  expected <- apply(d, 1, function(row) {
    votes <- integer(4)
    for (m in 1:6) {
      w <- if (row[m] > 0) pairs[m, 1] else pairs[m, 2]
      votes[w] <- votes[w] + 1L
    }
    lev[which(votes == max(votes))[1]]
  })
  expect_identical(as.character(kernclass:::kc_ovo_vote(d, lev)), expected)
  # two classes: the sign decides, 0 goes to the second class
  expect_identical(as.character(kernclass:::kc_ovo_vote(matrix(c(2, -1, 0)), c("p", "q"))),
                   c("p", "q", "q"))
})
