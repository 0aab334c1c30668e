"""What the competitions tell people (``arena.notifications``): each change of phase,
to the organiser and to the owner of every bot entered. Called by the one place a
phase changes (:func:`.services.common.move`), inside its transaction: the deliveries
are queued once it commits, and a move rolled back tells nobody."""

from __future__ import annotations

from datetime import datetime

from arena.notifications.flows import notify
from arena.notifications.kinds import EventKind
from arena.notifications.links import site_link
from arena.players.models import User

from .models import Competition, EntryStatus, Phase

#: What each phase means for an entrant, in a sentence.
WHAT_NOW = {
    Phase.ENTRY: "Entry is open: enter a bot from the competition's page.",
    Phase.SEASON: "Entry has closed; the ladder plays on and you may still upload versions.",
    Phase.FROZEN: ("Submissions are frozen: each entrant's version is fixed for the final event."),
    Phase.FINAL: "The final event is being played on the frozen versions.",
    Phase.ARCHIVED: "It is over: the final standings are archived.",
    Phase.CANCELLED: "It was cancelled.",
}


def phase_changed(competition: Competition, old: Phase, new: Phase, now: datetime) -> None:
    """Tell the organiser and each entrant's owner, once per person and phase."""
    owners = User.objects.filter(
        bots__competition_entries__competition=competition,
        bots__competition_entries__status=EntryStatus.ENTERED,
    )
    people = {user.pk: user for user in owners}
    people.setdefault(competition.organiser_id, competition.organiser)
    subject = f"{competition.title}: {new.label}"
    link = site_link("web:competition", slug=competition.slug)
    text = f"{subject}. {WHAT_NOW.get(new, '')}\n{link}"
    if new == Phase.CANCELLED and competition.note:
        text = f"{subject}: {competition.note}\n{link}"
    for user in people.values():
        notify(
            user=user,
            kind=EventKind.COMPETITION_PHASE,
            key=f"competition-phase:{competition.pk}:{new.value}",
            subject=subject,
            text=text,
            payload={
                "competition": competition.slug,
                "title": competition.title,
                "from": old.value,
                "phase": new.value,
                "at": now.isoformat(),
                "url": link,
            },
            now=now,
        )
