# shellcheck shell=bash
# Helpers shared by the scripts in tests/bench (sourced, not run).
#
# Recording here means: the top-level tracefs buffer, events enabled by hand,
# `trace-cmd extract` (trace-cmd record cannot run on these hosts, see
# tests/vm/README.md). Every tracefs setting touched is saved first and
# restored by tf_restore, which the callers run from an EXIT trap.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
repo_dir=$(cd "$bench_dir/../.." && pwd)
prog=$(basename "$0")

die() {
	echo "$prog: $*" >&2
	exit 1
}

note() {
	echo "$prog: $*" >&2
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "missing command '$c'"
	done
}

# build_c OUT SRC [EXTRA_FLAGS...]: compile SRC into OUT unless OUT is newer.
build_c() {
	local out=$1 src=$2
	shift 2
	if [[ -x "$out" && "$out" -nt "$src" ]]; then
		return 0
	fi
	need_cmd cc
	cc -O2 -Wall -Wextra -o "$out" "$src" "$@" || die "cannot compile '$src'"
}

# build_tcmd_iter DIR: compile tcmd-iter.c into DIR/tcmd-iter.
build_tcmd_iter() {
	local flags
	need_cmd pkg-config
	flags=$(pkg-config --cflags --libs libtracecmd) || die "libtracecmd not found by pkg-config (install libtracecmd-dev)"
	# shellcheck disable=SC2086 # word splitting of the flags is intended
	build_c "$1/tcmd-iter" "$bench_dir/tcmd-iter.c" $flags
}

# build_storm DIR: compile storm.c into DIR/storm.
build_storm() {
	build_c "$1/storm" "$bench_dir/storm.c" -pthread
}

# is_v7_zstd FILE: true if FILE is a trace.dat v7 compressed with zstd.
is_v7_zstd() {
	local sum
	sum=$(trace-cmd dump --summary "$1" 2>/dev/null) || return 1
	grep -qE '^[[:space:]]*7[[:space:]]+\[Version\]' <<<"$sum" &&
		grep -qE '^[[:space:]]*zstd[[:space:]]+\[Compression algorithm\]' <<<"$sum"
}

# file_version FILE: print the trace.dat version number.
file_version() {
	trace-cmd dump --summary "$1" 2>/dev/null |
		awk '/\[Version\]/ && v == "" { v = $1 } END { print v }'
}

# to_v6 V7 V6 LOG: convert the trace.dat V7 to version 6 with trace-cmd
# (its output in LOG), and check that it is one.
to_v6() {
	trace-cmd convert --file-version 6 -i "$1" -o "$2" >"$3" 2>&1 ||
		die "trace-cmd convert failed: $(tail -n 1 "$3")"
	[[ $(file_version "$2") == 6 ]] || die "trace-cmd convert did not write a v6 file"
}

# ---- tracefs ---------------------------------------------------------------

T=
tf_mounted_by_us=0
tf_saved=0
tf_saved_on=
tf_saved_kb=()          # per-CPU buffer_size_kb, index = cpu
tf_enabled=()           # enable files we wrote 1 to
tf_filtered=()          # filter files we wrote to
tf_lock_fd=

# tf_setup: check root and tracefs, mount it if needed, take the lock and
# check that nobody else is using the top-level buffer. Fails with one line.
tf_setup() {
	[[ $(id -u) -eq 0 ]] || die "must run as root (it writes to tracefs)"
	need_cmd trace-cmd flock
	if [[ -d /sys/kernel/tracing/events ]]; then
		T=/sys/kernel/tracing
	elif [[ -d /sys/kernel/tracing ]] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
		[[ -d /sys/kernel/tracing/events ]]; then
		T=/sys/kernel/tracing
		tf_mounted_by_us=1
	elif [[ -d /sys/kernel/debug/tracing/events ]]; then
		T=/sys/kernel/debug/tracing
	else
		die "tracefs is missing (not mounted on /sys/kernel/tracing and cannot be mounted)"
	fi
	exec {tf_lock_fd}>/tmp/darc-bench-tracefs.lock
	flock -n "$tf_lock_fd" || die "another darc bench recording holds /tmp/darc-bench-tracefs.lock"
	local tracer pids events
	tracer=$(cat "$T/current_tracer")
	events=$(cat "$T/set_event")
	pids=$(cat "$T/set_event_pid")
	[[ $tracer == nop ]] || die "tracefs is in use: current_tracer is '$tracer', not nop"
	[[ -z $events ]] || die "tracefs is in use: events already enabled ($(head -n 1 <<<"$events") ...)"
	[[ -z $pids ]] || die "tracefs is in use: set_event_pid is set"
}

# tf_save: remember what tf_* will change (tracing_on, per-CPU buffer sizes).
tf_save() {
	local d cpu
	tf_saved_on=$(cat "$T/tracing_on")
	for d in "$T"/per_cpu/cpu*; do
		cpu=${d##*/cpu}
		tf_saved_kb[cpu]=$(awk '{ print $1; exit }' "$d/buffer_size_kb")
	done
	tf_saved=1
}

# tf_disable: disable the events tf_enable enabled.
tf_disable() {
	local f
	for f in "${tf_enabled[@]}"; do
		echo 0 >"$f" 2>/dev/null || note "warning: cannot write 0 to '$f'"
	done
	tf_enabled=()
}

# tf_restore: undo every tracefs setting changed; safe to call more than once.
tf_restore() {
	local f cpu
	[[ -n $T ]] || return 0
	echo 0 >"$T/tracing_on" 2>/dev/null
	tf_disable
	for f in "${tf_filtered[@]}"; do
		echo 0 >"$f" 2>/dev/null || note "warning: cannot clear '$f'"
	done
	tf_filtered=()
	if [[ $tf_saved -eq 1 ]]; then
		: >"$T/trace" 2>/dev/null
		for cpu in "${!tf_saved_kb[@]}"; do
			echo "${tf_saved_kb[cpu]}" >"$T/per_cpu/cpu$cpu/buffer_size_kb" 2>/dev/null ||
				note "warning: cannot restore per_cpu/cpu$cpu/buffer_size_kb"
		done
		echo "$tf_saved_on" >"$T/tracing_on" 2>/dev/null || note "warning: cannot restore tracing_on"
		tf_saved=0
	fi
	T=
}

# tf_unmount: unmount tracefs if tf_setup mounted it. Call it last: trace-cmd
# and libtracecmd mount tracefs again when they find it missing.
tf_unmount() {
	if [[ $tf_mounted_by_us -eq 1 ]]; then
		umount /sys/kernel/tracing 2>/dev/null || note "warning: cannot unmount tracefs from /sys/kernel/tracing"
		tf_mounted_by_us=0
	fi
}

# tf_prepare KB: tracing off, every per-CPU buffer KB kilobytes, buffers empty.
tf_prepare() {
	echo 0 >"$T/tracing_on" || die "cannot write tracing_on"
	echo "$1" >"$T/buffer_size_kb" || die "cannot set buffer_size_kb to $1"
	: >"$T/trace" || die "cannot clear the trace buffers"
}

# tf_enable EVENT...: EVENT is "system" or "system/event".
tf_enable() {
	local e f
	for e in "$@"; do
		f="$T/events/$e/enable"
		[[ -f $f ]] || die "event '$e' is not available in $T/events"
		tf_enabled+=("$f")
		echo 1 >"$f" || die "cannot enable event '$e'"
	done
}

# tf_filter EXPR EVENT...: set the filter of each EVENT (system or system/event).
tf_filter() {
	local expr=$1 e f
	shift
	for e in "$@"; do
		f="$T/events/$e/filter"
		tf_filtered+=("$f")
		echo "$expr" >"$f" || die "cannot set filter '$expr' on '$e'"
	done
}

# tf_stats: print "cpu overrun commit_overrun dropped entries" for each CPU.
tf_stats() {
	local d
	for d in "$T"/per_cpu/cpu*; do
		awk -v cpu="${d##*/cpu}" '
			/^overrun:/ { o = $2 } /^commit overrun:/ { c = $3 }
			/^dropped events:/ { x = $3 } /^entries:/ { e = $2 }
			END { print cpu, o + 0, c + 0, x + 0, e + 0 }' "$d/stats"
	done
}
# tf_no_loss STATS_FILE: writes tf_stats there; dies if any CPU lost events.
tf_no_loss() {
	local lost
	tf_stats >"$1"
	lost=$(awk '{ n += $2 + $3 + $4 } END { print n + 0 }' "$1")
	[[ $lost -eq 0 ]] || die "events were lost (per-CPU overrun/dropped: $(tr '\n' ';' <"$1"))"
}
# tc_extract KALLSYMS OUT LOG [OPTION...]: trace-cmd extract of the top
# buffer to OUT, with /proc/kallsyms replaced by KALLSYMS for trace-cmd only
# (a bind mount in a private mount namespace).
tc_extract() {
	local ks=$1 out=$2 log=$3
	shift 3
	# shellcheck disable=SC2016 # $1.. are expanded by the inner bash
	unshare -m --propagation private bash -c \
		'mount --bind "$1" /proc/kallsyms && shift 2 && exec trace-cmd extract "$@" -o "$0"' \
		"$out" "$ks" _ "$@" >"$log" 2>&1 ||
		die "trace-cmd extract failed: $(tail -n 1 "$log")"
}
