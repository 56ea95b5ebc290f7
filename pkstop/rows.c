// SPDX-License-Identifier: GPL-2.0
/* pkstop's direct-mapped rows; see rows.h and PKSTOP_DIRECT_ROWS. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "rows.h"

#define ROWS_BYTES	(PKSTOP_DIRECT_ROWS * sizeof(struct pkstop_thread))

static void row_reset(struct pkstop_thread *t)
{
	__u32 tid = t->tid;

	memset(t, 0, sizeof(*t));
	t->key = -1;
	t->tid = tid;
}

void pkstop_rows_init(struct pkstop_thread *rows)
{
	size_t i;

	for (i = 0; i < PKSTOP_DIRECT_ROWS; i++) {
		rows[i].tid = 0;
		row_reset(&rows[i]);
	}
}

struct pkstop_thread *pkstop_rows_map(int fd)
{
	void *m = mmap(NULL, ROWS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return NULL;
	pkstop_rows_init(m);
	return m;
}

void pkstop_rows_unmap(struct pkstop_thread *rows)
{
	if (rows)
		munmap(rows, ROWS_BYTES);
}

int pkstop_rows_append(const struct pkstop_thread *rows, struct pks_map_dump *snap)
{
	struct pkstop_thread *values;
	__u32 *keys, tid;
	size_t i;

	if (pks_map_dump_reserve(snap, PKSTOP_DIRECT_ROWS, sizeof(*keys), sizeof(*values)))
		return -ENOMEM;
	keys = snap->keys;
	values = snap->values;
	for (i = 0; i < PKSTOP_DIRECT_ROWS; i++) {
		/* Pairs with the claim's compare-and-exchange in BPF. */
		tid = __atomic_load_n(&rows[i].tid, __ATOMIC_ACQUIRE);
		if (!tid)
			continue;
		keys[snap->n] = tid;
		values[snap->n] = rows[i];
		/* A row claimed while copied: the tag is what was read. */
		values[snap->n].tid = tid;
		snap->n++;
	}
	return 0;
}

bool pkstop_rows_forget(struct pkstop_thread *rows, __u32 tid)
{
	struct pkstop_thread *t;

	if (tid & PKS_ROW_PER_CPU)
		return false;
	t = &rows[tid & (PKSTOP_DIRECT_ROWS - 1)];
	if (t->tid != tid)
		return false;
	row_reset(t);
	/* Last, so that a claim finds the row reset. */
	__atomic_store_n(&t->tid, 0, __ATOMIC_RELEASE);
	return true;
}
