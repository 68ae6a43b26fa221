library(testthat)
library(kernclass)

test_check("kernclass")
