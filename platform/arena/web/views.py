"""Server-rendered pages: thin views calling selectors (reads) and services (writes).

Anyone reads the ladders, public bots and the matches they may see (no
other player's private bot in them); a private bot's page is its owner's
(and staff's); only the owner uploads versions. Validation reports and
stderr are shown to the bot's owner only (and staff, for reports).

Leagues follow the leagues API's rules, through the same selectors: a
league page exists for whom league_get_visible shows it to (others 404);
its organiser and staff pause, resume, cancel and change entrants (others
403); an invited bot's owner answers; a bot's owner, the organiser or
staff withdraw it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Case, QuerySet, Value, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.throttling import SimpleRateThrottle

from arena.bots.models import Bot, BotVersion, CodeFormat, VersionStatus
from arena.bots.selectors import (
    bot_get_visible,
    bot_list_visible,
    bot_owner_label,
    bot_version_get,
    bot_versions,
    draft_of_test_game,
    managed_bots_q,
    may_manage_bot,
    may_read_internals,
    player_bots,
    version_source_lines,
)
from arena.bots.services import BotNameError, BotNameTakenError, upload_limits
from arena.bots.uploads import check_upload_size
from arena.competitions.selectors import bot_placings
from arena.errors import ArenaError
from arena.ladders.elo import PROVISIONAL_DEVIATION
from arena.ladders.flows import bot_submit, challenge_create, entries_set, version_challenge_create
from arena.ladders.levels import BEATEN_MIN_GAMES, level_bots, levels_met
from arena.ladders.models import Ladder
from arena.ladders.selectors import (
    bot_entries,
    bot_rating_history,
    bot_ratings,
    bot_season_placings,
    bot_verdicts,
    bots_active_ratings,
    challenge_get,
    ladder_current_season,
    ladder_get,
    ladder_leaderboard,
    ladder_leaderboard_count,
    ladder_past_seasons,
    rating_trends,
    season_get,
    standing_rows,
    version_qualifications,
)
from arena.ladders.services.challenges import ChallengeError
from arena.leagues.flows import league_resume
from arena.leagues.models import EntryStatus, League, RoundStatus
from arena.leagues.selectors import (
    league_can_manage,
    league_default_ladder,
    league_entries,
    league_entry_can_respond,
    league_entry_can_withdraw,
    league_entry_candidates,
    league_entry_get,
    league_get_visible,
    league_ladders,
    league_list,
    league_page_fixtures,
    league_round_tables,
    league_rounds,
    league_standings,
)
from arena.leagues.services import (
    LeagueEntryError,
    league_cancel,
    league_create,
    league_entry_add,
    league_entry_remove,
    league_entry_respond,
    league_pause,
    league_plan,
)
from arena.matches.models import UNPLAYED
from arena.matches.selectors import (
    bot_latest_seats,
    bot_opponent_records,
    bot_recent_seats,
    ladder_matches_live,
    match_attempts_read,
    match_deal_in_play,
    match_get_visible,
    match_live_read,
    match_log_read,
)
from arena.matches.study import match_study_seats
from arena.pagination import EndNearPaginator
from arena.players.flows import email_verification_request
from arena.players.models import Team, User
from arena.players.selectors import player_get, signed_in, user_teams
from arena.players.services import player_create
from arena.throttling import (
    SignupThrottle,
    TeamUploadThrottle,
    UploadThrottle,
    retry_message,
    throttle_wait,
)
from bots_sdk.kits import KITS, KitError, kit_zip, kit_zip_name

from . import docs, presenters
from .forms import (
    ChallengeForm,
    EntriesForm,
    LeagueCancelForm,
    LeagueEntryAddForm,
    LeagueForm,
    LeagueRespondForm,
    SignUpForm,
    UploadForm,
    VersionChallengeForm,
    open_ladders_query,
)
from .selectors import home_page

LEADERBOARD_PAGE_SIZE = 50
TREND_POINTS = 12
LADDER_LATEST_MATCHES = 10
#: Provisional ratings listed under a ladder's leaderboard, best first.
PROVISIONAL_SHOWN = 50
HISTORY_POINTS = 300
BOT_RECENT_MATCHES = 20
BOT_OPPONENTS = 50
# The record against each opponent covers this many of the bot's latest matches.
BOT_RECORD_MATCHES = 1000
LEAGUES_PAGE_SIZE = 50
# A league page's fixtures, in tables (each of its games a row): a page at a time.
FIXTURES_PAGE_TABLES = 16
# A league page's standings, or its entrants before the start.
LEAGUE_ROWS_PAGE_SIZE = 50
LADDER_QUEUE_SHOWN = 10
# How often pages that follow work in progress ask for news (htmx polling).
LIVE_POLL_SECONDS = 5
VERSION_POLL_SECONDS = 2
WAITING_STATUSES = (VersionStatus.PENDING, VersionStatus.VALIDATING)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    page = home_page()
    rows = {row.ladder.pk: row for row in page.ladders}
    games = [
        {"game": game, "ladders": [rows[ladder.pk] for ladder in game.ladders]}
        for game in presenters.ladders_by_game(row.ladder for row in page.ladders)
    ]
    return render(request, "web/home.html", {"page": page, "games": games})


@require_GET
def kits_page(request: HttpRequest) -> HttpResponse:
    kits = [{"kit": kit, "zip_name": kit_zip_name(kit.lang)} for kit in KITS.values()]
    return render(request, "web/kits.html", {"kits": kits})


@require_GET
def docs_index(request: HttpRequest) -> HttpResponse:
    return render(request, "web/docs_index.html", {"groups": docs.docs_groups()})


@require_GET
def doc_page(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        doc = docs.doc_render(slug)
    except docs.DocMissingError:
        raise Http404("This page's document is not installed on this server.") from None
    if doc is None:
        raise Http404("No such page of the documentation.")
    return render(request, "web/doc.html", {"doc": doc, "groups": docs.docs_groups()})


@require_GET
def kit_download(request: HttpRequest, lang: str) -> HttpResponse:
    """One kit as a zip with its files at the top, ready to edit and upload."""
    try:
        data = kit_zip(lang)
    except KitError as error:
        raise Http404(str(error)) from None
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{kit_zip_name(lang)}"'
    return response


@require_GET
def ladder_detail(request: HttpRequest, slug: str) -> HttpResponse:
    ladder = ladder_get(slug=slug)
    if ladder is None:
        raise Http404("No such ladder.")
    # Settled ratings are ranked; ratings still settling are listed apart, so a
    # newcomer's few lucky games never put it at the top of the ladder.
    page = EndNearPaginator(
        ladder_leaderboard(ladder=ladder, provisional=False),
        LEADERBOARD_PAGE_SIZE,
        count=ladder_leaderboard_count(ladder=ladder, provisional=False),
    ).get_page(request.GET.get("page"))
    ratings = list(page.object_list)
    first = page.start_index()
    # The last row of the page before, so a tie across the pages' edge is marked too.
    above = None
    if first > 1:
        before = ladder_leaderboard(ladder=ladder, provisional=False)[first - 2 : first - 1]
        above = next(iter(before), None)
    settling = list(ladder_leaderboard(ladder=ladder, provisional=True)[:PROVISIONAL_SHOWN])
    trends = rating_trends(rating_ids=[r.pk for r in ratings + settling], points=TREND_POINTS)
    context = {
        "ladder": ladder,
        "page": page,
        "rows": presenters.leaderboard_rows(ratings, trends, first_rank=first, above=above),
        "provisional_rows": presenters.leaderboard_rows(settling, trends, first_rank=1),
        "provisional_deviation": round(PROVISIONAL_DEVIATION),
        "trend_points": TREND_POINTS,
        "season": ladder_current_season(ladder=ladder),
        "past_seasons": list(ladder_past_seasons(ladder=ladder)),
        **_ladder_live_context(request, ladder),
    }
    return render(request, "web/ladder.html", context)


@require_GET
def ladder_season(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """A closed season's final table, as archived at its close."""
    ladder = ladder_get(slug=slug)
    season = None if ladder is None else season_get(ladder=ladder, number=number)
    if ladder is None or season is None or season.standings is None:
        raise Http404("No such season.")
    rows = list(standing_rows(standings=season.standings))
    # The table stays as archived; a bot made private since is named but not linked.
    linked = set(
        bot_list_visible(user=request.user)
        .filter(pk__in=[row.bot_id for row in rows if row.bot_id])
        .values_list("pk", flat=True)
    )
    context = {
        "ladder": ladder,
        "season": season,
        "linked": linked,
        "ranked": [row for row in rows if row.rank is not None],
        "unranked": [row for row in rows if row.rank is None],
        "past_seasons": list(ladder_past_seasons(ladder=ladder)),
        "provisional_deviation": round(PROVISIONAL_DEVIATION),
    }
    return render(request, "web/season.html", context)


def _ladder_live_context(request: HttpRequest, ladder: Ladder) -> dict[str, Any]:
    live = ladder_matches_live(
        ladder_id=ladder.pk,
        user=request.user,
        latest=LADDER_LATEST_MATCHES,
        queued=LADDER_QUEUE_SHOWN,
    )
    return {
        "ladder": ladder,
        "latest_matches": live.latest,
        "queue": live.queue,
        "queue_more": max(0, live.running + live.queued - len(live.queue)),
        "running_count": live.running,
        "queued_count": live.queued,
        "poll_seconds": LIVE_POLL_SECONDS,
    }


@require_GET
def ladder_live(request: HttpRequest, slug: str) -> HttpResponse:
    """The ladder page's queue and latest results, polled by the page (htmx) every few
    seconds: the same fragment the page renders."""
    ladder = ladder_get(slug=slug)
    if ladder is None:
        raise Http404("No such ladder.")
    return render(request, "web/_ladder_live.html", _ladder_live_context(request, ladder))


@require_GET
def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = bot_get_visible(bot_id=bot_id, user=request.user)
    if bot is None:
        raise Http404("No such bot.")
    internals = may_read_internals(request.user, bot)
    # The bot's own people (its owner, its team's members) work on it from its page.
    is_owner = may_manage_bot(request.user, bot, staff=False)
    owner_label, owner_url = bot_owner_label(bot)
    versions = list(bot_versions(bot=bot))
    active = next((v for v in versions if v.status == VersionStatus.ACTIVE), None)
    entered = [entry.ladder for entry in bot_entries(bot=bot)]
    version_ids = [v.pk for v in versions]
    ratings = list(bot_ratings(bot=bot))
    # The latest matches are listed, and the record against each opponent covers more.
    levels = level_bots()
    latest = bot_latest_seats(
        version_ids=version_ids,
        user=request.user,
        limit=max(BOT_RECORD_MATCHES, BOT_RECENT_MATCHES),
    )
    context = {
        "bot": bot,
        "is_owner": is_owner,
        "owner_label": owner_label,
        "owner_url": owner_url,
        "team_choices": _team_choices(request, bot) if is_owner else None,
        "entries": presenters.entry_rows(
            ladders=list(open_ladders_query()) if is_owner else [],
            entered=entered,
            qualifications={} if active is None else version_qualifications(version=active),
            internals=internals,
        ),
        "entries_form": EntriesForm(initial={"ladders": entered}) if is_owner else None,
        # A challenge needs a playing version (qualified on the ladder it names).
        "challenge_form": _challenge_form(request, bot) if is_owner and active else None,
        **_versions_context(bot, versions, internals),
        "ratings": ratings,
        "history": [
            (ladder, presenters.history_chart(changes), len(changes))
            for ladder, changes in bot_rating_history(ratings=ratings, points=HISTORY_POINTS)
        ],
        # Each version against its parent (ladders.verdicts), from the versions and ratings read.
        "verdicts": bot_verdicts(versions=versions, ratings=ratings),
        "placings": list(bot_placings(bot=bot)),
        "recent_seats": bot_recent_seats(seats=latest[:BOT_RECENT_MATCHES]),
        "records": bot_opponent_records(version_ids=version_ids, seats=latest, limit=BOT_OPPONENTS),
        "record_matches": BOT_RECORD_MATCHES,
        "levels_met": levels_met(bot=bot, user=request.user, levels=levels),
        "bot_level": levels.get(bot.pk),
        "beaten_min_games": BEATEN_MIN_GAMES,
        "season_placings": list(bot_season_placings(bot=bot)),
    }
    return render(request, "web/bot.html", context)


def _team_choices(request: HttpRequest, bot: Bot) -> list[Team]:
    """The teams a bot can be moved to from its page: its owner's teams (its team's
    owners take it out); the team it is in, so the choice shows it."""
    teams = list(user_teams(user=signed_in(request)))
    if bot.team is not None and bot.team not in teams:
        teams.append(bot.team)
    return teams


def _versions_context(bot: Bot, versions: list[BotVersion], internals: bool) -> dict[str, Any]:
    return {
        "bot": bot,
        "versions": [(v, _version_report(v) if internals else None) for v in versions],
        # Polled (htmx) while a version waits for its verdict; the answer without one stops it.
        "versions_waiting": any(v.status in WAITING_STATUSES for v in versions),
        "poll_seconds": VERSION_POLL_SECONDS,
    }


@require_GET
def bot_versions_live(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The bot page's versions, polled by the page while one is pending or validating."""
    bot = bot_get_visible(bot_id=bot_id, user=request.user)
    if bot is None:
        raise Http404("No such bot.")
    internals = may_read_internals(request.user, bot)
    context = _versions_context(bot, list(bot_versions(bot=bot)), internals)
    return render(request, "web/_versions.html", context)


def _version_report(version: BotVersion) -> presenters.ReportView:
    """A version's report, with the lines of code its failed build points at."""
    report = presenters.version_report(version.validation_report)
    where = presenters.build_location(report.build_failure) if report.build_failure else None
    if where is None:
        return report
    path, line = where
    excerpt = presenters.source_excerpt(
        path=path,
        line=line,
        # A zip's members keep their names; a single file is run as the main file.
        uploaded=version.filename if version.code_format != CodeFormat.ZIP else "",
        lines=version_source_lines(version=version, path=path, line=line),
    )
    return dataclasses.replace(report, source=excerpt)


CHALLENGE_OPPONENTS = 500


def _challenge_form(request: HttpRequest, bot: Bot, data: Any = None) -> ChallengeForm:
    # The first bots by name: a list to pick from, still filterable (a sliced queryset is not).
    # The levels first, weakest first; then the other bots by name.
    levels = level_bots()
    level_order = Case(
        *(When(pk=bot_id, then=Value(level.number)) for bot_id, level in levels.items()),
        default=Value(max((level.number for level in levels.values()), default=0) + 1),
    )
    visible = (
        bot_list_visible(user=request.user)
        .exclude(pk=bot.pk)
        .alias(level_order=level_order)
        .order_by("level_order", "name")
    )
    first = visible.values("pk")[:CHALLENGE_OPPONENTS]
    return ChallengeForm(
        data,
        # Only what an option shows: 500 whole bots and owners were a fifth of the page.
        opponents=visible.filter(pk__in=first)
        .select_related("owner", "team")
        .only("name", "team_id", "team__name", "owner__username"),
        max_games=settings.ARENA_CHALLENGE_MAX_GAMES,
        levels=levels,
    )


def _owned_bot(request: HttpRequest, bot_id: int) -> Bot:
    bot = bot_get_visible(bot_id=bot_id, user=request.user)
    if bot is None:
        raise Http404("No such bot.")
    if not may_manage_bot(request.user, bot):
        raise PermissionDenied("Only the bot's owner or its team's members may change it.")
    return bot


@login_required(login_url="web:login")
@require_POST
def bot_entries_view(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _owned_bot(request, bot_id)
    form = EntriesForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose at least one ladder: a bot plays only where it entered.")
    else:
        try:
            entries = entries_set(bot=bot, ladders=list(form.cleaned_data["ladders"]))
        except ArenaError as error:
            messages.error(request, error.message)
        else:
            names = ", ".join(entry.ladder.slug for entry in entries)
            messages.success(request, f"{bot.name} now plays on {names}.")
    return redirect(reverse("web:bot", args=[bot.pk]) + "#ladders")


@login_required(login_url="web:login")
@require_POST
def challenge_new(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _owned_bot(request, bot_id)
    form = _challenge_form(request, bot, request.POST)
    if not form.is_valid():
        problems = "; ".join(
            f"{name}: {' '.join(str(e) for e in errors)}" for name, errors in form.errors.items()
        )
        messages.error(request, f"The challenge was not sent: {problems}")
        return redirect(reverse("web:bot", args=[bot.pk]) + "#challenge")
    try:
        challenge = challenge_create(
            user=signed_in(request),
            bot=bot,
            ladder=form.cleaned_data["ladder"],
            opponents=list(form.cleaned_data["opponents"]),
            games=form.cleaned_data["games"],
        )
    except ArenaError as error:
        messages.error(request, f"The challenge was not sent: {error.message}")
        return redirect(reverse("web:bot", args=[bot.pk]) + "#challenge")
    return redirect("web:challenge", challenge_id=challenge.pk)


@login_required(login_url="web:login")
@require_POST
def version_challenge_new(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    """The verdict line's button: a challenge of version ``number`` against its predecessor."""
    bot = _owned_bot(request, bot_id)
    version = bot_version_get(bot=bot, number=number)
    if version is None:
        raise Http404("No such version.")
    form = VersionChallengeForm(request.POST)
    try:
        if not form.is_valid():
            raise ChallengeError(
                "name a ladder and the version to meet: the challenge plays one ladder's game."
            )
        opponent = bot_version_get(bot=bot, number=form.cleaned_data["opponent"])
        if opponent is None:
            raise ChallengeError(f"{bot.name} has no version {form.cleaned_data['opponent']}.")
        challenge = version_challenge_create(
            user=signed_in(request),
            version=version,
            ladder=form.cleaned_data["ladder"],
            opponent=opponent,
        )
    except ArenaError as error:
        messages.error(request, f"The challenge was not sent: {error.message}")
        return redirect(reverse("web:bot", args=[bot.pk]) + "#verdicts")
    return redirect("web:challenge", challenge_id=challenge.pk)


@login_required(login_url="web:login")
@require_GET
def challenge_detail(request: HttpRequest, challenge_id: int) -> HttpResponse:
    challenge = challenge_get(user=signed_in(request), challenge_id=challenge_id)
    if challenge is None:
        raise Http404("No such challenge of yours.")
    return render(request, "web/challenge.html", {"challenge": challenge})


@require_GET
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = match_get_visible(match_id=match_id, user=request.user)
    if match is None:
        raise Http404("No such match.")
    participants = list(match.participants.all())
    # A test game's build links to its draft in the editor, for its author.
    test_draft = (
        draft_of_test_game(match_id=match.pk, user=request.user)
        if any(p.bot_version.bot.workbench for p in participants)
        else None
    )
    log = match_log_read(match=match, user=request.user)
    owned = presenters.owned_seats(participants, request.user)
    replay = None if log is None else presenters.replay_document(log, participants)
    # Queued or being played: the replay grows as the worker publishes the game (sealed as
    # the log would be, while another game of its deal is still to play).
    live = match.status in UNPLAYED and not match_deal_in_play(match=match)
    if live:
        replay = presenters.live_document(
            match.game,
            presenters.match_players(participants),
            match_live_read(match=match),
            url=reverse("match-events", args=[match.pk]),
            playing=UNPLAYED,
        )
    # The viewer's own seats (staff: all) of a finished game: the page reads their decisions.
    studied = [] if log is None or live else match_study_seats(match=match, user=request.user)
    results = presenters.result_rows(participants, log, request.user)
    context = {
        "match": match,
        "attempts": match_attempts_read(match=match, user=request.user),
        "test_draft": test_draft,
        "results": results,
        "replay": replay,
        "live": live,
        "stderr": presenters.seat_stderr(log, seats=owned),
        "resources": presenters.seat_resources(
            log, seats=owned, names={row.participant.seat: row.name for row in results}
        ),
        "study": presenters.study_document(
            participants, studied, url=reverse("match-decisions", args=[match.pk])
        ),
        "rerun": presenters.rerun_commands(request.build_absolute_uri(), studied),
    }
    return render(request, "web/match.html", context)


@require_GET
def player_detail(request: HttpRequest, username: str) -> HttpResponse:
    player = player_get(username=username)
    if player is None:
        raise Http404("No such player.")
    bots = list(player_bots(owner=player, viewer=request.user))
    context = {
        "player": player,
        "profile": getattr(player, "profile", None),
        "is_self": request.user.pk == player.pk,
        "bots": presenters.bots_with_ratings(bots, bots_active_ratings(bots=bots)),
    }
    return render(request, "web/player.html", context)


@login_required(login_url="web:login")
@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest) -> HttpResponse:
    status = 200
    teams = user_teams(user=signed_in(request))
    if request.method == "GET":
        name = request.GET.get("bot", "")
        chosen = request.GET.get("team", "")
        team = teams.filter(pk=chosen).first() if chosen.isdigit() else None
        mine = bot_list_visible(user=request.user).filter(managed_bots_q(request.user))
        existing = (
            mine.filter(team=team) if team else mine.filter(owner_id=request.user.pk)
        ).filter(name__iexact=name)
        entered = [e.ladder for bot in existing[:1] for e in bot_entries(bot=bot)]
        form = UploadForm(
            initial={"name": name, "team": team, "ladders": entered or list(open_ladders_query())},
            teams=teams,
        )
    elif refused := _upload_throttled(request, teams):
        form = UploadForm(request.POST, teams=teams)
        form.is_valid()
        form.add_error(None, refused)
        status = 429
    elif (form := UploadForm(request.POST, request.FILES, teams=teams)).is_valid():
        file = form.cleaned_data["file"]
        try:
            # Refuse a huge file before reading it into memory.
            check_upload_size(file.name, file.size, upload_limits())
            version = bot_submit(
                owner=signed_in(request),
                name=form.cleaned_data["name"],
                filename=file.name,
                content=file.read(),
                visibility=form.cleaned_data["visibility"],
                ladders=form.cleaned_data["ladders"],
                runtime=form.cleaned_data["runtime"] or None,
                team=form.cleaned_data.get("team"),
            )
        except (BotNameError, BotNameTakenError) as error:
            form.add_error("name", error.message)
        except ArenaError as error:
            form.add_error("file", error.message)
        else:
            version.refresh_from_db()  # validation may have run when the upload committed
            messages.success(
                request,
                f"Uploaded {version.bot.name} version {version.number} "
                f"({version.get_status_display().lower()}).",
            )
            return redirect("web:bot", bot_id=version.bot_id)
    my_bots = bot_list_visible(user=request.user).filter(managed_bots_q(request.user))
    return render(request, "web/upload.html", {"form": form, "my_bots": my_bots}, status=status)


def _upload_throttled(request: HttpRequest, teams: QuerySet[Team]) -> str | None:
    """The message refusing an upload over the player's rate, or over the team's when it
    names one of their teams."""
    if refused := _throttled(request, UploadThrottle(), "uploads"):
        return refused
    chosen = request.POST.get("team", "")
    if chosen.isdigit() and teams.filter(pk=chosen).exists():
        wait = throttle_wait(TeamUploadThrottle(int(chosen)), request)
        if wait is not None:
            return f"Too many uploads to this team's bots: {retry_message(wait)}."
    return None


def _throttled(request: HttpRequest, throttle: SimpleRateThrottle, what: str) -> str | None:
    """The message refusing ``request`` over its rate limit, or None to go on."""
    wait = throttle_wait(throttle, request)
    return None if wait is None else f"Too many {what} from you: {retry_message(wait)}."


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("web:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and (refused := _throttled(request, SignupThrottle(), "sign-ups")):
        form.is_valid()
        form.add_error(None, refused)
        return render(request, "web/signup.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        try:
            user = player_create(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
            )
        except ArenaError as error:
            form.add_error("username", error.message)
        else:
            if user.email:
                # Counted as a sign-up (SignupThrottle), not against ARENA_RATE_EMAIL_VERIFY.
                email_verification_request(user=user)
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request,
                f"Welcome, {user.username}! Upload your first bot."
                + (f" A link to verify {user.email} is on its way." if user.email else ""),
            )
            return redirect("web:upload")
    return render(request, "web/signup.html", {"form": form})


@require_GET
def league_list_page(request: HttpRequest) -> HttpResponse:
    page = Paginator(league_list(user=request.user), LEAGUES_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "web/leagues.html", {"page": page, "leagues": page.object_list})


@require_GET
def league_detail(request: HttpRequest, slug: str) -> HttpResponse:
    league = league_get_visible(slug=slug, user=request.user)
    if league is None:
        raise Http404("No such league.")
    controls = presenters.league_controls(league, request.user)
    add_form = None
    if controls.entrants:
        candidates = league_entry_candidates(
            user=signed_in(request), rules=league.ladder.rules, league=league
        )
        add_form = LeagueEntryAddForm(user=signed_in(request), candidates=candidates)
    # Before the start the entrants are the news; after it the standings list them. A
    # page of each at a time: a big Swiss has hundreds.
    entries = entries_page = None
    if league.started_at is None:
        entries_page = Paginator(league_entries(league=league), LEAGUE_ROWS_PAGE_SIZE).get_page(
            request.GET.get("entrants")
        )
        entries = presenters.league_entry_rows(entries_page.object_list, league, request.user)
    context = {
        **league_results_context(request, league),
        "entries": entries,
        "entries_page": entries_page,
        "entries_actions": any(row.respond or row.withdraw for row in entries or ()),
        "controls": controls,
        "add_form": add_form,
        "cancel_form": LeagueCancelForm() if controls.cancel else None,
    }
    return render(request, "web/league.html", context)


def league_results_context(request: HttpRequest, league: League) -> dict[str, Any]:
    """What ``_league_results.html`` shows: a page of standings and of fixtures, the rounds
    (a league's page, and a competition's final event)."""
    standings_page = Paginator(league_standings(league=league), LEAGUE_ROWS_PAGE_SIZE).get_page(
        request.GET.get("standings")
    )
    standings = presenters.league_standing_rows(standings_page.object_list, league, request.user)
    rounds = list(league_rounds(league=league))
    started = [r.number for r in rounds if r.status != RoundStatus.SCHEDULED]
    pages = presenters.fixture_pages(
        league_round_tables(league=league),
        current_round=max(started, default=None),
        requested=request.GET.get("fixtures"),
        per_page=FIXTURES_PAGE_TABLES,
    )
    return {
        "league": league,
        "rounds": rounds,
        "fixtures": league_page_fixtures(league=league)[pages.start : pages.stop],
        "fixture_pages": pages,
        "standings": standings,
        "standings_page": standings_page,
        "standings_actions": any(row.withdraw for row in standings),
    }


def _league_plan(form: LeagueForm, user: User) -> dict[str, Any]:
    """The new-league form's calendar preview: the rounds and the last one's time that
    league_plan (the services' own rule) gives the form's settings, or what keeps it from one."""
    if not form.is_bound:
        return {"problem": "Tick the entrants to see how many rounds they play and when."}
    form.is_valid()
    problem = form.plan_problem()
    if problem is not None:
        return {"problem": problem}
    arguments = form.plan_arguments(now=timezone.now())
    if not arguments["entrants"]:
        return {"problem": "Tick the entrants to see how many rounds they play and when."}
    try:
        plan = league_plan(organiser=user, **arguments)
    except ArenaError as error:
        return {"problem": error.message}
    return {
        "plan": plan,
        "start_now": form.cleaned_data["start_now"],
        "interval": form.data.get("round_interval", ""),
    }


@login_required(login_url="web:login")
@require_GET
def league_plan_view(request: HttpRequest) -> HttpResponse:
    """The calendar preview of /leagues/new/, fetched by htmx as the form's fields change."""
    user = signed_in(request)
    form = LeagueForm(
        request.GET,
        user=user,
        ladders=list(league_ladders()),
        candidates=league_entry_candidates(user=user),
    )
    return render(request, "web/_league_plan.html", _league_plan(form, user))


@login_required(login_url="web:login")
@require_http_methods(["GET", "POST"])
def league_new(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    ladders, candidates = list(league_ladders()), league_entry_candidates(user=user)
    if request.method == "GET":
        # Tomorrow, on the hour: a start the service accepts, easy to change.
        start = (timezone.now() + timedelta(days=1)).replace(minute=0, second=0, microsecond=0)
        ladder = league_default_ladder(ladders=ladders, candidates=candidates)
        form = LeagueForm(
            initial={"start_at": start, "ladder": ladder.slug if ladder else None},
            user=user,
            ladders=ladders,
            candidates=candidates,
        )
    elif (
        form := LeagueForm(request.POST, user=user, ladders=ladders, candidates=candidates)
    ).is_valid():
        try:
            league = league_create(organiser=user, **form.league_arguments(now=timezone.now()))
        except LeagueEntryError as error:
            form.add_error("bots", error.message)
        except ArenaError as error:
            form.add_error(None, error.message)
        else:
            when = "within a minute or two" if form.cleaned_data["start_now"] else "on time"
            messages.success(request, f"Created {league.name}: it starts by itself {when}.")
            return redirect("web:league", slug=league.slug)
    return render(request, "web/league_new.html", {"form": form, **_league_plan(form, user)})


# A league page's buttons: POST, back to the page with a message.
LeagueAction = Callable[..., str]


def league_action(action: LeagueAction) -> Callable[..., HttpResponse]:
    """A POST from a league page: a visitor logs in first (then comes back to the page); the
    action returns what it did, or raises ArenaError, whose message is shown on the page."""

    @require_POST
    @wraps(action)
    def view(request: HttpRequest, slug: str, **kwargs: int) -> HttpResponse:
        page = reverse("web:league", kwargs={"slug": slug})
        if not request.user.is_authenticated:
            return redirect_to_login(page, login_url="web:login")
        league = league_get_visible(slug=slug, user=request.user)
        if league is None:
            raise Http404("No such league.")
        try:
            done = action(request, league, **kwargs)
        except ArenaError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, done)
        return redirect(page)

    return view


def _managed(request: HttpRequest, league: League) -> League:
    if not league_can_manage(league=league, user=request.user):
        raise PermissionDenied("Only the league's organiser (or staff) may change it.")
    return league


def _form_error(form: LeagueCancelForm | LeagueEntryAddForm | LeagueRespondForm) -> ArenaError:
    """The first error of a form posted from the league page, to show as its message."""
    field, errors = next(iter(form.errors.items()))
    label = form.fields[field].label if field in form.fields else None
    return ArenaError(f"{label}: {errors[0]}" if label else str(errors[0]))


@league_action
def league_pause_view(request: HttpRequest, league: League) -> str:
    league = league_pause(league=_managed(request, league))
    return f"Paused {league.name}: no round starts until you resume it."


@league_action
def league_resume_view(request: HttpRequest, league: League) -> str:
    league = league_resume(league=_managed(request, league))
    return f"Resumed {league.name}: it is {league.get_status_display().lower()} again."


@league_action
def league_cancel_view(request: HttpRequest, league: League) -> str:
    league = _managed(request, league)
    form = LeagueCancelForm(request.POST)
    if not form.is_valid():
        raise _form_error(form)
    league = league_cancel(league=league, reason=form.cleaned_data["reason"])
    return f"Cancelled {league.name}: results so far and every log are kept."


@league_action
def league_entry_add_view(request: HttpRequest, league: League) -> str:
    league = _managed(request, league)
    candidates = league_entry_candidates(
        user=signed_in(request), rules=league.ladder.rules, league=league
    )
    form = LeagueEntryAddForm(request.POST, user=signed_in(request), candidates=candidates)
    if not form.is_valid():
        raise _form_error(form)
    entry = league_entry_add(league=league, bot=form.chosen_bot(), by=signed_in(request))
    if entry.status == EntryStatus.INVITED:
        return f"Invited {entry.bot.name}: it plays if {entry.bot.owner.username} accepts."
    return f"Entered {entry.bot.name}."


@league_action
def league_entry_withdraw_view(request: HttpRequest, league: League, bot_id: int) -> str:
    entry = league_entry_get(league=league, bot_id=bot_id)
    if entry is None:
        if not league_can_manage(league=league, user=request.user):
            raise PermissionDenied("Only the bot's owner, the organiser or staff withdraw it.")
        raise LeagueEntryError(f"no bot with id {bot_id} is entered in {league}.")
    if not league_entry_can_withdraw(entry=entry, user=request.user):
        raise PermissionDenied("Only the bot's owner, the organiser or staff withdraw it.")
    entry = league_entry_remove(league=league, bot=entry.bot, by=signed_in(request))
    if entry.status == EntryStatus.FORFEITED:
        return f"Withdrew {entry.bot.name}: its remaining games are lost by forfeit."
    return f"Withdrew {entry.bot.name}: it plays nothing in {league.name}."


@league_action
def league_entry_respond_view(request: HttpRequest, league: League, bot_id: int) -> str:
    entry = league_entry_get(league=league, bot_id=bot_id)
    if entry is None:
        raise Http404("No such entrant.")
    if not league_entry_can_respond(entry=entry, user=request.user):
        raise PermissionDenied("Only the bot's owner answers its invitation.")
    form = LeagueRespondForm(request.POST)
    if not form.is_valid():
        raise _form_error(form)
    entry = league_entry_respond(entry=entry, accept=form.cleaned_data["accept"])
    if form.cleaned_data["accept"]:
        return f"Accepted: {entry.bot.name} plays in {league.name}."
    return f"Declined: {entry.bot.name} stays out of {league.name}."
