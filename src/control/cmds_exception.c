/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the core on the exception path: show, set (rate per class). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/lcore.h"
#include "../core/tp.h"
#include "cmd.h"
#include "cmds.h"
#include "exception.h"

static int show_exception(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *cl = tp_out_obj(ctx->out, "classes");

	tp_cmds_exc_out(ctx->out);
	for (unsigned int c = 0; c < TP_PUNT_CLASSES; c++) {
		struct tp_node *o = tp_out_obj(cl, tp_punt_class_name((enum tp_punt_class)c));
		tp_out_u64(o, "rate_pps", tp.exc_rate[c]);
		tp_out_u64(o, "burst", tp.exc_burst[c]);
	}
	tp_out_str(ctx->out, "per", "port");
	return 0;
}

static int set_exception(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	uint64_t rate, burst = 64;
	int cls = TP_PUNT_CLASSES;

	if (argc < 2 || argc % 2 || strcmp(argv[0], "rate"))
		return tp_cmd_err(ctx, EINVAL,
				  "set exception: usage: set exception rate PPS "
				  "[burst N] [class control|arp|signaling|other|error]");
	if (tp_parse_u64(argv[1], 1, 100000000, &rate) < 0)
		return tp_cmd_err(ctx, EINVAL, "set exception: bad rate '%s' (1-100000000 pps)",
				  argv[1]);
	for (int i = 2; i < argc; i += 2) {
		if (strcmp(argv[i], "burst") == 0) {
			if (tp_parse_u64(argv[i + 1], 1, 1000000, &burst) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "set exception: bad burst '%s' (1-1000000)",
						  argv[i + 1]);
		} else if (strcmp(argv[i], "class") == 0) {
			if ((cls = tp_punt_class_parse(argv[i + 1])) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "set exception: unknown class '%s' (control, "
						  "arp, signaling, other, error)",
						  argv[i + 1]);
		} else {
			return tp_cmd_err(ctx, EINVAL,
					  "set exception: unknown keyword '%s' (burst, class)",
					  argv[i]);
		}
	}
	tp_punt_rate_set((enum tp_punt_class)cls, rate, burst);
	return 0;
}

static struct tp_cmd c_show_exc = {"show exception", NULL, "the exception path", show_exception,
				   NULL};
static struct tp_cmd c_set_exc = {"set exception", "rate PPS [burst N] [class C]",
				  "bound what each port hands to the control plane, per class",
				  set_exception, NULL};
TP_CMD_REGISTER(c_show_exc)
TP_CMD_REGISTER(c_set_exc)
