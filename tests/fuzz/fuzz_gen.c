/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for the generator's requests (src/gen/cmds.c and what its commands
 * parse: port options, NDN producer options, stream templates' options, trials): the
 * input is lines of commands, each split and run as the generator's API runs them, on
 * an EAL without hugepages and one net_null port "g0" made at start. A "port add"
 * line's device is replaced by one no driver has (probing devices is not parsing: its
 * options are parsed, the probe fails). A trial is armed, then, no worker running,
 * answered "interrupted" from its timer and disarmed.
 *
 * Properties: a command answers 0, pending or a negative errno with a message; every
 * stream made has frames of its size (its template's size, within an mbuf), and
 * writing each of its variants into a buffer of exactly that size stays inside it;
 * streams are deleted after each input and nothing leaks (LeakSanitizer). Built and
 * run by scripts/fuzz.sh. */
#include <errno.h>
#include <string.h>

#include <rte_eal.h>

#include "control/cmd.h"
#include "control/control.h"
#include "control/timer.h"
#include "fuzz_dpdk.h"
#include "gen/engine.h"

static bool done;
static int done_ret;

static void cmd_done(struct tp_cmd_ctx *ctx, int ret)
{
	done = true;
	done_ret = ret;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256];

	fuzz_eal_init("fuzz-gen", 512);
	must(gen_engine_init(2047) == 0);
	must(gen_port_add("g0", "net_null0", 256, 256, 1, false, 0, NULL, err, sizeof(err)) == 0);
	return 0;
}

static void check_streams(void)
{
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++) {
		struct gen_stream *s = &gen.streams[i];
		if (!s->used)
			continue;
		must(s->frame_len >= 60 && s->frame_len <= 9014 && s->n_frames >= 1);
		must(s->frame_len <= rte_pktmbuf_data_room_size(gen.pool) - RTE_PKTMBUF_HEADROOM);
		uint8_t *buf = malloc(s->frame_len);
		must(buf != NULL);
		for (uint32_t k = 0; k < s->n_frames && k < 64; k++)
			gen_stream_frame(s, buf, 1, k);
		free(buf);
	}
}

static void run_line(char *line)
{
	char *argv[64];
	int argc = tp_cmd_split(line, argv, (int)RTE_DIM(argv));

	if (argc <= 0)
		return;
	if (argc >= 3 && strcmp(argv[0], "port") == 0 && strcmp(argv[1], "add") == 0 && argc >= 4)
		argv[3] = (char *)"net_fuzz_no_such_driver";
	struct tp_cmd_ctx ctx = {.out = tp_out_new(), .done = cmd_done};
	must(ctx.out != NULL);
	done = false;
	int ret = tp_cmd_exec(&ctx, argc, argv);
	if (ret == TP_CMD_PENDING) {
		for (unsigned int k = 0; !done; k++) {
			must(k < 100000);
			tp_timer_run(tp_ctl_now_ms() + 1000);
		}
		ret = done_ret;
		__atomic_store_n(&gen.trial.state, TRIAL_IDLE, __ATOMIC_RELEASE);
	}
	must(ret == 0 || (ret < 0 && ctx.err[0] != '\0'));
	tp_out_free(ctx.out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	must(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *line = text, *nl; line != NULL; line = nl) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		run_line(line);
		check_streams();
	}
	free(text);
	for (unsigned int i = 0; i < TP_GEN_MAX_STREAMS; i++)
		if (gen.streams[i].used)
			gen_stream_del(gen.streams[i].name);
	return 0;
}
