"""Each match keeps its game and limits (copied from its ladder), and forfeits name the
referee's exact fault kind."""

from typing import Any

from django.db import migrations, models

# The causes before this migration, as the nearest exact kind (the logs keep the exact one).
OLD_CAUSES = {
    "crash": "crashed",
    "protocol": "garbage",
    "memory": "out_of_memory",
}
GAME_FIELDS = ("rules", "seats", "options", "time_per_decision_ms", "time_bank_ms", "memory_mb")


def copy_games(apps: Any, schema_editor: Any) -> None:
    Ladder = apps.get_model("ladders", "Ladder")
    Match = apps.get_model("matches", "Match")
    Participant = apps.get_model("matches", "Participant")
    for ladder in Ladder.objects.all():
        Match.objects.filter(ladder=ladder).update(
            **{name: getattr(ladder, name) for name in GAME_FIELDS}
        )
    for old, new in OLD_CAUSES.items():
        Participant.objects.filter(forfeit=old).update(forfeit=new)


def restore_causes(apps: Any, schema_editor: Any) -> None:
    Participant = apps.get_model("matches", "Participant")
    for old, new in OLD_CAUSES.items():
        Participant.objects.filter(forfeit=new).update(forfeit=old)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0004_match_deal"),
        ("ladders", "0003_ladder_duplicate_deals"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="rules",
            field=models.CharField(
                default="", help_text="Rule system id of the engine.", max_length=32
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="match",
            name="seats",
            field=models.PositiveSmallIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="match",
            name="options",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="match",
            name="time_per_decision_ms",
            field=models.PositiveIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="match",
            name="time_bank_ms",
            field=models.PositiveIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="match",
            name="memory_mb",
            field=models.PositiveIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="participant",
            name="forfeit",
            field=models.CharField(
                blank=True,
                choices=[
                    ("startup_timeout", "Too slow to start"),
                    ("bad_handshake", "Bad handshake"),
                    ("crashed", "Crashed"),
                    ("exited", "Exited"),
                    ("out_of_memory", "Out of memory"),
                    ("closed_stdout", "Closed its output"),
                    ("closed_stdin", "Closed its input"),
                    ("timeout", "Ran out of time"),
                    ("time_bank_exhausted", "Time bank exhausted"),
                    ("line_too_long", "Line too long"),
                    ("output_limit", "Too much output"),
                    ("garbage", "Protocol error"),
                    ("illegal_action", "Illegal action"),
                ],
                max_length=32,
            ),
        ),
        migrations.RunPython(copy_games, restore_causes),
    ]
