/* SPDX-License-Identifier: BSD-3-Clause */
/* Command registry: every feature registers its commands at start-up; the API
 * server, the start-up configuration and nothing else dispatch through it. */
#ifndef TP_CONTROL_CMD_H
#define TP_CONTROL_CMD_H

#include <stdint.h>

#include <rte_common.h>

#include "../proto/parse.h"
#include "out.h"

struct tp_cmd_ctx {
	struct tp_node *out; /* the response object */
	char err[512];	     /* set by tp_cmd_err() on failure */
	/* Set by whoever runs the command: called once, on the control thread, when a
	 * command that returned TP_CMD_PENDING finishes (tp_cmd_done). ctx stays valid
	 * until then. */
	void (*done)(struct tp_cmd_ctx *ctx, int ret);
	void *owner;
};

/* A handler's answer: the command goes on without blocking the control loop (it
 * waits for an RCU grace period, a kernel answer...) and calls tp_cmd_done(). */
#define TP_CMD_PENDING 1

/* argv holds the words after the command's fixed words. Returns 0, TP_CMD_PENDING,
 * or a negative errno, in which case ctx->err says what was wrong. */
typedef int (*tp_cmd_fn)(struct tp_cmd_ctx *ctx, int argc, char **argv);

struct tp_cmd {
	const char *words; /* fixed words, space separated: "route add" */
	const char *args;  /* usage of what follows: "A.B.C.D/LEN via GW" */
	const char *help;
	tp_cmd_fn fn;
	struct tp_cmd *next;
};

void tp_cmd_register(struct tp_cmd *c);
/* Where a command was registered (TP_CMD_REGISTER's __FILE__): `help` names its module
 * from it. Kept beside the command so that struct tp_cmd's initializers stay as they are. */
struct tp_cmd_src {
	struct tp_cmd *cmd;
	const char *file;
	struct tp_cmd_src *next;
};
/* tp_cmd_register(s->cmd), remembering s (static storage, never freed). */
void tp_cmd_register_src(struct tp_cmd_src *s);
#define TP_CMD_REGISTER(c)                                                                         \
	static struct tp_cmd_src tp_cmd_src_##c = {&c, __FILE__, NULL};                            \
	RTE_INIT(tp_cmd_register_##c)                                                              \
	{                                                                                          \
		tp_cmd_register_src(&tp_cmd_src_##c);                                              \
	}

/* Run one command given as words. 0, TP_CMD_PENDING (ctx->done is called later), or a
 * negative errno with ctx->err set. */
int tp_cmd_exec(struct tp_cmd_ctx *ctx, int argc, char **argv);
/* A pending command is over: ret is 0 or a negative errno (with ctx->err, or a
 * generic message is written). Control thread only. */
void tp_cmd_done(struct tp_cmd_ctx *ctx, int ret);
/* Split a line into words (whitespace, '#' comments); returns argc, -E2BIG if too many. */
int tp_cmd_split(char *line, char **argv, int max);
/* Run a configuration file of commands on the control loop, one after the other
 * (a pending one is waited for without blocking the loop); stops at the first
 * error, which is logged with its file and line. finished(ret, arg) runs at the
 * end: 0 or the first error. Returns 0 once started, or negative errno (the file
 * cannot be read; finished is not called). */
int tp_cmd_run_file(const char *path, void (*finished)(int ret, void *arg), void *arg);

/* tp_parse_u64(s, min, max, &v): in ../proto/parse.h, shared with the generator and
 * the tools (included above). */

/* Set ctx->err; returns -err for convenience: return tp_cmd_err(ctx, EINVAL, "...") */
int tp_cmd_err(struct tp_cmd_ctx *ctx, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
