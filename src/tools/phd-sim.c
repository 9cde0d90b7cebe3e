/* SPDX-License-Identifier: BSD-3-Clause */
/* phd-sim: an ISO/IEEE 11073-20601 agent on a kernel UDP socket (one APDU per
 * datagram), for the demo and the functional tests. It lives a whole session:
 * associate, configure when the manager answers accepted-unknown-config, answer
 * the manager's GET of the MDS attributes, confirmed scan reports at an interval
 * with retransmission, release. Standard configurations: pulse oximeter (10404,
 * 0x0190), blood pressure (10407, 0x02BC, a compound systolic/diastolic/mean),
 * thermometer (10408, 0x0320), weighing scale (10415, 0x05DC, a FLOAT), glucose
 * meter (10417, 0x06A4); extended ones: activity monitor (10441) and medication
 * monitor (10472). Prints one JSON summary line. Built from the project's one
 * MDER codec. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../proto/json.h"
#include "../proto/mder.h"
#include "../proto/parse.h"
#include "../proto/phd_devices.h"
#include "../proto/phd_nomenclature.h"

static int sock;
static struct sockaddr_in gw;
static unsigned int timeout_ms = 500, tries = 4;
static unsigned long retransmissions, acked, gets_answered;
static const struct tp_phd_device *dev;
static const uint8_t *my_sysid;
static int zero_time;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int send_apdu(const struct tp_phd_apdu *a)
{
	uint8_t buf[2048];
	int n = tp_phd_encode_apdu(a, buf, sizeof(buf));
	if (n < 0) {
		fprintf(stderr, "phd-sim: encode: %s\n", tp_phd_strerror(n));
		return n;
	}
	return sendto(sock, buf, (size_t)n, 0, (struct sockaddr *)&gw, sizeof(gw)) < 0 ? -errno : 0;
}

/* A manager's GET of the MDS attributes (20601 8.5.2): answer with ours, as an agent
 * must whatever it is waiting for. 1 when rx was such a GET. */
static int answer_get(const struct tp_phd_apdu *in)
{
	char model[40];
	struct tp_phd_apdu a = {.type = TP_PHD_PRST};
	struct tp_phd_attr_list *l = &a.u.prst.u.attrs.attrs;
	const struct tp_phd_nom *spec = NULL;
	struct tp_phd_value v[5];
	time_t t = time(NULL);
	struct tm tm;

	if (in->type != TP_PHD_PRST || in->u.prst.choice != TP_PHD_ROIV_GET ||
	    in->u.prst.u.get.obj_handle != TP_PHD_HANDLE_MDS)
		return 0;
	gmtime_r(&t, &tm);
	snprintf(model, sizeof(model), "phd-sim %s", dev->name);
	memset(v, 0, sizeof(v));
	v[0].attr_id = MDC_ATTR_ID_MODEL;
	v[0].kind = TP_PHD_V_MODEL;
	v[0].u.model.manufacturer = (struct tp_phd_octets){(const uint8_t *)"twinplane", 9};
	v[0].u.model.model_number =
	    (struct tp_phd_octets){(const uint8_t *)model, (uint16_t)strlen(model)};
	v[1].attr_id = MDC_ATTR_SYS_ID;
	v[1].kind = TP_PHD_V_STRING;
	v[1].u.oct = (struct tp_phd_octets){my_sysid, 8};
	v[2].attr_id = MDC_ATTR_DEV_CONFIG_ID;
	v[2].kind = TP_PHD_V_U16;
	v[2].u.u16 = dev->config_id;
	v[3].attr_id = MDC_ATTR_SYS_TYPE_SPEC_LIST;
	v[3].kind = TP_PHD_V_TYPEVER;
	v[3].n = 1;
	/* the specialization of the device (10101 INFRA: MDC_DEV_SPEC_PROFILE_*) */
	static const struct {
		const char *name;
		uint16_t profile;
	} profiles[] = {
	    {"pulse-oximeter", MDC_DEV_SPEC_PROFILE_PULS_OXIM},
	    {"activity-monitor", MDC_DEV_SPEC_PROFILE_HF_CARDIO},
	    {"medication-monitor", MDC_DEV_SPEC_PROFILE_AI_MED_MINDER},
	    {"blood-pressure", MDC_DEV_SPEC_PROFILE_BP},
	    {"weighing-scale", MDC_DEV_SPEC_PROFILE_SCALE},
	    {"thermometer", MDC_DEV_SPEC_PROFILE_TEMP},
	    {"glucose-meter", MDC_DEV_SPEC_PROFILE_GLUCOSE},
	};
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (strcmp(profiles[i].name, dev->name) == 0)
			spec = tp_phd_nom_find(MDC_PART_INFRA, profiles[i].profile);
	v[3].u.tv[0].type = spec ? spec->code : 0;
	v[3].u.tv[0].version = 1;
	v[4].attr_id = MDC_ATTR_TIME_ABS;
	v[4].kind = TP_PHD_V_ABS_TIME;
	v[4].u.abs = tp_phd_abs_time_from_tm(&tm);
	for (int i = 0; i < 5; i++) {
		static uint8_t store[5][64];
		int n = tp_phd_attr_value_encode(&v[i], store[i], sizeof(store[i]));
		if (n < 0)
			return 1;
		l->ava[i] = (struct tp_phd_ava){v[i].attr_id, {store[i], (uint16_t)n}};
	}
	l->count = 5;
	a.u.prst.invoke_id = in->u.prst.invoke_id;
	a.u.prst.choice = TP_PHD_RORS_GET;
	a.u.prst.u.attrs.obj_handle = TP_PHD_HANDLE_MDS;
	if (send_apdu(&a) == 0)
		gets_answered++;
	return 1;
}

/* Send a and wait for an answer that match() accepts; retransmit on timeout. */
static int exchange(const struct tp_phd_apdu *a,
		    int (*match)(const struct tp_phd_apdu *, const void *), const void *arg,
		    struct tp_phd_apdu *out, uint8_t *rx, size_t rxlen)
{
	for (unsigned int t = 0; t < tries; t++) {
		if (t)
			retransmissions++;
		if (send_apdu(a) < 0)
			return -EIO;
		uint64_t until = now_ms() + timeout_ms;
		while (now_ms() < until) {
			struct pollfd p = {sock, POLLIN, 0};
			if (poll(&p, 1, (int)(until - now_ms())) <= 0)
				break;
			ssize_t n = recv(sock, rx, rxlen, 0);
			struct tp_phd_error err;
			if (n <= 0 || tp_phd_decode_apdu(rx, (size_t)n, out, &err) < 0)
				continue;
			if (answer_get(out))
				continue;
			if (match(out, arg))
				return 0;
		}
	}
	return -ETIMEDOUT;
}

static int is_type(const struct tp_phd_apdu *a, const void *type)
{
	return a->type == *(const uint16_t *)type;
}

static int is_rsp(const struct tp_phd_apdu *a, const void *invoke)
{
	return a->type == TP_PHD_PRST && a->u.prst.choice == TP_PHD_RORS_CONF_EVENT_REPORT &&
	       a->u.prst.invoke_id == *(const uint16_t *)invoke;
}

/* Association flood: n agents (sysid + i), each its own socket, AARQ only, never
 * released. Prints how many the manager accepted and rejected. */
static int run_flood(const struct tp_phd_device *d, const uint8_t sysid[8], unsigned long n)
{
	unsigned long accepted = 0, rejected = 0, silent = 0;
	uint8_t rx[2048];

	for (unsigned long i = 0; i < n; i++) {
		uint8_t id[8];
		struct tp_phd_apdu a = {.type = TP_PHD_AARQ}, r;
		uint16_t want = TP_PHD_AARE;
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		memcpy(id, sysid, 8);
		id[6] = (uint8_t)(i >> 8);
		id[7] = (uint8_t)i;
		tp_phd_device_aarq(d, id, &a);
		sock = s; /* exchange() uses it; each agent keeps its own port open */
		if (exchange(&a, is_type, &want, &r, rx, sizeof(rx)) < 0)
			silent++;
		else if (r.u.aare.result == TP_PHD_ACCEPTED ||
			 r.u.aare.result == TP_PHD_ACCEPTED_UNKNOWN_CONFIG)
			accepted++;
		else
			rejected++;
	}
	struct tp_json j;
	tp_json_init_file(&j, stdout, false);
	tp_json_obj(&j, NULL);
	tp_json_u64(&j, "flood", n);
	tp_json_u64(&j, "accepted", accepted);
	tp_json_u64(&j, "rejected", rejected);
	tp_json_u64(&j, "unanswered", silent);
	tp_json_end(&j, '}');
	putchar('\n');
	return 0;
}

/* An option's number in [min, max] into *v; otherwise says which value is wrong on
 * stderr and returns -EINVAL. */
static int opt_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	if (tp_parse_u64(s, min, max, v) == 0)
		return 0;
	fprintf(stderr, "phd-sim: %s: bad value '%s' (%" PRIu64 "-%" PRIu64 ")\n", opt, s, min,
		max);
	return -EINVAL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"type", required_argument, NULL, 't'},	{"gw", required_argument, NULL, 'g'},
	    {"sysid", required_argument, NULL, 's'},	{"reports", required_argument, NULL, 'n'},
	    {"interval", required_argument, NULL, 'i'}, {"bind", required_argument, NULL, 'b'},
	    {"timeout", required_argument, NULL, 'T'},	{"no-release", no_argument, NULL, 'R'},
	    {"unconfirmed", no_argument, NULL, 'u'},	{"port", required_argument, NULL, 'p'},
	    {"no-associate", no_argument, NULL, 'A'},	{"flood", required_argument, NULL, 'F'},
	    {"zero-time", no_argument, NULL, 'Z'},	{0},
	};
	const struct tp_phd_device *d = &tp_phd_devices[0];
	char types[256] = "";
	unsigned long reports = 3, interval_ms = 200;
	uint8_t sysid[8] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
	struct sockaddr_in me = {.sin_family = AF_INET};
	int c, release = 1, confirmed = 1, associate = 1;
	unsigned long flood = 0;
	uint64_t v;
	char gwaddr[64] = "127.0.0.1:6024";

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			d = tp_phd_device_find(optarg);
			if (d == NULL) {
				for (const struct tp_phd_device *t = tp_phd_devices; t->name; t++)
					snprintf(types + strlen(types),
						 sizeof(types) - strlen(types), "%s%s",
						 t == tp_phd_devices ? "" : "|", t->name);
				fprintf(stderr, "phd-sim: --type %s\n", types);
				return 2;
			}
			break;
		case 'g':
			snprintf(gwaddr, sizeof(gwaddr), "%s", optarg);
			break;
		case 's':
			if (strlen(optarg) != 16) {
				fprintf(stderr, "phd-sim: --sysid takes 16 hex digits\n");
				return 2;
			}
			for (int i = 0; i < 8; i++)
				if (sscanf(optarg + 2 * i, "%2hhx", &sysid[i]) != 1)
					return 2;
			break;
		case 'n':
			if (opt_u64("--reports", optarg, 0, UINT32_MAX, &v) < 0)
				return 2;
			reports = (unsigned long)v;
			break;
		case 'i':
			if (opt_u64("--interval", optarg, 0, 3600000, &v) < 0)
				return 2;
			interval_ms = (unsigned long)v;
			break;
		case 'b':
			if (inet_pton(AF_INET, optarg, &me.sin_addr) != 1)
				return 2;
			break;
		case 'T':
			if (opt_u64("--timeout", optarg, 1, 3600000, &v) < 0)
				return 2;
			timeout_ms = (unsigned int)v;
			break;
		case 'R':
			release = 0;
			break;
		case 'u':
			confirmed = 0;
			break;
		case 'p':
			if (opt_u64("--port", optarg, 0, 65535, &v) < 0)
				return 2;
			me.sin_port = htons((uint16_t)v);
			break;
		case 'A':
			associate = 0; /* reports from an agent the manager does not know */
			release = 0;
			confirmed = 0;
			break;
		case 'F':
			if (opt_u64("--flood", optarg, 0, UINT32_MAX, &v) < 0)
				return 2;
			flood = (unsigned long)v;
			break;
		case 'Z':
			zero_time = 1; /* a device whose clock was never set */
			break;
		default:
			fprintf(stderr,
				"usage: phd-sim --type T --gw A.B.C.D:PORT [--sysid HEX16] "
				"[--reports N] [--interval MS] [--bind ADDR] [--timeout MS] "
				"[--unconfirmed] [--no-release] [--port N] [--no-associate] "
				"[--flood N] [--zero-time]\n");
			return 2;
		}
	}
	char *colon = strchr(gwaddr, ':');
	gw.sin_family = AF_INET;
	v = 6024;
	if (colon && opt_u64("--gw (port)", colon + 1, 1, 65535, &v) < 0)
		return 2;
	gw.sin_port = htons((uint16_t)v);
	if (colon)
		*colon = '\0';
	if (inet_pton(AF_INET, gwaddr, &gw.sin_addr) != 1) {
		fprintf(stderr, "phd-sim: bad --gw\n");
		return 2;
	}
	sock = socket(AF_INET, SOCK_DGRAM, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("phd-sim: socket");
		return 1;
	}

	uint8_t rx[2048], store[2048], info[2048];
	struct tp_phd_apdu a = {.type = TP_PHD_AARQ}, r;
	dev = d;
	my_sysid = sysid;
	if (flood)
		return run_flood(d, sysid, flood);
	tp_phd_device_aarq(d, sysid, &a);
	uint16_t want = TP_PHD_AARE;
	const char *result = "ok";
	int configured = 0;
	uint16_t invoke = 0;

	if (!associate) {
		r.u.aare.result = TP_PHD_ACCEPTED; /* pretend: report as if associated */
	} else if (exchange(&a, is_type, &want, &r, rx, sizeof(rx)) < 0) {
		result = "no AARE";
		goto out;
	}
	if (r.u.aare.result == TP_PHD_ACCEPTED_UNKNOWN_CONFIG) {
		struct tp_phd_config_report cfg;
		if (tp_phd_device_config(d, &cfg, store, sizeof(store)) < 0) {
			result = "config encode";
			goto out;
		}
		int n = tp_phd_encode_config_report(&cfg, info, sizeof(info));
		struct tp_phd_apdu p = {.type = TP_PHD_PRST};
		p.u.prst.invoke_id = invoke;
		p.u.prst.choice = TP_PHD_ROIV_CONF_EVENT_REPORT;
		p.u.prst.u.evt.obj_handle = TP_PHD_HANDLE_MDS;
		p.u.prst.u.evt.time = TP_PHD_TIME_NONE;
		p.u.prst.u.evt.type = MDC_NOTI_CONFIG;
		p.u.prst.u.evt.info = (struct tp_phd_octets){info, (uint16_t)n};
		if (n < 0 || exchange(&p, is_rsp, &invoke, &r, rx, sizeof(rx)) < 0) {
			result = "configuration not answered";
			goto out;
		}
		invoke++;
		configured = 1;
	} else if (r.u.aare.result != TP_PHD_ACCEPTED) {
		result = tp_phd_assoc_result_name(r.u.aare.result);
		goto out;
	}

	/* the value map the reports follow: the standard one, or ours */
	struct tp_phd_value_map map;
	if (!configured && !associate && d->config_id != 0x0190) {
		struct tp_phd_config_report cfg;
		struct tp_phd_error err;
		tp_phd_device_config(d, &cfg, store, sizeof(store));
		tp_phd_value_map_build(&cfg, &map, &err);
	} else if (!configured) {
		if (tp_phd_std_value_map(d->config_id, &map) < 0) {
			result = "no standard configuration";
			goto out;
		}
	} else {
		struct tp_phd_config_report cfg;
		struct tp_phd_error err;
		tp_phd_device_config(d, &cfg, store, sizeof(store));
		tp_phd_value_map_build(&cfg, &map, &err);
	}
	/* the last value of each metric, in the order a gateway names them (objects in
	 * configuration order, a compound's components in order) */
	struct tp_phd_reading last[TP_PHD_MAX_CFG_OBJS * TP_PHD_MAX_CMP];
	unsigned int nlast = 0;
	for (unsigned long i = 0; i < reports; i++) {
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		struct tp_phd_abs_time at = tp_phd_abs_time_from_tm(&tm);
		/* an unset clock sends zeros */
		int n =
		    tp_phd_device_scan_report(d, &map, i, (uint16_t)i, zero_time ? NULL : &at, info,
					      sizeof(info), i + 1 == reports ? last : NULL, &nlast);
		struct tp_phd_apdu p = {.type = TP_PHD_PRST};
		p.u.prst.invoke_id = invoke;
		p.u.prst.choice =
		    confirmed ? TP_PHD_ROIV_CONF_EVENT_REPORT : TP_PHD_ROIV_EVENT_REPORT;
		p.u.prst.u.evt.obj_handle = TP_PHD_HANDLE_MDS;
		p.u.prst.u.evt.time = TP_PHD_TIME_NONE;
		p.u.prst.u.evt.type = MDC_NOTI_SCAN_REPORT_FIXED;
		p.u.prst.u.evt.info = (struct tp_phd_octets){info, (uint16_t)(n > 0 ? n : 0)};
		if (n < 0) {
			result = "scan report encode";
			goto out;
		}
		if (confirmed) {
			if (exchange(&p, is_rsp, &invoke, &r, rx, sizeof(rx)) == 0)
				acked++;
		} else {
			send_apdu(&p);
		}
		invoke++;
		if (i + 1 < reports)
			usleep((useconds_t)interval_ms * 1000);
	}
	if (release) {
		struct tp_phd_apdu rl = {.type = TP_PHD_RLRQ};
		want = TP_PHD_RLRE;
		rl.u.reason = 0; /* normal */
		if (exchange(&rl, is_type, &want, &r, rx, sizeof(rx)) < 0)
			result = "no RLRE";
	}
	struct tp_json j;
	tp_json_init_file(&j, stdout, false);
	tp_json_obj(&j, NULL);
	tp_json_str(&j, "device", d->name);
	tp_json_str(&j, "result", result);
	tp_json_bool(&j, "configured", configured);
	tp_json_u64(&j, "reports", reports);
	tp_json_u64(&j, "acked", acked);
	tp_json_u64(&j, "retransmissions", retransmissions);
	tp_json_u64(&j, "gets_answered", gets_answered);
	tp_json_arr(&j, "last");
	for (unsigned int k = 0; k < nlast; k++) {
		tp_json_obj(&j, NULL);
		tp_json_u64(&j, "handle", last[k].handle);
		if (last[k].component >= 0)
			tp_json_i64(&j, "component", last[k].component);
		tp_json_numf(&j, "value", "%g", last[k].value);
		tp_json_end(&j, '}');
	}
	tp_json_end(&j, ']');
	tp_json_end(&j, '}');
	putchar('\n');
	return strcmp(result, "ok") == 0 ? 0 : 1;
out:
	tp_json_init_file(&j, stdout, false);
	tp_json_obj(&j, NULL);
	tp_json_str(&j, "device", d->name);
	tp_json_str(&j, "result", result);
	tp_json_u64(&j, "retransmissions", retransmissions);
	tp_json_end(&j, '}');
	putchar('\n');
	return 1;
}
