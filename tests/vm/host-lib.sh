#!/bin/bash
# host-lib.sh: what the VM lab's host-side tests share, sourced after the
# sourcing script has set PROG (its name in messages) and HERE (tests/vm):
# messages and exits, the work directory, one VM run, and the checks.

say() { echo "$PROG: $*"; }
skip() { say "skip: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }

# WORK: directory $1 (a former run's vm/ removed), or a temporary one removed on exit
work_dir() {
	if [ -n "${1:-}" ]; then
		mkdir -p "$1" || fail "cannot create $1"
		WORK=$(cd "$1" && pwd)
		rm -rf "$WORK/vm"
	else
		WORK=$(mktemp -d "${TMPDIR:-/tmp}/darc-$PROG.XXXXXX") || fail mktemp
		trap 'rm -rf "$WORK"' EXIT
	fi
}

# vm.sh ARGS... with its output in $WORK/vm (V): a skip where the lab cannot
# run here, a failure where the run failed
run_vm() {
	local start=$SECONDS rc=0
	"$HERE/vm.sh" --out "$WORK/vm" "$@" || rc=$?
	case $rc in
	0) ;;
	77) skip "the VM lab cannot run here" ;;
	*) fail "the VM run failed (status $rc; console: $WORK/vm/vm-console.log)" ;;
	esac
	say "VM run took $((SECONDS - start))s"
	V=$WORK/vm
}

# check NAME CMD...: whether CMD succeeds, its output shown where it fails (counted in failed)
failed=0
check() {
	local name=$1
	shift
	if "$@" >"$WORK/out.txt" 2>&1; then
		say "ok: $name"
	else
		say "FAIL: $name"
		head -20 "$WORK/out.txt"
		failed=$((failed + 1))
	fi
}
