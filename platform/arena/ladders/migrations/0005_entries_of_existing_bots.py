"""Bots that played before entries existed keep playing where they did.

Every public bot played on every ladder then: each bot with ratings is
entered on those ladders, and its active version counts as qualified there
(it passed the pre-flight of that time and played since).
"""

from typing import Any

from django.db import migrations


def enter_existing_bots(apps: Any, schema_editor: Any) -> None:
    Rating = apps.get_model("ladders", "Rating")
    Entry = apps.get_model("ladders", "Entry")
    Qualification = apps.get_model("ladders", "Qualification")
    BotVersion = apps.get_model("bots", "BotVersion")
    pairs = set(Rating.objects.values_list("bot_id", "ladder_id"))
    Entry.objects.bulk_create(
        [Entry(bot_id=bot_id, ladder_id=ladder_id) for bot_id, ladder_id in sorted(pairs)],
        ignore_conflicts=True,
    )
    active = dict(BotVersion.objects.filter(status="active").values_list("bot_id", "pk"))
    Qualification.objects.bulk_create(
        [
            Qualification(
                bot_version_id=active[bot_id],
                ladder_id=ladder_id,
                status="passed",
                report={"passed": True, "note": "played there before per-ladder pre-flights"},
            )
            for bot_id, ladder_id in sorted(pairs)
            if bot_id in active
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("ladders", "0004_entry_qualification"),
        ("bots", "0002_initial"),
    ]

    operations = [migrations.RunPython(enter_existing_bots, migrations.RunPython.noop)]
