# PKS (Protection Keys Supervisor) for Linux 6.1: kernel series, QEMU
# harness, BPF tools and tests.  `make run` is the demo, `make test` the
# test suite; both work on a fresh Debian 12 machine as root.
SHELL := /bin/bash

# Exactly what the build, the guest and the tools need from Debian.
DEPS := build-essential bc bison flex libelf-dev libssl-dev dwarves ccache \
	linux-source-6.1 python3 cpio kmod git xz-utils \
	qemu-system-x86 ndctl e2fsprogs fio util-linux procps gnuplot-nox \
	clang llvm libbpf-dev bpftool zlib1g-dev libzstd-dev \
	xfsprogs stress-ng dmsetup \
	gcc-mips64el-linux-gnuabi64 gcc-aarch64-linux-gnu prometheus-node-exporter sparse bpftrace \
	prometheus python3-junitparser

.PHONY: all deps kernel guest-bins tools floor run shell test bench stress soak \
	check-series export clean install

all: kernel guest-bins tools

deps:
	@missing=""; for p in $(DEPS); do \
		dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null | grep -qx installed || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends $$missing; \
	fi

kernel: deps
	kernel/build.sh

guest-bins: kernel
	tests/build-guest-bins.sh

# pksfault and pkstop, static, with vmlinux.h from the kernel built here.
tools: kernel
	$(MAKE) -C tools
	$(MAKE) -C pkstop

# The main job: build, boot the VM with emulated pmem, show PKS at work.
run: guest-bins tools
	vm/run.sh --timeout 300 --append pks-test-on-boot vm/demo.sh

# An interactive guest for developers (exit with: echo o >/proc/sysrq-trigger)
shell: guest-bins
	vm/run.sh --shell

test: deps
	tests/run.sh

# On its own kernel without the debug checks (build/kobj-bench).
bench: guest-bins tools floor
	tests/bench.sh

# make bench's floor: empty BPF programs on the window events.
floor: kernel
	$(MAKE) -C tests/floor

# Everything at once in one guest, bounded (10 minutes), self-checking.
# Like every guest run, on the test kernel: lockdep, DEBUG_ENTRY and the
# atomic-sleep, preempt and list checks are on (kernel/config/debug.config).
stress: guest-bins tools
	tests/stress.sh

# What make test runs short, at full length (about 25 minutes): pksfault
# attached 200 times while a thread opens and closes windows as fast as
# it can, with no false leak allowed (make test attaches 10 times).
soak: guest-bins tools
	PKS_GUEST_SEED_ATTACHES=200 vm/run.sh --timeout 3600 --log build/logs/soak.log \
		--pmem build/vm/pmem-soak.img --append memremap.pks_fault_mode_weaken=1 \
		tests/guest/pksfault.sh seed-race

# Slow: builds every commit of the series on its own (bisectability).
check-series: deps
	tests/check-series.sh

# After committing in build/linux: write the series back to kernel/patches.
export:
	kernel/export.sh

# The tools as a system tool: binaries, man pages, bash completion.
# Installs what `make tools` built (TOOLS_OUT); never builds a kernel.
#   make install [DESTDIR=/tmp/stage] [PREFIX=/usr]
PREFIX ?= /usr/local
TOOLS_OUT ?= build/tools
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

install:
	@for t in pksfault pkstop; do \
		[ -x "$(TOOLS_OUT)/$$t" ] || { echo "install: $(TOOLS_OUT)/$$t missing: make tools first" >&2; exit 2; }; \
	done
	install -d "$(DESTDIR)$(SBINDIR)" "$(DESTDIR)$(MANDIR)/man8" "$(DESTDIR)$(COMPLETIONDIR)"
	install -m 0755 "$(TOOLS_OUT)/pksfault" "$(TOOLS_OUT)/pkstop" "$(DESTDIR)$(SBINDIR)/"
	install -m 0644 tools/pksfault/pksfault.8 pkstop/pkstop.8 "$(DESTDIR)$(MANDIR)/man8/"
	install -m 0644 tools/completion/pksfault tools/completion/pkstop "$(DESTDIR)$(COMPLETIONDIR)/"

clean:
	rm -rf build
