/* The callback source: kernel values computed by an R function (a user's
 * kernel), tile by tile.  The engine gives callback points one thread, so R
 * runs on the main thread only; its errors and interrupts are caught here
 * (a longjmp out of an OpenMP region, even a one-thread one, would leave
 * the runtime inconsistent) and raised by kc_callback_raise() after the
 * region, an interrupt as an interrupt; so are the jumps out of a
 * progress function (kc_callback_call).  The points' ctx is their R object
 * (kc_user in R/input-sources.R): list(data, rows, tile, ...), tile(xa, ia, xb, ib)
 * returning the checked double matrix of kernel values of data rows ia of
 * xa against ib of xb. */
#include <setjmp.h>
#include <string.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "callback.h"
#include "units.h"

/* The condition a tile caught (preserved), or a message of ours; one at a
 * time, on the main thread. */
static SEXP pending = NULL;
static const char *pending_msg = NULL;

/* A jump out of a progress function's call (kc_callback_call), kept. */
static SEXP pending_jump = NULL;

void kc_callback_reset(void)
{
    if (pending) R_ReleaseObject(pending);
    if (pending_jump) R_ReleaseObject(pending_jump);
    pending = NULL;
    pending_jump = NULL;
    pending_msg = NULL;
}

static SEXP eval_body(void *call) { return eval((SEXP) call, R_GlobalEnv); }

static SEXP on_condition(SEXP cond, void *data)
{
    (void) data;
    R_PreserveObject(cond);
    pending = cond;
    return R_NilValue;
}

static SEXP list_elt(SEXP x, const char *name)
{
    SEXP nm = getAttrib(x, R_NamesSymbol);
    for (R_xlen_t i = 0; i < XLENGTH(x); i++)
        if (!strcmp(CHAR(STRING_ELT(nm, i)), name)) return VECTOR_ELT(x, i);
    return R_NilValue;
}

int kc_callback_tile(const void *ctx_a, const int *ra, int na,
                     const void *ctx_b, const int *rb, int nb, double *out)
{
    if (pending || pending_msg || pending_jump) return 1;
    SEXP a = (SEXP) ctx_a, b = (SEXP) ctx_b;
    SEXP ia = PROTECT(allocVector(INTSXP, na)), ib = PROTECT(allocVector(INTSXP, nb));
    for (int i = 0; i < na; i++) INTEGER(ia)[i] = ra[i] + 1;
    for (int j = 0; j < nb; j++) INTEGER(ib)[j] = rb[j] + 1;
    SEXP call = PROTECT(lang5(list_elt(a, "tile"), list_elt(a, "data"), ia, list_elt(b, "data"), ib));
    SEXP conds = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(conds, 0, mkChar("error"));
    SET_STRING_ELT(conds, 1, mkChar("interrupt"));
    SEXP v = PROTECT(R_tryCatch(eval_body, call, conds, on_condition, NULL, NULL, NULL));
    int failed = pending != NULL;
    if (!failed && (!isReal(v) || !isMatrix(v) || nrows(v) != na || ncols(v) != nb)) {
        pending_msg = "kernclass internal: a kernel tile of the wrong type or shape";
        failed = 1;
    }
    if (!failed) {
        const double *src = REAL(v);
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++) out[(size_t) i * nb + j] = src[i + (size_t) j * na];
    }
    UNPROTECT(5);
    return failed;
}

/* An interrupt as R's Ctrl-C makes it: kc_interrupt() in R/select-futures.R, its
 * one home. */
void kc_raise_interrupt(void)
{
    SEXP ns = PROTECT(R_FindNamespace(mkString("kernclass")));
    SEXP call = PROTECT(lang1(install("kc_interrupt")));
    eval(call, ns);
    UNPROTECT(2);
    kc_internal("interrupted");  /* not reached */
}

static SEXP check_body(void *data)
{
    (void) data;
    R_CheckUserInterrupt();
    return R_NilValue;
}

int kc_callback_poll(void)
{
    if (pending || pending_msg || pending_jump) return 1;
    SEXP conds = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(conds, 0, mkChar("error"));
    SET_STRING_ELT(conds, 1, mkChar("interrupt"));
    R_tryCatch(check_body, NULL, conds, on_condition, NULL, NULL, NULL);
    UNPROTECT(1);
    return pending != NULL;
}

/* A jump out of a progress function's call: an error or restart of a
 * handler established outside the .Call (a calling handler runs with the
 * handlers of its own frame, so no tryCatch here sees what it signals).
 * R_UnwindProtect stops it at the call and keeps it (its continuation
 * token, preserved) to go on with after the region. */
typedef struct { SEXP call; jmp_buf back; } progress_call;

static SEXP progress_body(void *data) { return eval(((progress_call *) data)->call, R_GlobalEnv); }

static void progress_cleanup(void *data, Rboolean jump)
{
    if (jump) longjmp(((progress_call *) data)->back, 1);
}

int kc_callback_call(SEXP fn, int n)
{
    if (pending || pending_msg || pending_jump) return 1;
    SEXP token = PROTECT(R_MakeUnwindCont());
    progress_call pc;
    pc.call = PROTECT(lang2(fn, ScalarInteger(n)));
    if (setjmp(pc.back)) {
        /* R restored its protection stack to R_UnwindProtect's start */
        R_PreserveObject(token);
        pending_jump = token;
        UNPROTECT(2);
        return 1;
    }
    R_UnwindProtect(progress_body, &pc, progress_cleanup, &pc, token);
    UNPROTECT(2);
    return 0;
}

void kc_callback_raise(void)
{
    if (kc_in_unit()) return;  /* raised by the units' caller (units.c) */
    if (pending_jump) {
        SEXP token = PROTECT(pending_jump);
        kc_callback_reset();
        R_ContinueUnwind(token);  /* does not return */
    }
    if (pending_msg) {
        const char *msg = pending_msg;
        kc_callback_reset();
        kc_error(KC_ERROR_INTERNAL, "%s", msg);
    }
    if (!pending) return;
    SEXP cond = PROTECT(pending);
    kc_callback_reset();
    if (inherits(cond, "interrupt")) {
        UNPROTECT(1);
        kc_raise_interrupt();
    }
    SEXP call = PROTECT(lang2(install("stop"), cond));
    eval(call, R_BaseEnv);  /* signals the user's condition, classes kept */
    UNPROTECT(2);
}
