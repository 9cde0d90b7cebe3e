/* SPDX-License-Identifier: BSD-3-Clause */
/* Command dispatch and output rendering: specific errors for malformed commands. */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../src/api/io.h"
#include "../../src/control/cmd.h"
#include "../../src/control/control.h"
#include "../../src/control/metrics.h"
#include "../../src/control/timer.h"
#include "../../src/control/out.h"
#include "../../src/proto/json.h"
#include "../../src/proto/parse.h"

static int exec_line(const char *line, char *err, size_t errlen)
{
	char buf[256], *argv[16];
	struct tp_cmd_ctx ctx = {0};
	int argc, ret;

	snprintf(buf, sizeof(buf), "%s", line);
	argc = tp_cmd_split(buf, argv, 16);
	ctx.out = tp_out_new();
	ret = tp_cmd_exec(&ctx, argc, argv);
	snprintf(err, errlen, "%s", ctx.err);
	tp_out_free(ctx.out);
	return ret;
}

/* The control loop's wait for its pollers: 1 ms after work, doubling to 8 ms without,
 * and 1 ms throughout a hold (a routing protocol's frame), then doubling again. */
static void test_poll_backoff_and_hold(void **state)
{
	(void)state;
	unsigned int ms = 1;
	uint64_t now = tp_ctl_now_ms();

	unsigned int want[] = {2, 4, 8, 8};
	for (unsigned int i = 0; i < RTE_DIM(want); i++) {
		ms = tp_ctl_next_poll_ms(ms, 0, now);
		assert_int_equal(ms, want[i]);
	}
	assert_int_equal(tp_ctl_next_poll_ms(ms, 3, now), 1);
	tp_ctl_poll_hold(TP_CTL_CONTROL_HOLD_MS);
	now = tp_ctl_now_ms();
	assert_int_equal(tp_ctl_next_poll_ms(8, 0, now), 1);
	assert_int_equal(tp_ctl_next_poll_ms(8, 0, now + TP_CTL_CONTROL_HOLD_MS - 2), 1);
	/* a shorter hold never cuts a longer one short */
	tp_ctl_poll_hold(1);
	assert_int_equal(tp_ctl_next_poll_ms(8, 0, now + TP_CTL_CONTROL_HOLD_MS - 2), 1);
	assert_int_equal(tp_ctl_next_poll_ms(1, 0, now + TP_CTL_CONTROL_HOLD_MS + 20), 2);
}

static void test_malformed_commands(void **state)
{
	char err[512];

	assert_int_equal(exec_line("frobnicate now", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown command 'frobnicate now' (try 'help')");
	assert_int_equal(exec_line("route add 10.0.0.0/33 via 10.0.0.1", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "bad prefix '10.0.0.0/33'"));
	assert_int_equal(exec_line("route add 10.0.0.0/8 via nowhere", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad gateway 'nowhere'"));
	assert_int_equal(exec_line("route add 10.0.0.0/8 over 1.2.3.4", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown keyword 'over'"));
	assert_int_equal(exec_line("neigh add 10.0.0.2 lladdr zz:00 dev p0", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "bad MAC 'zz:00'"));
	assert_int_equal(exec_line("address add 10.0.0.1/24 dev nope", err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no port named 'nope'"));
	assert_int_equal(exec_line("port add p0 net_null0 rxq many", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad number 'many'"));
	assert_int_equal(exec_line("set backoff maybe", err, sizeof(err)), -EINVAL);
	assert_int_equal(exec_line("   # only a comment", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty command"));
}

/* Review F15: base 0 read "010" as octal eight; now decimal digits, the whole word. */
static void test_parse_decimal(void **state)
{
	char err[512];
	uint64_t v = 0;

	assert_int_equal(tp_parse_u64("010", 0, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(tp_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	const char *bad[] = {"0x10", "+3", " 3", "3 ", "-1", "", "1e3", "18446744073709551616",
			     "101"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tp_parse_u64(bad[i], 0, 100, &v), -EINVAL);
	/* a command's error names the word */
	assert_int_equal(exec_line("port add p0 net_null0 rxq 0x2", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad number '0x2'"));
}

static void test_render_json_and_text(void **state)
{
	struct tp_node *root = tp_out_new();
	struct tp_node *l = tp_out_list(root, "routes");
	struct tp_node *o = tp_out_obj(l, NULL);
	tp_out_str(o, "prefix", "10.0.0.0/8");
	tp_out_u64(o, "nexthop", 3);
	o = tp_out_obj(l, NULL);
	tp_out_str(o, "prefix", "a\"b");
	tp_out_u64(o, "nexthop", 12);
	tp_out_bool(root, "ok", true);

	char *j = tp_out_render(root, true);
	assert_string_equal(j, "{\"routes\":[{\"prefix\":\"10.0.0.0/8\",\"nexthop\":3},"
			       "{\"prefix\":\"a\\\"b\",\"nexthop\":12}],\"ok\":true}\n");
	char *t = tp_out_render(root, false);
	assert_string_equal(t, "routes:\n"
			       "  prefix      nexthop\n"
			       "  10.0.0.0/8  3      \n"
			       "  a\"b         12     \n"
			       "ok: true\n");
	free(j);
	free(t);
	tp_out_free(root);
}

/* The one JSON writer (proto/json.h): RFC 8259 7 escapes, nesting and commas, the
 * pretty form phd-decode prints, the ASCII mode, a bounded buffer that says it was
 * too small instead of cutting a document silently. */
static void test_json_writer(void **state)
{
	char buf[128];
	struct tp_json j;

	tp_json_init_buf(&j, buf, sizeof(buf));
	tp_json_obj(&j, NULL);
	tp_json_str(&j, "s", "q\"b\\n\n\x01\xc3\xa9");
	tp_json_arr(&j, "a");
	tp_json_u64(&j, NULL, 18446744073709551615ULL);
	tp_json_i64(&j, NULL, -3);
	tp_json_bool(&j, NULL, false);
	tp_json_str(&j, NULL, NULL);
	tp_json_end(&j, ']');
	tp_json_obj(&j, "e");
	tp_json_end(&j, '}');
	tp_json_numf(&j, "x", "%.6g", 0.5);
	tp_json_end(&j, '}');
	assert_string_equal(buf, "{\"s\":\"q\\\"b\\\\n\\n\\u0001\xc3\xa9\","
				 "\"a\":[18446744073709551615,-3,false,null],\"e\":{},\"x\":0.5}");
	assert_int_equal(tp_json_done(&j), (int)strlen(buf));

	tp_json_init_buf(&j, buf, sizeof(buf));
	j.pretty = true;
	j.ascii = true;
	tp_json_obj(&j, NULL);
	tp_json_str(&j, "k", "\xe9");
	tp_json_arr(&j, "l");
	tp_json_i64(&j, NULL, 1);
	tp_json_end(&j, ']');
	tp_json_end(&j, '}');
	assert_string_equal(buf, "{\n  \"k\": \"\\u00e9\",\n  \"l\": [\n    1\n  ]\n}");

	/* 10 bytes: room for 9 and the NUL */
	tp_json_init_buf(&j, buf, 10);
	tp_json_obj(&j, NULL);
	tp_json_str(&j, "key", "value");
	tp_json_end(&j, '}');
	assert_int_equal(tp_json_done(&j), -ENOSPC);
	assert_true(strlen(buf) < 10);
	assert_int_equal(tp_json_escape(buf, sizeof(buf), "a\tb", 3), 4);
	assert_string_equal(buf, "a\\tb");
}

/* One hex parser for phd-decode and coap-tool: separators between bytes, 0x on a
 * group, the offending character's offset otherwise, the caller's bound kept. */
static void test_hex_decode(void **state)
{
	uint8_t b[4];
	size_t bad = 99;

	assert_int_equal(tp_hex_decode("0xE2 00,0a:Ff", b, sizeof(b), &bad), 4);
	assert_memory_equal(b, "\xe2\x00\x0a\xff", 4);
	assert_int_equal(tp_hex_decode("", b, sizeof(b), NULL), 0);
	assert_int_equal(tp_hex_decode("e2 0", b, sizeof(b), &bad), -1);
	assert_int_equal(bad, 4); /* a lone digit at the end */
	assert_int_equal(tp_hex_decode("e 2", b, sizeof(b), &bad), -1);
	assert_int_equal(bad, 1); /* a separator inside a byte */
	assert_int_equal(tp_hex_decode("e2g0", b, sizeof(b), &bad), -1);
	assert_int_equal(bad, 2);
	assert_int_equal(tp_hex_decode("0102030405", b, sizeof(b), &bad), -1);
	assert_int_equal(bad, 9); /* the fifth byte does not fit */
}

/* The client's reader (twinctl's): an answer of length 2^32 - 1 made it allocate
 * h.len + 1 = 0 bytes and read the body into them; another version or a body over
 * the limit is refused now, before anything is allocated. */
static void answer_of(const struct tp_api_hdr *h, const char *body, int expect)
{
	int sp[2];
	struct tp_api_hdr got;
	char *b;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	assert_int_equal(write(sp[1], h, sizeof(*h)), (ssize_t)sizeof(*h));
	if (body)
		assert_int_equal(write(sp[1], body, strlen(body)), (ssize_t)strlen(body));
	close(sp[1]);
	assert_int_equal(tp_api_read_answer(sp[0], &got, &b), expect);
	close(sp[0]);
	if (expect == 0) {
		assert_string_equal(b, body);
		assert_int_equal(got.len, strlen(body));
		free(b);
	} else {
		assert_null(b);
	}
}

static void test_answer_reader(void **state)
{
	struct tp_api_hdr h = {.version = TP_API_VERSION, .type = 1, .id = 1, .len = 2};

	answer_of(&h, "ok", 0);
	h.len = UINT32_MAX;
	answer_of(&h, "ok", -EFBIG);
	h.len = TP_API_MAX_ANSWER + 1; /* told apart from another version (review N15) */
	answer_of(&h, "ok", -EFBIG);
	h.len = 2;
	h.version = 2;
	answer_of(&h, "ok", -EPROTO);
	h.version = TP_API_VERSION;
	h.len = 5;
	answer_of(&h, "ok", -EPIPE); /* cut short */
}

static int file_result;
static bool file_over;

static void file_finished(int ret, void *arg)
{
	file_result = ret;
	file_over = true;
}

/* Run a configuration file of these bytes; its result. */
static int run_config(const char *bytes, size_t len)
{
	char path[] = "/tmp/tp-test-config-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	close(fd);
	file_over = false;
	assert_int_equal(tp_cmd_run_file(path, file_finished, NULL), 0);
	for (int k = 0; k < 10000 && !file_over; k++)
		tp_timer_run(tp_ctl_now_ms());
	unlink(path);
	assert_true(file_over);
	return file_result;
}

/* Found by fuzz_config: a line with a NUL byte ran as the words before it (the rest
 * dropped unseen), and a line longer than 1023 bytes ran as two commands (fgets into
 * a fixed buffer: the second was "route" here, unknown). */
static void test_config_file_lines(void **state)
{
	char longline[1200];

	assert_int_equal(run_config("help\n\nhelp # comment\n", 21), 0);
	assert_int_equal(run_config("help\0 x\n", 8), -EINVAL);
	memset(longline, ' ', sizeof(longline));
	memcpy(longline, "help", 4);
	memcpy(longline + sizeof(longline) - 7, "route\n", 6);
	assert_int_equal(run_config(longline, sizeof(longline) - 1), 0);
	assert_int_equal(run_config("nosuchcommand\n", 14), -ENOENT);
}

/* The exposition format 0.0.4's own example of escaping (Prometheus docs, "Text format
 * example"), HELP escaping, and the page's bound. */
static void test_metrics_writer(void **state)
{
	struct tp_metrics m;

	assert_int_equal(tp_metrics_init(&m, 1 << 20), 0);
	tp_metrics_family(&m, "msdos_file_access_time_seconds", "gauge", "a \\ and a\nline");
	tp_metrics_u64(&m, "msdos_file_access_time_seconds", 1458255915, "path",
		       "C:\\DIR\\FILE.TXT", "error", "Cannot find file:\n\"FILE.TXT\"", NULL);
	tp_metrics_u64(&m, "metric_without_timestamp_and_labels", 12, NULL);
	tp_metrics_dbl(&m, "x_seconds_total", 0.5, "lcore", "1", NULL);
	assert_int_equal(m.err, 0);
	assert_string_equal(m.buf, "# HELP msdos_file_access_time_seconds a \\\\ and a\\nline\n"
				   "# TYPE msdos_file_access_time_seconds gauge\n"
				   "msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\","
				   "error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\"} 1458255915\n"
				   "metric_without_timestamp_and_labels 12\n"
				   "x_seconds_total{lcore=\"1\"} 0.5\n");
	tp_metrics_free(&m);

	/* over the bound: the page fails, never more than the bound */
	assert_int_equal(tp_metrics_init(&m, 100), 0);
	for (int i = 0; i < 20; i++)
		tp_metrics_u64(&m, "twinplane_something_total", (uint64_t)i, "port", "p0", NULL);
	assert_int_equal(m.err, -EFBIG);
	assert_true(m.len < 100);
	tp_metrics_free(&m);
}

static void test_metrics_commands(void **state)
{
	char err[512];

	assert_int_equal(exec_line("metrics listen 1.2.3:9100", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an IPv4 address"));
	assert_int_equal(exec_line("metrics listen 127.0.0.1:0", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "A.B.C.D:PORT"));
	assert_int_equal(exec_line("metrics listen 127.0.0.1", err, sizeof(err)), -EINVAL);
	assert_int_equal(exec_line("metrics stop", err, sizeof(err)), -ENOENT);
	assert_int_equal(exec_line("set metrics deadline 5", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "deadline 10-600000 ms"));
	assert_int_equal(exec_line("set metrics max-clients", err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_malformed_commands),
	    cmocka_unit_test(test_parse_decimal),
	    cmocka_unit_test(test_render_json_and_text),
	    cmocka_unit_test(test_answer_reader),
	    cmocka_unit_test(test_config_file_lines),
	    cmocka_unit_test(test_json_writer),
	    cmocka_unit_test(test_hex_decode),
	    cmocka_unit_test(test_metrics_writer),
	    cmocka_unit_test(test_metrics_commands),
	    cmocka_unit_test(test_poll_backoff_and_hold),
	};
	return cmocka_run_group_tests_name("control", tests, NULL, NULL);
}
