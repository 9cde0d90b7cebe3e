/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON writer (json.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "json.h"

void tp_json_init_file(struct tp_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

void tp_json_init_buf(struct tp_json *j, char *buf, size_t cap)
{
	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->cap = cap;
	if (cap > 0)
		buf[0] = '\0';
	else
		j->err = true;
}

int tp_json_done(const struct tp_json *j)
{
	return j->err ? -ENOSPC : (int)j->len;
}

void tp_json_raw(struct tp_json *j, const char *s, size_t n)
{
	if (j->f != NULL) {
		fwrite(s, 1, n, j->f);
		return;
	}
	if (j->err)
		return;
	if (n >= j->cap - j->len) {
		j->err = true;
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void put(struct tp_json *j, const char *s)
{
	tp_json_raw(j, s, strlen(s));
}

static bool plain(unsigned char c, bool ascii)
{
	return c >= 0x20 && c != '"' && c != '\\' && !(ascii && c >= 0x7f);
}

void tp_json_esc(struct tp_json *j, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n && !j->err; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[6] = {'\\', 'u', '0', '0'};
		/* a run that needs no escape goes in one copy */
		size_t run = i;
		while (run < n && plain((unsigned char)s[run], j->ascii))
			run++;
		if (run > i) {
			tp_json_raw(j, s + i, run - i);
			i = run - 1;
			continue;
		}
		/* RFC 8259 7: quotation mark, reverse solidus and U+0000-U+001F must be
		 * escaped; the two-character forms where the RFC has one */
		switch (c) {
		case '"':
			tp_json_raw(j, "\\\"", 2);
			break;
		case '\\':
			tp_json_raw(j, "\\\\", 2);
			break;
		case '\b':
			tp_json_raw(j, "\\b", 2);
			break;
		case '\f':
			tp_json_raw(j, "\\f", 2);
			break;
		case '\n':
			tp_json_raw(j, "\\n", 2);
			break;
		case '\r':
			tp_json_raw(j, "\\r", 2);
			break;
		case '\t':
			tp_json_raw(j, "\\t", 2);
			break;
		default:
			e[4] = hex[c >> 4];
			e[5] = hex[c & 0xf];
			tp_json_raw(j, e, 6);
		}
	}
}

int tp_json_escape(char *dst, size_t cap, const char *s, size_t n)
{
	struct tp_json j;

	tp_json_init_buf(&j, dst, cap);
	tp_json_esc(&j, s, n);
	return tp_json_done(&j);
}

static void quoted(struct tp_json *j, const char *s, size_t n)
{
	tp_json_raw(j, "\"", 1);
	tp_json_esc(j, s, n);
	tp_json_raw(j, "\"", 1);
}

static void indent(struct tp_json *j, int depth)
{
	tp_json_raw(j, "\n", 1);
	for (int i = 0; i < depth; i++)
		tp_json_raw(j, "  ", 2);
}

void tp_json_key(struct tp_json *j, const char *key)
{
	if (j->depth > 0 && j->depth <= TP_JSON_DEPTH && j->count[j->depth - 1]++ > 0)
		tp_json_raw(j, ",", 1);
	if (j->pretty && j->depth > 0)
		indent(j, j->depth);
	if (key != NULL) {
		quoted(j, key, strlen(key));
		put(j, j->pretty ? ": " : ":");
	}
}

static void open_container(struct tp_json *j, const char *key, const char *c)
{
	tp_json_key(j, key);
	put(j, c);
	if (j->depth < TP_JSON_DEPTH)
		j->count[j->depth] = 0;
	j->depth++;
}

void tp_json_obj(struct tp_json *j, const char *key)
{
	open_container(j, key, "{");
}

void tp_json_arr(struct tp_json *j, const char *key)
{
	open_container(j, key, "[");
}

void tp_json_end(struct tp_json *j, char close)
{
	if (j->depth > 0)
		j->depth--;
	if (j->pretty && j->depth < TP_JSON_DEPTH && j->count[j->depth] > 0)
		indent(j, j->depth);
	tp_json_raw(j, &close, 1);
}

void tp_json_str(struct tp_json *j, const char *key, const char *s)
{
	if (s == NULL) {
		tp_json_null(j, key);
		return;
	}
	tp_json_strn(j, key, s, strlen(s));
}

void tp_json_strn(struct tp_json *j, const char *key, const char *s, size_t n)
{
	tp_json_key(j, key);
	quoted(j, s, n);
}

void tp_json_u64(struct tp_json *j, const char *key, uint64_t v)
{
	tp_json_numf(j, key, "%" PRIu64, v);
}

void tp_json_i64(struct tp_json *j, const char *key, int64_t v)
{
	tp_json_numf(j, key, "%" PRId64, v);
}

void tp_json_bool(struct tp_json *j, const char *key, bool v)
{
	tp_json_lit(j, key, v ? "true" : "false");
}

void tp_json_null(struct tp_json *j, const char *key)
{
	tp_json_lit(j, key, "null");
}

void tp_json_numf(struct tp_json *j, const char *key, const char *fmt, ...)
{
	char b[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	tp_json_key(j, key);
	tp_json_raw(j, b, n < 0 ? 0 : (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

void tp_json_lit(struct tp_json *j, const char *key, const char *text)
{
	tp_json_key(j, key);
	put(j, text);
}
