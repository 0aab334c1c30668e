"""Formatting filters of the web pages."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import cache
from typing import Any
from urllib.parse import quote

from django import template
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from arena.bots.models import Bot
from arena.bots.selectors import BotCredit, bot_credit
from arena.ladders.elo import PROVISIONAL_DEVIATION
from arena.web.presenters import bot_label as present_bot

register = template.Library()


@register.filter
def money(value: int | None) -> str:
    """50000 -> "$50,000" (the game counts whole dollars)."""
    if value is None:
        return "—"
    return f"${value:,}"


@register.filter
def elo_delta(after: float | None, before: float | None) -> str:
    """The signed, rounded change of a rating: "+12", "-8", "±0"."""
    if after is None or before is None:
        return ""
    change = round(after - before)
    if change == 0:
        return "±0"
    return f"+{change}" if change > 0 else f"-{-change}"


@register.filter
def seat_class(seat: int) -> str:
    return f"seat-{seat % 6}"


@register.filter
def duration(value: timedelta | None) -> str:
    """timedelta(days=1, hours=6) -> "1 day 6 hours", as the new-league form reads it."""
    if value is None:
        return ""
    seconds = int(value.total_seconds())
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'s' if count != 1 else ''}")
    return " ".join(parts) or "0 seconds"


# --------------------------------------------------------------------------- bots


def _owner_link(credit: BotCredit) -> SafeString:
    """The owner linked to their page; the house's bots marked as such."""
    shown = (
        format_html('<span class="badge house" title="A house bot">{}</span>', credit.name)
        if credit.house
        else credit.name
    )
    if credit.team_id is not None:
        return format_html(
            '<a class="owner team" href="{}">{}</a>', _link("web:team", credit.team_id), shown
        )
    return format_html(
        '<a class="owner" href="{}">{}</a>', _link("web:player", credit.username), shown
    )


@register.simple_tag
def bot_label(bot: Bot, *, link: bool = True, version: int | None = None) -> SafeString:
    """``{% bot_label bot %}``, the one way pages show a bot: its name (linked to its page,
    if it has one and ``link``), its version when given, then its owner linked to theirs:
    "my-first-bot v3 · alice". The bot's owner must be loaded with it
    (``select_related("owner")``; ``"owner__profile"`` for the house mark)."""
    label = present_bot(bot)
    name = (
        format_html('<a href="{}">{}</a>', _link("web:bot", label.bot_id), label.name)
        if link and label.has_page
        else label.name
    )
    return format_html(
        '<span class="bot-label">{}{}<span class="bot-by"> · {}</span></span>',
        name,
        format_html(' <span class="muted small">v{}</span>', version) if version else "",
        _owner_link(label.credit),
    )


@register.filter
def bot_text(bot: Bot) -> str:
    """A bot in plain text, for chips and labels: "my-first-bot · alice"."""
    return present_bot(bot).text


# --------------------------------------------------------------------------- leaderboard

#: A stand-in reversed once: the ladder page links 120 bots and owners, and reverse() per
#: link cost a tenth of the page's time.
_MARK = "0123456789"
#: What reverse() leaves unquoted in a path (django.urls.resolvers).
_PATH_SAFE = "!$&'()*+,;=/~:@"


@cache
def _link_parts(viewname: str) -> tuple[str, str]:
    head, tail = reverse(viewname, args=[_MARK]).split(_MARK)
    return head, tail


def _link(viewname: str, value: object) -> str:
    head, tail = _link_parts(viewname)
    return f"{head}{quote(str(value), safe=_PATH_SAFE)}{tail}"


#: The provisional mark's explanation, as web/_elo.html gives it.
_PROVISIONAL_TITLE = f"Provisional: its ± is over {round(PROVISIONAL_DEVIATION)} Elo"


def _elo(rating: Any) -> SafeString:
    """web/_elo.html's output (with the include's line end): "1623 ± 45"."""
    mark = (
        format_html('<abbr class="provisional" title="{}">?</abbr>', _PROVISIONAL_TITLE)
        if rating.is_provisional
        else ""
    )
    return format_html(
        '<span class="elo">{}{} <span class="deviation">± {}</span></span>\n',
        floatformat(rating.rating, 0),
        mark,
        floatformat(rating.deviation, 0),
    )


@register.simple_tag
def provisional_title() -> str:
    """The provisional mark's explanation (web/_elo.html)."""
    return _PROVISIONAL_TITLE


#: The tie mark of a leaderboard's rank: within the noise of the row above.
_TIE_MARK = (
    ' <abbr class="tie" title="Tied with the bot above: their difference is within '
    'the noise of their ratings">≈</abbr>'
)


def _sparkline(trend: Any, points: object) -> SafeString:
    """web/_sparkline.html's output (with the include's line end)."""
    if not trend:
        return mark_safe('<span class="muted">—</span>\n')
    return format_html(
        '<svg class="sparkline trend-{}" width="{}" height="{}" viewBox="0 0 {} {}" '
        'role="img" aria-label="Rating trend over the last {} matches">'
        '<polyline points="{}"/><circle cx="{}" cy="{}" r="2"/></svg>\n',
        trend.trend,
        trend.width,
        trend.height,
        trend.width,
        trend.height,
        points,
        trend.points,
        floatformat(trend.end_x, 1),
        floatformat(trend.end_y, 1),
    )


@register.simple_tag
def owner_cell(bot: Bot) -> SafeString:
    """``{% owner_cell bot %}``: the owner of ``bot`` for an Owner column (see bot_label)."""
    return _owner_link(bot_credit(bot))


@register.simple_tag
def leaderboard_rows(
    rows: Sequence[Any], *, ranked: bool, duplicate_deals: bool, points: object
) -> SafeString:
    """The rows of web/_leaderboard.html's table, as its loop wrote them, written here: a
    page of 60 rows was 1,500 template nodes, two includes and two reverse() a row."""
    games = "Deals" if duplicate_deals else "Games"
    out = []
    for row in rows:
        rating = row.rating
        bot = rating.bot
        rank = format_html(
            '<td class="num rank" data-label="Rank">{}{}</td>',
            row.rank,
            mark_safe(_TIE_MARK) if row.tied else "",
        )
        out.append(
            format_html(
                "\n    <tr>\n      {}\n"
                '      <td data-label="Bot"><a href="{}">{}</a> '
                '<span class="muted small">v{}</span></td>\n'
                '      <td data-label="Owner">{}</td>\n'
                '      <td class="num" data-label="Elo">{}</td>\n'
                '      <td class="num" data-label="{}">{}</td>\n'
                '      <td data-label="Trend">{}</td>\n'
                "    </tr>\n  ",
                rank if ranked else "",
                _link("web:bot", rating.bot_id),
                bot.name,
                rating.bot_version.number,
                _owner_link(bot_credit(bot)),
                _elo(rating),
                games,
                rating.rated_matches,
                _sparkline(row.trend, points),
            )
        )
    return mark_safe("".join(out))  # each row built by format_html, its values escaped


# --------------------------------------------------------------------------- league fixtures


def _fixture_seat(seat: Any) -> SafeString:
    version = seat.entry.bot_version
    rank = seat.result_rank
    return format_html(
        '<span class="seat-tag {}">{}{} · {}{}{}{}</span>',
        seat_class(seat.seat),
        seat.entry.bot.name,
        format_html(' <span class="muted small">v{}</span>', version.number) if version else "",
        bot_credit(seat.entry.bot).name,  # two owners' bots may share a name
        format_html(" · #{} {}", rank, money(seat.result_money)) if rank else "",
        " · forfeit" if seat.result_forfeit else "",
        " ★" if rank == 1 else "",
    )


@register.simple_tag
def fixture_rows(fixtures: Sequence[Any]) -> SafeString:
    """The rows of a round's fixtures table (web/league.html), one per game, written here:
    a page of 16 tables of a big Swiss wrote some 400 seat tags node by node, most of the
    league page's time. ``fixtures`` come with their games and seats prefetched."""
    out = []
    for fixture in fixtures:
        for game in fixture.games.all():
            match = (
                format_html(
                    '<a href="{}">Match #{}</a>', _link("web:match", game.match_id), game.match_id
                )
                if game.match_id
                else mark_safe('<span class="muted">—</span>')
            )
            out.append(
                format_html(
                    "\n<tr>\n"
                    '  <td class="num" data-label="Table">{}</td>\n'
                    '  <td class="num" data-label="Game">{}</td>\n'
                    '  <td class="wide" data-label="Seats">\n    {}\n  </td>\n'
                    '  <td data-label="Result"><span class="badge status-{}">{}</span></td>\n'
                    '  <td data-label="Match">{}</td>\n'
                    "</tr>",
                    fixture.table,
                    game.number + 1,
                    mark_safe("\n    ".join(_fixture_seat(seat) for seat in game.seats.all())),
                    game.status,
                    game.get_status_display().lower(),
                    match,
                )
            )
    return mark_safe("".join(out))  # each piece built by format_html, its values escaped
