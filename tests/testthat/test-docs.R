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

# The ```r blocks of a Markdown file (README.md, an article), each as its
# lines, named by the line where it starts; ```sh and other blocks are left
# out. Read from the source tree, as _pkgdown.yml.
md_r_blocks <- function(path) {
  lines <- readLines(path, warn = FALSE)
  fences <- grep("^```", lines)
  blocks <- list()
  i <- 1L
  while (i < length(fences)) {
    s <- fences[i]
    e <- fences[i + 1L]
    if (grepl("^```\\s*r\\s*$", lines[s])) {
      blocks[[as.character(s)]] <- if (e > s + 1L) lines[(s + 1L):(e - 1L)] else character()
    }
    i <- i + 2L
  }
  blocks
}

# The packages a block of code takes things from: pkg::name, pkg:::name,
# library(pkg), requireNamespace("pkg").
code_packages <- function(code) {
  exprs <- parse(text = code, keep.source = FALSE)
  found <- character()
  walk <- function(e) {
    if (!is.call(e)) return()
    head <- e[[1L]]
    if (is.symbol(head) && as.character(head) %in% c("::", ":::")) {
      found <<- c(found, as.character(e[[2L]]))
      return()
    }
    if (is.symbol(head) && as.character(head) %in% c("library", "require", "requireNamespace") &&
        length(e) >= 2L && (is.symbol(e[[2L]]) || is.character(e[[2L]]))) {
      found <<- c(found, as.character(e[[2L]]))
    }
    args <- as.list(e)  # is.call() skips the empty arguments of x[, 1]
    for (a in args[vapply(args, is.call, NA)]) walk(a)
  }
  for (e in exprs) walk(e)
  setdiff(unique(found), c("base", "kernclass", "stats", "graphics", "grDevices", "utils"))
}

# Runs `code` as pasted at the console (visible values printed) in `env`,
# on a null graphics device, the printed output discarded, the session's
# random numbers left as they were: "ran", or the error's message.
run_pasted <- function(code, env) {
  seed <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (!is.null(seed)) assign(".Random.seed", seed, envir = globalenv()) else
    if (exists(".Random.seed", envir = globalenv(), inherits = FALSE))
      rm(list = ".Random.seed", envir = globalenv()))
  grDevices::pdf(NULL)
  dev <- grDevices::dev.cur()
  on.exit(if (dev %in% grDevices::dev.list()) grDevices::dev.off(dev), add = TRUE)
  err <- tryCatch({
    utils::capture.output(source(exprs = parse(text = code, keep.source = FALSE), local = env,
                                 echo = FALSE, print.eval = TRUE))
    NULL
  }, error = function(e) conditionMessage(e))
  if (is.null(err)) "ran" else paste("error:", err)
}

test_that("the readers find the R blocks of a Markdown file and the packages they use", {
  f <- tempfile(fileext = ".md")
  writeLines(c("text", "```sh", "bash x.sh", "```", "```r", "library(ggplot2)",
               "broom::augment(m)", "x <- kernclass::kernel_matrix(y[, 1])", "```", "more",
               "```r", "```"), f)
  b <- md_r_blocks(f)
  expect_identical(names(b), c("5", "11"))
  expect_identical(b[[2L]], character())
  expect_setequal(code_packages(b[[1L]]), c("ggplot2", "broom"))
})

test_that("every R block of the README runs as pasted, in order, in a fresh environment", {
  path <- test_path("..", "..", "README.md")
  if (!file.exists(path)) skip("README.md is read from the source tree only")
  blocks <- md_r_blocks(path)
  expect_gt(length(blocks), 1L)
  env <- new.env(parent = globalenv())
  needs <- character()
  for (start in names(blocks)) {
    code <- blocks[[start]]
    # a block may use what the blocks before it made: their packages too
    needs <- union(needs, code_packages(code))
    for (pkg in needs) skip_if_not_installed(pkg)
    expect_identical(run_pasted(code, env), "ran", label = paste("README block at line", start))
  }
})

test_that("the tour's large-data block runs as pasted (on 5,000 rows)", {
  path <- test_path("..", "..", "vignettes", "articles", "tour.Rmd")
  if (!file.exists(path)) skip("the articles are read from the source tree only")
  lines <- readLines(path, warn = FALSE)
  section <- grep("^## Large data", lines)
  expect_length(section, 1L)
  blocks <- md_r_blocks(path)
  code <- blocks[[which(as.integer(names(blocks)) > section)[1L]]]
  # the block as it stands, at a quarter of its rows (check = 2000 needs 4,000)
  at <- grep("^n <- 20000; d <- 20$", code)
  expect_length(at, 1L)
  code[at] <- "n <- 5000; d <- 20"
  env <- new.env(parent = globalenv())
  expect_identical(run_pasted(code, env), "ran")
  expect_s3_class(env$fit, "kernel_svm")
  expect_identical(dim(env$x), c(5000L, 20L))
})
