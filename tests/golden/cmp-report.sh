#!/bin/bash
# cmp-report.sh DARC FILE: does 'darc dump FILE' agree with 'trace-cmd report
# -R -t FILE' event for event (timestamps, comm-pid, cpu, event name, raw field
# values, string fields escaped as darc prints them), and do 'darc info FILE' counts per event name equal the counts in
# trace-cmd's output? Whitespace runs are folded before comparing; nothing
# else is normalised. Exit 0 agree, 1 differ, 77 trace-cmd missing.
set -u
darc=${1:?usage: cmp-report.sh DARC FILE}
darc=$(realpath "$darc") || exit 1
file=${2:?usage: cmp-report.sh DARC FILE}
command -v trace-cmd >/dev/null || { echo "skip: trace-cmd not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# fold whitespace; trace-cmd prints an instance's "NAME: " in front of the
# "CPU:N [.. EVENTS DROPPED]" line instead of the event after it: move it back
norm() {
	sed -E 's/[[:space:]]+/ /g; s/^ //; s/ $//' |
	awk '{
		if (match($0, /^[^ ]+: CPU:[0-9]+ \[.*EVENTS DROPPED\]$/)) {
			p = index($0, " CPU:"); pre = substr($0, 1, p); print substr($0, p + 1); next
		}
		if (pre != "") { print pre $0; pre = ""; next }
		print
	}'
}

# darc dump keeps each event on one line, escaping a backslash, a tab and a
# newline inside a string (a trace_marker text): trace-cmd's line that a
# newline broke joins the event's line it belongs to, escaped alike
one_line() {
	awk 'function esc(s) { gsub(/\\/, "\\\\\\\\", s); gsub(/\t/, "\\t", s); return s }
		NR > 1 && $0 !~ /^ *([^ ]+: +)?[^ ].*-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: / &&
		$0 !~ /^ *([^ ]+: )?CPU:[0-9]+ \[/ { line = line "\\n" esc($0); next }
		NR > 1 { print line } { line = esc($0) } END { if (NR) print line }'
}

if ! trace-cmd report -R -t "$file" 2>"$tmp/tc.err" | one_line | norm >"$tmp/tc"; then
	echo "FAIL: trace-cmd report cannot read $file: $(head -c 300 "$tmp/tc.err")"
	exit 1
fi
if ! "$darc" dump "$file" 2>"$tmp/darc.err" | norm >"$tmp/darc"; then
	echo "FAIL: darc dump $file: $(cat "$tmp/darc.err")"
	exit 1
fi
n=$(grep -vc '^cpus=' "$tmp/tc")
if ! cmp -s "$tmp/tc" "$tmp/darc"; then
	echo "FAIL: darc dump and trace-cmd report -R differ on $file ($n lines):"
	diff "$tmp/tc" "$tmp/darc" | head -20
	exit 1
fi

# per-event-name counts: trace-cmd's lines vs darc info's table
awk '$1 !~ /^cpus=/ && $0 !~ /EVENTS DROPPED/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { n[$(i + 1)]++; break }
	} END { for (k in n) print substr(k, 1, length(k) - 1), n[k] }' "$tmp/tc" | sort >"$tmp/tc.count"
if ! "$darc" info "$file" >"$tmp/info" 2>"$tmp/info.err"; then
	echo "FAIL: darc info $file: $(cat "$tmp/info.err")"
	exit 1
fi
awk '/^events by name:/ { on = 1; next }
	on && NF == 2 { split($2, a, ":"); n[a[2]] += $1 }
	END { for (k in n) print k, n[k] }' "$tmp/info" | sort >"$tmp/darc.count"
if ! cmp -s "$tmp/tc.count" "$tmp/darc.count"; then
	echo "FAIL: darc info counts differ from trace-cmd's on $file:"
	diff "$tmp/tc.count" "$tmp/darc.count" | head -20
	exit 1
fi
echo "ok: $file: $n lines agree, $(wc -l <"$tmp/darc.count") event names counted alike"
