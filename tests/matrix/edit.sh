#!/bin/bash
# edit.sh: (re)make the matrix's edited files, samples/matrix/edit-*.dat:
# copies of its real recordings with the options no recording of the lab
# can have (a guest's TIME_SHIFT, a host's GUEST; tests/matrix/add-options.py
# says why and what), and each one's `report -R -t` by every trace-cmd
# that runs here (316 = this host's 3.1.6, 331 = trixie's 3.3.1, 34 =
# sid's 3.4, from tests/vm/fetch-tool.sh's cache).
#
#   tests/matrix/edit.sh [DIR]     (default samples/matrix, after record.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
dir=${1:-$top/samples/matrix}

# name base kind: edit-NAME.dat from the recording BASE.dat
edits=(
	"shift-interp 316-local-v7-none shift-interp"
	"shift-step 316-local-v7-none shift-step"
	"shift-one 316-local-v7-none shift-one"
	"shift-v2 316-local-v7-none shift-v2"
	"shift-tsc 34-tsc2nsec-v7-zstd shift-interp"
	"guest 331-mono-v7-zstd guest"
)
for e in "${edits[@]}"; do
	read -r name base kind <<<"$e"
	[ -e "$dir/$base.dat" ] || { echo "edit.sh: no $dir/$base.dat (run record.sh)" >&2; exit 1; }
	"$here/add-options.py" "$dir/$base.dat" "$dir/edit-$name.dat" "$kind"
done

declare -A tools=([316]="$(command -v trace-cmd)"
	[331]="$("$top/tests/vm/fetch-tool.sh" trace-cmd trixie)"
	[34]="$("$top/tests/vm/fetch-tool.sh" trace-cmd sid)")
for f in "$dir"/edit-*.dat; do
	for l in "${!tools[@]}"; do
		r=${f%.dat}.$l.report.xz
		"${tools[$l]}" report -R -t "$f" 2>/dev/null | xz -9 >"$r" || rm -f "$r"
	done
done
