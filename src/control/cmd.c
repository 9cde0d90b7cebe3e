/* SPDX-License-Identifier: BSD-3-Clause */
/* Command registry, dispatch, and the start-up configuration runner. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "../api/api.h"
#include "../core/log.h"
#include "cmd.h"
#include "timer.h"

static struct tp_cmd *cmds;
static struct tp_cmd_src *srcs;

void tp_cmd_register(struct tp_cmd *c)
{
	struct tp_cmd **pp = &cmds;

	/* keep the list sorted so help reads well */
	while (*pp && strcmp((*pp)->words, c->words) < 0)
		pp = &(*pp)->next;
	c->next = *pp;
	*pp = c;
}

void tp_cmd_register_src(struct tp_cmd_src *s)
{
	s->next = srcs;
	srcs = s;
	tp_cmd_register(s->cmd);
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

/* The module a command belongs to, from the file that registered it: "<x>" for
 * .../nf/<x>/... (tests/nf/<x>.c too), "gen" for src/gen, else "core". Writes into
 * buf (size n) and returns it. */
static const char *cmd_module(const struct tp_cmd *c, char *buf, size_t n)
{
	const char *f = "";
	const char *p;

	for (const struct tp_cmd_src *s = srcs; s; s = s->next)
		if (s->cmd == c)
			f = s->file;
	p = strstr(f, "nf/");

	if (p != NULL && (p == f || p[-1] == '/')) {
		p += 3;
		snprintf(buf, n, "%.*s", (int)strcspn(p, "/."), p);
	} else {
		snprintf(buf, n, "%s", strstr(f, "src/gen/") ? "gen" : "core");
	}
	return buf;
}

/* `help`: every registered command, sorted by its words: name (the fixed words),
 * args (the usage of what follows, "" when none), help, module. In JSON
 * (`twinctl help --json`) this is what scripts/gen-api.py turns into docs/API.md. */
static int cmd_help(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "commands");
	char mod[64];

	for (struct tp_cmd *c = cmds; c; c = c->next) {
		struct tp_node *o = tp_out_obj(l, NULL);
		tp_out_str(o, "name", c->words);
		tp_out_str(o, "args", c->args ? c->args : "");
		tp_out_str(o, "help", c->help);
		tp_out_str(o, "module", cmd_module(c, mod, sizeof(mod)));
	}
	return 0;
}

static struct tp_cmd help_cmd = {"help", NULL, "list the commands", cmd_help, NULL};
TP_CMD_REGISTER(help_cmd)

static void fill_generic_err(struct tp_cmd_ctx *ctx, const struct tp_cmd *c, int ret)
{
	if (ret < 0 && ctx->err[0] == '\0')
		tp_cmd_err(ctx, -ret, "%s: %s (usage: %s %s)", c->words, strerror(-ret), c->words,
			   c->args ? c->args : "");
}

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
	if (ret > 0 && ret != TP_CMD_PENDING)
		ret = 0;
	fill_generic_err(ctx, best, ret);
	return ret;
}

void tp_cmd_done(struct tp_cmd_ctx *ctx, int ret)
{
	if (ret < 0 && ctx->err[0] == '\0')
		tp_cmd_err(ctx, -ret, "%s", strerror(-ret));
	if (ctx->done)
		ctx->done(ctx, ret);
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

/* A configuration file being run: a line at a time from a timer, so that a pending
 * command is waited for by the loop, not on the stack. */
struct file_run {
	FILE *f;
	char *line; /* the current line (getline's): a pending command's words point into it */
	size_t cap;
	char path[256];
	unsigned int lineno;
	struct tp_cmd_ctx ctx;
	struct tp_timer next;
	void (*finished)(int ret, void *arg);
	void *arg;
};

static void run_end(struct file_run *r, int ret)
{
	fclose(r->f);
	r->finished(ret, r->arg);
	free(r->line);
	free(r);
}

static void line_done(struct tp_cmd_ctx *ctx, int ret)
{
	struct file_run *r = ctx->owner;

	tp_out_free(ctx->out);
	ctx->out = NULL;
	if (ret < 0) {
		TP_LOG(ERR, "%s:%u: %s", r->path, r->lineno, ctx->err);
		run_end(r, ret);
		return;
	}
	tp_timer_arm(&r->next, 0);
}

static void run_next(struct tp_timer *t)
{
	struct file_run *r = t->arg;
	char *argv[TP_API_MAX_WORDS];
	ssize_t n;

	/* a line of any length (fgets into 1024 bytes ran the rest of a longer one as a
	 * command of its own), and none with a NUL byte (the words after it were dropped
	 * unseen: fuzz_config) */
	while ((n = getline(&r->line, &r->cap, r->f)) >= 0) {
		int argc, ret;

		r->lineno++;
		if (memchr(r->line, '\0', (size_t)n) != NULL) {
			TP_LOG(ERR, "%s:%u: a NUL byte (not a text file?)", r->path, r->lineno);
			run_end(r, -EINVAL);
			return;
		}
		argc = tp_cmd_split(r->line, argv, (int)RTE_DIM(argv));
		if (argc == 0)
			continue;
		if (argc < 0) {
			TP_LOG(ERR, "%s:%u: too many words", r->path, r->lineno);
			run_end(r, argc);
			return;
		}
		r->ctx = (struct tp_cmd_ctx){.out = tp_out_new(), .done = line_done, .owner = r};
		ret = tp_cmd_exec(&r->ctx, argc, argv);
		if (ret == TP_CMD_PENDING)
			return; /* line_done goes on */
		line_done(&r->ctx, ret);
		return; /* the next line from the timer: the loop runs in between */
	}
	run_end(r, 0);
}

int tp_cmd_run_file(const char *path, void (*finished)(int ret, void *arg), void *arg)
{
	struct file_run *r = calloc(1, sizeof(*r));
	int err;

	if (r == NULL)
		return -ENOMEM;
	r->f = fopen(path, "r");
	if (r->f == NULL) {
		err = -errno;
		TP_LOG(ERR, "config %s: %s", path, strerror(errno));
		free(r);
		return err;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->finished = finished;
	r->arg = arg;
	tp_timer_init(&r->next, "config", run_next, r);
	tp_timer_arm(&r->next, 0);
	return 0;
}
