# Loading tune or caret reads the time zone: without TZ, Sys.timezone()
# warns where timedatectl cannot run (containers). local_tz() sets TZ = UTC
# until the calling test ends.
local_tz <- function(env = parent.frame()) {
  if (nzchar(Sys.getenv("TZ"))) return(invisible())
  Sys.setenv(TZ = "UTC")
  do.call(on.exit, list(quote(Sys.unsetenv("TZ")), add = TRUE), envir = env)
}
