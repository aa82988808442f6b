/* Unit tests for shown_bytes() and shown_value() (util.c): a name or a
 * value as a message shows it, one line, within its buffer. */

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
	/* a byte of no valid UTF-8 character is shown as '?' (a stray
	 * continuation, an overlong form, a sequence cut short) */
	CHECK_STR(shown_bytes(buf, sizeof(buf), "a\xff\x80\xc0\xaf" "b", 6),
	    "a????b");
	CHECK_STR(shown_bytes(buf, sizeof(buf), "x\xe2\x82", 3), "x??");
	/* a character is never cut: "1234" and a 3-byte one do not fit
	 * in the 4 bytes before "..." */
	CHECK_STR(shown_bytes(buf, sizeof(buf), "123\xe2\x82\xac" "45", 8),
	    "123...");
	CHECK_STR(shown_bytes(buf, sizeof(buf), "1\xe2\x82\xac" "45678", 9),
	    "1\xe2\x82\xac...");
	/* a value: its first max bytes, then "..." */
	CHECK_STR(shown_value(buf, 4, "1234", 4), "1234");
	CHECK_STR(shown_value(buf, 4, "12345", 5), "1234...");
	CHECK_STR(shown_value(buf, 4, "\xc3\xa9\xc3\xa9\xc3\xa9", 6),
	    "\xc3\xa9\xc3\xa9...");
	return unit_done("util");
}
