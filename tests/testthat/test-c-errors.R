# Errors raised in C reach R as classed conditions, as kc_abort()'s do in R:
# "kernclass_<kind>_error" and "kernclass_error" (src/errors.c).

ns <- asNamespace("kernclass")

test_that("a kernel tile of the wrong shape is a kernclass_internal_error from C", {
  x <- matrix(1:6 / 6, 3)
  user <- ns$kc_as_user(x, function(a, b) tcrossprod(a, b))
  expect_identical(dim(.Call(ns$ffi_kernel_matrix, user, NULL, c(1, 1, 1, 0), 1L)), c(3L, 3L))
  # the tile function, past R's checks, returns one value for a 3 x 3 tile
  user$tile <- function(xa, ia, xb, ib) matrix(0, 1, 1)
  err <- expect_error(.Call(ns$ffi_kernel_matrix, user, NULL, c(1, 1, 1, 0), 1L),
                      "wrong type or shape", class = "kernclass_internal_error")
  expect_s3_class(err, c("kernclass_internal_error", "kernclass_error", "error", "condition"),
                  exact = TRUE)
  expect_null(conditionCall(err))
  # the next call is not haunted by the failure
  user$tile <- function(xa, ia, xb, ib) tcrossprod(xa[ia, , drop = FALSE], xb[ib, , drop = FALSE])
  expect_equal(.Call(ns$ffi_kernel_matrix, user, NULL, c(1, 1, 1, 0), 1L), tcrossprod(x))
})

test_that("a user's own error in a kernel function keeps its classes", {
  x <- matrix(1:6 / 6, 3)
  cond <- structure(class = c("my_error", "error", "condition"),
                    list(message = "mine", call = NULL))
  expect_error(kernel_matrix(x, kernel = function(a, b) stop(cond)), class = "my_error")
})

# The size guards (src/kernel-sums.c, src/ffi*.c, src/coupling.c) stop overflows
# that only inputs of many GB could reach (see test-input.R); what can be
# checked here is that each goes through the classed raiser with its kind.
test_that("every size guard in C raises kernclass_size_error through kc_error()", {
  src <- test_path("..", "..", "src")
  skip_if_not(dir.exists(src), "the package sources are not here")
  code <- unlist(lapply(list.files(src, "[.]c$", full.names = TRUE), readLines))
  # no plain error() with a "kernclass" message is left: each is kc_error()'s
  # or kc_internal()'s
  expect_false(any(grepl('\\berror\\("kernclass', code)))
  guards <- grep('"kernclass: ', code, value = TRUE)
  expect_gte(length(guards), 6L)
  # (and memory that a unit of work on a thread could not get, src/units.c)
  expect_true(all(grepl('kc_error\\(KC_ERROR_(SIZE|MEMORY), "kernclass: ', guards)))
})
