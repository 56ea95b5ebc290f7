// SPDX-License-Identifier: GPL-2.0
/*
 * pkstop: per-thread protection-key activity for a top-like view.
 *
 * The pks tracepoints feed per-thread counters (rows: direct-mapped by
 * TID, or a hash map, see PKSTOP_DIRECT_ROWS) and per-CPU system totals,
 * both double-buffered by the global `gen` (see bpf/pkstop.h).  A task
 * iterator reports every thread's current state (window depth, PKRS), so
 * a thread that holds a window open but does nothing still shows.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pkstop.h"
#include "pks_bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * -p PID, -c CGROUP: only that process's threads, or only threads in that
 * cgroup or below it (pks_current_in_cgroup()), get rows, so that others
 * cannot fill the thread map and leave the target uncounted.  Set before
 * load; 0 = every thread (and the per-CPU idle and softirq rows).
 */
const volatile __u32 target_tgid = 0;

/* The filters above, for the event's thread (row id @tid). */
static __always_inline bool watched(__u32 tid)
{
	if (!target_tgid && !pks_cgroup_id)
		return true;
	if (tid & PKS_ROW_PER_CPU)
		return false;
	if (target_tgid && bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return false;
	return pks_current_in_cgroup();
}

/* Bumped by user space once per interval; selects the counter slot. */
volatile __u64 gen;
/* Orders key alloc/free events. */
__u64 key_seq;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PKSTOP_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct pkstop_thread);
} threads SEC(".maps");

/* User space reads and frees these rows through a mapping of its own. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PKSTOP_DIRECT_ROWS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct pkstop_thread);
} rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pkstop_totals);
} totals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PKSTOP_NR_KEYS);
	__type(key, __u32);
	__type(value, struct pkstop_key);
} keys SEC(".maps");

/* NULL, so that programs do nothing, until every program is attached. */
static __always_inline struct pkstop_totals *cpu_totals(void)
{
	__u32 zero = 0;

	if (!pks_armed)
		return NULL;
	return bpf_map_lookup_elem(&totals, &zero);
}

/* The row of @tid, if it has one: its direct slot's, or the hash map's. */
static __always_inline struct pkstop_thread *find_row(__u32 tid)
{
	__u32 slot = tid & (PKSTOP_DIRECT_ROWS - 1);
	struct pkstop_thread *t;

	if (!(tid & PKS_ROW_PER_CPU)) {
		t = bpf_map_lookup_elem(&rows, &slot);
		if (t && t->tid == tid)
			return t;
	}
	return bpf_map_lookup_elem(&threads, &tid);
}

/*
 * A row for @tid, which had none: its direct slot if free, else a hash
 * entry.  The task iterator and the thread's own event may both get here
 * at once: the slot is claimed atomically, the hash entry inserted only if
 * absent, and the loser takes the winner's row, whose identity (@pid,
 * @comm) it would have written alike.  NULL when the hash map is full
 * (counted in @tot: a drop).
 */
static struct pkstop_thread *new_row(struct pkstop_totals *tot, __u32 tid, __u32 pid,
				     const char *comm)
{
	struct pkstop_thread *t, init = { .key = -1 };
	__u32 slot = tid & (PKSTOP_DIRECT_ROWS - 1), owner;
	long err;

	if (!(tid & PKS_ROW_PER_CPU)) {
		t = bpf_map_lookup_elem(&rows, &slot);
		if (!t)
			return NULL;
		owner = __sync_val_compare_and_swap(&t->tid, 0, tid);
		if (!owner || owner == tid) {
			t->pid = pid;
			__builtin_memcpy(t->comm, comm, sizeof(t->comm));
			return t;
		}
		init.pid = pid;
		__builtin_memcpy(init.comm, comm, sizeof(init.comm));
	}
	err = bpf_map_update_elem(&threads, &tid, &init, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: the other one got there first */) {
		if (tot)
			__sync_fetch_and_add(&tot->map_full, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&threads, &tid);
}

/* The first event of row @tid: what is done once per thread. */
static struct pkstop_thread *new_current_row(struct pkstop_totals *tot, __u32 tid)
{
	char comm[PKSTOP_COMM_LEN] = {};

	/* Per-CPU rows: user space names them ("idle/N", "softirq/N"). */
	if (!(tid & PKS_ROW_PER_CPU))
		bpf_get_current_comm(comm, sizeof(comm));
	return new_row(tot, tid, bpf_get_current_pid_tgid() >> 32, comm);
}

/*
 * The row of an event in task or softirq context (bpf/pks_bpf.h): the
 * calling thread, the CPU's idle task or the CPU's softirqs; created on
 * its first event.
 */
static __always_inline struct pkstop_thread *this_row(struct pkstop_totals *tot, int ctx)
{
	__u32 tid = pks_row_id(ctx);
	struct pkstop_thread *t;

	if (!watched(tid))
		return NULL;
	t = find_row(tid);
	return t ? t : new_current_row(tot, tid);
}

/* Hardirq and NMI events belong to no row; they are counted apart. */
static __always_inline int event_ctx(struct pkstop_totals *tot, int i)
{
	int ctx = pks_event_ctx();

	if (ctx == PKS_CTX_HARDIRQ)
		tot->irq_events[i]++;
	return ctx;
}

/*
 * A key as an index the verifier accepts: clang merges range tests into
 * ones it cannot follow, so hide the value and mask it (PKSTOP_NR_KEYS is
 * a power of two).  Callers check the range first.
 */
static __always_inline __u32 key_index(int key)
{
	__u32 k = key;

	barrier_var(k);
	return k & (PKSTOP_NR_KEYS - 1);
}

static __always_inline void note_depth(struct pkstop_thread *t, __u32 depth, __u64 g)
{
	int i = g & 1;

	if (t->max_gen[i] != g) {
		t->max_gen[i] = g;
		t->max_depth[i] = depth;
	} else if (depth > t->max_depth[i]) {
		t->max_depth[i] = depth;
	}
}

/*
 * A PKRS write by a window (its event's pkrs_written) or by a key owner's
 * pks_update_protection() (wrmsr): the kernel reports each write once,
 * in whichever event made it.  @t may be NULL (no row).
 */
static __always_inline void count_pkrs_write(struct pkstop_totals *tot,
					     struct pkstop_thread *t, int i, int key)
{
	tot->c[i].pkrs_writes++;
	if ((__u32)key < PKSTOP_NR_KEYS)
		tot->pkrs_writes_by[i][key_index(key)]++;
	if (t)
		t->c[i].pkrs_writes++;
}

SEC("tp_btf/dev_access_enable")
int BPF_PROG(pkstop_enable, int key, unsigned int depth, bool pkrs_written,
	     unsigned long caller)
{
	__u64 g = gen;
	int i = g & 1;
	struct pkstop_totals *tot = cpu_totals();
	struct pkstop_thread *t;

	int where;

	if (!tot)
		return 0;
	where = event_ctx(tot, i);
	if (where == PKS_CTX_HARDIRQ)
		return 0;
	tot->c[i].enables++;
	if (depth == 1) {
		tot->c[i].opens++;
		if ((__u32)key < PKSTOP_NR_KEYS)
			tot->opens_by[i][key_index(key)]++;
	}
	t = this_row(tot, where);
	if (pkrs_written)
		count_pkrs_write(tot, t, i, key);
	if (!t)
		return 0;
	t->c[i].enables++;
	note_depth(t, depth, g);
	if (depth == 1) {
		t->c[i].opens++;
		t->key = key;
		/* An exception handler's window inside ours, or (see
		 * pks_seed_raced()) this very open, found in flight by the
		 * task iterator. */
		if (t->open_since && !pks_seed_raced(t->flags & PKSTOP_F_OPEN_UNKNOWN,
						     t->flags & PKSTOP_F_SEED_RUNNING,
						     t->seed_switches)) {
			t->nested++;
			return 0;
		}
		t->open_since = bpf_ktime_get_ns();
		t->flags &= ~(PKSTOP_F_OPEN_UNKNOWN | PKSTOP_F_SEED_RUNNING);
	}
	if (!t->nested)
		t->depth = depth;
	return 0;
}

SEC("tp_btf/dev_access_disable")
int BPF_PROG(pkstop_disable, int key, unsigned int depth, bool pkrs_written,
	     unsigned long caller)
{
	__u64 g = gen;
	int i = g & 1;
	struct pkstop_totals *tot = cpu_totals();
	struct pkstop_thread *t;

	int where;

	if (!tot)
		return 0;
	where = event_ctx(tot, i);
	if (where == PKS_CTX_HARDIRQ)
		return 0;
	t = this_row(tot, where);
	if (pkrs_written)
		count_pkrs_write(tot, t, i, key);
	if (!t)
		return 0;
	note_depth(t, depth, g);
	if (depth == 0) {
		if (t->nested) {
			t->nested--;
			return 0;
		}
		if (t->open_since) {
			t->open_ns += bpf_ktime_get_ns() - t->open_since;
			t->open_since = 0;
		}
		t->flags &= ~PKSTOP_F_OPEN_UNKNOWN;
	}
	if (!t->nested)
		t->depth = depth;
	return 0;
}

SEC("tp_btf/pks_update_protection")
int BPF_PROG(pkstop_update, int key, unsigned long protection, u32 pkrs_before,
	     u32 pkrs_after, bool wrmsr)
{
	__u64 g = gen;
	int i = g & 1;
	struct pkstop_totals *tot = cpu_totals();
	struct pkstop_thread *t;

	int where;

	if (!tot)
		return 0;
	where = event_ctx(tot, i);
	if (where == PKS_CTX_HARDIRQ)
		return 0;
	tot->c[i].updates++;
	t = this_row(tot, where);
	if (wrmsr)
		count_pkrs_write(tot, t, i, key);
	if (t)
		t->c[i].updates++;
	return 0;
}

SEC("tp_btf/pks_fault")
int BPF_PROG(pkstop_fault, unsigned long address, int key, const char *owner,
	     bool write, unsigned long ip, u32 pkrs, unsigned int depth, int mode,
	     int outcome)
{
	__u64 g = gen;
	int i = g & 1;
	struct pkstop_totals *tot = cpu_totals();
	struct pkstop_thread *t;

	int where;

	if (!tot)
		return 0;
	/* Every fault counts in the total, wherever it happened. */
	tot->c[i].faults++;
	if ((__u32)key < PKSTOP_NR_KEYS && (__u32)outcome < PKSTOP_NR_OUTCOMES) {
		__u32 o = outcome;

		barrier_var(o);		/* as in key_index() */
		tot->faults_by[i][key_index(key)][o & (PKSTOP_NR_OUTCOMES - 1)]++;
	}
	where = event_ctx(tot, i);
	if (where == PKS_CTX_HARDIRQ)
		return 0;
	t = this_row(tot, where);
	if (t)
		t->c[i].faults++;
	return 0;
}

static __always_inline void key_event(int key, const char *owner, bool alloc)
{
	struct pkstop_totals *tot = cpu_totals();
	struct pkstop_key *k;
	__u32 idx = key;

	if (tot)
		__sync_fetch_and_add(&tot->key_events, 1);
	if (key < 0 || key >= PKSTOP_NR_KEYS)
		return;	/* a failed allocation: -EOPNOTSUPP, -ENOSPC */
	k = bpf_map_lookup_elem(&keys, &idx);
	if (!k)
		return;
	k->allocated = alloc;
	if (owner)
		bpf_probe_read_kernel_str(k->owner, sizeof(k->owner), owner);
	k->seq = __sync_fetch_and_add(&key_seq, 1) + 1;
}

SEC("tp_btf/pks_key_alloc")
int BPF_PROG(pkstop_key_alloc, const char *owner, int key)
{
	key_event(key, owner, true);
	return 0;
}

SEC("tp_btf/pks_key_free")
int BPF_PROG(pkstop_key_free, int key, const char *owner)
{
	key_event(key, owner, false);
	return 0;
}

/*
 * Every thread with a window open, a PKRS other than the default, or an
 * entry in the thread map.  A window found open with no entry was opened
 * before we attached: seed an entry so its held time counts from now.
 */
SEC("iter/task")
int pkstop_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct pkstop_thread *t;
	struct pkstop_task rec = {};
	__u64 switches;
	bool running;

	if (!task || (target_tgid && task->tgid != target_tgid))
		return 0;
	if (!pks_task_in_cgroup(task))
		return 0;
	rec.tid = task->pid;
	rec.pid = task->tgid;
	/* Only kernels with device-memory protection count windows. */
	if (bpf_core_field_exists(task->dev_page_access_ref))
		rec.depth = BPF_CORE_READ(task, dev_page_access_ref);
	/* After the depth: an open in flight then is still in flight now. */
	running = pks_task_running(task);
	switches = pks_task_switches(task);
	rec.pkrs = pks_task_saved_pkrs(task);
	rec.state = pks_task_state(task);
	t = find_row(rec.tid);
	if (!t && !rec.depth && rec.pkrs == PKSTOP_PKRS_DEFAULT)
		return 0;
	bpf_probe_read_kernel_str(rec.comm, sizeof(rec.comm), task->comm);
	/*
	 * A window found open with no row was opened before we attached:
	 * a row for it, so that its held time counts from now.
	 */
	if (!t && rec.depth) {
		t = new_row(cpu_totals(), rec.tid, rec.pid, rec.comm);
		if (t && !t->open_since)
			t->depth = rec.depth;
	}
	if (t && !t->nested) {
		/*
		 * A window we never saw open is open: it counts from now.
		 * Undo that guess once the window is seen closed (its close
		 * raced with us).
		 */
		if (rec.depth && !t->open_since) {
			t->seed_switches = switches;
			t->open_since = bpf_ktime_get_ns();
			t->flags |= PKSTOP_F_OPEN_UNKNOWN |
				    (running ? PKSTOP_F_SEED_RUNNING : 0);
		} else if (!rec.depth && (t->flags & PKSTOP_F_OPEN_UNKNOWN)) {
			t->open_since = 0;
			t->flags &= ~(PKSTOP_F_OPEN_UNKNOWN | PKSTOP_F_SEED_RUNNING);
		}
	}
	bpf_seq_write(seq, &rec, sizeof(rec));
	return 0;
}

/* The key table for user space, without debugfs: see pks_iter_keys(). */
SEC("iter/task")
int pkstop_keys(struct bpf_iter__task *ctx)
{
	return pks_iter_keys(ctx);
}
