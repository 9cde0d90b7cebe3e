/* SPDX-License-Identifier: BSD-3-Clause */
/* What every libFuzzer target of the project shares: libFuzzer's entry points and the
 * property check. */
#ifndef TP_TESTS_FUZZ_H
#define TP_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken property: say which, and abort so that libFuzzer keeps the input. */
#define must(cond)                                                                                 \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__,        \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
