// SPDX-License-Identifier: GPL-2.0
/* pkstop's per-key and per-process views; see rollup.h. */
#include <stdlib.h>
#include <string.h>

#include "rollup.h"

/* The key of the windows whose opening nobody saw: see pkstop_key_stats(). */
static int window_key(const struct pkstop_sample *s)
{
	size_t i;
	int key;

	for (key = 0; key < PKS_NR_KEYS; key++)
		if (s->opens_by[key])
			return key;
	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].key >= 0 && s->rows[i].key < PKS_NR_KEYS)
			return s->rows[i].key;
	return -1;
}

/* Rights opened beyond the default (access-disabled) for @key, key 0 aside. */
static bool rights_open(uint32_t pkrs, int key)
{
	return key > 0 && !(pkrs & (1u << (2 * key)));
}

size_t pkstop_key_stats(const struct pkstop_sample *s,
			struct pkstop_key_stat out[PKS_NR_KEYS])
{
	struct pkstop_key_stat all[PKS_NR_KEYS] = {};
	int key, wkey = window_key(s), o;
	size_t i, n = 0;

	for (key = 0; key < PKS_NR_KEYS; key++) {
		all[key].key = key;
		all[key].opens = s->opens_by[key];
		all[key].pkrs_writes = s->pkrs_writes_by[key];
		for (o = 0; o < PKS_FAULT_NR_OUTCOMES; o++)
			all[key].faults += s->faults_by[key][o];
	}
	for (i = 0; i < s->nrows; i++) {
		const struct pkstop_row *r = &s->rows[i];
		int rkey = r->key >= 0 ? r->key : wkey;
		bool holds = false;

		if (rkey >= 0 && rkey < PKS_NR_KEYS) {
			all[rkey].open_pct += r->open_pct;
			holds = r->have_state && r->depth;
			all[rkey].holders += holds;
		}
		if (!r->have_state)
			continue;
		for (key = 1; key < PKS_NR_KEYS; key++)
			if (rights_open(r->pkrs, key) && !(holds && key == rkey))
				all[key].holders++;
	}
	for (key = 0; key < PKS_NR_KEYS; key++) {
		const struct pkstop_key_stat *k = &all[key];

		if ((s->keymask & (1u << key)) || k->opens || k->pkrs_writes ||
		    k->faults || k->open_pct > 0 || k->holders)
			out[n++] = *k;
	}
	return n;
}

/* Descending on the -s key, then ascending PID (and CPU): a total order. */
static enum pkstop_sort sort_by;

static int cmp_num(double a, double b)
{
	return a < b ? -1 : a > b;
}

static int cmp_procs(const void *pa, const void *pb)
{
	const struct pkstop_proc *a = pa, *b = pb;
	int c = 0;

	switch (sort_by) {
	case PKSTOP_SORT_DEPTH:
		c = cmp_num(b->holding, a->holding);
		if (!c)
			c = cmp_num(b->held_s, a->held_s);
		if (!c)
			c = cmp_num(b->max_depth, a->max_depth);
		if (!c)
			c = cmp_num(b->d.opens, a->d.opens);
		break;
	case PKSTOP_SORT_OPENS:
		c = cmp_num(b->d.opens, a->d.opens);
		break;
	case PKSTOP_SORT_OPENPCT:
		c = cmp_num(b->open_pct, a->open_pct);
		break;
	case PKSTOP_SORT_FAULTS:
		c = cmp_num(b->d.faults, a->d.faults);
		break;
	case PKSTOP_SORT_TID:
		break;
	}
	if (!c)
		c = cmp_num(a->pid, b->pid);
	if (!c)
		c = cmp_num(a->context, b->context);
	return c ? c : cmp_num(a->cpu, b->cpu);
}

static struct pkstop_proc *find_proc(struct pkstop_proc *procs, size_t n,
				     const struct pkstop_row *r)
{
	size_t i;

	if (r->context != PKS_ROW_TASK)
		return NULL;	/* per-CPU rows: one each */
	for (i = 0; i < n; i++)
		if (procs[i].context == PKS_ROW_TASK && procs[i].pid == r->pid)
			return &procs[i];
	return NULL;
}

long pkstop_processes(const struct pkstop_sample *s, const struct pkstop_opts *o,
		      struct pkstop_proc **out)
{
	struct pkstop_proc *procs, *p;
	size_t i, n = 0;

	procs = calloc(s->nrows ? s->nrows : 1, sizeof(*procs));
	if (!procs)
		return -1;
	for (i = 0; i < s->nrows; i++) {
		const struct pkstop_row *r = &s->rows[i];

		if (!pkstop_row_visible(r, o))
			continue;
		p = find_proc(procs, n, r);
		if (!p) {
			p = &procs[n++];
			p->pid = r->pid;
			p->context = r->context;
			p->cpu = r->cpu;
			p->held_s = -1;
			memcpy(p->comm, r->comm, sizeof(p->comm));
		}
		if (r->tid == r->pid && r->context == PKS_ROW_TASK)
			memcpy(p->comm, r->comm, sizeof(p->comm));
		p->threads++;
		p->holding += r->have_state && r->depth;
		if (r->max_depth > p->max_depth)
			p->max_depth = r->max_depth;
		pkstop_delta_add(&p->d, &r->d);
		p->open_pct += r->open_pct;
		if (r->held_s > p->held_s) {
			p->held_s = r->held_s;
			p->held_lower_bound = r->held_lower_bound;
		}
	}
	sort_by = o->sort;
	qsort(procs, n, sizeof(*procs), cmp_procs);
	*out = procs;
	return n;
}
