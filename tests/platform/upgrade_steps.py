"""The steps of the upgrade test, each run in a process of its own on the database its
environment names (DATABASE_URL):

    python -m tests.platform.upgrade_steps old      # migrate to the last release, populate
    python -m tests.platform.upgrade_steps read     # print what today's code reads, as JSON

``old`` writes through the last release's models (Django's historical models of its
migrations), as that release's platform would have: users, a team, bots with versions,
a ladder with entries, finished matches with seats, ratings and their changes.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def old() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.utils import timezone

    from arena.releases import previous_release

    _, leaves = previous_release()
    executor = MigrationExecutor(connection)
    targets = [(app, name) for app, name in leaves.items()]
    # Django's own apps at the newest migrations their release's code knew: the
    # dependencies of the release's targets bring them in.
    executor.migrate(targets)
    apps = executor.loader.project_state(targets).apps
    model = apps.get_model
    now = timezone.now()

    users = [
        model("players", "User").objects.create(username=name, email=f"{name}@example.org")
        for name in ("alice", "bob")
    ]
    team = model("players", "Team").objects.create(
        name="sharks", invite_token="t" * 40, invite_created_at=now
    )
    ladder = model("ladders", "Ladder").objects.create(
        slug="classic-2", name="Classic, 2 seats", rules="classic", seats=2, options={}
    )
    versions = []
    for owner, name in zip(users, ("shark", "minnow"), strict=True):
        bot = model("bots", "Bot").objects.create(
            owner=owner, name=name, team=team if name == "shark" else None
        )
        for number in (1, 2):
            sha = f"{name}{number}".ljust(64, "0")
            versions.append(
                model("bots", "BotVersion").objects.create(
                    bot=bot,
                    number=number,
                    code=f"bots/code/{sha[:2]}/{sha}.py",
                    code_sha256=sha,
                    code_size=100,
                    code_format="file",
                    status="active" if number == 2 else "retired",
                )
            )
        model("ladders", "Entry").objects.create(ladder=ladder, bot=bot)
    players = [versions[1], versions[3]]
    ratings = {
        v.pk: model("ladders", "Rating").objects.create(
            ladder=ladder, bot=v.bot, bot_version=v, rating=1500.0, rated_matches=0
        )
        for v in players
    }
    for seed in range(3):
        match = model("matches", "Match").objects.create(
            ladder=ladder,
            rules="classic",
            seats=2,
            options={},
            time_per_decision_ms=1000,
            time_bank_ms=10000,
            memory_mb=256,
            seed=seed,
            status="finished",
            attempts=1,
            started_at=now,
            finished_at=now,
            rated_at=now,
            log=f"matches/logs/000000/{seed + 1}.json.gz",
        )
        for seat, version in enumerate(players):
            rating = ratings[version.pk]
            before, after = rating.rating, rating.rating + (8 if seat == 0 else -8)
            model("matches", "Participant").objects.create(
                match=match,
                seat=seat,
                bot_version=version,
                money=90_000 - 30_000 * seat,
                rank=seat + 1,
                rating_before=before,
                rating_after=after,
            )
            model("ladders", "RatingChange").objects.create(
                rating=rating,
                match=match,
                rating_before=before,
                rating_after=after,
                k=32.0,
                matches_before=rating.rated_matches,
            )
            rating.rating, rating.rated_matches = after, rating.rated_matches + 1
            rating.save()


def read() -> dict[str, Any]:
    from arena.bots.models import Bot, BotVersion
    from arena.ladders.models import Rating, RatingChange
    from arena.matches.models import Match, Participant

    return {
        "bots": sorted(
            [b.name, b.owner.username, b.team.name if b.team else None]
            for b in Bot.objects.select_related("owner", "team")
        ),
        "versions": sorted(
            [v.bot.name, v.number, v.status, v.code.name]
            for v in BotVersion.objects.select_related("bot")
        ),
        "matches": sorted(
            [m.seed, m.status, m.log.name, m.log_archived] for m in Match.objects.all()
        ),
        "seats": sorted(
            [p.match.seed, p.seat, p.bot_version.bot.name, p.money, p.rank]
            for p in Participant.objects.select_related("match", "bot_version__bot")
        ),
        "ratings": sorted(
            [r.bot.name, r.rating, r.rated_matches, r.deviation is not None and r.deviation > 0]
            for r in Rating.objects.select_related("bot")
        ),
        "rating_changes": RatingChange.objects.count(),
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    import django

    django.setup()
    if sys.argv[1] == "old":
        old()
    else:
        json.dump(read(), sys.stdout)
