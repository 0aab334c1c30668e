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
from typing import Any

from .description import GameDescription
from .errors import GameOverError, IllegalActionError

Action = str
JsonDict = dict[str, Any]


class Decision(enum.Enum):
    """What the seats in :meth:`State.to_move` decide: the base of every rule system's kinds.

    Each rule system owns its decision kinds, an enum of this base (``DiceDecision``,
    ``CardDecision``, ``RoyaleDecision``) whose values are the ``decision``
    strings of observations (docs/observation.md). Each has ``CHANCE`` (nobody
    decides: chance acts; explicit chance only) and ``NONE`` (the game is over).
    """


#: A step of play (see vegas_engine.chance): None for the game's start, () for a
#: restored position's forced decisions, else (seat, action).
Step = tuple[()] | tuple[int, Action] | None


@dataclass(frozen=True)
class PendingChance:
    """Where an explicit-chance state stopped: enough to run its step again.

    (The machinery is :class:`vegas_engine.chance.ExplicitChance`'s; the state
    keeps this in a slot of its own.)
    """

    #: The state just before the step (never changed: runs start from clones of it).
    before: State
    step: Step
    #: Outcomes given so far in this step, in order.
    given: tuple[str, ...]
    #: The outcomes of the chance node with their probabilities, in a stable order.
    outcomes: dict[str, Fraction]
    #: The outcome the seed's tape gives there.
    tape: str


@dataclass(frozen=True)
class SeatResult:
    """One seat's final standing; rank 1 is best and tied seats share a rank."""

    seat: int
    money: int
    notes: int
    rank: int

    def to_json(self) -> JsonDict:
        return {"seat": self.seat, "money": self.money, "notes": self.notes, "rank": self.rank}


class LogMode(enum.Enum):
    """What a state keeps of its game for :func:`vegas_engine.log.game_log`."""

    EVENTS = "events"
    """Every event as it happens (a schema 1 log): what a replay viewer reads."""
    MOVES = "moves"
    """Only the moves that are not the engine's own: each seat's chosen (not forced)
    action and each outcome given to explicit chance, with the starting position
    (a schema 2 log). The events follow from them, made on demand by
    :func:`vegas_engine.log.expand`: a fraction of the cost of keeping them."""
    NONE = "none"
    """Nothing: the fastest playouts (search, training)."""

    @classmethod
    def of(cls, value: LogMode | bool | str) -> LogMode:
        """``True`` is EVENTS, ``False`` NONE; a name is looked up; anything else raises."""
        if value is True or value is False:
            return cls.EVENTS if value else cls.NONE
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(repr(mode.value) for mode in cls)
            raise ValueError(f"log={value!r}: one of {names}, True or False") from None


class MoveRecord:
    """The moves of a :attr:`LogMode.MOVES` state, in the order they were applied.

    A move is ``[seat, action]`` for a seat's decision and ``[None, outcome]``
    for an outcome given to explicit chance: lists, as they are written in JSON.
    """

    __slots__ = ("moves", "position")

    def __init__(self, position: JsonDict | None, moves: list[list[Any]]) -> None:
        #: The position the game started from (None: the deal of its seed).
        self.position = position
        self.moves = moves

    def copy(self) -> MoveRecord:
        return MoveRecord(self.position, self.moves[:])


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
    __slots__ = (
        "_chance_given",
        "_chance_used",
        "_pending_chance",
        "_record",
        "_rng",
        "_rng_shared",
    )

    #: The game played (public: players may be told all of it).
    description: GameDescription
    #: The seed that dealt it (never told to players: it fixes every roll to come).
    seed: int
    _rng: random.Random
    _rng_shared: bool
    _pending_chance: PendingChance | None
    _chance_given: tuple[str, ...]
    _chance_used: int
    #: The moves kept by a LogMode.MOVES state (None: another mode).
    _record: MoveRecord | None
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
    def position(self) -> JsonDict:
        """The whole state as JSON, to go on from with :func:`vegas_engine.from_position`.

        See :mod:`vegas_engine.position`; taken where a seat decides or the game is over.
        """

    @abstractmethod
    def _begin(self) -> None:
        """Start the game: deal the first round and run until the first decision."""

    @abstractmethod
    def _settle(self) -> None:
        """Apply forced decisions (exactly one legal action) until a real choice."""

    @abstractmethod
    def _start_log(self, position: JsonDict | None) -> None:
        """Log from a position on (its first event), or keep no log (None)."""

    def _settle_position(self) -> None:
        """Take a restored position's forced decisions (explicit chance: as a step)."""
        self._settle()

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

    @property
    def explicit_chance(self) -> bool:
        """Whether the state stops at chance nodes (``new_game(..., chance="explicit")``)."""
        return self._explicit

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
        if self._record is not None:
            self._record.moves.append([seat, action])

    def moves(self) -> MoveRecord | None:
        """The moves kept so far (a LogMode.MOVES state), or None in another mode."""
        return self._record

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
    ``_legal`` is empty exactly when nobody decides (the game is over, or
    chance acts): the hot paths need no decision kind to know.
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
        return (self._current,) if self._legal else ()

    def decision(self) -> Decision:
        return self._decision

    def is_terminal(self) -> bool:
        return not self._legal and not self.is_chance_node()

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        if seat is None or seat == self._current:
            return self._legal
        return ()

    def apply_action(self, action: Action, seat: int | None = None) -> None:
        # The hot path of random playouts: the checks of State.apply_action in one test.
        if (seat is None or (seat == self._current and type(seat) is int)) and (
            action in self._legal
        ):
            if self._record is not None:
                self._record.moves.append([self._current, action])
            self._do(action, False)
            # _settle, inlined: most turns end here and a call costs as much as the test.
            while len(self._legal) == 1:
                self._do(self._legal[0], True)
            return
        super().apply_action(action, seat)

    def _apply(self, seat: int, action: Action) -> None:
        self._do(action, forced=False)
        self._settle()

    def _settle(self) -> None:
        while len(self._legal) == 1:
            self._do(self._legal[0], forced=True)

    def result(self) -> list[SeatResult] | None:
        return self._standings() if self.is_terminal() else None

    def events(self) -> list[JsonDict] | None:
        return self._log
