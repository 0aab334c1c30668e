"""Writes on bots: creating bots, storing uploads as versions, moving statuses."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import PurePath
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from arena.errors import ArenaError
from arena.players.models import Team, TeamRole, User
from arena.players.selectors import team_role
from arena.transitions import check_move

from .models import WORKBENCH_SUFFIX, Bot, BotVersion, CodeFormat, VersionStatus, Visibility
from .sandboxing import InfrastructureError
from .uploads import CheckedUpload, UploadError, UploadLimits, check_upload
from .validation import (
    DEFAULT_GAMES,
    GameCheck,
    Games,
    ValidationReport,
    build_version,
    preflight_games,
    validate_version,
)

log = logging.getLogger(__name__)


class BotNameError(ArenaError):
    code = "bot_name_invalid"


class BotNameTakenError(ArenaError):
    code = "bot_name_taken"


class UploadIdenticalError(UploadError):
    """The upload is the bot's latest version again: a new version would change nothing."""

    code = "upload_identical"


class BotInvalidError(ArenaError):
    code = "bot_invalid"


class VersionTransitionError(ArenaError):
    code = "version_transition"


# A validation taking longer than this lost its worker or its task.
STUCK_VALIDATION = timedelta(minutes=10)

# The allowed moves of a version's status. VALIDATING -> PENDING puts back a
# version whose validation worker was lost, so it is validated again.
VERSION_TRANSITIONS: Mapping[VersionStatus, frozenset[VersionStatus]] = {
    VersionStatus.PENDING: frozenset({VersionStatus.VALIDATING, VersionStatus.RETIRED}),
    # VALIDATING -> RETIRED: it passed, but a newer version is already active.
    VersionStatus.VALIDATING: frozenset(
        {VersionStatus.ACTIVE, VersionStatus.FAILED, VersionStatus.PENDING, VersionStatus.RETIRED}
    ),
    VersionStatus.ACTIVE: frozenset({VersionStatus.RETIRED}),
    VersionStatus.FAILED: frozenset(),
    VersionStatus.RETIRED: frozenset(),
}


def upload_limits() -> UploadLimits:
    return UploadLimits(
        max_bytes=settings.ARENA_UPLOAD_MAX_BYTES,
        max_uncompressed_bytes=settings.ARENA_UPLOAD_MAX_UNCOMPRESSED_BYTES,
        max_files=settings.ARENA_UPLOAD_MAX_FILES,
        max_ratio=settings.ARENA_UPLOAD_MAX_RATIO,
    )


def code_storage_name(upload: CheckedUpload) -> str:
    """Where an upload lives in the storage: named by its hash, shared by equal uploads."""
    suffix = "zip" if upload.code_format == CodeFormat.ZIP else upload.files[0].rpartition(".")[2]
    return f"bots/code/{upload.sha256[:2]}/{upload.sha256}.{suffix}"


class BotTeamError(ArenaError):
    code = "bot_team_invalid"


class BotTeamForbiddenError(BotTeamError):
    code = "bot_team_forbidden"
    http_status = 403


def _check_member(team: Team, user: User) -> None:
    if team_role(team=team, user=user) is None:
        raise BotTeamForbiddenError(
            f"you are not a member of {team.name}: join it by its invitation link first."
        )


def _name_taken(name: str, team: Team | None) -> BotNameTakenError:
    if team is not None:
        return BotNameTakenError(
            f"{team.name} or you already have a bot named {name!r} (names ignore case): "
            "upload a new version of it, or choose another name."
        )
    return BotNameTakenError(
        f"you already have a bot named {name!r} (names ignore case): upload a new "
        "version of it, or choose another name."
    )


def bot_create(
    *,
    owner: User,
    name: str,
    visibility: Visibility = Visibility.PUBLIC,
    description: str = "",
    team: Team | None = None,
) -> Bot:
    """A bot of ``owner``'s; with ``team`` (one of the owner's teams), the team's."""
    if team is not None:
        _check_member(team, owner)
    bot = Bot(owner=owner, name=name, visibility=visibility, description=description, team=team)
    try:
        bot.full_clean(validate_constraints=False)
    except ValidationError as error:
        raise BotNameError("; ".join(error.messages)) from None
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        raise _name_taken(name, team) from None
    return bot


def bot_team_set(*, bot: Bot, team: Team | None, by: User) -> Bot:
    """Move ``bot`` into ``team`` or (None) out of its team, back to its owner alone.

    In: by someone who manages the bot (its owner, or staff) and is a member of
    ``team``; the name must be free in the team. Out: by an owner of the bot's team
    (or staff); the bot stays its owner's.
    """
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        if locked.workbench:
            raise BotTeamError(f"{locked.name} holds the editor's test builds: it has no team.")
        current = locked.team
        if (
            current is not None
            and (team is None or team.pk != current.pk)
            and not by.is_staff
            and team_role(team=current, user=by) != TeamRole.OWNER
        ):
            raise BotTeamForbiddenError(
                f"{locked.name} is {current.name}'s: only an owner of {current.name} "
                "takes it out of the team."
            )
        if team is not None and (current is None or team.pk != current.pk):
            if not by.is_staff and by.pk != locked.owner_id:
                raise BotTeamForbiddenError(
                    f"only {locked.name}'s owner moves it into a team: ask them."
                )
            if not by.is_staff:
                _check_member(team, by)
        locked.team = team
        try:
            with transaction.atomic():
                locked.save(update_fields=["team", "updated_at"])
        except IntegrityError:
            raise BotNameTakenError(
                f"{team.name if team else locked.owner.username} already has a bot named "
                f"{locked.name!r} (names ignore case): rename one of them first."
            ) from None
    log.info("bot %s: team %s -> %s by %s", locked.pk, current, team, by.pk)
    return locked


def bot_version_upload(
    *,
    bot: Bot,
    filename: str,
    content: bytes,
    runtime: str | None = None,
) -> BotVersion:
    """Check an upload and store it as the bot's next version (status pending).

    ``runtime`` is the uploader's choice of language; None takes it from the
    file's suffix or the archive's main file.

    Either both the file and the row exist afterwards, or neither: a refused
    upload stores nothing, and a failure after the file was written removes
    the file again (unless another version already shares it). Validating it
    for the games it enters is the caller's (``arena.ladders.services.entries``).
    """
    checked = check_upload(filename, content, upload_limits(), runtime=runtime)
    return _store_version(bot=bot, checked=checked, filename=filename)


def _store_version(
    *, bot: Bot, checked: CheckedUpload, filename: str, refuse_identical: bool = True
) -> BotVersion:
    name = code_storage_name(checked)
    wrote_file = False
    try:
        with transaction.atomic():
            # The bot row lock serialises concurrent uploads to the same bot,
            # so version numbers are consecutive.
            locked = Bot.objects.select_for_update().get(pk=bot.pk)
            latest = locked.versions.order_by("-number").first()
            if refuse_identical and latest is not None and latest.code_sha256 == checked.sha256:
                raise UploadIdenticalError(
                    f"this file is identical to version {latest.number} of {locked.name} "
                    f"(same SHA-256, {latest.get_status_display().lower()}): change the "
                    "code to upload a new version."
                )
            # Share the file only if a version names it: an unnamed one is an orphan the
            # sweep (arena.blobs.sweep) may be deleting; a fresh copy is young, so safe.
            if not BotVersion.objects.filter(code_sha256=checked.sha256, code=name).exists():
                stored = default_storage.save(name, ContentFile(checked.content))
                wrote_file = True
                # An orphan or a concurrent upload of the same bytes may hold the name.
                name = stored
            version = BotVersion.objects.create(
                bot=locked,
                number=(latest.number + 1) if latest else 1,
                parent=latest,
                code=name,
                code_sha256=checked.sha256,
                code_size=checked.size,
                code_format=checked.code_format,
                runtime=checked.runtime,
                filename=PurePath(filename.replace("\\", "/")).name[:255],
                validation_report={"files": list(checked.files)},
            )
    except BaseException:
        if wrote_file:
            _delete_unshared(name)
        raise
    return version


def _delete_unshared(name: str) -> None:
    """Remove a file this upload wrote, unless a version refers to it.

    Racy only if an identical upload commits in between (its version would
    then lose the shared file); if the database cannot tell, keep the file.
    """
    try:
        shared = BotVersion.objects.filter(code=name).exists()
    except DatabaseError:
        return
    if not shared:
        default_storage.delete(name)


def bot_upload(
    *,
    owner: User,
    name: str,
    filename: str,
    content: bytes,
    visibility: Visibility = Visibility.PUBLIC,
    runtime: str | None = None,
    team: Team | None = None,
) -> BotVersion:
    """Upload code for the owner's bot named ``name`` (with ``team``: the team's bot of
    that name, the owner being a member), creating the bot on first upload.

    The upload is checked before the bot is created, so a refused first
    upload leaves no empty bot behind. ``runtime`` as in :func:`bot_version_upload`.
    """
    if team is not None:
        _check_member(team, owner)
    checked = check_upload(filename, content, upload_limits(), runtime=runtime)
    with transaction.atomic():
        named = Bot.objects.filter(name__iexact=name, workbench=False)
        bot = (named.filter(team=team) if team else named.filter(owner=owner)).first()
        if bot is None:
            bot = bot_create(owner=owner, name=name, visibility=visibility, team=team)
        return _store_version(bot=bot, checked=checked, filename=filename)


def bot_version_transition(
    *,
    version: BotVersion,
    to: VersionStatus,
    report: Mapping[str, Any] | None = None,
) -> BotVersion:
    """Move a version to status ``to``; raises VersionTransitionError if not allowed.

    Activating a version retires the bot's previous active version in the
    same transaction (one playing version per bot).
    """
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        current = VersionStatus(locked.status)
        check_move(VERSION_TRANSITIONS, current, to, what=locked, error=VersionTransitionError)
        now = timezone.now()
        if to == VersionStatus.ACTIVE:
            Bot.objects.select_for_update().get(pk=locked.bot_id)
            BotVersion.objects.filter(bot_id=locked.bot_id, status=VersionStatus.ACTIVE).update(
                status=VersionStatus.RETIRED, status_changed_at=now
            )
        locked.status = to
        locked.status_changed_at = now
        fields = ["status", "status_changed_at"]
        if report is not None:
            locked.validation_report = {**locked.validation_report, **report}
            fields.append("validation_report")
        locked.save(update_fields=fields)
    log.info("bot version %s: %s -> %s", locked.pk, current, to)
    return locked


def bot_version_validate(*, version: BotVersion, games: Games | None = None) -> BotVersion:
    """Validate a pending version for ``games`` (arena.bots.validation): active or failed.

    ``games`` by the caller's keys (ladder slugs); None: the SDK's default
    pre-flight game. The report (``validation_report["games"]``) tells how each
    game went. A version already past validation is left as it is (the task
    may be delivered twice). A failure of ours puts it back to pending and
    raises InfrastructureError, for a sweep to queue it again. A version
    passing after a newer one became active is retired: the newest plays.
    """
    return _validated(
        version,
        lambda checked: validate_version(checked, DEFAULT_GAMES if games is None else games),
    )


def _validated(version: BotVersion, check: Callable[[BotVersion], ValidationReport]) -> BotVersion:
    """Run ``check`` on a pending version and move it to its verdict (see bot_version_validate)."""
    if version.status != VersionStatus.PENDING:
        return version
    try:
        version = bot_version_transition(version=version, to=VersionStatus.VALIDATING)
    except VersionTransitionError:
        # Another worker took it between our read and our lock.
        return version
    try:
        report = check(version)
        if report.passed and report.program:
            version.build = _store_program(report.build_key, report.program)
            BotVersion.objects.filter(pk=version.pk).update(build=version.build)
    except InfrastructureError as error:
        bot_version_transition(
            version=version, to=VersionStatus.PENDING, report={"infra_error": str(error)}
        )
        raise
    to = VersionStatus.ACTIVE if report.passed else VersionStatus.FAILED
    newer_active = BotVersion.objects.filter(
        bot_id=version.bot_id, status=VersionStatus.ACTIVE, number__gt=version.number
    )
    if to == VersionStatus.ACTIVE and newer_active.exists():
        to = VersionStatus.RETIRED
    return bot_version_transition(version=version, to=to, report=report.to_json())


#: The characters of a draft's bot name its workbench's name keeps (a name is at most 40).
WORKBENCH_NAME_KEEPS = 34
#: A test build in these states was built (or failed to): the same code again reuses it.
_BUILT = (VersionStatus.ACTIVE, VersionStatus.RETIRED, VersionStatus.FAILED)


def workbench_build_store(
    *, owner: User, name: str, checked: CheckedUpload, filename: str
) -> BotVersion:
    """A test build of ``checked`` for the owner's draft of bot ``name``: a version of
    their workbench bot for it (created on first use), pending its build.

    The latest test build is reused when its code is the same and its build is
    done: the same build step gives the same program or the same report.
    """
    workbench_name = f"{name[:WORKBENCH_NAME_KEEPS]}{WORKBENCH_SUFFIX}"
    with transaction.atomic():
        User.objects.select_for_update().get(pk=owner.pk)  # one workbench per name
        workbench = Bot.objects.filter(owner=owner, name=workbench_name, workbench=True).first()
        if workbench is None:
            # '~' is no character of a bot's name: no bot of the owner's can take this one.
            workbench = Bot.objects.create(
                owner=owner, name=workbench_name, visibility=Visibility.PRIVATE, workbench=True
            )
        latest = workbench.versions.order_by("-number").first()
        if latest is not None and latest.code_sha256 == checked.sha256 and latest.status in _BUILT:
            return latest
        return _store_version(
            bot=workbench, checked=checked, filename=filename, refuse_identical=False
        )


def workbench_build_make(*, version: BotVersion) -> BotVersion:
    """Build a pending test build (the upload's build step, no pre-flight): active with
    its program stored, or failed with the same build report as an upload of its code.

    As :func:`bot_version_validate`: one that is not pending is left as it is, and a
    failure of ours puts it back to pending and raises InfrastructureError.
    """
    if not version.bot.workbench:
        raise BotInvalidError(f"{version} is no test build: validate it as an upload.")
    return _validated(version, build_version)


def program_storage_name(key: str) -> str:
    """Where a built program lives: named by its build's content key, shared by equal builds."""
    return f"bots/builds/{key[:2]}/{key}.zip"


def _store_program(key: str, program: bytes) -> str:
    """Keep a built program (once per content key), so no match ever builds it again."""
    name = program_storage_name(key)
    try:
        # As for code: shared only if a version names it (an orphan may be being swept).
        if not BotVersion.objects.filter(build=name).exists():
            name = default_storage.save(name, ContentFile(program))
    except OSError as error:
        raise InfrastructureError(f"cannot store the built program {name}: {error}") from error
    return name


def bot_version_check_games(*, version: BotVersion, games: Games) -> dict[str, GameCheck]:
    """Pre-flight a validated version for more games (a bot entered another ladder).

    The checks join its report's ``games``; its status does not change. A
    failure of ours raises InfrastructureError and records nothing.
    """
    checks = preflight_games(version, games)
    with transaction.atomic():
        locked = BotVersion.objects.select_for_update().get(pk=version.pk)
        report = dict(locked.validation_report)
        report["games"] = {
            **report.get("games", {}),
            **{key: check.report for key, check in checks.items()},
        }
        locked.validation_report = report
        locked.save(update_fields=["validation_report"])
    return checks


def bot_versions_stuck(*, older_than: timedelta = STUCK_VALIDATION) -> list[BotVersion]:
    """Versions whose validation task was lost, back to pending, for a sweep to queue again.

    A version still validating after ``older_than`` lost its worker and goes
    back to pending; a pending one lost its task (or waits behind a long
    queue: validating twice is harmless), and its clock restarts so a long
    queue is not flooded every sweep.
    """
    cutoff = timezone.now() - older_than
    stuck = BotVersion.objects.filter(
        status__in=[VersionStatus.PENDING, VersionStatus.VALIDATING], status_changed_at__lt=cutoff
    ).exclude(
        # A lost test build is the editor's: its author runs the test game again.
        bot__workbench=True
    )
    found = []
    for version in stuck:
        if version.status == VersionStatus.VALIDATING:
            try:
                version = bot_version_transition(version=version, to=VersionStatus.PENDING)
            except VersionTransitionError:
                continue  # finished meanwhile
        else:
            BotVersion.objects.filter(pk=version.pk).update(status_changed_at=timezone.now())
        found.append(version)
    return found


def bot_version_retire(*, version: BotVersion) -> BotVersion:
    return bot_version_transition(version=version, to=VersionStatus.RETIRED)


def bot_update(
    *, bot: Bot, visibility: Visibility | None = None, description: str | None = None
) -> Bot:
    """Change a bot's visibility and/or description (its owner's choices)."""
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        fields = ["updated_at"]
        if visibility is not None:
            locked.visibility = visibility
            fields.append("visibility")
        if description is not None:
            locked.description = description
            fields.append("description")
        try:
            locked.full_clean(validate_constraints=False)
        except ValidationError as error:
            raise BotInvalidError("; ".join(error.messages)) from None
        locked.save(update_fields=fields)
    return locked
