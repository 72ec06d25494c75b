#!/bin/bash
# explain-record.sh OUTDIR [N]: the recordings of tests/vm/explain-guest.sh in
# the VM lab (6.1, or DARC_VM_KERNEL): a pipe consumer behind an O_DIRECT
# producer, and four threads on one mutex, each with trace-cmd -F -c and on
# every CPU, and the pipe with ./build/record/darc-record where it is built. Run by hand when darc explain's wake-up rules change; nothing in
# the test suites needs it. Exit status: vm.sh's (77: no lab here).
set -eu
out=${1:?usage: explain-record.sh OUTDIR [N]}
n=${2:-100}
here=$(cd "$(dirname "$0")" && pwd)
tc=$(command -v trace-cmd) || { echo "explain-record: no trace-cmd" >&2; exit 77; }
wl=$(mktemp -d /tmp/explain-record.XXXXXX)
trap 'rm -rf "$wl"' EXIT
gcc -static -O2 -pthread -o "$wl/explain-workload" "$here/explain-workload.c"
rec=$(cd "$here/../.." && pwd)/build/record/darc-record # darc-record too, where it is built
[ -x "$rec" ] && add_rec="--add $rec" || add_rec=
"$here/vm.sh" --out "$out" --add "$tc" --add "$wl/explain-workload=/usr/local/bin/explain-workload" $add_rec \
	--script "$here/explain-guest.sh" --timeout 600 -- "$n"
