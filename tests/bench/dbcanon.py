#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print a darc database's content in a form that does not depend on how
the schema stores it, for compare-bins.sh: the calls through view `call`,
every call's return value, arguments and return address wherever the
schema keeps them (table call_value up to schema 13, call_base.retval from
14 on), and every other table's rows in order. sqlite_stat1 (the query
planner's estimates) is left out; so are the histograms' resolutions 2-4
unless --all-resolutions (from schema 14 they are made on demand).

usage: dbcanon.py DB [--all-resolutions]
"""
import sqlite3
import sys

CALL = ("id, task_id, func_id, parent_id, fnode_id, interrupted_id, depth, cpu, t_entry,"
        " t_exit, incl_ns, excl_ns, children_ns, irq_ns, softirq_ns, preempt_ns,"
        " blocked_ns, flags, last_id")

# tables shown otherwise (or not at all)
SPECIAL = {"call_base", "call_extra", "call_value", "hist", "sqlite_stat1", "sqlite_stat4"}


def rows(db, title, query):
    print("== " + title)
    for r in db.execute(query):
        print("|".join("NULL" if v is None else repr(v) for v in r))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    rows(db, "call", "SELECT %s FROM call ORDER BY id" % CALL)
    if version <= 13:
        values = "SELECT id, retval, args, retaddr FROM call_value ORDER BY id"
    else:
        values = ("SELECT b.id, b.retval, v.args, v.retaddr FROM call_base b"
                  " LEFT JOIN call_value v ON v.id = b.id"
                  " WHERE b.retval IS NOT NULL OR v.id IS NOT NULL ORDER BY b.id")
    rows(db, "call values", values)
    res = "" if "--all-resolutions" in sys.argv else " WHERE resolution = 1"
    rows(db, "hist", "SELECT * FROM hist%s ORDER BY 1, 2, 3, 4, 5" % res)
    tables = [t for (t,) in db.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    for t in tables:
        if t in SPECIAL:
            continue
        n = len(db.execute("SELECT * FROM \"%s\" LIMIT 0" % t).description)
        order = ", ".join(str(i + 1) for i in range(n))
        rows(db, t, "SELECT * FROM \"%s\" ORDER BY %s" % (t, order))


main()
