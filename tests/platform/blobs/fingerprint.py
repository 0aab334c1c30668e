"""What a platform holds, as plain data: run on an original and on its restored copy.

``python -m tests.platform.blobs.fingerprint`` prints it as JSON for the
platform its environment names (DATABASE_URL, STORAGE_BACKEND, MEDIA_ROOT):
the restore test compares the restored platform, read in a process of its
own, with the original read in the test's.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Any


def _sha(field: Any) -> str | None:
    """The file's content (read through the storage), hashed; None if no file is named."""
    if not field:
        return None
    field.open("rb")
    try:
        return hashlib.sha256(field.read()).hexdigest()
    finally:
        field.close()


def _log_sha(match: Any) -> str | None:
    from arena.matches.selectors import match_log_stored

    return hashlib.sha256(match_log_stored(match)).hexdigest() if match.log else None


def fingerprint() -> dict[str, Any]:
    from arena.bots.models import Bot, BotVersion
    from arena.ladders.models import Ladder, Rating
    from arena.matches.models import Match, Participant
    from arena.players.models import User

    return {
        "users": sorted(User.objects.values_list("username", flat=True)),
        "ladders": sorted(Ladder.objects.values_list("slug", flat=True)),
        "bots": sorted([b.name, b.owner.username] for b in Bot.objects.select_related("owner")),
        "versions": sorted(
            [v.bot.name, v.number, v.status, _sha(v.code)]
            for v in BotVersion.objects.select_related("bot")
        ),
        # Read where the platform reads it: the archive storage for an archived log.
        "matches": sorted(
            [m.pk, m.status, m.seed, m.log_archived, _log_sha(m)] for m in Match.objects.all()
        ),
        "seats": sorted(
            [p.match_id, p.seat, p.bot_version_id, p.money, p.rank]
            for p in Participant.objects.all()
        ),
        "ratings": sorted(
            [r.bot.name, r.ladder.slug, r.rating, r.rated_matches]
            for r in Rating.objects.select_related("bot", "ladder")
        ),
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    import django

    django.setup()
    json.dump(fingerprint(), sys.stdout)
