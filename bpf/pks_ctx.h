/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both tools (and their user space) agree on: the key count, owner
 * length and default PKRS, where a pks event fired and whose row or
 * window it belongs to.  BPF helpers that compute
 * these are in bpf/pks_bpf.h.
 */
#ifndef PKS_CTX_H
#define PKS_CTX_H

/* One set of constants for both tools, BPF and user space. */
#define PKS_NR_KEYS		16
#define PKS_OWNER_LEN		64	/* bytes of a key owner's name kept, NUL included */
#define PKS_PKRS_DEFAULT	0x55555554u	/* key 0 RW, keys 1-15 AD */

/*
 * The context of an event.  Interrupt and NMI handlers run with their
 * own window depth (the kernel saves and restores the interrupted
 * thread's), and so do softirqs: none of their events is the thread's.
 */
enum pks_ctx {
	PKS_CTX_TASK = 0,
	PKS_CTX_SOFTIRQ = 1,
	PKS_CTX_HARDIRQ = 2,	/* hardirq or NMI */
};

/*
 * Row ids: a thread's TID, or for what has no TID of its own one id per
 * CPU.  The idle tasks are all TID 0; softirqs borrow whatever thread
 * they interrupted.  TIDs stay below 2^22 (PID_MAX_LIMIT), so the top
 * bits are free.
 */
#define PKS_ROW_IDLE		0x80000000u	/* | cpu: that CPU's idle task */
#define PKS_ROW_SOFTIRQ		0xc0000000u	/* | cpu: softirqs on that CPU */
#define PKS_ROW_PER_CPU		0x80000000u	/* either of the above */
#define PKS_ROW_CPU(id)		((id) & 0x3fffffffu)

#endif /* PKS_CTX_H */
