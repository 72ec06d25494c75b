#!/usr/bin/env python3
"""A darc database is untrusted input ([19] item 1): tampered copies of one,
through every command that reads a database.

Usage: tamper.py DARC [SAMPLE]

The database of SAMPLE (default samples/vm-fsyncread-v7.dat: function_graph,
kprobes on the bios, sched, irq and block events) is tampered with in two
ways, each copy then given to every command that reads a database (hist,
peaks, paths, explain, waits, io, export in its three forms, diff, and the
JSON of hist and explain):

- its schema: a trigger on each table a report command writes to (peak,
  search, explain_subject, io_layer), a recursive trigger, each view
  replaced by an endless recursive query, table task replaced by a view of
  fifty million rows, an index and a table of its own. darc must refuse
  each in one line naming the object, before running anything of it.
- its values, with darc's schema text left exactly as darc wrote it (the
  NOT NULL constraints are lifted for the update through writable_schema,
  then put back, as a hand-made file can hold anything): for every table,
  every column set to NULL, to text that is no number and no UTF-8, to the
  largest and to negative integers, to zero, and every id that points at a
  row pointing at itself or nowhere; names prefixed with the byte 0xff.
  darc may answer or refuse, but in one line, with status 0 or 2, never
  with a crash, a signal, a sanitizer report (the sanitize setup runs this
  on darc built with ASan and UBSan) or a run past the time limit.

Each failure is printed with the copy and the command; exit 1 if any.
"""
import concurrent.futures
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
LIMIT = 30  # seconds a command may take on a tampered copy of a small database


def run(darc, args, timeout=LIMIT):
    try:
        p = subprocess.run([darc] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, b'', b''


def commands(db, entry, tid):
    return [
        ['hist', db, '--func', entry],
        ['hist', db, '--func', entry, '--json'],
        ['peaks', db, '--func', entry],
        ['paths', db, '--func', entry],
        ['explain', db],
        ['explain', db, '--json'],
        ['waits', db, '--task', str(tid)],
        ['io', db],
        ['export', db, '--folded'],
        ['export', db, '--chrome'],
        ['export', db, '--speedscope'],
        ['export', db, '--perfetto'],
        ['report', db, '-o', db + '.html'],
        ['diff', db, db],
    ]


def schema_tampers(con):
    """(name, SQL) of each schema tamper."""
    t = []
    for table in ('peak', 'search', 'explain_subject', 'io_layer'):
        t.append(('trigger on ' + table,
                  'CREATE TRIGGER t_%s AFTER INSERT ON %s BEGIN SELECT 1; END' % (table, table)))
    t.append(('recursive trigger',
              'CREATE TRIGGER loop AFTER INSERT ON peak BEGIN '
              'INSERT INTO peak SELECT * FROM peak LIMIT 1; END'))
    views = [r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'view'")]
    for v in views:
        cols = [r[1] for r in con.execute('PRAGMA table_info(%s)' % v)]
        sel = ', '.join('x AS "%s"' % c for c in cols)
        t.append(('view %s endless' % v,
                  'DROP VIEW %s; CREATE VIEW %s AS WITH RECURSIVE r(x) AS '
                  '(SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT %s FROM r' % (v, v, sel)))
    t.append(('table task a view of 50 M rows',
              'DROP TABLE task; CREATE VIEW task(tid, pid, comm) AS WITH RECURSIVE '
              'r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r LIMIT 50000000) '
              'SELECT x, x, \'t\' FROM r'))
    t.append(('an index of its own', 'CREATE INDEX mine ON func(kind)'))
    t.append(('a table of its own', 'CREATE TABLE mine(x)'))
    return t


def value_kinds(col, is_pk, is_ref):
    """(name, SQL expression) of each value a column gets (a key keeps its values:
    every row given one value would break its uniqueness, which SQLite keeps)."""
    k = []
    if is_pk:
        return k
    k.append(('NULL', 'NULL'))
    k.append(('text', "CAST(X'ff0178' AS TEXT)"))
    k.append(('max', '9223372036854775807'))
    k.append(('negative', '-1'))
    k.append(('zero', '0'))
    if is_ref:
        k.append(('dangling', '%s + 1000000' % col))
    return k


def unlocked(path, fn):
    """Run fn(con) on @path with NOT NULL and CHECK lifted, then put darc's schema text back."""
    con = sqlite3.connect(path, isolation_level=None)
    orig = list(con.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table'"))
    con.execute('PRAGMA writable_schema = ON')
    for name, sql in orig:
        loose = sql.replace('NOT NULL', '').replace('PRIMARY KEY', 'PRIMARY KEY')
        con.execute('UPDATE sqlite_schema SET sql = ? WHERE name = ?', (loose, name))
    con.close()
    con = sqlite3.connect(path, isolation_level=None)
    try:
        fn(con)
    finally:
        con.close()
        con = sqlite3.connect(path, isolation_level=None)
        con.execute('PRAGMA writable_schema = ON')
        for name, sql in orig:
            con.execute('UPDATE sqlite_schema SET sql = ? WHERE name = ?', (sql, name))
        con.close()


def value_tampers(con):
    """(name, fn(con)) of each value tamper: every table, every kind, all its columns."""
    t = []
    tables = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    for table in tables:
        info = list(con.execute('PRAGMA table_info(%s)' % table))
        kinds = {}
        for _, col, _, _, pk, in [(r[0], r[1], r[2], r[3], r[5]) for r in info]:
            is_ref = col.endswith('_id') or col in ('parent', 'tid', 'pid')
            for name, expr in value_kinds(col, pk > 0, is_ref):
                kinds.setdefault(name, []).append('"%s" = %s' % (col, expr))
        for name, sets in kinds.items():
            sql = 'UPDATE %s SET %s' % (table, ', '.join(sets))
            t.append(('%s: %s' % (table, name), lambda c, sql=sql: c.execute(sql)))
        text = [r[1] for r in info if r[2].upper() == 'TEXT']
        if text:
            sql = 'UPDATE %s SET %s' % (table, ', '.join(
                '"%s" = CAST(X\'ff\' AS TEXT) || "%s"' % (c, c) for c in text))
            t.append(('%s: names prefixed with 0xff' % table, lambda c, sql=sql: c.execute(sql)))
    t.append(('fnode: each its own parent',
              lambda c: c.execute('UPDATE fnode SET parent_id = id')))
    t.append(('fnode: a cycle of two',
              lambda c: c.execute('UPDATE fnode SET parent_id = CASE WHEN id % 2 THEN id + 1 '
                                  'ELSE id - 1 END')))
    t.append(('call_base: each call its own parent',
              lambda c: c.execute('UPDATE call_base SET parent_id = id')))
    return t


def check(darc, db, what, entry, tid, bad):
    cmds = commands(db, entry, tid)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda a: run(darc, a), cmds))
    for args, (rc, out, err) in zip(cmds, results):
        lines = err.decode('utf-8', 'replace').splitlines()
        cmd = ' '.join(a if a != db else 'DB' for a in args)
        why = None
        if rc is None:
            why = 'ran past %d s' % LIMIT
        elif rc < 0 or rc > 2:
            why = 'status %d' % rc
        elif rc and len([l for l in lines if not l.startswith('darc ')]) != 1:
            why = 'status %d with %d lines of errors: %r' % (rc, len(lines), err[:300])
        if why:
            bad.append('%s: darc %s: %s' % (what, cmd, why))
            print('FAIL: ' + bad[-1])


def main():
    darc = os.path.abspath(sys.argv[1])
    sample = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        here, '..', '..', 'samples', 'vm-fsyncread-v7.dat')
    tmp = tempfile.mkdtemp(prefix='darc-tamper.')
    bad = []
    try:
        good = os.path.join(tmp, 'good.db')
        rc, _, err = run(darc, ['analyze', '-q', '-o', good, sample], timeout=300)
        if rc != 0:
            print('FAIL: darc analyze %s: %s' % (sample, err.decode()))
            return 1
        con = sqlite3.connect(good)
        # the traced entry point, and the task with the most calls
        entry = con.execute("SELECT f.name FROM fnode n JOIN func f ON f.id = n.func_id"
                            " WHERE n.parent_id IS NULL ORDER BY n.calls DESC LIMIT 1").fetchone()[0]
        tid = con.execute("SELECT task_id FROM call_base GROUP BY task_id"
                          " ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
        st = schema_tampers(con)
        vt = value_tampers(con)
        con.close()
        db = os.path.join(tmp, 't.db')
        for what, sql in st:
            shutil.copy(good, db)
            c = sqlite3.connect(db, isolation_level=None)
            c.executescript(sql)
            c.close()
            n = len(bad)
            cmds = commands(db, entry, tid)
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                results = list(pool.map(lambda a: run(darc, a), cmds))
            for args, (rc, out, err) in zip(cmds, results):
                e = err.decode('utf-8', 'replace').strip()
                if rc != 2 or '\n' in e or "not darc's schema" not in e:
                    bad.append('%s: darc %s: status %s, %r' % (what, args[0], rc, e[:200]))
                    print('FAIL: ' + bad[-1])
            if len(bad) == n:
                print('ok: %s: refused by every command' % what)
        for what, fn in vt:
            shutil.copy(good, db)
            try:
                unlocked(db, fn)
            except sqlite3.Error as e:
                print('note: %s: not made (%s)' % (what, e))
                continue
            n = len(bad)
            check(darc, db, what, entry, tid, bad)
            if len(bad) == n:
                print('ok: %s' % what)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d failed' % len(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
