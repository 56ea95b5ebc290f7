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

/* Where a walk over the windows map is (see next_open_window()). */
struct window_cursor {
	__u64 key;
	bool started;
};

/*
 * The next open window of the map into @win, its key in @c->key; false
 * at the end.  Records gone meanwhile, and closed ones (start_ns 0: a
 * thread's record stays between its windows), are skipped.
 */
static bool next_open_window(int map_fd, struct window_cursor *c, struct pksfault_window *win)
{
	__u64 next;

	while (!bpf_map_get_next_key(map_fd, c->started ? &c->key : NULL, &next)) {
		c->key = next;
		c->started = true;
		if (!bpf_map_lookup_elem(map_fd, &next, win) && win->start_ns)
			return true;
	}
	return false;
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
	struct window_cursor c = {};
	struct pksfault_window win;
	bool alive[WINDOWS_REPORTED_MAX] = { false };
	int i, n = 0;

	while (next_open_window(w->map_fd, &c, &win)) {
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
	struct window_cursor c = {};
	struct pksfault_window win;

	if (!w->leak_ns)
		return;
	while (next_open_window(w->map_fd, &c, &win)) {
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
		holder_stack(w, c.key, &win);
		pksfault_print_open(f, env, &win, now_ns, true);
	}
}

void windows_list_open(struct pksfault_windows *w, const struct pksfault_env *env,
		       struct pksfault_report *r, FILE *f, uint64_t now_ns, bool print)
{
	struct window_cursor c = {};
	struct pksfault_window win;

	while (next_open_window(w->map_fd, &c, &win)) {
		report_add_open(r, now_ns > win.start_ns ? now_ns - win.start_ns : 0);
		if (!print)
			continue;
		holder_stack(w, c.key, &win);
		pksfault_print_open(f, env, &win, now_ns, false);
	}
}
