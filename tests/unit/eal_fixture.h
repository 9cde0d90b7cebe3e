/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared set-up of the unit tests: an EAL with ordinary memory and no devices. */
#ifndef TP_TEST_EAL_FIXTURE_H
#define TP_TEST_EAL_FIXTURE_H

#include <stdlib.h>

#include <rte_eal.h>

static inline int tp_test_eal_init(void)
{
	char *argv[] = {"unit",
			"--no-huge",
			"-m",
			"512",
			"--no-pci",
			"--no-shconf",
			"--file-prefix=tp-unit",
			"-l",
			"0",
			"--log-level=error",
			NULL};
	return rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0 ? -1 : 0;
}

#endif
