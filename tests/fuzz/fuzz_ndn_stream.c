/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the stream faces' framing (proto/ndn.h, tp_ndn_stream_*): one
 * connection's bytes, kept across inputs, fed in chunks split where the input says,
 * the way control/stream.c feeds what recv() gives (at most the room offered).
 *
 * Input: records; a record's first byte c is 0: the peer closes (a new connection
 * follows), c < 0xf0: a chunk of c bytes, else a chunk of ((c & 0x0f) << 8 | next byte)
 * bytes; the chunk's bytes follow (fewer at the input's end).
 *
 * Properties, after every chunk: every element the reassembler yields is the next
 * element a whole-buffer parse (tp_ndn_tlv_read over every byte of the connection so
 * far) finds, byte for byte, and at most TP_NDN_STREAM_MAX long with a TLV-TYPE not
 * 0; when it wants more bytes, the whole-buffer parse finds no complete element
 * either and what it holds is exactly the bytes after the last element yielded; it
 * says the stream is broken exactly when the whole-buffer parse finds a malformed
 * header, a TLV-TYPE 0 or an element too long (its header in), and stays broken; the
 * bytes fed are the bytes yielded plus those held plus those a close discarded; the
 * connection's memory is freed at its close (LeakSanitizer). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto/ndn.h"

#define HIST_MAX (1u << 20) /* a connection's bytes kept for the reference parse */

static struct tp_ndn_stream *conn; /* the connection: malloc'd at its first byte */
static uint8_t hist[HIST_MAX];	   /* every byte it received */
static size_t hist_len, ref_off;   /* and where the next element starts in them */
static bool broken;		   /* the reassembler said so (the face would close) */
static uint64_t fed, yielded, discarded, closes;

enum ref { REF_OK, REF_PENDING, REF_BROKEN, REF_TOO_LONG };

/* What a whole-buffer parse says of the bytes from p (n of them): an element (*len),
 * not one yet, a malformed header (or TLV-TYPE 0), an element too long. */
static enum ref ref_parse(const uint8_t *p, size_t n, size_t *len)
{
	const uint8_t *q = p;
	struct tp_ndn_tlv t;
	uint64_t type, vlen;
	int rc = tp_ndn_tlv_read(&q, p + n, &t);

	if (rc == TP_NDN_E_OK) {
		*len = (size_t)(t.end - p);
		if (t.type == 0)
			return REF_BROKEN;
		return *len > TP_NDN_STREAM_MAX ? REF_TOO_LONG : REF_OK;
	}
	if (rc != TP_NDN_E_TRUNCATED)
		return REF_BROKEN;
	/* incomplete: what its header already shows */
	size_t k = tp_ndn_varnum_read(p, n, &type);
	if (k == 0)
		return REF_PENDING;
	if (type == 0)
		return REF_BROKEN;
	size_t k2 = tp_ndn_varnum_read(p + k, n - k, &vlen);
	if (k2 == 0)
		return REF_PENDING;
	return vlen > TP_NDN_STREAM_MAX - (k + k2) ? REF_TOO_LONG : REF_PENDING;
}

/* The connection closes: what it held is discarded. */
static void conn_close(void)
{
	if (conn == NULL)
		return;
	if (!broken) {
		must(tp_ndn_stream_held(conn) == hist_len - ref_off);
		discarded += tp_ndn_stream_held(conn);
	} else {
		discarded += hist_len - ref_off;
	}
	free(conn);
	conn = NULL;
	hist_len = ref_off = 0;
	broken = false;
	closes++;
	must(fed == yielded + discarded);
}

/* Take the elements the reassembler has, checking each against the reference. */
static void drain(void)
{
	const uint8_t *e;
	size_t len, rlen = 0;
	int rc;

	while ((rc = tp_ndn_stream_next(conn, &e, &len)) == TP_NDN_E_OK) {
		enum ref r = ref_parse(hist + ref_off, hist_len - ref_off, &rlen);
		must(r == REF_OK);
		must(len == rlen && memcmp(e, hist + ref_off, len) == 0);
		must(len <= TP_NDN_STREAM_MAX && e[0] != 0);
		ref_off += len;
		yielded += len;
	}
	enum ref r = ref_parse(hist + ref_off, hist_len - ref_off, &rlen);
	if (rc == TP_NDN_E_TRUNCATED) {
		must(r == REF_PENDING);
		size_t held = tp_ndn_stream_held(conn);
		must(held == hist_len - ref_off && held < TP_NDN_STREAM_MAX);
		must(memcmp(conn->buf + conn->off, hist + ref_off, held) == 0);
		return;
	}
	must(rc == TP_NDN_E_NO_SPACE ? r == REF_TOO_LONG : r == REF_BROKEN);
	broken = true;
	/* broken it stays: no room, the same answer */
	size_t room = 1;
	tp_ndn_stream_space(conn, &room);
	must(room == 0 && tp_ndn_stream_next(conn, &e, &len) == rc);
}

/* n bytes from the peer, fed as recv() would: at most the room offered at a time. */
static void feed(const uint8_t *p, size_t n)
{
	if (conn && hist_len + n > HIST_MAX)
		conn_close(); /* the reference's bound, not the reassembler's */
	if (conn == NULL) {
		conn = malloc(sizeof(*conn));
		must(conn != NULL);
		tp_ndn_stream_init(conn);
	}
	while (n && !broken) {
		size_t room;
		uint8_t *space = tp_ndn_stream_space(conn, &room);
		must(room > 0); /* a partial element leaves room for the rest */
		size_t k = n < room ? n : room;
		memcpy(space, p, k);
		tp_ndn_stream_commit(conn, k);
		memcpy(hist + hist_len, p, k);
		hist_len += k;
		fed += k;
		p += k;
		n -= k;
		drain();
	}
	/* after a break the connection closes: the rest of the chunk is never read */
	if (broken)
		conn_close();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i = 0;

	while (i < size) {
		unsigned int c = data[i++], n = c;
		if (c == 0) {
			conn_close();
			continue;
		}
		if (c >= 0xf0) {
			n = (c & 0x0f) << 8 | (i < size ? data[i] : 0);
			i += i < size;
		}
		if (n > size - i)
			n = (unsigned int)(size - i);
		if (n)
			feed(data + i, n);
		i += n;
	}
	must(fed == yielded + discarded + (conn ? hist_len - ref_off : 0));
	return 0;
}
