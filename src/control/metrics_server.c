/* SPDX-License-Identifier: BSD-3-Clause */
/* The metrics server: HTTP/1.1 on the control loop, one state machine per connection
 * (read the request head, answer, keep alive or close), the page built on demand. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/log.h"
#include "../proto/http.h"
#include "../proto/ip4.h"
#include "cmd.h"
#include "control.h"
#include "metrics.h"
#include "metrics_server.h"
#include "timer.h"

struct mconn {
	int fd;
	bool writing;
	bool close_after;
	bool kept;     /* kept alive, waiting for its next request (the idle timer runs) */
	bool draining; /* answered, closing: what the client still sends is read away */
	size_t in_len;
	char *out; /* the answer: head and body */
	size_t out_len, out_off;
	struct tp_timer deadline, idle;
	struct mconn *next;
	char in[TP_METRICS_HDR_MAX];
};

static int listen_fd = -1;
static char listen_addr[48];
static struct mconn *conns;
static unsigned int n_conns;
struct tp_metrics_limits tp_metrics_limits = {
    .max_conns = 16,
    .deadline_ms = 5000,
    .idle_ms = 120000, /* Prometheus keeps its connection between scrapes */
};
struct tp_metrics_server_stats tp_metrics_server_stats;

static void conn_close(struct mconn *c)
{
	for (struct mconn **pp = &conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	n_conns--;
	tp_timer_cancel(&c->deadline);
	tp_timer_cancel(&c->idle);
	tp_ctl_del_fd(c->fd);
	close(c->fd);
	free(c->out);
	free(c);
}

static void on_deadline(struct tp_timer *t)
{
	struct mconn *c = t->arg;

	if (!c->draining)
		tp_metrics_server_stats.closed_deadline++;
	conn_close(c);
}

/* The answer is sent and the connection ends: close our side for writing and read away
 * what the client still sends until it closes too (or the linger ends). Closing with
 * unread input would reset the connection, and the client could lose the answer
 * (RFC 9112 9.6). */
static bool conn_linger(struct mconn *c)
{
	c->draining = true;
	c->in_len = 0;
	shutdown(c->fd, SHUT_WR);
	tp_timer_cancel(&c->deadline);
	tp_timer_arm(&c->deadline, RTE_MIN(tp_metrics_limits.deadline_ms, TP_METRICS_LINGER_MS));
	tp_ctl_mod_fd(c->fd, true, false);
	return false;
}

static void on_idle(struct tp_timer *t)
{
	tp_metrics_server_stats.closed_idle++;
	conn_close(t->arg);
}

/* Send what is left of the answer; false when the connection was closed. */
static bool conn_flush(struct mconn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			tp_ctl_mod_fd(c->fd, false, true);
			return true;
		}
		if (n <= 0) {
			conn_close(c);
			return false;
		}
		c->out_off += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	if (c->close_after)
		return conn_linger(c);
	/* kept alive: the next request, maybe here already (pipelined: the caller reads
	 * it), with deadline_ms from its first byte */
	c->writing = false;
	tp_timer_cancel(&c->deadline);
	tp_ctl_mod_fd(c->fd, true, false);
	if (c->in_len > 0) {
		tp_timer_arm(&c->deadline, tp_metrics_limits.deadline_ms);
	} else {
		c->kept = true;
		tp_timer_arm(&c->idle, tp_metrics_limits.idle_ms);
	}
	return true;
}

/* Answer with status and body (len bytes, or the page's), the head saying so; the
 * connection closes after it unless keep_alive. Takes body when it is the page's. */
static bool respond(struct mconn *c, int status, const char *reason, const char *extra, char *body,
		    size_t len, bool owned, bool head_only, bool keep_alive)
{
	char h[256];
	int hl;

	c->close_after = !keep_alive;
	hl = snprintf(h, sizeof(h),
		      "HTTP/1.1 %d %s\r\n"
		      "Content-Type: %s\r\n"
		      "Content-Length: %zu\r\n"
		      "%s%s\r\n",
		      status, reason,
		      status == 200 ? "text/plain; version=0.0.4; charset=utf-8"
				    : "text/plain; charset=utf-8",
		      len, extra ? extra : "", keep_alive ? "" : "Connection: close\r\n");
	free(c->out);
	c->out = malloc((size_t)hl + (head_only ? 0 : len));
	if (c->out == NULL) {
		if (owned)
			free(body);
		conn_close(c);
		return false;
	}
	memcpy(c->out, h, (size_t)hl);
	if (!head_only)
		memcpy(c->out + hl, body, len);
	if (owned)
		free(body);
	c->out_len = (size_t)hl + (head_only ? 0 : len);
	c->out_off = 0;
	c->writing = true;
	/* the client has deadline_ms to take the answer */
	tp_timer_cancel(&c->deadline);
	tp_timer_arm(&c->deadline, tp_metrics_limits.deadline_ms);
	return conn_flush(c);
}

static bool respond_error(struct mconn *c, int status, const char *reason, uint64_t *ctr,
			  const char *extra, bool keep_alive)
{
	char body[128];
	int n = snprintf(body, sizeof(body), "%d %s\n", status, reason);

	(*ctr)++;
	return respond(c, status, reason, extra, body, (size_t)n, false, false, keep_alive);
}

/* One complete request head: answer it. */
static bool handle(struct mconn *c, const struct tp_http_req *req)
{
	struct tp_metrics_server_stats *s = &tp_metrics_server_stats;
	bool head = strcmp(req->method, "HEAD") == 0;
	struct tp_metrics m;
	int ret;

	if (req->has_body) /* no request here has one; we would have to read it */
		return respond_error(c, 400, "Bad Request", &s->bad_request, NULL, false);
	if (!head && strcmp(req->method, "GET") != 0)
		/* RFC 9110 15.5.6: a 405 lists the methods the target has */
		return respond_error(c, 405, "Method Not Allowed", &s->bad_method,
				     "Allow: GET, HEAD\r\n", req->keep_alive);
	if (strcmp(req->path, "/metrics") != 0)
		return respond_error(c, 404, "Not Found", &s->not_found, NULL, req->keep_alive);
	ret = tp_metrics_init(&m, TP_METRICS_PAGE_MAX);
	if (ret == 0)
		ret = tp_metrics_page(&m);
	if (ret < 0) {
		TP_LOG(WARNING, "metrics: the page failed: %s", strerror(-ret));
		tp_metrics_free(&m);
		return respond_error(c, 500, "Internal Server Error", &s->page_failed, NULL, false);
	}
	s->scrapes++;
	s->page_bytes = m.len;
	return respond(c, 200, "OK", NULL, m.buf, m.len, true, head, req->keep_alive);
}

/* Read what is there; answer one complete request. False when closed. */
static bool conn_read(struct mconn *c)
{
	struct tp_metrics_server_stats *s = &tp_metrics_server_stats;
	struct tp_http_req req;
	int r;

	while (c->draining) {
		ssize_t n = recv(c->fd, c->in, sizeof(c->in), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (n <= 0) {
			conn_close(c);
			return false;
		}
	}
	if (c->writing)
		return true;
	if (c->in_len < sizeof(c->in)) {
		ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && c->in_len == 0)
			return true;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			conn_close(c);
			return false;
		}
		if (n > 0) {
			if (c->kept) {
				/* a kept-alive connection's next request: deadline_ms */
				c->kept = false;
				tp_timer_cancel(&c->idle);
				tp_timer_arm(&c->deadline, tp_metrics_limits.deadline_ms);
			}
			c->in_len += (size_t)n;
		}
	}
	r = tp_http_req_parse((const uint8_t *)c->in, c->in_len, &req);
	if (r == 0) {
		if (c->in_len < sizeof(c->in))
			return true; /* more to come, within the deadline */
		/* RFC 6585 5 */
		return respond_error(c, 431, "Request Header Fields Too Large", &s->too_large, NULL,
				     false);
	}
	if (r == -TP_HTTP_E_VERSION)
		return respond_error(c, 505, "HTTP Version Not Supported", &s->bad_version, NULL,
				     false);
	if (r < 0)
		return respond_error(c, 400, "Bad Request", &s->bad_request, NULL, false);
	c->in_len -= (size_t)r;
	memmove(c->in, c->in + r, c->in_len);
	if (!handle(c, &req))
		return false;
	/* one request a call: a pipelined one waits for the loop's next pass (the socket's
	 * writability wakes it), so a client that queues many holds the control thread
	 * for one page at a time */
	if (!c->writing && c->in_len > 0)
		tp_ctl_mod_fd(c->fd, true, true);
	return true;
}

static void conn_event(int fd, void *arg)
{
	struct mconn *c = arg;

	if (c->draining) {
		conn_read(c);
		return;
	}
	if (c->writing && (!conn_flush(c) || c->writing || c->in_len == 0))
		return;
	conn_read(c); /* readable, or a pipelined request waits in c->in */
}

static void listen_readable(int fd, void *arg)
{
	/* a bounded number per pass: the loop has other work */
	for (int budget = 16; budget > 0; budget--) {
		int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct mconn *c;

		if (s < 0)
			return;
		if (n_conns >= tp_metrics_limits.max_conns) {
			tp_metrics_server_stats.refused_full++;
			close(s);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			close(s);
			continue;
		}
		c->fd = s;
		tp_timer_init(&c->deadline, "metrics-deadline", on_deadline, c);
		tp_timer_init(&c->idle, "metrics-idle", on_idle, c);
		if (tp_ctl_add_fd(s, conn_event, c) < 0) {
			close(s);
			free(c);
			continue;
		}
		c->next = conns;
		conns = c;
		n_conns++;
		tp_metrics_server_stats.accepted++;
		/* the first request must arrive within the deadline: an idle client is closed */
		tp_timer_arm(&c->deadline, tp_metrics_limits.deadline_ms);
	}
}

int tp_metrics_listen(const char *addr, char *err, size_t errlen)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	char host[16]; /* "255.255.255.255" */
	const char *colon = strrchr(addr, ':');
	uint32_t ip;
	uint64_t port;
	int one = 1, ret;

	err[0] = '\0';
	if (listen_fd >= 0) {
		snprintf(err, errlen, "already listening on %s ('metrics stop' first)",
			 listen_addr);
		return -EBUSY;
	}
	if (colon == NULL || (size_t)(colon - addr) >= sizeof(host) ||
	    tp_parse_u64(colon + 1, 1, 65535, &port) < 0) {
		snprintf(err, errlen, "'%s': not A.B.C.D:PORT (port 1-65535)", addr);
		return -EINVAL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	if (tp_ip4_parse_addr(host, &ip) < 0) {
		snprintf(err, errlen, "'%s': not an IPv4 address", host);
		return -EINVAL;
	}
	sa.sin_addr.s_addr = htonl(ip);
	sa.sin_port = htons((uint16_t)port);
	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listen_fd < 0)
		return -errno;
	if (setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(listen_fd, 64) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", addr, strerror(-ret));
		close(listen_fd);
		listen_fd = -1;
		return ret;
	}
	if ((ret = tp_ctl_add_fd(listen_fd, listen_readable, NULL)) < 0) {
		close(listen_fd);
		listen_fd = -1;
		return ret;
	}
	snprintf(listen_addr, sizeof(listen_addr), "%s:%u", host, (unsigned int)port);
	TP_LOG(INFO, "metrics on http://%s/metrics", listen_addr);
	return 0;
}

void tp_metrics_stop(void)
{
	while (conns)
		conn_close(conns);
	if (listen_fd < 0)
		return;
	tp_ctl_del_fd(listen_fd);
	close(listen_fd);
	listen_fd = -1;
	listen_addr[0] = '\0';
}

void tp_metrics_server_page(struct tp_metrics *m)
{
	const struct tp_metrics_server_stats *s = &tp_metrics_server_stats;
	static const struct {
		const char *code;
		size_t off;
	} codes[] = {
	    {"200", offsetof(struct tp_metrics_server_stats, scrapes)},
	    {"400", offsetof(struct tp_metrics_server_stats, bad_request)},
	    {"404", offsetof(struct tp_metrics_server_stats, not_found)},
	    {"405", offsetof(struct tp_metrics_server_stats, bad_method)},
	    {"431", offsetof(struct tp_metrics_server_stats, too_large)},
	    {"500", offsetof(struct tp_metrics_server_stats, page_failed)},
	    {"505", offsetof(struct tp_metrics_server_stats, bad_version)},
	};

	tp_metrics_family(m, "twinplane_metrics_clients", "gauge",
			  "Clients of the metrics server now");
	tp_metrics_u64(m, "twinplane_metrics_clients", n_conns, NULL);
	tp_metrics_family(m, "twinplane_metrics_responses_total", "counter",
			  "Answers of the metrics server, by HTTP status (this one not counted)");
	for (size_t i = 0; i < RTE_DIM(codes); i++)
		tp_metrics_u64(m, "twinplane_metrics_responses_total",
			       *(const uint64_t *)((const char *)s + codes[i].off), "code",
			       codes[i].code, NULL);
	tp_metrics_family(m, "twinplane_metrics_closed_total", "counter",
			  "Clients of the metrics server refused or closed, by reason");
	tp_metrics_u64(m, "twinplane_metrics_closed_total", s->refused_full, "reason",
		       "refused_full", NULL);
	tp_metrics_u64(m, "twinplane_metrics_closed_total", s->closed_deadline, "reason",
		       "deadline", NULL);
	tp_metrics_u64(m, "twinplane_metrics_closed_total", s->closed_idle, "reason", "idle", NULL);
	tp_metrics_family(m, "twinplane_metrics_page_bytes", "gauge",
			  "Size of the last page served");
	tp_metrics_u64(m, "twinplane_metrics_page_bytes", s->page_bytes, NULL);
}

/* --- commands --------------------------------------------------------------------- */

static int metrics_listen(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	char err[160];
	int ret;

	if (argc != 1)
		return tp_cmd_err(ctx, EINVAL,
				  "metrics listen: usage: metrics listen A.B.C.D:PORT");
	ret = tp_metrics_listen(argv[0], err, sizeof(err));
	if (ret < 0)
		return tp_cmd_err(ctx, -ret, "metrics listen: %s", err[0] ? err : strerror(-ret));
	return 0;
}

static int metrics_stop(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (listen_fd < 0)
		return tp_cmd_err(ctx, ENOENT, "metrics stop: not listening");
	tp_metrics_stop();
	return 0;
}

static int set_metrics(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_metrics_limits l = tp_metrics_limits;
	uint64_t v;

	if (argc == 0 || argc % 2)
		return tp_cmd_err(ctx, EINVAL,
				  "set metrics: usage: set metrics [deadline MS] [idle S] "
				  "[max-clients N]");
	for (int i = 0; i < argc; i += 2) {
		if (strcmp(argv[i], "deadline") == 0 &&
		    tp_parse_u64(argv[i + 1], 10, 600000, &v) == 0)
			l.deadline_ms = (unsigned int)v;
		else if (strcmp(argv[i], "idle") == 0 &&
			 tp_parse_u64(argv[i + 1], 1, 86400, &v) == 0)
			l.idle_ms = (unsigned int)v * 1000;
		else if (strcmp(argv[i], "max-clients") == 0 &&
			 tp_parse_u64(argv[i + 1], 1, 256, &v) == 0)
			l.max_conns = (unsigned int)v;
		else
			return tp_cmd_err(ctx, EINVAL,
					  "set metrics: bad '%s %s' (deadline 10-600000 ms, idle "
					  "1-86400 s, max-clients 1-256)",
					  argv[i], argv[i + 1]);
	}
	tp_metrics_limits = l;
	return 0;
}

static int show_metrics(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	const struct tp_metrics_server_stats *s = &tp_metrics_server_stats;

	tp_out_str(ctx->out, "listen", listen_addr);
	tp_out_u64(ctx->out, "clients", n_conns);
	tp_out_u64(ctx->out, "max_clients", tp_metrics_limits.max_conns);
	tp_out_u64(ctx->out, "deadline_ms", tp_metrics_limits.deadline_ms);
	tp_out_u64(ctx->out, "idle_s", tp_metrics_limits.idle_ms / 1000);
	tp_out_u64(ctx->out, "accepted", s->accepted);
	tp_out_u64(ctx->out, "scrapes", s->scrapes);
	tp_out_u64(ctx->out, "page_bytes", s->page_bytes);
	tp_out_u64(ctx->out, "bad_request", s->bad_request);
	tp_out_u64(ctx->out, "not_found", s->not_found);
	tp_out_u64(ctx->out, "bad_method", s->bad_method);
	tp_out_u64(ctx->out, "header_too_large", s->too_large);
	tp_out_u64(ctx->out, "bad_version", s->bad_version);
	tp_out_u64(ctx->out, "page_failed", s->page_failed);
	tp_out_u64(ctx->out, "refused_full", s->refused_full);
	tp_out_u64(ctx->out, "closed_deadline", s->closed_deadline);
	tp_out_u64(ctx->out, "closed_idle", s->closed_idle);
	return 0;
}

static struct tp_cmd c_metrics_listen = {
    "metrics listen", "A.B.C.D:PORT",
    "serve the Prometheus metrics page on http://A.B.C.D:PORT/metrics", metrics_listen, NULL};
static struct tp_cmd c_metrics_stop = {"metrics stop", NULL, "stop serving the metrics page",
				       metrics_stop, NULL};
static struct tp_cmd c_set_metrics = {"set metrics", "[deadline MS] [idle S] [max-clients N]",
				      "limits of the metrics server", set_metrics, NULL};
static struct tp_cmd c_show_metrics = {"show metrics", NULL, "the metrics server", show_metrics,
				       NULL};
TP_CMD_REGISTER(c_metrics_listen)
TP_CMD_REGISTER(c_metrics_stop)
TP_CMD_REGISTER(c_set_metrics)
TP_CMD_REGISTER(c_show_metrics)
