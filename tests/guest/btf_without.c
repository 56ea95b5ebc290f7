// SPDX-License-Identifier: GPL-2.0
/*
 * btf_without IN STRUCT MEMBER OUT: write the BTF in IN to OUT with
 * STRUCT's MEMBER renamed away, as if the kernel had been built without
 * it.  btf_without IN func NAME OUT: the same for the function NAME (a
 * kfunc the kernel would not have).  The tools relocate against OUT when PKS_BTF=OUT, and still load
 * into the running kernel: a test of their CO-RE guards for kernels with
 * PKS but without device-memory protection (no
 * task_struct.dev_page_access_ref), on the kernel we have.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

static int rename_member(struct btf *btf, const char *type, const char *member)
{
	struct btf_member *m;
	struct btf_type *t;
	int id, name, i;

	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id < 0)
		return fprintf(stderr, "btf_without: no struct %s\n", type), -1;
	/* First: adding a string makes the types writable (and moves them). */
	name = btf__add_str(btf, "__pks_removed_member");
	if (name < 0)
		return fprintf(stderr, "btf_without: cannot add a name\n"), -1;
	t = (struct btf_type *)btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member)) {
			m->name_off = name;
			return 0;
		}
	}
	return fprintf(stderr, "btf_without: struct %s has no member %s\n", type, member), -1;
}

static int rename_func(struct btf *btf, const char *func)
{
	struct btf_type *t;
	int id, name;

	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return fprintf(stderr, "btf_without: no function %s\n", func), -1;
	name = btf__add_str(btf, "__pks_removed_func");
	if (name < 0)
		return fprintf(stderr, "btf_without: cannot add a name\n"), -1;
	t = (struct btf_type *)btf__type_by_id(btf, id);
	t->name_off = name;
	return 0;
}

int main(int argc, char **argv)
{
	const void *raw;
	struct btf *btf;
	__u32 size;
	FILE *f;

	if (argc != 5) {
		fprintf(stderr, "usage: btf_without IN STRUCT MEMBER OUT | IN func NAME OUT\n");
		return 2;
	}
	btf = btf__parse(argv[1], NULL);
	if (!btf) {
		perror(argv[1]);
		return 1;
	}
	if (!strcmp(argv[2], "func") ? rename_func(btf, argv[3]) :
				       rename_member(btf, argv[2], argv[3]))
		return 1;
	raw = btf__raw_data(btf, &size);
	f = fopen(argv[4], "w");
	if (!raw || !f || fwrite(raw, 1, size, f) != size || fclose(f)) {
		perror(argv[4]);
		return 1;
	}
	btf__free(btf);
	return 0;
}
