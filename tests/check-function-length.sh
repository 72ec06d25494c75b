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

# lengths: "LENGTH FILE LINE NAME" for every function, one awk over all files
lengths() {
	local d
	for d in fmt analyze record schema tests; do
		[ -d "$root/$d" ] && find "$root/$d" -name '*.[ch]'
	done | sort | xargs awk -v root="$root/" '
		FNR == 1 { f = FILENAME; sub("^" root, "", f); hdr = body = type_line = 0 }
		# a line in column 0 that is a name, not a statement: a header line
		/^[A-Za-z_]/ && !/;[ \t]*$/ {
			hdr = (type_line && $0 ~ /\(/) ? FNR - 1 : FNR
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
		/^}/ && body { body = 0; hdr = 0; print FNR - start + 1, f, start, name; next }
		!body && !/^[ \t]/ { type_line = 0 }
		'
}

# the verdicts, in one awk: the allowed list is its first input
lengths | awk -v max="$max" -v aim="$aim" -v verbose="$verbose" -v allowed="$allowed" '
	BEGIN { na = split(allowed, al, "\n"); for (i = 1; i <= na; i++) if (al[i] != "") ok[al[i]] = 1 }
	{
		len = $1; file = $2; line = $3; name = $4; n++
		if (len > max) {
			over++
			if ((file " " name) in ok)
				print "allowed (being split elsewhere): " file ":" line " " name ": " len " lines"
			else {
				print "FAIL: " file ":" line " " name ": " len " lines (at most " max ")"
				fail++
			}
		} else if (verbose && len > aim)
			print "over the aim of " aim ": " file ":" line " " name ": " len " lines"
		if (len <= max && (file " " name) in ok)
			print "note: " file " " name " is " len " lines now: take it off the allowed list"
	}
	END {
		if (!n) { print "FAIL: no C function found"; exit 1 }
		printf "%d functions, %d over %d lines, %d failed\n", n, over, max, fail
		exit fail > 0
	}'
