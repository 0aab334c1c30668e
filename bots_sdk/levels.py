"""The levels: the house bots from weakest to strongest, a ladder of sparring partners.

One place says which house bot is which level; the platform's Levels page,
its challenge and Play forms, the bot page's "levels beaten" and
``bench/levels.py`` all read :data:`LEVELS`. The order is measured, not
assumed: ``bench/levels.py`` rates every level against the others on every
rule system and says on which ladders each is above the one below it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """One level: its number (1 weakest), its house bot, a title and one line on how it plays."""

    number: int
    #: The house bot's name (``bots_sdk/house/<bot>_bot.py``).
    bot: str
    title: str
    description: str

    @property
    def filename(self) -> str:
        """The house bot's file in ``bots_sdk/house/``."""
        return f"{self.bot}_bot.py"


LEVELS: tuple[Level, ...] = (
    Level(1, "random", "Tourist", "Picks any legal action at random."),
    Level(2, "gambler", "Gambler", "Plays like greedy, but one decision in three at random."),
    Level(3, "greedy", "Regular", "Takes the action that wins the most money right now."),
    Level(
        4,
        "montecarlo",
        "High roller",
        "Plays every action out many times with greedy players and keeps the best on average.",
    ),
    Level(
        5,
        "ismcts",
        "Croupier",
        "Searches a tree of its own decisions over sampled hidden cards and dice "
        "(information-set Monte Carlo tree search), playing to finish ahead.",
    ),
)

#: Each level by its house bot's name.
LEVEL_OF_BOT: dict[str, Level] = {level.bot: level for level in LEVELS}
