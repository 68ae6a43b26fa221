# Data sets shared by the tests. Every one comes from base R or from what the
# current CRAN release of a package ships; tools/check-data.R checks that
# each name the tests take from another package is still there.

# The Pima Indians diabetes data of MASS (a recommended package): 532
# complete rows, 7 numeric inputs and the factor `type` (No / Yes).
pima_data <- function() {
  skip_if_not_installed("MASS")
  rbind(MASS::Pima.tr, MASS::Pima.te)
}
