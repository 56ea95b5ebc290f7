# shellcheck shell=bash
# end_run FD RC: the end of a guest run, in bash builtins only.  Prints
# the end sentinel on FD: the script's status, this run's id, the
# kernel's taint flags and whether lockdep is still checking (it turns
# itself off after its first report), whatever the console log level.
# Then powers the guest off and never returns.  guest-init calls it after
# the job; a job that suspended the guest (S3) calls it itself, because
# the 9p root does not survive a resume (virtio-9p has no PM restore) and
# no process that has a file open on it can exit any more.
end_run() {
	local fd=$1 rc=$2 taint debug_locks=none key value
	read -r taint </proc/sys/kernel/tainted
	if [ -r /proc/lockdep_stats ]; then
		while read -r key value; do
			[ "$key" = debug_locks: ] && debug_locks=$value
		done </proc/lockdep_stats
	fi
	echo "PKS-VM-DONE rc=$rc run=${pks_run:-none} taint=$taint debug_locks=$debug_locks" >&"$fd"
	# The last close of the port waits until the UART has sent everything.
	eval "exec $fd>&-"
	echo o >/proc/sysrq-trigger
	while :; do
		read -r -t 1 _ </dev/console
	done
}
