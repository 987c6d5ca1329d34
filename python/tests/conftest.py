"""Shared fixtures: the mmaref command the Python results are checked
against (MMAREF_CLI, default build/mmaref of this checkout)."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("MMAREF_CLI", os.path.join(ROOT, "build", "mmaref"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"the mmaref command is needed at {path} (make, or set MMAREF_CLI)")

    def run(*args, check=True):
        r = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"mmaref {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
        return r

    return run


@pytest.fixture(scope="session")
def root():
    return ROOT


def pytest_terminal_summary(terminalreporter):
    """the count line of make test (scripts/run_tests.sh)"""
    s = terminalreporter.stats
    failed = len(s.get("failed", [])) + len(s.get("error", []))
    terminalreporter.write_line(f"python tests: {len(s.get('passed', []))} passed, {failed} failed")
