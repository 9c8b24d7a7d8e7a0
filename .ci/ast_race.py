#!/usr/bin/env python3
"""The race .ci/python/sitecustomize.py closes: three threads parse one large source while the
garbage collector runs often (objects with a finalizer in cycles). On CPython 3.11 some parses
fail with "AST constructor recursion depth mismatch"; with the lock of sitecustomize, none.

Usage: ast_race.py SOURCE_FILE [--locked]   (prints the number of failed parses; exit 1 if any)
"""

import ast
import gc
import sys
import threading

source = open(sys.argv[1]).read()
if "--locked" in sys.argv:
    sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/python")
    import sitecustomize  # noqa: F401  (locks ast.parse)
gc.set_threshold(50, 5, 5)
failures = []


class Finalized:
    def __del__(self):
        for _ in range(20):
            pass


def parse_often():
    for _ in range(40):
        try:
            garbage = [Finalized() for _ in range(100)]
            for g in garbage:
                g.me = g
            del garbage
            ast.parse(source)
        except SystemError as e:
            failures.append(str(e))


threads = [threading.Thread(target=parse_often) for _ in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"{len(failures)} failed parse(s){': ' + failures[0] if failures else ''}")
sys.exit(1 if failures else 0)
