#!/bin/bash
# A database darc cannot write (a bug-report attachment, read-only media,
# another user's file): every report command that stores results prints the
# same output as on a writable copy, says once that nothing was stored, and
# leaves the file as it was. And the one rule for where the database of a
# recording goes: beside it (dir/x.dat -> dir/x.db), for analyze and the
# report commands alike.
#
#   read-only.sh DARC
set -u
darc=$(realpath "${1:?usage: read-only.sh DARC}") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
fail=0 pass=0
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

"$darc" analyze -q -o "$tmp/rw.db" "$here/../../samples/vm-preads-v7.dat" || exit 1
mkdir "$tmp/ro"
cp "$tmp/rw.db" "$tmp/ro/x.db"
chmod 755 "$tmp/ro"
chmod 444 "$tmp/ro/x.db"
if [ "$(id -u)" -eq 0 ]; then
	# root writes through any mode: be another user (the file stays root's)
	as_other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	if ! as_other true 2>/dev/null; then
		echo "skip: cannot run as another user (setpriv)"
		exit 77
	fi
else
	as_other() { "$@"; }
fi
before=$(cksum <"$tmp/ro/x.db")

for cmd in "explain --top 2" "peaks --func vfs_read" "paths --func vfs_read" \
	"paths --func vfs_read --peaks 18-22" "io --func __x64_sys_pread64" "hist --func vfs_read"; do
	cp "$tmp/ro/x.db" "$tmp/rw.db" # the same stored rows before (search ids)
	chmod 644 "$tmp/rw.db"
	# shellcheck disable=SC2086 # split on purpose
	"$darc" ${cmd%% *} "$tmp/rw.db" ${cmd#* } >"$tmp/rw.out" 2>"$tmp/rw.err"
	rw=$?
	# shellcheck disable=SC2086
	as_other "$darc" ${cmd%% *} "$tmp/ro/x.db" ${cmd#* } >"$tmp/ro.out" 2>"$tmp/ro.err"
	ro=$?
	check "$cmd: exits $rw on a writable database, $ro on a read-only one" [ "$rw" -eq 0 ] && [ "$ro" -eq 0 ]
	sed "s|$tmp/rw.db|DB|g" "$tmp/rw.out" >"$tmp/rw.cmp"
	sed "s|$tmp/ro/x.db|DB|g" "$tmp/ro.out" >"$tmp/ro.cmp"
	check "$cmd: the same output on a read-only database" cmp -s "$tmp/rw.cmp" "$tmp/ro.cmp"
	case $cmd in
	hist*) want=0 ;; # stores nothing: nothing to say
	*) want=1 ;;
	esac
	check "$cmd: says $want time(s) that nothing is stored: $(cat "$tmp/ro.err")" \
		[ "$(grep -c "read-only: results are kept for this run only, not stored" "$tmp/ro.err")" -eq $want ]
	check "$cmd: no other message on stderr" [ "$(grep -vc "read-only" "$tmp/ro.err")" -eq 0 ]
	check "$cmd: never 'not an error'" eval '! grep -q "not an error" "$tmp/ro.err" "$tmp/rw.err"'
done
check "the read-only database is unchanged" [ "$(cksum <"$tmp/ro/x.db")" = "$before" ]

# One place for a recording's database: beside it, for every command.
mkdir "$tmp/dir" "$tmp/cwd"
cp "$here/../../samples/vm-preads-v7.dat" "$tmp/dir/x.dat"
(cd "$tmp/cwd" && "$darc" analyze -q ../dir/x.dat)
check "darc analyze dir/x.dat writes dir/x.db" [ -f "$tmp/dir/x.db" ]
check "... and nothing in the working directory" [ -z "$(ls -A "$tmp/cwd")" ]
(cd "$tmp/cwd" && "$darc" peaks ../dir/x.dat --func vfs_read >/dev/null 2>"$tmp/err")
check "darc peaks dir/x.dat reads that database: $(cat "$tmp/err")" \
	grep -q "reading '../dir/x.db' (the analysis of '../dir/x.dat')" "$tmp/err"
rm "$tmp/dir/x.db"
(cd "$tmp/cwd" && "$darc" hist ../dir/x.dat --func vfs_read >/dev/null 2>"$tmp/err")
check "darc hist dir/x.dat analyzes into dir/x.db" [ -f "$tmp/dir/x.db" ]
check "... and nothing in the working directory" [ -z "$(ls -A "$tmp/cwd")" ]
"$darc" analyze --help | grep -q "dir/x.dat -> dir/x.db"
check "darc analyze --help states the rule" [ $? -eq 0 ]

echo "read-only: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
