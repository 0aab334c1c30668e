"""What the leagues tell authors (``arena.notifications``): a round's results, to the
owner of each bot that played in it. Called by :mod:`.tasks` after the round closed."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from arena.notifications.flows import notify
from arena.notifications.kinds import EventKind
from arena.notifications.links import site_link
from arena.players.models import User

from .models import LeagueRound, LeagueStanding, RoundStatus


def rounds_closed(*, at: datetime) -> int:
    """Tell of every round closed at ``at`` (a sweep closes rounds at its own time); returns
    how many rounds. Keyed per round and author: a tick run twice tells once."""
    rounds = LeagueRound.objects.filter(status=RoundStatus.FINISHED, finished_at=at).select_related(
        "league"
    )
    count = 0
    for rnd in rounds:
        _round_closed(rnd)
        count += 1
    return count


def _round_closed(rnd: LeagueRound) -> None:
    league = rnd.league
    standings = list(
        LeagueStanding.objects.filter(league=league)
        .select_related("entry__bot__owner")
        .order_by("position")
    )
    total = len(standings)
    by_owner: dict[int, list[LeagueStanding]] = defaultdict(list)
    owners: dict[int, User] = {}
    for line in standings:
        owner = line.entry.bot.owner
        by_owner[owner.pk].append(line)
        owners[owner.pk] = owner
    rounds = league.rounds.count()
    for owner_id, lines in by_owner.items():
        places = ", ".join(
            f"{line.entry.bot.name} {line.position} of {total} ({line.points:g} points)"
            for line in lines
        )
        subject = f"{league.name}: round {rnd.number} of {rounds} closed"
        notify(
            user=owners[owner_id],
            kind=EventKind.LEAGUE_ROUND,
            key=f"league-round:{rnd.pk}",
            subject=subject,
            text=(
                f"{subject}. After it: {places}.\n"
                f"Standings: {site_link('web:league', slug=league.slug)}"
            ),
            payload={
                "league": league.slug,
                "round": rnd.number,
                "rounds": rounds,
                "league_status": league.status,
                "standings": [
                    {
                        "bot": line.entry.bot_id,
                        "bot_name": line.entry.bot.name,
                        "position": line.position,
                        "points": line.points,
                    }
                    for line in lines
                ],
                "entrants": total,
            },
        )
