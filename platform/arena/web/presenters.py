"""Shaping selector results for the templates: no queries, no writes.

Kept out of the views so they stay a few lines each, and out of the
templates, which cannot compute.
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from django.contrib.auth.models import AnonymousUser

import vegas_engine
from arena.bots.models import Bot, BotVersion
from arena.bots.selectors import (
    BotCredit,
    bot_credit,
    bot_shown_name,
    may_manage_bot,
    may_read_internals,
)
from arena.ladders.elo import tied_with_above
from arena.ladders.models import Ladder, Qualification, Rating
from arena.ladders.selectors import HistoryPoint
from arena.leagues.models import EntryStatus, League, LeagueEntry, LeagueStanding, LeagueStatus
from arena.leagues.selectors import (
    league_can_manage,
    league_entry_can_respond,
    league_entry_can_withdraw,
)
from arena.leagues.services import LEAGUE_TRANSITIONS
from arena.live.selectors import LiveEvents
from arena.matches.games import MatchGame
from arena.matches.models import Participant
from arena.players.models import User
from vegas_engine.rules.royale import ROYALE_RULES

from . import charts

# --------------------------------------------------------------------------- bots


@dataclass(frozen=True)
class BotLabel:
    """A bot as people read it everywhere it appears: its name and whom it is credited to
    (``bot_credit``: its owner, later its team), so that two owners' bots of the same
    name are told apart. The template tag ``bot_label`` and filter ``bot_text`` render it."""

    name: str  # bot_shown_name: a test build marked as such
    bot_id: int
    #: Whether the bot has a page (a workbench's test builds have none).
    has_page: bool
    credit: BotCredit

    @property
    def text(self) -> str:
        """One line: "my-first-bot · alice"."""
        return f"{self.name} · {self.credit.name}"


def bot_label(bot: Bot) -> BotLabel:
    """The bot's owner must come with it (``select_related("owner")``, or
    ``"owner__profile"`` for the house mark from the profile): no query here."""
    return BotLabel(
        name=bot_shown_name(bot), bot_id=bot.pk, has_page=not bot.workbench, credit=bot_credit(bot)
    )


def owned_seats(participants: Iterable[Participant], user: User | AnonymousUser) -> set[int]:
    if not user.is_authenticated:
        return set()
    return {p.seat for p in participants if may_manage_bot(user, p.bot_version.bot, staff=False)}


# --------------------------------------------------------------------------- ratings


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    rating: Rating
    trend: charts.Sparkline | None
    #: Within the noise of the row above (``elo.is_tied``): the order of the two is not sure.
    tied: bool = False


def leaderboard_rows(
    ratings: Sequence[Rating],
    trends: dict[int, list[float]],
    *,
    first_rank: int,
    above: Rating | None = None,
) -> list[LeaderboardRow]:
    """``trends``: each rating's recent values, oldest first (``rating_trends``);
    ``above``: the rating ranked just above the first (on the page before), if any."""
    tied = tied_with_above(
        [(r.rating, r.deviation) for r in ratings],
        None if above is None else (above.rating, above.deviation),
    )
    return [
        LeaderboardRow(
            first_rank + offset,
            rating,
            charts.sparkline(trends.get(rating.pk, [])),
            tied[offset],
        )
        for offset, rating in enumerate(ratings)
    ]


def bots_with_ratings(
    bots: Sequence[Bot], ratings: Iterable[Rating]
) -> list[tuple[Bot, list[Rating]]]:
    by_bot: dict[int, list[Rating]] = {bot.pk: [] for bot in bots}
    for rating in ratings:
        by_bot.setdefault(rating.bot_id, []).append(rating)
    return [(bot, by_bot[bot.pk]) for bot in bots]


def history_chart(changes: Sequence[HistoryPoint]) -> charts.LineChart | None:
    """The rating after each change, with its ± as a band, marking where another version of
    the bot took over."""
    if not changes:
        return None
    values = [changes[0].rating_before, *(c.rating_after for c in changes)]
    deviations = [changes[0].deviation_before, *(c.deviation_after for c in changes)]
    marks = [(0, f"v{changes[0].rating.bot_version.number}")]
    for index in range(1, len(changes)):
        version = changes[index].rating.bot_version
        if version.pk != changes[index - 1].rating.bot_version_id:
            marks.append((index, f"v{version.number}"))
    return charts.line_chart(values, marks=marks, deviations=deviations)


# --------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class FaultView:
    """Why a version failed its pre-flight game (validation.fault_report), ready to show."""

    cause: str
    message: str
    exit_cause: str
    #: The request without its observation (one line), then the observation's
    #: legal actions and the whole observation (long: shown folded).
    request: str | None
    legal_actions: list[str]
    observation: str | None
    reply: str | None
    stderr_tail: str


@dataclass(frozen=True)
class GameCheckView:
    """One pre-flight game: which ladder's, how it went, and the fault if any."""

    key: str
    passed: bool
    seed: int | None
    #: One line about the game played.
    line: str
    fault: FaultView | None


@dataclass(frozen=True)
class ReportView:
    errors: list[str]
    games: list[GameCheckView]
    files: list[str]
    validator: str
    #: Why validation was postponed (our failure, not the bot's), if it was.
    infra_error: str
    #: What the compiler (or checker) said, when the build failed.
    build_failure: str = ""
    #: The line of the author's code it points at, when it names one.
    source: SourceExcerpt | None = None


@dataclass(frozen=True)
class SourceExcerpt:
    """The lines of the author's code a build failure points at."""

    #: As the compiler names it (``main.py``: a single upload is stored as the main file).
    path: str
    line: int
    #: The file the author uploaded (``mybot.py``), when it differs from ``path``.
    uploaded: str
    lines: list[tuple[int, str]]


# "main.py, line 3: invalid syntax" (Python's check), "/bot/main.c:3:5: error: ..." (gcc,
# g++, go), "/bot/Main.java:3: error: ..." (javac), "--> /bot/main.rs:3:5" (rustc).
BUILD_LOCATION = re.compile(
    r"(?:^|\s)(?:/bot/|\./)?(?P<path>[\w][\w./-]*\.[A-Za-z0-9]+)(?:, line |:)(?P<line>\d+)\b",
    re.MULTILINE,
)


def build_location(output: str) -> tuple[str, int] | None:
    """The first file and line a build's output names, if any."""
    found = BUILD_LOCATION.search(output)
    if found is None:
        return None
    return found["path"], int(found["line"])


def source_excerpt(
    *, path: str, line: int, uploaded: str, lines: list[tuple[int, str]]
) -> SourceExcerpt | None:
    if not lines:
        return None
    # A single file is stored under the runtime's main name: say which file that was.
    shown = uploaded if uploaded and PurePosixPath(path).name != uploaded else ""
    return SourceExcerpt(path=path, line=line, uploaded=shown, lines=lines)


def _exit_cause(fault: dict[str, Any]) -> str:
    cause = str(fault.get("cause", "")).replace("_", " ")
    if isinstance(fault.get("signal"), int):
        number = fault["signal"]
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown signal"
        return f"{cause}: killed by signal {number} ({name})"
    if isinstance(fault.get("exit_code"), int):
        return f"{cause}: exit status {fault['exit_code']}"
    if isinstance(fault.get("elapsed_ms"), int | float):
        return f"{cause} after {fault['elapsed_ms']:.0f} ms"
    return cause


def _fault_view(fault: dict[str, Any]) -> FaultView:
    request = fault.get("request")
    observation = request.get("observation") if isinstance(request, dict) else None
    reply = fault.get("reply")
    return FaultView(
        cause=str(fault.get("cause", "")),
        message=str(fault.get("message", "")),
        exit_cause=_exit_cause(fault),
        request=None
        if not isinstance(request, dict)
        else json.dumps({k: v for k, v in request.items() if k != "observation"}),
        legal_actions=[str(a) for a in (observation or {}).get("legal_actions") or []],
        observation=None if observation is None else json.dumps(observation, indent=2),
        reply=None if reply is None else str(reply),
        stderr_tail=str(fault.get("stderr_tail") or ""),
    )


def _game_line(game: dict[str, Any], sandboxed: Any) -> str:
    found = game.get("game")
    setup: dict[str, Any] = found if isinstance(found, dict) else {}
    rules = setup.get("rules") or game.get("rules") or "?"
    seats = f", {setup['seats']} seats" if isinstance(setup.get("seats"), int) else ""
    opponents = ", ".join(str(o) for o in game.get("opponents") or []) or "house bots"
    line = f"{rules}{seats} against {opponents}"
    if isinstance(game.get("seat"), int):  # drawn at random (bots_sdk.preflight)
        line += f", at seat {game['seat']}"
    if isinstance(game.get("decisions"), int):
        line += f", {game['decisions']} decisions"
    if isinstance(game.get("decision_ms_max"), int | float):
        line += f", slowest {game['decision_ms_max']:.0f} ms"
    if sandboxed is not None:
        line += ", sandboxed" if sandboxed else ", not sandboxed (house bot)"
    return line


def _game_view(key: str, game: Any, sandboxed: Any, fault: Any = None) -> GameCheckView | None:
    if not isinstance(game, dict):
        return None
    fault = game.get("fault", fault)
    seed = game.get("seed")
    return GameCheckView(
        key=key,
        passed=bool(game.get("passed", fault is None)),
        seed=seed if isinstance(seed, int) else None,
        line=_game_line(game, sandboxed),
        fault=_fault_view(fault) if isinstance(fault, dict) else None,
    )


def version_report(report: dict[str, Any]) -> ReportView:
    """The parts of a validation report (arena.bots.validation) an author reads.

    Reports of preflight-1 (one classic game, ``preflight`` and ``fault``) read as one game.
    """
    errors = report.get("errors")
    files = report.get("checked_files") or report.get("files")
    sandboxed = report.get("sandboxed")
    games = report.get("games")
    if isinstance(games, dict):
        views = [_game_view(str(key), game, sandboxed) for key, game in games.items()]
    elif "preflight" in report or "fault" in report:
        old = report.get("preflight") or {}
        views = [_game_view("pre-flight", old, sandboxed, report.get("fault"))]
    else:
        views = []
    build = report.get("build")
    failure = ""
    if isinstance(build, dict) and build.get("ok") is False:
        failure = str(build.get("output", ""))
    return ReportView(
        errors=[str(e) for e in errors if str(e) != failure] if isinstance(errors, list) else [],
        build_failure=failure,
        games=[view for view in views if view is not None],
        files=[str(f) for f in files] if isinstance(files, list) else [],
        validator=str(report.get("validator", "")),
        infra_error=str(report.get("infra_error") or ""),
    )


# --------------------------------------------------------------------------- ladders, entries


@dataclass(frozen=True)
class GameLadders:
    """The ladders of one rule system, for the list grouped by game."""

    rules: str
    title: str
    ladders: list[Ladder]


def ladders_by_game(ladders: Iterable[Ladder]) -> list[GameLadders]:
    """Ladders grouped by rule system, in the engine's order of systems, seats within."""
    grouped: dict[str, list[Ladder]] = {}
    for ladder in sorted(ladders, key=lambda ladder: (ladder.seats, ladder.name)):
        grouped.setdefault(ladder.rules, []).append(ladder)
    order = list(vegas_engine.RULE_SYSTEMS)
    return [
        GameLadders(
            rules=rules,
            title=vegas_engine.RULE_SYSTEMS[rules].title if rules in order else rules,
            ladders=grouped[rules],
        )
        for rules in sorted(
            grouped, key=lambda r: (order.index(r) if r in order else len(order), r)
        )
    ]


@dataclass(frozen=True)
class LadderEntryRow:
    """One ladder on a bot's page: entered or not, and its playing version's pre-flight."""

    ladder: Ladder
    entered: bool
    #: pending, passed or failed; empty without a playing version or pre-flight.
    preflight: str
    seed: int | None
    fault: str


def entry_rows(
    *,
    ladders: Sequence[Ladder],
    entered: Sequence[Ladder],
    qualifications: dict[int, Qualification],
    internals: bool,
) -> list[LadderEntryRow]:
    """The entered ladders first, then (for the owner's form) the others."""
    rows = []
    entered_ids = {ladder.pk for ladder in entered}
    for ladder in [*entered, *(x for x in ladders if x.pk not in entered_ids)]:
        found = qualifications.get(ladder.pk)
        fault = (found.report.get("fault") or {}) if found and internals else {}
        errors = (found.report.get("errors") or []) if found and internals else []
        rows.append(
            LadderEntryRow(
                ladder=ladder,
                entered=ladder.pk in entered_ids,
                preflight="" if found is None else str(found.status),
                seed=found.seed if found and internals else None,
                fault=(
                    f"{fault.get('cause')}: {fault.get('message')}"
                    if fault
                    else "; ".join(str(e) for e in errors)
                ),
            )
        )
    return rows


# --------------------------------------------------------------------------- matches


def _stderr_texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        texts = []
        for key, item in value.items():
            if key == "trace":
                continue  # per decision: the replay shows it at each step
            if "stderr" in key and isinstance(item, str):
                texts.append(item)
            else:
                texts.extend(_stderr_texts(item))
        return texts
    if isinstance(value, list):
        return [text for item in value for text in _stderr_texts(item)]
    return []


def seat_stderr(log: dict[str, Any] | None, *, seats: set[int]) -> dict[int, str]:
    """The stderr the referee kept of each of ``seats`` (the viewer's own), where any."""
    referee = (log or {}).get("referee")
    if not isinstance(referee, dict) or not isinstance(referee.get("seats"), list):
        return {}
    found: dict[int, str] = {}
    for record in referee["seats"]:
        if isinstance(record, dict) and record.get("seat") in seats:
            text = "\n".join(t for t in _stderr_texts(record) if t.strip())
            if text:
                found[record["seat"]] = text
    return found


@dataclass(frozen=True)
class SeatResources:
    """What one seat's processes used in the game, as the referee logged it."""

    seat: int
    name: str
    decisions: int
    cpu_seconds: float | None
    memory_peak_mib: float | None
    pids_peak: int | None
    charged_ms: float | None
    cpu_wait_ms: float | None
    decision_ms_max: float | None


def seat_resources(
    log: dict[str, Any] | None, *, seats: set[int], names: dict[int, str]
) -> list[SeatResources]:
    """The resources of each of ``seats`` (the viewer's own), named as the page names the
    seats (``names``): CPU, memory, time charged and time waited for a CPU
    (docs/protocol.md, *Limits and time*)."""
    referee = (log or {}).get("referee")
    if not isinstance(referee, dict) or not isinstance(referee.get("seats"), list):
        return []
    rows = []
    for record in referee["seats"]:
        if not isinstance(record, dict) or record.get("seat") not in seats:
            continue
        logged = record.get("resources")
        used: dict[str, Any] = logged if isinstance(logged, dict) else {}
        memory = _number(used.get("memory_peak_bytes"))
        rows.append(
            SeatResources(
                seat=record["seat"],
                name=names.get(record["seat"], ""),
                decisions=int(_number(record.get("decisions")) or 0),
                cpu_seconds=_number(used.get("cpu_seconds")),
                memory_peak_mib=None if memory is None else memory / 2**20,
                pids_peak=_int_or_none(used.get("pids_peak")),
                charged_ms=_number(used.get("charged_ms")),
                cpu_wait_ms=_number(used.get("cpu_wait_ms")),
                decision_ms_max=_number(record.get("decision_ms_max")),
            )
        )
    return rows


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class SeatFault:
    """Why a seat forfeited, as the referee logged it: for the seat's owner (and staff) only."""

    kind: str  # the referee's exact fault kind, e.g. "time_bank_exhausted"
    message: str
    #: The request the bot failed on, without its observation (one line), then the
    #: observation's legal actions and the whole observation; None outside a request.
    request: str | None
    legal_actions: list[str]
    observation: str | None


@dataclass(frozen=True)
class ResultRow:
    participant: Participant
    fault: SeatFault | None  # None: no fault, or not the viewer's to read
    name: str  # the seat's bot as the page shows it (bot_shown_name)


def _seat_fault(fault: dict[str, Any]) -> SeatFault:
    request = fault.get("request")
    observation = request.get("observation") if isinstance(request, dict) else None
    return SeatFault(
        kind=str(fault.get("kind", "")),
        message=str(fault.get("message", "")),
        request=None
        if not isinstance(request, dict)
        else json.dumps({k: v for k, v in request.items() if k != "observation"}),
        legal_actions=[
            str(a)
            for a in (observation.get("legal_actions") if isinstance(observation, dict) else None)
            or []
        ],
        observation=None if observation is None else json.dumps(observation, indent=2),
    )


def result_rows(
    participants: Iterable[Participant],
    log: dict[str, Any] | None,
    user: User | AnonymousUser,
) -> list[ResultRow]:
    """The seats in rank order (unranked last; ties by seat), each with its referee fault
    when the viewer may read it: the owner of the seat's bot, or staff (as for stderr)."""
    faults: dict[int, dict[str, Any]] = {}
    referee = (log or {}).get("referee")
    if isinstance(referee, dict) and isinstance(referee.get("seats"), list):
        for record in referee["seats"]:
            if isinstance(record, dict) and isinstance(record.get("fault"), dict):
                faults[record.get("seat", -1)] = record["fault"]
    ordered = sorted(participants, key=lambda p: (p.rank is None, p.rank or 0, p.seat))
    rows = []
    for participant in ordered:
        fault = faults.get(participant.seat)
        if fault is not None and not may_read_internals(user, participant.bot_version.bot):
            fault = None
        shown = bot_shown_name(participant.bot_version.bot)
        rows.append(ResultRow(participant, None if fault is None else _seat_fault(fault), shown))
    return rows


def replay_document(log: dict[str, Any], participants: Sequence[Participant]) -> dict[str, Any]:
    """What the replay viewer reads of a match: the game, its events, and who sat where."""
    return board_document(log, match_players(participants))


def match_players(participants: Sequence[Participant]) -> list[dict[str, Any]]:
    return [seat_player(p.seat, p.bot_version) for p in participants]


def seat_player(seat: int, version: BotVersion) -> dict[str, Any]:
    """A bot's seat as the board's seat table names it: bot, version and owner (the house's
    marked), for two owners' bots may share a name."""
    label = bot_label(version.bot)
    return {
        "seat": seat,
        "name": label.name,
        "version": version.number,
        "owner": label.credit.name,
        "house": label.credit.house,
    }


def board_document(log: dict[str, Any], players: list[dict[str, Any]]) -> dict[str, Any]:
    """What the replay viewer reads: the game and its events, and who sat where.

    The referee's section stays out: the viewer does not need it, and it
    holds stderr, which the page shows to each seat's owner separately.
    `royale` adds the numbers its log does not repeat: the worth of a chip at
    the end, and the Jackpot's pot at a round's start.
    """
    royale = (
        {
            "chip_value": ROYALE_RULES.chip_value,
            "jackpot_start": ROYALE_RULES.tiles.jackpot_start,
        }
        if log.get("rules") == "royale"
        else {}
    )
    return {
        **royale,
        "rules": log.get("rules"),
        "options": log.get("options", {}),
        "seats": log.get("seats", len(players)),
        "events": log.get("events", []),
        "players": players,
    }


def study_document(
    participants: Sequence[Participant], seats: Sequence[int], *, url: str
) -> dict[str, Any] | None:
    """What the replay's decision panel reads first: where to fetch the decisions of the
    viewer's ``seats`` (``match_study_seats``), and their bots; None without any."""
    if not seats:
        return None
    return {
        "url": url,
        "seats": [
            {
                "seat": p.seat,
                "name": bot_shown_name(p.bot_version.bot),
                # A test build's number counts the workbench's builds: none of the bot's.
                "version": None if p.bot_version.bot.workbench else p.bot_version.number,
            }
            for p in participants
            if p.seat in seats
        ],
    }


def rerun_commands(match_url: str, seats: Sequence[int]) -> list[tuple[int, str]]:
    """For each of the viewer's ``seats``, the SDK command that reruns it on their machine
    (``python -m bots_sdk rerun``): their own download of the log carries the seat's
    bot seed, so the command reads it with their API token."""
    return [
        (seat, f"python -m bots_sdk rerun {match_url} --seat {seat} path/to/your/bot")
        for seat in seats
    ]


#: How often the viewer of a game being played asks for its new events: a match's
#: watchers every second, a person at a table (whose turn comes back) twice as often.
LIVE_POLL_MS = 1000
TABLE_POLL_MS = 500


def live_document(
    game: MatchGame,
    players: list[dict[str, Any]],
    live: LiveEvents | None,
    *,
    url: str,
    playing: Sequence[str],
    every_ms: int = LIVE_POLL_MS,
) -> dict[str, Any]:
    """The viewer's document of a game still being played: its events so far (from 0), and
    where to ask for the next (``url?since=N``) while its status is one of ``playing``."""
    header = game.setup().describe().to_json()  # the options resolved, as a log has them
    document = board_document({**header, "events": [] if live is None else live.events}, players)
    document["live"] = {
        "url": url,
        "attempt": None if live is None else live.attempt,
        "playing": list(playing),
        "every_ms": every_ms,
    }
    return document


# --------------------------------------------------------------------------- leagues

# Entrants that may still be withdrawn, before and after the start (the services refuse the
# others with the reason; the page just offers no button).
WITHDRAWABLE_BEFORE_START = (EntryStatus.INVITED, EntryStatus.ACCEPTED)
WITHDRAWABLE_STARTED = (EntryStatus.PLAYING,)
FINAL = (LeagueStatus.FINISHED, LeagueStatus.CANCELLED)


@dataclass(frozen=True)
class LeagueControls:
    """The organiser's buttons the league's status allows (all False for other viewers)."""

    manage: bool
    pause: bool
    resume: bool
    cancel: bool
    entrants: bool  # add and remove entrants: before the start only

    @property
    def any(self) -> bool:
        return self.pause or self.resume or self.cancel or self.entrants


def league_controls(league: League, user: User | AnonymousUser) -> LeagueControls:
    manage = league_can_manage(league=league, user=user)
    status = LeagueStatus(league.status)
    moves = LEAGUE_TRANSITIONS[status]
    return LeagueControls(
        manage=manage,
        pause=manage and LeagueStatus.PAUSED in moves,
        resume=manage and status == LeagueStatus.PAUSED,
        cancel=manage and LeagueStatus.CANCELLED in moves,
        entrants=manage and status == LeagueStatus.SCHEDULED,
    )


@dataclass(frozen=True)
class WithdrawAction:
    """A withdraw button: a short label that opens the question and its confirming button."""

    label: str  # "Withdraw", "Remove"
    name: str  # the bot's, for screen readers
    question: str  # what it does, e.g. "Withdraw b0: its remaining games are lost by forfeit."
    confirm: str  # the button that does it


@dataclass(frozen=True)
class EntryRow:
    entry: LeagueEntry
    respond: bool  # the viewer owns this invited bot
    withdraw: WithdrawAction | None  # None: no button for this viewer


def _withdraw_text(
    entry: LeagueEntry, league: League, user: User | AnonymousUser
) -> WithdrawAction | None:
    if league.status in FINAL or not league_entry_can_withdraw(entry=entry, user=user):
        return None
    # The organiser (or staff) may hold two owners' bots of the same name: say whose.
    mine = may_manage_bot(user, entry.bot, staff=False)
    name = entry.bot.name if mine else f"{entry.bot.name} · {bot_credit(entry.bot).name}"
    if league.started_at is not None:
        if entry.status not in WITHDRAWABLE_STARTED or entry.last_round is not None:
            return None
        return WithdrawAction(
            label="Withdraw",
            name=name,
            question=f"Withdraw {name}: its remaining games are lost by forfeit. "
            "This cannot be undone.",
            confirm=f"Yes, withdraw {name}",
        )
    if entry.status not in WITHDRAWABLE_BEFORE_START:
        return None
    verb = "Withdraw" if mine else "Remove"
    return WithdrawAction(
        label=verb,
        name=name,
        question=f"{verb} {name} from {league.name}? It can enter again before the start.",
        confirm=f"Yes, {verb.lower()} {name}",
    )


def league_entry_rows(
    entries: Iterable[LeagueEntry], league: League, user: User | AnonymousUser
) -> list[EntryRow]:
    """The entrants with the buttons the viewer may press (the services check again)."""
    rows = []
    for entry in entries:
        entry.league = league  # the permission checks read it: no query per row
        respond = (
            league.status == LeagueStatus.SCHEDULED
            and entry.status == EntryStatus.INVITED
            and league_entry_can_respond(entry=entry, user=user)
        )
        # An invitation's owner answers it: Decline is their withdraw.
        withdraw = None if respond else _withdraw_text(entry, league, user)
        rows.append(EntryRow(entry, respond, withdraw))
    return rows


@dataclass(frozen=True)
class FixturePages:
    """Which of a league's tables (in calendar order) the page shows, and where each round is."""

    number: int  # this page, from 1
    count: int  # pages
    start: int  # the first table shown (0-based, in calendar order)
    stop: int  # past the last table shown
    tables: int  # tables in all
    round_pages: list[tuple[int, int]]  # (round number, the page of its first table)

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.count else None


def fixture_pages(
    round_tables: Sequence[tuple[int, int]],
    *,
    current_round: int | None,
    requested: str | None,
    per_page: int,
) -> FixturePages:
    """Page ``requested`` (a query parameter: anything else than a page number means the
    page of ``current_round``'s first table, where a visitor wants to look)."""
    firsts: dict[int, int] = {}
    tables = 0
    for number, count in round_tables:
        firsts[number] = tables
        tables += count
    count = max(1, -(-tables // per_page))
    default = firsts.get(current_round, 0) // per_page + 1 if current_round else 1
    number = int(requested) if requested and requested.isdigit() else default
    number = min(max(number, 1), count)
    start = (number - 1) * per_page
    return FixturePages(
        number=number,
        count=count,
        start=start,
        stop=min(start + per_page, tables),
        tables=tables,
        round_pages=[
            (round_number, first // per_page + 1) for round_number, first in firsts.items()
        ],
    )


@dataclass(frozen=True)
class StandingRow:
    standing: LeagueStanding
    withdraw: WithdrawAction | None  # as EntryRow.withdraw


def league_standing_rows(
    standings: Iterable[LeagueStanding], league: League, user: User | AnonymousUser
) -> list[StandingRow]:
    """The table once started, with the withdraw button the viewer may press on each row."""
    rows = []
    for standing in standings:
        standing.entry.league = league  # as in league_entry_rows
        rows.append(StandingRow(standing, _withdraw_text(standing.entry, league, user)))
    return rows
