"""The registry of what an author can be told: one member per kind of event.

Every kind is chosen per author and per channel (e-mail, webhook) on the
notification settings page; the description is what that page and
docs/notifications.md say of it. An app that emits a kind calls
:func:`arena.notifications.flows.notify` with it.
"""

from __future__ import annotations

from django.db import models


class EventKind(models.TextChoices):
    PREFLIGHT = "version.preflight", "A version passed or failed its pre-flight"
    """Emitted by ``ladders.tasks.version_qualify`` once a version's pre-flights are decided
    (one notification for the ladders decided together)."""
    COMPETITION_PHASE = "competition.phase", "A competition you entered changed phase"
    """Reserved for competitions (not built yet): they emit it at each change of phase."""
    LEAGUE_ROUND = "league.round", "Results of a league round your bot played"
    """Emitted by ``leagues.tasks`` after a sweep or tick closed a round (to each entrant's
    owner, once per round)."""
    CHALLENGE_FINISHED = "challenge.finished", "A challenge you asked for finished"
    """Emitted by ``ladders.tasks.match_run`` once every game of a challenge is over."""
    LEVEL_BEAT = "level.beat", "A level beat your bot for the first time"
    """Emitted by ``ladders.tasks`` after a rated game is rated, when a level finished ahead
    of a bot for the first time on that ladder."""
    TEST = "test", "A test sent from the settings page"
    """Not a choice of the author's: the settings page's "send a test" (every channel set up)."""

    @property
    def description(self) -> str:
        return DESCRIPTIONS[self]

    @classmethod
    def choosable(cls) -> list[EventKind]:
        """The kinds an author turns on and off (every one but the test)."""
        return [kind for kind in cls if kind != cls.TEST]


DESCRIPTIONS: dict[EventKind, str] = {
    EventKind.PREFLIGHT: (
        "Each pre-flight of a new version, on each ladder it entered, once decided: "
        "passed (it plays there) or failed (with the reason)."
    ),
    EventKind.COMPETITION_PHASE: (
        "A competition you entered opened, froze submissions, started its final event or "
        "ended. Reserved: competitions emit it once they exist on this platform."
    ),
    EventKind.LEAGUE_ROUND: (
        "A round of a league one of your bots plays in closed: your bots' places and the "
        "standings after it."
    ),
    EventKind.CHALLENGE_FINISHED: (
        "Every game of a challenge you asked for is over (played, or failed for good)."
    ),
    EventKind.LEVEL_BEAT: (
        "A level (a house bot of the Levels page) finished ahead of one of your bots in a "
        "rated game for the first time on that ladder."
    ),
    EventKind.TEST: "Sent by the settings page's test button, whatever your choices.",
}
