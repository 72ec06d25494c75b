#!/usr/bin/env python3
"""darc(1) and darc-record(8): rendered by man without a warning, read by
lexgrog (whatis), every command and every option of the programs' --help
in them, and installed by meson where man and bash-completion look.

    man.py DARC DARC_RECORD BUILD
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAIL = []


def check(ok, what):
    if not ok:
        FAIL.append(what)
        print('FAIL:', what)


def run(*argv, env=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env, check=False)


def render(page):
    """The page as man shows it (ASCII, no hyphenation), and man's warnings."""
    env = dict(os.environ, LC_ALL='C', MANWIDTH='100', MANROFFOPT='-rHY=0')
    r = run('man', '--warnings', '-l', page, env=env)
    check(r.returncode == 0, f'{page}: man -l exit {r.returncode}')
    check(not r.stderr.strip(), f'{page}: man warns: {r.stderr.strip()[:300]}')
    return re.sub(r'.\x08', '', r.stdout)


def long_options(*argv):
    out = run(*argv, '--help')
    return sorted(set(re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', out.stdout)))


def commands(darc):
    out = run(darc, '--help').stdout
    block = out.split('commands:\n', 1)[1].split('\n\n', 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def sections(text):
    """Each command's part of darc(1): from its heading to the next one."""
    parts, heads = {}, [(m.start(), m.group(1)) for m in
                        re.finditer(r'^   darc (\S+)$', text, re.M)]
    for i, (at, name) in enumerate(heads):
        parts[name] = text[at:heads[i + 1][0] if i + 1 < len(heads) else len(text)]
    return parts


def main():
    darc, record, build = sys.argv[1:4]
    if not shutil.which('man') or not shutil.which('lexgrog'):
        print('skip: man-db is not installed')
        return 77
    man1 = os.path.join(build, 'analyze/man/darc.1')
    man8 = os.path.join(build, 'analyze/man/darc-record.8')
    text = render(man1)
    check(run('lexgrog', man1).stdout.startswith(f'{man1}: "darc - '), 'darc.1: lexgrog finds no NAME')
    cmds = commands(darc)
    check(len(cmds) >= 10, f'darc --help lists {len(cmds)} commands')
    parts = sections(text)
    for cmd in cmds:
        check(cmd in parts, f'darc.1: no section for darc {cmd}')
        for opt in long_options(darc, cmd):
            check(opt in parts.get(cmd, ''), f'darc.1: darc {cmd} {opt} is not in its section')
    if os.path.exists(man8):
        text8 = render(man8)
        check(run('lexgrog', man8).stdout.startswith(f'{man8}: "darc-record - '),
              'darc-record.8: lexgrog finds no NAME')
        for opt in long_options(record):
            check(opt in text8, f'darc-record.8: {opt} is missing')
    with tempfile.TemporaryDirectory() as dest:
        r = run('meson', 'install', '-C', build, '--no-rebuild', '--quiet', '--destdir', dest)
        check(r.returncode == 0, f'meson install: {r.stderr.strip()[-300:]}')
        found = {os.path.relpath(os.path.join(d, f), dest).split('share/', 1)[-1]
                 for d, _, fs in os.walk(dest) for f in fs}
        for want in ('man/man1/darc.1', 'bash-completion/completions/darc'):
            check(want in found, f'meson install: no {want} (has {sorted(found)[:8]})')
    print(f'{len(cmds)} commands, {len(FAIL)} failures')
    return 1 if FAIL else 0


if __name__ == '__main__':
    sys.exit(main())
