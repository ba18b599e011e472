"""schemathesis hooks (SCHEMATHESIS_HOOKS=st_hooks): a workaround in the test tool, not the API.

With `--workers 2`, hypothesis describes filter lambdas from two threads at once, and CPython
3.11 keeps `ast.parse`'s recursion bookkeeping per interpreter, not per thread: two parses at the
same time can fail with "SystemError: AST constructor recursion depth mismatch" (a runtime error
of the tool, at random, on whichever operation is being generated). Descriptions are only for
reports, so they are made one at a time, and a failed one reads as an anonymous lambda.
"""

import threading

from hypothesis.internal import lambda_sources

_describe = lambda_sources._lambda_description
_lock = threading.Lock()


def _one_at_a_time(f, *args, **kwargs):
    with _lock:
        try:
            return _describe(f, *args, **kwargs)
        except SystemError:
            return "lambda: <source not described>"


lambda_sources._lambda_description = _one_at_a_time
