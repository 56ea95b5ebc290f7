// SPDX-License-Identifier: GPL-2.0
/*
 * pkstop: live, top-like view of protection keys (PKS), per thread.
 *
 * Each interval: bump the BPF side's `gen` so new events go to the other
 * counter slot, wait for an RCU grace period (every BPF program that read
 * the old gen has finished), read the quiet slot of the per-CPU totals
 * and of every thread, run the task iterator for window depths and PKRS,
 * and print.  Totals and rows come from the same quiet slot, so the
 * totals are exactly the sum of the rows.
 */
#include <errno.h>
#include <poll.h>
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pks_common.h"
#include "pkstop.h"
#include "pkstop.skel.h"
#include "model.h"
#include "openmetrics.h"
#include "rows.h"

_Static_assert(PKS_NR_KEYS == PKSTOP_NR_KEYS, "one key numbering");
_Static_assert(PKS_FAULT_NR_OUTCOMES <= PKSTOP_NR_OUTCOMES, "the BPF side counts every outcome");
#include "opts.h"
#include "keys.h"
#include "report.h"
#include "view.h"

static volatile sig_atomic_t exiting, resized;

static void on_signal(int sig)
{
	exiting = 1;
}

/* SIGWINCH: only a flag; the main loop re-reads the size before its next redraw. */
static void on_winch(int sig)
{
	resized = 1;
}

/*
 * Fit the text to the terminal: its width picks the table's layout and,
 * with @fit_rows (no -r, not batch), its height how many rows fit under
 * the header.  On failure, what was there stays.
 */
static void fit_terminal(struct pkstop_opts *o, bool fit_rows)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws))
		return;
	/* 0: the terminal does not know (a serial console): 80 columns, 20 rows. */
	o->width = ws.ws_col ? ws.ws_col : 80;
	/* Under the header: a spare line (long key owners wrap), the cursor's line. */
	if (fit_rows && ws.ws_row)
		o->rows = ws.ws_row > PKSTOP_TEXT_HEADER_LINES + 2 ?
			  ws.ws_row - PKSTOP_TEXT_HEADER_LINES - 2 : 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct pkstop {
	struct pkstop_bpf *skel;
	struct bpf_link *iter;
	int sync_outer, sync_inner;
	int ncpus;
	struct pkstop_totals *percpu;		/* lookup buffer */
	struct pkstop_counts prev_totals[2];
	uint64_t prev_faults_by[2][PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES];
	uint64_t prev_opens_by[2][PKS_NR_KEYS];
	uint64_t prev_pkrs_writes_by[2][PKS_NR_KEYS];
	uint64_t prev_irq[2];
	void *states;				/* tsearch tree of pkstop_tstate */
	struct pkstop_task *tasks;		/* iterator output, sorted by TID */
	size_t ntasks, tasks_cap;
	struct pkstop_row *rows;
	size_t nrows, rows_cap;
	struct pks_map_dump snap;		/* the thread map and direct rows, this sample */
	struct pkstop_thread *direct;		/* the direct rows, mapped */
	__u32 gone[PKSTOP_MAX_THREADS + PKSTOP_DIRECT_ROWS];	/* rows to free after a walk */
	size_t ngone;
	char start_owners[PKS_NR_KEYS][PKS_OWNER_LEN];
	uint16_t start_mask;
	enum pks_keys_source start_source;
	bool pks_present;
	const char *keys_path;			/* NULL: debugfs */
	struct bpf_program *keys_iter;		/* NULL: no bpf_pks_key_owner() */
	double last_cpu;	/* our CPU time at the last sample */
};

/*
 * Updating an element of a map-in-map makes the kernel wait for an RCU
 * grace period (maybe_wait_bpf_programs), and the tracepoint programs run
 * inside RCU read-side sections: when this returns, none of them still
 * uses the gen it read before.
 */
static int sync_programs(struct pkstop *p)
{
	__u32 zero = 0;

	return bpf_map_update_elem(p->sync_outer, &zero, &p->sync_inner, BPF_ANY);
}

static int setup_sync(struct pkstop *p)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	p->sync_inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pkstop_sync_in", 4, 4, 1, NULL);
	if (p->sync_inner < 0)
		return p->sync_inner;
	opts.inner_map_fd = p->sync_inner;
	p->sync_outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "pkstop_sync", 4, 4, 1, &opts);
	return p->sync_outer < 0 ? p->sync_outer : 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct pkstop_task *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_state(const void *a, const void *b)
{
	const struct pkstop_tstate *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Run the task iterator: every thread with a window, a PKRS or an entry. */
static int read_tasks(struct pkstop *p)
{
	int fd, n;
	size_t got = 0;

	fd = bpf_iter_create(bpf_link__fd(p->iter));
	if (fd < 0)
		return -errno;
	for (;;) {
		if (got + sizeof(struct pkstop_task) * 64 > p->tasks_cap * sizeof(struct pkstop_task)) {
			size_t cap = p->tasks_cap ? p->tasks_cap * 2 : 1024;
			void *t = realloc(p->tasks, cap * sizeof(struct pkstop_task));

			if (!t) {
				close(fd);
				return -ENOMEM;
			}
			p->tasks = t;
			p->tasks_cap = cap;
		}
		n = read(fd, (char *)p->tasks + got, p->tasks_cap * sizeof(struct pkstop_task) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	p->ntasks = got / sizeof(struct pkstop_task);
	qsort(p->tasks, p->ntasks, sizeof(*p->tasks), cmp_task);
	return 0;
}

static struct pkstop_task *find_task(struct pkstop *p, uint32_t tid)
{
	struct pkstop_task key = { .tid = tid };

	return bsearch(&key, p->tasks, p->ntasks, sizeof(*p->tasks), cmp_task);
}

static struct pkstop_row *new_row(struct pkstop *p)
{
	if (p->nrows == p->rows_cap) {
		size_t cap = p->rows_cap ? p->rows_cap * 2 : 256;
		void *r = realloc(p->rows, cap * sizeof(*p->rows));

		if (!r)
			return NULL;
		p->rows = r;
		p->rows_cap = cap;
	}
	return &p->rows[p->nrows++];
}

static uint64_t prog_misses(struct pkstop *p)
{
	struct bpf_program *prog;
	uint64_t sum = 0;

	bpf_object__for_each_program(prog, p->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

/*
 * Keys: from the kernel (kfunc) or debugfs when either answers, else the
 * list read at start updated by alloc/free events.
 */
static void read_keys(struct pkstop *p, struct pkstop_sample *s)
{
	struct pkstop_key k;
	__u32 key;

	if (pks_load_keys(p->keys_iter, p->keys_path, s->owners, &s->keymask,
			  &s->keys_source) >= 0)
		return;
	s->keys_source = PKS_KEYS_FROM_EVENTS;
	memcpy(s->owners, p->start_owners, sizeof(s->owners));
	s->keymask = p->start_mask;
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.keys), &key, &k) || !k.seq)
			continue;
		if (k.allocated) {
			s->keymask |= 1u << key;
			snprintf(s->owners[key], PKS_OWNER_LEN, "%.*s",
				 (int)sizeof(k.owner), k.owner);
		} else {
			s->keymask &= ~(1u << key);
			s->owners[key][0] = '\0';
		}
	}
}

static int read_totals(struct pkstop *p, int slot, struct pkstop_sample *s)
{
	__u32 zero = 0;
	struct pkstop_counts sum = {};
	uint64_t irq = 0, by[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES] = {};
	uint64_t opens_by[PKS_NR_KEYS] = {}, writes_by[PKS_NR_KEYS] = {};
	int cpu, key, o;

	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.totals), &zero, p->percpu))
		return -errno;
	for (cpu = 0; cpu < p->ncpus; cpu++) {
		const struct pkstop_totals *t = &p->percpu[cpu];

		sum.opens += t->c[slot].opens;
		sum.enables += t->c[slot].enables;
		sum.pkrs_writes += t->c[slot].pkrs_writes;
		sum.updates += t->c[slot].updates;
		sum.faults += t->c[slot].faults;
		irq += t->irq_events[slot];
		s->map_full += t->map_full;
		s->key_events += t->key_events;
		/* The BPF side has room for more outcomes: take the known ones. */
		for (key = 0; key < PKS_NR_KEYS; key++) {
			for (o = 0; o < PKS_FAULT_NR_OUTCOMES; o++)
				by[key][o] += t->faults_by[slot][key][o];
			opens_by[key] += t->opens_by[slot][key];
			writes_by[key] += t->pkrs_writes_by[slot][key];
		}
	}
	pkstop_counts_delta(&sum, &p->prev_totals[slot], &s->totals);
	p->prev_totals[slot] = sum;
	for (key = 0; key < PKS_NR_KEYS; key++) {
		for (o = 0; o < PKS_FAULT_NR_OUTCOMES; o++) {
			s->faults_by[key][o] = by[key][o] - p->prev_faults_by[slot][key][o];
			p->prev_faults_by[slot][key][o] = by[key][o];
		}
		s->opens_by[key] = opens_by[key] - p->prev_opens_by[slot][key];
		p->prev_opens_by[slot][key] = opens_by[key];
		s->pkrs_writes_by[key] = writes_by[key] - p->prev_pkrs_writes_by[slot][key];
		p->prev_pkrs_writes_by[slot][key] = writes_by[key];
	}
	s->irq_events = irq - p->prev_irq[slot];
	p->prev_irq[slot] = irq;
	return 0;
}

/*
 * One row per thread with activity or state, from the thread map as
 * dumped before the task iterator ran: a thread the iterator then missed
 * had exited, and one born after the dump is an iterator-only row.
 */
static int read_threads(struct pkstop *p, uint64_t old_gen, uint64_t now,
			uint64_t interval_ns, struct pkstop_sample *s)
{
	int fd = bpf_map__fd(p->skel->maps.threads);
	const struct pkstop_thread *all = p->snap.values;
	const __u32 *keys = p->snap.keys;
	size_t i, j;

	p->nrows = 0;
	s->threads_tracked = p->snap.n;
	for (j = 0; j < p->snap.n; j++) {
		struct pkstop_tstate probe = { .tid = keys[j] }, *st, **found;
		const struct pkstop_thread *t = &all[j];
		__u32 key = keys[j];
		struct pkstop_task *task;
		struct pkstop_row row;

		found = tfind(&probe, &p->states, cmp_state);
		if (found) {
			st = *found;
		} else {
			st = calloc(1, sizeof(*st));
			if (!st)
				return -ENOMEM;
			st->tid = key;
			tsearch(st, &p->states, cmp_state);
		}
		task = find_task(p, key);
		pkstop_account(st, t, task, old_gen, now, interval_ns, &row);
		if (task)
			task->mark = 1;	/* has an entry: no iterator-only row */
		if (pkstop_row_interesting(&row)) {
			struct pkstop_row *r = new_row(p);

			if (!r)
				return -ENOMEM;
			*r = row;
		}
		/*
		 * Gone for two samples and quiet: its last counts are in this
		 * interval's row, and nothing can add to them any more.
		 */
		if (!task && st->absent >= 2 && !pkstop_delta_any(&row.d)) {
			if (p->ngone < sizeof(p->gone) / sizeof(p->gone[0]))
				p->gone[p->ngone++] = key;
			tdelete(st, &p->states, cmp_state);
			free(st);
		}
	}
	for (i = 0; i < p->ngone; i++) {
		if (!pkstop_rows_forget(p->direct, p->gone[i]))
			bpf_map_delete_elem(fd, &p->gone[i]);
	}
	p->ngone = 0;
	/* Threads with state and no events (e.g. a PKRS set before we started). */
	for (i = 0; i < p->ntasks; i++) {
		struct pkstop_row *r;

		if (p->tasks[i].mark)
			continue;
		r = new_row(p);
		if (!r)
			return -ENOMEM;
		pkstop_row_from_task(&p->tasks[i], r);
	}
	s->rows = p->rows;
	s->nrows = p->nrows;
	return 0;
}

static int sample(struct pkstop *p, uint64_t now, uint64_t interval_ns,
		  struct pkstop_sample *s)
{
	uint64_t old_gen = p->skel->bss->gen;
	double cpu;
	int err;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_REALTIME, &s->wall);
	s->interval_s = interval_ns / 1e9;
	/* Close the interval: new events go to the other slot. */
	p->skel->bss->gen = old_gen + 1;
	err = sync_programs(p);
	if (err)
		return err;
	err = read_totals(p, old_gen & 1, s);
	/* The map before the iterator: see read_threads(). */
	if (!err)
		err = pks_map_dump(bpf_map__fd(p->skel->maps.threads), sizeof(__u32),
				   sizeof(struct pkstop_thread), &p->snap);
	if (!err)
		err = pkstop_rows_append(p->direct, &p->snap);
	if (!err)
		err = read_tasks(p);
	if (!err)
		err = read_threads(p, old_gen, now, interval_ns, s);
	if (err)
		return err;
	s->missed = prog_misses(p);
	cpu = cpu_seconds();
	s->self_cpu_ms = (cpu - p->last_cpu) * 1e3;
	p->last_cpu = cpu;
	read_keys(p, s);
	s->pks_present = p->pks_present;
	s->pks_enabled = p->pks_present && (s->keymask & ~1u);
	return 0;
}

/*
 * On a terminal (not -b, not --json): keys without Enter and without
 * echo, restored at exit.
 */
static struct termios saved_tty;
static bool raw_tty;

static void tty_restore(void)
{
	if (raw_tty)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
}

static void tty_raw(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty))
		return;
	t = saved_tty;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
		return;
	raw_tty = true;
	atexit(tty_restore);
}

/*
 * Until @deadline, or a key: 'q' ends pkstop, a sort key redraws the last
 * sample @s (when there is one) sorted anew, space pauses.  Returns once
 * the deadline passed and pkstop is not paused.
 */
static void wait_keys(uint64_t deadline, struct pkstop_opts *o, struct pkstop_sample *s,
		      bool have_sample, bool *paused)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	uint64_t now;
	char c;
	int ms;

	while (!exiting) {
		now = mono_ns();
		if (now >= deadline && !*paused)
			return;
		ms = *paused ? 1000 : (int)((deadline - now + 999999) / 1000000);
		if (poll(&pfd, 1, ms) <= 0 || read(STDIN_FILENO, &c, 1) != 1)
			continue;
		switch (pkstop_key(c, o, paused)) {
		case PKSTOP_KEY_QUIT:
			exiting = 1;
			break;
		case PKSTOP_KEY_REDRAW:
			if (!have_sample)
				break;
			pkstop_sort_rows(s->rows, s->nrows, o->sort);
			fputs("\033[H\033[2J", stdout);
			pkstop_print_text(stdout, s, o);
			fflush(stdout);
			break;
		case PKSTOP_KEY_PAUSE:
			if (*paused) {
				fputs("(paused: space resumes, q quits)\n", stdout);
				fflush(stdout);
			}
			break;
		case PKSTOP_KEY_NONE:
			break;
		}
	}
}

static void sleep_until(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / 1000000000ull,
		.tv_nsec = deadline % 1000000000ull,
	};

	while (!exiting && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* How pkstop meets its screen. */
struct ui {
	bool clear;		/* clear the screen before each interval */
	bool fit_rows;		/* as many rows as fit, again after a resize */
	bool interactive;	/* keys (keys.h) */
	bool paused;
};

/*
 * On a screen, the table fits its width (not a terminal: no limit,
 * every column) and, by default, as many rows as fit under the header;
 * both again after each resize.
 */
static void setup_screen(struct pkstop_opts *o, struct ui *ui)
{
	bool tty = isatty(STDOUT_FILENO);

	if (!tty)
		o->batch = true;
	ui->fit_rows = tty && !o->batch && !o->json && o->rows < 0;
	if (tty && !o->json) {
		struct sigaction sa = { .sa_handler = on_winch, .sa_flags = SA_RESTART };

		o->width = 80;
		fit_terminal(o, ui->fit_rows);
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, NULL);
	}
	ui->clear = !o->batch && !o->json && !o->noclear;
	/* top's keys on a terminal: q, s/</>, space (see keys.h). */
	ui->interactive = tty && !o->batch && !o->json && isatty(STDIN_FILENO);
}

/* Open, configure, load, attach, arm.  0, or -errno after one line. */
static int start(struct pkstop *p, const struct pkstop_opts *o)
{
	PKS_OPEN_OPTS(open_opts);
	uint64_t cgid = 0;
	int err;

	p->pks_present = pks_cpu_has_pks();
	/* Tests point this at a file to exercise the other key sources. */
	p->keys_path = getenv("PKSTOP_KEYS_FILE");
	p->ncpus = libbpf_num_possible_cpus();
	p->percpu = calloc(p->ncpus > 0 ? p->ncpus : 1, sizeof(*p->percpu));
	if (p->ncpus <= 0 || !p->percpu) {
		fprintf(stderr, "pkstop: cannot size per-CPU buffers\n");
		return -ENOMEM;
	}
	if (o->cgroup && (err = pks_cgroup_id(o->cgroup, &cgid))) {
		fprintf(stderr, "pkstop: -c %s: %s\n", o->cgroup,
			err == -ENOTDIR ? "not a cgroup v2 directory" : strerror(-err));
		return err;
	}
	p->skel = pkstop_bpf__open_opts(&open_opts);
	if (!p->skel) {
		fprintf(stderr, "pkstop: cannot open the BPF object: %s (run with -v)\n",
			strerror(errno));
		return -errno;
	}
	p->skel->rodata->target_tgid = o->pid;
	p->skel->rodata->pks_cgroup_id = cgid;
	if (!p->keys_path && pks_keys_iter_prepare(p->skel->progs.pkstop_keys))
		p->keys_iter = p->skel->progs.pkstop_keys;
	else
		bpf_program__set_autoload(p->skel->progs.pkstop_keys, false);
	err = pkstop_bpf__load(p->skel);
	if (err) {
		fprintf(stderr, "pkstop: cannot load the BPF programs: %s (run with -v)\n",
			strerror(-err));
		return err;
	}
	if (pks_load_keys(p->keys_iter, p->keys_path, p->start_owners,
			  &p->start_mask, &p->start_source) < 0)
		p->start_mask = 0;
	if (o->cgroup && (err = pks_cgroup_attach(p->skel->maps.pks_cgroup, o->cgroup))) {
		fprintf(stderr, "pkstop: -c %s: %s\n", o->cgroup, strerror(-err));
		return err;
	}
	err = setup_sync(p);
	if (err) {
		fprintf(stderr, "pkstop: cannot create the sync maps: %s\n", strerror(-err));
		return err;
	}
	/* Before attaching: the programs claim free rows. */
	p->direct = pkstop_rows_map(bpf_map__fd(p->skel->maps.rows));
	if (!p->direct) {
		fprintf(stderr, "pkstop: cannot map the thread rows: %s\n", strerror(errno));
		return -errno;
	}
	err = pkstop_bpf__attach(p->skel);
	if (err) {
		fprintf(stderr, "pkstop: cannot attach to the pks tracepoints: %s\n",
			strerror(-err));
		return err;
	}
	p->skel->bss->pks_armed = true;	/* all attached: count from now */
	p->iter = bpf_program__attach_iter(p->skel->progs.pkstop_tasks, NULL);
	if (!p->iter) {
		fprintf(stderr, "pkstop: cannot attach the task iterator: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

/* One interval on stdout (and in the metrics file).  0, or -errno after one line. */
static int show(struct pkstop_sample *s, const struct pkstop_opts *o, const struct ui *ui,
		bool first, struct pkstop_om *om)
{
	int err;

	if (o->json) {
		pkstop_print_json(stdout, s, o);
	} else {
		if (ui->clear)
			fputs("\033[H\033[2J", stdout);
		else if (!first)
			fputc('\n', stdout);
		pkstop_print_text(stdout, s, o);
	}
	/* A sample that did not reach its file (a full disk): stop, say so. */
	if (pks_check_output(stdout, "pkstop", "stdout"))
		return -EIO;
	if (!o->openmetrics)
		return 0;
	pkstop_om_add(om, s);
	err = pkstop_om_write(o->openmetrics, om, s);
	if (err)
		fprintf(stderr, "pkstop: cannot write %s: %s\n", o->openmetrics, strerror(-err));
	return err;
}

/* Every interval until the count, q, or a signal.  0 or -errno. */
static int run(struct pkstop *p, struct pkstop_opts *o, struct ui *ui, struct pkstop_summary *sum)
{
	uint64_t last = mono_ns(), deadline, step = o->interval * 1e9, now;
	struct pkstop_om om = {};
	struct pkstop_sample s;
	long n = 0;
	int err;

	/* A first sample, not shown: seeds windows already open, and depths. */
	err = sample(p, last, 1, &s);
	for (deadline = last + step; !err && !exiting; deadline += step) {
		if (ui->interactive)
			wait_keys(deadline, o, &s, n > 0, &ui->paused);
		else
			sleep_until(deadline);
		if (exiting)
			break;
		now = mono_ns();
		err = sample(p, now, now - last, &s);
		if (err)
			break;
		last = now;
		if (resized) {
			/* Cleared first: a resize during the ioctl is seen next time. */
			resized = 0;
			fit_terminal(o, ui->fit_rows);
		}
		pkstop_sort_rows(s.rows, s.nrows, o->sort);
		pkstop_summary_add(sum, &s, o);
		if ((err = show(&s, o, ui, !n, &om)))
			return err;
		if (++n == o->count)
			break;
		/* Fell behind (suspended, slow guest): don't burst to catch up. */
		if (deadline + step < now)
			deadline = now;
	}
	/*
	 * Ended by a signal or q inside an interval: the windows since the
	 * last sample ran while pkstop was attached too.  One last sample,
	 * marked partial, carries them, so that the summary's totals are
	 * every window seen and not only those of whole intervals.
	 */
	if (!err && exiting && (!o->count || n < o->count)) {
		now = mono_ns();
		err = sample(p, now, now - last, &s);
		if (!err) {
			s.partial = true;
			pkstop_sort_rows(s.rows, s.nrows, o->sort);
			pkstop_summary_add(sum, &s, o);
			return show(&s, o, ui, !n, &om);
		}
	}
	if (err)
		fprintf(stderr, "pkstop: reading the BPF maps: %s\n", strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	static struct pkstop p = { .sync_outer = -1, .sync_inner = -1 };
	struct pkstop_summary sum = {};
	struct pkstop_opts opts;
	struct ui ui = {};
	int err;

	err = pkstop_parse_args(argc, argv, &opts, stderr);
	if (err >= 0)
		return err;
	if (pks_check_environment("pkstop"))
		return PKS_EXIT_ERROR;
	pks_libbpf_messages(opts.common.verbose);
	setup_screen(&opts, &ui);
	err = start(&p, &opts);
	if (!err) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		if (ui.interactive)
			tty_raw();
		err = run(&p, &opts, &ui, &sum);
	}
	/* Ctrl-C or the last interval: the run's answer, for scripts and logs. */
	if (!err && sum.intervals)
		pkstop_summary_print(stdout, &sum, opts.json);
	if (!err && pks_check_output(stdout, "pkstop", "stdout"))
		err = -EIO;
	pks_map_dump_free(&p.snap);
	pkstop_rows_unmap(p.direct);
	bpf_link__destroy(p.iter);
	pkstop_bpf__destroy(p.skel);
	if (p.sync_outer >= 0)
		close(p.sync_outer);
	if (p.sync_inner >= 0)
		close(p.sync_inner);
	if (err)
		return PKS_EXIT_ERROR;
	/* Events lost (map full, BPF runs missed): the figures are short. */
	return sum.map_full + sum.missed ? PKS_EXIT_LOST : PKS_EXIT_CLEAN;
}
