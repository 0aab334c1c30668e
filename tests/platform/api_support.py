"""Helpers of the API tests: clients for the personas, real games with referee sections."""

from __future__ import annotations

import io
import json
import random
import zipfile
from collections.abc import Sequence
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.fields import SkipField
from rest_framework.test import APIClient

import vegas_engine
from arena.bots.models import BotVersion
from arena.ladders.models import Ladder
from arena.matches.models import Match, MatchStatus
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_finish
from vegas_engine.log import game_log

from .factories import MatchFactory, ParticipantFactory

# A real SDK bot: validation plays a pre-flight game with it.
GOOD = b"""\
from bots_sdk import Bot, run


class First(Bot):
    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(First)
"""


def client_for(user: Any | None = None) -> APIClient:
    """An API client logged in as ``user`` (anonymous for None)."""
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def api_upload(user: Any, name: str, filename: str, code: bytes, **fields: str) -> BotVersion:
    """``user`` uploads a bot over the REST API with a token, as an author's script
    would (``fields``: ``ladders``, ``runtime``, ...); the 201's version."""
    api = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    sent = api.post(
        "/api/bots/",
        {"name": name, "file": SimpleUploadedFile(filename, code), **fields},
        format="multipart",
    )
    assert sent.status_code == 201, sent.content
    return BotVersion.objects.get(pk=sent.json()["id"])


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def stderr_of(seat: int) -> str:
    return f"seat {seat} debug: my secret plan\n"


def played_log(ladder: Ladder, seed: int, *, events: bool = False) -> dict[str, Any]:
    """A real game of the ladder's rules played at random, with a referee section
    (docs/protocol/referee-log.schema.json) in which every seat faulted with stderr.

    In the moves form, as the referee keeps it; with ``events`` in the events form,
    as matches stored it before the moves form."""
    state = vegas_engine.new_game(
        vegas_engine.describe(ladder.rules, ladder.seats, ladder.options),
        seed,
        log=True if events else "moves",
    )
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    log = game_log(state)
    final = log["events"][-1]["result"] if events else log["result"]
    result = [{**row, "forfeited": False} for row in final]
    log["referee"] = {
        "protocol": 1,
        "game_id": 1,
        "limits": {
            "startup_ms": 5000,
            "decision_ms": ladder.time_per_decision_ms,
            "bank_ms": ladder.time_bank_ms,
            "max_line_bytes": 65536,
            "max_output_bytes": 8388608,
            "memory_bytes": ladder.memory_mb * 1024 * 1024,
            "cpu_cores": 1.0,
        },
        "result": result,
        "seats": [
            {
                "seat": seat,
                "player": seat,
                "name": f"player {seat}",
                "forfeited": False,
                "startup_ms": 12.5,
                "decisions": 1,
                "decision_ms": [1.5],
                "decision_ms_median": 1.5,
                "decision_ms_max": 1.5,
                "fault": {
                    "kind": "crashed",
                    "message": "the bot exited after the game",
                    "game_id": 1,
                    "request": None,
                    "sent": None,
                    "elapsed_ms": None,
                    "exit_code": 1,
                    "signal": None,
                    "stderr_tail": stderr_of(seat),
                    "resources": {},
                },
                "resources": {"memory_peak_bytes": 1000, "cpu_seconds": 0.1},
            }
            for seat in range(ladder.seats)
        ],
    }
    return log


def play_match(
    ladder: Ladder, versions: Sequence[BotVersion], seed: int = 1, *, events_log: bool = False
) -> Match:
    """A running match finished by the service with a real log, as a worker would
    (``events_log``: stored in the events form, as matches played before the moves form)."""
    match = MatchFactory(
        ladder=ladder, seed=seed, status=MatchStatus.RUNNING, attempts=1, started_at=timezone.now()
    )
    for seat, version in enumerate(versions):
        ParticipantFactory(match=match, seat=seat, bot_version=version)
    log = played_log(ladder, seed, events=events_log)
    outcomes = [
        SeatOutcome(seat=row["seat"], money=row["money"], rank=row["rank"])
        for row in log["referee"]["result"]
    ]
    return match_finish(match=match, outcomes=outcomes, game_log=json.dumps(log).encode())


def drf_document(serializer: serializers.BaseSerializer[Any], instance: Any) -> Any:
    """What DRF's own machinery writes for ``instance``: field by field from the declared
    fields, nested serializers too, ignoring any ``to_representation`` written by hand
    (the list outputs write their JSON directly, for speed; tests compare the two)."""
    if isinstance(serializer, serializers.ListSerializer):
        items = instance.all() if hasattr(instance, "all") else instance
        return [drf_document(serializer.child, item) for item in items]
    document = {}
    for field in serializer._readable_fields:
        try:
            attribute = field.get_attribute(instance)
        except SkipField:
            continue
        if attribute is None:
            document[field.field_name] = None
        elif isinstance(field, serializers.BaseSerializer):
            document[field.field_name] = drf_document(field, attribute)
        else:
            document[field.field_name] = field.to_representation(attribute)
    return document
