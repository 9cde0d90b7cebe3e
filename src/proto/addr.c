/* SPDX-License-Identifier: BSD-3-Clause */
/* Text forms of IPv4 and IPv6 addresses, prefixes and MAC addresses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ip4.h"
#include "ip6.h"

int tp_ip4_parse_addr(const char *s, uint32_t *ip)
{
	struct in_addr a;
	if (s == NULL || inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = ntohl(a.s_addr);
	return 0;
}

int tp_ip4_parse_prefix(const char *s, uint32_t *ip, uint8_t *depth)
{
	char buf[32];
	char *slash, *end;
	long d = 32;

	if (s == NULL || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		if (slash[1] == '\0')
			return -EINVAL;
		d = strtol(slash + 1, &end, 10);
		if (*end != '\0' || d < 0 || d > 32)
			return -EINVAL;
	}
	if (tp_ip4_parse_addr(buf, ip) < 0)
		return -EINVAL;
	*depth = (uint8_t)d;
	return 0;
}

int tp_ip6_parse_addr(const char *s, uint8_t ip[16])
{
	struct in6_addr a;
	if (s == NULL || inet_pton(AF_INET6, s, &a) != 1)
		return -EINVAL;
	memcpy(ip, &a, 16);
	return 0;
}

int tp_ip6_parse_prefix(const char *s, uint8_t ip[16], uint8_t *depth)
{
	char buf[64];
	char *slash, *end;
	long d;

	if (s == NULL || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL || slash[1] == '\0')
		return -EINVAL;
	*slash = '\0';
	d = strtol(slash + 1, &end, 10);
	if (*end != '\0' || d < 0 || d > 128 || tp_ip6_parse_addr(buf, ip) < 0)
		return -EINVAL;
	/* masked to the length, as the kernel keys its routes */
	for (unsigned int i = 0; i < 16; i++) {
		long bits = d - 8 * (long)i;
		ip[i] = bits >= 8 ? ip[i] : bits <= 0 ? 0 : (uint8_t)(ip[i] & (0xff00u >> bits));
	}
	*depth = (uint8_t)d;
	return 0;
}

char *tp_ip6_fmt(const uint8_t ip[16], char *buf)
{
	if (inet_ntop(AF_INET6, ip, buf, TP_IP6_STRLEN) == NULL)
		buf[0] = '\0';
	return buf;
}

char *tp_ip4_fmt(uint32_t ip, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
	return buf;
}

int tp_mac_parse(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;
	if (s == NULL || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4],
				&v[5], &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

char *tp_mac_fmt(const uint8_t mac[6], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
	return buf;
}
