/* SPDX-License-Identifier: BSD-3-Clause */
/* Output tree and its JSON and text renderers. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/json.h"
#include "out.h"

enum node_type { N_OBJ, N_LIST, N_STR, N_U64, N_I64, N_DBL, N_BOOL };

struct tp_node {
	enum node_type type;
	char *key;
	char *str;
	union {
		uint64_t u;
		int64_t i;
		double d;
		bool b;
	};
	struct tp_node *child, *last, *next;
};

struct tp_node *tp_out_new(void)
{
	struct tp_node *n = calloc(1, sizeof(*n));
	if (n)
		n->type = N_OBJ;
	return n;
}

void tp_out_free(struct tp_node *n)
{
	while (n) {
		struct tp_node *next = n->next;
		tp_out_free(n->child);
		free(n->key);
		free(n->str);
		free(n);
		n = next;
	}
}

static struct tp_node *add(struct tp_node *parent, const char *key, enum node_type t)
{
	struct tp_node *n;

	if (parent == NULL || (parent->type != N_OBJ && parent->type != N_LIST))
		return NULL;
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->type = t;
	if (parent->type == N_OBJ && key && (n->key = strdup(key)) == NULL) {
		free(n);
		return NULL;
	}
	if (parent->last)
		parent->last->next = n;
	else
		parent->child = n;
	parent->last = n;
	return n;
}

struct tp_node *tp_out_obj(struct tp_node *p, const char *key)
{
	return add(p, key, N_OBJ);
}

struct tp_node *tp_out_list(struct tp_node *p, const char *key)
{
	return add(p, key, N_LIST);
}

struct tp_node *tp_out_str(struct tp_node *p, const char *key, const char *val)
{
	struct tp_node *n = add(p, key, N_STR);
	if (n)
		n->str = strdup(val ? val : "");
	return n;
}

struct tp_node *tp_out_strf(struct tp_node *p, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tp_out_str(p, key, buf);
}

struct tp_node *tp_out_u64(struct tp_node *p, const char *key, uint64_t val)
{
	struct tp_node *n = add(p, key, N_U64);
	if (n)
		n->u = val;
	return n;
}

struct tp_node *tp_out_i64(struct tp_node *p, const char *key, int64_t val)
{
	struct tp_node *n = add(p, key, N_I64);
	if (n)
		n->i = val;
	return n;
}

struct tp_node *tp_out_dbl(struct tp_node *p, const char *key, double val)
{
	struct tp_node *n = add(p, key, N_DBL);
	if (n)
		n->d = val;
	return n;
}

struct tp_node *tp_out_bool(struct tp_node *p, const char *key, bool val)
{
	struct tp_node *n = add(p, key, N_BOOL);
	if (n)
		n->b = val;
	return n;
}

/* A scalar in the text form. */
static void scalar(FILE *f, const struct tp_node *n)
{
	switch (n->type) {
	case N_STR:
		fputs(n->str, f);
		break;
	case N_U64:
		fprintf(f, "%" PRIu64, n->u);
		break;
	case N_I64:
		fprintf(f, "%" PRId64, n->i);
		break;
	case N_DBL:
		fprintf(f, "%.6g", n->d);
		break;
	case N_BOOL:
		fputs(n->b ? "true" : "false", f);
		break;
	default:
		break;
	}
}

/* The JSON form, through the one writer (proto/json.h): node n as member key. */
static void json(struct tp_json *j, const struct tp_node *n, const char *key)
{
	switch (n->type) {
	case N_OBJ:
	case N_LIST:
		if (n->type == N_OBJ)
			tp_json_obj(j, key);
		else
			tp_json_arr(j, key);
		for (const struct tp_node *c = n->child; c; c = c->next)
			json(j, c, n->type == N_OBJ ? c->key : NULL);
		tp_json_end(j, n->type == N_OBJ ? '}' : ']');
		break;
	case N_STR:
		tp_json_str(j, key, n->str);
		break;
	case N_U64:
		tp_json_u64(j, key, n->u);
		break;
	case N_I64:
		tp_json_i64(j, key, n->i);
		break;
	case N_DBL:
		tp_json_numf(j, key, "%.6g", n->d);
		break;
	case N_BOOL:
		tp_json_bool(j, key, n->b);
		break;
	}
}

/* A compound value squeezed into one table cell: "k=v k=v" or "a,b". */
static void inline_value(FILE *f, const struct tp_node *n)
{
	if (n->type != N_OBJ && n->type != N_LIST) {
		scalar(f, n);
		return;
	}
	for (const struct tp_node *c = n->child; c; c = c->next) {
		if (n->type == N_OBJ)
			fprintf(f, "%s=", c->key);
		inline_value(f, c);
		if (c->next)
			fputc(n->type == N_OBJ ? ' ' : ',', f);
	}
}

static char *cell(const struct tp_node *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	inline_value(f, n);
	fclose(f);
	return buf;
}

/* A list of objects as a table whose columns are the first row's keys. */
static void table(FILE *f, const struct tp_node *list, int indent)
{
	const struct tp_node *first = list->child, *row, *c;
	unsigned int ncol = 0, nrow = 0, r, i;

	for (c = first->child; c; c = c->next)
		ncol++;
	for (row = first; row; row = row->next)
		nrow++;
	if (ncol == 0)
		return;
	size_t *w = calloc(ncol, sizeof(*w));
	char **cells = calloc((size_t)ncol * nrow, sizeof(*cells));
	if (w == NULL || cells == NULL)
		goto out;
	for (i = 0, c = first->child; c; c = c->next, i++)
		w[i] = strlen(c->key);
	for (r = 0, row = first; row; row = row->next, r++) {
		for (i = 0, c = first->child; c; c = c->next, i++) {
			/* find the column by key, rows may differ */
			const struct tp_node *v = row->child;
			while (v && strcmp(v->key ? v->key : "", c->key) != 0)
				v = v->next;
			cells[r * ncol + i] = v ? cell(v) : strdup("-");
			if (cells[r * ncol + i] && strlen(cells[r * ncol + i]) > w[i])
				w[i] = strlen(cells[r * ncol + i]);
		}
	}
	fprintf(f, "%*s", indent, "");
	for (i = 0, c = first->child; c; c = c->next, i++)
		fprintf(f, "%-*s%s", (int)w[i], c->key, c->next ? "  " : "\n");
	for (r = 0; r < nrow; r++) {
		fprintf(f, "%*s", indent, "");
		for (i = 0; i < ncol; i++)
			fprintf(f, "%-*s%s", (int)w[i],
				cells[r * ncol + i] ? cells[r * ncol + i] : "",
				i + 1 < ncol ? "  " : "\n");
	}
out:
	if (cells)
		for (i = 0; i < ncol * nrow; i++)
			free(cells[i]);
	free(cells);
	free(w);
}

static void text(FILE *f, const struct tp_node *n, int indent)
{
	for (const struct tp_node *c = n->child; c; c = c->next) {
		const char *key = c->key ? c->key : "";
		if (c->type == N_LIST && c->child && c->child->type == N_OBJ) {
			fprintf(f, "%*s%s:\n", indent, "", key);
			table(f, c, indent + 2);
		} else if (c->type == N_OBJ) {
			fprintf(f, "%*s%s:\n", indent, "", key);
			text(f, c, indent + 2);
		} else {
			fprintf(f, "%*s%s: ", indent, "", key);
			inline_value(f, c);
			fputc('\n', f);
		}
	}
}

char *tp_out_render(const struct tp_node *root, bool as_json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	if (as_json) {
		struct tp_json j;
		tp_json_init_file(&j, f, false);
		json(&j, root, NULL);
		fputc('\n', f);
	} else {
		text(f, root, 0);
	}
	fclose(f);
	return buf;
}
