/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF helpers shared by pksfault.bpf.c and pkstop.bpf.c, so that both
 * tools classify and key events the same way.  Include after vmlinux.h
 * and the libbpf headers.
 */
#ifndef PKS_BPF_H
#define PKS_BPF_H

#include "pks_ctx.h"

#define PKS_HARDIRQ_MASK	0x000f0000
#define PKS_NMI_MASK		0x00f00000
#define PKS_SOFTIRQ_OFFSET	0x00000100	/* set only while serving softirqs */

extern int __preempt_count __ksym;

/*
 * Where the current event fired.  Only SOFTIRQ_OFFSET means "serving
 * softirqs": the rest of the softirq count is local_bh_disable() in a
 * thread, whose events are the thread's.
 */
static __always_inline int pks_event_ctx(void)
{
	int pc = *(int *)bpf_this_cpu_ptr(&__preempt_count);

	if (pc & (PKS_HARDIRQ_MASK | PKS_NMI_MASK))
		return PKS_CTX_HARDIRQ;
	if (pc & PKS_SOFTIRQ_OFFSET)
		return PKS_CTX_SOFTIRQ;
	return PKS_CTX_TASK;
}

/*
 * The row (pkstop) or window owner (pksfault) of an event in task or
 * softirq context: the thread, the CPU's idle task, or the CPU's
 * softirqs.
 */
static __always_inline __u32 pks_row_id(int ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (ctx == PKS_CTX_SOFTIRQ)
		return PKS_ROW_SOFTIRQ | bpf_get_smp_processor_id();
	if (!tid)
		return PKS_ROW_IDLE | bpf_get_smp_processor_id();
	return tid;
}

/*
 * Set by user space once every program is attached.  The skeleton
 * attaches them one by one: a window opened after dev_access_enable's
 * program was attached and closed before dev_access_disable's was would
 * stay open for ever, its thread's later windows nested in it.  Window
 * programs ignore events until then; a window open across the arming is
 * found by the task iterator, run after it.
 */
volatile bool pks_armed;

/*
 * -c CGROUP (both tools), --cgroup (pksfault): only tasks in that cgroup
 * v2 directory or below it.  User space sets pks_cgroup_id (its kernfs
 * id) before load and puts the directory's fd in pks_cgroup after.
 */
const volatile __u64 pks_cgroup_id = 0;

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} pks_cgroup SEC(".maps");

/* The current task is in the cgroup (or there is no cgroup filter). */
static __always_inline bool pks_current_in_cgroup(void)
{
	return !pks_cgroup_id || bpf_current_task_under_cgroup(&pks_cgroup, 0) == 1;
}

#define PKS_CGROUP_MAX_DEPTH	32

/* kernfs_node.parent, renamed __parent in 6.15. */
struct kernfs_node___pre615 {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));
struct kernfs_node___615 {
	struct kernfs_node *__parent;
} __attribute__((preserve_access_index));

static __always_inline struct kernfs_node *pks_kn_parent(struct kernfs_node *kn)
{
	struct kernfs_node___pre615 *old = (void *)kn;

	if (bpf_core_field_exists(old->parent))
		return BPF_CORE_READ(old, parent);
	return BPF_CORE_READ((struct kernfs_node___615 *)kn, __parent);
}

/*
 * The same for a task iterator's @task (not current): its cgroup's kernfs
 * node or one of its parents is the cgroup's.
 */
static __always_inline bool pks_task_in_cgroup(struct task_struct *task)
{
	struct kernfs_node *kn;
	int i;

	if (!pks_cgroup_id)
		return true;
	kn = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn);
	for (i = 0; i < PKS_CGROUP_MAX_DEPTH && kn; i++) {
		if (BPF_CORE_READ(kn, id) == pks_cgroup_id)
			return true;
		kn = pks_kn_parent(kn);
	}
	return false;
}

/*
 * Whether @task is on a CPU now, and how often it has left one (its
 * voluntary and involuntary context switches).  Kernels without on_cpu
 * (no SMP): say running, the cautious answer for pks_seed_raced().
 */
static __always_inline bool pks_task_running(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->on_cpu))
		return true;
	return BPF_CORE_READ(task, on_cpu);
}

static __always_inline __u64 pks_task_switches(struct task_struct *task)
{
	return BPF_CORE_READ(task, nvcsw) + BPF_CORE_READ(task, nivcsw);
}

/*
 * A depth-1 open of the current thread finds a window its tool's task
 * iterator seeded (@seeded) while the thread was @running with
 * @switches context switches.  The kernel raises the depth before it
 * fires dev_access_enable, with IRQs off in between: if the thread has
 * not left its CPU since, the seed saw this very open in flight, and the
 * open replaces it.  Otherwise the open is an exception handler's window
 * inside the seeded one.  (A handler's window with no switch since the
 * seed is taken for the thread's own: the seeded window then ends early,
 * never late, so that no attach makes a false leak.)
 */
static __always_inline bool pks_seed_raced(bool seeded, bool running, __u64 switches)
{
	if (!seeded || !running)
		return false;
	return pks_task_switches(bpf_get_current_task_btf()) == switches;
}

/* task->__state, or ->state before 5.14 renamed it. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 pks_task_state(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return BPF_CORE_READ(task, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)task, state);
}

/*
 * The PKRS a thread switched out with: the default on kernels without
 * PKS's thread.saved_pkrs.
 */
static __always_inline __u32 pks_task_saved_pkrs(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->thread.saved_pkrs))
		return PKS_PKRS_DEFAULT;
	return BPF_CORE_READ(task, thread.saved_pkrs);
}

/*
 * The key table, as "KEY: OWNER" lines like the debugfs file's, for
 * tools without root: the kernel's bpf_pks_key_owner() kfunc needs only
 * the capabilities that loading the tools takes.  Weak: user space leaves
 * the iterator that calls it unloaded on kernels without it (libbpf
 * resolves a missing weak kfunc to nothing the verifier would accept).
 */
extern int bpf_pks_key_owner(int pkey, char *owner, __u32 owner__sz) __ksym __weak;

/* The body of a tool's iter/task "keys" program: one pass per read. */
static __always_inline int pks_iter_keys(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	char owner[PKS_OWNER_LEN] = {};
	int key;

	if (ctx->meta->seq_num)
		return 0;
	for (key = 0; key < PKS_NR_KEYS; key++) {
		if (bpf_pks_key_owner(key, owner, sizeof(owner)) > 0)
			BPF_SEQ_PRINTF(seq, "%d: %s\n", key, owner);
	}
	return 0;
}

#endif /* PKS_BPF_H */
