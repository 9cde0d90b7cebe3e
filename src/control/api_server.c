/* SPDX-License-Identifier: BSD-3-Clause */
/* Unix-socket API server: non-blocking, one state machine per connection (read the
 * header, read the words, run the command, write the answer), so a slow or
 * half-written client never holds the control loop. A request must arrive within
 * the request deadline of its first byte, and its answer be taken within the
 * deadline of its first byte (a command's own run time is not counted: a long one
 * returns TP_CMD_PENDING and answers later); a connection with no request for the
 * idle timeout is closed; at most max_conns clients at a time. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../api/api.h"
#include "../core/log.h"
#include "api_server.h"
#include "cmd.h"
#include "control.h"
#include "timer.h"

enum conn_state { C_HDR, C_BODY, C_EXEC, C_WRITE };

struct conn {
	int fd;
	enum conn_state st;
	struct tp_api_hdr h;
	size_t got; /* bytes of the header or body read so far */
	char *body;
	char *out; /* the answer: header and body */
	size_t out_len, out_off;
	bool close_after;	/* a framing error: answer, then close */
	struct tp_cmd_ctx *ctx; /* while C_EXEC */
	struct tp_timer deadline, idle;
	struct conn *next;
};

static int listen_fd = -1;
static char sock_path[108];
static struct conn *conns;
static unsigned int n_conns;
static gid_t api_gid = (gid_t)-1;
struct tp_api_limits tp_api_limits = {
    .max_conns = 64,
    .deadline_ms = 5000,
    .idle_ms = 600000,
};
struct tp_api_stats tp_api_stats;

static void conn_close(struct conn *c)
{
	for (struct conn **pp = &conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	n_conns--;
	tp_timer_cancel(&c->deadline);
	tp_timer_cancel(&c->idle);
	tp_ctl_del_fd(c->fd);
	close(c->fd);
	if (c->ctx)
		c->ctx->owner = NULL; /* the pending command frees it when it finishes */
	free(c->body);
	free(c->out);
	free(c);
}

static void on_deadline(struct tp_timer *t)
{
	struct conn *c = t->arg;

	tp_api_stats.deadline_closed++;
	conn_close(c);
}

static void on_idle(struct tp_timer *t)
{
	struct conn *c = t->arg;

	tp_api_stats.idle_closed++;
	conn_close(c);
}

/* Back to waiting for a request. */
static void conn_rest(struct conn *c)
{
	c->st = C_HDR;
	c->got = 0;
	free(c->body);
	c->body = NULL;
	tp_timer_cancel(&c->deadline);
	tp_timer_arm(&c->idle, tp_api_limits.idle_ms);
	tp_ctl_mod_fd(c->fd, true, false);
}

/* Write what is left of the answer; false when the connection was closed. */
static bool conn_flush(struct conn *c)
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
	if (c->close_after) {
		conn_close(c);
		return false;
	}
	conn_rest(c);
	return true;
}

/* Queue the answer to the current request and start writing it. */
static bool respond(struct conn *c, int status, const char *body)
{
	size_t len = body ? strlen(body) : 0;
	struct tp_api_hdr h = {
	    .version = TP_API_VERSION,
	    .type = c->h.type,
	    .id = c->h.id,
	    .status = status,
	    .len = (uint32_t)len,
	};

	free(c->out);
	c->out = malloc(sizeof(h) + len);
	if (c->out == NULL) {
		conn_close(c);
		return false;
	}
	memcpy(c->out, &h, sizeof(h));
	if (len)
		memcpy(c->out + sizeof(h), body, len);
	c->out_len = sizeof(h) + len;
	c->out_off = 0;
	c->st = C_WRITE;
	/* the client has deadline_ms to take the answer */
	tp_timer_arm(&c->deadline, tp_api_limits.deadline_ms);
	return conn_flush(c);
}

static bool respond_ctx(struct conn *c, struct tp_cmd_ctx *ctx, int ret)
{
	char *body;
	bool ok;

	if (ret < 0)
		return respond(c, ret, ctx->err);
	body = tp_out_render(ctx->out, c->h.type == TP_API_CMD_JSON);
	ok = respond(c, body ? 0 : -ENOMEM, body ? body : "out of memory");
	free(body);
	return ok;
}

static void ctx_free(struct tp_cmd_ctx *ctx)
{
	tp_out_free(ctx->out);
	free(ctx);
}

/* A pending command finished. */
static void exec_done(struct tp_cmd_ctx *ctx, int ret)
{
	struct conn *c = ctx->owner;

	if (c != NULL) {
		c->ctx = NULL;
		respond_ctx(c, ctx, ret);
	}
	ctx_free(ctx);
}

static bool dispatch(struct conn *c)
{
	char *argv[64];
	int argc = 0, ret;
	struct tp_cmd_ctx *ctx;

	tp_api_stats.requests++;
	if (c->h.type != TP_API_CMD_TEXT && c->h.type != TP_API_CMD_JSON)
		return respond(c, -EOPNOTSUPP, "unknown request type (1: text, 2: json)");
	/* the words, each NUL-terminated */
	for (uint32_t off = 0; off < c->h.len; off += (uint32_t)strlen(c->body + off) + 1) {
		if (argc == (int)RTE_DIM(argv))
			return respond(c, -E2BIG, "too many words");
		argv[argc++] = c->body + off;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL || (ctx->out = tp_out_new()) == NULL) {
		free(ctx);
		return respond(c, -ENOMEM, "out of memory");
	}
	ctx->done = exec_done;
	ctx->owner = c;
	/* the request is in: how long the command takes is not the client's doing */
	tp_timer_cancel(&c->deadline);
	ret = tp_cmd_exec(ctx, argc, argv);
	if (ret == TP_CMD_PENDING) {
		/* no more reading until it is answered */
		c->st = C_EXEC;
		c->ctx = ctx;
		tp_ctl_mod_fd(c->fd, false, false);
		return true;
	}
	bool ok = respond_ctx(c, ctx, ret);
	ctx_free(ctx);
	return ok;
}

/* Read what is there; advance through header and body. False when closed. */
static bool conn_read(struct conn *c)
{
	for (;;) {
		void *dst;
		size_t want;

		if (c->st == C_HDR) {
			dst = (uint8_t *)&c->h + c->got;
			want = sizeof(c->h) - c->got;
		} else if (c->st == C_BODY) {
			dst = c->body + c->got;
			want = c->h.len - c->got;
		} else {
			return true;
		}
		ssize_t n = want ? recv(c->fd, dst, want, MSG_DONTWAIT) : 0;
		if (want && n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (want && n <= 0) {
			conn_close(c);
			return false;
		}
		if (c->got == 0 && c->st == C_HDR) {
			/* the first byte of a request: it has deadline_ms to arrive and be answered
			 */
			tp_timer_cancel(&c->idle);
			tp_timer_arm(&c->deadline, tp_api_limits.deadline_ms);
		}
		c->got += (size_t)n;
		if (c->st == C_HDR && c->got == sizeof(c->h)) {
			if (c->h.version != TP_API_VERSION) {
				c->close_after = true;
				return respond(c, -EPROTONOSUPPORT,
					       "unsupported API version (this daemon speaks 1)");
			}
			if (c->h.len > TP_API_MAX_PAYLOAD) {
				c->close_after = true;
				return respond(c, -EMSGSIZE, "request too large");
			}
			c->body = malloc(c->h.len + 1);
			if (c->body == NULL) {
				conn_close(c);
				return false;
			}
			c->st = C_BODY;
			c->got = 0;
		}
		if (c->st == C_BODY && c->got == c->h.len) {
			c->body[c->h.len] = '\0';
			if (!dispatch(c))
				return false;
			if (c->st != C_HDR)
				return true; /* writing or executing: read again later */
		}
	}
}

static void conn_event(int fd, void *arg)
{
	struct conn *c = arg;

	if (c->st == C_WRITE)
		conn_flush(c);
	else if (c->st == C_HDR || c->st == C_BODY)
		conn_read(c);
}

/* root, our own user, or a member of the API group */
static bool peer_allowed(int fd, uid_t *uid_out)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	gid_t groups[256];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	*uid_out = cr.uid;
	if (cr.uid == 0 || cr.uid == geteuid())
		return true;
	if (api_gid == (gid_t)-1)
		return false;
	if (cr.gid == api_gid)
		return true;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0)
		for (size_t i = 0; i < len / sizeof(gid_t); i++)
			if (groups[i] == api_gid)
				return true;
	return false;
}

static void listen_readable(int fd, void *arg)
{
	/* a bounded number per pass: the loop has other work */
	for (int budget = 16; budget > 0; budget--) {
		int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		uid_t uid = (uid_t)-1;
		struct conn *c;

		if (s < 0)
			return;
		if (!peer_allowed(s, &uid)) {
			tp_api_stats.refused_peer++;
			TP_LOG(WARNING,
			       "API: refused a client of uid %d (root, our user or the "
			       "socket's group only)",
			       (int)uid);
			close(s);
			continue;
		}
		if (n_conns >= tp_api_limits.max_conns) {
			tp_api_stats.refused_full++;
			close(s);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			close(s);
			continue;
		}
		c->fd = s;
		tp_timer_init(&c->deadline, "api-deadline", on_deadline, c);
		tp_timer_init(&c->idle, "api-idle", on_idle, c);
		if (tp_ctl_add_fd(s, conn_event, c) < 0) {
			close(s);
			free(c);
			continue;
		}
		c->next = conns;
		conns = c;
		n_conns++;
		tp_api_stats.accepted++;
		tp_timer_arm(&c->idle, tp_api_limits.idle_ms);
	}
}

/* Make way for the socket at path: nothing there, or a stale socket we may remove.
 * 0 or negative errno with err saying why not. */
static int clear_path(const char *path, bool may_remove_stale, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, ret;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket; not removing it", path);
		return -EEXIST;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (ret == 0) {
		snprintf(err, errlen, "%s: another process is listening on it", path);
		return -EADDRINUSE;
	}
	if (!may_remove_stale) {
		snprintf(err, errlen,
			 "%s: a socket nobody listens on, but not one this instance made; "
			 "remove it yourself or choose another --socket",
			 path);
		return -EEXIST;
	}
	return unlink(path) < 0 ? -errno : 0;
}

int tp_api_init(const char *path, const struct tp_api_opts *o, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[sizeof(sa.sun_path)];
	char *slash;
	mode_t old_mask;
	int ret;

	err[0] = '\0';
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "socket path too long (%zu bytes at most)",
			 sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	api_gid = o->gid;
	strcpy(sa.sun_path, path);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	if ((ret = clear_path(path, o->may_remove_stale, err, errlen)) < 0)
		return ret;
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listen_fd < 0)
		return -errno;
	/* created 0660 whatever the umask: no moment with wider permissions */
	old_mask = umask(0117);
	ret = bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old_mask);
	if (ret < 0 || chmod(path, 0660) < 0 ||
	    (api_gid != (gid_t)-1 && chown(path, (uid_t)-1, api_gid) < 0) ||
	    listen(listen_fd, 64) < 0) {
		ret = -errno;
		close(listen_fd);
		listen_fd = -1;
		return ret;
	}
	strcpy(sock_path, path);
	return tp_ctl_add_fd(listen_fd, listen_readable, NULL);
}

void tp_api_fini(void)
{
	while (conns)
		conn_close(conns);
	if (listen_fd < 0)
		return;
	tp_ctl_del_fd(listen_fd);
	close(listen_fd);
	unlink(sock_path);
	listen_fd = -1;
}

int tp_api_socket_gid(void)
{
	return api_gid == (gid_t)-1 ? -1 : (int)api_gid;
}

unsigned int tp_api_conns(void)
{
	return n_conns;
}
