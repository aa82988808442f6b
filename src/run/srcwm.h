/* srcwm: the watermark of several inputs read side by side (--follow
 * with several FILEs), as Flink keeps an operator's: each input has its
 * own (its largest event time), the pipeline's is the smallest of them,
 * and an input with no record for the idle timeout is left out until it
 * has one again (Flink's withIdleness). */
#ifndef FWIN_SRCWM_H
#define FWIN_SRCWM_H

#include <stdint.h>

struct srcwm;

/* n inputs, none with a record yet, each idle after idle ns of wall time
 * without one (0: never), counted from now. */
struct srcwm *srcwm_new(int n, int64_t idle, int64_t now);
void srcwm_free(struct srcwm *s);

/* A record of input i with event time t, read at wall time now. */
void srcwm_record(struct srcwm *s, int i, int64_t t, int64_t now);

/* The smallest largest time over the inputs not idle at now: INT64_MIN
 * while one of them has had no record yet. When every input is idle: the
 * largest time of the one that went idle last (the watermark when it
 * did), INT64_MIN if it had none. */
int64_t srcwm_min(const struct srcwm *s, int64_t now);

/* What srcwm_min() is once every input is idle (as it will be, with no
 * record, when the last one read goes idle): the watermark from which
 * --idle-timeout's clock moves it on. */
int64_t srcwm_all_idle(const struct srcwm *s);

/* Wall time at which the next input not idle yet becomes idle, or T_NONE. */
int64_t srcwm_next_idle(const struct srcwm *s, int64_t now);

#endif
