# What kernclass adds to packages of Suggests happens when they are loaded,
# before or after kernclass: the parsnip models (R/door-parsnip.R). The broom,
# ggplot2 and caret parts need no registration here (the methods of
# generics' tidy() and ggplot2's autoplot() are registered by NAMESPACE's
# delayed S3method(); kernclass_caret() is a plain list).

.onLoad <- function(libname, pkgname) {
  kc_c <<- kc_c_enums()
  kc_on_package_load("parsnip", kc_register_parsnip)
  vignette_scripts <<- list(
    iris = system.file("experiments", "iris.R", package = pkgname),
    svm_slab = system.file("examples", "svm-slab.R", package = pkgname))
}

# The scripts the vignettes knit chunk by chunk, where kernclass is installed.
# The vignettes give knitr::read_chunk() kernclass:::vignette_scripts$iris, a
# value with no parentheses: knitr's purl() (1.52 and before), which R CMD
# check runs, takes read_chunk()'s argument up to its first ")" and fails on
# a call such as system.file(...) (knitr issue 1753).
vignette_scripts <- NULL

# Run `fun` now if `pkg` is loaded, and whenever it is loaded later. A
# failure never stops kernclass from loading: it becomes a warning.
kc_on_package_load <- function(pkg, fun) {
  run <- function(...) {
    tryCatch(fun(), error = function(e) {
      kc_warn(sprintf("kernclass could not register its models with %s: %s", pkg,
                      conditionMessage(e)), class = "registration")
    })
  }
  if (isNamespaceLoaded(pkg)) run()
  setHook(packageEvent(pkg, "onLoad"), run, action = "append")
  invisible()
}
