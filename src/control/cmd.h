/* SPDX-License-Identifier: BSD-3-Clause */
/* Command registry: every feature registers its commands at start-up; the API
 * server, the start-up configuration and nothing else dispatch through it. */
#ifndef TP_CONTROL_CMD_H
#define TP_CONTROL_CMD_H

#include <rte_common.h>

#include "out.h"

struct tp_cmd_ctx {
	struct tp_node *out; /* the response object */
	char err[512];	     /* set by tp_cmd_err() on failure */
};

/* argv holds the words after the command's fixed words. Returns 0 or a negative
 * errno, in which case ctx->err says what was wrong. */
typedef int (*tp_cmd_fn)(struct tp_cmd_ctx *ctx, int argc, char **argv);

struct tp_cmd {
	const char *words; /* fixed words, space separated: "route add" */
	const char *args;  /* usage of what follows: "A.B.C.D/LEN via GW" */
	const char *help;
	tp_cmd_fn fn;
	struct tp_cmd *next;
};

void tp_cmd_register(struct tp_cmd *c);
#define TP_CMD_REGISTER(c)                                                                         \
	RTE_INIT(tp_cmd_register_##c)                                                              \
	{                                                                                          \
		tp_cmd_register(&c);                                                               \
	}

/* Run one command given as words. 0 or negative errno with ctx->err set. */
int tp_cmd_exec(struct tp_cmd_ctx *ctx, int argc, char **argv);
/* Split a line into words (whitespace, '#' comments); returns argc, -E2BIG if too many. */
int tp_cmd_split(char *line, char **argv, int max);
/* Run a configuration file of commands; stops at the first error, which is logged
 * with its file and line. 0 or negative errno. */
int tp_cmd_run_file(const char *path);

/* Set ctx->err; returns -err for convenience: return tp_cmd_err(ctx, EINVAL, "...") */
int tp_cmd_err(struct tp_cmd_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
