"""The form of the Play page: a game against bots, chosen seat by seat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms

import vegas_engine
from arena.bots.models import Bot
from bots_sdk.levels import Level
from vegas_engine import OptionValue

#: The most seats any rule system has: the form offers a bot for each other seat.
MAX_SEATS = max(max(system.seats) for system in vegas_engine.RULE_SYSTEMS.values())
DEFAULT_RULES = "classic"
#: The bot that takes the seats at first, when it is offered.
DEFAULT_OPPONENT = "greedy"


class BotSelect(forms.Select):
    """A select of bots whose options say which rule systems each plays (``data-plays``,
    empty for all: the house bots), so the page offers only those that play the game."""

    def __init__(self, plays: Mapping[int, str], attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.plays = plays

    def create_option(  # type: ignore[override]  # Django's signature, untyped there
        self, name: str, value: Any, label: Any, selected: Any, index: int, **kwargs: Any
    ) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(
            name, value, label, selected, index, **kwargs
        )
        key = getattr(value, "value", value)
        if key not in ("", None):
            option["attrs"]["data-plays"] = self.plays.get(int(key), "")
        return option


def _option_field(spec: vegas_engine.OptionSpec) -> forms.Field:
    label = spec.name.replace("_", " ").capitalize()
    if spec.is_flag:
        return forms.BooleanField(
            label=label, required=False, initial=spec.default, help_text=spec.doc
        )
    # Not required: only the chosen game's options are sent (the page disables the others).
    return forms.TypedChoiceField(
        label=label,
        coerce=int,
        choices=[(value, str(value)) for value in spec.allowed_values()],
        initial=spec.default,
        required=False,
        empty_value=None,
        help_text=spec.doc,
    )


class TableForm(forms.Form):
    """Rule system, seats, the person's seat, the bots in the others, the game's options."""

    rules = forms.ChoiceField(
        label="Game",
        choices=[(system.id, system.title) for system in vegas_engine.RULE_SYSTEMS.values()],
        initial=DEFAULT_RULES,
    )
    seats = forms.TypedChoiceField(
        label="Seats",
        coerce=int,
        choices=[(n, f"{n} seats") for n in range(2, MAX_SEATS + 1)],
        initial=2,
        help_text="You included.",
    )
    seat = forms.TypedChoiceField(
        label="Your seat",
        coerce=int,
        choices=[(n, f"Seat {n}" + (" (starts)" if n == 0 else "")) for n in range(MAX_SEATS)],
        initial=0,
        help_text="Seat 0 plays first; the start passes left each round.",
    )

    def __init__(
        self,
        *args: Any,
        opponents: Sequence[Bot],
        plays: Mapping[int, set[str]],
        levels: Mapping[int, Level] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        levels = levels or {}
        house = {bot.pk for bot in opponents if getattr(bot, "house", False)}
        default = next((bot for bot in opponents if bot.name == DEFAULT_OPPONENT), None)
        # The levels first, weakest first (the list keeps its order after them).
        last = max((level.number for level in levels.values()), default=0) + 1
        ordered = sorted(
            opponents, key=lambda bot: levels[bot.pk].number if bot.pk in levels else last
        )
        choices = [
            (bot.pk, _bot_label(bot, bot.pk in house, levels.get(bot.pk))) for bot in ordered
        ]
        widget_plays = {
            bot.pk: "" if bot.pk in house else " ".join(sorted(plays.get(bot.pk, ())))
            for bot in opponents
        }
        self.bots = {bot.pk: bot for bot in opponents}
        for number in range(1, MAX_SEATS):
            self.fields[f"bot_{number}"] = forms.TypedChoiceField(
                label=f"Bot {number}",
                coerce=int,
                choices=[("", "—"), *choices],
                required=False,
                empty_value=None,
                initial=default.pk if default else None,
                widget=BotSelect(widget_plays),
            )
        for system in vegas_engine.RULE_SYSTEMS.values():
            for spec in system.options:
                self.fields[f"{system.id}__{spec.name}"] = _option_field(spec)

    def bot_fields(self) -> list[forms.BoundField]:
        return [self[f"bot_{number}"] for number in range(1, MAX_SEATS)]

    def option_groups(self) -> list[tuple[str, str, list[forms.BoundField]]]:
        """(rule system id, its name, its option fields), for a fieldset each."""
        return [
            (
                system.id,
                system.title,
                [self[f"{system.id}__{spec.name}"] for spec in system.options],
            )
            for system in vegas_engine.RULE_SYSTEMS.values()
        ]

    def rules_seats(self) -> dict[str, str]:
        """Each rule system's seat counts, for the page's script."""
        return {
            system.id: " ".join(str(n) for n in system.seats)
            for system in vegas_engine.RULE_SYSTEMS.values()
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        seats = data.get("seats")
        if seats is None:
            return data
        chosen = [data.get(f"bot_{number}") for number in range(1, seats)]
        missing = [number for number, bot in enumerate(chosen, start=1) if bot is None]
        for number in missing:
            self.add_error(f"bot_{number}", f"Choose a bot: {seats} seats need {seats - 1}.")
        unknown = [bot for bot in chosen if bot is not None and bot not in self.bots]
        if unknown:
            self.add_error(None, "Choose bots among those listed.")
        return data

    def table_arguments(self) -> dict[str, Any]:
        """The arguments of ``table_create`` (after ``is_valid``)."""
        data = self.cleaned_data
        rules = data["rules"]
        options: dict[str, OptionValue] = {}
        for spec in vegas_engine.RULE_SYSTEMS[rules].options:
            value = data.get(f"{rules}__{spec.name}")
            options[spec.name] = spec.default if value is None else value
        return {
            "rules": rules,
            "seats": data["seats"],
            "seat": data["seat"],
            "opponents": [self.bots[data[f"bot_{n}"]] for n in range(1, data["seats"])],
            "options": options,
        }


def _bot_label(bot: Bot, house: bool, level: Level | None) -> str:
    if level is not None:
        return f"Level {level.number}: {level.title} ({bot.name})"
    return f"{bot.name} (house)" if house else f"{bot.name} by {bot.owner.username}"
