/* ckpt: the checkpoint file — save, open and verify, inspect. */
#ifndef FWIN_CKPT_H
#define FWIN_CKPT_H

#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "io/input.h"

#define CK_NONE UINT64_MAX	/* no such output file */
#define CK_TAIL	4096		/* bytes of an output's tail that are hashed */

/* ckpt_meta.flags: which hashes were taken */
#define CKF_OUTHASH	0x1
#define CKF_LATEHASH	0x2
#define CKF_DBPOS	0x4	/* outlen is -o sqlite:'s commit position */

/* What a checkpoint records beside the state. */
struct ckpt_meta {
	uint64_t generation;		/* saves so far, this one included */
	uint64_t outlen, latelen;	/* -o and --late-file lengths, or CK_NONE */
	uint64_t outhash, latehash;	/* see ckpt_tail_hash(), per CKF_* */
	uint32_t flags;
	int64_t saved;			/* wall time of the save, ns */
	const char *fingerprint;	/* the pipeline's definition */
	const struct input_pos *inputs;	/* per FILE operand */
	int ninputs;
	const char *const *names;	/* FILE operands as given */
};

/* Saves the arena a (its used bytes) and m to path atomically: a crash at
 * any moment leaves the old file or the new one, whole. Returns 0, or -1
 * after printing a message (the old checkpoint is then intact). */
int ckpt_save(const char *path, const struct arena *a,
    const struct ckpt_meta *m);

struct ckpt;

/* Opens path and verifies it (magic, version, lengths, checksum) before
 * anything in it is used. Returns NULL after printing "fwin: path: what
 * is wrong". The payload is mapped, not read. */
struct ckpt *ckpt_open(const char *path);

/* Whether path holds an fwin checkpoint, without a message: 1, and *fp
 * (malloc'd) the fingerprint of its pipeline; 0 when it does not start
 * with the magic number (another program's file); -1 when it starts as
 * a checkpoint and fails verification, -2 when it cannot be read: *why
 * says what is wrong. */
int ckpt_probe(const char *path, char **fp, const char **why);

/* Reads path's header as ckpt_open() would, without the payload's
 * checksum (which the restore verifies): 0 and *fp (malloc'd) the
 * fingerprint of its pipeline, or -1 with *why saying what is wrong, as
 * ckpt_open() would say it. */
int ckpt_peek(const char *path, char **fp, const char **why);

const struct ckpt_meta *ckpt_meta(const struct ckpt *k);

/* Hands the mapped payload to a as its arena (see arena_attach) and
 * returns its used length; the checkpoint no longer owns it. */
uint64_t ckpt_take_arena(struct ckpt *k, struct arena *a);

void ckpt_close(struct ckpt *k);

/* Sets *hash to the XXH3-64 of the CK_TAIL bytes (fewer if len is less)
 * before offset len of the file open on fd, even a write-only fd. This is
 * what a restore checks before it truncates an output back to len.
 * Returns 0, or -1 with errno set. */
int ckpt_tail_hash(int fd, uint64_t len, uint64_t *hash);

/* Before a restoring run writes anything: the -o file output and the
 * --late-file late (either NULL) must still be the files the checkpoint
 * measured, so that truncating them back cuts only rows fwin wrote.
 * Returns 0 (also for a missing or shorter file, which restore leaves as
 * it is), or -1 after "fwin: FILE: not the file that CKPT was saved with
 * (...)". */
int ckpt_check_outputs(const struct ckpt *k, const char *output,
    const char *late);

/* --inspect: prints path's metadata and a summary of its state to out.
 * Returns 0, or 1 when the file fails verification (said in the output
 * and on stderr). */
int ckpt_inspect(const char *path, FILE *out);

#endif
