/* srcwm: the watermark of several inputs is the smallest over those not
 * idle; one with no record yet holds it; when all are idle, the one that
 * went idle last gives it. Times are plain numbers here. */
#include "run/srcwm.h"
#include "window/state.h"
#include "unit.h"

#define S 1000000000LL	/* one second of wall time, in ns */

static void
test_min_and_none_yet(void)
{
	struct srcwm *s = srcwm_new(2, 0, 0);

	CHECK(srcwm_min(s, 0) == INT64_MIN);	/* none has a record */
	srcwm_record(s, 0, 21, 1);
	CHECK(srcwm_min(s, 1) == INT64_MIN);	/* input 1 holds it */
	srcwm_record(s, 1, 12, 2);
	CHECK(srcwm_min(s, 2) == 12);
	srcwm_record(s, 1, 5, 3);		/* an older time: no step back */
	CHECK(srcwm_min(s, 3) == 12);
	srcwm_record(s, 1, 30, 4);
	CHECK(srcwm_min(s, 4) == 21);
	CHECK(srcwm_min(s, 1000 * S) == 21);	/* never idle without a timeout */
	CHECK(srcwm_next_idle(s, 5) == T_NONE);
	srcwm_record(s, 7, 99, 5);		/* not an input: nothing */
	CHECK(srcwm_min(s, 5) == 21);
	srcwm_free(s);
}

static void
test_idle(void)
{
	struct srcwm *s = srcwm_new(3, S, 0);

	srcwm_record(s, 0, 100, 0);
	srcwm_record(s, 1, 200, S / 2);
	/* input 2, never a record, holds it until it is idle at 1 s */
	CHECK(srcwm_min(s, S / 2) == INT64_MIN);
	CHECK(srcwm_next_idle(s, S / 2) == S);
	CHECK(srcwm_min(s, S) == 200);		/* 0 and 2 idle at 1 s */
	CHECK(srcwm_next_idle(s, S) == S + S / 2);
	/* all idle: input 1 went idle last, with 200 */
	CHECK(srcwm_min(s, 5 * S) == 200);
	CHECK(srcwm_next_idle(s, 5 * S) == T_NONE);
	/* input 0 has data again: it counts again */
	srcwm_record(s, 0, 150, 5 * S);
	CHECK(srcwm_min(s, 5 * S) == 150);
	srcwm_record(s, 2, 120, 5 * S);
	CHECK(srcwm_min(s, 5 * S) == 120);
	srcwm_free(s);
}

int
main(void)
{
	test_min_and_none_yet();
	test_idle();
	return unit_done("srcwm");
}
