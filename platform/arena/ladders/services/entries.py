"""Writes on entries: which ladders a bot enters, and the pre-flight of its versions there.

A bot's owner enters it on ladders (at upload and later). Each version of the
bot must pass each ladder's pre-flight (:class:`~arena.ladders.models.Qualification`:
one full game of the ladder's setup, in the sandbox, on a fresh seed) to play
there; a version passing at least one becomes the bot's active version. The
game is one the ladder could play (:func:`preflight_game`), so a bot cannot
tell the check from a ladder game. House bots enter every ladder.
Pre-flights run on workers (``ladders.tasks.version_qualify``): :mod:`arena.ladders.flows`
queues those these writes left pending (``selectors.versions_awaiting_preflight``).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, VersionStatus, Visibility
from arena.bots.services import (
    bot_upload,
    bot_version_check_games,
    bot_version_upload,
    bot_version_validate,
    bot_versions_stuck,
)
from arena.bots.validation import PreflightGame
from arena.errors import ArenaError
from arena.players.models import Team, User

from ..elo import INITIAL_RATING
from ..matchmaking import draw_opponents, rating_width
from ..models import Entry, Ladder, Qualification, QualificationStatus
from ..selectors import MatchmakingCandidate, builds_in_flight, matchmaking_candidates

log = logging.getLogger(__name__)

# A pre-flight still pending this long lost its task (or waits for a worker that can sandbox).
STUCK_QUALIFICATION = timedelta(minutes=10)


class EntryError(ArenaError):
    """A choice of ladders that cannot be taken."""

    code = "entry_invalid"


class BuildsInFlightError(ArenaError):
    """A player's builds in flight reached ARENA_BUILDS_IN_FLIGHT_MAX."""

    code = "builds_in_flight"
    http_status = 429
    retry_after = 60


def check_builds_in_flight(owner: User, team: Team | None = None) -> None:
    """Refuse one more build of ``owner``'s (with ``team``: of the team's, whose members
    share one quota) while the builds in flight reach the cap: each holds a worker of the
    builds queue. House bots (loaded by the operator) are exempt. Callers hold the
    owner's (or team's) row lock, so two requests count one after the other."""
    limit = settings.ARENA_BUILDS_IN_FLIGHT_MAX
    if team is not None:
        if builds_in_flight(team=team) >= limit:
            raise BuildsInFlightError(
                f"{team.name} has {limit} uploads in flight (not built and pre-flighted yet), "
                "the most at once for a team: wait for one to finish (its page shows its "
                "verdict), then try again."
            )
        return
    if User.objects.filter(pk=owner.pk, profile__is_house=True).exists():
        return
    if builds_in_flight(owner=owner) >= limit:
        raise BuildsInFlightError(
            f"you have {limit} builds in flight (uploads or test games not built and "
            "pre-flighted yet), the most at once: wait for one to finish (its page shows "
            "its verdict), then try again."
        )


def _lock_quota(owner: User, team: Team | None) -> None:
    """The row whose lock makes the quota's checks one at a time: the team's or the owner's."""
    if team is not None:
        Team.objects.select_for_update().get(pk=team.pk)
    else:
        User.objects.select_for_update().get(pk=owner.pk)


def open_ladders() -> list[Ladder]:
    """The ladders anyone may enter: open, and not a competition's (restricted)."""
    return list(
        Ladder.objects.filter(is_open=True, restricted=False).order_by("rules", "seats", "slug")
    )


def ladders_from_slugs(slugs: Iterable[str]) -> list[Ladder]:
    """The ladders named by ``slugs``; an unknown one is an error that lists the open ones."""
    wanted = list(dict.fromkeys(slugs))
    found = {ladder.slug: ladder for ladder in Ladder.objects.filter(slug__in=wanted)}
    unknown = [slug for slug in wanted if slug not in found]
    if unknown:
        known = ", ".join(ladder.slug for ladder in open_ladders())
        raise EntryError(f"no ladder {', '.join(unknown)}: choose among {known}.")
    return [found[slug] for slug in wanted]


def _ensure_pending(versions: Iterable[BotVersion], ladders: Iterable[Ladder]) -> None:
    """A pending pre-flight of each version on each ladder unless one passed or is pending.

    A failed one is tried again: the owner entered the ladder anew.
    """
    ladders = list(ladders)
    for version in versions:
        for ladder in ladders:
            qualification, _ = Qualification.objects.get_or_create(
                bot_version=version, ladder=ladder
            )
            if qualification.status == QualificationStatus.FAILED:
                qualification.status = QualificationStatus.PENDING
                qualification.created_at = timezone.now()
                qualification.save(update_fields=["status", "created_at"])


def _checkable_versions(bot: Bot) -> list[BotVersion]:
    """The versions a new entry concerns: the one playing and any still to validate."""
    return list(
        bot.versions.filter(
            status__in=[VersionStatus.ACTIVE, VersionStatus.PENDING, VersionStatus.VALIDATING]
        )
    )


def entries_set(*, bot: Bot, ladders: Sequence[Ladder]) -> list[Entry]:
    """Enter ``bot`` on exactly ``ladders`` (at least one); returns its entries.

    Leaving a ladder takes the bot off its matchmaking and leaderboard at once
    (its ratings are kept). A new entry queues the pre-flight of the bot's
    versions there; a closed ladder takes no new entries.
    """
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        added = _replace_entries(locked, ladders)
        _ensure_pending(_checkable_versions(locked), added)
        return list(locked.entries.select_related("ladder").order_by("ladder__slug"))


def _replace_entries(locked: Bot, ladders: Sequence[Ladder]) -> list[Ladder]:
    """Make ``ladders`` the locked bot's entries; returns the ladders newly entered."""
    if not ladders:
        raise EntryError("choose at least one ladder: a bot plays only on the ladders it enters.")
    current = set(locked.entries.values_list("ladder_id", flat=True))
    wanted = {ladder.pk: ladder for ladder in ladders}
    closed = [x.slug for x in wanted.values() if not x.is_open and x.pk not in current]
    if closed:
        raise EntryError(f"{', '.join(closed)} closed: it takes no new entries.")
    restricted = [x.slug for x in wanted.values() if x.restricted and x.pk not in current]
    if restricted:
        raise EntryError(
            f"{', '.join(restricted)} is a competition's ladder: enter the bot in the "
            "competition (its page, /competitions/) instead."
        )
    # A competition's entries are the competition's to keep or drop.
    Entry.objects.filter(bot=locked).exclude(ladder_id__in=wanted).exclude(
        ladder__restricted=True
    ).delete()
    added = [ladder for pk, ladder in wanted.items() if pk not in current]
    Entry.objects.bulk_create(Entry(bot=locked, ladder=ladder) for ladder in added)
    return added


def _entered_ladders(bot: Bot) -> list[Ladder]:
    return [entry.ladder for entry in bot.entries.select_related("ladder")]


def bot_submit(
    *,
    owner: User,
    name: str,
    filename: str,
    content: bytes,
    visibility: Visibility = Visibility.PUBLIC,
    ladders: Sequence[Ladder] | None = None,
    runtime: str | None = None,
    team: Team | None = None,
) -> BotVersion:
    """Upload code for the owner's bot ``name`` (created on its first upload; with
    ``team``, the team's bot of that name) and enter it.

    ``ladders``: the ladders it enters from now on; None keeps the bot's
    entries, or enters a new bot on every open ladder. ``runtime``: the
    language, or None to take it from the file. The version's pre-flights on
    its ladders wait, pending (:func:`arena.ladders.flows.bot_submit` queues them).
    """
    if team is None:
        # The owner's bot of that name may be a team's: its uploads are the team's (the
        # team's quota, and the owner must still be a member).
        named = Bot.objects.filter(owner=owner, name__iexact=name, workbench=False)
        team = Team.objects.filter(pk=named.values("team_id")[:1]).first()
    with transaction.atomic():
        _lock_quota(owner, team)  # one count at a time
        check_builds_in_flight(owner, team)
        version = bot_upload(
            owner=owner,
            name=name,
            filename=filename,
            content=content,
            visibility=visibility,
            runtime=runtime,
            team=team,
        )
        return _enter_version(version, ladders)


def version_submit(
    *,
    bot: Bot,
    filename: str,
    content: bytes,
    ladders: Sequence[Ladder] | None = None,
    runtime: str | None = None,
) -> BotVersion:
    """A new version of ``bot``; ``ladders`` and ``runtime`` as in :func:`bot_submit`."""
    with transaction.atomic():
        _lock_quota(bot.owner, bot.team)  # one count at a time
        check_builds_in_flight(bot.owner, bot.team)
        version = bot_version_upload(bot=bot, filename=filename, content=content, runtime=runtime)
        return _enter_version(version, ladders)


def _enter_version(version: BotVersion, ladders: Sequence[Ladder] | None) -> BotVersion:
    """Enter the version's bot (as chosen), each pre-flight it needs left pending.

    A version entered nowhere still waits (pending) for a verdict: the default game.
    """
    bot = Bot.objects.select_for_update().get(pk=version.bot_id)
    if ladders is None and not bot.entries.exists():
        ladders = open_ladders() or None  # a new bot enters everywhere there is a ladder
    added = _replace_entries(bot, ladders) if ladders is not None else []
    _ensure_pending(_checkable_versions(bot), added)
    _ensure_pending([version], _entered_ladders(bot))
    return version


def entry_admit(*, bot: Bot, ladder: Ladder) -> Entry:
    """Enter ``bot`` on a competition's (restricted) ladder, the competition having
    admitted it; its versions' pre-flights there are left pending."""
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        if not ladder.is_open:
            raise EntryError(f"{ladder.slug} closed: it takes no new entries.")
        entry, created = Entry.objects.get_or_create(bot=locked, ladder=ladder)
        if created:
            _ensure_pending(_checkable_versions(locked), [ladder])
        return entry


def entry_dismiss(*, bot: Bot, ladder: Ladder) -> None:
    """Take ``bot`` off a competition's ladder (withdrawn); its ratings are kept."""
    Entry.objects.filter(bot=bot, ladder=ladder).delete()


def house_bot_enter_everywhere(*, bot: Bot) -> None:
    """A house bot enters every open ladder (and its versions qualify there)."""
    entries_set(bot=bot, ladders=list({*_entered_ladders(bot), *open_ladders()}))


def house_bots_enter(*, ladder: Ladder) -> None:
    """Every house bot enters a new ladder, so it plays from the start."""
    house_bots = Bot.objects.filter(owner__profile__is_house=True)
    with transaction.atomic():
        for bot in house_bots:
            _, created = Entry.objects.get_or_create(bot=bot, ladder=ladder)
            if created:
                _ensure_pending(_checkable_versions(bot), [ladder])


# --------------------------------------------------------------------------- pre-flights


def preflight_game(*, ladder: Ladder, version: BotVersion, rng: random.Random) -> PreflightGame:
    """The game of ``version``'s pre-flight on ``ladder``: one its first pick there could be.

    Its opponents are drawn from the ladder's bots as that pick would draw them
    (``matchmaking.draw_opponents``, the version a newcomer; never its own bot),
    so they play as ladder opponents do; while the ladder has too few bots for
    a match, house bots the SDK draws. On a duplicate ladder the pick is a
    deal, each game a fresh process: the game's id is one of the deal's. The
    seat (and the seed) the SDK draws, at random.
    """
    own = set(BotVersion.objects.filter(bot_id=version.bot_id).values_list("pk", flat=True))
    others = [c for c in matchmaking_candidates(ladder=ladder) if c.version_id not in own]
    game_id = rng.randint(1, ladder.seats) if ladder.duplicate_deals else 1
    if len(others) < ladder.seats - 1:
        return PreflightGame(ladder.game.setup(), game_id=game_id)
    newcomer = MatchmakingCandidate(version_id=version.pk, rating=INITIAL_RATING, games=0, queued=0)
    width = rating_width(ladder.seats, duplicate_deals=ladder.duplicate_deals)
    drawn = draw_opponents(newcomer, others, seats=ladder.seats, rng=rng, width=width)
    found = BotVersion.objects.select_related("bot").in_bulk([c.version_id for c in drawn])
    return PreflightGame(
        ladder.game.setup(), tuple(found[c.version_id] for c in drawn), game_id=game_id
    )


def version_qualify(*, version: BotVersion) -> list[Qualification]:
    """Play the version's pending pre-flights; returns the qualifications it decided.

    A pending version is validated (static checks, then one game per ladder)
    and becomes active if it passed any; an active version entered on more
    ladders plays their games. A failure of ours (no sandbox, the storage)
    raises InfrastructureError and decides nothing: the sweep queues it again.
    """
    pending = list(
        Qualification.objects.filter(
            bot_version=version, status=QualificationStatus.PENDING
        ).select_related("ladder")
    )
    rng = random.SystemRandom()  # no bot may predict its pre-flight's opponents
    games = {
        q.ladder.slug: preflight_game(ladder=q.ladder, version=version, rng=rng) for q in pending
    }
    if version.status == VersionStatus.PENDING:
        # Entered nowhere (a platform without ladders): the SDK's default game gives a verdict.
        checked = bot_version_validate(version=version, games=games or None)
        if checked.status not in (
            VersionStatus.ACTIVE,
            VersionStatus.FAILED,
            VersionStatus.RETIRED,
        ):
            return []  # another worker took it: it records the games
        report = checked.validation_report
        reports = report.get("games") or {}
    elif version.status == VersionStatus.ACTIVE:
        if not pending:
            return []
        reports = {
            key: check.report
            for key, check in bot_version_check_games(version=version, games=games).items()
        }
        report = {}
    else:
        return []
    now = timezone.now()
    for qualification in pending:
        game_report = reports.get(qualification.ladder.slug)
        if game_report is None:  # the code failed the static checks: no game was played
            game_report = {"passed": False, "errors": report.get("errors", [])}
        qualification.status = (
            QualificationStatus.PASSED if game_report["passed"] else QualificationStatus.FAILED
        )
        qualification.seed = game_report.get("seed")
        qualification.report = game_report
        qualification.checked_at = now
    Qualification.objects.bulk_update(pending, ["status", "seed", "report", "checked_at"])
    log.info(
        "version %s: pre-flights %s",
        version.pk,
        {q.ladder.slug: q.status for q in pending},
    )
    return pending


def qualifications_requeue_stuck(*, older_than: timedelta = STUCK_QUALIFICATION) -> list[int]:
    """The versions whose pre-flight task was lost, to queue again (beat sweep).

    Versions whose validation was lost (bots_versions_stuck), and active
    versions with a pre-flight pending for longer than ``older_than``.
    """
    version_ids = {version.pk for version in bot_versions_stuck(older_than=older_than)}
    cutoff = timezone.now() - older_than
    stale = Qualification.objects.filter(
        status=QualificationStatus.PENDING,
        created_at__lt=cutoff,
        bot_version__status=VersionStatus.ACTIVE,
    )
    version_ids.update(stale.values_list("bot_version_id", flat=True))
    # Restart their clocks, so a long queue is not flooded every sweep.
    stale.update(created_at=timezone.now())
    return sorted(version_ids)
