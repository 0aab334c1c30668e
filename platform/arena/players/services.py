"""Writes on players."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import authenticate
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from arena.errors import ArenaError

from .models import Profile, Team, TeamMembership, TeamRole, User
from .selectors import email_verified


class PlayerError(ArenaError):
    code = "player_invalid"


@transaction.atomic
def player_create(
    *,
    username: str,
    email: str = "",
    password: str | None = None,
    display_name: str = "",
    is_staff: bool = False,
    is_house: bool = False,
) -> User:
    """A user and their profile; without a password the account cannot log in.

    The username is taken in its NFKC form (full-width or composed letters fold
    into the plain ones) and must differ from every other in more than case.
    """
    username = User.normalize_username(username)
    taken = User.objects.filter(username__iexact=username).values_list("username", flat=True)
    if (existing := taken.first()) is not None:
        raise PlayerError(
            f"the username {username!r} is taken"
            + ("" if existing == username else f" (as {existing!r}: case does not count)")
            + ": choose another."
        )
    user = User(username=username, email=email, is_staff=is_staff)
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    try:
        user.full_clean()
    except ValidationError as error:
        raise PlayerError("; ".join(error.messages)) from None
    user.save()
    Profile.objects.create(user=user, display_name=display_name or username, is_house=is_house)
    return user


class CredentialsError(ArenaError):
    code = "credentials_invalid"


def auth_token_obtain(*, request: HttpRequest, username: str, password: str) -> Token:
    """The API token of the account with these credentials, created on first use.

    ``request`` (Django's, not DRF's) lets django-axes count failures by address
    and mark a locked-out one for its middleware.
    """
    user = authenticate(request, username=username, password=password)
    if user is None or not user.is_active:
        raise CredentialsError(
            "unknown username or wrong password: use the credentials you log in with."
        )
    token, _ = Token.objects.get_or_create(user=user)
    return token


def auth_token_revoke(*, user: User) -> None:
    """Delete the user's API token: scripts using it stop working until a new one is made."""
    Token.objects.filter(user=user).delete()


# --------------------------------------------------------------------------- e-mail

_VERIFY_SALT = "arena.players.email-verification"


class EmailVerificationError(ArenaError):
    code = "email_verification_invalid"


def email_set(*, user: User, email: str) -> User:
    """The address the platform e-mails ``user`` at (empty: none). A new address is
    unverified until a link sent to it is followed."""
    email = User.objects.normalize_email(email.strip())
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise EmailVerificationError(f"{email!r} is no e-mail address: check it.") from None
    if email != user.email:
        user.email = email
        user.verified_email, user.email_verified_at = "", None
        user.save(update_fields=["email", "verified_email", "email_verified_at"])
    return user


def email_verification_check(*, user: User) -> None:
    """Refuse to send a link when there is nothing to verify, saying why."""
    if not user.email:
        raise EmailVerificationError("your account has no e-mail address: set one first.")
    if email_verified(user):
        raise EmailVerificationError(f"{user.email} is verified already: nothing to do.")


def email_verification_token(*, user: User, now: datetime | None = None) -> str:
    """A link's token: the user, their address and when it was made, signed with
    SECRET_KEY. The time is in the payload (not TimestampSigner's) so that the expiry
    is checked against the caller's clock, which tests drive."""
    now = now or timezone.now()
    data = {"u": user.pk, "e": user.email, "t": int(now.timestamp())}
    return signing.dumps(data, salt=_VERIFY_SALT, compress=True)


def email_verification_url(*, user: User, now: datetime | None = None) -> str:
    """The absolute link (e-mails leave from workers, outside any request: ARENA_SITE_URL)."""
    token = email_verification_token(user=user, now=now)
    return settings.ARENA_SITE_URL.rstrip("/") + reverse("email-verify", kwargs={"token": token})


def email_verification_send(*, user: User, now: datetime | None = None) -> bool:
    """E-mail ``user`` a link that verifies their current address; False (nothing sent)
    when there is no address or it is verified already. SMTP errors (OSError) propagate:
    the task retries."""
    if not user.email or email_verified(user):
        return False
    hours = settings.ARENA_EMAIL_VERIFY_HOURS
    link = email_verification_url(user=user, now=now)
    body = (
        f"Hello {user.username},\n\n"
        f"To confirm that {user.email} is your address on Las Vegas Arena, open this link "
        f"and press the button (it works for {hours} hours):\n\n{link}\n\n"
        "Until then the platform sends you no e-mail notifications. If you did not ask for "
        "this, ignore this message: nothing changes.\n"
    )
    EmailMessage(
        subject="[Las Vegas Arena] Verify your e-mail address", body=body, to=[user.email]
    ).send()
    return True


def _refused(why: str) -> EmailVerificationError:
    return EmailVerificationError(
        f"{why}: ask for a new link on your notification settings page (Verify this address)."
    )


@transaction.atomic
def email_verify(*, token: str, now: datetime | None = None) -> User:
    """Mark the address a link's ``token`` names verified, if the link is intact, younger
    than ARENA_EMAIL_VERIFY_HOURS and its address is still the account's."""
    now = now or timezone.now()
    try:
        data = signing.loads(token, salt=_VERIFY_SALT)
        user_id, email, made = int(data["u"]), str(data["e"]), int(data["t"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise _refused("this verification link is not valid (altered or cut short)") from None
    hours = settings.ARENA_EMAIL_VERIFY_HOURS
    if now.timestamp() - made > hours * 3600:
        raise _refused(f"this verification link expired (links work for {hours} hours)")
    # Locked: an address changed at the same moment is not marked verified by mistake.
    user = User.objects.select_for_update().filter(pk=user_id, is_active=True).first()
    if user is None:
        raise _refused("the account of this verification link no longer exists")
    if not email or user.email != email:
        raise _refused(f"this link verifies {email}, which your account no longer uses")
    if not email_verified(user):
        user.verified_email, user.email_verified_at = email, now
        user.save(update_fields=["verified_email", "email_verified_at"])
    return user


# --------------------------------------------------------------------------- teams


class TeamError(ArenaError):
    code = "team_invalid"


class TeamNameTakenError(TeamError):
    code = "team_name_taken"


class TeamInviteError(ArenaError):
    """An invitation link that no longer (or never did) work."""

    code = "team_invite_invalid"
    http_status = 404


class TeamPermissionError(ArenaError):
    code = "team_forbidden"
    http_status = 403


def _new_invite_token() -> str:
    return secrets.token_urlsafe(24)


@transaction.atomic
def team_create(*, user: User, name: str, description: str = "") -> Team:
    """A new team with ``user`` as its first owner."""
    team = Team(
        name=name.strip(),
        description=description,
        invite_token=_new_invite_token(),
        invite_created_at=timezone.now(),
    )
    try:
        team.full_clean(validate_constraints=False)
    except ValidationError as error:
        raise TeamError("; ".join(error.messages)) from None
    if Team.objects.filter(name__iexact=team.name).exists():
        raise TeamNameTakenError(
            f"the team name {team.name!r} is taken (case does not count): choose another."
        )
    try:
        with transaction.atomic():
            team.save()
    except IntegrityError:
        raise TeamNameTakenError(f"the team name {team.name!r} is taken: choose another.") from None
    TeamMembership.objects.create(team=team, user=user, role=TeamRole.OWNER)
    _forget_teams(user)
    return team


def _check_owner(team: Team, by: User) -> None:
    if by.is_staff:
        return
    if not team.memberships.filter(user=by, role=TeamRole.OWNER).exists():
        raise TeamPermissionError(
            f"only an owner of {team.name} may do that: ask one of its owners."
        )


def team_invite_regenerate(*, team: Team, by: User) -> Team:
    """A new invitation token: links handed out before stop working."""
    _check_owner(team, by)
    team.invite_token = _new_invite_token()
    team.invite_created_at = timezone.now()
    team.save(update_fields=["invite_token", "invite_created_at"])
    return team


def team_invite_expires_at(team: Team) -> datetime:
    return team.invite_created_at + timedelta(days=settings.ARENA_TEAM_INVITE_DAYS)


def team_by_invite(*, token: str) -> Team:
    """The team an invitation token (from its link) leads to, while the link works."""
    team = Team.objects.filter(invite_token=token).first() if token else None
    if team is None:
        raise TeamInviteError(
            "this invitation link does not work (its team made a new one): ask a team "
            "owner for the current link."
        )
    if timezone.now() >= team_invite_expires_at(team):
        raise TeamInviteError(
            f"this invitation link to {team.name} expired: ask a team owner for a new one."
        )
    return team


@transaction.atomic
def team_join(*, user: User, token: str) -> TeamMembership:
    """``user`` joins the team of the invitation ``token`` as a member (once: joining
    again changes nothing)."""
    team = team_by_invite(token=token)
    Team.objects.select_for_update().get(pk=team.pk)
    membership, _ = TeamMembership.objects.get_or_create(
        team=team, user=user, defaults={"role": TeamRole.MEMBER}
    )
    _forget_teams(user)
    return membership


def _forget_teams(user: User) -> None:
    """Drop the teams ``selectors.user_team_ids`` kept on this user object: they changed."""
    user.__dict__.pop("_arena_team_ids", None)


def _locked_membership(team: Team, user: User) -> TeamMembership:
    Team.objects.select_for_update().get(pk=team.pk)  # one change of members at a time
    membership = team.memberships.filter(user=user).first()
    if membership is None:
        raise TeamError(f"{user.username} is not a member of {team.name}.")
    return membership


def _check_not_last_owner(team: Team, membership: TeamMembership) -> None:
    if membership.role != TeamRole.OWNER:
        return
    if not team.memberships.filter(role=TeamRole.OWNER).exclude(pk=membership.pk).exists():
        raise TeamError(
            f"{membership.user.username} is the last owner of {team.name}: make another "
            "member an owner first."
        )


@transaction.atomic
def team_leave(*, team: Team, user: User) -> None:
    """``user`` leaves the team; the bots they created stay the team's. The last owner
    cannot leave: they hand the team over first."""
    membership = _locked_membership(team, user)
    _check_not_last_owner(team, membership)
    membership.delete()
    _forget_teams(user)


@transaction.atomic
def team_member_remove(*, team: Team, user: User, by: User) -> None:
    """A team owner (or staff) takes ``user`` out of the team."""
    _check_owner(team, by)
    membership = _locked_membership(team, user)
    _check_not_last_owner(team, membership)
    membership.delete()
    _forget_teams(user)


@transaction.atomic
def team_member_set_role(*, team: Team, user: User, role: TeamRole, by: User) -> TeamMembership:
    """A team owner makes a member an owner (hands over) or an owner a member."""
    _check_owner(team, by)
    membership = _locked_membership(team, user)
    if role == TeamRole.MEMBER:
        _check_not_last_owner(team, membership)
    membership.role = role
    membership.save(update_fields=["role"])
    return membership
