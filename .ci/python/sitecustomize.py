"""Loaded by the schemathesis runs of .ci/run (PYTHONPATH): one thread at a time in ast.parse.

CPython 3.11 keeps the AST constructor's recursion depth per interpreter, not per thread, so two
threads converting a parse tree at once (a garbage collection inside one lets the other run)
fail with "SystemError: AST constructor recursion depth mismatch". Hypothesis parses source
files to describe its lambdas, and schemathesis' two workers do so at once: now and then a run
failed on that error with every check passing. .ci/ast_race.py shows the error without this
lock and none with it.
"""

import ast
import threading

_lock = threading.RLock()
_parse = ast.parse


def _parse_alone(*args, **kwargs):
    with _lock:
        return _parse(*args, **kwargs)


ast.parse = _parse_alone
