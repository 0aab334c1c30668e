"""What the ladders tell authors (``arena.notifications``): pre-flights decided, challenges
finished, a level beating a bot for the first time. Called by :mod:`.tasks` once the
event is committed; each notification is keyed, so a task delivered twice tells once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db.models import Exists, OuterRef, Q

from arena.bots.models import BotVersion
from arena.matches.models import Match, MatchStatus, Participant
from arena.notifications.flows import notify
from arena.notifications.kinds import EventKind
from arena.notifications.links import site_link
from arena.players.selectors import HOUSE_USERNAME

from .levels import level_bots
from .models import Challenge, Qualification, QualificationStatus

#: A challenge's game in one of these is over.
_OVER = (MatchStatus.FINISHED, MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED)


def _why(report: dict[str, object]) -> str:
    fault = report.get("fault")
    if isinstance(fault, dict) and fault.get("message"):
        return f"{fault.get('cause')}: {fault['message']}"
    errors = report.get("errors")
    if isinstance(errors, list) and errors:
        return "; ".join(str(e) for e in errors)
    return "see the report on the bot's page"


def preflights_decided(*, version: BotVersion, decided: Sequence[Qualification]) -> None:
    """One notification for the pre-flights of ``version`` decided together."""
    if not decided:
        return
    bot = version.bot
    passed = [q for q in decided if q.status == QualificationStatus.PASSED]
    failed = [q for q in decided if q.status == QualificationStatus.FAILED]
    name = f"{bot.name} v{version.number}"
    if failed and not passed:
        subject = f"{name} failed its pre-flight"
    elif failed:
        subject = (
            f"{name} passed its pre-flight on {len(passed)} ladder(s), failed on {len(failed)}"
        )
    else:
        subject = f"{name} passed its pre-flight"
    lines = [f"{subject}."]
    lines += [f"- {q.ladder.name}: passed, it plays there now." for q in passed]
    lines += [f"- {q.ladder.name}: failed ({_why(q.report)})." for q in failed]
    lines.append(f"Details: {site_link('web:bot', bot_id=bot.pk)}")
    notify(
        user=bot.owner,
        kind=EventKind.PREFLIGHT,
        key=f"preflight:{version.pk}:" + ",".join(str(q.pk) for q in decided),
        subject=subject,
        text="\n".join(lines),
        payload={
            "bot": bot.pk,
            "bot_name": bot.name,
            "version": version.pk,
            "version_number": version.number,
            "ladders": {q.ladder.slug: q.status for q in decided},
            "errors": {q.ladder.slug: _why(q.report) for q in failed},
        },
    )


def challenges_check(*, match: Match) -> None:
    """Tell the owners of the challenges ``match`` (and its series) belongs to, once every
    game of theirs is over."""
    series = match.series_id or match.pk
    games = Match.objects.filter(Q(pk=series) | Q(series_id=series)).values("pk")
    for challenge in (
        Challenge.objects.filter(matches__in=games)
        .distinct()
        .select_related("requested_by", "ladder", "bot_version__bot")
    ):
        if challenge.matches.exclude(status__in=_OVER).exists():
            continue
        _challenge_finished(challenge)


def _challenge_finished(challenge: Challenge) -> None:
    version = challenge.bot_version
    matches = list(challenge.matches.order_by("pk").values_list("pk", "status"))
    ranks = dict(
        Participant.objects.filter(
            match_id__in=[pk for pk, _ in matches], bot_version=version
        ).values_list("match_id", "rank")
    )
    played = [ranks[pk] for pk, status in matches if status == MatchStatus.FINISHED]
    firsts = sum(1 for rank in played if rank == 1)
    name = f"{version.bot.name} v{version.number}"
    subject = f"Challenge on {challenge.ladder.name} finished: {name} won {firsts} of {len(played)}"
    unplayed = len(matches) - len(played)
    lines = [f"{subject}."]
    if unplayed:
        lines.append(f"{unplayed} game(s) could not be played.")
    lines.append(f"Details: {site_link('web:challenge', challenge_id=challenge.pk)}")
    text = "\n".join(lines)
    notify(
        user=challenge.requested_by,
        kind=EventKind.CHALLENGE_FINISHED,
        key=f"challenge:{challenge.pk}",
        subject=subject,
        text=text,
        payload={
            "challenge": challenge.pk,
            "ladder": challenge.ladder.slug,
            "version": version.pk,
            "games": [
                {"match": pk, "status": status, "rank": ranks.get(pk)} for pk, status in matches
            ],
            "won": firsts,
            "played": len(played),
        },
    )


def levels_check(*, match_ids: Iterable[int]) -> None:
    """For each rated match just rated: every bot a level finished ahead of, for the first
    time in the rated games of that ladder, is told (its owner is)."""
    levels = level_bots()
    if not levels:
        return
    for match in Match.objects.filter(
        pk__in=list(match_ids), rated=True, status=MatchStatus.FINISHED
    ).select_related("ladder"):
        seats = list(
            Participant.objects.filter(match=match).select_related("bot_version__bot__owner")
        )
        level_seats = [s for s in seats if s.bot_version.bot_id in levels and s.rank is not None]
        for seat in seats:
            bot = seat.bot_version.bot
            if bot.pk in levels or seat.rank is None or bot.owner.username == HOUSE_USERNAME:
                continue
            for level_seat in level_seats:
                if level_seat.rank is None or level_seat.rank >= seat.rank:
                    continue
                level_bot_id = level_seat.bot_version.bot_id
                if _beaten_before(match, bot.pk, level_bot_id):
                    continue
                level = levels[level_bot_id]
                subject = f"Level {level.number} ({level.title}) beat {bot.name} for the first time"
                notify(
                    user=bot.owner,
                    kind=EventKind.LEVEL_BEAT,
                    key=f"level-beat:{bot.pk}:{level_bot_id}:{match.ladder_id}",
                    subject=subject,
                    text=(
                        f"{subject} on {match.ladder.name}: it finished {level_seat.rank}, "
                        f"{bot.name} {seat.rank}.\n"
                        f"The game: {site_link('web:match', match_id=match.pk)}"
                    ),
                    payload={
                        "bot": bot.pk,
                        "version": seat.bot_version_id,
                        "level": level.number,
                        "level_bot": level_bot_id,
                        "ladder": match.ladder.slug,
                        "match": match.pk,
                    },
                )


def _beaten_before(match: Match, bot_id: int, level_bot_id: int) -> bool:
    """Whether the level finished ahead of the bot in an earlier rated game of that ladder."""
    return (
        Participant.objects.filter(
            bot_version__bot_id=bot_id,
            match__ladder_id=match.ladder_id,
            match__rated=True,
            match__status=MatchStatus.FINISHED,
            match__finished_at__lte=match.finished_at,
            rank__isnull=False,
        )
        .exclude(match_id=match.pk)
        .filter(
            Exists(
                Participant.objects.filter(
                    match_id=OuterRef("match_id"),
                    bot_version__bot_id=level_bot_id,
                    rank__lt=OuterRef("rank"),
                )
            )
        )
        .exists()
    )
