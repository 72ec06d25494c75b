#!/bin/bash
# vm.sh: boot Debian's stock kernel under qemu (TCG) with a busybox
# initramfs, run a guest script there, and copy its results out.
#
# See tests/vm/README.md for the interface.  In short:
#
#   tests/vm/vm.sh --out DIR [--add PATH[=GUESTPATH]]... --script GUEST.sh \
#                  [--timeout SECS] [--] [ARG...]
#
# Exit status: 0 when the guest script succeeded; 77 when this machine
# cannot run the lab (no qemu, no kernel, ...); the guest script's own
# status when it failed (77 from the guest also means "skip"); 1 for any
# other failure (boot, timeout, no results).

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROG=vm.sh

usage() {
	cat <<'EOF'
usage: vm.sh --out DIR --script GUEST.sh [options] [--] [ARG...]
       vm.sh --fetch-only

  --out DIR            results directory (created; the guest's $OUT is
                       extracted here, plus vm-console.log)
  --script FILE        shell script run in the guest (busybox sh) with ARGs
  --add PATH[=GPATH]   copy a host file or directory into the guest at GPATH
                       (default: the same path; executables are also linked
                       into /usr/local/bin); dynamically linked ELF files
                       get the libraries ldd lists
  --timeout SECS       kill the VM after SECS seconds (default 300; three
                       times that on 5.10, whose function_graph takes
                       minutes to switch on under TCG)
  --mem SIZE           guest memory (default 1G)
  --smp N              guest CPUs (default 2)
  --scratch-mib N      size of the scratch ext4 disk (default 256)
  --out-mib N          size of the raw output disk (default 128)
  --kernel K           the kernel: 6.1 (the default), 6.12, 7.3, 5.10 (Debian's
                       newest of that series), 6.1-rt, 5.10-rt (its
                       PREEMPT_RT flavour) or a Debian kernel package
                       name (tests/vm/fetch-kernel.sh)
  --append ARGS        extra kernel command line arguments
  --qemu-arg ARG       extra qemu argument (repeatable), e.g. -s for gdb
  --keep-work          keep the temporary work directory (for debugging)
  --verbose            also copy the guest console to stderr
  --fetch-only         only make sure the kernel is cached, print its dir
  -h, --help           this text

Environment: DARC_VM_KERNEL (the default of --kernel), DARC_VM_SLOW (every
timeout times this, for a busy host; default 1), DARC_VM_CACHE
(kernel cache dir, default $XDG_CACHE_HOME/darc-vm or ~/.cache/darc-vm),
DARC_VM_OFFLINE=1 (never download, use the cache), QEMU (qemu binary),
DARC_VM_ACCEL (default tcg,thread=single), DARC_VM_SCRATCH_CACHE (qemu
cache options of the scratch disk, default cache=none; cache=unsafe where
O_DIRECT does not work).
EOF
}

msg() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { msg "error: $*"; exit 1; }
skip() { msg "cannot run the VM lab: $*"; exit 77; }

# --- options -----------------------------------------------------------

OUT=
GUEST_SCRIPT=
TIMEOUT=300
MEM=1G
SMP=2
SCRATCH_MIB=256
OUT_MIB=128
SCRATCH_CACHE=${DARC_VM_SCRATCH_CACHE:-cache=none}
# Single-threaded TCG: with multi-threaded TCG (qemu 7.2), a vCPU can keep
# executing a stale translation of an int3 that ftrace's live code patching
# (text_poke_bp) has already removed, so both vCPUs loop in exc_int3 forever;
# seen in about 1 of 13 function_graph recordings.  thread=single avoids it
# and is no slower on a 2-core host.
ACCEL=${DARC_VM_ACCEL:-tcg,thread=single}
APPEND=
KERNEL=${DARC_VM_KERNEL:-6.1}
KEEP_WORK=0
VERBOSE=0
FETCH_ONLY=0
ADDS=()
GUEST_ARGS=()
QEMU_EXTRA=()

need_arg() { [ $# -ge 2 ] || { usage >&2; die "option $1 needs an argument"; }; }

while [ $# -gt 0 ]; do
	case $1 in
	--out) need_arg "$@"; OUT=$2; shift 2 ;;
	--script) need_arg "$@"; GUEST_SCRIPT=$2; shift 2 ;;
	--add) need_arg "$@"; ADDS+=("$2"); shift 2 ;;
	--timeout) need_arg "$@"; TIMEOUT=$2; shift 2 ;;
	--mem) need_arg "$@"; MEM=$2; shift 2 ;;
	--smp) need_arg "$@"; SMP=$2; shift 2 ;;
	--scratch-mib) need_arg "$@"; SCRATCH_MIB=$2; shift 2 ;;
	--out-mib) need_arg "$@"; OUT_MIB=$2; shift 2 ;;
	--append) need_arg "$@"; APPEND=$2; shift 2 ;;
	--kernel) need_arg "$@"; KERNEL=$2; shift 2 ;;
	--qemu-arg) need_arg "$@"; QEMU_EXTRA+=("$2"); shift 2 ;;
	--keep-work) KEEP_WORK=1; shift ;;
	--verbose) VERBOSE=1; shift ;;
	--fetch-only) FETCH_ONLY=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; GUEST_ARGS+=("$@"); break ;;
	-*) usage >&2; die "unknown option $1" ;;
	*) GUEST_ARGS+=("$@"); break ;;
	esac
done

for n in "$TIMEOUT" "$SMP" "$SCRATCH_MIB" "$OUT_MIB" "${DARC_VM_SLOW:-1}"; do
	case $n in ''|*[!0-9]*) die "not a number: '$n'" ;; esac
done

if [ "$FETCH_ONLY" = 0 ]; then
	[ -n "$OUT" ] || { usage >&2; die "--out DIR is required"; }
	[ -n "$GUEST_SCRIPT" ] || { usage >&2; die "--script FILE is required"; }
	[ -f "$GUEST_SCRIPT" ] || die "guest script not found: $GUEST_SCRIPT"
fi

# --- host tools ----------------------------------------------------------

QEMU=${QEMU:-qemu-system-x86_64}
BUSYBOX=

check_tools() {
	command -v "$QEMU" >/dev/null 2>&1 ||
		skip "$QEMU not found (Debian: apt-get install qemu-system-x86)"
	local t
	for t in cpio mkfs.ext4 tar gcc ldd; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not found"
	done
	for t in /bin/busybox /usr/bin/busybox; do
		if [ -x "$t" ] && ! ldd "$t" >/dev/null 2>&1; then
			BUSYBOX=$t
			break
		fi
	done
	[ -n "$BUSYBOX" ] ||
		skip "no static busybox found (Debian: apt-get install busybox-static)"
}

# --- kernel ------------------------------------------------------------------

# fetch-kernel.sh caches the kernel with its modules (decompressed) and their
# load order (modules.load), worked out from the modules' own dependencies.
KDIR=
get_kernel() {
	local rc=0
	KDIR=$("$SCRIPT_DIR/fetch-kernel.sh" "$KERNEL") || rc=$?
	case $rc in
	0) ;;
	77) skip "no kernel $KERNEL (see above)" ;;
	*) die "fetch-kernel.sh $KERNEL failed (status $rc)" ;;
	esac
	[ -f "$KDIR/modules.load" ] || die "$KDIR has no modules.load"
	mapfile -t MODULES <"$KDIR/modules.load"
}

# --- initramfs -------------------------------------------------------------

WORK=
QPID=

cleanup() {
	if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
		kill "$QPID" 2>/dev/null || true
		sleep 1
		kill -9 "$QPID" 2>/dev/null || true
		wait "$QPID" 2>/dev/null || true
	fi
	if [ -n "$WORK" ]; then
		if [ "$KEEP_WORK" = 1 ]; then
			msg "work directory kept: $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
}

# Copy host file $1 to $ROOT$2, dereferencing symlinks.
copy_in() {
	mkdir -p "$ROOT$(dirname "$2")"
	cp -L "$1" "$ROOT$2"
}

is_dynamic_elf() {
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] || return 1
	ldd "$1" >/dev/null 2>&1
}

copy_libs() {
	local f=$1 lib
	# ldd lines: "libx.so => /path (0x..)", "/lib64/ld-linux... (0x..)",
	# "linux-vdso.so.1 (0x..)" (no file), "libx.so => not found".
	if ldd "$f" | grep -q 'not found'; then
		ldd "$f" >&2
		die "$f: some libraries were not found"
	fi
	while read -r lib; do
		[ -e "$ROOT$lib" ] || copy_in "$lib" "$lib"
	done < <(ldd "$f" | awk '{
		for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }')
}

add_path() {
	local spec=$1 src dst
	case $spec in
	*=*) src=${spec%%=*}; dst=${spec#*=} ;;
	*) src=$spec; dst= ;;
	esac
	[ -e "$src" ] || die "--add: no such file: $src"
	src=$(realpath "$src")
	[ -n "$dst" ] || dst=$src
	case $dst in /*) ;; *) die "--add: guest path must be absolute: $dst" ;; esac
	if [ -d "$src" ]; then
		mkdir -p "$ROOT$dst"
		cp -a "$src/." "$ROOT$dst/"
		return
	fi
	copy_in "$src" "$dst"
	if [ -x "$src" ]; then
		local link
		link=/usr/local/bin/$(basename "$dst")
		if [ "$dst" != "$link" ] && [ ! -e "$ROOT$link" ]; then
			mkdir -p "$ROOT/usr/local/bin"
			ln -s "$dst" "$ROOT$link"
		fi
	fi
	if is_dynamic_elf "$src"; then
		copy_libs "$src"
	fi
}

# Quote for a POSIX shell: 'it'\''s'
sh_quote() {
	local s=$1
	printf "'%s'" "${s//\'/\'\\\'\'}"
}

write_init() {
	cat >"$ROOT/init" <<'EOF'
#!/bin/busybox sh
# Guest init for the darc VM lab (written by tests/vm/vm.sh).
/bin/busybox --install -s
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
say() { echo "vm-init: $*"; }
finish() {
	echo "$1" >/out/.vm-status
	sync
	need=$(du -sk /out | cut -f1)
	have=$(($(blockdev --getsize64 /dev/vdb) / 1024))
	if [ "$need" -gt $((have - 1024)) ]; then
		say "error: \$OUT holds ${need} KiB, more than the output disk (${have} KiB; use --out-mib)"
		rm -rf /out/* /out/.[!.]*
		echo 1 >/out/.vm-status
	fi
	if tar cf /dev/vdb -C /out .; then
		sync
		say "results written ($1)"
	else
		say "cannot write results to /dev/vdb"
	fi
	poweroff -f
	sleep 10
}
fail() { say "error: $*"; finish 1; }

mkdir -p /proc /sys /dev /tmp /mnt/scratch /out
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs nodev /sys/kernel/tracing || say "warning: cannot mount tracefs"
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

for m in $(cat /etc/vm-modules); do
	f=$(ls /lib/modules/vm/$m.ko 2>/dev/null)
	[ -n "$f" ] || fail "module $m missing from the initramfs"
	insmod "$f" || fail "insmod $m failed"
done
i=0
while [ ! -b /dev/vda ] || [ ! -b /dev/vdb ]; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "virtio disks /dev/vda and /dev/vdb did not appear"
	sleep 0.1
done
mount -t ext4 /dev/vda /mnt/scratch || fail "cannot mount the scratch disk"

say "ready: $(uname -r), $(nproc) cpus, cmdline: $(cat /proc/cmdline)"
# If the script hangs, show where before the host kills the VM.
wdpid=
. /vm/config
if [ "$WATCHDOG" -gt 0 ]; then
	(
		sleep "$WATCHDOG"
		say "watchdog: the guest script still runs after ${WATCHDOG}s; blocked tasks and CPU backtraces:"
		echo 1 >/proc/sys/kernel/sysrq
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
		ps
	) &
	wdpid=$!
fi
export OUT=/out SCRATCH=/mnt/scratch
cd /out
(
	. /vm/args.sh
	exec sh /vm/script.sh "$@"
)
rc=$?
[ -z "$wdpid" ] || kill "$wdpid" 2>/dev/null
umount /mnt/scratch 2>/dev/null
say "guest script exited with status $rc"
finish "$rc"
EOF
	chmod 755 "$ROOT/init"
}

build_initramfs() {
	ROOT=$WORK/root
	mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,vm,lib/modules/vm}
	cp "$BUSYBOX" "$ROOT/bin/busybox"
	local m
	for m in "${MODULES[@]}"; do
		cp "$KDIR/modules/$m.ko" "$ROOT/lib/modules/vm/" || die "module $m not in $KDIR"
	done
	printf '%s\n' "${MODULES[@]}" >"$ROOT/etc/vm-modules"
	printf 'root:x:0:0:root:/:/bin/sh\n' >"$ROOT/etc/passwd"
	printf 'root:x:0:\n' >"$ROOT/etc/group"

	# The workload programs, built statically.
	if ! gcc -static -O2 -Wall -o "$ROOT/usr/local/bin/vm-workload" \
		"$SCRIPT_DIR/workload.c" 2>"$WORK/gcc.log"; then
		cat "$WORK/gcc.log" >&2
		die "cannot build $SCRIPT_DIR/workload.c statically (libc6-dev installed?)"
	fi

	local a
	for a in "${ADDS[@]}"; do
		add_path "$a"
	done

	cp "$GUEST_SCRIPT" "$ROOT/vm/script.sh"
	{
		printf 'set --'
		for a in "${GUEST_ARGS[@]}"; do
			printf ' %s' "$(sh_quote "$a")"
		done
		printf '\n'
	} >"$ROOT/vm/args.sh"
	# The guest watchdog fires 20 s before the host kills the VM.
	printf 'WATCHDOG=%d\n' $((TIMEOUT > 40 ? TIMEOUT - 20 : 0)) >"$ROOT/vm/config"
	write_init
	(cd "$ROOT" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) \
		>"$WORK/initramfs.cpio" || die "cpio failed"
}

# --- main ------------------------------------------------------------------

check_tools
get_kernel
if [ "$FETCH_ONLY" = 1 ]; then
	echo "$KDIR"
	exit 0
fi

# 5.10 takes minutes, not seconds, to switch function_graph on under TCG
# (in ftrace_run_update_code's text pokes, with RCU stall warnings on the
# way): its guests get three times as long
case $(cat "$KDIR/release") in
5.10.*) TIMEOUT=$((TIMEOUT * 3)) ;;
esac
# and a busy host (the emulated guest gets a share of a CPU) sets a factor of its own
TIMEOUT=$((TIMEOUT * ${DARC_VM_SLOW:-1}))

mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/darc-vm.XXXXXX")
trap cleanup EXIT
trap 'msg "interrupted"; exit 130' INT
trap 'msg "terminated"; exit 143' TERM

START=$SECONDS
build_initramfs

truncate -s "${SCRATCH_MIB}M" "$WORK/scratch.img"
mkfs.ext4 -q -F -L scratch "$WORK/scratch.img" >"$WORK/mkfs.log" 2>&1 ||
	{ cat "$WORK/mkfs.log" >&2; die "mkfs.ext4 failed"; }
truncate -s "${OUT_MIB}M" "$WORK/out.img"
# cache=none (O_DIRECT on the host) gives the guest's reads real disk latency;
# tmpfs, for one, cannot do it.
case ,$SCRATCH_CACHE, in
*,cache=none,*|*,cache.direct=on,*)
	if ! dd if="$WORK/scratch.img" of=/dev/null bs=4096 count=1 iflag=direct \
		status=none 2>/dev/null; then
		msg "O_DIRECT does not work in $WORK; scratch disk with cache=unsafe"
		SCRATCH_CACHE=cache=unsafe
	fi
	;;
esac

CONSOLE=$OUT/vm-console.log
KVER=$(cat "$KDIR/release")
msg "booting $KVER ($(cat "$KDIR/package")) under $QEMU -accel $ACCEL, timeout ${TIMEOUT}s"
qemu_args=(
	-accel "$ACCEL" -m "$MEM" -smp "$SMP" -nographic -no-reboot
	-kernel "$KDIR/vmlinuz" -initrd "$WORK/initramfs.cpio"
	-append "console=ttyS0 preempt=full tsc=reliable panic=-1 rdinit=/init $APPEND"
	-drive "file=$WORK/scratch.img,format=raw,if=virtio,$SCRATCH_CACHE"
	-drive "file=$WORK/out.img,format=raw,if=virtio"
	"${QEMU_EXTRA[@]}"
)
printf '%s\n' "$QEMU" "${qemu_args[@]}" >"$OUT/vm-qemu.txt"  # one per line
"$QEMU" "${qemu_args[@]}" </dev/null >"$CONSOLE" 2>&1 &
QPID=$!
if [ "$VERBOSE" = 1 ]; then
	tail -n +1 -f --pid="$QPID" "$CONSOLE" >&2 &
fi
BOOT=$SECONDS
timed_out=0
while kill -0 "$QPID" 2>/dev/null; do
	if [ $((SECONDS - BOOT)) -ge "$TIMEOUT" ]; then
		timed_out=1
		break
	fi
	sleep 0.2
done
if [ "$timed_out" = 1 ]; then
	kill "$QPID" 2>/dev/null || true
	sleep 1
	kill -9 "$QPID" 2>/dev/null || true
	wait "$QPID" 2>/dev/null || true
	QPID=
	msg "last lines of the guest console ($CONSOLE):"
	tail -n 20 "$CONSOLE" | sed 's/^/    /' >&2
	die "timeout: the VM ran for more than ${TIMEOUT}s (killed)"
fi
qrc=0
wait "$QPID" || qrc=$?
QPID=
RUN_S=$((SECONDS - BOOT))

show_console_tail() {
	msg "last lines of the guest console ($CONSOLE):"
	tail -n 30 "$CONSOLE" | tr -d '\r' | sed 's/^/    /' >&2
}

if [ "$qrc" != 0 ]; then
	show_console_tail
	die "qemu exited with status $qrc"
fi
if ! tar xf "$WORK/out.img" -C "$OUT" --no-same-owner 2>"$WORK/untar.log" ||
	[ ! -f "$OUT/.vm-status" ]; then
	cat "$WORK/untar.log" >&2
	show_console_tail
	die "the guest wrote no results (see $CONSOLE)"
fi
status=$(cat "$OUT/.vm-status")
rm -f "$OUT/.vm-status"
case $status in ''|*[!0-9]*) die "bad guest status '$status'" ;; esac
if [ "$status" != 0 ]; then
	show_console_tail
	msg "error: the guest script failed with status $status (results in $OUT)"
	exit "$status"
fi
msg "done in $((SECONDS - START))s (VM ${RUN_S}s); results in $OUT"
