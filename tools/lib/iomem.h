/* SPDX-License-Identifier: GPL-2.0 */
/* Physical address -> pmem/dax device and offset, from /proc/iomem. */
#ifndef PKS_IOMEM_H
#define PKS_IOMEM_H

#include <stddef.h>
#include <stdint.h>

#define IOMEM_MAX_DEVS	32

struct iomem_dev {
	uint64_t start, end;	/* inclusive, as /proc/iomem prints them */
	char name[64];		/* "namespace0.0", "dax0.0", ... */
};

struct iomem_map {
	struct iomem_dev devs[IOMEM_MAX_DEVS];
	int nr;
};

/*
 * Read the device ranges ("namespaceX.Y", "daxX.Y", "pmemN", "btt..." names)
 * of @path (NULL: /proc/iomem).  Returns how many, or -errno.  Addresses
 * are all zero unless root: such ranges are dropped.
 */
int iomem_load(const char *path, struct iomem_map *map);
/* The innermost device range holding @phys, or NULL. */
const struct iomem_dev *iomem_lookup(const struct iomem_map *map, uint64_t phys);

#endif /* PKS_IOMEM_H */
