"""The ladders' writes that work follows: each calls its service, then queues the tasks
the write made due, once it commits.

A bot's path: :func:`bot_submit` (or :func:`version_submit`) stores the upload and
enters it -> ``tasks.version_qualify`` pre-flights it -> beat's
``tasks.ladders_fill_queues`` picks its series -> ``tasks.match_run`` plays them ->
``tasks.ratings_apply_match`` rates each game. Services never queue their app's
tasks, so that they stay below them (tasks call services); the API, the pages, the
admin and the management commands call these.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from arena.bots.models import Bot, BotVersion, Draft, TestGame, Visibility
from arena.matches.services import runs_to_publish
from arena.players.models import Team, User
from arena.queueing import publish_on_commit

from . import services
from .models import DEFAULT_SERIES_GAMES, Challenge, Entry, Ladder
from .selectors import versions_awaiting_preflight
from .services import challenges, editor, entries
from .tasks import play_test_game, publish_preflights, publish_runs


def _queue_preflights(bot_ids: Iterable[int]) -> None:
    publish_preflights(versions_awaiting_preflight(bot_ids=bot_ids))


def _house_bot_ids() -> list[int]:
    return list(Bot.objects.filter(owner__profile__is_house=True).values_list("pk", flat=True))


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
    """Upload a bot's code and enter it (:func:`.entries.bot_submit`); its pre-flights
    are queued."""
    version = entries.bot_submit(
        owner=owner,
        name=name,
        filename=filename,
        content=content,
        visibility=visibility,
        ladders=ladders,
        runtime=runtime,
        team=team,
    )
    _queue_preflights([version.bot_id])
    return version


def version_submit(
    *,
    bot: Bot,
    filename: str,
    content: bytes,
    ladders: Sequence[Ladder] | None = None,
    runtime: str | None = None,
) -> BotVersion:
    """A new version of ``bot`` (:func:`.entries.version_submit`); its pre-flights are
    queued."""
    version = entries.version_submit(
        bot=bot, filename=filename, content=content, ladders=ladders, runtime=runtime
    )
    _queue_preflights([bot.pk])
    return version


def bot_submit_by_slugs(
    *,
    owner: User,
    name: str,
    filename: str,
    content: bytes,
    visibility: Visibility,
    ladders: Sequence[str] | None,
    runtime: str | None,
    team: Team | None = None,
) -> BotVersion:
    """:func:`bot_submit` with the ladders named by slug: ``POST /api/bots/``'s (the URL
    map gives it to ``arena.bots.apis.BotListApi``)."""
    return bot_submit(
        owner=owner,
        name=name,
        filename=filename,
        content=content,
        visibility=visibility,
        ladders=None if ladders is None else entries.ladders_from_slugs(ladders),
        runtime=runtime,
        team=team,
    )


def version_submit_by_slugs(
    *,
    bot: Bot,
    filename: str,
    content: bytes,
    ladders: Sequence[str] | None,
    runtime: str | None,
) -> BotVersion:
    """:func:`version_submit` with the ladders named by slug: ``POST
    /api/bots/<id>/versions/``'s (given to ``arena.bots.apis.BotVersionListApi``)."""
    return version_submit(
        bot=bot,
        filename=filename,
        content=content,
        ladders=None if ladders is None else entries.ladders_from_slugs(ladders),
        runtime=runtime,
    )


def draft_submit(*, draft: Draft) -> BotVersion:
    """Upload a draft as its bot's new version (:func:`.editor.draft_submit`)."""
    version = editor.draft_submit(draft=draft)
    _queue_preflights([version.bot_id])
    return version


def entries_set(*, bot: Bot, ladders: Sequence[Ladder]) -> list[Entry]:
    """Enter ``bot`` on exactly ``ladders`` (:func:`.entries.entries_set`); the pre-flights
    of the ladders it enters are queued."""
    entered = entries.entries_set(bot=bot, ladders=ladders)
    _queue_preflights([bot.pk])
    return entered


def queue_preflights(bot_ids: Iterable[int]) -> None:
    """Queue the pending pre-flights of these bots' versions once the write commits: for
    an app above that entered them on a ladder (a competition's admission)."""
    _queue_preflights(bot_ids)


def house_bot_enter_everywhere(*, bot: Bot) -> None:
    """A house bot enters every open ladder; its pre-flights there are queued."""
    entries.house_bot_enter_everywhere(bot=bot)
    _queue_preflights([bot.pk])


def house_bots_enter(*, ladder: Ladder) -> None:
    """Every house bot enters a new ladder (one the admin made); pre-flights queued."""
    entries.house_bots_enter(ladder=ladder)
    _queue_preflights(_house_bot_ids())


def ladder_create(
    *,
    slug: str,
    name: str,
    rules: str,
    seats: int,
    options: Mapping[str, object] | None = None,
    time_per_decision_ms: int = 1000,
    time_bank_ms: int = 10_000,
    memory_mb: int = 256,
    duplicate_deals: bool | None = None,
    series_games: int = DEFAULT_SERIES_GAMES,
) -> Ladder:
    """A new ladder (:func:`.services.ladder_create`); the house bots' pre-flights there
    are queued, so it plays from the start."""
    ladder = services.ladder_create(
        slug=slug,
        name=name,
        rules=rules,
        seats=seats,
        options=options,
        time_per_decision_ms=time_per_decision_ms,
        time_bank_ms=time_bank_ms,
        memory_mb=memory_mb,
        duplicate_deals=duplicate_deals,
        series_games=series_games,
    )
    _queue_preflights(_house_bot_ids())
    return ladder


def _queue_challenge(challenge: Challenge) -> Challenge:
    publish_runs(runs_to_publish(list(challenge.matches.order_by("pk"))))
    return challenge


def challenge_create(
    *,
    user: User,
    bot: Bot,
    ladder: Ladder,
    opponents: Sequence[Bot] = (),
    games: int = 1,
    rng: random.Random | None = None,
) -> Challenge:
    """Challenge games (:func:`.challenges.challenge_create`), their matches queued."""
    return _queue_challenge(
        challenges.challenge_create(
            user=user, bot=bot, ladder=ladder, opponents=opponents, games=games, rng=rng
        )
    )


def version_challenge_create(
    *,
    user: User,
    version: BotVersion,
    ladder: Ladder,
    opponent: BotVersion | None = None,
    games: int | None = None,
    rng: random.Random | None = None,
) -> Challenge:
    """A version against another (:func:`.challenges.version_challenge_create`), its
    matches queued."""
    return _queue_challenge(
        challenges.version_challenge_create(
            user=user, version=version, ladder=ladder, opponent=opponent, games=games, rng=rng
        )
    )


def draft_run_test_game(
    *,
    draft: Draft,
    ladder: Ladder,
    opponents: Sequence[Bot],
    rng: random.Random | None = None,
) -> TestGame:
    """A test game of a draft (:func:`.editor.draft_run_test_game`), queued for a builds
    worker."""
    test_game = editor.draft_run_test_game(draft=draft, ladder=ladder, opponents=opponents, rng=rng)
    publish_on_commit(play_test_game, test_game.pk)
    return test_game
