/* SPDX-License-Identifier: BSD-3-Clause */
/* The download: HTTP over TCP, the file writer and the running SHA-256. */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <rte_cycles.h>

#include "../proto/ip4.h"
#include "dl.h"

#define DL_USER_AGENT "twinplane-fetch/" TP_VERSION

static void dl_fail(struct dl *d, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void dl_fail(struct dl *d, int code, const char *fmt, ...)
{
	va_list ap;

	if (d->finished)
		return;
	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
	d->exit = code;
	d->finished = true;
	d->t_end = d->net->now;
	for (unsigned int i = 0; d->conns && i < d->nconn; i++)
		if (d->conns[i].st != DLC_DONE && d->conns[i].st != DLC_IDLE)
			d->conns[i].st = DLC_FAILED;
}

/* --- the writer: one pwritev per batch, straight from the mbufs, or one O_DIRECT
 * write per DL_STAGE bytes copied from them ---------------------------------------- */

/* All n bytes at off, short writes resumed: 0 or an errno. */
static int write_all(int fd, const uint8_t *p, size_t n, uint64_t off, uint64_t *writes)
{
	while (n) {
		ssize_t k = pwrite(fd, p, n, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (k == 0)
			return EIO;
		(*writes)++;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The stage into the file: its aligned part with O_DIRECT, the rest (the unaligned head
 * of a resumed file or of a part, the file's tail) through the page cache, on pages of
 * its own. The write is synchronous: the loop sleeps while the device writes (about
 * 0.4 ms a MiB on this VM's disk), counted apart (write_wait_cycles: the write's wall
 * time less the thread's CPU time), the CPU free meanwhile. */
static void stage_flush(struct dl *d, struct dl_writer *w)
{
	size_t n = w->staged, a = 0;
	uint64_t t0 = rte_rdtsc(), c0 = thread_cpu_ns();
	int err = 0;

	if (w->dfd >= 0 && w->off % DL_ALIGN == 0)
		a = n / DL_ALIGN * DL_ALIGN;
	if (a) {
		err = write_all(w->dfd, w->stage, a, w->off, &w->writes);
		if (err == EINVAL) {
			/* the file system took O_DIRECT at open but not for this write: the
			 * page cache from now on (what was written is written again) */
			w->dfd = -1;
			d->direct = "refused by the file system";
			a = 0;
			err = 0;
		} else if (!err) {
			d->direct_bytes += a;
		}
	}
	if (!err && n > a)
		err = write_all(w->fd, w->stage + a, n - a, w->off + a, &w->writes);
	uint64_t wall = rte_rdtsc() - t0;
	uint64_t cpu = (thread_cpu_ns() - c0) * d->net->hz / 1000000000u;
	d->write_cycles += wall;
	if (a && wall > cpu)
		d->write_wait_cycles += wall - cpu;
	if (a && wall > cpu && wall - cpu > d->direct_max_wait)
		d->direct_max_wait = wall - cpu;
	if (a && wall > cpu + d->net->hz / 1000000 * DL_DIRECT_SLOW_US)
		d->direct_slow++; /* the device kept the loop off the port: see dl.h */
	if (err) {
		w->err = err;
	} else {
		w->off += n;
		d->written += n;
	}
	w->staged = 0;
	w->bytes = 0;
}

static void writer_flush(struct dl *d, struct dl_writer *w)
{
	struct iovec *iov = w->iov;
	unsigned int n = w->niov;

	if (w->staged)
		stage_flush(d, w);
	uint64_t t0 = rte_rdtsc();
	while (n && !w->err) {
		ssize_t k = pwritev(w->fd, iov, (int)n /* DL_IOV, under IOV_MAX */, (off_t)w->off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			w->err = errno;
			break;
		}
		w->writes++;
		w->off += (uint64_t)k;
		d->written += (uint64_t)k;
		/* a short write: go on from where it stopped */
		while (n && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	if (w->niov)
		d->write_cycles += rte_rdtsc() - t0;
	for (unsigned int i = 0; i < w->nm; i++)
		rte_pktmbuf_free(w->m[i]);
	w->niov = w->nm = 0;
	w->bytes = 0;
	if (w->err)
		dl_fail(d, DL_E_FILE, "cannot write %s: %s", d->o->out, strerror(w->err));
}

/* O_DIRECT: copy len bytes at p into the stage, writing it whenever it reaches the next
 * DL_ALIGN boundary (an unaligned start) or DL_STAGE bytes. */
static void stage_add(struct dl *d, struct dl_writer *w, const uint8_t *p, uint32_t len)
{
	while (len && !w->err) {
		size_t due = w->off % DL_ALIGN ? DL_ALIGN - w->off % DL_ALIGN : DL_STAGE;
		size_t k = due - w->staged < len ? due - w->staged : len;
		memcpy(w->stage + w->staged, p, k);
		w->staged += k;
		w->bytes += k;
		p += k;
		len -= (uint32_t)k;
		if (w->staged == due)
			writer_flush(d, w);
	}
}

/* Take len bytes at p, inside m, for the file: the one copy is pwritev's, or ours into
 * the O_DIRECT stage. */
static void writer_add(struct dl *d, struct dl_writer *w, struct rte_mbuf *m, const uint8_t *p,
		       uint32_t len)
{
	if (w->dfd >= 0 && w->stage == NULL && w->niov == 0 &&
	    posix_memalign((void **)&w->stage, DL_ALIGN, DL_STAGE) != 0) {
		w->stage = NULL;
		w->dfd = -1; /* no memory for it: pwritev */
	}
	if (w->dfd >= 0 && w->stage) {
		stage_add(d, w, p, len);
		return;
	}
	if (w->niov == DL_IOV || w->nm == DL_IOV)
		writer_flush(d, w);
	if (w->niov == 0)
		w->first_at = d->net->now;
	if (w->niov &&
	    (const uint8_t *)w->iov[w->niov - 1].iov_base + w->iov[w->niov - 1].iov_len == p) {
		w->iov[w->niov - 1].iov_len += len;
	} else {
		w->iov[w->niov].iov_base = (void *)(uintptr_t)p;
		w->iov[w->niov++].iov_len = len;
	}
	if (w->nm == 0 || w->m[w->nm - 1] != m) {
		rte_mbuf_refcnt_update(m, 1);
		w->m[w->nm++] = m;
	}
	w->bytes += len;
	if (w->bytes >= DL_WRITE_BATCH)
		writer_flush(d, w);
}

/* --- HTTP on a connection ------------------------------------------------------ */

static void on_done(struct dl *d, struct dl_conn *c);
static bool is_redirect(int status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* The file again with O_DIRECT (d->dfd), unless o->direct is off or the file is on
 * tmpfs, where O_DIRECT goes through the page cache all the same: our copy into the
 * stage would then be a second one. A file system without O_DIRECT: d->dfd stays -1. */
static void direct_open(struct dl *d)
{
	struct statfs sf;

	if (!d->o->direct || d->dfd >= 0 || fstatfs(d->fd, &sf) < 0 || sf.f_type == TMPFS_MAGIC ||
	    sf.f_type == RAMFS_MAGIC)
		return;
	d->dfd = open(d->o->out, O_WRONLY | O_DIRECT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat a, b;
	if (d->dfd >= 0 && (fstat(d->fd, &a) < 0 || fstat(d->dfd, &b) < 0 || a.st_dev != b.st_dev ||
			    a.st_ino != b.st_ino)) {
		/* the name now leads elsewhere (replaced since file_open): not ours */
		close(d->dfd);
		d->dfd = -1;
	}
	if (d->dfd >= 0)
		d->direct = "on";
}

/* The output file, never through a symbolic link and only a regular file (it is
 * opened as root, often in a shared directory: review N16): an existing one opened
 * with O_NOFOLLOW (O_NONBLOCK: a FIFO planted there does not block the open), a new
 * one created with O_EXCL; create is false for --continue. The descriptor, or -1 with
 * the reason in err. */
static int out_open(const char *path, bool create, char *err, size_t len)
{
	int fd = -1;
	struct stat st;

	for (int tries = 0; fd < 0 && tries < 2; tries++) {
		/* read too: parallel parts are hashed back from the file (hash_catch_up) */
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0 && errno == ENOENT && create) {
			fd = open(path, O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL, 0644);
			if (fd < 0 && errno == EEXIST)
				continue; /* made meanwhile: opened as an existing one */
		}
		break;
	}
	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(err, len, "refusing to write %s: it is a symbolic link", path);
		else if (errno == ENOENT && !create)
			err[0] = '\0'; /* --continue with no file: a plain download */
		else
			snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "refusing to write %s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, 0) < 0) { /* O_NONBLOCK off again */
		snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Open (or reopen) the output file: truncated for a new download, kept for a resumed or
 * ranged one. */
static bool file_open(struct dl *d, bool truncate)
{
	if (d->fd >= 0 && !truncate)
		return true;
	if (d->fd >= 0)
		close(d->fd);
	if (d->dfd >= 0)
		close(d->dfd);
	d->dfd = -1;
	char err[sizeof(d->err)];
	d->fd = out_open(d->o->out, true, err, sizeof(err));
	if (d->fd < 0) {
		dl_fail(d, DL_E_FILE, "%s", err);
		return false;
	}
	/* after the checks: O_TRUNC would have cut whatever the name led to */
	if (truncate && ftruncate(d->fd, 0) < 0) {
		dl_fail(d, DL_E_FILE, "cannot truncate %s: %s", d->o->out, strerror(errno));
		return false;
	}
	direct_open(d);
	return true;
}

static void body_at(struct dl *d, struct dl_conn *c, uint64_t off)
{
	c->w.fd = d->fd;
	c->w.dfd = d->dfd;
	c->w.off = off;
	c->next = off;
	c->st = DLC_BODY;
}

static void on_headers(struct dl *d, struct dl_conn *c)
{
	const struct tp_http_resp *r = &c->resp;

	if (!c->part)
		d->status = r->status;
	if (is_redirect(r->status) && r->location[0] && !c->part) {
		if (d->redirects >= d->o->max_redirects) {
			dl_fail(d, DL_E_PROTO, "too many redirects (%u): last to %s", d->redirects,
				r->location);
			return;
		}
		struct tp_url next;
		char err[128];
		if (tp_url_resolve(&d->url, r->location, &next, err, sizeof(err)) < 0) {
			dl_fail(d, DL_E_PROTO, "cannot follow redirect to '%s': %s", r->location,
				err);
			return;
		}
		d->url = next;
		tp_url_fmt(&d->url, d->url_s, sizeof(d->url_s));
		d->redirects++;
		c->st = DLC_REDIRECT;
		return;
	}
	if ((d->resumed_from || c->probe) && r->status == 416 && r->range_unsat &&
	    r->range_total == d->resumed_from && !c->part) {
		/* the file is whole already (wget: "nothing to do"), or empty */
		if (!file_open(d, d->resumed_from == 0))
			return;
		d->total = d->resumed_from;
		c->st = DLC_BODY;
		c->probe = false;
		on_done(d, c);
		return;
	}
	if (r->status >= 300) {
		dl_fail(d, DL_E_HTTP, "server answered %d %s for %s", r->status, r->reason,
			d->url_s);
		return;
	}
	if (c->part) {
		/* RFC 9110 14.4: exactly the range asked for */
		if (r->status != 206 || r->range_first != c->first || r->range_last + 1 != c->end) {
			dl_fail(d, DL_E_PROTO,
				"asked for bytes %" PRIu64 "-%" PRIu64 ", got status %d (%" PRIu64
				"-%" PRIu64 ")",
				c->first, c->end - 1, r->status, r->range_first, r->range_last);
			return;
		}
		c->rend = c->end;
		body_at(d, c, c->first);
		return;
	}
	if (r->status == 206) {
		if (r->range_first != d->resumed_from) {
			dl_fail(d, DL_E_PROTO, "asked for bytes from %" PRIu64 ", got %" PRIu64 "-",
				d->resumed_from, r->range_first);
			return;
		}
		if (c->probe && r->range_total == UINT64_MAX) {
			c->probe = false; /* no size given: the rest on this connection */
		}
		if (!file_open(d, d->resumed_from == 0))
			return;
		d->total = r->range_total;
		d->framing = r->framing == TP_HTTP_LENGTH ? "length" : "chunked";
		d->expected = d->total != UINT64_MAX ? d->total - d->resumed_from : UINT64_MAX;
		c->rend = r->range_last + 1; /* the parser has first <= last < total */
		body_at(d, c, d->resumed_from);
		return;
	}
	if (r->status != 200) {
		/* 201-205: nothing we asked for */
		dl_fail(d, DL_E_HTTP, "unexpected status %d %s for %s", r->status, r->reason,
			d->url_s);
		return;
	}
	if (d->resumed_from) {
		/* the server ignored the Range: the whole file again (as wget) */
		d->resumed_from = 0;
		d->hashed = 0;
		tp_sha256_init(&d->sha);
	}
	c->probe = false; /* no ranges: the whole body on this connection */
	if (!file_open(d, true))
		return;
	d->expected = r->framing == TP_HTTP_LENGTH ? r->content_length : UINT64_MAX;
	d->framing = r->framing == TP_HTTP_LENGTH    ? "length"
		     : r->framing == TP_HTTP_CHUNKED ? "chunked"
						     : "close";
	body_at(d, c, 0);
}

static void conn_open(struct dl *d, struct dl_conn *c);

/* Send GET for the current URL on c, for [from, to] (TP_HTTP_NO_RANGE: open). */
static void send_get(struct dl *d, struct dl_conn *c, uint64_t from, uint64_t to)
{
	char req[TP_HTTP_HOST_MAX + TP_HTTP_PATH_MAX + 256];
	int len = tp_http_get(req, sizeof(req), &d->url, from, to, DL_USER_AGENT);

	if (len < 0 || tcp_send(&c->tcp, req, (uint32_t)len) < 0) {
		dl_fail(d, DL_E_GENERIC, "request for %s too long", d->url_s);
		return;
	}
	tp_http_resp_init(&c->resp, false);
	c->rend = 0;
	c->st = DLC_WAITING;
}

/* The probe's byte is in: split the rest of the file over the connections. */
static void start_parts(struct dl *d, struct dl_conn *probe)
{
	uint64_t from = probe->next, left = d->total - from;
	unsigned int n = d->o->connections;

	if (left == 0)
		return;
	if (left / DL_PART_MIN < n)
		n = (unsigned int)(left / DL_PART_MIN) + 1;
	if (n > d->o->connections)
		n = d->o->connections;
	d->nparts = n;
	for (unsigned int i = 0; i < n; i++) {
		/* part 0 on the probe's connection when the server keeps it open */
		struct dl_conn *c = (i == 0 && probe->resp.keep_alive) ? probe : &d->conns[i + 1];
		c->part = true;
		c->probe = false;
		c->first = from + left / n * i;
		c->end = i + 1 == n ? d->total : from + left / n * (i + 1);
		c->next = c->first;
		if (c == probe) {
			writer_flush(d, &c->w); /* the probe's byte, at its own offset */
			c->w.off = c->first;
			send_get(d, c, c->first, c->end - 1);
		} else {
			conn_open(d, c);
		}
	}
	if (!probe->part)
		tcp_close(&probe->tcp);
}

static bool all_parts_done(const struct dl *d)
{
	for (unsigned int i = 0; i < d->nconn; i++)
		if (d->conns[i].part && d->conns[i].st != DLC_DONE)
			return false;
	return true;
}

/* A 206's body ended: is it the Content-Range's, and (a resumed download's) the
 * rest of the file? False when not: the download failed. */
static bool range_done(struct dl *d, struct dl_conn *c)
{
	const struct tp_http_resp *r = &c->resp;
	char total[24] = "*";

	if (c->rend == 0 || c->st != DLC_BODY)
		return true;
	if (r->range_total != UINT64_MAX)
		snprintf(total, sizeof(total), "%" PRIu64, r->range_total);
	if (c->next != c->rend) {
		/* RFC 9110 14.4: a short body (Content-Length or chunked) is no answer */
		dl_fail(d, DL_E_PROTO,
			"206 body of %" PRIu64 " bytes does not match its Content-Range "
			"(bytes %" PRIu64 "-%" PRIu64 "/%s: %" PRIu64 " bytes)",
			c->next - r->range_first, r->range_first, r->range_last, total,
			c->rend - r->range_first);
		return false;
	}
	if (!c->part && !c->probe && r->range_total != UINT64_MAX && c->rend != r->range_total) {
		/* we asked for everything from resumed_from on */
		dl_fail(d, DL_E_SHORT,
			"asked for bytes %" PRIu64 "- of %s, the server sent %" PRIu64 "-%" PRIu64
			": the file is incomplete (run again with --continue)",
			d->resumed_from, total, r->range_first, r->range_last);
		return false;
	}
	return true;
}

static void on_done(struct dl *d, struct dl_conn *c)
{
	if (d->finished || !range_done(d, c))
		return;
	if (c->probe) {
		c->probe = false;
		c->st = DLC_DONE;
		start_parts(d, c);
		if (d->nparts && !d->finished)
			return;
	} else {
		c->st = DLC_DONE;
		if (c->part && !all_parts_done(d)) {
			tcp_close(&c->tcp);
			return;
		}
	}
	for (unsigned int i = 0; i < d->nconn; i++)
		writer_flush(d, &d->conns[i].w);
	if (d->finished)
		return;
	d->finished = true;
	d->t_end = d->net->now;
	d->exit = DL_OK;
	tcp_close(&c->tcp); /* we are done with it: FIN (an active close) */
}

static void conn_recv(void *app, struct tcp_conn *t, struct rte_mbuf *m, const uint8_t *data,
		      uint32_t len)
{
	struct dl_conn *c = app;
	struct dl *d = c->dl;

	d->t_progress = d->net->now;
	while (c->st == DLC_WAITING || c->st == DLC_BODY) {
		enum tp_http_event ev;
		const uint8_t *body;
		size_t blen;
		int k = tp_http_resp_feed(&c->resp, data, len, &ev, &body, &blen);
		if (k < 0) {
			dl_fail(d, DL_E_PROTO, "bad response from %s: %s", d->url_s,
				tp_http_strerror(k));
			return;
		}
		data += k;
		len -= (uint32_t)k;
		switch (ev) {
		case TP_HTTP_EV_NONE:
			return;
		case TP_HTTP_EV_HEADERS:
			on_headers(d, c);
			break;
		case TP_HTTP_EV_BODY:
			if (c->st != DLC_BODY)
				break; /* a redirect's or error's body: not ours */
			if (c->rend && c->next + blen > c->rend) {
				/* RFC 9110 14.4: the body is the Content-Range's bytes */
				dl_fail(d, DL_E_PROTO,
					"206 body longer than its Content-Range (bytes %" PRIu64
					"-%" PRIu64 ", %" PRIu64 " bytes)",
					c->resp.range_first, c->resp.range_last,
					c->rend - c->resp.range_first);
				return;
			}
			/* the digest runs over the file in order: bytes at its frontier now,
			 * others (a later part's) are caught up from the file by dl_poll */
			if (d->o->digest && c->next == d->hashed) {
				tp_sha256_update(&d->sha, body, blen);
				d->hashed += blen;
			}
			c->next += blen;
			d->bytes += blen;
			writer_add(d, &c->w, m, body, (uint32_t)blen);
			break;
		case TP_HTTP_EV_DONE:
			if (c->st == DLC_BODY)
				on_done(d, c);
			return;
		}
	}
}

static void conn_event(void *app, struct tcp_conn *t, enum tcp_event e)
{
	struct dl_conn *c = app;
	struct dl *d = c->dl;
	char ip[16];
	int r;

	d->t_progress = d->net->now;
	tp_ip4_fmt(t->rip, ip);
	switch (e) {
	case TCP_EV_ESTABLISHED:
		if (c->part)
			send_get(d, c, c->first, c->end - 1);
		else if (c->probe)
			/* one byte, to learn the size from Content-Range */
			send_get(d, c, d->resumed_from, d->resumed_from);
		else
			/* --continue: the bytes after those the file has (RFC 9110 14.1.2) */
			send_get(d, c, d->resumed_from ? d->resumed_from : TP_HTTP_NO_RANGE,
				 TP_HTTP_NO_RANGE);
		return;
	case TCP_EV_PEER_FIN:
		c->peer_fin = true;
		if (c->st == DLC_WAITING || c->st == DLC_BODY) {
			r = tp_http_resp_eof(&c->resp);
			if (r == 1) {
				on_done(d, c); /* a body delimited by the close */
			} else if (r < 0 && c->st == DLC_BODY) {
				uint64_t want = c->part ? c->end - c->first : d->expected;
				uint64_t got = c->next - (c->part ? c->first : d->resumed_from);
				if (want != UINT64_MAX)
					dl_fail(d, DL_E_SHORT,
						"server closed the connection after %" PRIu64
						" of %" PRIu64 " body bytes: short body",
						got, want);
				else
					dl_fail(d, DL_E_SHORT,
						"server closed the connection after %" PRIu64
						" body bytes: short body",
						got);
			} else if (r < 0) {
				dl_fail(d, DL_E_NET, "server %s:%u closed the connection: %s", ip,
					t->rport, tp_http_strerror(r));
			}
		}
		tcp_close(t); /* our FIN in answer (CLOSE-WAIT -> LAST-ACK) */
		return;
	case TCP_EV_CLOSED:
		c->closed = true;
		return;
	case TCP_EV_REFUSED:
		c->closed = true;
		dl_fail(d, DL_E_NET, "connection to %s:%u refused", ip, t->rport);
		return;
	case TCP_EV_RESET:
		c->closed = true;
		if (c->st == DLC_BODY)
			dl_fail(d, DL_E_SHORT,
				"connection reset by %s:%u after %" PRIu64
				" body bytes: short body",
				ip, t->rport, d->bytes);
		else if (c->st != DLC_DONE)
			dl_fail(d, DL_E_NET, "connection reset by %s:%u", ip, t->rport);
		return;
	case TCP_EV_TIMEOUT:
	case TCP_EV_UNREACHABLE:
		c->closed = true;
		if (t->icmp_type == 3)
			dl_fail(d, DL_E_NET,
				"%s:%u unreachable (ICMP destination unreachable, code %d)", ip,
				t->rport, t->icmp_code);
		else if (t->icmp_type == 11)
			dl_fail(d, DL_E_NET, "%s:%u unreachable (ICMP time exceeded)", ip,
				t->rport);
		else
			dl_fail(d, DL_E_NET,
				"connection to %s:%u timed out (%s, %u retransmissions)", ip,
				t->rport, tcp_state_name(t->state), (unsigned int)t->retransmits);
		return;
	}
}

static const struct tcp_ops conn_ops = {.recv = conn_recv, .event = conn_event};

static void conn_release(struct dl *d, struct dl_conn *c)
{
	if (!c->used)
		return;
	writer_flush(d, &c->w);
	free(c->w.stage);
	c->w.stage = NULL;
	d->retransmits += c->tcp.retransmits;
	d->ooo_segs += c->tcp.ooo_segs;
	d->dup_segs += c->tcp.dup_segs;
	d->writes += c->w.writes;
	c->w.writes = 0;
	tcp_free(&c->tcp);
	c->used = false;
}

static void conn_open(struct dl *d, struct dl_conn *c)
{
	int ret;

	c->dl = d;
	c->w.fd = d->fd;
	c->w.dfd = d->dfd;
	c->st = DLC_CONNECTING;
	c->peer_fin = c->closed = false;
	ret = tcp_connect(d->net, &c->tcp, d->url.ip, d->url.port, d->o->window, &conn_ops, c);
	if (ret < 0) {
		dl_fail(d, DL_E_GENERIC, "cannot open a connection: %s", strerror(-ret));
		return;
	}
	c->used = true;
}

/* --continue: open the partial file and hash what it holds (a read of the file, not
 * of the network: the digest then covers the whole file). */
static int resume_open(struct dl *d)
{
	static uint8_t buf[1 << 20];
	struct stat st;
	uint64_t off = 0;

	d->fd = out_open(d->o->out, false, d->err, sizeof(d->err));
	if (d->fd < 0) {
		if (d->err[0] == '\0')
			return 0; /* nothing to continue: a plain download */
		d->exit = DL_E_FILE;
		return -1;
	}
	if (fstat(d->fd, &st) < 0) {
		snprintf(d->err, sizeof(d->err), "cannot stat %s: %s", d->o->out, strerror(errno));
		d->exit = DL_E_FILE;
		return -1;
	}
	if (!d->o->digest)
		off = (uint64_t)st.st_size; /* nothing to hash: the size is all we need */
	while (off < (uint64_t)st.st_size) {
		ssize_t k = pread(d->fd, buf, sizeof(buf), (off_t)off);
		if (k <= 0) {
			snprintf(d->err, sizeof(d->err), "cannot read %s: %s", d->o->out,
				 k < 0 ? strerror(errno) : "shorter than its size");
			d->exit = DL_E_FILE;
			return -1;
		}
		tp_sha256_update(&d->sha, buf, (size_t)k);
		off += (uint64_t)k;
	}
	d->resumed_from = d->hashed = off;
	direct_open(d);
	return 0;
}

int dl_start(struct dl *d, struct fetch_net *n, const struct dl_opts *o)
{
	char err[256];

	memset(d, 0, sizeof(*d));
	d->net = n;
	d->o = o;
	d->fd = d->dfd = -1;
	d->direct = "off";
	d->expected = d->total = UINT64_MAX;
	d->framing = "none";
	tp_sha256_init(&d->sha);
	if (tp_url_parse(o->url, &d->url, err, sizeof(err)) < 0) {
		snprintf(d->err, sizeof(d->err), "bad URL '%s': %s", o->url, err);
		return d->exit = DL_E_USAGE;
	}
	tp_url_fmt(&d->url, d->url_s, sizeof(d->url_s));
	if (net_next_hop(n, d->url.ip) == 0) {
		char ip[16];
		snprintf(d->err, sizeof(d->err),
			 "%s is not on the port's subnet and no --gw was given",
			 tp_ip4_fmt(d->url.ip, ip));
		return d->exit = DL_E_USAGE;
	}
	if (o->resume && resume_open(d) < 0)
		return d->exit;
	d->nconn = o->connections + 1;
	d->conns = calloc(d->nconn, sizeof(*d->conns));
	if (d->conns == NULL) {
		snprintf(d->err, sizeof(d->err), "out of memory");
		return d->exit = DL_E_GENERIC;
	}
	for (unsigned int i = 0; i < d->nconn; i++)
		d->conns[i].w.fd = d->conns[i].w.dfd = -1;
	d->t_start = d->t_progress = n->now;
	d->conns[0].probe = o->connections > 1;
	conn_open(d, &d->conns[0]);
	return d->finished ? d->exit : 0;
}

static void progress_line(struct dl *d, bool last)
{
	double secs = (double)(d->net->now - d->t_start) / (double)d->net->hz;
	double rate = secs > 0 ? (double)d->bytes / secs : 0;
	char pct[16] = "";

	if (d->expected != UINT64_MAX && d->expected)
		snprintf(pct, sizeof(pct), "%5.1f%% ",
			 100.0 * (double)d->bytes / (double)d->expected);
	fprintf(stderr, "\r%s%.1f MiB  %.1f MiB/s  %.1f s   %s", pct, (double)d->bytes / 1048576.0,
		rate / 1048576.0, secs, last ? "\n" : "");
}

/* Hash up to budget bytes of the file at the digest's frontier that a part received
 * before the frontier reached it (read back from the file: the bytes came with no
 * copy but pwritev's, and are hashed once). */
static void hash_catch_up(struct dl *d, uint64_t budget)
{
	static uint8_t buf[1 << 20];

	while (d->o->digest && budget && d->nparts && d->hashed < d->total && d->exit == DL_OK) {
		struct dl_conn *c = NULL;
		for (unsigned int i = 0; i < d->nconn && c == NULL; i++) {
			struct dl_conn *k = &d->conns[i];
			if (k->part && k->first <= d->hashed && d->hashed < k->end)
				c = k;
		}
		if (c == NULL || c->next <= d->hashed)
			return; /* the frontier's part hashes as its bytes come */
		struct dl_writer *w = &c->w;
		if (w->niov && w->off < c->next)
			writer_flush(d, w); /* the bytes to read must be in the file */
		if (w->staged && d->hashed >= w->off) {
			/* in the part's O_DIRECT stage, not written yet: hashed there (a flush
			 * now would send its unaligned end through the page cache) */
			uint64_t n = w->off + w->staged - d->hashed;
			if (n > budget)
				n = budget;
			tp_sha256_update(&d->sha, w->stage + (d->hashed - w->off), (size_t)n);
			d->hashed += n;
			budget -= n;
			continue;
		}
		/* before the stage, or the whole part without one: in the file */
		uint64_t want = (w->staged ? w->off : c->next) - d->hashed;
		if (want > sizeof(buf))
			want = sizeof(buf);
		if (want > budget)
			want = budget;
		ssize_t k = pread(d->fd, buf, (size_t)want, (off_t)d->hashed);
		if (k <= 0) {
			/* also after the download ended: the digest would be wrong */
			snprintf(d->err, sizeof(d->err), "cannot read back %s: %s", d->o->out,
				 k < 0 ? strerror(errno) : "shorter than written");
			d->exit = DL_E_FILE;
			d->finished = true;
			return;
		}
		tp_sha256_update(&d->sha, buf, (size_t)k);
		d->hashed += (uint64_t)k;
		budget -= (uint64_t)k;
	}
}

void dl_poll(struct dl *d)
{
	struct fetch_net *n = d->net;
	struct dl_conn *c0 = &d->conns[0];

	if (c0->st == DLC_REDIRECT) {
		/* a new connection for the next URL (keep-alive reuse is not done yet) */
		tcp_abort(&c0->tcp);
		conn_release(d, c0);
		if (net_next_hop(n, d->url.ip) == 0) {
			char ip[16];
			dl_fail(d, DL_E_NET, "redirect to %s: not on the port's subnet, no --gw",
				tp_ip4_fmt(d->url.ip, ip));
			return;
		}
		conn_open(d, c0);
		return;
	}
	/* spans wait for a batch (DL_WRITE_BATCH), or DL_WRITE_AGE_MS when the data
	 * slows down: not for every quiet poll, which at this rate is every burst */
	for (unsigned int i = 0; i < d->nconn; i++) {
		struct dl_writer *w = &d->conns[i].w;
		if (w->niov && n->now - w->first_at >= n->hz / 1000 * DL_WRITE_AGE_MS)
			writer_flush(d, w);
	}
	/* 256 KiB a pass: a millisecond or so of hashing between two bursts */
	hash_catch_up(d, 256 * 1024);
	if (d->finished)
		return;
	if (d->o->max_time_s && n->now - d->t_start > n->hz * d->o->max_time_s) {
		/* curl's --max-time: a trickling server, or an endless series of 1xx
		 * answers, each of which counts as progress for --timeout */
		if (c0->st == DLC_BODY || d->nparts)
			dl_fail(d, DL_E_NET,
				"--max-time of %u s reached after %" PRIu64 " body bytes",
				d->o->max_time_s, d->bytes);
		else
			dl_fail(d, DL_E_NET,
				"--max-time of %u s reached before the response's body (%s)",
				d->o->max_time_s, tcp_state_name(c0->tcp.state));
		return;
	}
	if (n->now - d->t_progress > n->hz * d->o->timeout_s) {
		char ip[16];
		uint32_t nh = net_next_hop(n, d->url.ip);
		struct rte_ether_addr mac;
		if (c0->tcp.state == TCP_SYN_SENT && !net_resolve(n, nh, &mac))
			dl_fail(d, DL_E_NET, "no ARP reply from %s in %u s", tp_ip4_fmt(nh, ip),
				d->o->timeout_s);
		else if (c0->tcp.soft_err && c0->tcp.icmp_type == 3)
			/* RFC 1122 4.2.3.9: a soft error, reported when the connection fails */
			dl_fail(d, DL_E_NET,
				"%s unreachable: ICMP destination unreachable (code %d), no answer "
				"for %u s",
				tp_ip4_fmt(d->url.ip, ip), c0->tcp.icmp_code, d->o->timeout_s);
		else if (c0->tcp.soft_err && c0->tcp.icmp_type == 11)
			dl_fail(d, DL_E_NET,
				"%s unreachable: ICMP time exceeded, no answer for %u s",
				tp_ip4_fmt(d->url.ip, ip), d->o->timeout_s);
		else
			dl_fail(d, DL_E_NET, "timed out: nothing from %s for %u s (%s)",
				tp_ip4_fmt(d->url.ip, ip), d->o->timeout_s,
				tcp_state_name(c0->tcp.state));
		return;
	}
	if (d->o->progress && n->now - d->t_bar > n->hz / 4) {
		d->t_bar = n->now;
		progress_line(d, false);
	}
}

bool dl_closed(const struct dl *d)
{
	for (unsigned int i = 0; i < d->nconn; i++) {
		const struct dl_conn *c = &d->conns[i];
		if (c->used && !c->closed && c->tcp.state != TCP_CLOSED &&
		    c->tcp.state != TCP_TIME_WAIT)
			return false;
	}
	return true;
}

int dl_finish(struct dl *d)
{
	uint8_t digest[32];

	for (unsigned int i = 0; d->conns && i < d->nconn; i++) {
		struct dl_conn *c = &d->conns[i];
		if (c->used && !c->closed && c->tcp.state != TCP_CLOSED &&
		    c->tcp.state != TCP_TIME_WAIT)
			tcp_abort(&c->tcp);
		conn_release(d, c);
	}
	hash_catch_up(d, UINT64_MAX);
	if (d->exit == DL_OK && d->o->digest && d->nparts && d->hashed != d->total) {
		snprintf(d->err, sizeof(d->err),
			 "internal: the digest covers %" PRIu64 " of %" PRIu64 " bytes", d->hashed,
			 d->total);
		d->exit = DL_E_GENERIC;
	}
	if (d->o->progress && d->t_bar)
		progress_line(d, true);
	if (d->fd >= 0 && close(d->fd) < 0 && d->exit == DL_OK) {
		snprintf(d->err, sizeof(d->err), "cannot write %s: %s", d->o->out, strerror(errno));
		d->exit = DL_E_FILE;
	}
	d->fd = -1;
	if (d->dfd >= 0)
		close(d->dfd);
	d->dfd = -1;
	if (d->o->digest) {
		tp_sha256_final(&d->sha, digest);
		for (int i = 0; i < 32; i++)
			snprintf(d->sha_hex + 2 * i, 3, "%02x", digest[i]);
	}
	if (d->exit == DL_OK && d->o->digest && d->o->sha256_hex &&
	    strcasecmp(d->o->sha256_hex, d->sha_hex) != 0) {
		snprintf(d->err, sizeof(d->err), "SHA-256 mismatch: got %s, expected %s",
			 d->sha_hex, d->o->sha256_hex);
		d->exit = DL_E_SHA;
	}
	free(d->conns);
	d->conns = NULL;
	return d->exit;
}
