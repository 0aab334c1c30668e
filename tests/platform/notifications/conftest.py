from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "notifications.md"


@pytest.fixture(autouse=True)
def _local_webhooks(settings: Any) -> None:
    """The receiver listens on loopback: allowed here as under DEBUG (tests that check the
    refusal turn it off)."""
    settings.ARENA_WEBHOOK_ALLOW_PRIVATE = True
    settings.ARENA_SITE_URL = "http://testserver"


def documented_verify() -> Callable[..., bool]:
    """The ``verify`` function of docs/notifications.md, as a reader would paste it."""
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None, "docs/notifications.md lost its verification recipe"
    namespace: dict[str, Any] = {}
    exec(code.group(1), namespace)
    verify: Callable[..., bool] = namespace["verify"]
    return verify
