/* kernclass: what every file of the C engine shares: the size limits and
 * the errors.  Each module has its own header (kernel.h, smo.h, ...: the
 * map is in ARCHITECTURE.md); a file includes the headers of what it uses.
 *
 * Layers: the ffi*.c files hold the .Call entry points (SEXP in, SEXP out,
 * all checks), which only translate; the engine (kernel.c with its
 * instruction-set kernels in isa.c, smo.c, threshold.c, columns.c, ...)
 * holds the plain C workers, which see only const double * data and prepare
 * it themselves.
 */
#ifndef KERNCLASS_H
#define KERNCLASS_H

#include <limits.h>
#include <stddef.h>

/* Side of a square tile: rows and columns of kernel values computed at once. */
#define KC_TILE 128
/* The most rows the engine takes: it indexes rows with int, and rounds
 * counts up to whole tiles. */
#define KC_MAX_ROWS (INT_MAX - KC_TILE)

/* The kinds of error C raises (errors.c), each the R condition class
 * "kernclass_<name>_error" (kc_error_kind_name): internal (a .Call given
 * what the R side never passes, or a broken invariant), size (a size past
 * what C or R can index: an overflow guard), memory (memory a unit of work
 * on a thread could not get).  R reads them (ffi_enums, R/engine-c-enums.R). */
typedef enum {
    KC_ERROR_INTERNAL,
    KC_ERROR_SIZE,
    KC_ERROR_MEMORY,
    KC_ERROR_KIND_COUNT  /* keep it last */
} kc_error_kind;
const char *kc_error_kind_name(kc_error_kind kind);

/* Raises an R error of class c("kernclass_<kind>_error", "kernclass_error",
 * "error", "condition") (errors.c). */
void kc_error(kc_error_kind kind, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((noreturn, format(printf, 2, 3)))
#endif
    ;
/* The same of kind KC_ERROR_INTERNAL, the message led by "kernclass internal: ". */
void kc_internal(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((noreturn, format(printf, 1, 2)))
#endif
    ;

#endif
