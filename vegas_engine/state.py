"""The state API every rule system implements, in the spirit of OpenSpiel.

A state says who must decide now (:meth:`State.to_move`), what each deciding
seat may do (:meth:`State.legal_actions`) and takes decisions
(:meth:`State.apply_action`). Chance (dice, note draws) comes from a seeded
random generator owned by the state, so a game is reproducible from its
description, its seed and its decisions alone; a state started with explicit
chance stops at chance nodes instead (:mod:`vegas_engine.chance`). A decision
with exactly one legal action is applied by the state itself and logged as
forced, so callers only ever see real choices.

Actions are short strings in a stable text form (``"place 3"``,
``"kick 1 biggie"``); ``docs/actions.md`` gives the grammar. Several seats may
be asked at once (simultaneous, hidden decisions): each submits its action
with ``apply_action(action, seat)`` and the state resolves the turn once all
have chosen.
"""

from __future__ import annotations

import enum
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, MutableSequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .description import GameDescription
from .errors import GameOverError, IllegalActionError

if TYPE_CHECKING:
    from .chance import PendingChance

Action = str
JsonDict = dict[str, Any]


class Decision(enum.Enum):
    """What the seats in :meth:`State.to_move` are deciding."""

    PLACE = "place"
    """Choose one rolled face; all dice showing it go to that casino (or the slot machine)."""

    KICK = "kick"
    """Choose which die a kicker just placed removes from its casino."""

    POWER = "power"
    """Power Play: the token holder rolls as usual, or turns one remaining die and places it."""

    HIDE = "hide"
    """Lucky Punch: hide 1, 2 or 3 tokens; only the hider sees the count until the guess."""

    GUESS = "guess"
    """Lucky Punch: the hider's left neighbour guesses how many tokens are hidden."""

    GAMBLE = "gamble"
    """Fifty Fifty: stop and take the reward, or call higher or lower and roll again."""

    CLOSE = "close"
    """No Entry!: close another casino with the token, or keep it where it is."""

    BAR = "bar"
    """Knockout?: an opponent puts one of its remaining dice into the bar."""

    BLOCK = "block"
    """Block It!: take one group of grey dice and choose the casino it goes to."""

    HANDICAP = "handicap"
    """Handicap: move a grey die from a casino onto a reward space, or leave them."""

    MOVE = "move"
    """Turn a remaining die to any face and place it, or take a die back (Handicap, My Choice)."""

    ADD = "add"
    """Prime Time: the casino's winner adds none, one or both black dice to their casinos."""

    SPLIT = "split"
    """Black Box: the winner's left neighbour splits the tokens into two face-down piles."""

    PILE = "pile"
    """Black Box: the casino's winner takes one of the two face-down piles."""

    BET = "bet"
    """Double Down: move any of the seat's dice from this casino to the side bet."""

    NICE = "nice"
    """Nice Dice: put a die just rolled or placed here on the space of its face, or not."""

    CHOOSE = "choose"
    """My Choice: pick the face of one of the two black dice."""

    ACTIVATE = "activate"
    """My Choice face 4: activate another casino's tile."""

    GOLD = "gold"
    """My Choice face 6: put a remaining die on the golden $60,000 space."""

    CHIP = "chip"
    """Take one chip card from the casino where the seat just placed two or more dice, or none."""

    CHANCE = "chance"
    """Nobody decides: chance acts (explicit chance only; see :meth:`State.chance_outcomes`)."""

    SELECT = "select"
    """Choose cards from the hand to play (the card game); may be simultaneous and hidden."""

    NONE = "none"
    """Nobody decides: the game is over."""


# Hot paths test against these: `Decision.NONE` is a class-attribute lookup
# through the enum's metaclass, ten times slower than a module global in 3.11.
_NONE = Decision.NONE
_CHANCE = Decision.CHANCE


@dataclass(frozen=True)
class SeatResult:
    """One seat's final standing; rank 1 is best and tied seats share a rank."""

    seat: int
    money: int
    notes: int
    rank: int

    def to_json(self) -> JsonDict:
        return {"seat": self.seat, "money": self.money, "notes": self.notes, "rank": self.rank}


def rank_seats(money: list[int], notes: list[int]) -> list[SeatResult]:
    """Rank by money, then number of notes; equal on both is a shared rank."""
    keys = list(zip(money, notes, strict=True))
    return [
        SeatResult(seat, money[seat], notes[seat], 1 + sum(other > key for other in keys))
        for seat, key in enumerate(keys)
    ]


class State(ABC):
    """One game in progress. Create it with :func:`vegas_engine.new_game`."""

    # The game's generator, whether a clone shares it (see _random), and where
    # an explicit-chance state stopped (see vegas_engine.chance).
    __slots__ = ("_chance_given", "_chance_used", "_pending_chance", "_rng", "_rng_shared")

    #: The game played (public: players may be told all of it).
    description: GameDescription
    #: The seed that dealt it (never told to players: it fixes every roll to come).
    seed: int
    _rng: random.Random
    _rng_shared: bool
    _pending_chance: PendingChance | None
    _chance_given: tuple[str, ...]
    _chance_used: int
    #: Whether the rule code asks for chance outcomes (explicit chance) or uses the tape.
    _explicit = False

    @abstractmethod
    def to_move(self) -> tuple[int, ...]:
        """The seats that must decide now: one, several at once, or none (over, or chance)."""

    @abstractmethod
    def decision(self) -> Decision:
        """What the seats to move are deciding."""

    @abstractmethod
    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """The legal actions of ``seat`` (default: the only seat to move), in stable order."""

    @abstractmethod
    def _apply(self, seat: int, action: Action) -> None:
        """Apply an action already known to be legal for ``seat``."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy, random generator included."""

    @abstractmethod
    def observe(self, seat: int) -> JsonDict:
        """A JSON-serialisable view with exactly what ``seat`` may know."""

    @abstractmethod
    def result(self) -> list[SeatResult] | None:
        """The final standings, or None while the game goes on."""

    @abstractmethod
    def events(self) -> list[JsonDict] | None:
        """The events logged so far, or None when the state does not log."""

    @abstractmethod
    def _begin(self) -> None:
        """Start the game: deal the first round and run until the first decision."""

    @abstractmethod
    def _stop_for_chance(self) -> None:
        """Nobody decides until chance has acted: decision CHANCE, nobody to move."""

    # ------------------------------------------------------------- chance

    def is_chance_node(self) -> bool:
        """Whether chance acts now (explicit chance only: a tape game resolves it itself)."""
        return False

    def chance_outcomes(self) -> list[tuple[str, Fraction]]:
        """Every outcome chance may give now with its exact probability; empty if none."""
        return []

    def apply_chance(self, outcome: str) -> None:
        """Let chance give ``outcome`` (one of :meth:`chance_outcomes`)."""
        if self.is_terminal():
            raise GameOverError(outcome)
        raise IllegalActionError(
            None,
            outcome,
            (),
            "not a chance node: a tape game rolls and draws by itself"
            if not self._explicit
            else "not a chance node: a seat decides now",
        )

    def tape_outcome(self) -> str:
        """The outcome the seed's tape gives at this chance node."""
        raise IllegalActionError(None, None, (), "not a chance node: nothing to resolve")

    # Where the rules meet chance in an explicit game (vegas_engine.chance.ExplicitChance).

    def _chance(self, outcomes: Callable[[], dict[str, Fraction]], tape: str) -> str:
        raise AssertionError("a tape game resolves chance itself: check _explicit first")

    def _chance_card(
        self,
        name: str,
        cards: MutableSequence[int],
        slot: int,
        region: range,
        text: Callable[[int], str],
        value: Callable[[str], int],
    ) -> None:
        raise AssertionError("a tape game resolves chance itself: check _explicit first")

    def expected_gain(self, action: Action, seat: int) -> float:
        """Money ``seat`` gains if scoring happened right after it takes ``action``.

        The one-ply estimate behind the greedy policy; rule systems override it.
        """
        return 0.0

    def dice_placed_by(self, action: Action, seat: int) -> int:
        """How many dice ``action`` spends; greedy prefers keeping dice on equal gain."""
        return 0

    def is_terminal(self) -> bool:
        return not self.to_move() and not self.is_chance_node()

    def apply_action(self, action: Action, seat: int | None = None) -> None:
        """Apply ``action`` for ``seat``; an illegal action raises and changes nothing."""
        movers = self.to_move()
        if not movers:
            if self.is_chance_node():
                raise IllegalActionError(
                    seat, action, (), "chance acts now, no seat: apply_chance(outcome)"
                )
            raise GameOverError(action)
        if seat is not None and type(seat) is not int:
            raise IllegalActionError(None, action, (), f"a seat is an integer, got {seat!r}")
        if seat is None:
            if len(movers) != 1:
                raise IllegalActionError(
                    None, action, (), f"seats {list(movers)} decide at once: name the seat"
                )
            seat = movers[0]
        elif seat not in movers:
            raise IllegalActionError(
                seat, action, (), f"it is not seat {seat}'s decision (to move: {list(movers)})"
            )
        legal = self.legal_actions(seat)
        if action not in legal:
            raise IllegalActionError(seat, action, legal, "not among the legal actions")
        self._apply(seat, action)

    def _random(self) -> random.Random:
        """The generator to draw from; a copy of its own first if a clone shares it.

        Copying the Mersenne Twister state (2.5 KB) was most of the cost of a
        clone, and a clone is often dropped before it draws again (dice games
        draw only when a round starts), so clones share the generator and
        whichever state draws first copies it: copy on write. The shared
        object is never drawn from while shared, so every state sees exactly
        the numbers it would have with its own copy.
        """
        if self._rng_shared:
            rng = random.Random(0)
            rng.setstate(self._rng.getstate())
            self._rng = rng
            self._rng_shared = False
        return self._rng

    def _share_random(self, other: State) -> None:
        """Give ``other`` (a clone of this state) this state's generator, copy on write."""
        other._rng = self._rng
        other._rng_shared = self._rng_shared = True

    def _seat_to_move(self, seat: int | None) -> int | None:
        """Resolve the default seat for :meth:`legal_actions`; None if it is nobody's turn."""
        movers = self.to_move()
        if seat is None:
            return movers[0] if len(movers) == 1 else None
        return seat if seat in movers else None


class OneSeatState(State):
    """A game where one seat decides at a time: every rule system but the card game.

    Subclasses keep the seat deciding in ``_current``, what it decides in
    ``_decision``, its legal actions in ``_legal`` and the event list (or
    None) in ``_log``; they implement :meth:`_do` and :meth:`_standings`.
    """

    __slots__ = ()

    _current: int
    _decision: Decision
    _legal: tuple[Action, ...]
    _log: list[JsonDict] | None

    @abstractmethod
    def _do(self, action: Action, forced: bool) -> None:
        """Apply a legal action of the seat deciding; logs it as forced or chosen."""

    @abstractmethod
    def _standings(self) -> list[SeatResult]:
        """The standings now (final once the game is over)."""

    def to_move(self) -> tuple[int, ...]:
        decision = self._decision
        return () if decision is _NONE or decision is _CHANCE else (self._current,)

    def decision(self) -> Decision:
        return self._decision

    def is_terminal(self) -> bool:
        return self._decision is _NONE

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        if seat is None or (seat == self._current and self._decision is not _NONE):
            return self._legal
        return ()

    def apply_action(self, action: Action, seat: int | None = None) -> None:
        # The hot path of random playouts: the checks of State.apply_action in one test.
        if (
            self._decision is not _NONE
            and (seat is None or (seat == self._current and type(seat) is int))
            and action in self._legal
        ):
            self._do(action, False)
            # _settle, inlined: most turns end here and a call costs as much as the test.
            while len(self._legal) == 1 and self._decision is not _NONE:
                self._do(self._legal[0], True)
            return
        super().apply_action(action, seat)

    def _apply(self, seat: int, action: Action) -> None:
        self._do(action, forced=False)
        self._settle()

    def _settle(self) -> None:
        """Apply forced decisions (exactly one legal action) until a real choice."""
        while len(self._legal) == 1 and self._decision is not _NONE:
            self._do(self._legal[0], forced=True)

    def result(self) -> list[SeatResult] | None:
        return None if self._decision is not _NONE else self._standings()

    def events(self) -> list[JsonDict] | None:
        return self._log
