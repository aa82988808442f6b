/*
 * reader: the reading thread of --threads; see reader.h.
 *
 * The thread fills one slot of the ring at a time with entries (a
 * parsed record, its values and a copy of the bytes they point to) and
 * publishes it when it is full, when the input would block (so that live
 * input keeps its latency), at the end and when asked to pause. The
 * driver empties the slots in order. A slot is never moved while it is
 * filled (an entry that does not fit starts the next one, grown first if
 * need be), so the pointers in its entries stay good until it is
 * emptied. The thread's messages (a file that cannot be opened, an
 * unfinished last line) become entries too, so they are said in their
 * place among the records' own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"
#include "util.h"

#define NSLOT		4
#define SLOT_BYTES	(256 * 1024)

enum { SL_WAIT = 1, SL_END = 2, SL_PAUSED = 4 };

struct slot {
	char *buf;
	size_t cap, used;	/* entries in buf[0..used) */
	int flags;		/* SL_*: what came after them */
	int rc;			/* SL_END: input_next()'s last word */
	uint64_t bytes;		/* input consumed through them */
};

/* An entry: its size (a multiple of 8), the parsed record, then its
 * values and the bytes they all point to. */
struct entry {
	size_t size;
	struct parsed pr;
	struct aval vals[];
};

struct reader {
	/* set before the thread starts */
	struct input *in;
	struct parser *p;
	const struct config *c;
	int keep_raw;
	pthread_t th;
	int wake[2];		/* to the thread: pause or stop */
	int notify[2];		/* to the driver: a slot was published */

	pthread_mutex_t mu;	/* guards full[] and waiting; cv signals */
	pthread_cond_t cv;	/* any change of them, pause or stop */
	struct slot slot[NSLOT];
	int full[NSLOT];
	int waiting;		/* the input would block: the thread polls */
	int pause, stop;	/* asked by the driver (atomic) */

	/* the thread's */
	unsigned wi;
	struct slot *w;		/* being filled, or NULL */
	/* the driver's */
	unsigned ri;
	struct slot *r;		/* being emptied, or NULL */
	size_t rpos;
	int ended, endrc;	/* the thread has published its last slot */
	uint64_t bytes;
};

static int
asked(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/* The thread: waits for the next slot to be free and starts filling it.
 * Returns -1 when asked to stop instead. */
static int
take(struct reader *rd)
{
	struct slot *s = &rd->slot[rd->wi];

	pthread_mutex_lock(&rd->mu);
	while (rd->full[rd->wi] && !asked(&rd->stop))
		pthread_cond_wait(&rd->cv, &rd->mu);
	pthread_mutex_unlock(&rd->mu);
	if (asked(&rd->stop))
		return -1;
	s->used = 0;
	s->flags = 0;
	s->rc = 0;
	rd->w = s;
	return 0;
}

/* The thread: hands the slot being filled to the driver. */
static void
publish(struct reader *rd, int flags, int rc)
{
	struct slot *s = rd->w;
	char b = 0;
	int polled;

	s->flags = flags;
	s->rc = rc;
	s->bytes = input_bytes(rd->in);
	pthread_mutex_lock(&rd->mu);
	rd->full[rd->wi] = 1;
	/* the driver polls only once told that the input would block */
	polled = rd->waiting;
	rd->waiting = (flags & SL_WAIT) != 0;
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	rd->wi = (rd->wi + 1) % NSLOT;
	rd->w = NULL;
	/* nonblocking: a full pipe is readable already */
	if (polled)
		(void)!write(rd->notify[1], &b, 1);
}

static size_t
entry_size(const struct reader *rd, const struct parsed *pr)
{
	size_t i, n = sizeof(struct entry) + pr->msglen + 1;

	if (pr->kind != PR_RECORD)
		return (n + 7) & ~(size_t)7;
	n += rd->c->naggs * sizeof(struct aval) + pr->keylen + pr->tvaln;
	if (rd->keep_raw)
		n += pr->rawlen;
	for (i = 0; i < rd->c->naggs; i++)
		if (pr->vals[i].p != NULL)
			n += pr->vals[i].n + ((rd->c->aggs[i].op->flags &
			    AGF_OUT) ? pr->vals[i].outn : 0);
	return (n + 7) & ~(size_t)7;
}

/* Copies p[0..n) to *at; returns where it now is. */
static const char *
copy(char **at, const char *p, size_t n)
{
	char *q = *at;

	if (n == 0)
		return p;
	memcpy(q, p, n);
	*at = q + n;
	return q;
}

/* The thread: appends a parsed record (or note) to the slot being
 * filled. Returns -1 when asked to stop while it waited for a slot. */
static int
put(struct reader *rd, const struct parsed *pr)
{
	size_t i, size = entry_size(rd, pr);
	struct slot *s = rd->w;
	struct entry *e;
	char *at;

	if (s->used + size > s->cap) {
		if (s->used > 0) {
			publish(rd, 0, 0);
			if (take(rd) != 0)
				return -1;
			s = rd->w;
		}
		if (size > s->cap) {
			s->cap = size > SLOT_BYTES ? size : SLOT_BYTES;
			free(s->buf);
			s->buf = xmalloc(s->cap);
		}
	}
	e = (struct entry *)(s->buf + s->used);
	e->size = size;
	e->pr = *pr;
	at = (char *)e->vals;
	if (pr->kind == PR_RECORD) {
		memcpy(e->vals, pr->vals, rd->c->naggs * sizeof(struct aval));
		e->pr.vals = e->vals;
		at += rd->c->naggs * sizeof(struct aval);
		e->pr.key = copy(&at, pr->key, pr->keylen);
		e->pr.tval = copy(&at, pr->tval, pr->tvaln);
		e->pr.raw = rd->keep_raw ? copy(&at, pr->raw, pr->rawlen) :
		    NULL;
		for (i = 0; i < rd->c->naggs; i++) {
			struct aval *v = &e->vals[i];

			if (v->p == NULL)
				continue;
			v->p = copy(&at, v->p, v->n);
			if (rd->c->aggs[i].op->flags & AGF_OUT)
				v->out = copy(&at, v->out, v->outn);
		}
	}
	if (pr->msg != NULL) {	/* a C string, as the parser's is */
		e->pr.msg = copy(&at, pr->msg, pr->msglen);
		*at = '\0';
	}
	s->used += size;
	return 0;
}

/* The thread's messages: entries among the records. */
static void
note(void *arg, const char *line, size_t n)
{
	struct reader *rd = arg;
	struct parsed pr;

	memset(&pr, 0, sizeof(pr));
	pr.kind = PR_NOTE;
	pr.msg = line;
	pr.msglen = n;
	if (rd->w != NULL)
		(void)put(rd, &pr);
}

/* The thread: sleeps until the input is readable, or the driver asks
 * for a pause or a stop. */
static void
await_input(struct reader *rd)
{
	struct pollfd pfd[2];
	char b[64];

	pfd[0].fd = input_fd(rd->in);
	pfd[0].events = POLLIN;
	pfd[1].fd = rd->wake[0];
	pfd[1].events = POLLIN;
	if (asked(&rd->pause) || asked(&rd->stop))
		return;
	if (poll(pfd, 2, -1) > 0 && (pfd[1].revents & POLLIN))
		while (read(rd->wake[0], b, sizeof(b)) > 0)
			;
}

static void
await_resume(struct reader *rd)
{
	pthread_mutex_lock(&rd->mu);
	while (asked(&rd->pause) && !asked(&rd->stop))
		pthread_cond_wait(&rd->cv, &rd->mu);
	pthread_mutex_unlock(&rd->mu);
}

static void *
reader_main(void *arg)
{
	struct reader *rd = arg;
	struct record rec;
	struct parsed pr;
	int rc;

	fwin_warn_to(note, rd);
	if (take(rd) != 0)
		return NULL;
	for (;;) {
		if (asked(&rd->stop))
			break;
		if (asked(&rd->pause)) {
			publish(rd, SL_PAUSED, 0);
			await_resume(rd);
			if (take(rd) != 0)
				break;
			continue;
		}
		rc = input_next(rd->in, &rec);
		if (rc == INPUT_WAIT) {
			publish(rd, SL_WAIT, 0);
			await_input(rd);
			if (take(rd) != 0)
				break;
			continue;
		}
		if (rc != INPUT_RECORD) {
			publish(rd, SL_END, rc);
			break;
		}
		parse_record(rd->p, &rec, &pr);
		if (put(rd, &pr) != 0)
			break;
	}
	fwin_warn_to(NULL, NULL);
	return NULL;
}

static void
make_pipe(int fd[2])
{
	if (pipe(fd) != 0)
		fwin_die("cannot make a pipe: %s", strerror(errno));
	fcntl(fd[0], F_SETFL, O_NONBLOCK);
	fcntl(fd[1], F_SETFL, O_NONBLOCK);
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
}

struct reader *
reader_start(struct input *in, struct parser *p, const struct config *c,
    int keep_raw)
{
	struct reader *rd = xmalloc(sizeof(*rd));
	sigset_t all, old;
	int err;

	memset(rd, 0, sizeof(*rd));
	rd->in = in;
	rd->p = p;
	rd->c = c;
	rd->keep_raw = keep_raw;
	make_pipe(rd->wake);
	make_pipe(rd->notify);
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv, NULL);
	/* signals are the driver's: they interrupt its poll(2) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&rd->th, NULL, reader_main, rd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0)
		fwin_die("cannot start the reading thread: %s", strerror(err));
	return rd;
}

int
reader_next(struct reader *rd, struct parsed *pr)
{
	struct slot *s;
	struct entry *e;
	int flags;

	for (;;) {
		if ((s = rd->r) != NULL) {
			if (rd->rpos < s->used) {
				e = (struct entry *)(s->buf + rd->rpos);
				rd->rpos += e->size;
				*pr = e->pr;
				return INPUT_RECORD;
			}
			flags = s->flags;
			rd->bytes = s->bytes;
			if (flags & SL_END) {
				rd->ended = 1;
				rd->endrc = s->rc;
			}
			pthread_mutex_lock(&rd->mu);
			rd->full[rd->ri] = 0;
			pthread_cond_broadcast(&rd->cv);
			pthread_mutex_unlock(&rd->mu);
			rd->ri = (rd->ri + 1) % NSLOT;
			rd->r = NULL;
			if (flags & SL_PAUSED)
				return READER_PAUSED;
			if (flags & SL_WAIT)
				return INPUT_WAIT;
			continue;
		}
		if (rd->ended)
			return rd->endrc;
		pthread_mutex_lock(&rd->mu);
		while (!rd->full[rd->ri]) {
			if (rd->waiting && !asked(&rd->pause)) {
				pthread_mutex_unlock(&rd->mu);
				return INPUT_WAIT;
			}
			pthread_cond_wait(&rd->cv, &rd->mu);
		}
		pthread_mutex_unlock(&rd->mu);
		rd->r = &rd->slot[rd->ri];
		rd->rpos = 0;
	}
}

int
reader_ready(struct reader *rd)
{
	char b[64];
	int ready;

	/* drained first: a slot published after the look below writes
	 * again, and the driver's poll(2) sees it */
	while (read(rd->notify[0], b, sizeof(b)) > 0)
		;
	if (rd->r != NULL || rd->ended)
		return 1;
	pthread_mutex_lock(&rd->mu);
	ready = rd->full[rd->ri] || !rd->waiting;
	pthread_mutex_unlock(&rd->mu);
	return ready;
}

int
reader_fd(const struct reader *rd)
{
	return rd->notify[0];
}

/* Wakes the thread if it polls its input. (One that has not published
 * that it would block yet sees the pause or stop asked before it polls.) */
static void
wake(struct reader *rd)
{
	char b = 0;
	int polls;

	pthread_mutex_lock(&rd->mu);
	polls = rd->waiting;
	pthread_mutex_unlock(&rd->mu);
	if (polls)
		(void)!write(rd->wake[1], &b, 1);
}

void
reader_pause(struct reader *rd)
{
	__atomic_store_n(&rd->pause, 1, __ATOMIC_RELEASE);
	wake(rd);
}

void
reader_resume(struct reader *rd)
{
	pthread_mutex_lock(&rd->mu);
	__atomic_store_n(&rd->pause, 0, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
}

uint64_t
reader_bytes(const struct reader *rd)
{
	return rd->bytes;
}

void
reader_stop(struct reader *rd)
{
	size_t i;

	if (rd == NULL)
		return;
	pthread_mutex_lock(&rd->mu);
	__atomic_store_n(&rd->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	wake(rd);
	pthread_join(rd->th, NULL);
	for (i = 0; i < NSLOT; i++)
		free(rd->slot[i].buf);
	close(rd->wake[0]);
	close(rd->wake[1]);
	close(rd->notify[0]);
	close(rd->notify[1]);
	pthread_mutex_destroy(&rd->mu);
	pthread_cond_destroy(&rd->cv);
	free(rd);
}
