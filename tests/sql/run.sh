#!/bin/bash
# The schema's SQL tested as SQL: query in, rows out.
#
#	run.sh SCHEMA_DIR [--update]
#
# Builds a database from SCHEMA_DIR's tables.sql and views.sql, the fixture
# rows of fixture.sql (a hand-made analysis) and indexes.sql, then checks:
#   - every example of SCHEMA_DIR/README.md: a ```sql block followed by a
#     ```text block with the rows it must print (sqlite3 with headers, '|'
#     between columns, NULL as NULL), run read-only;
#   - every cases/NAME.sql against cases/NAME.out, each on a fresh copy (a
#     case may change rows to show that a check catches them);
#   - that README.md shows every view in an example, and documents every
#     table and each of its columns (a row "| `column` |" under "### `table`").
# --update rewrites cases/*.out from what the queries print (review the diff).
# Exit status 0 when all pass, 1 otherwise, 77 (skip) without the sqlite3 CLI.
set -u
schema=${1:?usage: run.sh SCHEMA_DIR [--update]}
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
readme=$schema/README.md

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "SKIP: no sqlite3 command (Debian package sqlite3)"
	exit 77
fi
tmp=$(mktemp -d /tmp/darc-sql.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

pass=0 fail=0
ok() {
	pass=$((pass + 1))
	echo "ok: $1"
}
not_ok() {
	fail=$((fail + 1))
	echo "FAIL: $1"
}

# Run SQL file $2 on database $1, as the examples show the rows.
query() {
	sqlite3 -batch -bail -header -separator '|' -nullvalue NULL "$@" 2>&1
}

db=$tmp/fixture.db
if ! cat "$schema/tables.sql" "$schema/views.sql" "$here/fixture.sql" "$schema/indexes.sql" |
	sqlite3 -batch -bail "$db"; then
	echo "FAIL: the schema or the fixture does not load"
	exit 1
fi

# Split README.md into ex-N.sql / ex-N.want / ex-N.name, one per example.
awk -v dir="$tmp" '
	function fail(msg) { print "README.md:" NR ": " msg > "/dev/stderr"; bad = 1 }
	/^#/ { heading = $0; sub(/^#+ */, "", heading) }
	state == "sql" && /^```/ { state = "after"; next }
	state == "sql" { print > (dir "/ex-" n ".sql"); next }
	state == "want" && /^```/ { state = ""; next }
	state == "want" { print > (dir "/ex-" n ".want"); next }
	state == "after" && /^[ \t]*$/ { next }
	state == "after" && /^```text/ {
		state = "want"
		printf "" > (dir "/ex-" n ".want")
		next
	}
	state == "after" { fail("a ```sql block without its ```text rows"); state = "" }
	/^```sql/ {
		n++
		state = "sql"
		print heading > (dir "/ex-" n ".name")
	}
	END {
		if (state != "") fail("unterminated block at the end")
		exit bad
	}
' "$readme" || not_ok "README.md: examples are not all a \`\`\`sql block then a \`\`\`text block"

for sql in $(find "$tmp" -name 'ex-*.sql' | sort -V); do
	base=${sql%.sql}
	name="README.md example $(basename "$base" | sed 's/ex-//'): $(cat "$base.name")"
	query -readonly "$db" <"$sql" >"$base.got"
	if [ ! -e "$base.want" ]; then
		not_ok "$name: no rows shown"
	elif diff -u "$base.want" "$base.got" >"$base.diff"; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/    /' "$base.diff"
	fi
done

for sql in "$here"/cases/*.sql; do
	[ -e "$sql" ] || break
	name=cases/$(basename "$sql")
	want=${sql%.sql}.out
	cp "$db" "$tmp/case.db"
	query "$tmp/case.db" <"$sql" >"$tmp/case.got"
	if [ "$update" = --update ]; then
		cp "$tmp/case.got" "$want"
	fi
	if diff -u "$want" "$tmp/case.got" >"$tmp/case.diff" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/    /' "$tmp/case.diff"
	fi
done

# Every view has an example; every table and column is documented.
cat "$tmp"/ex-*.sql >"$tmp/all-examples.sql" 2>/dev/null
for view in $(sqlite3 "$db" "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name"); do
	if grep -qw "$view" "$tmp/all-examples.sql"; then
		ok "view $view has an example"
	else
		not_ok "view $view has no example in README.md"
	fi
done
for table in $(sqlite3 "$db" "SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' ORDER BY name"); do
	section=$(awk -v h="### \`$table\`" '$0 == h { on = 1; next } /^##/ { on = 0 } on' "$readme")
	missing=
	for col in $(sqlite3 "$db" "SELECT name FROM pragma_table_info('$table')"); do
		grep -qF "| \`$col\` |" <<<"$section" || missing="$missing $col"
	done
	if [ -z "$section" ]; then
		not_ok "table $table: no section '### \`$table\`' in README.md"
	elif [ -n "$missing" ]; then
		not_ok "table $table: columns not documented:$missing"
	else
		ok "table $table documented"
	fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
