// SPDX-License-Identifier: GPL-2.0
/* pksfault's open windows: seed, sweep, list; see pksfault_windows.h. */
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "pksfault_windows.h"

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
	struct pksfault_window win;
	__u64 key, *prev = NULL, next;
	bool alive[WINDOWS_REPORTED_MAX] = { false };
	int i, n = 0;

	while (!bpf_map_get_next_key(w->map_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(w->map_fd, &key, &win))
			continue;
		i = find_reported(w, win.tid, win.start_ns);
		if (i >= 0)
			alive[i] = true;
	}
	for (i = 0; i < w->nr_reported; i++)	/* in order: alive[] stays aligned */
		if (alive[i])
			w->reported[n++] = w->reported[i];
	w->nr_reported = n;
}

void windows_sweep(struct pksfault_windows *w, const struct pksfault_env *env,
		   struct pksfault_report *r, FILE *f, uint64_t now_ns)
{
	struct pksfault_window win;
	__u64 key, *prev = NULL, next;

	if (!w->leak_ns)
		return;
	while (!bpf_map_get_next_key(w->map_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(w->map_fd, &key, &win))
			continue;	/* closed meanwhile */
		if (now_ns <= win.start_ns || now_ns - win.start_ns <= w->leak_ns ||
		    find_reported(w, win.tid, win.start_ns) >= 0)
			continue;
		if (w->nr_reported == WINDOWS_REPORTED_MAX)
			prune_reported(w);
		if (w->nr_reported == WINDOWS_REPORTED_MAX)
			continue;	/* reported on a later sweep rather than never */
		w->reported[w->nr_reported].tid = win.tid;
		w->reported[w->nr_reported].start_ns = win.start_ns;
		w->nr_reported++;
		r->leaks_reported_open++;
		pksfault_print_open(f, env, &win, now_ns, true);
	}
}

void windows_list_open(struct pksfault_windows *w, const struct pksfault_env *env,
		       struct pksfault_report *r, FILE *f, uint64_t now_ns, bool print)
{
	struct pksfault_window win;
	__u64 key, *prev = NULL, next;

	while (!bpf_map_get_next_key(w->map_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(w->map_fd, &key, &win))
			continue;	/* closed meanwhile */
		report_add_open(r, now_ns > win.start_ns ? now_ns - win.start_ns : 0);
		if (print)
			pksfault_print_open(f, env, &win, now_ns, false);
	}
}
