/* SPDX-License-Identifier: BSD-3-Clause */
/* Command output as a small tree, rendered as JSON or as human-readable text.
 *
 * Handlers build the tree with the tp_out_* calls; the API server renders it
 * once, in the form the client asked for, so one handler serves both twinctl
 * and --json. Lists of flat objects render as aligned tables in text form.
 * The tree owns every string it is given (copied). Control plane only. */
#ifndef TP_CONTROL_OUT_H
#define TP_CONTROL_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct tp_node;

/* New empty object (the root of a response). NULL on allocation failure. */
struct tp_node *tp_out_new(void);
void tp_out_free(struct tp_node *n);

/* Add children to an object (key != NULL) or a list (key ignored). Each returns the
 * new child, or NULL on allocation failure (the tree stays valid). */
struct tp_node *tp_out_obj(struct tp_node *parent, const char *key);
struct tp_node *tp_out_list(struct tp_node *parent, const char *key);
struct tp_node *tp_out_str(struct tp_node *parent, const char *key, const char *val);
struct tp_node *tp_out_strf(struct tp_node *parent, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
struct tp_node *tp_out_u64(struct tp_node *parent, const char *key, uint64_t val);
struct tp_node *tp_out_i64(struct tp_node *parent, const char *key, int64_t val);
struct tp_node *tp_out_dbl(struct tp_node *parent, const char *key, double val);
struct tp_node *tp_out_bool(struct tp_node *parent, const char *key, bool val);

/* Render into a malloc'd NUL-terminated string (caller frees); NULL on failure. */
char *tp_out_render(const struct tp_node *root, bool json);

#endif
