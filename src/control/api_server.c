/* SPDX-License-Identifier: BSD-3-Clause */
/* Unix-socket API server: framing, version check, dispatch, response. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../api/api.h"
#include "../api/io.h"
#include "../core/log.h"
#include "api_server.h"
#include "cmd.h"
#include "control.h"

static int listen_fd = -1;
static char sock_path[108];

static void respond(int fd, const struct tp_api_hdr *req, int status, const char *body)
{
	struct tp_api_hdr h = {
		.version = TP_API_VERSION,
		.type = req->type,
		.id = req->id,
		.status = status,
		.len = body ? (uint32_t)strlen(body) : 0,
	};
	if (tp_api_full_io(fd, &h, sizeof(h), 0) == 0 && h.len)
		tp_api_full_io(fd, (void *)(uintptr_t)body, h.len, 0);
}

static void client_close(int fd)
{
	tp_ctl_del_fd(fd);
	close(fd);
}

static void client_readable(int fd, void *arg)
{
	struct tp_api_hdr h;
	struct tp_cmd_ctx ctx = {0};
	char *payload = NULL, *argv[64], *body = NULL;
	int argc = 0, ret;

	if (tp_api_full_io(fd, &h, sizeof(h), 1) < 0) {
		client_close(fd);
		return;
	}
	if (h.version != TP_API_VERSION) {
		respond(fd, &h, -EPROTONOSUPPORT, "unsupported API version (this daemon speaks 1)");
		client_close(fd);
		return;
	}
	if (h.len > TP_API_MAX_PAYLOAD) {
		respond(fd, &h, -EMSGSIZE, "request too large");
		client_close(fd);
		return;
	}
	payload = malloc(h.len + 1);
	if (payload == NULL || tp_api_full_io(fd, payload, h.len, 1) < 0) {
		free(payload);
		client_close(fd);
		return;
	}
	payload[h.len] = '\0';
	if (h.type != TP_API_CMD_TEXT && h.type != TP_API_CMD_JSON) {
		respond(fd, &h, -EOPNOTSUPP, "unknown request type (1: text, 2: json)");
		goto out;
	}
	/* the words, each NUL-terminated */
	for (uint32_t off = 0; off < h.len; off += (uint32_t)strlen(payload + off) + 1) {
		if (argc == (int)RTE_DIM(argv)) {
			respond(fd, &h, -E2BIG, "too many words");
			goto out;
		}
		argv[argc++] = payload + off;
	}
	ctx.out = tp_out_new();
	if (ctx.out == NULL) {
		respond(fd, &h, -ENOMEM, "out of memory");
		goto out;
	}
	ret = tp_cmd_exec(&ctx, argc, argv);
	if (ret < 0) {
		respond(fd, &h, ret, ctx.err);
	} else {
		body = tp_out_render(ctx.out, h.type == TP_API_CMD_JSON);
		respond(fd, &h, body ? 0 : -ENOMEM, body ? body : "out of memory");
	}
out:
	free(body);
	tp_out_free(ctx.out);
	free(payload);
}

static void listen_readable(int fd, void *arg)
{
	struct timeval tv = {.tv_sec = 2};
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return;
	/* a stuck client must not stall the control plane for long */
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (tp_ctl_add_fd(c, client_readable, NULL) < 0)
		close(c);
}

int tp_api_init(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[sizeof(sa.sun_path)];
	char *slash;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listen_fd < 0)
		return -errno;
	unlink(path); /* the instance lock (main.c) guarantees it is a stale one */
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(listen_fd, 16) < 0) {
		int err = -errno;
		close(listen_fd);
		listen_fd = -1;
		return err;
	}
	strcpy(sock_path, path);
	return tp_ctl_add_fd(listen_fd, listen_readable, NULL);
}

void tp_api_fini(void)
{
	if (listen_fd < 0)
		return;
	tp_ctl_del_fd(listen_fd);
	close(listen_fd);
	unlink(sock_path);
	listen_fd = -1;
}
