/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop's direct-mapped rows (PKSTOP_DIRECT_ROWS, bpf/pkstop.h), as user
 * space sees them: an array it maps, whose live rows join the thread
 * hash map's in each sample, and whose rows it frees.  Pure but for the
 * mapping: the host tests feed it arrays.
 */
#ifndef PKSTOP_ROWS_H
#define PKSTOP_ROWS_H

#include <stdbool.h>
#include <linux/types.h>

#include "pkstop.h"
#include "pks_common.h"	/* struct pks_map_dump */

/* Map the rows of array map @fd and mark them all free: NULL on failure. */
struct pkstop_thread *pkstop_rows_map(int fd);
void pkstop_rows_unmap(struct pkstop_thread *rows);

/* Mark every row free: before the programs that claim them attach. */
void pkstop_rows_init(struct pkstop_thread *rows);

/* Append the live rows to @snap (keys: TIDs): 0 or -ENOMEM. */
int pkstop_rows_append(const struct pkstop_thread *rows, struct pks_map_dump *snap);

/* Free @tid's direct row, if it has one: whether it had. */
bool pkstop_rows_forget(struct pkstop_thread *rows, __u32 tid);

#endif
