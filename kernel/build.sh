#!/usr/bin/env bash
# Build bzImage (with BTF) from build/linux into build/kobj, using ccache.
# Config: x86_64_defconfig + kvm_guest.config + kernel/config/*.config, or
# the fragments named in PKS_CONFIGS (the debug kernel adds its own).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$ROOT/kernel/tree.sh"

KOBJ=${PKS_KOBJ:-$KOBJ}
mapfile -t fragments < <(ls "$ROOT"/kernel/config/*.config)
if [ -n "${PKS_EXTRA_CONFIGS:-}" ]; then
	read -r -a extra <<<"$PKS_EXTRA_CONFIGS"
	fragments+=("${extra[@]}")
fi
inputs=("$KSRC/arch/x86/configs/x86_64_defconfig" "$KSRC/kernel/configs/kvm_guest.config" "${fragments[@]}")
mkdir -p "$KOBJ"
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
	bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) opt=${line%=n}; grep -q "^$opt=" "$KOBJ/.config" && { echo "config: $opt is set, wanted off" >&2; bad=1; } ;;
		CONFIG_*=*) grep -qx "$line" "$KOBJ/.config" || { echo "config: wanted $line, got: $(grep "^${line%%=*}=" "$KOBJ/.config" || echo unset)" >&2; bad=1; } ;;
		esac
	done < <(cat "${fragments[@]}")
	[ "$bad" = 0 ] || die "kernel config fragments not honoured (see above)"
	echo "$stamp" >"$KOBJ/.pks-config-stamp"
fi

start=$(date +%s)
fresh=no
[ -f "$KOBJ/vmlinux" ] || fresh=yes
make_k bzImage
took=$(($(date +%s) - start))
echo "kernel: $KOBJ/arch/x86/boot/bzImage built in ${took}s"
# make bench reports the last from-scratch build from here.
mkdir -p "$BUILD/logs"
echo "$(date -u +%FT%TZ) kobj=$(basename "$KOBJ") seconds=$took from_scratch=$fresh" >>"$BUILD/logs/kernel-build-times"
