"""Forms of the competition pages; the competitions services judge every setting."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from django import forms

import vegas_engine
from arena.competitions.models import Access
from arena.competitions.services import LadderSettings
from arena.leagues.models import LeagueFormat

from .forms import _INTERVAL_HINT, IntervalField, UTCDateTimeField


def _when(label: str, help_text: str) -> UTCDateTimeField:
    return UTCDateTimeField(
        label=f"{label} (UTC)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=help_text,
    )


class CompetitionForm(forms.Form):
    """A new competition (staff, or any player when the platform allows)."""

    title = forms.CharField(max_length=100, widget=forms.TextInput(attrs={"autofocus": True}))
    slug = forms.SlugField(
        max_length=48, help_text="Its address, /competitions/&lt;slug&gt;/: letters, digits, -."
    )
    description = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Markdown: your rules, prizes, who may enter. HTML is shown as text.",
    )
    rules = forms.MultipleChoiceField(
        label="Rule systems",
        choices=[(name, name.capitalize()) for name in vegas_engine.RULE_SYSTEMS],
        initial=["classic"],
        widget=forms.CheckboxSelectMultiple,
        help_text="Each gets its own ladder and final event; a bot enters the one it plays.",
    )
    seats = forms.IntegerField(
        initial=2, min_value=2, help_text="Seats at a table, on every ladder and final table."
    )
    time_per_decision_ms = forms.IntegerField(
        initial=1000, label="Time per decision (ms)", help_text="As on the ladders."
    )
    access = forms.ChoiceField(
        choices=Access.choices,
        initial=Access.PUBLIC,
        help_text="By invitation: only those with the invitation link enter (e.g. a class). "
        "The page shows you the link.",
    )
    entry_opens_at = _when("Entry opens", "The competition's ladder starts playing then too.")
    entry_closes_at = _when("Entry closes", "No new entrant after this.")
    freeze_at = _when(
        "Submission freeze",
        "Each entrant's version active then plays the final; later uploads do not count.",
    )
    final_starts_at = _when("Final event starts", "Its first round, after the freeze.")
    final_format = forms.ChoiceField(
        choices=LeagueFormat.choices,
        initial=LeagueFormat.ROUND_ROBIN,
        help_text="Round robin: every table of entrants. Swiss: similar scores meet. "
        "Knockout: the top of each table go through, shown round by round.",
    )
    round_interval = IntervalField(
        label="A final round every",
        initial="1 hour",
        help_text=f"The time between two rounds of the final, {_INTERVAL_HINT}.",
    )
    games_per_table = forms.IntegerField(
        required=False, help_text="Games at each final table (empty: one per seat)."
    )
    duplicate = forms.BooleanField(
        required=False,
        initial=True,
        label="Duplicate deals",
        help_text="Each deal's dice are played once per seat rotation: luck evens out.",
    )
    advance = forms.IntegerField(
        required=False, help_text="Knockout only: how many of each table go through."
    )
    rounds = forms.IntegerField(
        required=False, help_text="Swiss only: rounds (empty: log2 of the entrants)."
    )

    def competition_arguments(self, *, now: datetime) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "slug": data["slug"],
            "title": data["title"],
            "description": data["description"],
            "ladders": [
                LadderSettings(
                    rules=rules,
                    seats=data["seats"],
                    time_per_decision_ms=data["time_per_decision_ms"],
                )
                for rules in data["rules"]
            ],
            "entry_opens_at": data["entry_opens_at"],
            "entry_closes_at": data["entry_closes_at"],
            "freeze_at": data["freeze_at"],
            "final_starts_at": data["final_starts_at"],
            "final_format": data["final_format"],
            "games_per_table": data["games_per_table"],
            "duplicate": data["duplicate"],
            "advance": data["advance"],
            "rounds": data["rounds"],
            "round_interval": data["round_interval"],
            "access": data["access"],
            "now": now,
        }


class CompetitionEnterForm(forms.Form):
    bot = forms.TypedChoiceField(coerce=int, label="Your bot")
    rules = forms.ChoiceField(label="Rule system", required=False)
    token = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self, *args: Any, bots: list[tuple[int, str]], rules: list[str], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["bot"]).choices = bots
        # Asked only of a competition in several rule systems.
        if len(rules) > 1:
            cast(forms.ChoiceField, self.fields["rules"]).choices = [
                (name, name.capitalize()) for name in rules
            ]
        else:
            del self.fields["rules"]


class CompetitionCancelForm(forms.Form):
    reason = forms.CharField(
        required=False, max_length=500, help_text="Shown on the page, e.g. why it stopped."
    )
