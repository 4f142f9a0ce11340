"""Warnings a test reports in the run's summary (pytest's "warnings summary").

They live in this package, not in the test module that raises them, because pytest-xdist's
controller re-imports a warning's class by its module's name when a worker sends it, and the
controller has only `tests/` on its path (from tests/conftest.py), not the folders of the test
modules: a class defined in `tests/browser/test_x.py` crashes the controller (ModuleNotFoundError,
then "node down") the first time it is warned. test_run_warnings.py holds every class here to that.
"""


class FirefoxStall(UserWarning):
    """Firefox's own stall met in a smoke run and got round (test_other_engines.py,
    test_firefox_goes_live_steps_and_works_offline): each time is said in the run's warnings summary."""
