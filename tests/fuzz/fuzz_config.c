/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the start-up configuration file (src/control/cmd.c:
 * tp_cmd_run_file, a line at a time from a timer, and tp_cmd_split): the input is the
 * file. Commands of the target's own: "rec" (records its words), "fail" (an error),
 * "later" (pending, finished from a timer), and the registry's "help".
 *
 * Property: what runs is what the file says, by the format's rules (docs/API.md,
 * README): one command a line, words separated by spaces, tabs or CRs, a '#' at the
 * start of a word comments out the rest of the line, blank lines skipped; the run stops
 * at the first command that fails (unknown, too many words, "fail") or at a line the
 * format cannot hold (a NUL byte), with an error; otherwise it ends with 0. The model
 * below reads the file independently and is compared with what the commands saw.
 * Built and run by scripts/fuzz.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "control/cmd.h"
#include "control/control.h"
#include "control/timer.h"
#include "fuzz.h"

#define MAX_WORDS 64

/* what the commands saw: each "rec" line's words, joined by a 0x01 byte, lines by 0x02 */
static char seen[1 << 20];
static size_t seen_len;
static bool over;
static int result;

static void seen_add(const char *s, size_t n)
{
	if (seen_len + n < sizeof(seen)) {
		memcpy(seen + seen_len, s, n);
		seen_len += n;
	}
}

static int rec(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		seen_add(argv[i], strlen(argv[i]));
		seen_add("\x01", 1);
	}
	seen_add("\x02", 1);
	return 0;
}

static int fail(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	return tp_cmd_err(ctx, EINVAL, "fail: as asked");
}

static struct tp_timer later_timer;
static struct tp_cmd_ctx *later_ctx;

static void later_due(struct tp_timer *t)
{
	tp_cmd_done(later_ctx, 0);
}

static int later(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	later_ctx = ctx;
	tp_timer_init(&later_timer, "later", later_due, NULL);
	tp_timer_arm(&later_timer, 0);
	return TP_CMD_PENDING;
}

static struct tp_cmd c_rec = {"rec", "WORDS...", "record the words", rec, NULL};
static struct tp_cmd c_fail = {"fail", NULL, "fail", fail, NULL};
static struct tp_cmd c_later = {"later", NULL, "finish from a timer", later, NULL};
TP_CMD_REGISTER(c_rec)
TP_CMD_REGISTER(c_fail)
TP_CMD_REGISTER(c_later)

static void finished(int ret, void *arg)
{
	over = true;
	result = ret;
}

/* The model: what the file should run, in seen's format; returns 0 or -1 (an error). */
static int model(const uint8_t *d, size_t n, char *out, size_t *out_len)
{
	static const char *const known[] = {"rec", "fail", "later", "help"};
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		size_t end = i;
		while (end < n && d[end] != '\n')
			end++;
		if (memchr(d + i, '\0', end - i) != NULL)
			return *out_len = o, -1;
		/* the words of the line */
		const uint8_t *w[MAX_WORDS + 1];
		size_t wl[MAX_WORDS + 1];
		int argc = 0;
		for (size_t k = i; k < end;) {
			while (k < end && (d[k] == ' ' || d[k] == '\t' || d[k] == '\r'))
				k++;
			if (k == end || d[k] == '#')
				break;
			if (argc == MAX_WORDS)
				return *out_len = o, -1;
			w[argc] = d + k;
			while (k < end && d[k] != ' ' && d[k] != '\t' && d[k] != '\r')
				k++;
			wl[argc] = (size_t)(d + k - w[argc]);
			argc++;
		}
		i = end + 1;
		if (argc == 0)
			continue;
		int cmd = -1;
		for (int c = 0; c < 4; c++)
			if (wl[0] == strlen(known[c]) && memcmp(w[0], known[c], wl[0]) == 0)
				cmd = c;
		if (cmd < 0 || cmd == 1)
			return *out_len = o, -1;
		if (cmd == 0) {
			for (int k = 1; k < argc; k++) {
				if (o + wl[k] + 2 < sizeof(seen)) {
					memcpy(out + o, w[k], wl[k]);
					o += wl[k];
					out[o++] = '\x01';
				}
			}
			if (o + 1 < sizeof(seen))
				out[o++] = '\x02';
		}
	}
	*out_len = o;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char want[sizeof(seen)];
	char path[64];
	size_t want_len;
	int fd = memfd_create("fuzz-config", 0);

	must(fd >= 0 && write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	seen_len = 0;
	over = false;
	must(tp_cmd_run_file(path, finished, NULL) == 0);
	for (unsigned int k = 0; !over; k++) {
		must(k < 1000000); /* a line at a time: it ends */
		tp_timer_run(tp_ctl_now_ms());
	}
	close(fd);
	int m = model(data, size, want, &want_len);
	must((result < 0) == (m < 0));
	must(seen_len == want_len && memcmp(seen, want, want_len) == 0);
	must(tp_timer_count() == 0);
	return 0;
}
