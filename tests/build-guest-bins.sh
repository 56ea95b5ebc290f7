#!/usr/bin/env bash
# Build the kernel selftests the guest suites run, statically, from the
# patched kernel tree, into build/guest/.  With PKS_KSRC and
# PKS_GUEST_BIN (make check-series, another checkout of the series), only
# the selftests, from that tree into that directory.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

KSRC=${PKS_KSRC:-$KSRC}
out=${PKS_GUEST_BIN:-$BUILD/guest}
st=$KSRC/tools/testing/selftests
mkdir -p "$out"
cc() { gcc -O2 -Wall -static -I "$st" "$@" -lrt -lpthread; }

# build BINARY SOURCE [CFLAGS...]: rebuild only when the source is newer.
build() {
	local bin=$1 src=$2
	shift 2
	if [ ! -x "$out/$bin" ] || [ "$src" -nt "$out/$bin" ]; then
		cc -o "$out/$bin" "$src" "$@"
		echo "guest-bins: built $bin"
	fi
}
build test_pks "$st/x86/test_pks.c"
build protection_keys "$st/vm/protection_keys.c" -mxsave
[ -z "${PKS_KSRC:-}" ] || exit 0
# make bench's DAX operations in instructions (bench-icount-prot.sh).
build opbench "$ROOT/tests/guest/opbench.c"
# For the CO-RE tests: a kernel BTF without a member (see its comment).
build btf_without "$ROOT/tests/guest/btf_without.c" -lbpf -lelf -lz -lzstd
# The project's own device-memory hooks, an out-of-tree module that the
# guest scripts load (tests/hooks).
"$ROOT/tests/hooks/build.sh"
