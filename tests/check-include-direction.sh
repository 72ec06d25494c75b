#!/bin/bash
# Fails when a source file includes a header of a folder above its own: the
# folders stand in the order the data takes, and each may include only its
# own headers and those of the folders below it. A header is found by its
# name (the includes are flat), so a name must stand in one folder only.
#
#   fmt/base/         what every part uses: errors, the safe file writer,
#                     escaping, array growth, byte reading (at the bottom:
#                     it includes nothing of darc's but its own)
#   fmt/              recordings -> raw events
#   schema/           the database: its tables, writing and reading rows
#   analyze/          the stages: decode, call trees, histograms, pipeline
#   analyze/report/   the reports, over the database
#   analyze/cmd/      the commands (at the top)
#   record/           darc-record: a top of its own, beside the commands (its
#                     --along reads a database as the reports do); nothing
#                     includes its headers
set -u
root=${1:?usage: check-include-direction.sh SOURCE_ROOT}
cd "$root" || exit 1

# "FOLDER RANK": a file may include headers of a rank up to its own
layers="fmt/base 0
fmt 1
schema 2
analyze 3
analyze/report 4
analyze/cmd 5
record 5"

# the folder of a path (the deepest layer that holds it), or nothing
folder_of() {
	local best="" d
	while read -r d _; do
		case $1 in "$d"/*) [ ${#d} -gt ${#best} ] && best=$d ;; esac
	done <<<"$layers"
	echo "$best"
}
rank_of() { awk -v d="$1" '$1 == d { print $2 }' <<<"$layers"; }
# record/ and analyze/cmd/ stand side by side: neither includes the other
allowed() { # FROM TO
	[ "$1" = "$2" ] && return 0
	[ "$2" = record ] || [ "$2" = analyze/cmd ] && return 1
	[ "$(rank_of "$2")" -le "$(rank_of "$1")" ]
}

fail=0 n=0
declare -A where
while read -r f; do
	h=${f##*/}
	if [ -n "${where[$h]:-}" ]; then
		echo "FAIL: header $h stands in two folders: ${where[$h]} and $f"
		fail=$((fail + 1))
	fi
	where[$h]=$f
done < <(find fmt schema analyze record -name '*.h' | sort)

while read -r f; do
	from=$(folder_of "$f")
	[ -n "$from" ] || continue
	while read -r h; do
		n=$((n + 1))
		target=${where[$h]:-}
		[ -n "$target" ] || continue # a system or generated header (config.h)
		to=$(folder_of "$target")
		if ! allowed "$from" "$to"; then
			echo "FAIL: $f includes $target: $from/ may not include $to/ (above it)"
			fail=$((fail + 1))
		fi
	done < <(sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | sed 's|.*/||')
done < <(find fmt schema analyze record -name '*.[ch]' | sort)
echo "$n includes read, $fail upward"
[ "$fail" -eq 0 ]
