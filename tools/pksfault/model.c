// SPDX-License-Identifier: GPL-2.0
/* pksfault's open windows: seed, sweep, list; see pksfault_windows.h. */
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "model.h"

int windows_seed(int iter_link_fd)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = bpf_iter_create(iter_link_fd);
	if (fd < 0)
		return -errno;
	/* The program writes nothing: reading to EOF runs it over every task. */
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/*
 * A window held by a thread without its opener's stack (no --open-stacks,
 * or opened before attach): give it the holder's kernel stack now, which
 * shows what keeps the window open.
 */
static void holder_stack(struct pksfault_windows *w, __u64 key, struct pksfault_window *win)
{
	const ssize_t size = PKSFAULT_WINDOW_STACK * sizeof(win->stack[0]);
	ssize_t n, got = 0;
	int fd;

	if (win->stack_sz > 0 || w->holder_iter_fd < 0 || !win->tid ||
	    (key & 3) != PKS_CTX_TASK)
		return;
	*w->holder_tid = win->tid;
	fd = bpf_iter_create(w->holder_iter_fd);
	while (fd >= 0 && got < size) {
		n = read(fd, (char *)win->stack + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	if (fd >= 0)
		close(fd);
	*w->holder_tid = 0;
	if (got >= (ssize_t)sizeof(win->stack[0])) {
		win->stack_sz = got - got % sizeof(win->stack[0]);
		win->flags |= PKSFAULT_WIN_STACK_HOLDER;
	}
}

/*
 * The open windows, the hash map's read in batches and the direct
 * array's from its mapping (closed ones, start_ns 0, are threads' records
 * between their windows).  0 or -errno; on an error the snapshot is
 * empty.
 */
int windows_snapshot(struct pksfault_windows *w)
{
	int err = pks_map_dump(w->map_fd, sizeof(__u64), sizeof(struct pksfault_window), &w->snap);

	if (!err)
		err = windows_append_direct(w);
	w->nr_open = 0;
	if (err) {
		w->snap.n = 0;
		return err;
	}
	return windows_collect_open(w);
}

int windows_append_direct(struct pksfault_windows *w)
{
	struct pksfault_window *all;
	__u64 *keys, start;
	size_t i;

	if (!w->direct)
		return 0;
	if (pks_map_dump_reserve(&w->snap, PKSFAULT_DIRECT_WINDOWS, sizeof(*keys), sizeof(*all)))
		return -ENOMEM;
	keys = w->snap.keys;
	all = w->snap.values;
	for (i = 0; i < PKSFAULT_DIRECT_WINDOWS; i++) {
		/* Pairs with the open's store of start_ns, its last. */
		start = __atomic_load_n(&w->direct[i].start_ns, __ATOMIC_ACQUIRE);
		if (!start)
			continue;
		all[w->snap.n] = w->direct[i];
		/* A window closed and reopened while copied: the start read. */
		all[w->snap.n].start_ns = start;
		keys[w->snap.n] = (__u64)all[w->snap.n].tid << 2 | PKS_CTX_TASK;
		w->snap.n++;
	}
	return 0;
}

int windows_collect_open(struct pksfault_windows *w)
{
	struct pksfault_window *all = w->snap.values;
	__u64 *keys = w->snap.keys;
	size_t i;

	w->nr_open = 0;
	for (i = 0; i < w->snap.n; i++) {
		if (!all[i].start_ns)
			continue;
		/* Compact in place: the open ones first, in map order. */
		keys[w->nr_open] = keys[i];
		all[w->nr_open++] = all[i];
	}
	return 0;
}

/* A leak found open, kept as a finding for the JUnit file (its text record). */
static void leak_finding(struct pksfault_windows *w, struct pksfault_report *r,
			 const struct pksfault_window *win, uint64_t now_ns)
{
	char *buf;
	size_t len;
	FILE *m;

	if (!w->text_env || !(m = report_finding_begin(r, REPORT_LEAK, &buf, &len)))
		return;
	pksfault_print_open(m, w->text_env, win, now_ns, true);
	report_finding_end(r, REPORT_LEAK, m, &buf);
}

static int find_reported(const struct pksfault_windows *w, __u32 tid, __u64 start_ns)
{
	int i;

	for (i = 0; i < w->nr_reported; i++)
		if (w->reported[i].tid == tid && w->reported[i].start_ns == start_ns)
			return i;
	return -1;
}

bool windows_closed(struct pksfault_windows *w, __u32 tid, __u64 start_ns)
{
	int i = find_reported(w, tid, start_ns);

	if (i < 0)
		return false;
	w->reported[i] = w->reported[--w->nr_reported];
	return true;
}

/*
 * Forget reported leaks whose window is gone from the map without a close
 * event we saw (its record lost): the list must not fill up with them.
 */
static void prune_reported(struct pksfault_windows *w)
{
	struct pksfault_window *all = w->snap.values;
	bool alive[WINDOWS_REPORTED_MAX] = { false };
	size_t j;
	int i, n = 0;

	for (j = 0; j < w->nr_open; j++) {
		i = find_reported(w, all[j].tid, all[j].start_ns);
		if (i >= 0)
			alive[i] = true;
	}
	for (i = 0; i < w->nr_reported; i++)	/* in order: alive[] stays aligned */
		if (alive[i])
			w->reported[n++] = w->reported[i];
	w->nr_reported = n;
}

uint64_t windows_sweep_period_ns(uint64_t leak_ns)
{
	uint64_t period = leak_ns / 5;

	if (period < WINDOWS_SWEEP_MIN_NS)
		return WINDOWS_SWEEP_MIN_NS;
	return period > WINDOWS_SWEEP_MAX_NS ? WINDOWS_SWEEP_MAX_NS : period;
}

void windows_sweep_open(struct pksfault_windows *w, const struct pksfault_env *env,
			struct pksfault_report *r, FILE *f, uint64_t now_ns)
{
	struct pksfault_window *all = w->snap.values;
	__u64 *keys = w->snap.keys;
	size_t j;

	for (j = 0; j < w->nr_open; j++) {
		struct pksfault_window *win = &all[j];

		if (now_ns <= win->start_ns || now_ns - win->start_ns <= w->leak_ns ||
		    find_reported(w, win->tid, win->start_ns) >= 0)
			continue;
		if (w->nr_reported == WINDOWS_REPORTED_MAX)
			prune_reported(w);
		if (w->nr_reported == WINDOWS_REPORTED_MAX)
			continue;	/* reported on a later sweep rather than never */
		w->reported[w->nr_reported].tid = win->tid;
		w->reported[w->nr_reported].start_ns = win->start_ns;
		w->nr_reported++;
		r->leaks_reported_open++;
		holder_stack(w, keys[j], win);
		pksfault_print_open(f, env, win, now_ns, true);
		leak_finding(w, r, win, now_ns);
	}
}

int windows_sweep(struct pksfault_windows *w, const struct pksfault_env *env,
		  struct pksfault_report *r, FILE *f, uint64_t now_ns)
{
	int err;

	if (!w->leak_ns || now_ns < w->next_sweep_ns)
		return 0;
	w->next_sweep_ns = now_ns + windows_sweep_period_ns(w->leak_ns);
	err = windows_snapshot(w);
	if (!err)
		windows_sweep_open(w, env, r, f, now_ns);
	return err;
}

void windows_list_snapshot(struct pksfault_windows *w, const struct pksfault_env *env,
			   struct pksfault_report *r, FILE *f, uint64_t now_ns, bool print)
{
	struct pksfault_window *all = w->snap.values;
	__u64 *keys = w->snap.keys;
	size_t j;

	for (j = 0; j < w->nr_open; j++) {
		struct pksfault_window *win = &all[j];

		uint64_t held = now_ns > win->start_ns ? now_ns - win->start_ns : 0;

		report_add_open(r, held);
		if (!print)
			continue;
		holder_stack(w, keys[j], win);
		pksfault_print_open(f, env, win, now_ns, false);
		/* A leak no sweep reported (it crossed the threshold since the last) */
		if (w->leak_ns && held > w->leak_ns && find_reported(w, win->tid, win->start_ns) < 0)
			leak_finding(w, r, win, now_ns);
	}
}

int windows_list_open(struct pksfault_windows *w, const struct pksfault_env *env,
		      struct pksfault_report *r, FILE *f, uint64_t now_ns, bool print)
{
	int err = windows_snapshot(w);

	if (!err)
		windows_list_snapshot(w, env, r, f, now_ns, print);
	return err;
}
