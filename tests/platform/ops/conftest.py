from __future__ import annotations

import pytest

from arena.ops import selectors


@pytest.fixture(autouse=True)
def fresh_totals(monkeypatch: pytest.MonkeyPatch) -> selectors.Totals:
    """Each test's web process starts afresh: no totals kept from another test's rows."""
    totals = selectors.Totals()
    monkeypatch.setattr(selectors, "TOTALS", totals)
    return totals
