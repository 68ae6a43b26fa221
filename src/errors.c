/* Errors from C as classed R conditions, the classes kc_abort() (R/input-checks.R)
 * gives in R: c("kernclass_<kind>_error", "kernclass_error", "error",
 * "condition"), so that a caller's handler sees one kind of error whether R
 * or C found it.  The kinds: kc_error_kind (kernclass.h).  Main thread
 * only, outside parallel regions, as error() itself; R_alloc'd memory is freed by the unwinding as for error(). */
#include <stdarg.h>
#include <stdio.h>
#include <Rinternals.h>
#include "kernclass.h"

/* Signals the condition: stop(cond) with its message and classes. */
#ifdef __GNUC__
__attribute__((noreturn))
#endif
static void raise_condition(kc_error_kind kind, const char *msg)
{
    char cls[64];
    snprintf(cls, sizeof cls, "kernclass_%s_error", kc_error_kind_name(kind));
    const char *names[] = {"message", "call", ""};
    SEXP cond = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(cond, 0, mkString(msg));
    SEXP classes = PROTECT(allocVector(STRSXP, 4));
    SET_STRING_ELT(classes, 0, mkChar(cls));
    SET_STRING_ELT(classes, 1, mkChar("kernclass_error"));
    SET_STRING_ELT(classes, 2, mkChar("error"));
    SET_STRING_ELT(classes, 3, mkChar("condition"));
    setAttrib(cond, R_ClassSymbol, classes);
    SEXP call = PROTECT(lang2(install("stop"), cond));
    eval(call, R_BaseEnv);
    UNPROTECT(3);
    error("%s", msg);  /* not reached: stop() does not return */
}

/* The kinds' names, as in their R condition classes.  No default, so that
 * -Wswitch names a kind left out. */
const char *kc_error_kind_name(kc_error_kind kind)
{
    switch (kind) {
    case KC_ERROR_INTERNAL: return "internal";
    case KC_ERROR_SIZE: return "size";
    case KC_ERROR_MEMORY: return "memory";
    case KC_ERROR_KIND_COUNT: break;
    }
    return NULL;
}

void kc_error(kc_error_kind kind, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    raise_condition(kind, msg);
}

/* A broken invariant or a .Call given what the R side never passes: the
 * internal kind, its message led by "kernclass internal: ". */
void kc_internal(const char *fmt, ...)
{
    char msg[512];
    int lead = snprintf(msg, sizeof msg, "kernclass internal: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + lead, sizeof msg - lead, fmt, ap);
    va_end(ap);
    raise_condition(KC_ERROR_INTERNAL, msg);
}
