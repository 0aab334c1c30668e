"""The API's credit of a bot: its id, its name, its owner and its team, the same four
fields wherever an output names a bot (entries, seats, standings, challenges)."""

from __future__ import annotations

from rest_framework import serializers

TEAM_HELP = "The team owning the bot, or null: its owner's alone."

BotCreditFields = tuple[
    serializers.IntegerField, serializers.CharField, serializers.CharField, serializers.CharField
]


def bot_credit_fields(path: str) -> BotCreditFields:
    """``bot_id, bot, owner, team = bot_credit_fields("entry.bot")`` in a serializer's body:
    the fields of the bot found at ``path`` from the serialized object."""
    return (
        serializers.IntegerField(source=f"{path}.id"),
        serializers.CharField(source=f"{path}.name"),
        serializers.CharField(source=f"{path}.owner.username"),
        serializers.CharField(
            source=f"{path}.team.name", allow_null=True, default=None, help_text=TEAM_HELP
        ),
    )
