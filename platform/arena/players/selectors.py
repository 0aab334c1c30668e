"""Reads on players."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest
from rest_framework.request import Request

from .models import Team, TeamMembership, TeamRole, User

HOUSE_USERNAME = "house"


def house_user_get() -> User | None:
    """The account owning the house bots, if `load_house_bots` has run."""
    return User.objects.filter(username=HOUSE_USERNAME).first()


def player_get(*, username: str) -> User | None:
    """An active account by username, with its profile (a user page shows both)."""
    return User.objects.select_related("profile").filter(username=username, is_active=True).first()


def signed_in(request: HttpRequest | Request) -> User:
    """The player behind a request that requires one (login_required, IsAuthenticated).

    Those guards run first, so this only narrows the type; a request that slips
    through anyway is refused rather than served as somebody else.
    """
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("sign in first.")
    return user


def email_verified(user: User | AnonymousUser | None) -> bool:
    """Whether ``user``'s current address was proven theirs by a verification link: the
    platform e-mails only such an address, and trusts only such users where a setting
    lets players do more (docs/settings.md)."""
    if user is None or not isinstance(user, User) or not user.email:
        return False
    return user.verified_email == user.email and user.email_verified_at is not None


# --------------------------------------------------------------------------- teams

#: Where user_team_ids keeps them (players.services forgets them when they change).
_TEAM_IDS = "_arena_team_ids"


def user_team_ids(user: User | AnonymousUser | None) -> frozenset[int]:
    """The ids of the teams ``user`` is a member of; read once per request (kept on the
    user object), as a page checks the access rule for each bot it shows."""
    if user is None or not user.is_authenticated:
        return frozenset()
    cached: frozenset[int] | None = getattr(user, _TEAM_IDS, None)
    if cached is None:
        ids = TeamMembership.objects.filter(user_id=user.pk).values_list("team_id", flat=True)
        cached = frozenset(ids)
        setattr(user, _TEAM_IDS, cached)
    return cached


def user_teams(*, user: User) -> QuerySet[Team]:
    """The teams ``user`` is a member of, by name."""
    return Team.objects.filter(memberships__user=user).order_by("name", "id")


def team_get(*, team_id: int) -> Team | None:
    return Team.objects.filter(pk=team_id).first()


def team_list() -> QuerySet[Team]:
    """Every team, by name (teams are public: their names are shown on their bots)."""
    return Team.objects.order_by("name", "id")


def team_members(*, team: Team) -> QuerySet[TeamMembership]:
    """A team's memberships, owners first, then by username."""
    return (
        team.memberships.select_related("user__profile").order_by(
            "role", "user__username"
        )  # "member" sorts after "owner"
    )


def team_role(*, team: Team, user: User | AnonymousUser | None) -> TeamRole | None:
    """``user``'s role in ``team``; None for anybody else."""
    if user is None or not user.is_authenticated:
        return None
    role = team.memberships.filter(user_id=user.pk).values_list("role", flat=True).first()
    return None if role is None else TeamRole(role)


def team_may_administer(*, team: Team, user: User | AnonymousUser | None) -> bool:
    """Team owners (and staff) see the invitation link and change the team's members."""
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    return team_role(team=team, user=user) == TeamRole.OWNER
