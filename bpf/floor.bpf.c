// SPDX-License-Identifier: GPL-2.0
/*
 * make bench's floor: programs on the two events every window emits that
 * do nothing.  What fio loses with them attached is what any tool that
 * runs a program per window pays before doing any work of its own.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/dev_access_enable")
int BPF_PROG(floor_enable)
{
	return 0;
}

SEC("tp_btf/dev_access_disable")
int BPF_PROG(floor_disable)
{
	return 0;
}
