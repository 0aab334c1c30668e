"""A version's statuses: validation, activation (retiring the previous one), final states."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.models import VersionStatus
from arena.bots.services import (
    VersionTransitionError,
    bot_upload,
    bot_version_retire,
    bot_version_transition,
    bot_version_validate,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# A real SDK bot: validation plays a pre-flight game with it.
GOOD = b"""\
from bots_sdk import Bot, run


class First(Bot):
    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(First)
"""
BROKEN = b"def act(observation)\n    return 1\n"


def upload(owner: Any, content: bytes, name: str = "shark") -> Any:
    return bot_upload(owner=owner, name=name, filename=f"{name}.py", content=content)


def test_validation_makes_a_good_version_active(alice: Any) -> None:
    version = bot_version_validate(version=upload(alice, GOOD))

    assert version.status == VersionStatus.ACTIVE
    report = version.validation_report
    assert report["passed"] is True and report["checked_files"] == ["main.py"]


def test_validation_fails_a_version_with_a_syntax_error_and_says_where(alice: Any) -> None:
    version = bot_version_validate(version=upload(alice, BROKEN))

    assert version.status == VersionStatus.FAILED
    assert version.validation_report["passed"] is False
    assert version.validation_report["errors"] == ["main.py, line 1: expected ':'"]


def test_activating_a_new_version_retires_the_previous_one(alice: Any) -> None:
    v1 = bot_version_validate(version=upload(alice, GOOD))
    v2 = bot_version_validate(version=upload(alice, GOOD + b"# v2\n"))

    v1.refresh_from_db()
    assert (v1.status, v2.status) == (VersionStatus.RETIRED, VersionStatus.ACTIVE)
    assert v2.parent == v1


def test_a_failed_new_version_leaves_the_active_one_playing(alice: Any) -> None:
    v1 = bot_version_validate(version=upload(alice, GOOD))
    v2 = bot_version_validate(version=upload(alice, BROKEN))

    v1.refresh_from_db()
    assert (v1.status, v2.status) == (VersionStatus.ACTIVE, VersionStatus.FAILED)


def test_validating_twice_is_harmless(alice: Any) -> None:
    from arena.ladders.flows import entries_set
    from arena.ladders.models import Qualification, QualificationStatus
    from arena.ladders.tasks import version_qualify
    from tests.platform.factories import LadderFactory

    version = upload(alice, GOOD)
    entries_set(bot=version.bot, ladders=[LadderFactory()])
    version_qualify(version.pk)
    (first,) = Qualification.objects.filter(bot_version=version)
    version_qualify(version.pk)  # a redelivered task
    version_qualify(10**9)  # a deleted version

    version.refresh_from_db()
    assert version.status == VersionStatus.ACTIVE
    (again,) = Qualification.objects.filter(bot_version=version)
    assert (again.status, again.seed) == (QualificationStatus.PASSED, first.seed)


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        ([VersionStatus.VALIDATING, VersionStatus.FAILED], VersionStatus.ACTIVE),
        ([VersionStatus.RETIRED], VersionStatus.ACTIVE),
        ([], VersionStatus.ACTIVE),  # pending cannot skip validation
        ([VersionStatus.VALIDATING, VersionStatus.ACTIVE], VersionStatus.PENDING),
    ],
)
def test_forbidden_transitions_are_refused(
    alice: Any, path: list[VersionStatus], refused: VersionStatus
) -> None:
    version = upload(alice, GOOD)
    for status in path:
        version = bot_version_transition(version=version, to=status)

    with pytest.raises(VersionTransitionError, match=f"cannot become {refused}"):
        bot_version_transition(version=version, to=refused)


def test_a_lost_validation_goes_back_to_pending(alice: Any) -> None:
    version = bot_version_transition(version=upload(alice, GOOD), to=VersionStatus.VALIDATING)
    version = bot_version_transition(version=version, to=VersionStatus.PENDING)
    assert bot_version_validate(version=version).status == VersionStatus.ACTIVE


def test_retire(alice: Any) -> None:
    version = bot_version_retire(version=bot_version_validate(version=upload(alice, GOOD)))
    assert version.status == VersionStatus.RETIRED
    with pytest.raises(VersionTransitionError, match="none \\(final\\)"):
        bot_version_retire(version=version)


def test_stuck_validations_are_queued_again(
    alice: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    from datetime import timedelta

    settings.ARENA_BUILDS_IN_FLIGHT_MAX = 3  # alice's three uploads are all in flight

    from django.utils import timezone

    from arena.bots.models import BotVersion
    from arena.ladders.flows import bot_submit
    from arena.ladders.tasks import qualifications_requeue_stuck
    from tests.platform.factories import LadderFactory

    ladder = LadderFactory()

    def submit(name: str) -> BotVersion:
        # Committed with its tasks dropped: as if the broker lost them.
        with django_capture_on_commit_callbacks(execute=False):
            return bot_submit(
                owner=alice, name=name, filename="b.py", content=GOOD, ladders=[ladder]
            )

    lost_task = submit("lost")
    lost_worker = bot_version_transition(version=submit("crashed"), to=VersionStatus.VALIDATING)
    recent = submit("recent")
    long_ago = timezone.now() - timedelta(hours=1)
    BotVersion.objects.filter(pk__in=[lost_task.pk, lost_worker.pk]).update(
        status_changed_at=long_ago
    )

    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert qualifications_requeue_stuck() == 2
    # The two pre-flights; each, run eagerly, then queues its notification to alice.
    assert len(queued) == 4

    statuses = dict(BotVersion.objects.values_list("pk", "status"))
    assert statuses[lost_task.pk] == statuses[lost_worker.pk] == VersionStatus.ACTIVE
    assert statuses[recent.pk] == VersionStatus.PENDING


def test_player_names_are_checked() -> None:
    from arena.players.services import PlayerError, player_create

    with pytest.raises(PlayerError, match="valid username"):
        player_create(username="not a name!")
