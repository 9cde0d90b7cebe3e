/* SPDX-License-Identifier: BSD-3-Clause */
/* The module registry's start order (src/core/nf.c): modules start after those they
 * name in depends_on, whatever the order they registered in (constructors); a
 * missing module or a cycle is an error, not a silent order. The daemon's own
 * modules are registered in this binary (it links the daemon's library), and the
 * test registers three of its own. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/core/nf.h"

static struct tp_nf t_a = {.name = "t_a", .help = "test"};
static struct tp_nf t_b = {.name = "t_b", .help = "test"};
static struct tp_nf t_c = {.name = "t_c", .help = "test"};

/* position of the module named name in the start order, or -1 */
static int pos(const char *name)
{
	struct tp_nf *nf;

	for (unsigned int i = 0; (nf = tp_nf_ordered(i)) != NULL; i++)
		if (strcmp(nf->name, name) == 0)
			return (int)i;
	return -1;
}

static int setup(void **state)
{
	(void)state;
	t_a.depends_on = t_b.depends_on = t_c.depends_on = NULL;
	return 0;
}

/* the daemon's modules: the core first, ip4 before those that use its tables */
static void test_daemon_modules(void **state)
{
	assert_int_equal(tp_nf_order(), 0);
	assert_int_equal(pos("core"), 0);
	assert_true(pos("ip4") > 0);
	assert_true(pos("ndn") > pos("ip4"));
	assert_true(pos("iotgw") > pos("ip4"));
	assert_true(pos("l2") > pos("ip4"));
	/* every registered module once */
	assert_int_equal(tp_nf_ordered(tp_nf_count() - 1) != NULL, 1);
	assert_null(tp_nf_ordered(tp_nf_count()));
}

/* registered a, b, c; a needs c and c needs b: b, c, a */
static void test_order_follows_dependencies(void **state)
{
	static const char *const a_deps[] = {"t_c", NULL};
	static const char *const c_deps[] = {"t_b", "core", NULL};

	t_a.depends_on = a_deps;
	t_c.depends_on = c_deps;
	assert_int_equal(tp_nf_order(), 0);
	assert_true(pos("t_b") < pos("t_c"));
	assert_true(pos("t_c") < pos("t_a"));
	assert_int_equal(pos("core"), 0);
}

/* no dependencies: registration order */
static void test_registration_order_otherwise(void **state)
{
	assert_int_equal(tp_nf_order(), 0);
	assert_true(pos("t_a") < pos("t_b"));
	assert_true(pos("t_b") < pos("t_c"));
}

static void test_missing_dependency(void **state)
{
	static const char *const deps[] = {"core", "t_nowhere", NULL};

	t_b.depends_on = deps;
	assert_int_equal(tp_nf_order(), -ENOENT);
}

static void test_cycle(void **state)
{
	static const char *const a_deps[] = {"t_b", NULL};
	static const char *const b_deps[] = {"t_c", NULL};
	static const char *const c_deps[] = {"t_a", NULL};
	static const char *const self[] = {"t_a", NULL};

	t_a.depends_on = a_deps;
	t_b.depends_on = b_deps;
	t_c.depends_on = c_deps;
	assert_int_equal(tp_nf_order(), -ELOOP);
	t_b.depends_on = t_c.depends_on = NULL;
	t_a.depends_on = self;
	assert_int_equal(tp_nf_order(), -ELOOP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_daemon_modules, setup),
	    cmocka_unit_test_setup(test_order_follows_dependencies, setup),
	    cmocka_unit_test_setup(test_registration_order_otherwise, setup),
	    cmocka_unit_test_setup(test_missing_dependency, setup),
	    cmocka_unit_test_setup(test_cycle, setup),
	};

	tp_nf_register(&t_a);
	tp_nf_register(&t_b);
	tp_nf_register(&t_c);
	return cmocka_run_group_tests_name("nf", tests, NULL, NULL);
}
