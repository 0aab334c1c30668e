"""Input forms of the pages: they parse and check input; services do the writing."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from django import forms
from django.contrib.auth import password_validation
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_duration
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe

from arena.bots.models import Bot, Runtime, Visibility
from arena.bots.selectors import may_manage_bot
from arena.ladders.models import Ladder
from arena.leagues.models import LeagueFormat, LeagueVisibility
from arena.leagues.selectors import EntryCandidate
from arena.leagues.services import DEFAULT_MAX_TABLES
from arena.players.models import Team, User
from bots_sdk.levels import Level


class SignUpForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        help_text="Letters, digits and @ . + - _ only. Shown on the ladders.",
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        required=False,
        help_text="Optional: notifications are e-mailed once you follow the link sent to it.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        password, again = data.get("password1"), data.get("password2")
        if password and again and password != again:
            self.add_error("password2", "The two passwords differ.")
        elif password:
            # The validators compare the password with the username and email.
            candidate = User(username=data.get("username", ""), email=data.get("email", ""))
            try:
                password_validation.validate_password(password, candidate)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return data


class UploadForm(forms.Form):
    name = forms.CharField(
        label="Bot name",
        max_length=40,
        help_text="An existing bot of yours gets a new version; a new name creates a bot.",
        widget=forms.TextInput(attrs={"list": "my-bots", "autocomplete": "off"}),
    )
    visibility = forms.ChoiceField(
        choices=Visibility.choices,
        initial=Visibility.PUBLIC,
        required=False,
        help_text="For a new bot. Private bots play no ladder matches and only you see them.",
    )
    file = forms.FileField(
        label="Code",
        help_text="One source file (.py, .js, .c, .cpp, .java, .rs, .go), or a .zip with its "
        "main file (main.py, main.c, ...) at the top level.",
        widget=forms.ClearableFileInput(
            attrs={"accept": ".py,.js,.c,.cpp,.cc,.cxx,.java,.rs,.go,.zip"}
        ),
    )
    runtime = forms.ChoiceField(
        label="Language",
        choices=[("", "From the file"), *Runtime.choices],
        required=False,
        help_text="Found from the file's name or the zip's main file; choose it when they "
        "do not tell.",
    )
    ladders = forms.ModelMultipleChoiceField(
        queryset=Ladder.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="The ladders it plays: this version plays a pre-flight game of each, and "
        "plays where it passed.",
    )
    team = forms.ModelChoiceField(
        queryset=Team.objects.none(),
        required=False,
        empty_label="None: the bot is yours alone",
        help_text="One of your teams: the upload is the team's bot of that name, which "
        "every member works on.",
    )

    def __init__(self, *args: Any, teams: QuerySet[Team] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ladders"].queryset = open_ladders_query()  # type: ignore[attr-defined]
        if teams is None or not teams.exists():
            del self.fields["team"]  # no team: nothing to choose
        else:
            self.fields["team"].queryset = teams  # type: ignore[attr-defined]

    def clean_visibility(self) -> str:
        return self.cleaned_data["visibility"] or Visibility.PUBLIC

    def clean_ladders(self) -> list[Ladder] | None:
        """The ladders chosen; None on a platform without open ladders (nothing to choose)."""
        ladders = list(self.cleaned_data["ladders"])
        if not ladders and self.fields["ladders"].queryset.exists():  # type: ignore[attr-defined]
            raise forms.ValidationError(
                "Choose at least one ladder: a bot plays only on the ladders it enters."
            )
        return ladders or None


def open_ladders_query() -> Any:
    return Ladder.objects.filter(is_open=True, restricted=False).order_by("rules", "seats", "slug")


class EntriesForm(forms.Form):
    ladders = forms.ModelMultipleChoiceField(
        queryset=Ladder.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        required=True,
        error_messages={"required": "Choose at least one ladder."},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ladders"].queryset = open_ladders_query()  # type: ignore[attr-defined]


def _attrs_html(attrs: dict[str, Any]) -> str:
    """``attrs`` as Django's widgets/attrs.html writes them."""
    return "".join(
        ""
        if value is False
        else f" {conditional_escape(name)}"
        if value is True
        else f' {conditional_escape(name)}="{escape(value)}"'
        for name, value in attrs.items()
    )


class ManyOptions:
    """A select or a list of check boxes written in Python, exactly as Django's widget
    templates write it (their includes' line ends too): the forms offer hundreds of bots,
    and a template include per option cost most of the page. test_web_forms compares
    the markup with Django's."""

    def _render(
        self, template_name: str, context: dict[str, Any], renderer: Any = None
    ) -> SafeString:
        widget = context["widget"]
        if isinstance(self, forms.CheckboxSelectMultiple):
            return mark_safe(self._boxes_html(widget))
        assert isinstance(self, forms.Select), "ManyOptions writes selects and check boxes"
        return mark_safe(self._select_html(widget))

    @staticmethod
    def _select_html(widget: dict[str, Any]) -> str:
        name = conditional_escape(widget["name"])
        parts = [f'<select name="{name}"{_attrs_html(widget["attrs"])}>']
        for group, options, _ in widget["optgroups"]:
            if group:
                parts.append(f'\n  <optgroup label="{conditional_escape(group)}">')
            parts.extend(
                f'\n  <option value="{escape(option["value"])}"{_attrs_html(option["attrs"])}>'
                f"{conditional_escape(option['label'])}</option>\n"
                for option in options
            )
            if group:
                parts.append("\n  </optgroup>")
        parts.append("\n</select>")
        return "".join(parts)

    @staticmethod
    def _boxes_html(widget: dict[str, Any]) -> str:
        attrs = widget["attrs"]
        parts = ["<div"]
        if attrs.get("id"):
            parts.append(f' id="{conditional_escape(attrs["id"])}"')
        if attrs.get("class"):
            parts.append(f' class="{conditional_escape(attrs["class"])}"')
        parts.append(">")
        for group, options, _ in widget["optgroups"]:
            if group:
                parts.append(f"\n  <div><label>{conditional_escape(group)}</label>")
            for option in options:
                value = option["value"]
                kind, name = conditional_escape(option["type"]), conditional_escape(option["name"])
                box = (
                    f'<input type="{kind}" name="{name}"'
                    + ("" if value is None else f' value="{escape(value)}"')
                    + f"{_attrs_html(option['attrs'])}>\n"
                )
                if option["wrap_label"]:
                    label_for = option["attrs"].get("id")
                    opening = (
                        f'<label for="{conditional_escape(label_for)}">' if label_for else "<label>"
                    )
                    box = f"{opening}{box} {conditional_escape(option['label'])}</label>"
                parts.append(f"<div>\n    {box}\n\n</div>")
            if group:
                parts.append("\n  </div>")
        parts.append("\n</div>")
        return "".join(parts)


class BotsSelect(ManyOptions, forms.SelectMultiple):
    """Bots to choose from: hundreds of options."""


class BotSelect(ManyOptions, forms.Select):
    """A bot to choose: hundreds of options."""


class ChallengeForm(forms.Form):
    ladder = forms.ModelChoiceField(
        queryset=Ladder.objects.none(), empty_label=None, help_text="The game to play."
    )
    opponents = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.none(),
        widget=BotsSelect,
        required=False,
        help_text="Bots to meet (Ctrl-click for several): the levels first, weakest first; "
        "random players of the ladder fill the other seats.",
    )
    games = forms.IntegerField(min_value=1, initial=1)

    def __init__(
        self,
        *args: Any,
        opponents: Any,
        max_games: int,
        levels: Mapping[int, Level] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ladder"].queryset = open_ladders_query()  # type: ignore[attr-defined]
        field = self.fields["opponents"]
        field.queryset = opponents  # type: ignore[attr-defined]
        # Names are unique per owner only: say whose bot it is, or which level.
        field.label_from_instance = functools.partial(opponent_label, levels=levels or {})  # type: ignore[attr-defined]
        # The service says what is wrong with too many; the browser already stops at max.
        self.fields["games"].widget.attrs["max"] = max_games


class VersionChallengeForm(forms.Form):
    """The verdict line's button: a challenge of a version against its parent on a ladder."""

    ladder = forms.ModelChoiceField(queryset=Ladder.objects.all())
    #: The number of the version to meet: the line's predecessor.
    opponent = forms.IntegerField(min_value=1)


def opponent_label(bot: Bot, *, levels: Mapping[int, Level]) -> str:
    """A bot as an opponent is listed: a level by its number and title, others by owner."""
    level = levels.get(bot.pk)
    if level is not None:
        return f"Level {level.number}: {level.title} ({bot.name})"
    return f"{bot.name} ({bot.owner.username})"


# --------------------------------------------------------------------------- leagues

_INTERVAL_UNITS = {
    "w": timedelta(weeks=1),
    "wk": timedelta(weeks=1),
    "week": timedelta(weeks=1),
    "d": timedelta(days=1),
    "day": timedelta(days=1),
    "h": timedelta(hours=1),
    "hr": timedelta(hours=1),
    "hour": timedelta(hours=1),
    "m": timedelta(minutes=1),
    "min": timedelta(minutes=1),
    "minute": timedelta(minutes=1),
}
_INTERVAL_PART = re.compile(r"(\d+)\s*([a-z]+?)s?(?![a-z])")
_INTERVAL_HINT = 'e.g. "1 day", "6 hours", "1 day 12 hours" or "30 minutes"'


class IntervalField(forms.CharField):
    """A duration in words ("1 day", "6 hours", "1d 12h") or as the API writes it ("1 00:00:00")."""

    def to_python(self, value: Any) -> timedelta | None:  # type: ignore[override]
        raw = str(value or "").strip()
        text = raw.lower()
        if not text:
            return None
        # A bare number would be seconds to parse_duration: only clock or ISO forms go there.
        iso = text.startswith("p")
        parsed = parse_duration(raw.upper() if iso else raw) if ":" in text or iso else None
        if parsed is not None:
            return parsed
        parts = _INTERVAL_PART.findall(text)
        leftover = re.sub(r"[\s,]+|\band\b", "", _INTERVAL_PART.sub("", text))
        if not parts or leftover or any(unit not in _INTERVAL_UNITS for _, unit in parts):
            raise forms.ValidationError(
                f"{value!r} is not a duration: write a number and a unit, {_INTERVAL_HINT}."
            )
        return sum((int(n) * _INTERVAL_UNITS[unit] for n, unit in parts), timedelta())


class PointsField(forms.CharField):
    """Numbers separated by commas ("3, 2, 1, 0"); the leagues services judge them."""

    def to_python(self, value: Any) -> list[float] | None:  # type: ignore[override]
        text = str(value or "").strip()
        if not text:
            return None
        try:
            return [float(part) for part in re.split(r"[\s,;/]+", text) if part]
        except ValueError:
            raise forms.ValidationError(
                f"{text!r} is not a list of numbers: write one per rank separated by commas, "
                "e.g. 3, 2, 1, 0."
            ) from None


class UTCDateTimeField(forms.DateTimeField):
    """A date and time read and shown in UTC, whatever time zone is active: the page says UTC."""

    def to_python(self, value: Any) -> datetime | None:
        with timezone.override(UTC):
            return super().to_python(value)

    def prepare_value(self, value: Any) -> Any:
        with timezone.override(UTC):
            return super().prepare_value(value)


class _OptionData:
    """A choice widget whose options carry extra attributes (data-*) for league-form.js."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.option_data: dict[str, dict[str, str]] = {}

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(*args, **kwargs)  # type: ignore[misc]
        option["attrs"] = {**option["attrs"], **self.option_data.get(str(option["value"]), {})}
        return option


class LadderSelect(_OptionData, forms.Select):
    """Each ladder option carries its rule system (data-rules)."""


class EntrantCheckboxes(_OptionData, ManyOptions, forms.CheckboxSelectMultiple):
    """Each bot's box carries the rule systems it has played (data-plays, empty: none yet)."""


def entrant_label(candidate: EntryCandidate, *, user: User, games: bool) -> str:
    """ "shark — yours · classic", "turtle — bob's, invited · classic, boulevard"."""
    bot = candidate.bot
    whose = "yours" if may_manage_bot(user, bot, staff=False) else f"{bot.owner.username}'s"
    if candidate.invited:
        whose += ", invited"
    if not games:
        return f"{bot.name} — {whose}"
    plays = ", ".join(sorted(candidate.rule_systems)) or "no games yet"
    return f"{bot.name} — {whose} · {plays}"


def _entrants(ladder: Ladder) -> str:
    count = getattr(ladder, "entrant_count", None)
    if count is None:
        return ""
    return f", {count} bot{'' if count == 1 else 's'} entered"


#: "Start now": this long after the form is posted, so the start is in the future.
START_NOW_DELAY = timedelta(seconds=5)


class LeagueForm(forms.Form):
    """A new league; league_create checks every setting and entrant and says what to fix."""

    name = forms.CharField(max_length=100, widget=forms.TextInput(attrs={"autofocus": True}))
    slug = forms.SlugField(
        max_length=64,
        help_text="Its address, /leagues/&lt;slug&gt;/: letters, digits, - and _.",
    )
    ladder = forms.ChoiceField(
        widget=LadderSelect,
        help_text="The game (rule system, seats, options) and limits played, from an open ladder.",
    )
    format = forms.ChoiceField(
        choices=LeagueFormat.choices,
        initial=LeagueFormat.ROUND_ROBIN,
        help_text="Round robin: every table of entrants. Swiss: similar scores meet. "
        "Knockout: the top of each table go through to one final table.",
    )
    visibility = forms.ChoiceField(
        choices=LeagueVisibility.choices,
        initial=LeagueVisibility.PRIVATE,
        help_text="Private: seen by you, the entrants' owners and staff. "
        "Public leagues are listed for everyone and organised by staff.",
    )
    start_now = forms.BooleanField(
        required=False,
        label="Start now",
        help_text="The first round starts within a minute or two (at the next sweep); "
        "invited bots play only if their owners accept before then.",
    )
    start_at = UTCDateTimeField(
        label="Start (UTC)",
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text="The first round starts then. In UTC, not your local time.",
    )
    round_interval = IntervalField(
        label="A round every",
        # Short, so that a league started now is over the same day; a weekly club sets more.
        initial="10 minutes",
        help_text=f"The time between two rounds' starts, {_INTERVAL_HINT}.",
    )
    bots = forms.MultipleChoiceField(
        label="Entrants",
        required=False,
        widget=EntrantCheckboxes,
        help_text="Seeded in list order (the first ticked is seed 1). Your bots enter at "
        "once; other players' public bots are invited and play only if their owner accepts "
        "before the start. Each must play the ladder's rule system.",
    )
    games_per_table = forms.IntegerField(
        required=False,
        initial=1,
        help_text="Games each table plays; a multiple of the seats plays every seat equally.",
    )
    duplicate = forms.BooleanField(
        required=False,
        label="Duplicate deals",
        help_text="Each deal's dice are played once per seat rotation by the same bots.",
    )
    rated = forms.BooleanField(
        required=False,
        initial=True,
        label="Rated on the ladder",
        help_text="League games also count on the ladder's Elo (the league's own rating "
        "counts them either way).",
    )
    points_per_rank = PointsField(
        required=False,
        help_text="Points for rank 1, 2, ... separated by commas, e.g. 3, 2, 1, 0. "
        "Empty: N-1 ... 0 for N seats.",
    )
    advance = forms.IntegerField(
        required=False, help_text="Knockout only: how many of each table go through."
    )
    rounds = forms.IntegerField(
        required=False,
        help_text="Swiss: rounds to play (empty: log2 of the entrants, rounded up). "
        "Round robin: the rounds of a balanced design, above the table cap.",
    )
    max_tables = forms.IntegerField(
        required=False,
        initial=DEFAULT_MAX_TABLES,
        label="Table cap",
        help_text="Round robin: above this many tables (combinations of entrants), "
        "a balanced design is played instead.",
    )

    def __init__(
        self,
        *args: Any,
        user: User,
        ladders: Sequence[Ladder],
        candidates: Sequence[EntryCandidate],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.ladders = {ladder.slug: ladder for ladder in ladders}
        self.candidates = {str(c.bot.pk): c for c in candidates}
        ladder_field = cast(forms.ChoiceField, self.fields["ladder"])
        ladder_field.choices = [
            (
                ladder.slug,
                f"{ladder.name} ({ladder.rules}, {ladder.seats} seats{_entrants(ladder)})",
            )
            for ladder in ladders
        ]
        ladder_field.widget.option_data = {
            ladder.slug: {"data-rules": ladder.rules} for ladder in ladders
        }
        bots_field = cast(forms.MultipleChoiceField, self.fields["bots"])
        bots_field.choices = [
            (str(c.bot.pk), entrant_label(c, user=user, games=True)) for c in candidates
        ]
        bots_field.widget.option_data = {
            str(c.bot.pk): {"data-plays": " ".join(sorted(c.rule_systems))} for c in candidates
        }
        if not user.is_staff:
            # Offered to staff only; a public choice posted anyway reaches the service,
            # which says why it refuses it.
            self.fields["visibility"].widget.choices = [
                (LeagueVisibility.PRIVATE, LeagueVisibility.PRIVATE.label)
            ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("start_now") and data.get("start_at") is None and "start_at" in data:
            self.add_error("start_at", "Choose the start time, or tick Start now.")
        return data

    def plan_arguments(self, *, now: datetime) -> dict[str, Any]:
        """The keyword arguments of leagues.services.league_plan, for the calendar's preview
        (after is_valid, whatever the name and slug): the ticked bots are its entrants; "start
        now" is a start just after ``now``, which the services accept as in the future."""
        data = self.cleaned_data
        start_at = now + START_NOW_DELAY if data["start_now"] else data["start_at"]
        return {
            "ladder": self.ladders[data["ladder"]],
            "entrants": len(data["bots"]),
            "format": data["format"],
            "visibility": data["visibility"],
            "start_at": start_at,
            "round_interval": data["round_interval"],
            "games_per_table": 1 if data["games_per_table"] is None else data["games_per_table"],
            "points_per_rank": data["points_per_rank"],
            "advance": data["advance"],
            "rounds": data["rounds"],
            "max_tables": DEFAULT_MAX_TABLES if data["max_tables"] is None else data["max_tables"],
        }

    def league_arguments(self, *, now: datetime) -> dict[str, Any]:
        """The keyword arguments of leagues.services.league_create (after is_valid)."""
        data = self.cleaned_data
        arguments = self.plan_arguments(now=now)
        del arguments["entrants"]
        return {
            **arguments,
            "bots": [self.candidates[bot_id].bot for bot_id in data["bots"]],
            "name": data["name"],
            "slug": data["slug"],
            "duplicate": data["duplicate"],
            "rated": data["rated"],
        }

    def plan_problem(self) -> str | None:
        """What keeps the calendar from being previewed: the first error of a field it
        depends on (the name and slug do not count), or None."""
        for name in PLAN_FIELDS:
            if name in self.errors:
                label = self.fields[name].label or name.replace("_", " ").capitalize()
                return f"{label}: {self.errors[name][0]}"
        return None


#: The fields the calendar's preview reads (LeagueForm.plan_arguments).
PLAN_FIELDS = (
    "ladder",
    "format",
    "visibility",
    "start_now",
    "start_at",
    "round_interval",
    "bots",
    "games_per_table",
    "points_per_rank",
    "advance",
    "rounds",
    "max_tables",
)


def _candidate_choices(candidates: Sequence[EntryCandidate], user: User) -> list[tuple[int, str]]:
    return [(c.bot.pk, entrant_label(c, user=user, games=False)) for c in candidates]


class LeagueEntryAddForm(forms.Form):
    """The organiser enters one more bot before the start."""

    bot = forms.TypedChoiceField(coerce=int, label="Add a bot", widget=BotSelect)

    def __init__(
        self, *args: Any, user: User, candidates: Sequence[EntryCandidate], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.candidates = {c.bot.pk: c for c in candidates}
        cast(forms.ChoiceField, self.fields["bot"]).choices = _candidate_choices(candidates, user)

    def chosen_bot(self) -> Bot:
        return self.candidates[self.cleaned_data["bot"]].bot


class LeagueCancelForm(forms.Form):
    reason = forms.CharField(
        required=False,
        max_length=500,
        label="Reason (optional)",
        help_text="Shown on the league page.",
    )


class LeagueRespondForm(forms.Form):
    """An invited bot's owner answers: the button pressed names the answer."""

    accept = forms.TypedChoiceField(
        choices=[("yes", "Accept"), ("no", "Decline")], coerce=lambda answer: answer == "yes"
    )
