"""Data for the page tests, made through the services: real games, real reports.

``play_match`` plays a whole game with the engine's built-in policies and
stores it as a finished, rated match (the referee is not wired into the
platform here, the log and results are the engine's). ``failed_version``
stores a real upload and fails it with the report validation writes for a
crash, without a sandbox.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

import vegas_engine
from arena.bots.models import Bot, BotVersion, VersionStatus
from arena.bots.services import bot_version_transition, bot_version_upload
from arena.bots.validation import fault_report
from arena.ladders import tasks
from arena.ladders.models import Entry, Ladder, Qualification, QualificationStatus
from arena.ladders.services import ratings_apply
from arena.matches.models import Match
from arena.matches.outcomes import SeatOutcome
from arena.matches.services import match_create, match_finish, match_start, runs_to_publish
from bots_sdk.faults import Fault, FaultKind
from vegas_engine.log import dumps, game_log
from vegas_engine.policies import greedy_policy, play, random_policy

GOOD_BOT = b'''"""Plays the first legal action."""

from bots_sdk import Bot, run


class First(Bot):
    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(First)
'''

CRASH_STDERR = (
    'Traceback (most recent call last):\n  File "main.py", line 9, in act\n'
    "    return observation['legal_actions'][1 // 0]\n"
    "ZeroDivisionError: division by zero\n"
)


def engine_log(ladder: Ladder, seed: int) -> dict[str, Any]:
    """A whole game of the ladder's rules: greedy at even seats, random at odd ones."""
    description = vegas_engine.describe(ladder.rules, ladder.seats, ladder.options)
    policies = [greedy_policy if seat % 2 == 0 else random_policy for seat in range(ladder.seats)]
    return game_log(play(description, seed, policies))


def play_match(
    ladder: Ladder,
    versions: list[BotVersion],
    seed: int,
    *,
    referee: dict[str, Any] | None = None,
) -> tuple[Match, dict[str, Any]]:
    """A finished, rated match of ``versions`` with the engine's log; returns it and the log.

    ``referee`` is added to the stored log as the referee's section (stderr).
    """
    log = engine_log(ladder, seed)
    stored = {**log, "referee": referee} if referee is not None else log
    result = log["events"][-1]["result"]
    outcomes = [SeatOutcome(seat=r["seat"], money=r["money"], rank=r["rank"]) for r in result]
    for version in versions:  # they play there, so they entered
        Entry.objects.get_or_create(bot_id=version.bot_id, ladder=ladder)
    # One transaction: the run task match_create queues on commit then finds the
    # match finished and leaves it (the test's versions have no code to run).
    with transaction.atomic():
        match = match_start(
            match=match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions, seed=seed)
        )
        match = match_finish(match=match, outcomes=outcomes, game_log=dumps(stored).encode())
    ratings_apply(match=match)  # a no-op where the eager task already rated it
    match.refresh_from_db()
    return match, log


def referee_section(seats: int, *, stderr: dict[int, str]) -> dict[str, Any]:
    """A referee section whose seats in ``stderr`` crashed with that stderr tail."""
    records = []
    for seat in range(seats):
        fault = None
        if seat in stderr:
            fault = Fault(
                kind=FaultKind.CRASHED,
                message="the bot's process exited with status 1",
                exit_code=1,
                stderr_tail=stderr[seat],
            ).to_json()
        records.append(
            {"seat": seat, "player": seat, "forfeited": fault is not None, "fault": fault}
        )
    return {"protocol": 1, "seats": records}


FAILING_REQUEST = {
    "type": "request",
    "id": 1,
    "game_id": 1,
    "observation": {"rules": "classic", "seat": 0, "seats": 2, "legal_actions": ["place 1"]},
    "time_left_ms": 1000,
    "bank_left_ms": 10000,
}


def failed_version(bot: Bot, *, code: bytes = GOOD_BOT) -> BotVersion:
    """A stored version whose pre-flight game crashed on its first request.

    Made through the services with the report validation writes
    (``fault_report``), without running the sandbox.
    """
    version = bot_version_upload(bot=bot, filename="main.py", content=code)
    version = bot_version_transition(version=version, to=VersionStatus.VALIDATING)
    fault = Fault(
        kind=FaultKind.CRASHED,
        message="the bot's process exited with status 1 while deciding",
        game_id=1,
        request=FAILING_REQUEST,
        sent='{"type": "act',
        elapsed_ms=12.5,
        exit_code=1,
        stderr_tail=CRASH_STDERR,
    )
    report = {
        "passed": False,
        "errors": [f"{fault.kind.value}: {fault.message}"],
        "checked_files": ["main.py"],
        "fault": fault_report(fault),
    }
    return bot_version_transition(version=version, to=VersionStatus.FAILED, report=report)


def on_ladder(ladder: Ladder) -> dict[str, Any]:
    """``match_create``'s arguments for a match of ``ladder``'s game, counted there."""
    return {"ladder_id": ladder.pk, "game": ladder.game}


def enter(version: BotVersion, ladder: Ladder) -> None:
    """``version``'s bot entered on ``ladder``, the version qualified there (its pre-flight
    passed), as an author's entry and a worker's pre-flight would leave them."""
    Entry.objects.get_or_create(bot_id=version.bot_id, ladder=ladder)
    Qualification.objects.update_or_create(
        bot_version=version,
        ladder=ladder,
        defaults={"status": QualificationStatus.PASSED, "report": {"passed": True}},
    )


def run_match(match: Match) -> Match:
    """Play ``match`` (and the rest of its series) as a worker's ``match_run`` task does:
    each game's rating queued as it is recorded, retries due at once published (eager in
    tests, once the test's transaction lets its commit callbacks run); returns it as it ended."""
    tasks.match_run(match.pk)
    return Match.objects.get(pk=match.pk)


def publish_matches(matches: list[Match]) -> list[Match]:
    """Publish the run messages of ``matches`` just created (once the caller's transaction
    commits), as the flows and tasks that create matches do: the matches services publish
    nothing. Returns them."""
    tasks.publish_runs(runs_to_publish(matches))
    return matches


def publish_match(match: Match) -> Match:
    """:func:`publish_matches` for one match."""
    publish_matches([match])
    return match


def never_run(monkeypatch: Any, task: Any) -> None:
    """Messages of ``task`` go nowhere: it is queued but never runs.

    Patched on the task's own class (a shared task is a proxy: its object is
    found first), which monkeypatch restores cleanly; patching the instance
    would leave a stale bound method shadowing later class-level patches.
    """
    real = task._get_current_object() if hasattr(task, "_get_current_object") else task
    monkeypatch.setattr(type(real), "apply_async", lambda *args, **kwargs: None)


def store_finished(
    ladder: Ladder, versions: list[BotVersion], seed: int, stored: dict[str, Any]
) -> Match:
    """A finished, rated match of ``versions`` whose stored log is ``stored`` (either form;
    the moves form, with the referee's section, is what the platform stores)."""
    result = stored["result"] if "result" in stored else stored["events"][-1]["result"]
    outcomes = [SeatOutcome(seat=r["seat"], money=r["money"], rank=r["rank"]) for r in result]
    for version in versions:
        Entry.objects.get_or_create(bot_id=version.bot_id, ladder=ladder)
    with transaction.atomic():
        match = match_start(
            match=match_create(ladder_id=ladder.pk, game=ladder.game, versions=versions, seed=seed)
        )
        match = match_finish(match=match, outcomes=outcomes, game_log=dumps(stored).encode())
    ratings_apply(match=match)
    match.refresh_from_db()
    return match


def moves_log(ladder: Ladder, seed: int) -> dict[str, Any]:
    """:func:`engine_log`'s game in the moves form, as the referee keeps it."""
    description = vegas_engine.describe(ladder.rules, ladder.seats, ladder.options)
    policies = [greedy_policy if seat % 2 == 0 else random_policy for seat in range(ladder.seats)]
    return game_log(play(description, seed, policies, log="moves"))


def traced_referee(log: dict[str, Any], *, notes: bool = True) -> dict[str, Any]:
    """A referee section for a moves-form ``log`` with every seat's trace (the contract of
    per-decision debug output): the k-th request of seat s took 10 + k ms, its note says
    ``seat s thinks k`` and its stderr ``s: k\\n  indented``; its bot seed is 1000 + s.
    Without ``notes``, the section an older referee wrote: times only."""
    seats = log["seats"]
    records = []
    for seat in range(seats):
        moves = [index for index, (mover, _) in enumerate(log["moves"]) if mover == seat]
        record: dict[str, Any] = {
            "seat": seat,
            "player": seat,
            "forfeited": False,
            "fault": None,
            "decisions": len(moves),
            "decision_ms": [10.0 + k for k in range(len(moves))],
        }
        if notes:
            record["bot_seed"] = 1000 + seat
            record["trace"] = [
                {
                    "move": index,
                    "request": k + 1,
                    "ms": 10.0 + k,
                    "note": f"seat {seat} thinks {k}",
                    "stderr": f"{seat}: {k}\n  indented <b>not bold</b>",
                    "truncated": k == 0,
                }
                for k, index in enumerate(moves)
            ]
        records.append(record)
    return {"protocol": 1, "limits": {"decision_ms": 1000, "bank_ms": 20000}, "seats": records}
