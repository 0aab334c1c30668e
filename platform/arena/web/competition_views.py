"""The competition pages: the list, a competition (phase, countdown, entrants, the live
ladder, the final event, archived standings), entry by invitation link, creation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from arena.competitions.flows import competition_enter
from arena.competitions.models import Access, Competition, Phase
from arena.competitions.selectors import (
    competition_entries,
    competition_get,
    competition_ladders,
    competition_placings,
    competitions_grouped,
    enterable_bots,
    next_step,
)
from arena.competitions.services import (
    competition_cancel,
    competition_create,
    competition_invitation_renew,
    competition_withdraw,
    create_refusal,
    may_create,
    may_manage,
)
from arena.errors import ArenaError
from arena.ladders.selectors import ladder_leaderboard, rating_trends
from arena.leagues.selectors import league_get_visible
from arena.players.selectors import signed_in

from . import presenters
from .competition_forms import CompetitionCancelForm, CompetitionEnterForm, CompetitionForm
from .markup import render_markdown
from .views import TREND_POINTS, league_results_context

# The live ladder on a competition's page: its top; the ladder's page has the rest.
LADDER_SHOWN = 10
# A ladder's live table is worth showing while it plays: from entry to the final event.
LADDER_LIVE = (Phase.ENTRY, Phase.SEASON, Phase.FROZEN, Phase.FINAL)


@require_GET
def competitions_page(request: HttpRequest) -> HttpResponse:
    groups = competitions_grouped()
    return render(
        request,
        "web/competitions.html",
        {
            **groups,
            "may_create": may_create(request.user),
            # Open to players, this one unverified: the page says how to become one.
            "verify_to_create": request.user.is_authenticated
            and settings.ARENA_COMPETITIONS_OPEN_TO_USERS
            and not may_create(request.user),
        },
    )


def _competition_or_404(slug: str) -> Competition:
    competition = competition_get(slug=slug)
    if competition is None:
        raise Http404("No such competition.")
    return competition


def _live_ladder(request: HttpRequest, place: Any) -> dict[str, Any]:
    ratings = list(ladder_leaderboard(ladder=place.ladder, provisional=False)[:LADDER_SHOWN])
    settling = list(ladder_leaderboard(ladder=place.ladder, provisional=True)[:LADDER_SHOWN])
    trends = rating_trends(rating_ids=[r.pk for r in ratings + settling], points=TREND_POINTS)
    return {
        "rows": presenters.leaderboard_rows(ratings, trends, first_rank=1),
        "provisional_rows": presenters.leaderboard_rows(settling, trends, first_rank=1),
    }


def _enter_form(request: HttpRequest, competition: Competition, token: str) -> Any:
    if competition.phase != Phase.ENTRY or not request.user.is_authenticated:
        return None
    bots = enterable_bots(competition=competition, user=request.user)
    return CompetitionEnterForm(
        bots=[(bot.pk, bot.name) for bot in bots],
        rules=_rules(competition),
        initial={"token": token},
    )


def _rules(competition: Competition) -> list[str]:
    return [place.ladder.rules for place in competition_ladders(competition=competition)]


@require_GET
def competition_page(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(slug)
    token = request.GET.get("invite", "")
    manager = may_manage(request.user, competition)
    places = []
    for place in competition_ladders(competition=competition):
        final = None
        if place.league is not None and competition.phase != Phase.FROZEN:
            final = league_results_context(request, place.league)
            final["standings_actions"] = False
            # An invitation-only competition's final is a private league: its own page is
            # for the entrants' owners, the organiser and staff (this page shows its table).
            final["league_page"] = (
                league_get_visible(slug=place.league.slug, user=request.user) is not None
            )
        places.append(
            {
                "place": place,
                "live": _live_ladder(request, place) if competition.phase in LADDER_LIVE else None,
                "final": final,
            }
        )
    placings = list(competition_placings(competition=competition))
    entries = list(competition_entries(competition=competition))
    user_id = request.user.pk if request.user.is_authenticated else None
    context = {
        "competition": competition,
        "description": render_markdown(competition.description),
        "next": next_step(competition=competition),
        "now": timezone.now(),
        "places": places,
        "placings": placings,
        "entries": entries,
        "withdrawable": competition.phase in (Phase.ENTRY, Phase.SEASON),
        "user_id": user_id,
        "manager": manager,
        "invited": bool(token) and token == competition.invitation_token,
        "bad_invitation": bool(token) and token != competition.invitation_token,
        "invitation_url": request.build_absolute_uri(
            reverse("web:competition", args=[competition.slug])
            + f"?invite={competition.invitation_token}"
        )
        if manager
        else None,
        "enter_form": _enter_form(request, competition, token),
        "cancel_form": CompetitionCancelForm() if manager else None,
        "login_next": request.get_full_path(),
    }
    return render(request, "web/competition.html", context)


def _back(competition: Competition, token: str = "") -> HttpResponse:
    url = reverse("web:competition", args=[competition.slug])
    return redirect(f"{url}?invite={token}" if token else url)


@login_required(login_url="web:login")
@require_POST
def competition_enter_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(slug)
    user = signed_in(request)
    bots = enterable_bots(competition=competition, user=user)
    form = CompetitionEnterForm(
        request.POST, bots=[(bot.pk, bot.name) for bot in bots], rules=_rules(competition)
    )
    token = str(request.POST.get("token", ""))
    if not form.is_valid():
        messages.error(request, "Choose one of your bots to enter.")
        return _back(competition, token)
    bot = next(bot for bot in bots if bot.pk == form.cleaned_data["bot"])
    try:
        competition_enter(
            competition=competition,
            bot=bot,
            by=user,
            token=token or None,
            rules=form.cleaned_data.get("rules") or None,
        )
    except ArenaError as error:
        messages.error(request, error.message)
        return _back(competition, token)
    messages.success(
        request,
        f"{bot.name} is entered in {competition.title}: it plays the competition's ladder "
        "from now on, and the version active at the freeze plays the final event.",
    )
    return _back(competition)


@login_required(login_url="web:login")
@require_POST
def competition_withdraw_view(request: HttpRequest, slug: str, bot_id: int) -> HttpResponse:
    competition = _competition_or_404(slug)
    entry = competition.entries.select_related("bot").filter(bot_id=bot_id).first()
    if entry is None:
        raise Http404("No such entrant.")
    try:
        competition_withdraw(competition=competition, bot=entry.bot, by=signed_in(request))
    except ArenaError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"{entry.bot.name} withdrew from {competition.title}.")
    return _back(competition)


@login_required(login_url="web:login")
@require_POST
def competition_invitation_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(slug)
    try:
        competition_invitation_renew(competition=competition, by=signed_in(request))
    except ArenaError as error:
        raise PermissionDenied(error.message) from None
    messages.success(request, "A new invitation link: the old one no longer works.")
    return _back(competition)


@login_required(login_url="web:login")
@require_POST
def competition_cancel_view(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _competition_or_404(slug)
    form = CompetitionCancelForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        competition_cancel(competition=competition, by=signed_in(request), reason=reason)
    except ArenaError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"{competition.title} is cancelled.")
    return _back(competition)


@login_required(login_url="web:login")
@require_http_methods(["GET", "POST"])
def competition_new(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    if (refusal := create_refusal(user)) is not None:
        if not settings.ARENA_COMPETITIONS_OPEN_TO_USERS:
            raise PermissionDenied(refusal)
        # Open to players, this one's address unverified: where verifying is one click.
        messages.error(request, f"To create a competition, {refusal}")
        return redirect("web:notifications")
    if request.method == "GET":
        start = (timezone.now() + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
        form = CompetitionForm(
            initial={
                "entry_opens_at": start,
                "entry_closes_at": start + timedelta(days=7),
                "freeze_at": start + timedelta(days=8),
                "final_starts_at": start + timedelta(days=8, hours=1),
            }
        )
        return render(request, "web/competition_new.html", {"form": form})
    form = CompetitionForm(request.POST)
    if form.is_valid():
        try:
            competition = competition_create(
                organiser=user, **form.competition_arguments(now=timezone.now())
            )
        except ArenaError as error:
            form.add_error(None, error.message)
        else:
            note = (
                " Share its invitation link (below) with your class."
                if competition.access == Access.INVITATION
                else ""
            )
            messages.success(request, f"{competition.title} is announced.{note}")
            return _back(competition)
    return render(request, "web/competition_new.html", {"form": form}, status=400)
