// SPDX-License-Identifier: GPL-2.0-only
/*
 * A module that allocates a supervisor protection key and unloads without
 * freeing it, naming the key with a string it frees at once: the kernel
 * must keep its own copy of the name, readable after the module is gone
 * (debugfs x86/pks_keys_allocated, the trace events, the BPF kfunc), and
 * refuse to let another module free the key (pks_hooks' "keyfree").
 * Reports "pks_key_orphan: key N (NAME)" on the kernel log.
 */
#define pr_fmt(fmt) "pks_key_orphan: " fmt

#include <linux/module.h>
#include <linux/pks.h>
#include <linux/sched.h>
#include <linux/slab.h>

static int __init pks_key_orphan_init(void)
{
	char *name = kasprintf(GFP_KERNEL, "orphan of pid %d", task_pid_nr(current));
	int pkey;

	if (!name)
		return -ENOMEM;
	pkey = pks_key_alloc(name);
	pr_info("key %d (%s)\n", pkey, name);
	/* Poison the string: only the kernel's copy may still say it. */
	memset(name, 'X', strlen(name));
	kfree(name);
	return 0;
}
module_init(pks_key_orphan_init);

static void __exit pks_key_orphan_exit(void)
{
	/* The key is left allocated on purpose. */
}
module_exit(pks_key_orphan_exit);

MODULE_DESCRIPTION("Leaves a PKS key allocated behind it (a test)");
MODULE_LICENSE("GPL");
