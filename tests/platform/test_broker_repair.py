"""The embedded broker's exchange tables, repaired before a worker or beat binds to them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kombu import Connection

from arena.broker_repair import repair_exchange_tables
from arena.celery import _repair_embedded_broker


def test_a_table_left_with_an_older_tail_keeps_its_list_and_loses_the_tail(
    tmp_path: Path,
) -> None:
    # As the transport leaves it when a shorter list overwrites a longer one in place.
    torn = tmp_path / "celery.pidbox.exchange"
    torn.write_text('[["", "", "celery@vm.celery.pidbox"]]]')
    garbage = tmp_path / "celery.exchange"
    garbage.write_bytes(b"\x00\x00 not json")
    sound = tmp_path / "other.exchange"
    sound.write_text('[["celery", "", "celery"]]')

    assert repair_exchange_tables(tmp_path) == [garbage, torn]

    assert json.loads(torn.read_text()) == [["", "", "celery@vm.celery.pidbox"]]
    assert json.loads(garbage.read_text()) == []
    assert sound.read_text() == '[["celery", "", "celery"]]'
    assert repair_exchange_tables(tmp_path) == []


def test_a_worker_starting_on_a_torn_table_binds_again(tmp_path: Path, settings: Any) -> None:
    control = tmp_path / "control"
    control.mkdir()
    (control / "celery.exchange").write_text('[["celery", "", "celery"]]]')
    options = {
        "data_folder_in": str(tmp_path),
        "data_folder_out": str(tmp_path),
        "control_folder": str(control),
    }
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = options

    _repair_embedded_broker()

    # The transport reads it again: a queue binds and a message goes through.
    with Connection("filesystem://", transport_options=options) as connection:
        queue = connection.SimpleQueue("celery")
        queue.put({"ok": 1})
        assert queue.get(timeout=1).payload == {"ok": 1}
        queue.close()
