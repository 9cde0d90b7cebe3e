/* SPDX-License-Identifier: BSD-3-Clause */
/* PHD device types as agents describe them: the seed paper's three (configuration
 * ids, their extended configurations) and four with standard configurations (blood
 * pressure, weighing scale, thermometer, glucose meter), with plausible readings.
 * Shared by the simulator, the generator's phd template and the tests, so all send
 * the same. */
#ifndef TP_PROTO_PHD_DEVICES_H
#define TP_PROTO_PHD_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "mder.h"

struct tp_phd_device {
	const char *name;   /* tp_phd_metrics' device: "pulse-oximeter" */
	uint16_t config_id; /* 0x0190 (standard, 10404), or an extended one */
	uint16_t units[4];  /* unit code of metric object 1..n */
};

/* pulse-oximeter, activity-monitor, medication-monitor, blood-pressure, weighing-scale,
 * thermometer, glucose-meter; NULL-name terminated. */
extern const struct tp_phd_device tp_phd_devices[];
/* The device named name, or NULL. */
const struct tp_phd_device *tp_phd_device_find(const char *name);
/* The configuration report the device sends: one numeric object per metric
 * (handles 1..n), each an SFLOAT observation and an absolute time stamp
 * (Attr-Val-Map). Attribute values are encoded into store (size bytes), which
 * cfg points into. 0 or a negative tp_phd_err. */
int tp_phd_device_config(const struct tp_phd_device *d, struct tp_phd_config_report *cfg,
			 uint8_t *store, size_t size);
/* The value map the device's reports follow: the standard one, or its own. */
int tp_phd_device_value_map(const struct tp_phd_device *d, struct tp_phd_value_map *map);
/* The association request the device sends, system id sysid (8 bytes, which a
 * must outlive), as an APDU to encode. */
void tp_phd_device_aarq(const struct tp_phd_device *d, const uint8_t *sysid, struct tp_phd_apdu *a);
/* A plausible value of metric handle h in report (or of agent) i. */
double tp_phd_device_reading(const struct tp_phd_device *d, unsigned int h, unsigned long i);
/* The same for component c of a compound value (blood pressure: systolic, diastolic,
 * mean); c 0 for a simple value. */
double tp_phd_device_component(const struct tp_phd_device *d, unsigned int h, unsigned int c,
			       unsigned long i);

/* A value a scan report carries: metric handle, component of a compound (-1: a
 * simple value), the value before encoding. */
struct tp_phd_reading {
	uint16_t handle;
	int component;
	double value;
};

/* The fixed scan report (event-info of MDC_NOTI_SCAN_REPORT_FIXED) the device sends
 * as its report i, numbered scan_report_no: one observation per object of map, each
 * attribute of its Attr-Val-Map filled: SFLOAT (NU_VAL_OBS_BASIC), FLOAT
 * (NU_VAL_OBS_SIMP) and compound SFLOATs (NU_CMPD_VAL_OBS_BASIC) with the device's
 * readings, the absolute time stamp *stamp (NULL: zeros, a clock never set), other
 * attributes zeros. The one builder of the simulator and the generator. Encodes into
 * info (size bytes). When readings is not NULL, the values written are stored there
 * (room for TP_PHD_MAX_CFG_OBJS * TP_PHD_MAX_CMP), their count in *nreadings.
 * Returns the encoded length, or a negative tp_phd_err. */
int tp_phd_device_scan_report(const struct tp_phd_device *d, const struct tp_phd_value_map *map,
			      unsigned long i, uint16_t scan_report_no,
			      const struct tp_phd_abs_time *stamp, uint8_t *info, size_t size,
			      struct tp_phd_reading *readings, unsigned int *nreadings);

#endif
