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
#include "conn.h"
#include "control.h"
#include "timer.h"

enum conn_state { C_HDR, C_BODY, C_EXEC, C_WRITE };

struct conn {
	struct tp_conn base; /* first: conn.h's table */
	enum conn_state st;
	struct tp_api_hdr h;
	size_t got; /* bytes of the header or body read so far */
	char *body;
	bool close_after;	/* a framing error: answer, then close */
	struct tp_cmd_ctx *ctx; /* while C_EXEC */
};

static int listen_fd = -1;
static char sock_path[108];
static gid_t api_gid = (gid_t)-1;
struct tp_conn_limits tp_api_limits = {
    .max_conns = 64,
    .deadline_ms = 5000,
    .idle_ms = 600000,
};
struct tp_api_stats tp_api_stats;

static bool peer_allowed(int fd);
static void conn_event(struct tp_conn *tc);
static void conn_accepted(struct tp_conn *tc);
static void conn_release(struct tp_conn *tc);

struct tp_conn_server tp_api_server = {
    .name = "api",
    .conn_size = sizeof(struct conn),
    .limits = &tp_api_limits,
    .stats = &tp_api_stats.conn,
    .admit = peer_allowed,
    .event = conn_event,
    .accepted = conn_accepted,
    .release = conn_release,
};

static void conn_release(struct tp_conn *tc)
{
	struct conn *c = (struct conn *)tc;

	if (c->ctx)
		c->ctx->owner = NULL; /* the pending command frees it when it finishes */
	free(c->body);
}

static void conn_accepted(struct tp_conn *tc)
{
	tp_timer_arm(&tc->idle, tp_api_limits.idle_ms);
}

/* Back to waiting for a request. */
static void conn_rest(struct conn *c)
{
	c->st = C_HDR;
	c->got = 0;
	free(c->body);
	c->body = NULL;
	tp_timer_cancel(&c->base.deadline);
	tp_timer_arm(&c->base.idle, tp_api_limits.idle_ms);
	tp_ctl_mod_fd(c->base.fd, true, false);
}

/* The answer went out (sent is tp_conn_send's or tp_conn_flush's result): close
 * after a framing error, else wait for the next request. False when closed. */
static bool conn_sent(struct conn *c, int sent)
{
	if (sent < 0)
		return false;
	if (sent == 0)
		return true;
	if (c->close_after) {
		tp_conn_close(&c->base);
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
	char *out = malloc(sizeof(h) + len);

	if (out == NULL) {
		tp_conn_close(&c->base);
		return false;
	}
	memcpy(out, &h, sizeof(h));
	if (len)
		memcpy(out + sizeof(h), body, len);
	c->st = C_WRITE;
	return conn_sent(c, tp_conn_send(&c->base, out, sizeof(h) + len));
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
	tp_timer_cancel(&c->base.deadline);
	ret = tp_cmd_exec(ctx, argc, argv);
	if (ret == TP_CMD_PENDING) {
		/* no more reading until it is answered */
		c->st = C_EXEC;
		c->ctx = ctx;
		tp_ctl_mod_fd(c->base.fd, false, false);
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
		ssize_t n = want ? recv(c->base.fd, dst, want, MSG_DONTWAIT) : 0;
		if (want && n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (want && n <= 0) {
			tp_conn_close(&c->base);
			return false;
		}
		if (c->got == 0 && c->st == C_HDR) {
			/* the first byte of a request: it has deadline_ms to arrive and be answered
			 */
			tp_timer_cancel(&c->base.idle);
			tp_timer_arm(&c->base.deadline, tp_api_limits.deadline_ms);
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
				tp_conn_close(&c->base);
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

static void conn_event(struct tp_conn *tc)
{
	struct conn *c = (struct conn *)tc;

	if (c->st == C_WRITE)
		conn_sent(c, tp_conn_flush(tc));
	else if (c->st == C_HDR || c->st == C_BODY)
		conn_read(c);
}

/* root, our own user, or a member of the API group */
static bool peer_ok(int fd, uid_t *uid_out)
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

/* conn.h's admit: peer_ok, the refusals counted and logged */
static bool peer_allowed(int fd)
{
	uid_t uid = (uid_t)-1;

	if (peer_ok(fd, &uid))
		return true;
	tp_api_stats.refused_peer++;
	TP_LOG(WARNING,
	       "API: refused a client of uid %d (root, our user or the socket's group only)",
	       (int)uid);
	return false;
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
	return tp_conn_listen(&tp_api_server, listen_fd);
}

void tp_api_fini(void)
{
	tp_conn_close_all(&tp_api_server, listen_fd);
	if (listen_fd < 0)
		return;
	unlink(sock_path);
	listen_fd = -1;
}

int tp_api_socket_gid(void)
{
	return api_gid == (gid_t)-1 ? -1 : (int)api_gid;
}

unsigned int tp_api_conns(void)
{
	return tp_api_server.n_conns;
}
