#!/usr/bin/env python3
"""Cut a Liberty library down to named cells: the library's header (units,
operating conditions, table templates) kept whole, then only the cell groups
named, in the library's order.

make test's area test maps into such a cut of the SKY130 high-density
library (tests/area/), so that it runs on any machine without the 12 MB
library beside the checkout; the cells kept are the ones the full sweep's
netlists use most (scripts/area/subset_cells.txt, 99% of its instances),
so ABC still has a choice of drive strengths.

usage: liberty_subset.py <in.lib[.gz]> <cells.txt> <out.lib.gz>
Only the Python standard library; the output is written whole or not at all,
byte for byte the same on every run (gzip with mtime 0).
"""
import gzip
import os
import re
import sys

from liberty import read_list


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="strict") as fh:
        return fh.read()


def groups_at_depth1(text):
    """(start, end, header) of each group opened at depth 1 (the library's
    own children), skipping strings and comments, so that a brace in a
    quoted function or a comment does not count."""
    out = []
    depth = 0
    i = 0
    n = len(text)
    line_start = 0
    while i < n:
        c = text[i]
        if c == '"':
            j = text.find('"', i + 1)
            while j > 0 and text[j - 1] == "\\":
                j = text.find('"', j + 1)
            if j < 0:
                raise ValueError("unterminated string at offset %d" % i)
            i = j + 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("unterminated comment at offset %d" % i)
            i = j + 2
            continue
        if c == "\n":
            line_start = i + 1
        elif c == "{":
            depth += 1
            if depth == 2:
                out.append([line_start, None, text[line_start:i].strip()])
        elif c == "}":
            if depth == 2:
                out[-1][1] = text.find("\n", i) + 1 or n
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced '}' at offset %d" % i)
        i += 1
    if depth != 0:
        raise ValueError("unbalanced braces at the end")
    return out


CELL = re.compile(r'^cell\s*\(\s*"?([^")]+)"?\s*\)$')


def subset(text, names):
    groups = groups_at_depth1(text)
    cells = [(s, e, CELL.match(h).group(1)) for s, e, h in groups if CELL.match(h)]
    if not cells:
        raise ValueError("no cell groups")
    have = {c for _, _, c in cells}
    missing = [c for c in names if c not in have]
    if missing:
        raise ValueError("cells not in the library: " + ", ".join(missing))
    want = set(names)
    parts = [text[:cells[0][0]]]
    parts += [text[s:e] for s, e, c in cells if c in want]
    parts.append(text[cells[-1][1]:])
    return "".join(parts)


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[2].splitlines()[0], file=sys.stderr)
        return 2
    src, lst, dst = argv[1:]
    try:
        out = subset(read_text(src), read_list(lst))
    except (OSError, ValueError, UnicodeDecodeError) as e:
        print("%s: %s" % (src, e), file=sys.stderr)
        return 2
    tmp = "%s.tmp%d" % (dst, os.getpid())
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(out.encode("utf-8"))
    os.replace(tmp, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
