# The R side of tools/site.sh: builds the pkgdown site of this checkout into
# the directory given, offline where it can be.
#   Rscript --vanilla tools/site.R DIR
out <- commandArgs(trailingOnly = TRUE)[1L]

# pkgdown (>= 2.1) serves the scripts of its pages from the site itself,
# copied once from their CDNs into its cache. Where the CDNs cannot be
# reached, the cache is filled from the same files as npm has them (pinned in
# tools/package.json, installed by setup.sh --deep into tools/node_modules),
# each only if it matches pkgdown's integrity hash; a file found nowhere is
# left for pkgdown to download.
fill_pkgdown_cache <- function() {
  calls <- list()
  walk <- function(e) {
    if (!is.call(e)) return()
    if (identical(e[[1L]], quote(cached_dependency))) calls[[length(calls) + 1L]] <<- e
    for (a in as.list(e)[-1L]) walk(a)
  }
  walk(body(pkgdown:::external_dependencies))
  npm <- list.files("tools/node_modules", recursive = TRUE, full.names = TRUE)
  for (cl in calls) {
    a <- lapply(as.list(cl)[-1L], eval, baseenv())
    dir <- file.path(tools::R_user_dir("pkgdown", "cache"), a$name, a$version)
    for (f in a$files) {
      target <- file.path(dir, basename(f$url))
      if (file.exists(target)) next
      alg <- sub("-.*", "", f$integrity)
      for (src in npm[basename(npm) == basename(f$url)]) {
        hash <- openssl::base64_encode(get(alg, asNamespace("openssl"))(file(src)))
        if (identical(paste0(alg, "-", hash), f$integrity)) {
          dir.create(dir, recursive = TRUE, showWarnings = FALSE)
          file.copy(src, target)
          break
        }
      }
    }
  }
}
fill_pkgdown_cache()

# No other look-ups either: pkgdown would look kernclass up on CRAN and
# Bioconductor for the home page's links and for the changelog's release
# dates (it is on neither), and downlit each package the pages name that is
# not installed (broom, ...) in CRAN's package database (such names get no
# link).
utils::assignInNamespace("cran_link", function(pkg) NULL, "pkgdown")
utils::assignInNamespace("pkg_timeline", function(package) NULL, "pkgdown")
utils::assignInNamespace("CRAN_urls", function() {
  data.frame(Package = character(), URL = character())
}, "downlit")
pkgdown::build_site(".", override = list(destination = out), preview = FALSE,
                    new_process = FALSE, install = TRUE)
