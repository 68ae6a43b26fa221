# Checks that every name the package's code, tests, examples, vignettes and
# benchmarks take from another package is still there in the installed
# version of that package: each `pkg::name` is an export or a data set of
# pkg (`pkg:::name` an object of its namespace), and each
# `data(name, package = "pkg")` a data set of pkg. A package that drops a data
# set (as CRAN's mlbench dropped PimaIndiansDiabetes) then fails here with
# one line naming it, instead of as scattered test failures. Run from the
# package root, after the Suggests are installed (tools/setup.sh):
#   Rscript tools/check-data.R
# Exits 1 on any missing name, or on a package of DESCRIPTION that is not
# installed; other packages that are not installed are listed only.

# loading some packages asks the system for its time zone when TZ is unset
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")

files <- c(Sys.glob("R/*.R"), Sys.glob("tests/testthat/*.R"), Sys.glob("inst/*/*.R"),
           Sys.glob("vignettes/*.Rmd"), Sys.glob("vignettes/articles/*.Rmd"), "README.md",
           Sys.glob("man/*.Rd"), Sys.glob("tools/*.R"))
files <- setdiff(files, "tools/check-data.R")

# The R code of a file: R as it is, the R chunks of an R Markdown file and
# the ```r blocks of it or of a Markdown file (the articles' and the README's
# code, shown and not run), the examples of an Rd file.
r_code <- function(f) {
  if (grepl("\\.R?md$", f)) {
    lines <- readLines(f, warn = FALSE)
    starts <- grep("^\\s*```(\\{r|r\\s*$)", lines)
    ends <- grep("^\\s*```\\s*$", lines)
    chunks <- lapply(starts, function(s) {
      e <- ends[ends > s][1]
      if (is.na(e) || e == s + 1) character() else lines[(s + 1):(e - 1)]
    })
    return(as.character(unlist(chunks)))  # character(0), never NULL: parse(text = NULL) reads stdin
  }
  if (grepl("\\.Rd$", f)) {
    out <- tempfile(fileext = ".R")
    tools::Rd2ex(f, out, commentDontrun = FALSE, commentDonttest = FALSE)
    return(if (file.exists(out)) readLines(out, warn = FALSE) else character())
  }
  readLines(f, warn = FALSE)
}

# Walks the parsed code and collects (package, name, how) rows.
refs <- list()
add <- function(pkg, name, how, file) {
  refs[[length(refs) + 1]] <<- data.frame(pkg = pkg, name = name, how = how, file = file)
}
literal_names <- function(e) {
  # strings and symbols of an argument: "a", a, c("a", "b")
  if (is.character(e)) return(e)
  if (is.symbol(e)) return(as.character(e))
  if (is.call(e) && identical(e[[1]], as.name("c")))
    return(unlist(lapply(as.list(e)[-1], literal_names)))
  character()
}
walk <- function(e, file) {
  if (!is.call(e)) return(invisible())
  head <- e[[1]]
  if (is.symbol(head) && as.character(head) %in% c("::", ":::") &&
      length(e) == 3 && (is.symbol(e[[2]]) || is.character(e[[2]]))) {
    add(as.character(e[[2]]), as.character(e[[3]]), as.character(head), file)
    return(invisible())
  }
  is_data <- identical(head, as.name("data")) ||
    (is.call(head) && identical(head[[1]], as.name("::")) &&
       identical(as.character(head[[3]]), "data"))
  if (is_data) {
    m <- tryCatch(match.call(utils::data, e), error = function(err) NULL)
    pkg <- if (!is.null(m$package)) literal_names(m$package)
    if (length(pkg) == 1) {
      dots <- as.list(m)[-1]
      dots <- dots[!names(dots) %in% c("package", "envir", "lib.loc", "verbose", "overwrite")]
      names_ <- unlist(lapply(dots, literal_names))
      for (nm in names_) add(pkg, nm, "data", file)
    }
  }
  args <- as.list(e)  # the head too (pkg::f in pkg::f(x)); is.call() skips empty arguments
  for (a in args[vapply(args, is.call, NA)]) walk(a, file)
  invisible()
}
for (f in files) {
  code <- r_code(f)
  exprs <- tryCatch(parse(text = code, keep.source = FALSE), error = function(e) NULL)
  if (is.null(exprs)) next
  for (e in exprs) walk(e, f)
}
refs <- unique(do.call(rbind, refs))
refs <- refs[!refs$pkg %in% c("kernclass", "base"), ]

desc <- read.dcf("DESCRIPTION", fields = c("Imports", "Suggests", "Depends"))
declared <- trimws(sub("\\(.*", "", unlist(strsplit(paste(desc[!is.na(desc)], collapse = ","), ","))))
declared <- setdiff(declared[nzchar(declared)], "R")

problems <- character()
absent <- character()
for (pkg in unique(refs$pkg)) {
  rows <- refs[refs$pkg == pkg, ]
  if (!requireNamespace(pkg, quietly = TRUE)) {
    if (pkg %in% declared) {
      problems <- c(problems, sprintf("package %s (in DESCRIPTION) is not installed", pkg))
    } else {
      absent <- c(absent, pkg)
    }
    next
  }
  version <- format(utils::packageVersion(pkg))
  data_sets <- sub(" .*", "", utils::data(package = pkg)$results[, "Item"])
  exports <- getNamespaceExports(pkg)
  ns <- asNamespace(pkg)
  for (i in seq_len(nrow(rows))) {
    r <- rows[i, ]
    ok <- switch(r$how,
      "::" = r$name %in% c(exports, data_sets),
      ":::" = exists(r$name, envir = ns, inherits = FALSE),
      "data" = r$name %in% data_sets)
    if (!ok) {
      what <- if (r$how == "data") "data set" else if (r$how == "::") "export or data set" else "object"
      problems <- c(problems, sprintf("%s %s::%s (used in %s) is not in %s %s",
                                      what, pkg, r$name, r$file, pkg, version))
    }
  }
}
n_refs <- nrow(refs)
cat(sprintf("check-data: %d names from %d packages in %d files\n", n_refs,
            length(unique(refs$pkg)), length(files)))
if (length(absent))
  cat("check-data: not installed, not checked (not in DESCRIPTION):",
      paste(sort(unique(absent)), collapse = ", "), "\n")
if (length(problems)) {
  cat(paste0("check-data: MISSING ", problems), sep = "\n")
  quit(status = 1)
}
cat("check-data: every name is there\n")
