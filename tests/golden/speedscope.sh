#!/bin/bash
# darc export's files open in speedscope (npm package 'speedscope', served
# from localhost: speedscope fetches #profileURL=, which file:// forbids),
# rendered by headless Chromium:
#   - folded stacks, in speedscope's Time Order and Left Heavy views;
#   - Trace Event JSON of one command's threads: speedscope names the thread
#     and gives its total weight, which must be the task's root calls' incl_ns;
#   - speedscope's own JSON (--speedscope): it opens on the traced program's
#     task, and its Sandwich view lists each function once (frames named by
#     function, not by call), with the total and self time SQL gives;
# each screenshot must not be blank: below the toolbar and minimap, at least
# 5% of the pixels drawn, in at least 20 colours (tests/golden/png.py).
# speedscope is installed into NPM_DIR (npm install --prefix) when missing.
# Usage: speedscope.sh DARC NPM_DIR [SHOTS_DIR]. SHOTS_DIR keeps the screenshots.
# Exit 0 pass, 1 fail, 77 without npm (and no speedscope yet), chromium or python3.
set -u
darc=$(realpath "${1:?usage: speedscope.sh DARC NPM_DIR [SHOTS_DIR]}") || exit 1
npm_dir=${2:?usage: speedscope.sh DARC NPM_DIR [SHOTS_DIR]}
shots=${3:-}
version=1.25.0
here=$(cd "$(dirname "$0")" && pwd)
samples=$(cd "$here/../../samples" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
for c in python3 sqlite3; do
	command -v $c >/dev/null || { echo "skip: no $c"; exit 77; }
done
[ -n "$browser" ] || { echo "skip: no chromium"; exit 77; }
release=$npm_dir/node_modules/speedscope/dist/release
if [ ! -f "$release/index.html" ]; then
	command -v npm >/dev/null || { echo "skip: no npm to install speedscope with"; exit 77; }
	mkdir -p "$npm_dir"
	if ! npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
		"speedscope@$version" >"$npm_dir/install.log" 2>&1; then
		echo "FAIL: npm install speedscope@$version: $(tail -n 3 "$npm_dir/install.log")"
		exit 1
	fi
fi
tmp=$(mktemp -d /tmp/darc-speedscope.XXXXXX) || exit 1
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
not_ok() { fail=$((fail + 1)); echo "FAIL: $1"; }

mkdir "$tmp/www"
cp -r "$release"/. "$tmp/www/"
db=$tmp/fs.db
"$darc" analyze -q -o "$db" "$samples/vm-fsyncread-v7.dat" || exit 1
"$darc" export "$db" --folded -o "$tmp/www/fs.folded" || not_ok "export --folded"
"$darc" export "$db" --chrome --comm vm-workload -o "$tmp/www/fs.json" || not_ok "export --chrome"
"$darc" export "$db" --speedscope -o "$tmp/www/fs.speedscope.json" || not_ok "export --speedscope"

# a web server on a free port of localhost, for as long as this runs
python3 - "$tmp/www" >"$tmp/port" 2>/dev/null <<'PY' &
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
server=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
[ -n "$port" ] || { echo "FAIL: the web server did not start"; exit 1; }
url="http://127.0.0.1:$port/index.html#profileURL=/"

chrome() { # ARGS...: headless Chromium on the page, 10 s of virtual time to load and draw
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1200,800 --virtual-time-budget=10000 "$@" 2>/dev/null
}
shot() { # NAME HASH WHAT
	local name=$1 hash=$2 what=$3 out
	chrome --screenshot="$tmp/$name.png" "$url$hash" >/dev/null
	[ -n "$shots" ] && mkdir -p "$shots" && cp "$tmp/$name.png" "$shots/" 2>/dev/null
	if [ ! -s "$tmp/$name.png" ]; then
		not_ok "$what: no screenshot"
	elif out=$(python3 "$here/png.py" "$tmp/$name.png" --top 140 --min-drawn 0.05 \
		--min-colours 20); then
		ok "$what: $out"
	else
		not_ok "$what: $out"
	fi
}
shot folded-time fs.folded "--folded in speedscope's Time Order view"
shot folded-left "fs.folded&view=left-heavy" "--folded in speedscope's Left Heavy view"
shot chrome-time fs.json "--chrome in speedscope's Time Order view"

# what speedscope made of the JSON: the workload's thread, its total weight
# the sum of its root calls' incl_ns (speedscope prints ms with 2 decimals)
dom=$(chrome --dump-dom "${url}fs.json" | sed 's/></>\n</g')
want=$(sqlite3 "$db" "SELECT printf('%.2fms', sum(c.incl_ns) / 1e6) FROM call c JOIN task t
	ON t.tid = c.task_id WHERE t.comm = 'vm-workload' AND c.depth = 0 AND c.flags & 59 = 0")
tid=$(sqlite3 "$db" "SELECT tid FROM task WHERE comm = 'vm-workload' LIMIT 1")
if grep -qF "vm-workload (pid $tid), vm-workload (tid $tid)" <<<"$dom" &&
	grep -A3 -F ">vm-workload (pid $tid), vm-workload (tid $tid)<" <<<"$dom" | grep -qF ">$want<"; then
	ok "speedscope reads the workload's thread from --chrome, its weight $want as in SQL"
else
	not_ok "speedscope's view of --chrome lacks thread $tid weighing $want:"
	grep -F "(tid " <<<"$dom" | head -5 | sed 's/^/    /'
fi
shot speedscope-left "fs.speedscope.json&view=left-heavy" "--speedscope in speedscope's Left Heavy view"
# --speedscope in the Sandwich view: the profile it opens on, and its rows
chrome --dump-dom "${url}fs.speedscope.json&view=sandwich" >"$tmp/sandwich.html"
if out=$(python3 - "$tmp/sandwich.html" "$db" <<'PY'
import re, sqlite3, sys
dom, db = open(sys.argv[1]).read(), sqlite3.connect(sys.argv[2])
unit = {'ns': 1, 'µs': 1e3, 'ms': 1e6, 's': 1e9}
def ns(text):
    v, u = re.fullmatch(r'([0-9.]+)(ns|µs|ms|s)', text.strip()).groups()
    return float(v) * unit[u]
tid = db.execute("SELECT tid FROM task WHERE comm = 'vm-workload'").fetchone()[0]
shown = re.search(r'<span>([^<]*) <span class="[^"]*">\(\d+/\d+\)</span>', dom)
if not shown or shown.group(1) != f'vm-workload [{tid}]':
    sys.exit(f'opens on {shown and shown.group(1)!r}, not the workload vm-workload [{tid}]')
rows = re.findall(r'<tr class="[^"]*"><td class="[^"]*">([^<(]+) \([^)]*\)<div.*?'
                  r'<td class="[^"]*">([^<(]+) \([^)]*\)<div.*?</span>([^<]+)</td></tr>', dom, re.S)
names = [r[2] for r in rows]
funcs = {r[0] for r in db.execute('SELECT name FROM func')}
if len(rows) < 10 or len(set(names)) != len(names) or not set(names) <= funcs:
    sys.exit(f'{len(rows)} rows, {len(set(names))} names, not functions: {set(names) - funcs}')
ok = "c.task_id = ? AND c.incl_ns IS NOT NULL AND c.flags & 59 = 0"
for total, self_, name in rows[:8]:
    want = db.execute(f"SELECT sum(c.incl_ns) FROM call c JOIN func f ON f.id = c.func_id"
                      f" WHERE f.name = ? AND {ok}", (name, tid)).fetchone()[0] or 0
    kids = db.execute(f"SELECT sum(c.incl_ns) FROM call c JOIN call p ON p.id = c.parent_id"
                      f" JOIN func f ON f.id = p.func_id WHERE f.name = ? AND {ok}"
                      f" AND p.incl_ns IS NOT NULL AND p.flags & 59 = 0", (name, tid)).fetchone()[0]
    for what, got, exp in (('total', ns(total), want), ('self', ns(self_), want - (kids or 0))):
        if abs(got - exp) > max(0.006 * exp, 10e3 if got >= 1e6 else 10):
            sys.exit(f'{name}: {what} {got:.0f} ns in speedscope, {exp} ns in SQL')
print(f'vm-workload [{tid}], {len(rows)} functions, the first 8 as in SQL ({names[0]} first)')
PY
); then
	ok "--speedscope in speedscope's Sandwich view: $out"
else
	not_ok "--speedscope in speedscope's Sandwich view: $out"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
