/* SPDX-License-Identifier: BSD-3-Clause */
/* Command dispatch and output rendering: specific errors for malformed commands. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/control/cmd.h"
#include "../../src/control/out.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_malformed_commands),
	    cmocka_unit_test(test_render_json_and_text),
	};
	return cmocka_run_group_tests_name("control", tests, NULL, NULL);
}
