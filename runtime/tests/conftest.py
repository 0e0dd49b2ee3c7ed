"""The runtime's tests import the package from this checkout and skip cleanly without torch."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    import torch  # noqa: F401
    import torch.distributed as dist

    HAVE_TORCH = dist.is_available()
except ImportError:
    HAVE_TORCH = False

collect_ignore_glob = [] if HAVE_TORCH else ["test_*.py"]


def pytest_report_header(config):
    if not HAVE_TORCH:
        return "stagecraft runtime: torch with torch.distributed is not installed; runtime tests skipped"
    return None
