# The R side of tools/setup.sh: which library to install into, which R
# packages are missing, and what to install from the repositories R is
# configured with (getOption("repos"), never a fixed mirror). Run from the
# package root, without --vanilla (the site profile sets the repositories):
#   Rscript tools/rdeps.R library          the library to install into: the
#                                          first of .libPaths() when writable,
#                                          else the user's (R_LIBS_USER),
#                                          created as install.packages() offers
#   Rscript tools/rdeps.R missing REQ...   those not installed or too old
#   Rscript tools/rdeps.R need REQ...      what to install from the
#                                          repositories, dependencies first
#   Rscript tools/rdeps.R install LIB REQ... installs that into LIB, one line
#                                          per package; exits 1 if any failed
# REQ is a package name, "name (>= version)", or desc:FIELD,... for those
# fields of ./DESCRIPTION (desc:Imports,Suggests).
#
# `need` is the closure that install.packages() does not compute: it installs
# missing dependencies but never upgrades an installed one that is too old (a
# Debian r-cran-rlang under CRAN's parsnip), so a package would fail to load.
# It holds the missing or too old requirements, and recursively the
# dependencies (Depends, Imports, LinkingTo) of the repository's versions of
# those that are missing or too old.

args <- commandArgs(trailingOnly = TRUE)
say <- function(...) cat("setup: ", ..., "\n", sep = "")
fail <- function(...) { say(...); quit(status = 1) }

# "a (>= 1.0), b" -> data frame name, op, version (NA without a constraint)
parse_reqs <- function(x) {
  x <- trimws(unlist(strsplit(gsub("\\s+", " ", paste(x, collapse = ",")), ",")))
  x <- x[nzchar(x) & x != "NA"]
  m <- regmatches(x, regexec("^([A-Za-z][A-Za-z0-9.]*) ?(\\( ?([<>=!]+) ?([0-9.-]+) ?\\))?$", x))
  bad <- lengths(m) == 0
  if (any(bad)) fail("cannot read the requirement ", paste(x[bad], collapse = ", "))
  data.frame(name = vapply(m, `[`, "", 2), op = vapply(m, `[`, "", 4),
             version = vapply(m, `[`, "", 5), stringsAsFactors = FALSE)
}

expand_reqs <- function(reqs) {
  out <- character()
  for (r in reqs) {
    if (startsWith(r, "desc:")) {
      fields <- strsplit(sub("^desc:", "", r), ",")[[1]]
      d <- read.dcf("DESCRIPTION", fields = fields)
      out <- c(out, d[!is.na(d)])
    } else {
      out <- c(out, r)
    }
  }
  parse_reqs(out)
}

satisfies <- function(have, op, version) {
  if (!nzchar(op)) return(TRUE)
  cmp <- match.fun(op)
  cmp(package_version(have), package_version(version))
}

# the version that library() would load: the first along .libPaths()
ip <- installed.packages(fields = "Priority")
ip <- ip[!duplicated(ip[, "Package"]), , drop = FALSE]
rownames(ip) <- ip[, "Package"]
base <- rownames(ip)[!is.na(ip[, "Priority"]) & ip[, "Priority"] == "base"]
installed_ok <- function(name, op, version) {
  name %in% rownames(ip) && satisfies(ip[name, "Version"], op, version)
}

missing_of <- function(req) {
  keep <- !(req$name %in% c("R", base)) &
    !mapply(installed_ok, req$name, req$op, req$version)
  unique(req$name[keep])
}

repo_index <- function() {
  repos <- getOption("repos")
  if (!length(repos) || any(repos == "@CRAN@"))
    fail("R has no package repository set: choose one with chooseCRANmirror() ",
         "or set options(repos = ...) in ~/.Rprofile, then run this again")
  available.packages(repos = repos)
}

# the packages to install from `ap`, each after those of its dependencies
# that are installed with it
need_of <- function(req, ap) {
  need <- character()
  unavailable <- character()
  queue <- req
  while (nrow(queue)) {
    r <- queue[1, ]
    queue <- queue[-1, ]
    if (r$name %in% c("R", base) || installed_ok(r$name, r$op, r$version)) next
    if (!r$name %in% rownames(ap)) {
      unavailable <- c(unavailable, r$name)
      next
    }
    if (!satisfies(ap[r$name, "Version"], r$op, r$version)) {
      unavailable <- c(unavailable, sprintf("%s (%s %s)", r$name, r$op, r$version))
      next
    }
    if (r$name %in% need) next
    need <- c(need, r$name)
    queue <- rbind(queue, parse_reqs(ap[r$name, c("Depends", "Imports", "LinkingTo")]))
  }
  if (length(unavailable))
    say("not in the repositories for this R (", format(getRversion()), "): ",
        paste(unique(unavailable), collapse = ", "))
  # depth-first, dependencies first
  order <- character()
  visit <- function(p) {
    if (p %in% order) return()
    order <<- c(order, p)  # marks p; moved after its dependencies below
    deps <- parse_reqs(ap[p, c("Depends", "Imports", "LinkingTo")])$name
    for (d in intersect(deps, need)) visit(d)
    order <<- c(setdiff(order, p), p)
  }
  for (p in need) visit(p)
  order
}

install_one <- function(p, lib, ap, logdir) {
  ok <- tryCatch({
    suppressWarnings(utils::install.packages(p, lib = lib, repos = getOption("repos"),
                                             available = ap, dependencies = FALSE,
                                             quiet = TRUE, keep_outputs = logdir))
    f <- file.path(lib, p, "DESCRIPTION")
    file.exists(f) && read.dcf(f, "Version")[1] == ap[p, "Version"]
  }, error = function(e) FALSE)
  ok
}

cmd <- if (length(args)) args[1] else ""
if (cmd == "library") {
  lib <- .libPaths()[1]
  if (file.access(lib, 2) != 0) {
    lib <- path.expand(strsplit(Sys.getenv("R_LIBS_USER"), .Platform$path.sep)[[1]][1])
    if (is.na(lib) || !nzchar(lib)) fail("the library ", .libPaths()[1],
                                         " is not writable and R_LIBS_USER is not set")
    if (!dir.exists(lib) && !dir.create(lib, recursive = TRUE))
      fail("cannot create the user library ", lib)
  }
  cat(normalizePath(lib), "\n", sep = "")
} else if (cmd == "missing") {
  cat(missing_of(expand_reqs(args[-1])), fill = 1e4)
} else if (cmd == "need") {
  # nothing missing: nothing to install, and no need of the repositories
  req <- expand_reqs(args[-1])
  cat(if (length(missing_of(req))) need_of(req, repo_index()), fill = 1e4)
} else if (cmd == "install" && length(args) >= 2) {
  lib <- args[2]
  req <- expand_reqs(args[-(1:2)])
  if (!length(missing_of(req))) quit(status = 0)
  ap <- repo_index()
  todo <- need_of(req, ap)
  if (!length(todo)) quit(status = 1)  # missing, and not in the repositories
  if (!nzchar(Sys.getenv("MAKEFLAGS")))
    Sys.setenv(MAKEFLAGS = paste0("-j", max(1L, parallel::detectCores(), na.rm = TRUE)))
  logdir <- tempfile("rdeps-logs-")
  dir.create(logdir)
  say(sprintf("installing %d R package%s from %s into %s", length(todo),
              if (length(todo) == 1) "" else "s",
              paste(getOption("repos"), collapse = " "), lib))
  failed <- character()
  for (i in seq_along(todo)) {
    p <- todo[i]
    cat(sprintf("setup:   [%d/%d] %s %s ... ", i, length(todo), p, ap[p, "Version"]))
    t0 <- proc.time()[["elapsed"]]
    ok <- install_one(p, lib, ap, logdir)
    cat(sprintf("%s (%.0f s)\n", if (ok) "ok" else "FAILED", proc.time()[["elapsed"]] - t0))
    if (!ok) {
      failed <- c(failed, p)
      log <- file.path(logdir, paste0(p, ".out"))
      if (file.exists(log)) writeLines(paste("   ", tail(readLines(log), 15)))
    }
  }
  if (length(failed)) fail("failed to install: ", paste(failed, collapse = " "))
} else {
  fail("usage: Rscript tools/rdeps.R {library | missing REQ... | need REQ... | install LIB REQ...}")
}
