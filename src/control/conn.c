/* SPDX-License-Identifier: BSD-3-Clause */
/* Connections of the control plane's stream servers: see conn.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"
#include "control.h"

#define ACCEPT_BUDGET 16 /* connections accepted per pass: the loop has other work */

void tp_conn_close(struct tp_conn *c)
{
	struct tp_conn_server *srv = c->srv;

	for (struct tp_conn **pp = &srv->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	srv->n_conns--;
	tp_timer_cancel(&c->deadline);
	tp_timer_cancel(&c->idle);
	tp_ctl_del_fd(c->fd);
	close(c->fd);
	if (srv->release)
		srv->release(c);
	free(c->out);
	free(c);
}

static void on_deadline(struct tp_timer *t)
{
	struct tp_conn *c = t->arg;

	if (c->srv->deadline) {
		c->srv->deadline(c);
		return;
	}
	c->srv->stats->closed_deadline++;
	tp_conn_close(c);
}

static void on_idle(struct tp_timer *t)
{
	struct tp_conn *c = t->arg;

	c->srv->stats->closed_idle++;
	tp_conn_close(c);
}

static void conn_event(int fd, void *arg)
{
	struct tp_conn *c = arg;

	c->srv->event(c);
}

static void listen_readable(int fd, void *arg)
{
	struct tp_conn_server *srv = arg;

	for (int budget = ACCEPT_BUDGET; budget > 0; budget--) {
		int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct tp_conn *c;

		if (s < 0)
			return;
		if (srv->admit && !srv->admit(s)) {
			close(s);
			continue;
		}
		if (srv->n_conns >= srv->limits->max_conns) {
			srv->stats->refused_full++;
			close(s);
			continue;
		}
		c = calloc(1, srv->conn_size);
		if (c == NULL) {
			close(s);
			continue;
		}
		c->fd = s;
		c->srv = srv;
		tp_timer_init(&c->deadline, srv->timer_names[0], on_deadline, c);
		tp_timer_init(&c->idle, srv->timer_names[1], on_idle, c);
		if (tp_ctl_add_fd(s, conn_event, c) < 0) {
			close(s);
			free(c);
			continue;
		}
		c->next = srv->conns;
		srv->conns = c;
		srv->n_conns++;
		srv->stats->accepted++;
		srv->accepted(c);
	}
}

int tp_conn_listen(struct tp_conn_server *srv, int listen_fd)
{
	snprintf(srv->timer_names[0], sizeof(srv->timer_names[0]), "%s-deadline", srv->name);
	snprintf(srv->timer_names[1], sizeof(srv->timer_names[1]), "%s-idle", srv->name);
	return tp_ctl_add_fd(listen_fd, listen_readable, srv);
}

void tp_conn_close_all(struct tp_conn_server *srv, int listen_fd)
{
	while (srv->conns)
		tp_conn_close(srv->conns);
	if (listen_fd < 0)
		return;
	tp_ctl_del_fd(listen_fd);
	close(listen_fd);
}

int tp_conn_flush(struct tp_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			tp_ctl_mod_fd(c->fd, false, true);
			return 0;
		}
		if (n <= 0) {
			tp_conn_close(c);
			return -1;
		}
		c->out_off += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	return 1;
}

int tp_conn_send(struct tp_conn *c, char *buf, size_t len)
{
	free(c->out);
	c->out = buf;
	c->out_len = len;
	c->out_off = 0;
	/* the client has deadline_ms to take the answer */
	tp_timer_cancel(&c->idle);
	tp_timer_arm(&c->deadline, c->srv->limits->deadline_ms);
	return tp_conn_flush(c);
}

int tp_conn_limits_set(struct tp_cmd_ctx *ctx, struct tp_conn_server *srv, int argc, char **argv)
{
	struct tp_conn_limits l = *srv->limits;
	uint64_t v;

	if (argc == 0 || argc % 2)
		return tp_cmd_err(ctx, EINVAL,
				  "set %s: usage: set %s [deadline MS] [idle S] [max-clients N]",
				  srv->name, srv->name);
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
					  "set %s: bad '%s %s' (deadline 10-600000 ms, idle "
					  "1-86400 s, max-clients 1-256)",
					  srv->name, argv[i], argv[i + 1]);
	}
	*srv->limits = l;
	return 0;
}

void tp_conn_show(struct tp_cmd_ctx *ctx, const struct tp_conn_server *srv)
{
	tp_out_u64(ctx->out, "clients", srv->n_conns);
	tp_out_u64(ctx->out, "max_clients", srv->limits->max_conns);
	tp_out_u64(ctx->out, "deadline_ms", srv->limits->deadline_ms);
	tp_out_u64(ctx->out, "idle_s", srv->limits->idle_ms / 1000);
	tp_out_u64(ctx->out, "accepted", srv->stats->accepted);
	tp_out_u64(ctx->out, "refused_full", srv->stats->refused_full);
	tp_out_u64(ctx->out, "closed_deadline", srv->stats->closed_deadline);
	tp_out_u64(ctx->out, "closed_idle", srv->stats->closed_idle);
}
