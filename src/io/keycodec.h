/* keycodec: a record's key as canonical bytes, their order and their key
 * group.
 *
 * No key field: no bytes. One field: its bytes as they are. Several: a
 * (u32 length, bytes) pair per field, so that ("a,b", "c") and ("a",
 * "b,c") differ. Keys are compared field by field as bytes (the man page's
 * firing order). A key's group is a fixed function of its bytes' XXH3
 * hash, the same on every machine and version: the unit by which keys are
 * spread over threads and partitions (Flink's key groups). */
#ifndef FWIN_KEYCODEC_H
#define FWIN_KEYCODEC_H

#include <stddef.h>
#include <stdint.h>

/* the hash is on every record's path: inlined */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "io/input.h"
#include "io/output.h"

#define KEY_GROUPS 128

/* The canonical bytes of the key fields idx[0..nkeys) of the fields f.
 * Returns them, pointing into f (one field) or into *buf (grown as
 * needed; the caller frees it), with their length in *n. */
const char *key_encode(const struct field *f, const size_t *idx,
    size_t nkeys, char **buf, size_t *cap, size_t *n);

/* The hash of canonical key bytes (XXH3-64). */
static inline uint64_t
key_hash(const char *b, size_t n)
{
	return XXH3_64bits(b, n);
}

/* key_hash() of a key that is a field as framed (input.h: FIELD_PAD
 * readable bytes after it). Of 1 to 8 bytes, the commonest keys, both
 * of XXH3's forms (1 to 3 bytes, 4 to 8) are taken from one load and
 * the right one chosen without a branch, which keys of both lengths
 * side by side would mispredict. */
static inline uint64_t
key_hash_field(const char *b, size_t n)
{
	const xxh_u8 *s = XXH3_kSecret;
	uint64_t w, in2, pick, h13, h48;
	uint32_t c;

	if (n - 1 >= 8)
		return XXH3_64bits(b, n);
	w = XXH_readLE64(b);	/* b[0..n) and bytes past them */
	c = (uint32_t)(w & 0xff) << 16 | (uint32_t)(uint8_t)b[n >> 1] << 24 |
	    (uint32_t)(uint8_t)b[n - 1] | (uint32_t)n << 8;
	h13 = XXH64_avalanche(c ^ (uint64_t)(XXH_readLE32(s) ^
	    XXH_readLE32(s + 4)));
	in2 = (uint32_t)(w >> (8 * ((n - 4) & 7)));	/* b[n - 4..n) */
	h48 = XXH3_rrmxmx((in2 + ((uint64_t)(uint32_t)w << 32)) ^
	    (XXH_readLE64(s + 8) ^ XXH_readLE64(s + 16)), n);
	pick = (uint64_t)0 - (n >= 4);
	return (h48 & pick) | (h13 & ~pick);
}

/* The key group of a key with hash h, in [0, KEY_GROUPS): its top bits,
 * which the key table's index (its low bits) does not use. */
static inline unsigned
key_group(uint64_t h)
{
	return (unsigned)(h >> 57);
}

/* Orders two keys of nkeys fields, field by field as bytes: <0, 0, >0. */
int key_cmp(size_t nkeys, const char *a, size_t alen, const char *b,
    size_t blen);

/* The first 8 bytes of the key's first field, big-endian, zero-padded:
 * keys whose prefixes differ are in the order of their prefixes, so a
 * sort compares integers and calls key_cmp only on ties. */
uint64_t key_prefix(size_t nkeys, const char *b, size_t n);

/* Whether b[0..n) is the canonical form of nkeys fields (restored state
 * is checked with it before it is printed or compared). */
int key_valid(size_t nkeys, const char *b, size_t n);

/* Writes the key's fields as cells of the current row. */
void key_write(struct out *o, size_t nkeys, const char *b, size_t n);

#endif
