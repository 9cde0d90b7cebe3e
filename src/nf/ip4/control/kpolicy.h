/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel policy for the TAPs: punted frames are routed only through TAPs. */
#ifndef TP_CONTROL_KPOLICY_H
#define TP_CONTROL_KPOLICY_H

/* The interface group of the TAPs ('tp'): the policy rules tell them from the rest. */
#define TP_TAP_IFGROUP 0x7470u

/* TAP tap (ifindex) joins the group, gets a loose rp_filter and its two rules
 * (kpolicy.c). 0 or negative errno (the rules are then removed). */
int tp_kpolicy_tap_add(const char *tap, int ifindex);
/* Remove the TAP's rules (the rules outlive the TAP otherwise). */
void tp_kpolicy_tap_del(const char *tap);

#endif
