/* rowexpr: --having and --eval (fwin(1), EXPRESSIONS) over a fired
 * row: its cells as printed, rendered into memory, then the --eval
 * columns computed in order (each sees the ones before) and --having
 * judged over them all. The bound expressions are shared; each thread
 * that formats rows has a struct rowcells of its own. */
#ifndef FWIN_ROWEXPR_H
#define FWIN_ROWEXPR_H

#include <stddef.h>

#include "pipeline/config.h"
#include "io/output.h"

struct rowexpr;
struct rowcells;

/* Binds c's --having and --eval to a row of ncols columns named cols
 * (the --eval columns not among them; with --emit-every, --having also
 * reads the row's last column, "final", which follows them). Returns 0
 * and sets *x (NULL when c has neither), or -1 after a usage message (an
 * unknown column). */
int rowexpr_new(struct config *c, const char *const *cols, size_t ncols,
    struct rowexpr **x);
void rowexpr_free(struct rowexpr *x);

/* With --over on lines, csv or tsv without -H, whose records' fields
 * have no names and no fixed number: 0 when c's --having and --eval name
 * their columns by name only (the aggregates', --eval's), or -1 after a
 * usage message ($N). */
int rowexpr_names_only(const struct config *c);

/* With --over and JSON input, whose records have no columns until read:
 * the names c's --having and --eval read that none of cols[0..ncols)
 * (the aggregates') nor an --eval column has, the records' members they
 * name, each once, into *names (malloc'd; the strings are c's), *n of
 * them. Returns 0, or -1 after a usage message ($N, which has no member
 * to count). */
int rowexpr_members(const struct config *c, const char *const *cols,
    size_t ncols, const char ***names, size_t *n);

/* A thread's scratch for rows. Never NULL. */
struct rowcells *rowcells_new(const struct rowexpr *x);
void rowcells_free(struct rowcells *rc);

/* The sink to render a row's cells into, emptied: its ncols columns,
 * then with --emit-every its final cell. */
struct out *rowcells_sink(struct rowcells *rc);

/* Computes the --eval columns of the row rendered into the sink, and
 * judges --having: returns 1 when the row is to be printed. */
int rowexpr_judge(const struct rowexpr *x, struct rowcells *rc);

/* Column i of the row judged last (an --eval column past the rendered
 * ones); NULL (n 0) for an empty cell. */
const char *rowexpr_cell(const struct rowcells *rc, size_t i, size_t *n);

/* Writes the --eval cells of the row judged last to o. */
void rowexpr_write(const struct rowexpr *x, const struct rowcells *rc,
    struct out *o);

#endif
