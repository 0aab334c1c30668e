"""Writes of the browser editor: drafts, their test games, and submitting one as a version.

A draft is one source file of an author's bot, saved as they type. A test
game plays it as the platform plays an upload: its code passes the upload's
checks, is stored as a test build (a version of the author's workbench bot,
``arena.bots.services.workbench_build_store``), built by the upload's build step
on a worker, and seated in one unrated match of a ladder's game against the
house bots the author chose. Test games never touch ratings, leaderboards,
challenges or the author's bot; each author may run
ARENA_EDITOR_TEST_GAMES_PER_HOUR of them an hour. Submitting uploads the
draft as a new version of its bot through the upload path
(:func:`arena.ladders.services.entries.bot_submit`): built, pre-flighted, entered.
Queueing the work that follows is :mod:`arena.ladders.flows`' and :mod:`arena.ladders.tasks`'.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from arena.bots.models import (
    Bot,
    BotVersion,
    CodeFormat,
    Draft,
    TestGame,
    VersionStatus,
    bot_name_validator,
)
from arena.bots.services import upload_limits, workbench_build_make, workbench_build_store
from arena.bots.uploads import check_upload, check_upload_size
from arena.errors import ArenaError
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.players.models import User
from bots_sdk.kits import KITS, kit_text
from bots_sdk.runtimes import RUNTIMES, runtime_for_file

from ..models import Ladder, QualificationStatus
from .entries import bot_submit, check_builds_in_flight

log = logging.getLogger(__name__)


class DraftError(ArenaError):
    """A draft that cannot be started, saved or submitted as asked."""

    code = "draft_invalid"


class TestGameError(ArenaError):
    """A test game that cannot be played as asked."""

    __test__ = False  # not a pytest test class
    code = "test_game_invalid"


class TestGameQuotaError(ArenaError):
    """Too many test games in the last hour."""

    __test__ = False
    code = "test_game_quota"


# --------------------------------------------------------------------------- drafts


def _checked_name(name: str) -> str:
    try:
        bot_name_validator(name)
    except ValidationError as error:
        raise DraftError(f"bot name {name!r}: {'; '.join(error.messages)}") from None
    return name


def _check_room(owner: User) -> None:
    limit = settings.ARENA_EDITOR_MAX_DRAFTS
    if Draft.objects.filter(owner=owner).count() >= limit:
        raise DraftError(
            f"you have {limit} drafts, the most one may keep: delete one you no longer need "
            "(the editor's list of your drafts), then start again."
        )


def draft_start_from_kit(*, owner: User, name: str, lang: str) -> Draft:
    """A draft of bot ``name`` holding the starter kit of ``lang``, made that bot's."""
    kit = KITS.get(lang)
    if kit is None:
        raise DraftError(f"no starter kit for {lang!r}: choose one of {', '.join(KITS)}.")
    source = kit_text(lang, kit.main, name=_checked_name(name))
    _check_room(owner)
    return Draft.objects.create(owner=owner, name=name, filename=kit.main, source=source)


def draft_start_from_version(*, owner: User, version: BotVersion) -> Draft:
    """A draft holding the code of one of the owner's single-file versions."""
    if version.bot.owner_id != owner.pk or version.bot.workbench:
        raise DraftError(f"{version} is not a version of your bots: start from one of yours.")
    if version.code_format == CodeFormat.ZIP:
        raise DraftError(
            f"{version} is a .zip of several files and the editor holds one file: edit it on "
            "your machine and upload it, or start from a single-file version or a starter kit."
        )
    _check_room(owner)
    try:
        with default_storage.open(str(version.code.name), "rb") as handle:
            source = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DraftError(f"the code of {version} cannot be read ({error}).") from None
    return Draft.objects.create(
        owner=owner,
        name=version.bot.name,
        filename=_runtime_filename(version),
        source=source,
        started_from=version,
    )


def _runtime_filename(version: BotVersion) -> str:
    """The name the version was uploaded under when it tells its runtime (``shark.py``),
    else the runtime's main file (an upload named ``bot.txt`` with its runtime chosen)."""
    try:
        if runtime_for_file(version.filename).id == version.runtime:
            return version.filename
    except ValueError:
        pass
    return RUNTIMES[version.runtime].main


def draft_save(*, draft: Draft, source: str) -> Draft:
    """Keep the editor's text; refused (nothing saved) above the upload size limit."""
    size = len(source.encode("utf-8"))
    if size:  # an empty draft may be kept; a test game or a submit refuses it
        check_upload_size(draft.filename, size, upload_limits())
    draft.source = source
    draft.save(update_fields=["source", "updated_at"])
    return draft


def draft_delete(*, draft: Draft) -> None:
    """Forget a draft; its test games stay (their matches are the ladder's history)."""
    draft.delete()


def draft_submit(*, draft: Draft) -> BotVersion:
    """Upload the draft as a new version of its bot (a new bot if it has none), exactly
    as an upload of its file: checked, stored, entered (its pre-flights queued by
    :mod:`arena.ladders.flows`)."""
    return bot_submit(
        owner=draft.owner,
        name=draft.name,
        filename=draft.filename,
        content=draft.source.encode("utf-8"),
    )


# --------------------------------------------------------------------------- test games


def house_opponents(*, ladder: Ladder) -> list[BotVersion]:
    """The house bots' playing versions that passed the ladder's pre-flight, by name."""
    return list(
        BotVersion.objects.filter(
            bot__owner__profile__is_house=True,
            status=VersionStatus.ACTIVE,
            qualifications__ladder=ladder,
            qualifications__status=QualificationStatus.PASSED,
        )
        .select_related("bot")
        .order_by("bot__name")
    )


def _check_quota(user: User) -> None:
    limit = settings.ARENA_EDITOR_TEST_GAMES_PER_HOUR
    since = timezone.now() - timedelta(hours=1)
    recent = TestGame.objects.filter(owner=user, created_at__gte=since)
    if recent.count() >= limit:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        wait = (
            "" if oldest is None else f" Try again after {oldest + timedelta(hours=1):%H:%M} UTC."
        )
        raise TestGameQuotaError(f"you ran {limit} test games in the last hour, the limit.{wait}")


def draft_run_test_game(
    *,
    draft: Draft,
    ladder: Ladder,
    opponents: Sequence[Bot],
    rng: random.Random | None = None,
) -> TestGame:
    """One unrated game of the draft's code on ``ladder``'s game against house bots.

    ``opponents`` (1 to seats - 1 house bots) take the other seats, in turn
    when there are fewer of them than seats; the draft's seat is drawn. The
    code is checked as an upload is (a refusal says what to fix and stores
    nothing); its build and the game run on a worker
    (:func:`arena.ladders.flows.draft_run_test_game` queues them).
    """
    rng = rng or random.Random()
    if not ladder.is_open:
        raise TestGameError(f"{ladder.slug} is closed: choose an open ladder's game.")
    chosen = list(dict.fromkeys(opponents))
    if not 1 <= len(chosen) <= ladder.seats - 1:
        raise TestGameError(
            f"{ladder.slug} seats {ladder.seats}: choose 1 to {ladder.seats - 1} house bots "
            "to play against."
        )
    playing = {version.bot_id: version for version in house_opponents(ladder=ladder)}
    missing = [bot.name for bot in chosen if bot.pk not in playing]
    if missing:
        known = ", ".join(version.bot.name for version in playing.values()) or "none yet"
        raise TestGameError(
            f"{', '.join(missing)}: no house bot playing on {ladder.slug}; choose among {known}."
        )
    checked = check_upload(draft.filename, draft.source.encode("utf-8"), upload_limits())
    others = [playing[chosen[i % len(chosen)].pk] for i in range(ladder.seats - 1)]
    with transaction.atomic():
        User.objects.select_for_update().get(pk=draft.owner_id)  # one quota check at a time
        _check_quota(draft.owner)
        check_builds_in_flight(draft.owner)
        build = workbench_build_store(
            owner=draft.owner, name=draft.name, checked=checked, filename=draft.filename
        )
        test_game = TestGame.objects.create(
            owner=draft.owner,
            draft=draft,
            ladder=ladder,
            build=build,
            opponents=[version.pk for version in others],
            seat=rng.randrange(ladder.seats),
        )
    return test_game


def test_game_build(*, test_game: TestGame) -> Match | None:
    """The worker's part: build the test build if it is not built, then create its match.

    Returns the match, queued, for the worker to play at once; None when there
    is none to play. A build that fails ends the test game (its report is the
    build's); a failure of ours raises InfrastructureError with the build put
    back to pending. Delivered twice, the second call finds the match and
    returns None.
    """
    if test_game.match_id is not None:
        return None
    build = workbench_build_make(version=test_game.build)
    if build.status not in (VersionStatus.ACTIVE, VersionStatus.RETIRED):
        return None  # failed (the report says why), or another worker builds it
    with transaction.atomic():
        locked = TestGame.objects.select_for_update().select_related("ladder").get(pk=test_game.pk)
        if locked.match_id is not None:
            return None
        by_pk = BotVersion.objects.in_bulk(locked.opponents)
        versions = [by_pk[pk] for pk in locked.opponents]
        versions.insert(locked.seat, build)
        locked.match = match_create(
            ladder_id=locked.ladder_id,
            game=locked.ladder.game,
            versions=versions,
            rated=False,
            # An earlier test build of the same code is retired by a newer one: still built.
            allow_retired=True,
        )
        locked.save(update_fields=["match"])
    return locked.match
