/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 codec: checks of RFC 1812 5.2.2, checksum and RFC 1624 arithmetic against DPDK's own;
 * beside it the IPv6 text forms and the UDP checksum over IPv6 (against DPDK's). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <rte_ip.h>

#include "../../src/proto/ip4.h"
#include "../../src/proto/ip6.h"
#include "../../src/proto/udp.h"

static void random_header(uint8_t *ip, unsigned int seed)
{
	srand(seed);
	tp_ip4_write(ip, (uint32_t)rand(), (uint32_t)rand(), (uint8_t)rand(),
		     (uint8_t)(2 + rand() % 254), (uint16_t)(rand() % 1400), (uint16_t)rand());
}

static void test_cksum_matches_dpdk(void **state)
{
	uint8_t ip[20];

	for (unsigned int i = 0; i < 10000; i++) {
		random_header(ip, i);
		uint16_t mine;
		memcpy(&mine, ip + 10, 2);
		ip[10] = ip[11] = 0;
		/* DPDK's rte_ipv4_cksum is the independent reference */
		assert_int_equal(mine, rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip));
		memcpy(ip + 10, &mine, 2);
		/* the check reads the header only; say the frame holds the whole packet */
		assert_int_equal(tp_ip4_check(ip, ((size_t)ip[2] << 8) | ip[3]), TP_IP4_OK);
	}
}

/* Headers written by scapy (IP(src, dst, ttl, proto=17, id, flags=0, len)), a
 * real implementation: tp_ip4_write gives the same 20 bytes, checksum included. */
static void test_write_matches_scapy(void **state)
{
	static const struct {
		uint32_t src, dst;
		uint8_t ttl;
		uint16_t len, id;
		uint8_t hdr[20];
	} v[] = {
	    {0xc6120001, 0xc6130102, 64, 120, 0x1234, {0x45, 0x00, 0x00, 0x8c, 0x12, 0x34, 0x00,
						       0x00, 0x40, 0x11, 0xdb, 0x04, 0xc6, 0x12,
						       0x00, 0x01, 0xc6, 0x13, 0x01, 0x02}},
	    {0xfffffffe, 0xffffffff, 255, 65515, 0xffff, {0x45, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00,
							  0x00, 0xff, 0x11, 0xbb, 0xee, 0xff, 0xff,
							  0xff, 0xfe, 0xff, 0xff, 0xff, 0xff}},
	    {0x0a000001, 0x0a000002, 1, 8, 0, {0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00,
					       0x00, 0x01, 0x11, 0xa5, 0xcf, 0x0a, 0x00,
					       0x00, 0x01, 0x0a, 0x00, 0x00, 0x02}},
	};
	uint8_t ip[20];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(ip, 0xa5, sizeof(ip));
		assert_int_equal(tp_ip4_write(ip, htonl(v[i].src), htonl(v[i].dst), 17, v[i].ttl,
					      v[i].len, v[i].id),
				 20);
		assert_memory_equal(ip, v[i].hdr, 20);
	}
}

static void test_ttl_dec_incremental(void **state)
{
	uint8_t ip[20];

	for (unsigned int i = 0; i < 10000; i++) {
		random_header(ip, i + 77);
		uint8_t ttl = ip[8];
		tp_ip4_ttl_dec(ip);
		assert_int_equal(ip[8], ttl - 1);
		uint16_t inc;
		memcpy(&inc, ip + 10, 2);
		/* a full recomputation must agree (RFC 1624 eqn. 3 has no -0 pitfall) */
		assert_int_equal(inc, tp_ip4_cksum(ip, 20));
		assert_int_equal(tp_ip4_check(ip, ((size_t)ip[2] << 8) | ip[3]), TP_IP4_OK);
	}
}

static void test_ttl_dec_edge_checksums(void **state)
{
	/* headers whose checksums sit at 0x0000 / 0xffff boundaries */
	uint8_t ip[20];
	unsigned int seen = 0;

	for (uint32_t s = 0; s < 200000 && seen < 20; s++) {
		tp_ip4_write(ip, s, ~s, 17, 64, 20, (uint16_t)s);
		if (ip[10] != 0xff && !(ip[10] == 0 && ip[11] < 2))
			continue;
		seen++;
		tp_ip4_ttl_dec(ip);
		uint16_t inc;
		memcpy(&inc, ip + 10, 2);
		assert_int_equal(inc, tp_ip4_cksum(ip, 20));
	}
	assert_true(seen > 0);
}

static void test_check_verdicts(void **state)
{
	uint8_t ip[64];

	tp_ip4_write(ip, 0x0a000001, 0x0a000002, 17, 64, 8, 1);
	assert_int_equal(tp_ip4_check(ip, 28), TP_IP4_OK);
	assert_int_equal(tp_ip4_check(ip, 19), TP_IP4_TOO_SHORT);
	assert_int_equal(tp_ip4_check(ip, 27), TP_IP4_LEN_EXCEEDS_FRAME);

	ip[0] = 0x65;
	assert_int_equal(tp_ip4_check(ip, 28), TP_IP4_BAD_VERSION);
	ip[0] = 0x44;
	assert_int_equal(tp_ip4_check(ip, 28), TP_IP4_BAD_IHL);
	ip[0] = 0x4f; /* 60 bytes of header in a 28-byte packet */
	assert_int_equal(tp_ip4_check(ip, 28), TP_IP4_BAD_IHL);
	ip[0] = 0x45;
	ip[2] = 0;
	ip[3] = 10; /* total length below the header */
	assert_int_equal(tp_ip4_check(ip, 28), TP_IP4_BAD_TOTAL_LEN);
	tp_ip4_write(ip, 0x0a000001, 0x0a000002, 17, 64, 8, 1);
	ip[11] ^= 0x01;
	assert_int_equal(tp_ip4_check(ip, 28), TP_IP4_BAD_CHECKSUM);
}

static void test_text_forms(void **state)
{
	uint32_t ip;
	uint8_t depth, mac[6];
	char buf[18];

	assert_int_equal(tp_ip4_parse_prefix("10.1.2.0/24", &ip, &depth), 0);
	assert_int_equal(ip, 0x0a010200);
	assert_int_equal(depth, 24);
	assert_int_equal(tp_ip4_parse_prefix("10.1.2.0/33", &ip, &depth), -EINVAL);
	assert_int_equal(tp_ip4_parse_prefix("10.1.2.0/", &ip, &depth), -EINVAL);
	assert_int_equal(tp_ip4_parse_prefix("10.1.2/8", &ip, &depth), -EINVAL);
	assert_int_equal(tp_ip4_parse_addr("256.0.0.1", &ip), -EINVAL);
	assert_string_equal(tp_ip4_fmt(0xc0a80001, buf), "192.168.0.1");
	assert_int_equal(tp_mac_parse("02:00:00:00:01:0a", mac), 0);
	assert_string_equal(tp_mac_fmt(mac, buf), "02:00:00:00:01:0a");
	assert_int_equal(tp_mac_parse("02:00:00:00:01", mac), -EINVAL);
	assert_int_equal(tp_mac_parse("02:00:00:00:01:0a:ff", mac), -EINVAL);
}

/* tp_udp6_cksum against DPDK's rte_ipv6_udptcp_cksum (RFC 8200 8.1), odd and even
 * lengths, random addresses and payloads. */
static void test_udp6_cksum_matches_dpdk(void **state)
{
	uint8_t pkt[40 + 1500];

	for (unsigned int seed = 1; seed <= 300; seed++) {
		uint8_t src[16], dst[16];
		uint16_t len = (uint16_t)(8 + seed * 7 % 1400), ck;
		srand(seed);
		for (int i = 0; i < 16; i++)
			src[i] = (uint8_t)rand(), dst[i] = (uint8_t)rand();
		tp_ip6_write(pkt, src, dst, TP_IP6_NH_UDP, 64, len);
		for (unsigned int i = 8; i < len; i++)
			pkt[40 + i] = (uint8_t)rand();
		tp_udp_write(pkt + 40, (uint16_t)rand(), (uint16_t)rand(), (uint16_t)(len - 8));
		ck = tp_udp6_cksum(pkt, pkt + 40, len);
		assert_int_equal(ck,
				 rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)pkt, pkt + 40));
		memcpy(pkt + 46, &ck, 2); /* and the datagram with it verifies */
		assert_int_equal(
		    rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)pkt, pkt + 40), 0);
	}
}

static void test_ip6_text_forms(void **state)
{
	static const uint8_t net[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x50};
	uint8_t ip[16], depth;
	char buf[TP_IP6_STRLEN];

	/* masked to the length, as the kernel keys its routes */
	assert_int_equal(tp_ip6_parse_prefix("2001:db8:50:ff::1/44", ip, &depth), 0);
	assert_memory_equal(ip, net, 16);
	assert_int_equal(depth, 44);
	assert_string_equal(tp_ip6_fmt(ip, buf), "2001:db8:50::");
	assert_int_equal(tp_ip6_parse_prefix("::/0", ip, &depth), 0);
	assert_int_equal(depth, 0);
	assert_int_equal(tp_ip6_parse_prefix("2001:db8::/129", ip, &depth), -EINVAL);
	assert_int_equal(tp_ip6_parse_prefix("2001:db8::", ip, &depth), -EINVAL);
	assert_int_equal(tp_ip6_parse_prefix("2001:db8::/", ip, &depth), -EINVAL);
	assert_int_equal(tp_ip6_parse_prefix("10.0.0.0/8", ip, &depth), -EINVAL);
	assert_int_equal(tp_ip6_parse_addr("2001:db8::zz", ip), -EINVAL);
	assert_int_equal(tp_ip6_parse_addr("fe80::1", ip), 0);
	assert_string_equal(tp_ip6_fmt(ip, buf), "fe80::1"); /* RFC 5952 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cksum_matches_dpdk),
	    cmocka_unit_test(test_write_matches_scapy),
	    cmocka_unit_test(test_ttl_dec_incremental),
	    cmocka_unit_test(test_ttl_dec_edge_checksums),
	    cmocka_unit_test(test_check_verdicts),
	    cmocka_unit_test(test_text_forms),
	    cmocka_unit_test(test_udp6_cksum_matches_dpdk),
	    cmocka_unit_test(test_ip6_text_forms),
	};
	return cmocka_run_group_tests_name("proto_ip4", tests, NULL, NULL);
}
