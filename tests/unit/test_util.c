/* Unit tests for shown_bytes() (util.c): a name as a message shows it,
 * one line, within its buffer. */

#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "unit.h"

int
main(void)
{
	char buf[8];

	/* as it is, when it fits with its NUL; UTF-8 bytes kept */
	CHECK_STR(shown_bytes(buf, sizeof(buf), "temp", 4), "temp");
	CHECK_STR(shown_bytes(buf, sizeof(buf), "1234567", 7), "1234567");
	CHECK_STR(shown_bytes(buf, sizeof(buf), "\xc3\xa9t\xc3\xa9", 5),
	    "\xc3\xa9t\xc3\xa9");
	CHECK_STR(shown_bytes(buf, sizeof(buf), "", 0), "");
	/* a line end, a TAB, DEL and a NUL are control bytes */
	CHECK_STR(shown_bytes(buf, sizeof(buf), "a\nb\tc", 5), "a?b?c");
	CHECK_STR(shown_bytes(buf, sizeof(buf), "a\x7f\0b", 4), "a??b");
	/* cut short: "..." and the NUL in the last 4 bytes */
	CHECK_STR(shown_bytes(buf, sizeof(buf), "12345678", 8), "1234...");
	CHECK_STR(shown_bytes(buf, 4, "ab", 2), "ab");
	CHECK_STR(shown_bytes(buf, 4, "abcd", 4), "...");
	return unit_done("util");
}
