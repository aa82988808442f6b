/* recsink: a file of records as they were read, one a line: the late
 * file (--late-file) and the bad-record file (--bad-file).
 *
 * They sit beside the row sink (sink.h) in flow/, not in the driver:
 * records reach them from more than the driver's loop (key-group workers
 * judge a session's late records and write them in the merged order of
 * their rows, exec/workrows.c), and they share what the row sink's -o
 * FILE does with a file (opened for appending, a write error said once
 * at the close, a reader gone ending fwin as a filter). They are not part
 * of the row sink: a record has no columns, format or changelog, and is
 * written when the driver judges it, not when a window fires. */
#ifndef FWIN_RECSINK_H
#define FWIN_RECSINK_H

#include <stddef.h>

#include "io/output.h"

struct recsink;

/* Opens path for appending. Returns NULL after a message. */
struct recsink *recsink_open(const char *path);

/* One record as read (raw, without its line end). NULL: none is kept. */
void recsink_write(struct recsink *rs, const char *raw, size_t n);

/* Writes what is buffered. Returns 0, or -1 with errno set. NULL: 0. */
int recsink_flush(struct recsink *rs);

/* The file's descriptor (checkpoints sync it and record its length), or
 * -1 for NULL. */
int recsink_fd(const struct recsink *rs);

/* Key-group workers: a new output that keeps records formatted as rs's
 * in memory (output.h's out_open_collect); what one holds is written to
 * rs as it is by recsink_rows. */
struct out *recsink_collect(const struct recsink *rs);
void recsink_rows(struct recsink *rs, const char *p, size_t n);

/* Flushes and closes. Returns 0, or -1 after a message. NULL: 0. */
int recsink_close(struct recsink *rs);

/* The files fwin appends to (-o FILE too): opened (created 0666 less
 * the umask), or -1 after a message. */
int append_open(const char *path);

/* Closes o (NULL: none) and then fd (above 1: not standard output),
 * saying what failed as name's. A reader gone (EPIPE) ends fwin by
 * SIGPIPE without a word, as a filter ends. Returns 0, or -1. */
int append_close(struct out *o, int fd, const char *name);

#endif
