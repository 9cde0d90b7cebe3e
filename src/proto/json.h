/* SPDX-License-Identifier: BSD-3-Clause */
/* The one JSON writer (RFC 8259), no DPDK: the daemon's command output
 * (control/out.c), the oneM2M resources (onem2m.c), phd-decode and the downloader's
 * summary. A streaming writer: members are written as they are added, commas and
 * (pretty) indentation by the writer, into a FILE or into a caller's buffer. */
#ifndef TP_PROTO_JSON_H
#define TP_PROTO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TP_JSON_DEPTH 32 /* deeper nesting is written, without pretty indentation */

struct tp_json {
	FILE *f;	 /* the sink; NULL: buf */
	char *buf;	 /* buffer sink: always NUL-terminated */
	size_t cap, len; /* its size and the bytes written */
	bool err;	 /* the buffer was too small: the output is cut */
	bool pretty;	 /* a member per line, two spaces per level, "key": value */
	bool ascii;	 /* escape bytes >= 0x7f too (\u00XX, one per byte) */
	int depth;	 /* containers open */
	unsigned int count[TP_JSON_DEPTH]; /* members written at each level */
};

/* Start a writer into f, or into buf (cap bytes, cap >= 1). */
void tp_json_init_file(struct tp_json *j, FILE *f, bool pretty);
void tp_json_init_buf(struct tp_json *j, char *buf, size_t cap);
/* The bytes written into the buffer, or -ENOSPC when they did not fit. */
int tp_json_done(const struct tp_json *j);

/* Bytes as they are (JSON text the caller built). */
void tp_json_raw(struct tp_json *j, const char *s, size_t n);
/* The n bytes of s as the inside of a JSON string (no quotes): '"', '\\' and
 * U+0000-U+001F escaped (RFC 8259 7), with the two-character forms where there is
 * one; in ascii mode bytes >= 0x7f as \u00XX too. */
void tp_json_esc(struct tp_json *j, const char *s, size_t n);
/* Escape n bytes of s into dst (cap bytes, NUL-terminated); the length, or -ENOSPC. */
int tp_json_escape(char *dst, size_t cap, const char *s, size_t n);

/* Members. key is the member's name inside an object, NULL in an array or at the
 * top level. Each writes the separator the position needs. */
void tp_json_obj(struct tp_json *j, const char *key);		     /* { */
void tp_json_arr(struct tp_json *j, const char *key);		     /* [ */
void tp_json_end(struct tp_json *j, char close);		     /* '}' or ']' */
void tp_json_str(struct tp_json *j, const char *key, const char *s); /* NULL: null */
void tp_json_strn(struct tp_json *j, const char *key, const char *s, size_t n);
void tp_json_u64(struct tp_json *j, const char *key, uint64_t v);
void tp_json_i64(struct tp_json *j, const char *key, int64_t v);
void tp_json_bool(struct tp_json *j, const char *key, bool v);
void tp_json_null(struct tp_json *j, const char *key);
/* A number in a printf format ("%.6g", "%.0f"...): the caller keeps it a JSON number
 * (finite). */
void tp_json_numf(struct tp_json *j, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A value the caller wrote as JSON text (a literal, a nested document). */
void tp_json_lit(struct tp_json *j, const char *key, const char *text);
/* Only the separator and key of a member whose value the caller writes with
 * tp_json_raw/tp_json_esc. */
void tp_json_key(struct tp_json *j, const char *key);

#endif
