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
#include "conn.h"
#include "control.h"
#include "metrics.h"
#include "metrics_server.h"
#include "timer.h"

struct mconn {
	struct tp_conn base; /* first: conn.h's table */
	bool writing;
	bool close_after;
	bool kept;     /* kept alive, waiting for its next request (the idle timer runs) */
	bool draining; /* answered, closing: what the client still sends is read away */
	size_t in_len;
	char in[TP_METRICS_HDR_MAX];
};

static int listen_fd = -1;
static char listen_addr[48];
struct tp_conn_limits tp_metrics_limits = {
    .max_conns = 16,
    .deadline_ms = 5000,
    .idle_ms = 120000, /* Prometheus keeps its connection between scrapes */
};
struct tp_metrics_server_stats tp_metrics_server_stats;

static void conn_event(struct tp_conn *tc);
static void conn_accepted(struct tp_conn *tc);
static void conn_deadline(struct tp_conn *tc);

static struct tp_conn_server server = {
    .name = "metrics",
    .conn_size = sizeof(struct mconn),
    .limits = &tp_metrics_limits,
    .stats = &tp_metrics_server_stats.conn,
    .event = conn_event,
    .accepted = conn_accepted,
    .deadline = conn_deadline,
};

static void conn_deadline(struct tp_conn *tc)
{
	if (!((struct mconn *)tc)->draining)
		tp_metrics_server_stats.conn.closed_deadline++;
	tp_conn_close(tc);
}

static void conn_accepted(struct tp_conn *tc)
{
	/* the first request must arrive within the deadline: an idle client is closed */
	tp_timer_arm(&tc->deadline, tp_metrics_limits.deadline_ms);
}

/* The answer is sent and the connection ends: close our side for writing and read away
 * what the client still sends until it closes too (or the linger ends). Closing with
 * unread input would reset the connection, and the client could lose the answer
 * (RFC 9112 9.6). */
static bool conn_linger(struct mconn *c)
{
	c->draining = true;
	c->in_len = 0;
	shutdown(c->base.fd, SHUT_WR);
	tp_timer_cancel(&c->base.deadline);
	tp_timer_arm(&c->base.deadline,
		     RTE_MIN(tp_metrics_limits.deadline_ms, TP_METRICS_LINGER_MS));
	tp_ctl_mod_fd(c->base.fd, true, false);
	return false;
}

/* The answer went out as far as it could (sent: tp_conn_send's or tp_conn_flush's
 * result); false when the connection was closed or is closing. */
static bool conn_sent(struct mconn *c, int sent)
{
	if (sent <= 0)
		return sent == 0;
	if (c->close_after)
		return conn_linger(c);
	/* kept alive: the next request, maybe here already (pipelined: the caller reads
	 * it), with deadline_ms from its first byte */
	c->writing = false;
	tp_timer_cancel(&c->base.deadline);
	tp_ctl_mod_fd(c->base.fd, true, false);
	if (c->in_len > 0) {
		tp_timer_arm(&c->base.deadline, tp_metrics_limits.deadline_ms);
	} else {
		c->kept = true;
		tp_timer_arm(&c->base.idle, tp_metrics_limits.idle_ms);
	}
	return true;
}

/* Answer with status and body (len bytes, or the page's), the head saying so; the
 * connection closes after it unless keep_alive. Takes body when it is the page's. */
static bool respond(struct mconn *c, int status, const char *reason, const char *extra, char *body,
		    size_t len, bool owned, bool head_only, bool keep_alive)
{
	char h[256], *out;
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
	out = malloc((size_t)hl + (head_only ? 0 : len));
	if (out == NULL) {
		if (owned)
			free(body);
		tp_conn_close(&c->base);
		return false;
	}
	memcpy(out, h, (size_t)hl);
	if (!head_only)
		memcpy(out + hl, body, len);
	if (owned)
		free(body);
	c->writing = true;
	return conn_sent(c, tp_conn_send(&c->base, out, (size_t)hl + (head_only ? 0 : len)));
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
		ssize_t n = recv(c->base.fd, c->in, sizeof(c->in), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (n <= 0) {
			tp_conn_close(&c->base);
			return false;
		}
	}
	if (c->writing)
		return true;
	if (c->in_len < sizeof(c->in)) {
		ssize_t n =
		    recv(c->base.fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && c->in_len == 0)
			return true;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			tp_conn_close(&c->base);
			return false;
		}
		if (n > 0) {
			if (c->kept) {
				/* a kept-alive connection's next request: deadline_ms */
				c->kept = false;
				tp_timer_cancel(&c->base.idle);
				tp_timer_arm(&c->base.deadline, tp_metrics_limits.deadline_ms);
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
		tp_ctl_mod_fd(c->base.fd, true, true);
	return true;
}

static void conn_event(struct tp_conn *tc)
{
	struct mconn *c = (struct mconn *)tc;

	if (c->draining) {
		conn_read(c);
		return;
	}
	if (c->writing && (!conn_sent(c, tp_conn_flush(tc)) || c->writing || c->in_len == 0))
		return;
	conn_read(c); /* readable, or a pipelined request waits in c->in */
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
	if ((ret = tp_conn_listen(&server, listen_fd)) < 0) {
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
	tp_conn_close_all(&server, listen_fd);
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
	tp_metrics_u64(m, "twinplane_metrics_clients", server.n_conns, NULL);
	tp_metrics_family(m, "twinplane_metrics_responses_total", "counter",
			  "Answers of the metrics server, by HTTP status (this one not counted)");
	for (size_t i = 0; i < RTE_DIM(codes); i++)
		tp_metrics_u64(m, "twinplane_metrics_responses_total",
			       *(const uint64_t *)((const char *)s + codes[i].off), "code",
			       codes[i].code, NULL);
	tp_metrics_family(m, "twinplane_metrics_closed_total", "counter",
			  "Clients of the metrics server refused or closed, by reason");
	tp_metrics_u64(m, "twinplane_metrics_closed_total", s->conn.refused_full, "reason",
		       "refused_full", NULL);
	tp_metrics_u64(m, "twinplane_metrics_closed_total", s->conn.closed_deadline, "reason",
		       "deadline", NULL);
	tp_metrics_u64(m, "twinplane_metrics_closed_total", s->conn.closed_idle, "reason", "idle",
		       NULL);
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
	return tp_conn_limits_set(ctx, &server, argc, argv);
}

static int show_metrics(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	const struct tp_metrics_server_stats *s = &tp_metrics_server_stats;

	tp_out_str(ctx->out, "listen", listen_addr);
	tp_conn_show(ctx, &server);
	tp_out_u64(ctx->out, "scrapes", s->scrapes);
	tp_out_u64(ctx->out, "page_bytes", s->page_bytes);
	tp_out_u64(ctx->out, "bad_request", s->bad_request);
	tp_out_u64(ctx->out, "not_found", s->not_found);
	tp_out_u64(ctx->out, "bad_method", s->bad_method);
	tp_out_u64(ctx->out, "header_too_large", s->too_large);
	tp_out_u64(ctx->out, "bad_version", s->bad_version);
	tp_out_u64(ctx->out, "page_failed", s->page_failed);
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
