// SPDX-License-Identifier: GPL-2.0
/*
 * pksfault: stray PKS faults and leaked device-access windows.
 *
 * pks_fault events go to user space whole (with the kernel stack).  The
 * dev_access_enable/disable events are followed here: only a thread's
 * outermost window (depth 1 open .. depth 0 close) is kept, in a slot of
 * an array direct-mapped by TID or in a hash map (PKSFAULT_DIRECT_WINDOWS),
 * and only windows held longer than leak_ns reach user space.  A thread's
 * record stays between its windows, marked closed (start_ns 0), and goes
 * when the thread exits: a window then costs a lookup and a few stores at
 * each end, not an insert and a delete (and, with --open-stacks only, an
 * unwind).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pksfault.h"
#include "pks_bpf.h"

/* A store user space may read at any time: whole, and where it is written. */
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

const volatile pid_t target_pid = 0;	/* tgid, 0: all */
const volatile pid_t target_tid = 0;
const volatile int target_key = -1;
const volatile bool track_windows = false;	/* --leak or --hist */
const volatile bool window_stacks = false;	/* --open-stacks: unwind at each open */
const volatile __u64 leak_ns = 0;

/* Log2 histogram of window durations in usecs (--hist). */
__u64 hist[PKSFAULT_HIST_SLOTS] = {};

/*
 * The direct map's base: a variable with KASLR's memory randomisation, a
 * constant without (then the symbol is absent and this is NULL).
 */
extern const void page_offset_base __ksym __weak;
/* Only without it: no KASLR memory randomisation, hence no 5-level paging. */
#define PAGE_OFFSET_DEFAULT	0xffff888000000000ULL
/* The direct map's reach: MAX_PHYSMEM_BITS with 4- and 5-level paging. */
extern const void __pgtable_l5_enabled __ksym __weak;
#define DIRECT_MAP_MAX_L4	(1ULL << 46)
#define DIRECT_MAP_MAX_L5	(1ULL << 52)

/* The physical address of a direct-map @address, or 0 for any other. */
static __always_inline __u64 direct_map_phys(__u64 address)
{
	__u64 base = 0, max = DIRECT_MAP_MAX_L4;
	unsigned int l5 = 0;

	if (!&page_offset_base ||
	    bpf_probe_read_kernel(&base, sizeof(base), &page_offset_base))
		base = PAGE_OFFSET_DEFAULT;
	if (&__pgtable_l5_enabled &&
	    !bpf_probe_read_kernel(&l5, sizeof(l5), &__pgtable_l5_enabled) && l5)
		max = DIRECT_MAP_MAX_L5;
	/* vmalloc and the rest lie past the direct map's reach */
	if (address >= base && address - base < max)
		return address - base;
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* ~9000 events of burst */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PKSFAULT_MAX_WINDOWS);
	__type(key, __u64);
	__type(value, struct pksfault_window);
} windows SEC(".maps");

/* User space reads the open ones through a mapping of its own. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PKSFAULT_DIRECT_WINDOWS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct pksfault_window);
} direct SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pksfault_stats);
} stats SEC(".maps");

/*
 * When each thread last closed a window we had not seen open: lets the
 * task iterator drop a window it found open but that closed while it
 * looked (see pksfault_seed_windows).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} unmatched_close_ns SEC(".maps");

/* Scratch for building a window record: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pksfault_window);
} scratch SEC(".maps");

static __always_inline void count(int stat)
{
	__u32 zero = 0;
	struct pksfault_stats *s = bpf_map_lookup_elem(&stats, &zero);

	if (s && stat >= 0 && stat < PKSFAULT_STAT_NR)
		s->v[stat]++;	/* per-CPU: no atomics needed */
}

static __always_inline bool filtered(int key)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (target_pid && (id >> 32) != target_pid)
		return true;
	if (target_tid && (__u32)id != target_tid)
		return true;
	if (target_key >= 0 && key != target_key)
		return true;
	return !pks_current_in_cgroup();
}

/* The header of an event about the current task. */
static __always_inline void event_task(struct pksfault_event *e, __u32 type, int key)
{
	__u64 id = bpf_get_current_pid_tgid();

	e->type = type;
	e->cpu = bpf_get_smp_processor_id();
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (__u32)id;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->key = key;
}

SEC("tp_btf/pks_fault")
int BPF_PROG(pksfault_fault, unsigned long address, int key, const char *owner, bool write,
	     unsigned long ip, u32 pkrs, unsigned int depth, int mode, int outcome)
{
	struct pksfault_event *e;

	if (filtered(key))
		return 0;
	count(PKSFAULT_STAT_FAULTS);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(PKSFAULT_STAT_LOST);
		return 0;
	}
	event_task(e, PKSFAULT_EV_FAULT, key);
	e->address = address;
	/* User space matches it against /proc/iomem. */
	e->phys = direct_map_phys(address);
	e->ip = ip;
	e->pkrs = pkrs;
	e->depth = depth;
	e->mode = mode;
	e->outcome = outcome;
	e->write = write;
	e->ctx = pks_event_ctx();
	e->owner[0] = '\0';
	if (owner)
		bpf_probe_read_kernel_str(e->owner, sizeof(e->owner), owner);
	e->open_ns = 0;
	e->duration_ns = 0;
	e->open_caller = 0;
	e->close_caller = 0;
	e->win_flags = 0;
	e->pad2 = 0;
	e->stack_sz = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The window map key: its owner (bpf/pks_bpf.h) and the context. */
static __always_inline __u64 window_key(int c)
{
	return (__u64)pks_row_id(c) << 2 | c;
}

/* Whether a window of context @c with map key @wkey may have a direct slot. */
static __always_inline bool direct_ctx(int c, __u64 wkey)
{
	return c == PKS_CTX_TASK && !((wkey >> 2) & PKS_ROW_PER_CPU);
}

/* The record of window key @wkey, if it has one: its direct slot's or the hash map's. */
static __always_inline struct pksfault_window *find_window(int c, __u64 wkey)
{
	__u32 tid = wkey >> 2, slot = tid & (PKSFAULT_DIRECT_WINDOWS - 1);
	struct pksfault_window *w;

	if (direct_ctx(c, wkey)) {
		w = bpf_map_lookup_elem(&direct, &slot);
		if (w && w->tid == tid)
			return w;
	}
	return bpf_map_lookup_elem(&windows, &wkey);
}

/*
 * A record for window key @wkey, which had none: its direct slot if free,
 * else a hash entry.  The seeding iterator and the thread's own open may
 * both get here at once: the slot is claimed atomically and the hash
 * entry inserted only if absent, and both then describe the same open
 * window.  Its fields but start_ns (0) are the caller's to fill; NULL
 * when the hash map is full.
 */
static struct pksfault_window *new_window(int c, __u64 wkey)
{
	__u32 tid = wkey >> 2, slot = tid & (PKSFAULT_DIRECT_WINDOWS - 1), zero = 0, owner;
	struct pksfault_window *w;

	if (direct_ctx(c, wkey)) {
		w = bpf_map_lookup_elem(&direct, &slot);
		if (!w)
			return NULL;
		owner = __sync_val_compare_and_swap(&w->tid, 0, tid);
		if (!owner || owner == tid)
			return w;
	}
	w = bpf_map_lookup_elem(&scratch, &zero);
	if (!w)
		return NULL;
	w->start_ns = 0;
	bpf_map_update_elem(&windows, &wkey, w, BPF_NOEXIST);
	return bpf_map_lookup_elem(&windows, &wkey);
}

/*
 * The context of a window event worth following: the outermost open
 * (@want 1) or close (@want 0), matching the filters, not in hardirq/NMI
 * context.  -1 otherwise.
 */
static __always_inline int window_ctx(int key, unsigned int depth, unsigned int want)
{
	int c;

	if (!track_windows || !pks_armed || depth != want || filtered(key))
		return -1;
	c = pks_event_ctx();
	if (c == PKS_CTX_HARDIRQ) {
		count(PKSFAULT_STAT_IRQ_EVENTS);
		return -1;
	}
	return c;
}

SEC("tp_btf/dev_access_enable")
int BPF_PROG(pksfault_enable, int key, unsigned int depth, bool pkrs_written,
	     unsigned long caller)
{
	struct pksfault_window *w;
	__u64 id, wkey;
	int c;

	c = window_ctx(key, depth, 1);
	if (c < 0)
		return 0;
	id = bpf_get_current_pid_tgid();
	wkey = window_key(c);
	w = find_window(c, wkey);
	if (!w) {	/* this thread's first window since we attached */
		w = new_window(c, wkey);
		if (!w) {
			count(PKSFAULT_STAT_WIN_UNTRACKED);	/* map full: say so */
			return 0;
		}
	}
	/*
	 * An exception handler (a #PF in the window, say) starts at depth 0
	 * in the same task context: its window nests inside the thread's
	 * and must neither replace it nor close it.
	 */
	if (w->start_ns) {
		if (!pks_seed_raced(w->flags & PKSFAULT_WIN_SEEDED,
				    w->flags & PKSFAULT_WIN_SEED_RUNNING, w->seed_switches)) {
			w->inner++;
			return 0;
		}
		/* The seed was this very open, in flight: it becomes the open. */
		count(PKSFAULT_STAT_SEED_RACED);
	}
	w->caller = caller;
	w->pid = id >> 32;
	w->tid = (__u32)id;
	w->key = key;
	/*
	 * Copied, not bpf_get_current_comm(): 9 instructions instead of 45
	 * at every open (icount, test kernel).  The kernel keeps the last
	 * byte of a comm NUL, so the copy is terminated even if it races
	 * with a rename.
	 */
	__builtin_memcpy(w->comm, bpf_get_current_task_btf()->comm, sizeof(w->comm));
	if (window_stacks)
		w->stack_sz = bpf_get_stack(ctx, w->stack,
					    PKSFAULT_WINDOW_STACK * sizeof(w->stack[0]), 0);
	else
		w->stack_sz = 0;
	w->inner = 0;
	w->flags = 0;
	w->seed_switches = 0;
	/* Last: user space takes a window with a start time for an open one. */
	WRITE_ONCE(w->start_ns, bpf_ktime_get_ns());
	count(PKSFAULT_STAT_WIN_OPENED);
	return 0;
}

/* floor(log2(v)), 0 for v <= 1; branch-free so the verifier sees no loop. */
static __always_inline __u64 log2_slot(__u64 v)
{
	__u64 r, shift;

	r = (v > 0xffffffffULL) << 5;
	v >>= r;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

SEC("tp_btf/dev_access_disable")
int BPF_PROG(pksfault_disable, int key, unsigned int depth, bool pkrs_written,
	     unsigned long caller)
{
	struct pksfault_window *w;
	struct pksfault_event *e;
	__u64 wkey, now, dur, slot;
	int c;

	c = window_ctx(key, depth, 0);
	if (c < 0)
		return 0;
	wkey = window_key(c);
	w = find_window(c, wkey);
	if (!w || !w->start_ns) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();

		count(PKSFAULT_STAT_WIN_UNMATCHED);
		now = bpf_ktime_get_ns();
		if (c == PKS_CTX_TASK)
			bpf_map_update_elem(&unmatched_close_ns, &tid, &now, BPF_ANY);
		return 0;
	}
	if (w->inner) {		/* an exception handler's window closes */
		w->inner--;
		return 0;
	}
	now = bpf_ktime_get_ns();
	dur = now - w->start_ns;
	count(PKSFAULT_STAT_WIN_CLOSED);
	slot = log2_slot(dur / 1000);
	/* The last slot is open-ended: no window goes uncounted. */
	if (slot >= PKSFAULT_HIST_SLOTS)
		slot = PKSFAULT_HIST_SLOTS - 1;
	if (slot < PKSFAULT_HIST_SLOTS)	/* unsigned: the verifier sees both bounds */
		__sync_fetch_and_add(&hist[slot], 1);
	if (leak_ns && dur > leak_ns) {
		count(PKSFAULT_STAT_LEAKS);
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			count(PKSFAULT_STAT_LOST);
		} else {
			__builtin_memset(e, 0, offsetof(struct pksfault_event, stack));
			e->type = PKSFAULT_EV_LEAK;
			e->cpu = bpf_get_smp_processor_id();
			e->ts_ns = now;
			e->pid = w->pid;
			e->tid = w->tid;
			__builtin_memcpy(e->comm, w->comm, sizeof(e->comm));
			/* A window found open at attach learns its key only now. */
			e->key = w->key >= 0 ? w->key : key;
			e->ctx = c;
			e->win_flags = w->flags;
			e->open_ns = w->start_ns;
			e->duration_ns = dur;
			e->open_caller = w->caller;
			e->close_caller = caller;
			if (w->stack_sz > 0) {
				e->stack_sz = w->stack_sz;
				__builtin_memcpy(e->stack, w->stack, sizeof(e->stack));
			} else {	/* no opener's stack: the closer's, now */
				e->stack_sz = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
				e->win_flags |= PKSFAULT_WIN_STACK_CLOSER;
			}
			bpf_ringbuf_submit(e, 0);
		}
	}
	WRITE_ONCE(w->start_ns, 0);	/* closed; the entry waits for its next window */
	return 0;
}

/* A thread's record goes with it (its windows are over; see the top). */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(pksfault_thread_exit, struct task_struct *task)
{
	__u32 tid = BPF_CORE_READ(task, pid), slot = tid & (PKSFAULT_DIRECT_WINDOWS - 1);
	__u64 wkey = (__u64)tid << 2 | PKS_CTX_TASK;
	struct pksfault_window *w = bpf_map_lookup_elem(&direct, &slot);

	/* One still open stays, to be listed at exit like any other. */
	if (w && w->tid == tid) {
		if (!w->start_ns)	/* free: its next owner writes every field */
			WRITE_ONCE(w->tid, 0);
		return 0;
	}
	w = bpf_map_lookup_elem(&windows, &wkey);
	if (w && !w->start_ns)
		bpf_map_delete_elem(&windows, &wkey);
	return 0;
}

/*
 * A close of a window that was not open: a caller bug the kernel warns
 * about once; every one is reported and fails the gate.  Its stack is the
 * closer's.  Always attached (where the kernel has the event): it costs
 * nothing until a bug happens.
 */
SEC("tp_btf/dev_access_unbalanced")
int BPF_PROG(pksfault_unbalanced, int key, unsigned long caller)
{
	struct pksfault_event *e;

	if (filtered(key))
		return 0;
	count(PKSFAULT_STAT_UNBALANCED);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(PKSFAULT_STAT_LOST);
		return 0;
	}
	__builtin_memset(e, 0, offsetof(struct pksfault_event, stack));
	event_task(e, PKSFAULT_EV_UNBALANCED, key);
	e->ctx = pks_event_ctx();
	e->close_caller = caller;
	e->stack_sz = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Run once right after the tracepoints are attached: every thread found
 * with a window open was opened before we attached, so no open event will
 * ever tell us about it.  Seed its window with the attach time as start
 * (held "at least" that long), so that it is swept and gated like any
 * other.  Softirq-context windows are not visible here (their depth is
 * saved on the softirq's stack), nor are the idle tasks'.
 *
 * Two races.  The window may close between reading the depth and
 * inserting the seed: its close event then finds no window and stamps
 * unmatched_close_ns[tid] later than @now; a stamp that recent means the
 * seed is stale and goes.  And the depth may be an open in flight (raised,
 * its event not fired yet): the seed records whether the thread was
 * running and its context switches, so that the open, when its event
 * comes, takes the seed's place instead of nesting in it (see
 * PKSFAULT_WIN_SEED_RUNNING).
 */
SEC("iter/task")
int pksfault_seed_windows(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct pksfault_window *w;
	__u64 now, wkey, *closed, switches;
	bool running;
	__u32 tid;

	if (!task || !track_windows)
		return 0;
	if (!bpf_core_field_exists(task->dev_page_access_ref))
		return 0;	/* a kernel without device-memory protection */
	now = bpf_ktime_get_ns();
	if (!BPF_CORE_READ(task, dev_page_access_ref))
		return 0;
	/* After the depth: an open in flight then is still in flight now. */
	running = pks_task_running(task);
	switches = pks_task_switches(task);
	tid = BPF_CORE_READ(task, pid);
	if (target_tid && tid != target_tid)
		return 0;
	if (target_pid && BPF_CORE_READ(task, tgid) != target_pid)
		return 0;
	if (!pks_task_in_cgroup(task))
		return 0;
	wkey = (__u64)tid << 2 | PKS_CTX_TASK;
	/* A record already: its open was seen after all. */
	if (find_window(PKS_CTX_TASK, wkey))
		return 0;
	w = new_window(PKS_CTX_TASK, wkey);
	if (!w || w->start_ns)
		return 0;	/* the map is full, or its open came first after all */
	w->caller = 0;
	w->pid = BPF_CORE_READ(task, tgid);
	w->tid = tid;
	w->key = -1;
	w->stack_sz = 0;
	w->inner = 0;
	w->flags = PKSFAULT_WIN_SEEDED | (running ? PKSFAULT_WIN_SEED_RUNNING : 0);
	w->seed_switches = switches;
	bpf_probe_read_kernel_str(w->comm, sizeof(w->comm), task->comm);
	WRITE_ONCE(w->start_ns, now);	/* last, as at an open */
	/* Open before the check: a close from now on finds the seed. */
	closed = bpf_map_lookup_elem(&unmatched_close_ns, &tid);
	if (closed && *closed >= now) {
		WRITE_ONCE(w->start_ns, 0);	/* it closed while we looked */
		return 0;
	}
	count(PKSFAULT_STAT_WIN_SEEDED);
	return 0;
}

/*
 * The kernel stack of thread holder_tid (set by user space before each
 * read), for a leak found open without its opener's stack: where the
 * holder is now shows what keeps the window open.
 */
__u32 holder_tid;

SEC("iter/task")
int pksfault_holder_stack(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	__u64 stack[PKSFAULT_WINDOW_STACK];
	__u32 len;
	long n;

	if (!task || !holder_tid || task->pid != holder_tid)
		return 0;
	n = bpf_get_task_stack(task, stack, sizeof(stack), 0);
	if (n <= 0)
		return 0;
	/* clang merges the two range tests into one the verifier cannot follow */
	len = n;
	barrier_var(len);
	if (len <= sizeof(stack))
		bpf_seq_write(ctx->meta->seq, stack, len);
	return 0;
}

/* The key table for user space, without debugfs: see pks_iter_keys(). */
SEC("iter/task")
int pksfault_keys(struct bpf_iter__task *ctx)
{
	return pks_iter_keys(ctx);
}

char LICENSE[] SEC("license") = "GPL";
