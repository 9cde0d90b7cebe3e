/* SPDX-License-Identifier: BSD-3-Clause */
/* Command registry, dispatch, and the start-up configuration runner. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "../core/log.h"
#include "cmd.h"

static struct tp_cmd *cmds;

void tp_cmd_register(struct tp_cmd *c)
{
	struct tp_cmd **pp = &cmds;

	/* keep the list sorted so help reads well */
	while (*pp && strcmp((*pp)->words, c->words) < 0)
		pp = &(*pp)->next;
	c->next = *pp;
	*pp = c;
}

int tp_cmd_err(struct tp_cmd_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
	va_end(ap);
	return -err;
}

/* Number of argv words c's fixed words match, or 0 if they do not all match. */
static int match(const struct tp_cmd *c, int argc, char **argv)
{
	const char *p = c->words;
	int i = 0;

	while (*p) {
		size_t len = strcspn(p, " ");
		if (i >= argc || strlen(argv[i]) != len || strncmp(argv[i], p, len) != 0)
			return 0;
		i++;
		p += len;
		while (*p == ' ')
			p++;
	}
	return i;
}

static int cmd_help(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "commands");

	for (struct tp_cmd *c = cmds; c; c = c->next) {
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_strf(o, "command", "%s%s%s", c->words, c->args ? " " : "",
			    c->args ? c->args : "");
		tp_out_str(o, "help", c->help);
	}
	return 0;
}

static struct tp_cmd help_cmd = {"help", NULL, "list the commands", cmd_help, NULL};
TP_CMD_REGISTER(help_cmd)

int tp_cmd_exec(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_cmd *best = NULL;
	int best_n = 0;

	if (argc == 0)
		return tp_cmd_err(ctx, EINVAL, "empty command (try 'help')");
	for (struct tp_cmd *c = cmds; c; c = c->next) {
		int n = match(c, argc, argv);
		if (n > best_n) {
			best = c;
			best_n = n;
		}
	}
	if (best == NULL) {
		char buf[256] = "";
		for (int i = 0; i < argc && i < 3; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
				 argv[i]);
		return tp_cmd_err(ctx, ENOENT, "unknown command '%s' (try 'help')", buf);
	}
	int ret = best->fn(ctx, argc - best_n, argv + best_n);
	if (ret < 0 && ctx->err[0] == '\0')
		tp_cmd_err(ctx, -ret, "%s: %s (usage: %s %s)", best->words, strerror(-ret),
			   best->words, best->args ? best->args : "");
	return ret;
}

int tp_cmd_split(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '\0' || *p == '#')
			break;
		if (argc == max)
			return -E2BIG;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return argc;
}

int tp_cmd_run_file(const char *path)
{
	char line[1024], *argv[64];
	unsigned int lineno = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (f == NULL) {
		TP_LOG(ERR, "config %s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		struct tp_cmd_ctx ctx = {0};
		int argc;

		lineno++;
		argc = tp_cmd_split(line, argv, (int)RTE_DIM(argv));
		if (argc == 0)
			continue;
		if (argc < 0) {
			TP_LOG(ERR, "%s:%u: too many words", path, lineno);
			ret = argc;
			break;
		}
		ctx.out = tp_out_new();
		ret = tp_cmd_exec(&ctx, argc, argv);
		tp_out_free(ctx.out);
		if (ret < 0) {
			TP_LOG(ERR, "%s:%u: %s", path, lineno, ctx.err);
			break;
		}
	}
	fclose(f);
	return ret;
}
