# text-lib.sh: sourced by the ftrace text suites (text.sh, text-forms.sh,
# text-layouts.sh) once they have set $darc: where the samples are, a scratch
# directory removed at exit, the ok/not_ok counters, and the comparison of a
# text's events with those of the trace.dat it was printed from.
darc=$(realpath "$darc") || exit 1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
st=$top/samples/text
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0 skip=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
not_ok() { echo "FAIL: $*"; fail=$((fail + 1)); }

# same_events DAT TEXT PREC [SKIP...]: darc dump of TEXT holds DAT's events,
# times within PREC ns, the fields but SKIP alike (dump-vs-dat.py)
same_events() {
	local dat=$1 text=$2 prec=$3 n out
	shift 3
	n=$(basename "$text")
	"$darc" dump "$dat" >"$tmp/dat.dump" || { not_ok "darc dump $(basename "$dat")"; return; }
	if ! "$darc" dump "$text" >"$tmp/text.dump" 2>"$tmp/err"; then
		not_ok "darc dump $n: $(cat "$tmp/err")"
		return
	fi
	out=$(python3 "$here/dump-vs-dat.py" "$tmp/dat.dump" "$tmp/text.dump" "$prec" "$@") &&
		ok "$n: $out, as in $(basename "$dat")" || not_ok "$n against $(basename "$dat"): $out"
}

# names FILE OUT: darc info's events by name of FILE, sorted, into OUT. Where
# darc fails (its exit status, a signal: 128 + N) or prints no such list,
# not_ok says so with what it wrote on stderr, and names returns 1: an empty
# list is never compared as if darc had said it.
names() {
	local rc
	"$darc" info "$1" >"$tmp/info.out" 2>"$tmp/info.err"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -qx 'events by name:' "$tmp/info.out"; then
		not_ok "darc info $(basename "$1"): exit $rc, $(wc -c <"$tmp/info.out") bytes on stdout, stderr: $(head -c 300 "$tmp/info.err")"
		return 1
	fi
	awk '/^events by name:/ { on = 1; next } on { print }' "$tmp/info.out" | sort >"$2"
}
