/* SPDX-License-Identifier: BSD-3-Clause */
/* IEEE 11073-20601 names: APDU and message choices, results, reasons, codec errors. */
#include <stdio.h>

#include "mder.h"

const char *tp_phd_apdu_name(uint16_t type)
{
	switch (type) {
	case TP_PHD_AARQ:
		return "AARQ";
	case TP_PHD_AARE:
		return "AARE";
	case TP_PHD_RLRQ:
		return "RLRQ";
	case TP_PHD_RLRE:
		return "RLRE";
	case TP_PHD_ABRT:
		return "ABRT";
	case TP_PHD_PRST:
		return "PRST";
	}
	return NULL;
}

const char *tp_phd_choice_name(uint16_t choice)
{
	switch (choice) {
	case TP_PHD_ROIV_EVENT_REPORT:
		return "roiv-cmip-event-report";
	case TP_PHD_ROIV_CONF_EVENT_REPORT:
		return "roiv-cmip-confirmed-event-report";
	case TP_PHD_ROIV_GET:
		return "roiv-cmip-get";
	case TP_PHD_ROIV_SET:
		return "roiv-cmip-set";
	case TP_PHD_ROIV_CONF_SET:
		return "roiv-cmip-confirmed-set";
	case TP_PHD_ROIV_ACTION:
		return "roiv-cmip-action";
	case TP_PHD_ROIV_CONF_ACTION:
		return "roiv-cmip-confirmed-action";
	case TP_PHD_RORS_CONF_EVENT_REPORT:
		return "rors-cmip-confirmed-event-report";
	case TP_PHD_RORS_GET:
		return "rors-cmip-get";
	case TP_PHD_RORS_CONF_SET:
		return "rors-cmip-confirmed-set";
	case TP_PHD_RORS_CONF_ACTION:
		return "rors-cmip-confirmed-action";
	case TP_PHD_ROER:
		return "roer";
	case TP_PHD_RORJ:
		return "rorj";
	}
	return NULL;
}

const char *tp_phd_assoc_result_name(uint16_t r)
{
	static const char *const n[] = {
	    "accepted",
	    "rejected-permanent",
	    "rejected-transient",
	    "accepted-unknown-config",
	    "rejected-no-common-protocol",
	    "rejected-no-common-parameter",
	    "rejected-unknown",
	    "rejected-unauthorized",
	    "rejected-unsupported-assoc-version",
	};
	return r < sizeof(n) / sizeof(n[0]) ? n[r] : NULL;
}

const char *tp_phd_release_reason_name(uint16_t r)
{
	static const char *const n[] = {"normal", "no-more-configurations",
					"configuration-changed"};
	return r < sizeof(n) / sizeof(n[0]) ? n[r] : NULL;
}

const char *tp_phd_abort_reason_name(uint16_t r)
{
	static const char *const n[] = {"undefined", "buffer-overflow", "response-timeout",
					"configuration-timeout"};
	return r < sizeof(n) / sizeof(n[0]) ? n[r] : NULL;
}

const char *tp_phd_config_result_name(uint16_t r)
{
	static const char *const n[] = {"accepted-config", "unsupported-config",
					"standard-config-unknown"};
	return r < sizeof(n) / sizeof(n[0]) ? n[r] : NULL;
}

const char *tp_phd_error_value_name(uint16_t e)
{
	switch (e) {
	case 1:
		return "no-such-object-instance";
	case 2:
		return "access-denied";
	case 9:
		return "no-such-action";
	case 17:
		return "invalid-object-instance";
	case 23:
		return "protocol-violation";
	case 24:
		return "not-allowed-by-object";
	case 25:
		return "action-timed-out";
	case 26:
		return "action-aborted";
	}
	return NULL;
}

const char *tp_phd_reject_problem_name(uint16_t p)
{
	switch (p) {
	case 0:
		return "unrecognized-apdu";
	case 2:
		return "badly-structured-apdu";
	case 101:
		return "unrecognized-operation";
	case 103:
		return "resource-limitation";
	case 303:
		return "unexpected-error";
	}
	return NULL;
}

const char *tp_phd_modify_operator_name(uint16_t op)
{
	static const char *const n[] = {"replace", "add-values", "remove-values", "set-to-default"};
	return op < sizeof(n) / sizeof(n[0]) ? n[op] : NULL;
}

const char *tp_phd_vkind_name(uint8_t kind)
{
	static const char *const n[] = {
	    [TP_PHD_V_OCTETS] = "octets",
	    [TP_PHD_V_SFLOAT] = "SFLOAT",
	    [TP_PHD_V_FLOAT] = "FLOAT",
	    [TP_PHD_V_NU_OBS] = "NuObsValue",
	    [TP_PHD_V_SFLOAT_CMP] = "SFLOAT-cmp",
	    [TP_PHD_V_FLOAT_CMP] = "FLOAT-cmp",
	    [TP_PHD_V_NU_OBS_CMP] = "NuObsValueCmp",
	    [TP_PHD_V_ABS_TIME] = "AbsoluteTime",
	    [TP_PHD_V_REL_TIME] = "RelativeTime",
	    [TP_PHD_V_HIRES_TIME] = "HighResRelativeTime",
	    [TP_PHD_V_OID] = "OID-Type",
	    [TP_PHD_V_U16] = "INT-U16",
	    [TP_PHD_V_BITS16] = "BITS-16",
	    [TP_PHD_V_BITS32] = "BITS-32",
	    [TP_PHD_V_TYPE] = "TYPE",
	    [TP_PHD_V_AVM] = "AttrValMap",
	    [TP_PHD_V_STRING] = "OCTET STRING",
	    [TP_PHD_V_OID_LIST] = "MetricIdList",
	    [TP_PHD_V_MODEL] = "SystemModel",
	    [TP_PHD_V_TYPEVER] = "TypeVerList",
	    [TP_PHD_V_PROD_SPEC] = "ProductionSpec",
	};
	return kind < sizeof(n) / sizeof(n[0]) ? n[kind] : "?";
}

static const struct {
	const char *name, *text;
} err_text[TP_PHD_ERR_COUNT] = {
    [TP_PHD_OK] = {"OK", "no error"},
    [TP_PHD_E_TRUNCATED] = {"TRUNCATED", "field runs past the end of the data"},
    [TP_PHD_E_LENGTH] = {"LENGTH", "length field exceeds the bytes present"},
    [TP_PHD_E_TRAILING] = {"TRAILING", "bytes left over after the content the length declared"},
    [TP_PHD_E_TOO_MANY] = {"TOO_MANY", "count exceeds the codec's limit"},
    [TP_PHD_E_UNKNOWN_APDU] = {"UNKNOWN_APDU", "unknown APDU type"},
    [TP_PHD_E_UNKNOWN_CHOICE] = {"UNKNOWN_CHOICE", "unknown DataApdu message choice"},
    [TP_PHD_E_UNKNOWN_EVENT] = {"UNKNOWN_EVENT", "event type not decoded here"},
    [TP_PHD_E_BAD_VALUE] = {"BAD_VALUE", "value not allowed"},
    [TP_PHD_E_BAD_TIME] = {"BAD_TIME", "absolute time is not a valid BCD date and time"},
    [TP_PHD_E_ATTR_LEN] = {"ATTR_LEN", "attribute value has the wrong size for its type"},
    [TP_PHD_E_NO_CONFIG] = {"NO_CONFIG", "object handle not in the configuration"},
    [TP_PHD_E_MAP_MISMATCH] = {"MAP_MISMATCH",
			       "obs-val-data does not match the object's Attr-Val-Map"},
    [TP_PHD_E_NO_SPACE] = {"NO_SPACE", "output buffer too small"},
    [TP_PHD_E_TOO_LONG] = {"TOO_LONG", "content too long for a 16-bit length"},
    [TP_PHD_E_INVALID] = {"INVALID", "invalid argument"},
};

const char *tp_phd_err_name(int code)
{
	if (code < 0)
		code = -code;
	return code < TP_PHD_ERR_COUNT ? err_text[code].name : "UNKNOWN";
}

const char *tp_phd_strerror(int code)
{
	if (code < 0)
		code = -code;
	return code < TP_PHD_ERR_COUNT ? err_text[code].text : "unknown error";
}

int tp_phd_error_fmt(const struct tp_phd_error *e, char *buf, size_t len)
{
	const char *field = e->field ? e->field : "?";

	switch (e->code) {
	case TP_PHD_E_TRUNCATED:
	case TP_PHD_E_LENGTH:
	case TP_PHD_E_ATTR_LEN:
	case TP_PHD_E_MAP_MISMATCH:
		return snprintf(buf, len, "%s at offset %u: %s (needs %u bytes, %u present)", field,
				e->offset, tp_phd_strerror(e->code), e->need, e->have);
	case TP_PHD_E_TRAILING:
		return snprintf(buf, len, "%s at offset %u: %s (%u bytes)", field, e->offset,
				tp_phd_strerror(e->code), e->have);
	case TP_PHD_E_TOO_MANY:
		return snprintf(buf, len, "%s at offset %u: %s (%u, limit %u)", field, e->offset,
				tp_phd_strerror(e->code), e->need, e->have);
	case TP_PHD_E_UNKNOWN_APDU:
	case TP_PHD_E_UNKNOWN_CHOICE:
	case TP_PHD_E_UNKNOWN_EVENT:
	case TP_PHD_E_BAD_VALUE:
	case TP_PHD_E_NO_CONFIG:
		return snprintf(buf, len, "%s at offset %u: %s (0x%04x)", field, e->offset,
				tp_phd_strerror(e->code), e->have);
	}
	return snprintf(buf, len, "%s at offset %u: %s", field, e->offset,
			tp_phd_strerror(e->code));
}
