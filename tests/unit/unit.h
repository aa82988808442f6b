/* A minimal unit-test harness: CHECK(cond) counts; unit_done() prints
 * "N passed, M failed" and returns the exit status. */
#ifndef FWIN_UNIT_H
#define FWIN_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int unit_pass, unit_fail;

#define CHECK(c) do { \
	if (c) unit_pass++; \
	else { unit_fail++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
	    __FILE__, __LINE__, #c); } \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	if (strcmp(g_, w_) == 0) unit_pass++; \
	else { unit_fail++; fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", \
	    __FILE__, __LINE__, g_, w_); } \
} while (0)

/* A small xorshift* generator, so that a test replays the same values;
 * a test file seeds it with its own constant (unit_rstate = ...). */
static uint64_t unit_rstate __attribute__((unused)) = 0x9E3779B97F4A7C15ull;

static inline uint64_t
unit_rnd(void)
{
	unit_rstate ^= unit_rstate >> 12;
	unit_rstate ^= unit_rstate << 25;
	unit_rstate ^= unit_rstate >> 27;
	return unit_rstate * 2685821657736338717ull;
}

/* A value in [0, n). */
static inline uint64_t
unit_below(uint64_t n)
{
	return unit_rnd() % n;
}

static inline int unit_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_pass, unit_fail);
	return unit_fail != 0;
}

#endif
