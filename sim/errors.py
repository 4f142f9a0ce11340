"""The one error a bad request raises inside sim: which argument, and a readable message.

Every check in sim (a bench setting, a command's argument, a reader's text) raises BenchError or a
subclass of it; sim.bench.protocol turns it into the worker's {"ok": false, "error", "param"} reply.
It lives apart so that any module can raise it without importing the bench.
"""

from __future__ import annotations


class BenchError(ValueError):
    """A bad argument, named: str(err) is a readable message, err.param the argument's name."""

    def __init__(self, param: str, message: str):
        super().__init__(message)
        self.param = param
