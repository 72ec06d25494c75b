#!/bin/bash
# Every command that writes a file, against every way a write can go wrong
# (fmt/base/wfile.h): a table of writers, each run on the same cases.
#
#   write-file.sh DARC [DARC-RECORD]
#
# Cases: the output is the input itself, a hard link or a symlink to it; a
# FIFO, a device (root); a file of another kind (refused, replaced with
# --force); a file of the same kind (replaced); a symlink planted at the
# temporary name; SIGINT, SIGTERM, SIGHUP and SIGPIPE while the file is
# being written; a stale temporary file of a killed process; a full disk
# (root: a small tmpfs); a directory it may not write in. The rows of
# darc-record run where it can record (root, tracefs).
set -u
darc=$(realpath "${1:?usage: write-file.sh DARC [DARC-RECORD]}") || exit 1
record=${2:+$(realpath "$2")}
here=$(cd "$(dirname "$0")" && pwd)
rec_sample="$here/../../samples/vm-preads-v7.dat"
tmp=$(mktemp -d) || exit 1
mnt=
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0 pass=0
root=0
[ "$(id -u)" -eq 0 ] && root=1

check() { # check WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $what"
		fail=$((fail + 1))
	fi
}

# the inputs every writer reads
cp "$rec_sample" "$tmp/rec.dat"
"$darc" analyze -q -o "$tmp/rec.db" "$tmp/rec.dat" || exit 1
"$darc" analyze -q -o "$tmp/rec2.db" "$here/../../samples/vm-preads2-v7.dat" || exit 1

# The writers. Each row: NAME|KIND-SAMPLE|INPUT|COMMAND (OUT is the output;
# the command reads INPUT); KIND-SAMPLE is a file of the kind it writes.
printf '{}\n' >"$tmp/kind.json"
printf 'a;b 1\nc 2\n' >"$tmp/kind.folded"
printf '<svg xmlns="http://www.w3.org/2000/svg"></svg>\n' >"$tmp/kind.svg"
printf '<!DOCTYPE html>\n<html></html>\n' >"$tmp/kind.html"
printf '\n\000' >"$tmp/kind.pftrace" # a Trace whose packet is empty
writers=(
	"analyze|rec2.db|rec.dat|$darc analyze -q -o OUT $tmp/rec.dat"
	"export --folded|kind.folded|rec.db|$darc export $tmp/rec.db --folded -o OUT"
	"export --chrome|kind.json|rec.db|$darc export $tmp/rec.db --chrome -o OUT"
	"export --perfetto|kind.pftrace|rec.db|$darc export $tmp/rec.db --perfetto -o OUT"
	"report|kind.html|rec.db|$darc report $tmp/rec.db -o OUT"
	"hist --svg|kind.svg|rec.db|$darc hist $tmp/rec.db --func vfs_read --svg OUT"
	"hist --interval --svg|kind.svg|rec.db|$darc hist $tmp/rec.db --func vfs_read --interval 10ms --svg OUT"
	"diff --svg|kind.svg|rec.db|$darc diff $tmp/rec.db $tmp/rec2.db --svg OUT"
)
if [ -n "$record" ] && [ "$root" -eq 1 ] && "$record" --check >/dev/null 2>&1; then
	# a binary with a main, probed: the bundle must never replace it
	cp "$darc" "$tmp/probed"
	writers+=("darc-record|-|probed|$record -q -o OUT -e sched:sched_switch --no-default-events -U $tmp/probed:main -- $tmp/probed --version")
else
	echo "note: darc-record rows left out (needs root, tracefs and a darc-record)"
fi

sum() { cksum <"$1"; }

# run CMD-TEMPLATE OUT [ENV...]: the row's command with OUT, status in $rc, stderr in $tmp/err
run() {
	local cmd=${1//OUT/$2}
	shift 2
	# shellcheck disable=SC2086 # the command line is split on purpose
	env "$@" $cmd >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

one_line_naming() { # one stderr line naming $1, matching $2, never "not an error"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "'$1'" "$tmp/err" && grep -qE -- "$2" "$tmp/err" &&
		! grep -q "not an error" "$tmp/err"
}

no_temp() { # no temporary file of $1 left
	[ -z "$(ls -a "$(dirname "$1")" | grep -F "$(basename "$1").tmp")" ]
}

# The output is a file the command reads: the same name, a hard link, a symlink.
refuse_input() {
	local name=$1 in=$2 cmd=$3 before
	before=$(sum "$tmp/$in")
	run "$cmd" "$tmp/$in"
	check "$name: -o the input itself is refused" one_line_naming "$tmp/$in" "reads: not overwritten"
	check "$name: ... and the input is unchanged" [ "$(sum "$tmp/$in")" = "$before" ]
	ln -f "$tmp/$in" "$tmp/hard"
	run "$cmd" "$tmp/hard"
	check "$name: a hard link to the input is refused" one_line_naming "$tmp/hard" "reads"
	ln -sf "$tmp/$in" "$tmp/soft"
	run "$cmd" "$tmp/soft"
	check "$name: a symlink to the input is refused" one_line_naming "$tmp/soft" "reads"
	check "$name: ... and the input is unchanged" [ "$(sum "$tmp/$in")" = "$before" ]
	rm -f "$tmp/hard" "$tmp/soft"
}

# Not a regular file: a FIFO, a character device (root), a directory.
refuse_special() {
	local name=$1 cmd=$2
	mkfifo "$tmp/fifo"
	run "$cmd" "$tmp/fifo"
	check "$name: a FIFO is refused" one_line_naming "$tmp/fifo" "not a regular file"
	check "$name: ... and stays a FIFO" [ -p "$tmp/fifo" ]
	rm -f "$tmp/fifo"
	if [ "$root" -eq 1 ]; then
		mknod "$tmp/null" c 1 3
		run "$cmd" "$tmp/null"
		check "$name: a device node is refused" one_line_naming "$tmp/null" "not a regular file"
		check "$name: ... and stays a device" [ -c "$tmp/null" ]
		rm -f "$tmp/null"
	fi
	mkdir "$tmp/dir"
	run "$cmd" "$tmp/dir"
	check "$name: a directory is refused" one_line_naming "$tmp/dir" "directory"
	rmdir "$tmp/dir"
}

# A file of another kind is kept (replaced with --force); one of the same kind is replaced.
kinds() {
	local name=$1 kind=$2 cmd=$3 forced
	printf 'notes I keep\n' >"$tmp/other"
	run "$cmd" "$tmp/other"
	check "$name: a file of another kind is refused" one_line_naming "$tmp/other" "--force"
	check "$name: ... and kept" grep -q "notes I keep" "$tmp/other"
	case $cmd in
	*darc-record*) forced=${cmd/ -q / -q --force } ;;
	*) forced="$cmd --force" ;;
	esac
	run "$forced" "$tmp/other"
	check "$name: --force replaces it" eval '[ "$rc" -eq 0 ] && ! grep -q "notes I keep" "$tmp/other"'
	rm -f "$tmp/other"
	[ "$kind" = - ] && return
	cp "$tmp/$kind" "$tmp/same"
	run "$cmd" "$tmp/same"
	check "$name: a file of its own kind is replaced" eval '[ "$rc" -eq 0 ] && ! cmp -s "$tmp/$kind" "$tmp/same"'
	rm -f "$tmp/same"
}

# A symlink planted at the temporary name "OUT.tmp-PID" is not followed.
planted_link() {
	local name=$1 cmd=$2
	printf 'victim\n' >"$tmp/victim"
	# bash's own pid becomes the command's (exec), so the name is known in advance
	bash -c 'ln -s "$1" "$2.tmp-$$" && shift 2 && exec "$@"' - "$tmp/victim" "$tmp/out1" \
		${cmd//OUT/$tmp/out1} >/dev/null 2>"$tmp/err"
	rc=$?
	check "$name: a planted link at the temporary name: written anyway" eval '[ "$rc" -eq 0 ] && [ -s "$tmp/out1" ]'
	check "$name: ... and its target is untouched" [ "$(cat "$tmp/victim")" = victim ]
	rm -f "$tmp/out1" "$tmp/out1".tmp-* "$tmp/victim"
}

# A signal while the file is written: the process dies of it, and leaves nothing.
signals() {
	local name=$1 cmd=$2 sig pid
	set -m # else a background job starts with SIGINT ignored
	for sig in INT TERM HUP PIPE; do
		# darc-record ends a recording on INT, TERM and HUP and ignores PIPE
		case $cmd in *darc-record*) continue ;; esac
		# shellcheck disable=SC2086
		env --default-signal=INT,TERM,HUP,PIPE DARC_TEST_WFILE_STOP=1 ${cmd//OUT/$tmp/sig.out} >/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 100); do # until it stops with its temporary file made
			[ "$(ps -o state= -p $pid 2>/dev/null | tr -d ' ')" = T ] && break
			sleep 0.1
		done
		kill -s $sig $pid
		kill -s CONT $pid
		rc=147 # with job control, wait also returns when the job stops (128 + SIGSTOP)
		while [ $rc -eq 147 ]; do
			wait $pid 2>/dev/null
			rc=$?
		done
		check "$name: SIG$sig while writing: it dies of the signal" [ "$rc" -eq $((128 + $(kill -l $sig))) ]
		check "$name: SIG$sig: no output, no temporary file" eval '[ ! -e "$tmp/sig.out" ] && no_temp "$tmp/sig.out"'
		rm -f "$tmp/sig.out"*
	done
	set +m
}

# A temporary file left by a killed process is removed by the next run, which says so.
stale() {
	local name=$1 cmd=$2 dead
	dead=$(bash -c 'echo $$')
	printf 'half\n' >"$tmp/st.out.tmp-$dead"
	run "$cmd" "$tmp/st.out"
	check "$name: a stale temporary file is removed" eval '[ "$rc" -eq 0 ] && [ ! -e "$tmp/st.out.tmp-$dead" ]'
	check "$name: ... and said" grep -q "removed '$tmp/st.out.tmp-$dead', left by process $dead" "$tmp/err"
	rm -f "$tmp/st.out"
}

# A full disk: the error names the output and says why; nothing is left.
full_disk() {
	local name=$1 cmd=$2
	[ -n "$mnt" ] || return 0
	rm -rf "${mnt:?}"/*
	head -c $((300 * 1024)) /dev/zero >"$mnt/filler" 2>/dev/null
	head -c 100000000 /dev/zero >"$mnt/fill2" 2>/dev/null
	run "$cmd" "$mnt/full.out"
	# darc-record names the page file beside the output that filled the disk
	case $cmd in
	*darc-record*) check "$name: a full disk: $(head -1 "$tmp/err")" \
		eval '[ "$rc" -ne 0 ] && grep -qE "^darc-record: .$mnt/.*: No space left on device$" "$tmp/err"' ;;
	*) check "$name: a full disk: $(head -1 "$tmp/err")" \
		eval '[ "$rc" -ne 0 ] && one_line_naming "$mnt/full.out" "No space left on device"' ;;
	esac
	check "$name: ... and nothing is left" eval '[ ! -e "$mnt/full.out" ] && no_temp "$mnt/full.out"'
}

# A directory it may not write in: the error names the output and says why.
no_dir() {
	local name=$1 cmd=$2
	if [ "$root" -eq 1 ]; then
		[ -n "$mnt" ] || return 0
		mount -o remount,ro "$mnt" || return 0
		run "$cmd" "$mnt/ro.out"
		mount -o remount,rw "$mnt"
		check "$name: a read-only directory: $(head -1 "$tmp/err")" \
			eval '[ "$rc" -ne 0 ] && one_line_naming "$mnt/ro.out" "Read-only file system"'
	else
		mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro"
		run "$cmd" "$tmp/ro/x.out"
		check "$name: a directory it may not write in" \
			eval '[ "$rc" -ne 0 ] && one_line_naming "$tmp/ro/x.out" "Permission denied"'
	fi
}

if [ "$root" -eq 1 ]; then
	mnt="$tmp/mnt"
	mkdir "$mnt"
	mount -t tmpfs -o size=512k tmpfs "$mnt" || mnt=
fi

for row in "${writers[@]}"; do
	IFS='|' read -r name kind in cmd <<<"$row"
	refuse_input "$name" "$in" "$cmd"
	refuse_special "$name" "$cmd"
	kinds "$name" "$kind" "$cmd"
	planted_link "$name" "$cmd"
	signals "$name" "$cmd"
	stale "$name" "$cmd"
	full_disk "$name" "$cmd"
	no_dir "$name" "$cmd"
done

# The database a report command makes beside a recording it is given: the
# same mechanism, with the output named by the rule (dir/x.dat -> dir/x.db).
implicit="$darc peaks $tmp/imp/x.dat --func vfs_read"
mkdir "$tmp/imp"
cp "$tmp/rec.dat" "$tmp/imp/x.dat"
mkfifo "$tmp/imp/x.db"
run "$implicit" -
check "implicit database: a FIFO in its place is refused" one_line_naming "$tmp/imp/x.db" "not a regular file"
rm "$tmp/imp/x.db"
printf 'notes I keep\n' >"$tmp/imp/x.db"
run "$implicit" -
check "implicit database: a file of another kind is kept" grep -q "notes I keep" "$tmp/imp/x.db"
check "implicit database: ... and the error says how to go on" \
	one_line_naming "$tmp/imp/x.db" "not a darc database: not replaced .*darc analyze -o DB"
rm "$tmp/imp/x.db"
printf 'victim\n' >"$tmp/victim"
# shellcheck disable=SC2086
bash -c 'ln -s "$1" "$2.tmp-$$" && shift 2 && exec "$@"' - "$tmp/victim" "$tmp/imp/x.db" \
	$implicit >/dev/null 2>&1
check "implicit database: a planted link at the temporary name is not followed" \
	eval '[ "$(cat "$tmp/victim")" = victim ] && [ -s "$tmp/imp/x.db" ]'
rm -f "$tmp/imp/x.db" "$tmp/imp/x.db".tmp-*
dead=$(bash -c 'echo $$')
printf 'half\n' >"$tmp/imp/x.db.tmp-$dead"
run "$implicit" -
check "implicit database: a stale temporary file is removed, and said" \
	eval '[ ! -e "$tmp/imp/x.db.tmp-$dead" ] && grep -q "removed .*x.db.tmp-$dead" "$tmp/err"'
rm -f "$tmp/imp/x.db"
set -m
env --default-signal=TERM DARC_TEST_WFILE_STOP=1 $implicit >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ "$(ps -o state= -p $pid 2>/dev/null | tr -d ' ')" = T ] && break
	sleep 0.1
done
kill -s TERM $pid
kill -s CONT $pid
rc=147
while [ $rc -eq 147 ]; do
	wait $pid 2>/dev/null
	rc=$?
done
set +m
check "implicit database: SIGTERM while writing leaves nothing" \
	eval '[ $rc -eq 143 ] && [ ! -e "$tmp/imp/x.db" ] && no_temp "$tmp/imp/x.db"'

echo "write-file: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
