"""Forms of the browser editor's pages (arena.web.editor_views)."""

from __future__ import annotations

import functools
from typing import Any

from django import forms

from arena.bots.models import Bot, BotVersion, CodeFormat, bot_name_validator
from arena.bots.selectors import house_bots
from arena.ladders.levels import level_bots
from arena.ladders.models import Ladder
from bots_sdk.kits import KITS

from .forms import open_ladders_query, opponent_label


class StartFromKitForm(forms.Form):
    name = forms.CharField(
        label="Bot name",
        max_length=40,
        validators=[bot_name_validator],
        help_text="One of your bots gets a new version when you submit; a new name creates a bot.",
        widget=forms.TextInput(attrs={"list": "my-bots", "autocomplete": "off"}),
    )
    lang = forms.ChoiceField(
        label="Language", choices=[(kit.lang, kit.title) for kit in KITS.values()]
    )


class StartFromVersionForm(forms.Form):
    version = forms.ModelChoiceField(
        queryset=BotVersion.objects.none(),
        empty_label=None,
        label="Version",
        help_text="A single-file version; a .zip of several files is edited on your machine.",
    )

    def __init__(self, *args: Any, versions: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["version"]
        field.queryset = versions  # type: ignore[attr-defined]
        field.label_from_instance = _version_label  # type: ignore[attr-defined]


def _version_label(version: BotVersion) -> str:
    shown = f"{version.bot.name} v{version.number} · {version.get_status_display().lower()}"
    if version.code_format == CodeFormat.ZIP:
        return f"{shown} · .zip (not editable here)"
    return f"{shown} · {version.filename or version.get_runtime_display()}"


class DraftSourceForm(forms.Form):
    source = forms.CharField(
        label="Code", required=False, strip=False, widget=forms.Textarea(attrs={"rows": 24})
    )


class TestGameForm(forms.Form):
    __test__ = False  # not a pytest test class

    ladder = forms.ModelChoiceField(
        queryset=Ladder.objects.none(),
        empty_label=None,
        help_text="Its rule system, seats and limits are the game's.",
    )
    opponents = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label="Against",
        help_text="1 to seats - 1 house bots; they take the other seats in turn.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ladder"].queryset = open_ladders_query()  # type: ignore[attr-defined]
        self.fields["opponents"].queryset = house_bots()  # type: ignore[attr-defined]
        # The house bots are the levels: listed by number and title, as everywhere.
        label = functools.partial(opponent_label, levels=level_bots())
        self.fields["opponents"].label_from_instance = label  # type: ignore[attr-defined]
