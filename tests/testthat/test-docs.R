# The pkgdown reference index (_pkgdown.yml at the top of the source tree)
# lists every help topic, and every export is documented by a listed topic.
# _pkgdown.yml is left out of built packages (.Rbuildignore), so this runs
# from the source tree (tools/run-tests.R), not under R CMD check.

# The entries of the `contents:` lists of a pkgdown file's `reference:` part,
# read without a YAML parser (the file uses plain block lists).
pkgdown_reference_topics <- function(path) {
  lines <- readLines(path, warn = FALSE)
  lines <- sub("#.*$", "", lines)
  top <- grepl("^[A-Za-z_]+:", lines)
  ref_start <- which(grepl("^reference:", lines))
  if (length(ref_start) != 1L) return(character())
  ends <- which(top & seq_along(lines) > ref_start)
  ref <- lines[(ref_start + 1L):(if (length(ends)) ends[1L] - 1L else length(lines))]
  items <- grepl("^\\s+-\\s+[^:]+$", ref)  # "  - topic", not "- title: ..."
  trimws(sub("^\\s+-\\s+", "", ref[items]))
}

test_that("the reader finds the topics of a small pkgdown file", {
  f <- tempfile(fileext = ".yml")
  writeLines(c("url: x", "reference:", "- title: A", "  desc: b: c", "  contents:",
               "  - one", "  - two  # note", "- title: B", "  contents:", "  - three",
               "articles:", "- title: Z", "  contents:", "  - not_a_topic"), f)
  expect_identical(pkgdown_reference_topics(f), c("one", "two", "three"))
})

test_that("_pkgdown.yml lists every help topic and nothing else", {
  path <- test_path("..", "..", "_pkgdown.yml")
  if (!file.exists(path)) skip("_pkgdown.yml is in the source tree only (.Rbuildignore)")
  listed <- pkgdown_reference_topics(path)
  db <- readRDS(system.file("Meta", "Rd.rds", package = "kernclass"))
  topics <- db$Name
  expect_true(length(listed) > 0L)
  expect_identical(setdiff(topics, listed), character(0),
                   info = "help topics missing from _pkgdown.yml")
  expect_identical(setdiff(listed, topics), character(0),
                   info = "entries of _pkgdown.yml that are no help topic")
  expect_identical(listed[duplicated(listed)], character(0))
  # every export is documented, by a topic the index lists
  aliases <- unlist(db$Aliases[db$Name %in% listed])
  expect_identical(setdiff(getNamespaceExports("kernclass"), aliases), character(0),
                   info = "exports without a listed help topic")
})

# The vignettes, like _pkgdown.yml, are read from the source tree.
vignette_sources <- function() {
  dir <- test_path("..", "..", "vignettes")
  if (!dir.exists(dir)) skip("the vignettes' sources are in the source tree only")
  list.files(dir, "\\.Rmd$", full.names = TRUE)
}

test_that("the packages of every vignette engine are VignetteBuilders", {
  # R CMD check with only the hard dependencies (CRAN's noSuggests) hides
  # every Suggests package but the VignetteBuilders; knitr::rmarkdown needs
  # rmarkdown there, not only knitr.
  rmd <- vignette_sources()
  engine <- vapply(rmd, function(f) {
    sub(".*\\{(.*)\\}.*", "\\1", grep("VignetteEngine", readLines(f), value = TRUE)[1L])
  }, "")
  expect_false(anyNA(engine))
  needed <- unique(unlist(lapply(engine, function(e) {
    if (e == "knitr::rmarkdown") c("knitr", "rmarkdown") else sub("::.*", "", e)
  })))
  builders <- trimws(strsplit(packageDescription("kernclass")$VignetteBuilder, ",")[[1L]])
  expect_setequal(intersect(needed, builders), needed)
})

test_that("knitr::purl() tangles every vignette, the scripts' chunks included", {
  # R CMD check's "running R code from vignettes" tangles them; a vignette
  # that knits a script's chunks must give read_chunk() a value purl() can
  # evaluate (it cuts the argument at its first ")").
  skip_if_not_installed("knitr")
  for (f in vignette_sources()) {
    out <- tempfile(fileext = ".R")
    expect_no_error(suppressMessages(knitr::purl(f, output = out, quiet = TRUE)))
    code <- readLines(out)
    expect_no_error(parse(text = code))
    calls <- grep("read_chunk(", readLines(f), fixed = TRUE, value = TRUE)
    for (script in unlist(lapply(calls, function(cl) {
      eval(parse(text = sub(".*read_chunk\\((.*)\\)\\s*$", "\\1", cl)))
    }))) {
      # every line of the script's first chunk is in the tangled code
      lines <- readLines(script)
      first <- grep("^## ----", lines)[1:2]
      body <- lines[(first[1L] + 1L):(first[2L] - 1L)]
      body <- body[nzchar(trimws(body))]
      expect_true(length(body) > 0L && all(body %in% code), info = basename(f))
    }
  }
})
