# Shared build rules for the BPF tools; included by tools/lib/tool.mk (both
# tools) and tests/floor/Makefile.  Everything lands in build/tools/.
#
# vmlinux.h comes from the BTF of the kernel this project builds
# (build/kobj/vmlinux), never from the host's kernel: only ours has the
# pks tracepoints and the task_struct/thread_struct fields the tools read.

ROOT	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
OUT	?= $(ROOT)/build/tools
KOBJ	?= $(ROOT)/build/kobj
BPFTOOL	?= bpftool
CLANG	?= clang
CC	?= gcc

CFLAGS	?= -O2 -g -Wall -Wextra -Wno-unused-parameter
CPPFLAGS += -I$(OUT) -I$(ROOT)/tools/lib
# Static, so the binaries run in the guest whatever its userland.
LDFLAGS	+= -static
LDLIBS	+= -lbpf -lelf -lz -lzstd

BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_x86 -Wall -I$(OUT) -I$(ROOT)/bpf -MMD -MP
# Every object says which headers it read (-MMD): a header edit rebuilds it.
DEPFLAGS := -MMD -MP
-include $(wildcard $(OUT)/*.d $(OUT)/*.obj/*.d)

$(OUT):
	mkdir -p $@

$(OUT)/vmlinux.h: $(KOBJ)/vmlinux | $(OUT)
	$(BPFTOOL) btf dump file $< format c > $@.tmp
	mv $@.tmp $@

$(OUT)/%.bpf.o: $(ROOT)/bpf/%.bpf.c $(OUT)/vmlinux.h $(wildcard $(ROOT)/bpf/*.h) | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp
	mv $@.tmp $@
