# One tool's build, the same for both: included by tools/pksfault/Makefile
# and pkstop/Makefile after they set
#   TOOL       the tool's name (its main is TOOL.c, its BPF bpf/TOOL.bpf.c)
#   TOOL_PATH  its directory, relative to the top of the tree
#   SRCS       its sources, main first
# Builds build/tools/TOOL (static) from build/tools/TOOL.obj/*.o and the
# shared library build/tools/libpks.obj/libpks.a (tools/lib/*.c).
include $(dir $(lastword $(MAKEFILE_LIST)))bpf.mk

TOOL_DIR := $(ROOT)/$(TOOL_PATH)
OBJDIR	:= $(OUT)/$(TOOL).obj
OBJS	:= $(patsubst %.c,$(OBJDIR)/%.o,$(SRCS))
# Not build/tools/lib: the dependency files an older layout left there
# name sources that have moved, and would stop an incremental build.
LIBDIR	:= $(OUT)/libpks.obj
# The shared helpers: pure C + libbpf, no skeletons, so unit tests link them.
LIB_SRCS := pks_common.c pks_opts.c kallsyms.c iomem.c hist.c
LIB_OBJS := $(patsubst %.c,$(LIBDIR)/%.o,$(LIB_SRCS))
LIB	:= $(LIBDIR)/libpks.a
CPPFLAGS += -I$(TOOL_DIR) -I$(ROOT)/bpf

.DEFAULT_GOAL := all
.PHONY: all clean print-unit-srcs
# Keep the BPF object: it is an intermediate of the skeleton otherwise.
.SECONDARY: $(OUT)/$(TOOL).bpf.o
# v3: the atomic compare-and-exchange that claims a direct row or window slot (5.12+).
$(OUT)/$(TOOL).bpf.o: BPF_CFLAGS += -mcpu=v3
all: $(OUT)/$(TOOL)

# An archive: each tool links only the helpers it calls.
$(OUT)/$(TOOL): $(OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(OBJDIR) $(LIBDIR):
	mkdir -p $@

# The main needs the skeleton; the others are pure and need no BPF build.
$(OBJDIR)/$(TOOL).o: $(OUT)/$(TOOL).skel.h
$(OBJDIR)/%.o: $(TOOL_DIR)/%.c | $(OBJDIR)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c $< -o $@

$(LIBDIR)/%.o: $(ROOT)/tools/lib/%.c | $(LIBDIR)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c $< -o $@

# For tests/host/TOOL.sh: what the unit tests link (all but main), one
# list, relative to the top of the tree.
print-unit-srcs:
	@echo $(addprefix tools/lib/,$(LIB_SRCS)) \
		$(addprefix $(TOOL_PATH)/,$(filter-out $(TOOL).c,$(SRCS)))

clean:
	rm -rf $(OBJDIR) $(OUT)/$(TOOL) $(OUT)/$(TOOL).bpf.o $(OUT)/$(TOOL).bpf.d \
		$(OUT)/$(TOOL).skel.h
