/* SPDX-License-Identifier: BSD-3-Clause */
/* Next-hop groups (ECMP): a route's LPM value with TP_NH_GROUP set names a group, and
 * the fast path picks one of its members by a hash of the packet's flow.
 *
 * A group is a bucket table of TP_NHG_BUCKETS next-hop ids filled by the members'
 * weights, published as one pointer per group id: the control plane builds a new
 * table, stores the pointer (release) and frees the old one after an RCU grace
 * period, so a reader sees either group whole. A new member set keeps every bucket
 * whose member stays (up to its new share) and hands out only the others: a member's
 * removal moves the flows of its buckets and no other (resilient hashing, as the
 * kernel's resilient groups do; RFC 2992 on what moving flows costs). Written by the
 * control plane only (route.c); the workers read tp_nhg_table. */
#ifndef TP_NF_IP4_CONTROL_NHG_H
#define TP_NF_IP4_CONTROL_NHG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* An LPM value with this bit names group (value & TP_NHG_ID_MASK); next-hop ids stay
 * below TP_NH_MAX (2^16), the LPM holds 24 bits. */
#define TP_NH_GROUP (1u << 23)
#define TP_NHG_ID_MASK 0xffffu
#define TP_NHG_BUCKETS 256u /* a power of two; bucket ids are uint16_t next hops */
#define TP_NHG_MEMBERS 32u  /* at most, per group: a route with more does not fit */
#define TP_NHG_DEFAULT 4096u

struct tp_nhg_member {
	uint32_t nh;	 /* next-hop id (a neighbour's) */
	uint32_t weight; /* 1..256: the kernel's rtnh_hops + 1 */
};

struct tp_nhg {
	uint16_t bucket[TP_NHG_BUCKETS]; /* what the workers read: the member of a hash */
	/* control plane only */
	uint32_t n;
	struct tp_nhg_member m[TP_NHG_MEMBERS];
};

/* By group id; an id's entry is never NULL while any LPM value may name it. */
extern struct tp_nhg **tp_nhg_table;

/* Datapath: the next-hop id group gid gives a flow of hash h. */
static inline uint32_t tp_nhg_pick(uint32_t gid, uint32_t h)
{
	const struct tp_nhg *g = __atomic_load_n(&tp_nhg_table[gid], __ATOMIC_ACQUIRE);

	return g->bucket[h & (TP_NHG_BUCKETS - 1)];
}

/* A flow's hash for the pick: symmetric (src and dst, source and destination port
 * swapped give the same value), seeded at init. proto and ports (the two XORed): a TCP
 * or UDP packet's; both 0 for the others and for fragments, which go by addresses. */
extern uint64_t tp_nhg_seed;
static inline uint32_t tp_nhg_hash(uint32_t src, uint32_t dst, uint8_t proto, uint16_t ports)
{
	uint64_t x = ((uint64_t)(src ^ dst) << 32 | (uint32_t)ports << 8 | proto) ^ tp_nhg_seed;

	/* two multiply-xorshift rounds (splitmix64's finaliser): every input bit reaches
	 * the low byte, which indexes the buckets */
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(x ^ (x >> 31));
}

/* The flow hash of an IPv4 header of IHL 5 whose total length is in its field, seg
 * bytes of the packet from it in its segment: addresses, protocol and ports for an
 * unfragmented TCP or UDP packet with its 4 bytes of ports in the segment, addresses
 * only otherwise. */
static inline uint32_t tp_nhg_hash_ip4(const uint8_t *ip, uint32_t seg)
{
	uint32_t s, d;
	uint16_t ports = 0, sp, dp;
	uint8_t proto = 0;

	memcpy(&s, ip + 12, 4);
	memcpy(&d, ip + 16, 4);
	/* RFC 791 3.1: MF (0x2000) or a fragment offset: a fragment, no ports */
	if ((ip[9] == 6 || ip[9] == 17) && (ip[6] & 0x3f) == 0 && ip[7] == 0 && seg >= 24 &&
	    ((uint32_t)ip[2] << 8 | ip[3]) >= 24) {
		memcpy(&sp, ip + 20, 2);
		memcpy(&dp, ip + 22, 2);
		ports = sp ^ dp;
		proto = ip[9];
	}
	return tp_nhg_hash(s, d, proto, ports);
}

/* The next hop an LPM value id (a next-hop id, UINT32_MAX for a miss, or a group) gives
 * a flow of hash h: the group's member, or id itself. */
static inline uint32_t tp_nhg_resolve(uint32_t id, uint32_t h)
{
	return id != UINT32_MAX && (id & TP_NH_GROUP) ? tp_nhg_pick(id & TP_NHG_ID_MASK, h) : id;
}

/* The table for max groups (1..65536), the hash seeded at random. 0 or negative errno. */
int tp_nhg_init(unsigned int max);
/* Free the table and its groups (no reader left). */
void tp_nhg_fini(void);
/* A free group id, with no table yet (set it before any LPM value names it): >= 0, or
 * -ENOSPC when every id is in use. */
int tp_nhg_alloc(void);
/* Publish members m[0..n) (1 <= n <= TP_NHG_MEMBERS, weights 1..256, distinct next
 * hops) as group gid's bucket table, built from its current one when it has one: a
 * member that stays keeps its buckets up to its new share. The old table is freed
 * after a grace period. 0, -EINVAL or -ENOMEM (the group unchanged). The caller keeps
 * the members' references: those of the old members must outlive the old table (a
 * neighbour's next hop is freed after a grace period itself). */
int tp_nhg_set(uint32_t gid, const struct tp_nhg_member *m, unsigned int n);
/* tp_nhg_set, a group without a table yet built from from's buckets (another group's
 * table, read at once): the flows of the members both have stay where they were. */
int tp_nhg_set_from(uint32_t gid, const struct tp_nhg_member *m, unsigned int n,
		    const struct tp_nhg *from);
/* Group gid as published (NULL when it has no table). Control plane. */
const struct tp_nhg *tp_nhg_get(uint32_t gid);
/* Give gid back: its table freed and its id free again after a grace period (no LPM
 * value must name it any more). */
void tp_nhg_free(uint32_t gid);
/* Groups in use; capacity. */
unsigned int tp_nhg_count(void);
unsigned int tp_nhg_max(void);

#endif
