#!/usr/bin/env python3
"""Make darc(1) or darc-record(8) from the programs' own --help texts.

The --help texts in the C sources are the one source of the manual: this
script runs the built program, reads what it prints and lays it out in
roff, so the pages cannot drift from the program.

    help2roff.py darc PROGRAM VERSION OUT        darc(1): every command
    help2roff.py darc-record PROGRAM VERSION OUT  darc-record(8)

A help text is read as: the usage lines (the synopsis), then paragraphs,
option lines ("  -o, --output FILE   what it does", continued by deeper
indented lines), headings (a line ending in ':') and examples (indented
lines under a heading that starts with "example").
"""
import os
import re
import subprocess
import sys

OPTION = re.compile(r'^(\s*)(-\S.*?)(?:\s{2,}(\S.*))?$')
TERM = re.compile(r'^(\s+)(\S+)\s{2,}(\S.*)$')


def esc(text):
    """Text for roff: backslashes, a leading dot or quote, minus signs."""
    text = text.replace('\\', '\\e')
    # an option ("--max-depth", "-o"): every dash a minus, to copy and paste
    text = re.sub(r'(?<![\w\\])-[-\w]*', lambda m: m.group(0).replace('-', '\\-'), text)
    if text[:1] in ('.', "'"):
        text = '\\&' + text
    return text


def run_help(program, *args):
    env = dict(os.environ, COLUMNS='80', LC_ALL='C')
    out = subprocess.run([program, *args, '--help'], capture_output=True, text=True,
                         env=env, check=False)
    text = out.stdout or out.stderr
    if not text.startswith('usage:'):
        sys.exit(f'help2roff: {program} {" ".join(args)} --help printed no usage')
    return text


def split_usage(text):
    """The usage lines (without 'usage: ') and the rest of the text's lines."""
    lines = text.rstrip('\n').split('\n')
    usage = []
    while lines and (lines[0].startswith('usage:') or (usage and lines[0].startswith(' '))):
        line = lines.pop(0)
        usage.append(line[len('usage:'):].strip() if line.startswith('usage:') else line.strip())
    return usage, lines


def split_option(text):
    """'--peaks LO-HI,.. use these' -> ('--peaks LO-HI,..', 'use these'): the
    options and their metavariables (no lower case) before the words."""
    words = text.split(' ')
    n = 1
    while n < len(words) and (words[n].startswith('-') or (words[n] and
                                                            not re.search('[a-z]', words[n]))):
        n += 1
    return ' '.join(words[:n]), ' '.join(words[n:]) or None


def body(lines):
    """The roff of a help text after its usage lines."""
    out, item_indent, literal = [], None, False
    for line in lines:
        if not line.strip():
            out.append('.PP' if not literal else '')
            item_indent = None
            continue
        indent = len(line) - len(line.lstrip())
        if literal and indent:
            out.append(esc(line.strip()))
            continue
        if literal:
            out += ['.fi', '.RE']
            literal = False
        if line.rstrip().endswith(':') and (not indent or len(line.strip()) < 40):
            out += ['.PP', '\\fB' + esc(line.strip()) + '\\fR']
            item_indent = None
            if line.strip().lower().startswith('example'):
                out += ['.RS 4', '.nf']
                literal = True
            continue
        m = OPTION.match(line) if indent else None
        t = TERM.match(line) if indent and not m else None
        if item_indent is not None and indent > item_indent and not m:
            out.append(esc(line.strip()))
            continue
        if m or t:
            term, desc = (m.group(2), m.group(3)) if m else (t.group(2), t.group(3))
            if m and desc is None:
                term, desc = split_option(term)
            out += ['.TP', '\\fB' + esc(term.strip()) + '\\fR']
            out.append(esc(desc) if desc else '')
            item_indent = indent
            continue
        if item_indent is not None:
            out.append('.PP')
        item_indent = None
        if indent:  # a formula or a table row: kept as a line of its own
            out += ['.RS 4', '.nf', esc(line.strip()), '.fi', '.RE']
        else:
            out.append(esc(line.strip()))
    if literal:
        out += ['.fi', '.RE']
    # no empty lines (roff reads them as blank output lines), no .PP runs
    text = [x for x in out if x != '']
    return [x for i, x in enumerate(text) if not (x == '.PP' and i + 1 < len(text)
                                                  and text[i + 1] in ('.PP', '.TP'))]


def header(name, section, version, summary):
    return [f'.TH {name.upper()} {section} "" "darc {version}" "darc manual"',
            '.SH NAME', f'{esc(name)} \\- {esc(summary)}']


def synopsis(usage):
    out = ['.SH SYNOPSIS', '.nf']
    out += [esc(u) for u in usage]
    return out + ['.fi']


def commands(text):
    """The (name, summary) pairs of darc --help's command list."""
    rows, on = [], False
    for line in text.split('\n'):
        if line.strip() == 'commands:':
            on = True
        elif on and not line.strip():
            break
        elif on:
            name, _, summary = line.strip().partition(' ')
            rows.append((name, summary.strip()))
    if not rows:
        sys.exit('help2roff: darc --help lists no commands')
    return rows


def page_darc(program, version):
    top = run_help(program)
    usage, rest = split_usage(top)
    cmds = commands(top)
    at = rest.index('commands:')
    intro = rest[:at]
    end = rest.index('', at) if '' in rest[at:] else len(rest)
    tail = rest[end:]
    out = header('darc', 1, version, 'find the root causes of latency peaks in Linux traces')
    out += synopsis(usage) + ['.SH DESCRIPTION'] + body(intro)
    out += ['.SH COMMANDS']
    for name, summary in cmds:
        out += ['.TP', f'\\fBdarc {esc(name)}\\fR', esc(summary)]
    for name, _ in cmds:
        sub_usage, sub_rest = split_usage(run_help(program, name))
        out += [f'.SS "darc {esc(name)}"', '.nf'] + [esc(u) for u in sub_usage] + ['.fi']
        out += body(sub_rest)
    out += ['.SH NOTES'] + body(tail)
    out += ['.SH SEE ALSO', '\\fBdarc-record\\fR(8), \\fBtrace-cmd\\fR(1), \\fBperf\\fR(1),',
            '\\fBuftrace\\fR(1), \\fBsqlite3\\fR(1)']
    return out


def page_record(program, version):
    usage, rest = split_usage(run_help(program))
    out = header('darc-record', 8, version, 'record the events darc analyzes into one bundle')
    out += synopsis(usage) + ['.SH DESCRIPTION'] + body(rest)
    out += ['.SH SEE ALSO', '\\fBdarc\\fR(1), \\fBtrace-cmd-record\\fR(1), \\fBtracefs\\fR(5)']
    return out


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('darc', 'darc-record'):
        sys.exit('usage: help2roff.py darc|darc-record PROGRAM VERSION OUT')
    which, program, version, path = sys.argv[1:]
    lines = page_darc(program, version) if which == 'darc' else page_record(program, version)
    tmp = f'{path}.tmp-{os.getpid()}'
    with open(tmp, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    os.replace(tmp, path)


if __name__ == '__main__':
    main()
