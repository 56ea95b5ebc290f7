#!/usr/bin/env bash
# Build bzImage (with BTF) from build/linux into build/kobj, using ccache.
# Config: x86_64_defconfig + kvm_guest.config + kernel/config/*.config, plus
# the fragments in PKS_EXTRA_CONFIGS (make bench adds bench/nodebug.config).
# PKS_KSRC builds another checkout of the series instead (make
# check-series boots the end of the core part from its own worktree).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -n "${PKS_KSRC:-}" ]; then
	KSRC=$PKS_KSRC
else
	"$ROOT/kernel/tree.sh"
fi

KOBJ=${PKS_KOBJ:-$KOBJ}
mapfile -t fragments < <(ls "$ROOT"/kernel/config/*.config)
if [ -n "${PKS_EXTRA_CONFIGS:-}" ]; then
	read -r -a extra <<<"$PKS_EXTRA_CONFIGS"
	fragments+=("${extra[@]}")
fi
inputs=("$KSRC/arch/x86/configs/x86_64_defconfig" "$KSRC/kernel/configs/kvm_guest.config" "${fragments[@]}")
mkdir -p "$KOBJ"
if [ -n "${PKS_KSRC:-}" ]; then
	APPLIED=$KOBJ/.pks-source-commit
	git -C "$KSRC" rev-parse HEAD >"$APPLIED"
fi
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
make_k() { make -s -C "$KSRC" O="$KOBJ" CC="ccache gcc" -j"$(nproc)" "$@"; }

stamp=$(cat "${inputs[@]}" "$APPLIED" | sha256sum)
if [ ! -f "$KOBJ/.config" ] || [ "$(cat "$KOBJ/.pks-config-stamp" 2>/dev/null)" != "$stamp" ]; then
	KCONFIG_CONFIG="$KOBJ/.config" "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" "${inputs[@]}" >"$KOBJ/merge.log"
	make_k olddefconfig
	# merge_config only warns when Kconfig overrides a request; we fail,
	# because a silently missing option shows up much later as a test that
	# cannot run.
	# A later fragment overrides an earlier one (make bench's nodebug).
	bad=0
	declare -A want=()
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) want[${line%%=*}]=${line#*=} ;; esac
	done < <(cat "${fragments[@]}")
	for opt in "${!want[@]}"; do
		# An earlier commit of the series (PKS_KSRC) does not know the
		# options later commits add: those are not requests it can miss.
		if [ -n "${PKS_KSRC:-}" ] &&
			! git -C "$KSRC" grep -qE "^\s*(menu)?config ${opt#CONFIG_}\s*$" -- '*Kconfig*'; then
			continue
		elif [ "${want[$opt]}" = n ]; then
			grep -q "^$opt=" "$KOBJ/.config" && { echo "config: $opt is set, wanted off" >&2; bad=1; }
		else
			grep -qx "$opt=${want[$opt]}" "$KOBJ/.config" ||
				{ echo "config: wanted $opt=${want[$opt]}, got: $(grep "^$opt=" "$KOBJ/.config" || echo unset)" >&2; bad=1; }
		fi
	done
	[ "$bad" = 0 ] || die "kernel config fragments not honoured (see above)"
	echo "$stamp" >"$KOBJ/.pks-config-stamp"
fi

# A line every 30 s while make runs: objects compiled so far of about
# how many (the count of the last full build, kernel/objects.expected on
# a fresh machine), and the time.  Enough to tell a long build from a hung
# one, few enough for a CI log.  PKS_PROGRESS names where they go.
progress() {
	local total n
	total=$(cat "$KOBJ/.pks-objects" 2>/dev/null || cat "$ROOT/kernel/objects.expected")
	while sleep 30; do
		# find fails when make removes a temporary directory under it
		# mid-walk; the count is still good, and the loop must go on.
		n=$(find "$KOBJ" -name '*.o' -newer "$KOBJ/.pks-build-start" 2>/dev/null | wc -l || true)
		echo "# kernel: $n objects compiled (a full build has about $total), $(($(date +%s) - start)) s" >>"${PKS_PROGRESS:-/dev/stderr}"
	done
}

start=$(date +%s)
fresh=no
[ -f "$KOBJ/vmlinux" ] || fresh=yes
touch "$KOBJ/.pks-build-start"
progress &
progress_pid=$!
trap 'kill $progress_pid 2>/dev/null || true' EXIT
make_k bzImage
kill $progress_pid 2>/dev/null || true
# Out-of-tree modules (tests/module) are checked by modpost against
# Module.symvers, which only "make modules" writes: bzImage builds no
# modules, so the kernel's own exports (and their GPL-only marks) are all.
cp "$KOBJ/vmlinux.symvers" "$KOBJ/Module.symvers"
[ "$fresh" = no ] || find "$KOBJ" -name '*.o' | wc -l >"$KOBJ/.pks-objects"
took=$(($(date +%s) - start))
echo "kernel: $KOBJ/arch/x86/boot/bzImage built in ${took}s"
# make bench reports the last from-scratch build from here.
mkdir -p "$BUILD/logs"
echo "$(date -u +%FT%TZ) kobj=$(basename "$KOBJ") seconds=$took from_scratch=$fresh" >>"$BUILD/logs/kernel-build-times"
