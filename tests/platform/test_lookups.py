"""field__any_of: the same rows as field__in, on both databases (one array parameter on
PostgreSQL, IN elsewhere)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.bots.models import BotVersion

from .factories import BotFactory, BotVersionFactory

pytestmark = pytest.mark.django_db


def test_any_of_finds_what_in_finds(alice: Any) -> None:
    versions = [BotVersionFactory(bot=BotFactory(owner=alice)) for _ in range(5)]
    wanted = [versions[1].pk, versions[3].pk, 10**9]
    for lookup, values in (("pk", wanted), ("bot", [v.bot_id for v in versions[:2]])):
        expected = set(BotVersion.objects.filter(**{f"{lookup}__in": values}))
        with CaptureQueriesContext(connection) as queries:
            found = set(BotVersion.objects.filter(**{f"{lookup}__any_of": values}))
        assert found == expected and len(expected) == 2
        sql = queries.captured_queries[0]["sql"]
        assert ("ANY(" in sql) == (connection.vendor == "postgresql")
    # No value: no row, and no query.
    with CaptureQueriesContext(connection) as queries:
        assert list(BotVersion.objects.filter(pk__any_of=[])) == []
    assert len(queries) == 0
