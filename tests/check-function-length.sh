#!/bin/bash
# Fails when a C function in the repository is longer than 100 lines (the
# house limit; aim for 80): a long function hides its steps, so it is split
# along them. Length counts from the first line of the definition (the
# return type when it stands on its own line) to the closing brace. The
# counter relies on the house style: a definition's '{' and '}' stand alone
# in column 0. With -v it lists every function over 80 lines.
set -u
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
root=${1:?usage: check-function-length.sh [-v] SOURCE_ROOT}
max=100 aim=80

# Functions allowed over the limit for a while ("FILE FUNCTION", one a
# line): reported, not failed. None now.
allowed=""

lengths() {
	local f
	for d in fmt analyze record schema tests; do
		[ -d "$root/$d" ] && find "$root/$d" -name '*.[ch]'
	done | sort | while IFS= read -r f; do
		awk -v f="${f#"$root"/}" '
		# a line in column 0 that is a name, not a statement: a header line
		/^[A-Za-z_]/ && !/;[ \t]*$/ {
			hdr = (type_line && $0 ~ /\(/) ? NR - 1 : NR
			h = $0
			type_line = ($0 !~ /[(;{}=]/)
			next
		}
		/^\{/ && hdr && !body {
			body = 1; start = hdr; name = h
			# START_TEST(name) of the check framework: the name is the argument
			if (name ~ /^START_TEST\(/) {
				sub(/^START_TEST\(/, "", name); sub(/\).*/, "", name)
			} else {
				sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name)
			}
			next
		}
		/^}/ && body { body = 0; hdr = 0; print NR - start + 1, f, start, name; next }
		!body && !/^[ \t]/ { type_line = 0 }
		' "$f"
	done
}

fail=0 n=0 over=0
while read -r len file line name; do
	n=$((n + 1))
	if [ "$len" -gt "$max" ]; then
		over=$((over + 1))
		if printf '%s\n' "$allowed" | grep -qxF "$file $name"; then
			echo "allowed (being split elsewhere): $file:$line $name: $len lines"
		else
			echo "FAIL: $file:$line $name: $len lines (at most $max)"
			fail=$((fail + 1))
		fi
	elif [ "$verbose" -eq 1 ] && [ "$len" -gt "$aim" ]; then
		echo "over the aim of $aim: $file:$line $name: $len lines"
	fi
	if [ "$len" -le "$max" ] && printf '%s\n' "$allowed" | grep -qxF "$file $name"; then
		echo "note: $file $name is $len lines now: take it off the allowed list"
	fi
done < <(lengths)
[ "$n" -gt 0 ] || { echo "FAIL: no C function found under $root"; exit 1; }
echo "$n functions, $over over $max lines, $fail failed"
[ "$fail" -eq 0 ]
