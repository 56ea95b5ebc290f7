// SPDX-License-Identifier: GPL-2.0
/*
 * pkstop's model: per-interval rows from the cumulative, double-buffered
 * BPF counters, the arithmetic of counts, and which rows pass -p and -n.
 */
#include <stdio.h>
#include <string.h>

#include "model.h"

bool pkstop_delta_any(const struct pkstop_delta *d)
{
	return d->opens || d->enables || d->pkrs_writes || d->updates || d->faults;
}

void pkstop_faults_add(uint64_t sum[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES],
		       const uint64_t add[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES])
{
	int key, o;

	for (key = 0; key < PKS_NR_KEYS; key++)
		for (o = 0; o < PKS_FAULT_NR_OUTCOMES; o++)
			sum[key][o] += add[key][o];
}

void pkstop_delta_add(struct pkstop_delta *sum, const struct pkstop_delta *d)
{
	sum->opens += d->opens;
	sum->enables += d->enables;
	sum->pkrs_writes += d->pkrs_writes;
	sum->updates += d->updates;
	sum->faults += d->faults;
}

const char *pkstop_row_context_name(enum pkstop_row_context c)
{
	switch (c) {
	case PKS_ROW_IDLE_TASK:
		return "idle";
	case PKS_ROW_SOFTIRQS:
		return "softirq";
	default:
		return "task";
	}
}

bool pkstop_row_visible(const struct pkstop_row *r, const struct pkstop_opts *o)
{
	char comm[sizeof(r->comm) + 1];

	if (o->pid && r->pid != (uint32_t)o->pid)
		return false;
	if (!o->name)
		return true;
	/* The raw bytes, as the kernel has them; comm need not end in a NUL. */
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(r->comm), r->comm);
	return strstr(comm, o->name);
}

uint64_t pkstop_open_ns(const struct pkstop_thread *t, uint64_t now)
{
	uint64_t ns = t->open_ns;

	/* A window opened after @now (we read the map later) counts next time. */
	if (t->open_since && t->open_since < now)
		ns += now - t->open_since;
	return ns;
}

void pkstop_counts_delta(const struct pkstop_counts *cur, const struct pkstop_counts *prev,
			 struct pkstop_delta *d)
{
	d->opens = cur->opens - prev->opens;
	d->enables = cur->enables - prev->enables;
	d->pkrs_writes = cur->pkrs_writes - prev->pkrs_writes;
	d->updates = cur->updates - prev->updates;
	d->faults = cur->faults - prev->faults;
}

static void fill_task(const struct pkstop_task *task, struct pkstop_row *row)
{
	row->have_state = true;
	row->pkrs = task->pkrs;
	row->depth = task->depth;
	row->pid = task->pid;
	memcpy(row->comm, task->comm, sizeof(row->comm));
	row->comm[sizeof(row->comm) - 1] = '\0';
}

void pkstop_name_cpu_row(uint32_t id, struct pkstop_row *row)
{
	char name[32];

	if (!(id & PKS_ROW_PER_CPU))
		return;
	row->context = (id & PKS_ROW_SOFTIRQ) == PKS_ROW_SOFTIRQ ? PKS_ROW_SOFTIRQS
								  : PKS_ROW_IDLE_TASK;
	row->cpu = PKS_ROW_CPU(id);
	row->tid = 0;
	row->pid = 0;
	/* Through a buffer that fits any id: a comm is cut, never overflowed. */
	snprintf(name, sizeof(name), "%s/%u", pkstop_row_context_name(row->context), row->cpu);
	snprintf(row->comm, sizeof(row->comm), "%.*s", (int)sizeof(row->comm) - 1, name);
}

void pkstop_row_from_task(const struct pkstop_task *task, struct pkstop_row *row)
{
	memset(row, 0, sizeof(*row));
	row->tid = task->tid;
	row->key = -1;
	fill_task(task, row);
	row->max_depth = task->depth;
	row->held_s = -1;
	if (task->depth)
		row->open_pct = 100;
}

void pkstop_account(struct pkstop_tstate *st, const struct pkstop_thread *t,
		    const struct pkstop_task *task, uint64_t old_gen, uint64_t now,
		    uint64_t interval_ns, struct pkstop_row *row)
{
	int slot = old_gen & 1;
	uint64_t open = pkstop_open_ns(t, now), in_interval;
	uint32_t max_depth = 0;

	memset(row, 0, sizeof(*row));
	row->tid = st->tid;
	row->pid = t->pid;
	row->key = t->key;
	memcpy(row->comm, t->comm, sizeof(row->comm));
	row->comm[sizeof(row->comm) - 1] = '\0';
	pkstop_name_cpu_row(st->tid, row);

	/* Slot `slot` has been quiet since the flip: its counts are final. */
	pkstop_counts_delta(&t->c[slot], &st->prev[slot], &row->d);
	st->prev[slot] = t->c[slot];

	/* Open time: the cumulative figure's growth, at most the interval. */
	if (st->seen)
		in_interval = open > st->prev_open_ns ? open - st->prev_open_ns : 0;
	else
		in_interval = open;
	if (in_interval > interval_ns)
		in_interval = interval_ns;
	st->prev_open_ns = open;
	st->seen = true;
	row->open_pct = interval_ns ? 100.0 * in_interval / interval_ns : 0;

	/* Deepest nesting: events in the interval, and the depth at either end. */
	if (t->max_gen[slot] == old_gen)
		max_depth = t->max_depth[slot];
	if (st->prev_depth > max_depth)
		max_depth = st->prev_depth;
	if (task) {
		fill_task(task, row);
		if (task->depth > max_depth)
			max_depth = task->depth;
		st->prev_depth = task->depth;
		st->absent = 0;
	} else if (row->context != PKS_ROW_TASK) {
		/* The iterator sees no idle task or softirq; they never exit. */
		st->prev_depth = t->depth;
	} else {
		row->exited = true;
		st->prev_depth = 0;
		st->absent++;
	}
	row->max_depth = max_depth;

	row->held_s = -1;
	if (t->open_since && (!task || task->depth)) {
		row->held_s = t->open_since < now ? (now - t->open_since) / 1e9 : 0;
		row->held_lower_bound = t->flags & PKSTOP_F_OPEN_UNKNOWN;
	}
}

bool pkstop_row_interesting(const struct pkstop_row *row)
{
	return pkstop_delta_any(&row->d) || row->max_depth || row->open_pct > 0 ||
	       (row->have_state && (row->depth || row->pkrs != PKS_PKRS_DEFAULT));
}
