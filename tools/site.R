# The R side of tools/site.sh: builds the pkgdown site of this checkout into
# the directory given, offline where it can be.
#   Rscript --vanilla tools/site.R DIR
out <- commandArgs(trailingOnly = TRUE)[1L]

# The npm packages of tools/package.json (setup.sh --deep installs them into
# tools/node_modules; tools/check.sh names its copy in NODE_PATH).
node_modules <- Filter(dir.exists, c(strsplit(Sys.getenv("NODE_PATH"), ":")[[1L]],
                                     "tools/node_modules"))
npm_file <- function(path) {
  f <- file.path(node_modules, path)
  if (!any(file.exists(f))) {
    stop("site: tools/node_modules lacks ", path,
         ": bash tools/setup.sh --deps-only --deep installs it", call. = FALSE)
  }
  f[file.exists(f)][1L]
}

# pkgdown (>= 2.1) serves the scripts of its pages from the site itself,
# copied once from their CDNs into its cache (external_dependencies()). The
# build uses a cache of its own, filled afresh, so that it needs no CDN and
# leaves the user's cache alone: with the same files as npm has them (each
# only if it matches pkgdown's integrity hash), and for bootstrap-toc, which
# npm lacks, with kernclass's own table of contents script (pkgdown/toc.js).
# A file found nowhere is left for pkgdown to download.
fill_pkgdown_cache <- function() {
  calls <- list()
  walk <- function(e) {
    if (!is.call(e)) return()
    if (identical(e[[1L]], quote(cached_dependency))) calls[[length(calls) + 1L]] <<- e
    for (a in as.list(e)[-1L]) walk(a)
  }
  walk(body(pkgdown:::external_dependencies))
  npm <- list.files(node_modules, recursive = TRUE, full.names = TRUE)
  for (cl in calls) {
    a <- lapply(as.list(cl)[-1L], eval, baseenv())
    dir <- file.path(tools::R_user_dir("pkgdown", "cache"), a$name, a$version)
    dir.create(dir, recursive = TRUE, showWarnings = FALSE)
    if (a$name == "bootstrap-toc") {
      file.copy("pkgdown/toc.js", file.path(dir, basename(a$files[[1L]]$url)))
      next
    }
    for (f in a$files) {
      alg <- sub("-.*", "", f$integrity)
      for (src in npm[basename(npm) == basename(f$url)]) {
        hash <- openssl::base64_encode(get(alg, asNamespace("openssl"))(file(src)))
        if (identical(paste0(alg, "-", hash), f$integrity)) {
          file.copy(src, file.path(dir, basename(f$url)))
          break
        }
      }
    }
  }
}
Sys.setenv(R_USER_CACHE_DIR = tempfile("cache"))
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
katex <- dirname(npm_file("katex/dist/katex.min.js"))
pkgdown::build_site(".", override = list(destination = out), preview = FALSE,
                    new_process = FALSE, install = TRUE)

# KaTeX for the math of the pages (pkgdown/templates/in-header.html
# loads it from katex/ in the site): the scripts, the style sheet and the
# fonts in the format every current browser takes (woff2).
files <- c("katex.min.js", "katex.min.css", "contrib/auto-render.min.js",
           file.path("fonts", dir(file.path(katex, "fonts"), "[.]woff2$")))
for (d in unique(dirname(file.path(out, "katex", files)))) {
  dir.create(d, recursive = TRUE, showWarnings = FALSE)
}
stopifnot(all(file.copy(file.path(katex, files), file.path(out, "katex", files),
                        overwrite = TRUE)))
