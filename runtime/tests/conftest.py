"""The runtime's tests skip cleanly without torch. The package comes from this checkout through
pyproject.toml's `pythonpath`; the machine running them may have fewer CPUs than the test plans
have devices, which the launcher would otherwise refuse (preflight.py)."""
import os
import tempfile

import pytest

os.environ.setdefault("STAGECRAFT_RUNTIME_OVERSUBSCRIBE", "1")

try:
    import torch  # noqa: F401
    import torch.distributed as dist

    HAVE_TORCH = dist.is_available()
except ImportError:
    HAVE_TORCH = False

collect_ignore_glob = [] if HAVE_TORCH else ["test_*.py"]


@pytest.fixture(autouse=True)
def run_folders_in_the_tests_own_folder(tmp_path, monkeypatch):
    """A failed run keeps its folder (launch.py): the tests' failing runs keep theirs here, not in
    the machine's temp folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def pytest_report_header(config):
    if not HAVE_TORCH:
        return "stagecraft runtime: torch with torch.distributed is not installed; runtime tests skipped"
    return None
