/* SPDX-License-Identifier: BSD-3-Clause */
/* Port modes: the registry, the default mode, the 'none' mode. */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_prefetch.h>

#include "../tables/iface.h"
#include "input.h"

static struct tp_port_mode *modes;

void tp_port_mode_register(struct tp_port_mode *m)
{
	struct tp_port_mode **pp = &modes;

	while (*pp)
		pp = &(*pp)->next;
	m->next = NULL;
	*pp = m;
}

struct tp_port_mode *tp_port_mode_find(const char *name)
{
	for (struct tp_port_mode *m = modes; m; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

struct tp_port_mode *tp_port_mode_next(struct tp_port_mode *prev)
{
	return prev ? prev->next : modes;
}

struct tp_port_mode *tp_port_mode_default(void)
{
	for (struct tp_port_mode *m = modes; m; m = m->next)
		if (m->is_default)
			return m;
	return tp_port_mode_find("none");
}

void tp_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i = 0;

	while (i < n) {
		uint16_t j = (uint16_t)(i + 1);
		while (j < n && pkts[j]->port == pkts[i]->port)
			j++;
		tp_iface_table[pkts[i]->port].input(w, pkts + i, (uint16_t)(j - i));
		i = j;
	}
}

static void none_input(struct tp_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		tp_drop(w, pkts[i], TP_DROP_NO_INPUT);
}

/* A port whose packets nothing takes: dropped, counted. */
static struct tp_port_mode mode_none = {
    .name = "none",
    .help = "drop everything received (counted as port_mode_none)",
    .input = none_input,
};
TP_PORT_MODE_REGISTER(mode_none)
