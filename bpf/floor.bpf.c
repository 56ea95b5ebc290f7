// SPDX-License-Identifier: GPL-2.0
/*
 * make bench's floor: programs on the two events every window emits that
 * do nothing (part FLOOR_EMPTY).  What fio loses with them attached is
 * what any tool that runs a program per window pays before doing any work
 * of its own.  The other parts add one thing each that the tools do at
 * every event, so that the report can say what each costs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "floor.h"

char LICENSE[] SEC("license") = "GPL";

const volatile int part = FLOOR_EMPTY;	/* set before load: dead parts go */
extern int __preempt_count __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} per_cpu SEC(".maps");

__u64 sink;	/* where each part's result goes, so that it is computed */

static __always_inline int one_part(void)
{
	__u32 zero = 0;
	__u64 *v;

	switch (part) {
	case FLOOR_KTIME:
		sink += bpf_ktime_get_ns();
		break;
	case FLOOR_PID_TGID:
		sink += bpf_get_current_pid_tgid();
		break;
	case FLOOR_PREEMPT_COUNT:
		sink += *(int *)bpf_this_cpu_ptr(&__preempt_count);
		break;
	case FLOOR_PERCPU_LOOKUP:
		v = bpf_map_lookup_elem(&per_cpu, &zero);
		if (v)
			(*v)++;
		break;
	}
	return 0;
}

SEC("tp_btf/dev_access_enable")
int BPF_PROG(floor_enable)
{
	return one_part();
}

SEC("tp_btf/dev_access_disable")
int BPF_PROG(floor_disable)
{
	return one_part();
}
