/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the control API: the bytes a client writes to the daemon's
 * unix socket (src/control/api_server.c: framing, its state machine across partial
 * reads; src/control/cmd.c: the words and their dispatch), and the same bytes as an
 * answer read by the client side (src/api/io.h: tp_api_read_answer, what twinctl
 * uses).
 *
 * The real server on a socket of its own, driven by the control loop one pass at a
 * time; besides the registry's "help", three commands of the target's: "echo"
 * (answers its words), "fail" (an error) and "later" (pending, answered from a timer,
 * so a client may be gone by then). The input's first byte sets the size of the
 * writes the rest is cut into; the client then closes its side.
 *
 * Properties: the answers are what the framing calls for, in order: one per request
 * with its id and type, status 0 or a negative errno (EPROTONOSUPPORT for another
 * version and EMSGSIZE for an oversized body, each closing the connection), "echo"
 * answered with exactly its words; the server ends with no connection and no pending
 * command, and nothing leaks (LeakSanitizer). The reader returns a body of the
 * header's length, or an error. Built and run by scripts/fuzz.sh. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "api/api.h"
#include "api/io.h"
#include "control/api_server.h"
#include "control/cmd.h"
#include "control/control.h"
#include "control/timer.h"
#include "fuzz.h"

static char sock_path[108];
static unsigned int pending;

static int echo(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "words");

	for (int i = 0; i < argc; i++)
		tp_out_str(l, NULL, argv[i]);
	return 0;
}

static int fail(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return tp_cmd_err(ctx, EINVAL, "fail: as asked");
}

struct later {
	struct tp_timer t;
	struct tp_cmd_ctx *ctx;
};

static void later_due(struct tp_timer *t)
{
	struct later *l = t->arg;

	tp_out_str(l->ctx->out, "later", "done");
	tp_cmd_done(l->ctx, 0);
	free(l);
	pending--;
}

static int later(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct later *l = calloc(1, sizeof(*l));

	must(l != NULL);
	l->ctx = ctx;
	tp_timer_init(&l->t, "later", later_due, l);
	tp_timer_arm(&l->t, 0);
	pending++;
	return TP_CMD_PENDING;
}

static struct tp_cmd c_echo = {"echo", "WORDS...", "answer the words", echo, NULL};
static struct tp_cmd c_fail = {"fail", NULL, "fail", fail, NULL};
static struct tp_cmd c_later = {"later", NULL, "answer from a timer", later, NULL};
TP_CMD_REGISTER(c_echo)
TP_CMD_REGISTER(c_fail)
TP_CMD_REGISTER(c_later)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct tp_api_opts o = {.gid = (gid_t)-1, .may_remove_stale = true};
	char err[256];

	snprintf(sock_path, sizeof(sock_path), "/tmp/tp-fuzz-api-%d.sock", (int)getpid());
	must(tp_ctl_init() == 0);
	must(tp_api_init(sock_path, &o, err, sizeof(err)) == 0);
	return 0;
}

/* Passes of the loop until nothing is ready (at most n). */
static void settle(unsigned int n)
{
	unsigned int ev;

	while (n--) {
		tp_ctl_pass(0, &ev);
		if (ev == 0 && pending == 0)
			return;
	}
}

/* What the server must answer to the bytes written, by the framing rules of docs/API.md:
 * checked against the answers read back, one at a time. */
static void check_answers(const uint8_t *data, size_t size, int fd)
{
	size_t off = 0;

	while (size - off >= sizeof(struct tp_api_hdr)) {
		struct tp_api_hdr q, a;
		char *body;
		int expect = 0;
		bool closes = false;

		memcpy(&q, data + off, sizeof(q));
		off += sizeof(q);
		if (q.version != TP_API_VERSION) {
			expect = -EPROTONOSUPPORT, closes = true;
		} else if (q.len > TP_API_MAX_PAYLOAD) {
			expect = -EMSGSIZE, closes = true;
		} else if (size - off < q.len) {
			break; /* cut short: no answer */
		}
		must(tp_api_read_answer(fd, &a, &body) == 0);
		must(a.id == q.id && a.type == q.type && a.len == strlen(body));
		must(a.status <= 0);
		if (expect != 0) {
			must(a.status == expect);
			free(body);
			break;
		}
		const char *w = (const char *)data + off;
		size_t n = q.len;
		off += q.len;
		if (q.type != TP_API_CMD_TEXT && q.type != TP_API_CMD_JSON) {
			must(a.status == -EOPNOTSUPP);
		} else if (n >= 5 && memcmp(w, "echo", 5) == 0 && a.status == 0 &&
			   q.type == TP_API_CMD_TEXT) {
			/* "words: a,b,...": each word as sent, in order */
			const char *at = body;
			for (size_t k = 5; k < n;) {
				size_t wl = strnlen(w + k, n - k);
				char word[1024];
				if (wl < sizeof(word)) {
					memcpy(word, w + k, wl);
					word[wl] = '\0';
					at = strstr(at, word);
					must(at != NULL);
					at += wl;
				}
				k += wl + 1;
			}
		}
		free(body);
		if (closes)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, sp[2];

	if (size == 0)
		return 0;
	size_t chunk = data[0] ? data[0] : 256;
	data++, size--;

	/* the server side: a client connects, writes, closes its side, reads the answers */
	strcpy(sa.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	must(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	int big = 4 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	settle(4);
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (send(fd, data + off, n, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)n)
			break; /* the server closed (a framing error) or its buffer is full */
		settle(16);
	}
	shutdown(fd, SHUT_WR);
	settle(64);
	must(tp_api_conns() == 0 && pending == 0);
	check_answers(data, size, fd);
	close(fd);

	/* the client side: the bytes as a server's answer */
	must(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
	struct tp_api_hdr h;
	char *body;
	ssize_t w = send(sp[1], data, size, MSG_DONTWAIT);
	close(sp[1]);
	int rc = tp_api_read_answer(sp[0], &h, &body);
	close(sp[0]);
	if (rc == 0) {
		must(h.version == TP_API_VERSION && h.len <= TP_API_MAX_ANSWER);
		must(w >= (ssize_t)(sizeof(h) + h.len) &&
		     memcmp(body, data + sizeof(h), h.len) == 0);
		must(body[h.len] == '\0');
		free(body);
	} else {
		must(body == NULL && (rc == -EPROTO || rc == -EPIPE || rc == -EFBIG));
		must(rc != -EFBIG || h.len > TP_API_MAX_ANSWER);
	}
	return 0;
}
