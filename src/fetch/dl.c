/* SPDX-License-Identifier: BSD-3-Clause */
/* The download: HTTP over TCP, the file writer and the running SHA-256. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

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
	if (d->conn && d->conn->st != DLC_DONE)
		d->conn->st = DLC_FAILED;
}

/* --- the writer: one pwritev per batch, straight from the mbufs ---------------- */

static void writer_flush(struct dl *d, struct dl_writer *w)
{
	struct iovec *iov = w->iov;
	unsigned int n = w->niov;

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
	for (unsigned int i = 0; i < w->nm; i++)
		rte_pktmbuf_free(w->m[i]);
	w->niov = w->nm = 0;
	w->bytes = 0;
	if (w->err)
		dl_fail(d, DL_E_FILE, "cannot write %s: %s", d->o->out, strerror(w->err));
}

/* Take len bytes at p, inside m, for the file: the one copy is pwritev's. */
static void writer_add(struct dl *d, struct dl_writer *w, struct rte_mbuf *m, const uint8_t *p,
		       uint32_t len)
{
	if (w->niov == DL_IOV || w->nm == DL_IOV)
		writer_flush(d, w);
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

static void conn_open(struct dl *d);
static void on_done(struct dl *d, struct dl_conn *c);

static bool is_redirect(int status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

static void on_headers(struct dl *d, struct dl_conn *c)
{
	const struct tp_http_resp *r = &c->resp;

	d->status = r->status;
	if (is_redirect(r->status) && r->location[0]) {
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
	if (d->resumed_from && r->status == 416 && r->range_unsat &&
	    r->range_total == d->resumed_from) {
		/* the file is whole already (wget: "nothing to do") */
		on_done(d, c);
		return;
	}
	if (r->status >= 300) {
		dl_fail(d, DL_E_HTTP, "server answered %d %s for %s", r->status, r->reason,
			d->url_s);
		return;
	}
	if (d->resumed_from && r->status == 206) {
		if (r->range_first != d->resumed_from) {
			dl_fail(d, DL_E_PROTO, "asked for bytes from %" PRIu64 ", got %" PRIu64 "-",
				d->resumed_from, r->range_first);
			return;
		}
	} else if (r->status == 200) {
		if (d->resumed_from) {
			/* the server ignored the Range: the whole file again (as wget) */
			d->resumed_from = 0;
			tp_sha256_init(&d->sha);
		}
		if (d->fd >= 0)
			close(d->fd);
		d->fd = open(d->o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (d->fd < 0) {
			dl_fail(d, DL_E_FILE, "cannot open %s: %s", d->o->out, strerror(errno));
			return;
		}
	} else {
		/* 201-205, or 206 to a GET without Range: nothing we asked for */
		dl_fail(d, DL_E_HTTP, "unexpected status %d %s for %s", r->status, r->reason,
			d->url_s);
		return;
	}
	c->w.fd = d->fd;
	c->w.off = d->resumed_from;
	d->expected = r->framing == TP_HTTP_LENGTH ? r->content_length : UINT64_MAX;
	d->framing = r->framing == TP_HTTP_LENGTH    ? "length"
		     : r->framing == TP_HTTP_CHUNKED ? "chunked"
						     : "close";
	c->st = DLC_BODY;
}

static void on_done(struct dl *d, struct dl_conn *c)
{
	writer_flush(d, &c->w);
	if (d->finished)
		return;
	c->st = DLC_DONE;
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
			tp_sha256_update(&d->sha, body, blen);
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
	case TCP_EV_ESTABLISHED: {
		char req[TP_HTTP_HOST_MAX + TP_HTTP_PATH_MAX + 256];
		/* --continue: the bytes after those the file has (RFC 9110 14.1.2) */
		uint64_t from = d->resumed_from ? d->resumed_from : TP_HTTP_NO_RANGE;
		int len =
		    tp_http_get(req, sizeof(req), &d->url, from, TP_HTTP_NO_RANGE, DL_USER_AGENT);
		if (len < 0 || tcp_send(t, req, (uint32_t)len) < 0) {
			dl_fail(d, DL_E_GENERIC, "request for %s too long", d->url_s);
			return;
		}
		tp_http_resp_init(&c->resp, false);
		c->st = DLC_WAITING;
		return;
	}
	case TCP_EV_PEER_FIN:
		c->peer_fin = true;
		if (c->st == DLC_WAITING || c->st == DLC_BODY) {
			r = tp_http_resp_eof(&c->resp);
			if (r == 1) {
				on_done(d, c); /* a body delimited by the close */
			} else if (r < 0 && c->st == DLC_BODY) {
				dl_fail(d, DL_E_SHORT,
					"server closed the connection after %" PRIu64
					" of %s body bytes: short body",
					d->bytes, d->expected == UINT64_MAX ? "?" : "");
				if (d->expected != UINT64_MAX)
					snprintf(d->err, sizeof(d->err),
						 "server closed the connection after %" PRIu64
						 " of %" PRIu64 " body bytes: short body",
						 d->bytes, d->expected);
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
		else
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
	writer_flush(d, &c->w);
	d->retransmits += c->tcp.retransmits;
	d->ooo_segs += c->tcp.ooo_segs;
	d->dup_segs += c->tcp.dup_segs;
	tcp_free(&c->tcp);
}

static void conn_open(struct dl *d)
{
	struct dl_conn *c = d->conn;
	int ret;

	memset(c, 0, offsetof(struct dl_conn, resp));
	c->dl = d;
	c->w.fd = -1;
	ret = tcp_connect(d->net, &c->tcp, d->url.ip, d->url.port, d->o->window, &conn_ops, c);
	if (ret < 0) {
		dl_fail(d, DL_E_GENERIC, "cannot open a connection: %s", strerror(-ret));
		return;
	}
	c->st = DLC_CONNECTING;
}

/* --continue: open the partial file and hash what it holds (a read of the file, not
 * of the network: the digest then covers the whole file). */
static int resume_open(struct dl *d)
{
	static uint8_t buf[1 << 20];
	struct stat st;
	uint64_t off = 0;

	d->fd = open(d->o->out, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		if (errno == ENOENT)
			return 0; /* nothing to continue: a plain download */
		snprintf(d->err, sizeof(d->err), "cannot open %s: %s", d->o->out, strerror(errno));
		d->exit = DL_E_FILE;
		return -1;
	}
	if (fstat(d->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(d->err, sizeof(d->err), "%s: not a regular file", d->o->out);
		d->exit = DL_E_FILE;
		return -1;
	}
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
	d->resumed_from = off;
	return 0;
}

int dl_start(struct dl *d, struct fetch_net *n, const struct dl_opts *o)
{
	char err[256];

	memset(d, 0, sizeof(*d));
	d->net = n;
	d->o = o;
	d->fd = -1;
	d->expected = UINT64_MAX;
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
	d->conn = calloc(1, sizeof(*d->conn));
	if (d->conn == NULL) {
		snprintf(d->err, sizeof(d->err), "out of memory");
		return d->exit = DL_E_GENERIC;
	}
	d->t_start = d->t_progress = n->now;
	conn_open(d);
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

void dl_poll(struct dl *d, bool idle)
{
	struct fetch_net *n = d->net;
	struct dl_conn *c = d->conn;

	if (c->st == DLC_REDIRECT) {
		/* a new connection for the next URL (keep-alive reuse is not done yet) */
		tcp_abort(&c->tcp);
		conn_release(d, c);
		if (net_next_hop(n, d->url.ip) == 0) {
			char ip[16];
			dl_fail(d, DL_E_NET, "redirect to %s: not on the port's subnet, no --gw",
				tp_ip4_fmt(d->url.ip, ip));
			return;
		}
		conn_open(d);
		return;
	}
	if (idle && c->w.niov)
		writer_flush(d, &c->w);
	if (d->finished)
		return;
	if (n->now - d->t_progress > n->hz * d->o->timeout_s) {
		char ip[16];
		uint32_t nh = net_next_hop(n, d->url.ip);
		struct rte_ether_addr mac;
		if (c->tcp.state == TCP_SYN_SENT && !net_resolve(n, nh, &mac))
			dl_fail(d, DL_E_NET, "no ARP reply from %s in %u s", tp_ip4_fmt(nh, ip),
				d->o->timeout_s);
		else
			dl_fail(d, DL_E_NET, "timed out: nothing from %s for %u s (%s)",
				tp_ip4_fmt(d->url.ip, ip), d->o->timeout_s,
				tcp_state_name(c->tcp.state));
		return;
	}
	if (d->o->progress && n->now - d->t_bar > n->hz / 4) {
		d->t_bar = n->now;
		progress_line(d, false);
	}
}

bool dl_closed(const struct dl *d)
{
	const struct dl_conn *c = d->conn;

	return c == NULL || c->tcp.net == NULL || c->closed || c->tcp.state == TCP_CLOSED ||
	       c->tcp.state == TCP_TIME_WAIT;
}

int dl_finish(struct dl *d)
{
	uint8_t digest[32];

	if (d->conn) {
		if (!dl_closed(d))
			tcp_abort(&d->conn->tcp);
		conn_release(d, d->conn);
	}
	if (d->o->progress && d->t_bar)
		progress_line(d, true);
	if (d->fd >= 0 && close(d->fd) < 0 && d->exit == DL_OK) {
		snprintf(d->err, sizeof(d->err), "cannot write %s: %s", d->o->out, strerror(errno));
		d->exit = DL_E_FILE;
	}
	d->fd = -1;
	tp_sha256_final(&d->sha, digest);
	for (int i = 0; i < 32; i++)
		snprintf(d->sha_hex + 2 * i, 3, "%02x", digest[i]);
	if (d->exit == DL_OK && d->o->sha256_hex && strcasecmp(d->o->sha256_hex, d->sha_hex) != 0) {
		snprintf(d->err, sizeof(d->err), "SHA-256 mismatch: got %s, expected %s",
			 d->sha_hex, d->o->sha256_hex);
		d->exit = DL_E_SHA;
	}
	return d->exit;
}
