#!/bin/bash
# record.sh: (re)make the trace.dat matrix in the VM lab with the real
# tools, and each recording's `trace-cmd report -R -t` by the same tool.
#
#   tests/matrix/record.sh [--out DIR] [--kernel 61|61c|73]... [--tool 316|331|34]...
#
# Tools: 316 = this host's trace-cmd (Debian 12's 3.1.6, built without
# zlib), 331 = trixie's 3.3.1, 34 = sid's 3.4, the last two fetched with
# tests/vm/fetch-tool.sh; all run inside the guest (vm.sh --add of the
# tool's cache directory: the wrapper works there). Kernels: 61 = Debian's
# 6.1 (clocks, compressions, file versions, --date, --ts-offset), 61c =
# 6.1 with the other clocks (global, perf, mono_raw, tai, uptime), 73 =
# 7.3 (function_graph with funcgraph-args and funcgraph-retval). The guest
# script is tests/matrix/guest-matrix.sh, which says what each cell is.
#
# DIR (default samples/matrix) receives, for each cell L-C that the tool
# and kernel could make: L-C.dat, L-C.cmd (command, tool and kernel
# versions), L-C.L.report.xz (`report -R -t` by tool L, run on this host), and
# L-C.skip where the tool or kernel could not make the cell. The edited
# files (tests/matrix/add-options.py) are made by tests/matrix/edit.sh.
# Afterwards: tests/matrix/check.py DARC.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/samples/matrix
kernels=()
tools=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--kernel) kernels+=("$2"); shift 2 ;;
	--tool) tools+=("$2"); shift 2 ;;
	*) echo "usage: record.sh [--out DIR] [--kernel 61|61c|73]... [--tool 316|331|34]..." >&2
		exit 2 ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(61 61c 73)
[ ${#tools[@]} -gt 0 ] || tools=(316 331 34)

# tool_path LABEL: the command that runs that trace-cmd
tool_path() {
	case $1 in
	316) command -v trace-cmd ;;
	331) "$top/tests/vm/fetch-tool.sh" trace-cmd trixie ;;
	34) "$top/tests/vm/fetch-tool.sh" trace-cmd sid ;;
	*) echo "unknown tool $1" >&2; return 2 ;;
	esac
}

mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one boot per kernel and tool: under TCG a cell takes about a minute
for k in "${kernels[@]}"; do
	kv=6.1
	[ "$k" = 73 ] && kv=7.3
	for l in "${tools[@]}"; do
		p=$(tool_path "$l")
		[ -n "$p" ] || { echo "record.sh: tool $l cannot be had" >&2; exit 77; }
		add=$p
		[ "$l" = 316 ] || add=$(dirname "$p") # the wrapper's whole directory
		"$top/tests/vm/vm.sh" --kernel "$kv" --out "$tmp/$k-$l" --timeout 2400 \
			--add "$add" --script "$here/guest-matrix.sh" -- "$k" "$l=$p"
		for f in "$tmp/$k-$l"/*.dat "$tmp/$k-$l"/*.skip; do
			[ -e "$f" ] || continue
			cp "$f" "$out/"
			[ -e "${f%.*}.cmd" ] && cp "${f%.*}.cmd" "$out/"
		done
	done
done

# each tool's report of its own recordings, made here (the same build)
for l in "${tools[@]}"; do
	p=$(tool_path "$l")
	for f in "$out/$l"-*.dat; do
		[ -e "$f" ] || continue
		"$p" report -R -t "$f" 2>/dev/null | xz -9 >"${f%.dat}.$l.report.xz"
	done
done
