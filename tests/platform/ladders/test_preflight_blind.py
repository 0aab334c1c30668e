"""A pre-flight is a ladder game to the bot: nothing it reads tells the check apart.

The old pre-flight seated the bot at seat 1 of its first game against a
fixed set of house bots: a bot that played legally only there passed every
pre-flight, then forfeited on the ladders. Every line the referee writes to
a bot is recorded here (the real sandboxed games, as a worker plays them),
in a pre-flight and in a ladder match of the same ladder, and compared.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

import pytest

from arena.bots import sandboxing
from arena.bots.models import BotVersion, VersionStatus
from arena.bots.services import bot_version_transition, bot_version_upload
from arena.ladders.flows import bot_submit, ladder_create
from arena.ladders.models import Ladder, Qualification, QualificationStatus
from arena.ladders.services.entries import preflight_game
from arena.matches.models import MatchStatus
from arena.matches.services import match_create, match_run
from bots_sdk import referee
from bots_sdk.launcher import HOUSE_DIR, BotSpec
from bots_sdk.protocol import Limits
from bots_sdk.sandbox import BotProcess
from tests.platform.factories import BotFactory, BotVersionFactory
from tests.platform.scenes import enter, on_ladder, publish_match
from tests.platform.worker import GOOD_BOT, protocol_bot

pytestmark = pytest.mark.django_db

Received = dict[str, list[dict[str, Any]]]

# Legal only at the old pre-flight's tell (seat 1 of game 1); anywhere else it cheats.
HOSTILE_BOT = protocol_bot(
    decide='legal[0] if (message["observation"]["seat"], message["game_id"]) == (1, 1) '
    'else "place 9"'
)


@pytest.fixture
def received(monkeypatch: pytest.MonkeyPatch) -> Received:
    """Every message the referee writes to each bot, by the bot's name ("shark v1")."""
    names: dict[int, str] = {}
    lines: Received = defaultdict(list)
    launch, send_line = sandboxing.launch_bot, referee._Connection.send_line

    def launching(spec: BotSpec, limits: Limits) -> BotProcess:
        process = launch(spec, limits)
        names[id(process)] = spec.name
        return process

    def sending(connection: Any, line: bytes, deadline: float) -> None:
        lines[names[id(connection.process)]].append(json.loads(line))
        send_line(connection, line, deadline)

    monkeypatch.setattr(sandboxing, "launch_bot", launching)
    monkeypatch.setattr(referee._Connection, "send_line", sending)
    return lines


def house_version(house: Any, name: str) -> BotVersion:
    """An active house bot version (its real code), without its own pre-flight."""
    bot = BotFactory(owner=house, name=name)
    code = (HOUSE_DIR / f"{name}_bot.py").read_bytes()
    version = bot_version_upload(bot=bot, filename=f"{name}.py", content=code)
    bot_version_transition(version=version, to=VersionStatus.VALIDATING)
    return bot_version_transition(version=version, to=VersionStatus.ACTIVE)


def classic_4(slug: str = "classic-4") -> Ladder:
    return ladder_create(slug=slug, name=slug, rules="classic", seats=4)


def submit(owner: Any, code: bytes, ladders: list[Ladder], capture: Any) -> BotVersion:
    """An upload entered on ``ladders``, its pre-flights played when it commits."""
    with capture(execute=True):
        version = bot_submit(
            owner=owner, name="shark", filename="shark.py", content=code, ladders=ladders
        )
    version.refresh_from_db()
    return version


def shape(value: Any, at: str = "") -> set[tuple[str, str]]:
    """Every (path, JSON type) in ``value``: list items at ``[]``, the entries of objects
    keyed by seat or owner ("0", "neutral") at ``{}``, as their keys vary by game."""
    if isinstance(value, dict):
        by_owner = bool(value) and all(key.isdigit() or key == "neutral" for key in value)
        found = {(at, "object")}
        for key, item in value.items():
            found |= shape(item, f"{at}.{{}}" if by_owner else f"{at}.{key}")
        return found
    if isinstance(value, list):
        return {(at, "array")}.union(*(shape(item, f"{at}[]") for item in value))
    return {(at, type(value).__name__)}


def shapes(messages: list[dict[str, Any]]) -> dict[str, set[tuple[str, str]]]:
    """Each message type's fields with their types, over a whole game."""
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for message in messages:
        found[message["type"]] |= shape(message)
    return dict(found)


def sequence(messages: list[dict[str, Any]]) -> list[str]:
    """The message types in order, a run of requests as one."""
    kinds = [m["type"] for m in messages]
    return [k for n, k in enumerate(kinds) if k != "request" or kinds[n - 1] != "request"]


def test_a_bot_reads_in_its_preflight_what_it_reads_in_a_ladder_match(
    alice: Any, house: Any, received: Received, django_capture_on_commit_callbacks: Any
) -> None:
    ladder = classic_4()
    pool = [house_version(house, name) for name in ("greedy", "random", "gambler")]
    for version in pool:
        enter(version, ladder)
    shark = submit(alice, GOOD_BOT, [ladder], django_capture_on_commit_callbacks)

    checked = Qualification.objects.get(bot_version=shark, ladder=ladder)
    assert checked.status == QualificationStatus.PASSED, checked.report
    # Drawn from the ladder's bots as its first pick there would be: all three here.
    assert sorted(checked.report["opponents"]) == sorted(f"{v.bot.name} v1" for v in pool)
    preflight = received.pop("shark v1")
    assert preflight[1]["seat"] == checked.report["seat"]

    match = publish_match(
        match_create(**on_ladder(ladder), versions=[pool[0], pool[1], shark, pool[2]])
    )
    with django_capture_on_commit_callbacks(execute=True):
        match = match_run(match=match).match
    assert match.status == MatchStatus.FINISHED
    played = received.pop("shark v1")

    expected = ["hello", "new_game", "request", "game_over", "shutdown"]
    assert sequence(preflight) == sequence(played) == expected
    # Every field, nested ones too, with the same JSON types.
    assert shapes(preflight) == shapes(played)
    # What the ladder sets is the same to the value: limits, game, bank, time.
    assert preflight[0] == played[0]
    same = ("type", "game_id", "game", "bank_ms")
    assert {k: preflight[1][k] for k in same} == {k: played[1][k] for k in same}
    assert preflight[1]["game_id"] == 1  # a 4-seat ladder's processes start at game 1
    timing = ("time_left_ms", "bank_left_ms")
    assert {k: preflight[2][k] for k in timing} == {k: played[2][k] for k in timing}
    assert preflight[2]["id"] == played[2]["id"] == 1


def test_a_bot_legal_only_at_the_old_preflight_s_seat_passes_only_when_drawn_there(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    ladders = [classic_4(f"classic-4-{n}") for n in range(3)]

    version = submit(alice, HOSTILE_BOT, ladders, django_capture_on_commit_callbacks)

    for checked in Qualification.objects.filter(bot_version=version):
        report = checked.report
        assert report["seat"] in range(4) and len(report["opponents"]) == 3
        # Seat 1 is drawn 1 time in 4: the tell it waits for is gone.
        assert (checked.status == QualificationStatus.PASSED) == (report["seat"] == 1)
        if report["seat"] != 1:
            assert report["fault"]["cause"] == "illegal_action"


def test_the_opponents_are_drawn_from_the_ladder_never_the_bot_s_own(
    alice: Any, bob: Any, house: Any
) -> None:
    ladder = classic_4()
    pool = [BotVersionFactory(bot=BotFactory(owner=bob)) for _ in range(5)]
    older = BotVersionFactory(bot=BotFactory(owner=alice, name="shark"))
    for version in [*pool, older]:
        enter(version, ladder)
    shark = BotVersionFactory(bot=older.bot, number=2, status=VersionStatus.PENDING)
    rng = random.Random(31)

    games = [preflight_game(ladder=ladder, version=shark, rng=rng) for _ in range(60)]

    drawn = [[v.pk for v in game.opponents or ()] for game in games]
    assert all(len(set(ids)) == 3 for ids in drawn)  # three distinct opponents each
    assert set().union(*drawn) == {v.pk for v in pool}  # any of the pool, never shark's own
    assert {game.game_id for game in games} == {1}
    assert games[0].setup == ladder.game.setup()


def test_on_a_duplicate_ladder_the_game_id_is_one_of_a_deal_s(alice: Any, bob: Any) -> None:
    deals = ladder_create(slug="classic-2", name="Classic 2", rules="classic", seats=2)
    rival = BotVersionFactory(bot=BotFactory(owner=bob))
    enter(rival, deals)
    shark = BotVersionFactory(bot=BotFactory(owner=alice), status=VersionStatus.PENDING)
    rng = random.Random(7)

    games = [preflight_game(ladder=deals, version=shark, rng=rng) for _ in range(40)]

    # A newcomer's first pick is one deal: game k of it starts fresh processes.
    assert {game.game_id for game in games} == {1, 2}
    assert all(game.opponents == (rival,) for game in games)


def test_a_ladder_with_too_few_bots_for_a_match_draws_house_bots(alice: Any) -> None:
    ladder = classic_4()
    shark = BotVersionFactory(bot=BotFactory(owner=alice), status=VersionStatus.PENDING)

    game = preflight_game(ladder=ladder, version=shark, rng=random.Random(1))

    assert game.opponents is None and game.game_id == 1  # the SDK draws house bots
