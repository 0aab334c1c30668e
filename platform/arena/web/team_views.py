"""The pages of teams (docs/teams.md): the list and a new team, a team's page (members,
bots, the invitation link for its owners), the join page an invitation link opens, and
a bot's move into or out of a team."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from arena.bots.selectors import bot_get_visible, bot_list_visible, bot_owner_label
from arena.bots.services import bot_team_set
from arena.errors import ArenaError
from arena.players.models import Team, TeamRole
from arena.players.selectors import (
    player_get,
    signed_in,
    team_get,
    team_list,
    team_may_administer,
    team_members,
    team_role,
    user_teams,
)
from arena.players.services import (
    TeamInviteError,
    team_by_invite,
    team_create,
    team_invite_expires_at,
    team_invite_regenerate,
    team_join,
    team_leave,
    team_member_remove,
    team_member_set_role,
)


class TeamForm(forms.Form):
    name = forms.CharField(max_length=40, help_text="Shown on the team's bots, in any case unique.")
    description = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )


def _team(team_id: int) -> Team:
    team = team_get(team_id=team_id)
    if team is None:
        raise Http404("No such team.")
    return team


@require_http_methods(["GET", "POST"])
def teams_page(request: HttpRequest) -> HttpResponse:
    """Every team; a signed-in player's own first, and a form to create one."""
    form = TeamForm()
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('web:login')}?next={request.path}")
        form = TeamForm(request.POST)
        if form.is_valid():
            try:
                team = team_create(user=signed_in(request), **form.cleaned_data)
            except ArenaError as error:
                form.add_error("name", error.message)
            else:
                messages.success(request, f"Created {team.name}: invite its members by its link.")
                return redirect("web:team", team_id=team.pk)
    mine = list(user_teams(user=signed_in(request))) if request.user.is_authenticated else []
    context = {"form": form, "mine": mine, "teams": team_list()[:200]}
    return render(request, "web/teams.html", context, status=400 if form.errors else 200)


@require_GET
def team_detail(request: HttpRequest, team_id: int) -> HttpResponse:
    team = _team(team_id)
    administer = team_may_administer(team=team, user=request.user)
    context = {
        "team": team,
        "members": team_members(team=team),
        "role": team_role(team=team, user=request.user),
        "administer": administer,
        "bots": bot_list_visible(user=request.user, team=team.pk),
        "invite_url": (
            request.build_absolute_uri(reverse("web:team-join", args=[team.invite_token]))
            if administer
            else None
        ),
        "invite_expires_at": team_invite_expires_at(team) if administer else None,
    }
    return render(request, "web/team.html", context)


@login_required(login_url="web:login")
@require_POST
def team_invite_view(request: HttpRequest, team_id: int) -> HttpResponse:
    try:
        team_invite_regenerate(team=_team(team_id), by=signed_in(request))
    except ArenaError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "A new invitation link: the old one no longer works.")
    return redirect("web:team", team_id=team_id)


@login_required(login_url="web:login")
@require_http_methods(["GET", "POST"])
def team_join_view(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: the team's name and a button to join (a login first)."""
    try:
        team = team_by_invite(token=token)
    except TeamInviteError as error:
        return render(request, "web/team_join.html", {"error": error.message}, status=404)
    if request.method == "POST":
        team_join(user=signed_in(request), token=token)
        messages.success(request, f"You joined {team.name}: its bots are yours to work on.")
        return redirect("web:team", team_id=team.pk)
    context = {"team": team, "role": team_role(team=team, user=request.user)}
    return render(request, "web/team_join.html", context)


@login_required(login_url="web:login")
@require_POST
def team_leave_view(request: HttpRequest, team_id: int) -> HttpResponse:
    team = _team(team_id)
    try:
        team_leave(team=team, user=signed_in(request))
    except ArenaError as error:
        messages.error(request, error.message)
        return redirect("web:team", team_id=team.pk)
    messages.success(request, f"You left {team.name}.")
    return redirect("web:teams")


@login_required(login_url="web:login")
@require_POST
def team_member_view(request: HttpRequest, team_id: int, username: str) -> HttpResponse:
    """A team owner makes a member an owner or a member, or removes them."""
    team = _team(team_id)
    member = player_get(username=username)
    if member is None:
        raise Http404("No such player.")
    action = request.POST.get("action", "")
    try:
        if action == "remove":
            team_member_remove(team=team, user=member, by=signed_in(request))
        elif action in TeamRole.values:
            team_member_set_role(
                team=team, user=member, role=TeamRole(action), by=signed_in(request)
            )
        else:
            raise Http404("No such action.")
    except ArenaError as error:
        messages.error(request, error.message)
    return redirect("web:team", team_id=team.pk)


@login_required(login_url="web:login")
@require_POST
def bot_team_view(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Move a bot into one of the player's teams, or out of its team (``team`` empty)."""
    bot = bot_get_visible(bot_id=bot_id, user=request.user)
    if bot is None:
        raise Http404("No such bot.")
    user = signed_in(request)
    chosen = request.POST.get("team", "")
    team = None
    if chosen:
        team = user_teams(user=user).filter(pk=chosen if chosen.isdigit() else -1).first()
        if team is None:
            messages.error(request, "Choose one of your teams.")
            return redirect("web:bot", bot_id=bot.pk)
    try:
        bot = bot_team_set(bot=bot, team=team, by=user)
    except ArenaError as error:
        messages.error(request, error.message)
    else:
        label, _ = bot_owner_label(bot)
        messages.success(request, f"{bot.name} is now {label}'s.")
    return redirect("web:bot", bot_id=bot.pk)
