/* Unit tests for keycodec.h's hashes: key_hash_field(), which reads a
 * short key in one load past its end (input.h: FIELD_PAD), is XXH3-64 of
 * the key's bytes, whatever its length and whatever bytes follow it. */
#include <stdlib.h>

#include "io/keycodec.h"
#include "unit.h"

/* Keys of 0 to 40 bytes, random and of one byte repeated, each followed
 * by FIELD_PAD random bytes, at every alignment. */
static void
test_field_hash(void)
{
	char buf[64 + FIELD_PAD];
	size_t n, at, i, round;

	unit_rstate = 0x6b657963u;
	for (round = 0; round < 200; round++)
		for (n = 0; n <= 40; n++) {
			at = (size_t)unit_below(8);
			for (i = 0; i < sizeof(buf); i++)
				buf[i] = round % 5 == 0 && i >= at && i < at + n ?
				    'k' : (char)unit_rnd();
			CHECK(key_hash_field(buf + at, n) ==
			    XXH3_64bits(buf + at, n));
		}
	/* the commonest: "k" and digits, the lengths side by side */
	for (i = 0; i < 100000; i += 7) {
		n = (size_t)snprintf(buf, sizeof(buf), "k%zu", i);
		CHECK(key_hash_field(buf, n) == key_hash(buf, n));
	}
}

int
main(void)
{
	test_field_hash();
	return unit_done("keycodec");
}
