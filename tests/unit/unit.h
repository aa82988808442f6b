/* A minimal unit-test harness: CHECK(cond) counts; unit_done() prints
 * "N passed, M failed" and returns the exit status. */
#ifndef FWIN_UNIT_H
#define FWIN_UNIT_H

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

static inline int unit_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_pass, unit_fail);
	return unit_fail != 0;
}

#endif
