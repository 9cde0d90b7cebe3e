/* SPDX-License-Identifier: BSD-3-Clause */
/* Connections of the control plane's stream servers (the API socket, the metrics
 * page): what every such server needs so that no client can hold the control loop.
 * A listening socket accepts a bounded number per pass and at most max_conns
 * clients; each connection has a deadline timer and an idle timer; an answer is
 * written without blocking, the rest when the socket is writable again; `set NAME`
 * and `show NAME` commands share one parser and one set of keys.
 *
 * A server embeds struct tp_conn as the first member of its own connection and
 * fills a struct tp_conn_server saying how big that is and what to do on events. */
#ifndef TP_CONTROL_CONN_H
#define TP_CONTROL_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timer.h"

struct tp_cmd_ctx;

struct tp_conn_limits {
	unsigned int max_conns;	  /* clients at a time; more are closed at once */
	unsigned int deadline_ms; /* to receive a request, and to send its answer */
	unsigned int idle_ms;	  /* a connection with no request for this long is closed */
};

struct tp_conn_stats {
	uint64_t accepted, refused_full, closed_deadline, closed_idle;
};

struct tp_conn;

struct tp_conn_server {
	const char *name; /* "api", "metrics": the commands' and timers' name */
	size_t conn_size; /* of the server's connection, struct tp_conn first */
	struct tp_conn_limits *limits;
	struct tp_conn_stats *stats;
	/* May the peer on fd connect? NULL: anyone. Counts its own refusals. */
	bool (*admit)(int fd);
	/* The connection's socket is ready (readable or writable, as asked). */
	void (*event)(struct tp_conn *c);
	/* Just accepted: arm the timer that applies (API: idle, metrics: deadline). */
	void (*accepted)(struct tp_conn *c);
	/* The deadline passed; NULL: closed and counted in closed_deadline. */
	void (*deadline)(struct tp_conn *c);
	/* Free what the server hangs on the connection, just before it is freed. */
	void (*release)(struct tp_conn *c);
	/* the table */
	struct tp_conn *conns;
	unsigned int n_conns;
	char timer_names[2][24];
};

struct tp_conn {
	int fd;
	struct tp_conn_server *srv;
	char *out; /* an answer being sent: out[out_off, out_len) */
	size_t out_len, out_off;
	struct tp_timer deadline, idle;
	struct tp_conn *next;
};

/* Accept on listen_fd for srv: add the socket to the control loop. 0 or negative
 * errno. */
int tp_conn_listen(struct tp_conn_server *srv, int listen_fd);
/* Close a connection: its timers, its socket, its memory (release first). */
void tp_conn_close(struct tp_conn *c);
/* Close every connection of srv and stop accepting on listen_fd (closed too). */
void tp_conn_close_all(struct tp_conn_server *srv, int listen_fd);
/* Send buf[0, len) (taken: freed when sent or closed); the client has deadline_ms
 * to take it. 1: all sent, 0: the rest waits for writability (the event callback
 * calls tp_conn_flush), -1: the connection was closed. */
int tp_conn_send(struct tp_conn *c, char *buf, size_t len);
/* Send what is left; as tp_conn_send. */
int tp_conn_flush(struct tp_conn *c);
/* True while an answer is not all sent. */
static inline bool tp_conn_sending(const struct tp_conn *c)
{
	return c->out != NULL;
}

/* `set NAME [deadline MS] [idle S] [max-clients N]` for srv's limits. */
int tp_conn_limits_set(struct tp_cmd_ctx *ctx, struct tp_conn_server *srv, int argc, char **argv);
/* The limits and connection counts of srv, for `show NAME`. */
void tp_conn_show(struct tp_cmd_ctx *ctx, const struct tp_conn_server *srv);

#endif
