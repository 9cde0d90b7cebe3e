/* SPDX-License-Identifier: BSD-3-Clause */
/* Commands of the IoT gateway: enable it, show its sessions and counters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../control/cmd.h"
#include "../../control/control.h"
#include "../../control/metrics.h"
#include "../../control/port.h"
#include "../../core/tp.h"
#include "../../proto/ip4.h"
#include "iotgw.h"
#include "control/control.h"

struct tp_iotgw_conf tp_iotgw = TP_IOTGW_CONF_DEFAULT;

static int enable(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_iotgw_conf c = tp_iotgw, old = tp_iotgw;
	uint64_t v;
	int ret;

	if (tp_iotgw.enabled)
		return tp_cmd_err(ctx, EALREADY, "iotgw enable: the gateway is running already");
	if (argc % 2)
		return tp_cmd_err(
		    ctx, EINVAL,
		    "iotgw enable: usage: iotgw enable cse A.B.C.D "
		    "[cse-port N] [cse-name NAME] [port N] [timeout S] [reg-timeout MS] "
		    "[max-sessions N] [mds-get yes|no] [delivery confirmed|fire-and-forget] "
		    "[max-pending N] [agent-pending N] [ack-timeout MS] [mni N] "
		    "[max-per-source N] [evict-idle S] [ae-retention S]");
	for (int i = 0; i < argc; i += 2) {
		const char *k = argv[i], *val = argv[i + 1];
		if (strcmp(k, "cse") == 0) {
			if (tp_ip4_parse_addr(val, &c.cse_ip) < 0 || c.cse_ip == 0)
				return tp_cmd_err(ctx, EINVAL, "iotgw enable: bad cse address '%s'",
						  val);
		} else if (strcmp(k, "cse-port") == 0 || strcmp(k, "port") == 0) {
			if (tp_parse_u64(val, 1, 65535, &v) < 0)
				return tp_cmd_err(ctx, EINVAL, "iotgw enable: bad %s '%s'", k, val);
			*(strcmp(k, "port") == 0 ? &c.port : &c.cse_port) = (uint16_t)v;
		} else if (strcmp(k, "cse-name") == 0) {
			if (strlen(val) == 0 || strlen(val) >= sizeof(c.cse_name) ||
			    strchr(val, '/'))
				return tp_cmd_err(ctx, EINVAL, "iotgw enable: bad cse-name '%s'",
						  val);
			snprintf(c.cse_name, sizeof(c.cse_name), "%s", val);
		} else if (strcmp(k, "max-sessions") == 0) {
			if (tp_parse_u64(val, 1, TP_AE_MAX, &v) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad max-sessions '%s' (1-%d)", val,
						  TP_AE_MAX);
			c.max_sessions = (uint32_t)v;
		} else if (strcmp(k, "reg-timeout") == 0) {
			if (tp_parse_u64(val, 10, 60000, &v) < 0)
				return tp_cmd_err(
				    ctx, EINVAL, "iotgw enable: bad reg-timeout '%s' (10-60000 ms)",
				    val);
			c.reg_timeout_ms = (uint32_t)v;
		} else if (strcmp(k, "mds-get") == 0) {
			if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
				return tp_cmd_err(
				    ctx, EINVAL, "iotgw enable: bad mds-get '%s' (yes or no)", val);
			c.no_mds_get = strcmp(val, "no") == 0;
		} else if (strcmp(k, "delivery") == 0) {
			if (strcmp(val, "confirmed") == 0)
				c.delivery = TP_IOTGW_DELIVERY_CONFIRMED;
			else if (strcmp(val, "fire-and-forget") == 0)
				c.delivery = TP_IOTGW_DELIVERY_FORGET;
			else
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad delivery '%s' "
						  "(confirmed or fire-and-forget)",
						  val);
		} else if (strcmp(k, "max-pending") == 0) {
			if (tp_parse_u64(val, 1, 65536, &v) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad max-pending '%s' (1-65536)",
						  val);
			c.max_pending = (uint32_t)v;
		} else if (strcmp(k, "agent-pending") == 0) {
			if (tp_parse_u64(val, 1, 65536, &v) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad agent-pending '%s' (1-65536)",
						  val);
			c.agent_pending = (uint32_t)v;
		} else if (strcmp(k, "ack-timeout") == 0) {
			if (tp_parse_u64(val, 10, 60000, &v) < 0)
				return tp_cmd_err(
				    ctx, EINVAL, "iotgw enable: bad ack-timeout '%s' (10-60000 ms)",
				    val);
			c.ack_timeout_ms = (uint32_t)v;
		} else if (strcmp(k, "mni") == 0) {
			if (tp_parse_u64(val, 0, UINT32_MAX, &v) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad mni '%s' (0: unbounded)", val);
			c.mni = (uint32_t)v;
		} else if (strcmp(k, "max-per-source") == 0) {
			if (tp_parse_u64(val, 0, TP_AE_MAX, &v) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad max-per-source '%s' "
						  "(0-%d, 0: no limit)",
						  val, TP_AE_MAX);
			c.max_per_source = (uint32_t)v;
		} else if (strcmp(k, "evict-idle") == 0) {
			if (tp_parse_u64(val, 1, 86400, &v) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad evict-idle '%s' (1-86400 s)",
						  val);
			c.evict_idle_ms = (uint32_t)v * 1000;
		} else if (strcmp(k, "ae-retention") == 0) {
			/* up to 10 years (ACME's own cap is 5: it shortens a longer et) */
			if (tp_parse_u64(val, 0, 315360000, &v) < 0)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: bad ae-retention '%s' "
						  "(0-315360000 s, 0: the IN-CSE's default)",
						  val);
			if (v > 0 && tp_iotgw.single_plane)
				return tp_cmd_err(ctx, EINVAL,
						  "iotgw enable: ae-retention needs the dual plane "
						  "(--single-plane refreshes no AE): give 0");
			c.ae_retention_s = (uint32_t)v;
		} else if (strcmp(k, "timeout") == 0) {
			if (tp_parse_u64(val, 1, 86400, &v) < 0)
				return tp_cmd_err(
				    ctx, EINVAL, "iotgw enable: bad timeout '%s' (1-86400 s)", val);
			c.session_timeout_ms = (uint32_t)v * 1000;
		} else {
			return tp_cmd_err(
			    ctx, EINVAL,
			    "iotgw enable: unknown keyword '%s' "
			    "(cse cse-port cse-name port timeout reg-timeout max-sessions mds-get "
			    "delivery max-pending agent-pending ack-timeout mni max-per-source "
			    "evict-idle ae-retention)",
			    k);
		}
	}
	if (c.cse_ip == 0)
		return tp_cmd_err(ctx, EINVAL, "iotgw enable: give the IN-CSE: cse A.B.C.D");
	if (tp_iotgw.single_plane)
		c.ae_retention_s = 0; /* nothing would refresh the AEs: none gets an et */
	/* The starting steps read the configuration from tp_iotgw: c is installed while
	 * the gateway is still disabled (no worker hands it anything before the UDP port
	 * is registered, the last step), and the previous one is put back on failure,
	 * with every step done so far undone: nothing is left half started. */
	tp_iotgw = c;
	/* the control side first: once the UDP port is registered, workers hand it
	 * datagrams (single plane: straight to single.c's rings and pool) */
	if ((ret = tp_ae_init()) < 0)
		goto restore_conf;
	if ((ret = tp_iotgw_control_start()) < 0)
		goto ae_fini;
	if ((ret = tp_iotgw_fast_register()) < 0)
		goto control_stop;
	tp_iotgw.enabled = true;
	return 0;
control_stop:
	tp_iotgw_control_stop();
ae_fini:
	tp_ae_fini();
restore_conf:
	tp_iotgw = old;
	return tp_cmd_err(ctx, -ret, "iotgw enable: %s", strerror(-ret));
}

static int show(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	const struct tp_iotgw_session_stats *s = &tp_iotgw_sess;
	char a[16];
	struct tp_node *o, *c;

	tp_out_bool(ctx->out, "enabled", tp_iotgw.enabled);
	tp_out_str(ctx->out, "plane", tp_iotgw.single_plane ? "single" : "dual");
	tp_out_bool(ctx->out, "profile", tp_iotgw.profile);
	tp_out_u64(ctx->out, "report_cycles", tp_iotgw_proc_cycles());
	tp_out_u64(ctx->out, "port", tp_iotgw.port);
	tp_out_strf(ctx->out, "cse", "%s:%u/%s", tp_ip4_fmt(tp_iotgw.cse_ip, a), tp_iotgw.cse_port,
		    tp_iotgw.cse_name);
	tp_out_u64(ctx->out, "sessions", tp_ae_count());
	tp_out_u64(ctx->out, "max_sessions", tp_iotgw.max_sessions);
	tp_out_bool(ctx->out, "mds_get", !tp_iotgw.no_mds_get);
	tp_out_str(ctx->out, "delivery",
		   tp_iotgw.delivery == TP_IOTGW_DELIVERY_CONFIRMED ? "confirmed"
								    : "fire-and-forget");
	tp_out_u64(ctx->out, "max_per_source", tp_iotgw.max_per_source);
	tp_out_u64(ctx->out, "mni", tp_iotgw.mni);
	tp_out_u64(ctx->out, "ae_retention", tp_iotgw.ae_retention_s);
	c = tp_out_obj(ctx->out, "data_plane");
	for (unsigned int i = 0; i < TP_IOTGW_CTR_MAX; i++)
		tp_out_u64(c, tp_iotgw_ctr_names[i], tp_iotgw_counter(i));
	o = tp_out_obj(ctx->out, "control_plane");
#define F(x) tp_out_u64(o, #x, s->x)
	F(received);
	F(sent);
	F(send_errors);
	F(bad);
	F(ignored);
	F(unassociated);
	F(associated);
	F(configured);
	F(rejected);
	F(rejected_full);
	F(released);
	F(aborted);
	F(timed_out);
	F(mds_queried);
	F(mds_answered);
	F(mds_unanswered);
	F(reg_requests);
	F(reg_retries);
	F(reg_ready);
	F(reg_failed);
	F(reg_server_errors);
	F(reg_ignored);
	F(reg_conflict);
	F(rejected_duplicate);
	F(rejected_source);
	F(evicted);
	F(unchecked);
	F(not_via_tap);
	F(rejected_unbound);
	F(ae_refreshed);
	F(ae_refresh_failed);
	F(ae_expired);
	F(ae_reregistered);
#undef F
	/* what became of the measurements on their way to the IN-CSE */
	const struct tp_iotgw_delivery_stats *d = &tp_iotgw_deliv;
	o = tp_out_obj(ctx->out, "delivery");
	tp_out_bool(o, "cse_up", tp_iotgw_delivery_cse_up());
	tp_out_u64(o, "pending", tp_iotgw_delivery_pending());
	tp_out_u64(o, "max_pending", tp_iotgw.max_pending);
	tp_out_u64(o, "agent_pending", tp_iotgw.agent_pending);
#define F(x) tp_out_u64(o, #x, d->x)
	F(reports);
	F(cin_queued);
	F(cin_stored);
	F(cin_refused);
	F(cin_lost);
	F(retransmissions);
	F(answered);
	F(answered_again);
	F(duplicates_pending);
	F(reports_refused_full);
	F(reports_refused_share);
	F(went_down);
	F(came_back);
	F(probes);
	F(probes_answered);
	F(ignored);
	F(server_errors);
#undef F
	tp_out_u64(o, "forget_sent_while_down", tp_iotgw_delivery_forget_lost());
	/* reports that came before their agent's AE was ready (early.c) */
	const struct tp_iotgw_early_stats *e = &tp_iotgw_early;
	struct tp_node *eo = tp_out_obj(ctx->out, "early");
	tp_out_u64(eo, "holding", tp_iotgw_early_held());
#define F(x) tp_out_u64(eo, #x, e->x)
	F(held);
	F(released);
	F(answered);
	F(duplicates);
	F(refused_full);
	F(dropped);
	F(get_skipped);
	F(cin_sent);
	F(cin_send_errors);
#undef F
	c = tp_out_obj(o, "report_path"); /* the reports converted on the control plane */
	for (unsigned int i = 0; i < TP_IOTGW_CTR_MAX; i++)
		tp_out_u64(c, tp_iotgw_ctr_names[i], tp_iotgw_delivery_counter(i));
	return 0;
}

static int show_sessions(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	struct tp_node *l = tp_out_list(ctx->out, "sessions");
	char a[16];

	for (int i = 0; tp_ae_table && i < TP_AE_MAX; i++) {
		const struct tp_ae *e = &tp_ae_table[i];
		if (e->state == TP_AE_FREE || e->ip == 0)
			continue;
		struct tp_node *o = tp_out_obj(l, NULL), *ml;
		tp_out_strf(o, "agent", "%s:%u", tp_ip4_fmt(e->ip, a), e->port);
		tp_out_str(o, "ae", e->ae_name);
		tp_out_str(o, "state", tp_ae_state_name(e->state));
		tp_out_u64(o, "config", e->config_id);
		if (e->l2src != 0) {
			/* what the session is bound to: its AARQ's ingress port and MAC */
			const struct tp_port *p = tp_port_by_id((uint16_t)((e->l2src >> 48) - 1));
			tp_out_str(o, "port", p ? p->name : "?");
			tp_out_strf(o, "mac", "%02x:%02x:%02x:%02x:%02x:%02x",
				    (unsigned int)(e->l2src >> 40 & 0xff),
				    (unsigned int)(e->l2src >> 32 & 0xff),
				    (unsigned int)(e->l2src >> 24 & 0xff),
				    (unsigned int)(e->l2src >> 16 & 0xff),
				    (unsigned int)(e->l2src >> 8 & 0xff),
				    (unsigned int)(e->l2src & 0xff));
		}
		ml = tp_out_list(o, "metrics");
		for (unsigned int k = 0; k < e->n_metrics; k++)
			tp_out_str(ml, NULL, e->metric[k].label);
		ml = tp_out_list(o, "labels");
		for (unsigned int k = 0; k < TP_AE_LABELS; k++)
			if (e->label[k][0])
				tp_out_str(ml, NULL, e->label[k]);
	}
	return 0;
}

static int profile(struct tp_cmd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1 || (strcmp(argv[0], "on") != 0 && strcmp(argv[0], "off") != 0))
		return tp_cmd_err(ctx, EINVAL, "iotgw profile: usage: iotgw profile on|off");
	tp_iotgw.profile = strcmp(argv[0], "on") == 0;
	return 0;
}

static struct tp_cmd c_profile = {"iotgw profile", "on|off",
				  "count TSC cycles in the report path (show iotgw: report_cycles)",
				  profile, NULL};
TP_CMD_REGISTER(c_profile)

static struct tp_cmd c_enable = {"iotgw enable",
				 "cse A.B.C.D [cse-port N] [cse-name NAME] [port N] [timeout S] "
				 "[reg-timeout MS] [max-sessions N] [mds-get yes|no] "
				 "[delivery confirmed|fire-and-forget] [max-pending N] "
				 "[ack-timeout MS] [mni N] [max-per-source N] [evict-idle S] "
				 "[ae-retention S]",
				 "start the IoT gateway (11073 PHD to oneM2M)", enable, NULL};
static struct tp_cmd c_show = {"show iotgw", NULL, "the gateway's counters", show, NULL};
static struct tp_cmd c_sessions = {"show iotgw sessions", NULL, "associated agents", show_sessions,
				   NULL};
TP_CMD_REGISTER(c_enable)
TP_CMD_REGISTER(c_show)
TP_CMD_REGISTER(c_sessions)

/* The metrics page: sessions, the delivery queue towards the IN-CSE ('show iotgw'). The
 * families are there while the gateway is off (no samples), so dashboards find them. */
void iotgw_metrics(struct tp_metrics *m)
{
	const struct tp_iotgw_delivery_stats *d = &tp_iotgw_deliv;
	static const struct {
		const char *event;
		size_t off;
	} ev[] = {
#define F(x) {#x, offsetof(struct tp_iotgw_delivery_stats, x)}
	    F(reports),
	    F(cin_queued),
	    F(cin_stored),
	    F(cin_refused),
	    F(cin_lost),
	    F(retransmissions),
	    F(answered),
	    F(reports_refused_full),
	    F(reports_refused_share),
	    F(went_down),
	    F(came_back),
	    F(server_errors),
#undef F
	};
	const bool on = tp_iotgw.enabled;

	tp_metrics_family(m, "twinplane_iotgw_sessions", "gauge", "Agents' sessions (AEs)");
	if (on)
		tp_metrics_u64(m, "twinplane_iotgw_sessions", tp_ae_count(), NULL);
	tp_metrics_family(m, "twinplane_iotgw_sessions_max", "gauge",
			  "Sessions the gateway may hold");
	if (on)
		tp_metrics_u64(m, "twinplane_iotgw_sessions_max", tp_iotgw.max_sessions, NULL);
	tp_metrics_family(m, "twinplane_iotgw_delivery_pending", "gauge",
			  "Measurements queued or in flight towards the IN-CSE");
	if (on)
		tp_metrics_u64(m, "twinplane_iotgw_delivery_pending", tp_iotgw_delivery_pending(),
			       NULL);
	tp_metrics_family(m, "twinplane_iotgw_delivery_pending_max", "gauge",
			  "Measurements the delivery queue may hold");
	if (on)
		tp_metrics_u64(m, "twinplane_iotgw_delivery_pending_max", tp_iotgw.max_pending,
			       NULL);
	tp_metrics_family(m, "twinplane_iotgw_cse_up", "gauge", "1 while the IN-CSE answers");
	if (on)
		tp_metrics_u64(m, "twinplane_iotgw_cse_up", tp_iotgw_delivery_cse_up(), NULL);
	tp_metrics_family(m, "twinplane_iotgw_early_holding", "gauge",
			  "Reports held until their agent's AE is ready");
	if (on)
		tp_metrics_u64(m, "twinplane_iotgw_early_holding", tp_iotgw_early_held(), NULL);
	tp_metrics_family(m, "twinplane_iotgw_delivery_total", "counter",
			  "What became of the measurements on their way to the IN-CSE, by event");
	for (size_t k = 0; on && k < RTE_DIM(ev); k++)
		tp_metrics_u64(m, "twinplane_iotgw_delivery_total",
			       *(const uint64_t *)((const char *)d + ev[k].off), "event",
			       ev[k].event, NULL);
}
