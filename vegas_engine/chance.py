"""Chance made explicit: chance nodes, their exact outcomes, and states that stop at them.

By default a state resolves chance itself from its seeded generator (the
*tape*: ``docs/rulings.md``, ruling 35), so a game is reproducible from its
description, its seed and its decisions. Started with
``new_game(game, seed, chance="explicit")`` a state stops instead wherever
chance acts, as OpenSpiel's chance nodes: :meth:`State.is_chance_node` is true,
nobody is to move, :meth:`State.chance_outcomes` lists every outcome with its
exact probability, and :meth:`State.apply_chance` takes one.
:meth:`State.tape_outcome` tells the outcome the seed's tape gives there: an
explicit game fed those outcomes is, event for event, the tape's game.

Outcomes are short strings, one chance event each, small enough to list:

- a seat's roll, one node per kind of die it holds, in the order die, biggie,
  kicker, neutral: ``"die 1 1 3 6"`` (the faces ascending: the distinct rolls
  with their multinomial probabilities, 1287 for eight dice);
- neutral dice rolled onto the casinos at a round start: ``"neutral 2 5"``;
- royale's black dice, in rolling order: ``"black 3 5"`` (each 1/36);
- one card drawn from a face-down pile or deck: ``"note 50000"``,
  ``"note rainbow"``, ``"chip blue"``, the card game's ``"card 3D"``,
  royale's ``"card 60000"``, the bank's ``"bank 60000"``, each with the share
  of that card among the cards still unseen;
- royale's tile for the next casino: ``"tile A1"``.

How a state stops mid-way: a decision (or the game's start) runs as one step
until the next decision. When an explicit state's step meets chance, it
raises :class:`NeedChance`; the state keeps what the step did so far (its log
shows the events up to the chance node) and a :class:`PendingChance`: the
state before the step, the step, and the outcomes given so far. Applying an
outcome runs the step again from that state with one more outcome given, so
no rule code has to be written twice. The tape's draws are made on every run
just as in a tape game, so :meth:`State.tape_outcome` is always the tape's.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterable, MutableSequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, Self

from .errors import IllegalActionError
from .state import Action, PendingChance, State, Step

Outcome = str
#: A chance node's outcomes with their probabilities, in a stable order.
Outcomes = dict[Outcome, Fraction]


class ChanceMode(enum.Enum):
    """Who resolves chance in a game: the seeded tape, or the caller."""

    TAPE = "tape"
    """The state rolls and draws by itself from its seeded generator (the default)."""

    EXPLICIT = "explicit"
    """The state stops at every chance node until :meth:`State.apply_chance` is called."""

    @classmethod
    def of(cls, value: ChanceMode | str) -> ChanceMode:
        """The mode named ``value``; a clear error for anything else."""
        mode = _MODES.get(value) if isinstance(value, str | ChanceMode) else None
        if mode is None:
            allowed = ", ".join(repr(known.value) for known in cls)
            raise ValueError(f"chance must be one of {allowed}, got {value!r}")
        return mode


# Every game start looks its mode up: a dict is ten times faster than ChanceMode(value).
_MODES: dict[object, ChanceMode] = {
    **{mode: mode for mode in ChanceMode},
    **{mode.value: mode for mode in ChanceMode},
}


@lru_cache(maxsize=64)
def dice_outcomes(name: str, count: int) -> Outcomes:
    """Every roll of ``count`` dice as ``"name f1 f2 ..."``, faces ascending.

    A roll's probability is its multinomial count of orders over 6^count.
    Shared and cached: callers must not change the mapping.
    """
    total = 6**count
    outcomes: Outcomes = {}
    for faces in itertools.combinations_with_replacement(range(1, 7), count):
        orders = math.factorial(count)
        for repeats in Counter(faces).values():
            orders //= math.factorial(repeats)
        outcomes[dice_text(name, faces)] = Fraction(orders, total)
    return outcomes


@lru_cache(maxsize=8)
def ordered_dice_outcomes(name: str, count: int) -> Outcomes:
    """Every roll of ``count`` dice in rolling order, each 1/6^count."""
    chance = Fraction(1, 6**count)
    return {
        dice_text(name, faces): chance for faces in itertools.product(range(1, 7), repeat=count)
    }


def dice_text(name: str, faces: Iterable[int]) -> Outcome:
    return " ".join((name, *(str(face) for face in faces)))


def faces_of(outcome: Outcome) -> list[int]:
    """The faces (1-6) of a dice outcome, in its order."""
    return [int(face) for face in outcome.split()[1:]]


def draw_outcomes(name: str, cards: Iterable[int], text: Callable[[int], str]) -> Outcomes:
    """Drawing one of ``cards`` (all equally likely): each distinct card with its share."""
    counts = Counter(cards)
    total = sum(counts.values())
    return {
        f"{name} {text(card)}": Fraction(count, total) for card, count in sorted(counts.items())
    }


def reveal(cards: MutableSequence[int], slot: int, region: range, card: int) -> None:
    """Make ``cards[slot]`` be ``card`` by swapping with an equal card in ``region``.

    The unseen cards of a shuffled pile are a random order of what is left, so
    drawing ``card`` from them is taking it out and leaving the rest in their
    order; when ``card`` is the tape's own card nothing moves.
    """
    if cards[slot] == card:
        return
    for index in region:
        if cards[index] == card:
            cards[slot], cards[index] = cards[index], cards[slot]
            return
    raise AssertionError(f"{card!r} is not among the unseen cards")


class NeedChance(Exception):  # a signal to the step's runner, not an error
    """Raised inside a step when chance must act and no outcome was given yet."""

    def __init__(self, outcomes: Outcomes, tape: Outcome) -> None:
        self.outcomes = outcomes
        self.tape = tape


class ExplicitChance(State):
    """Mixin of the explicit-chance state classes: ``class X(ExplicitChance, Game)``.

    The game classes ask :meth:`_chance` for an outcome wherever chance acts
    when their class attribute ``_explicit`` is true; everything else is theirs.
    """

    __slots__ = ()
    _explicit = True

    # Not the one-seat games' fast path: every decision runs as a step.
    apply_action = State.apply_action

    def is_chance_node(self) -> bool:
        return self._pending_chance is not None

    def chance_outcomes(self) -> list[tuple[Outcome, Fraction]]:
        pending = self._pending_chance
        return [] if pending is None else list(pending.outcomes.items())

    def tape_outcome(self) -> Outcome:
        pending = self._pending_chance
        if pending is None:
            raise IllegalActionError(None, None, (), "not a chance node: nothing to resolve")
        return pending.tape

    def apply_chance(self, outcome: Outcome) -> None:
        pending = self._pending_chance
        if pending is None:
            super().apply_chance(outcome)  # raises, saying why
            return
        if not isinstance(outcome, str) or outcome not in pending.outcomes:
            shown = list(pending.outcomes)
            if len(shown) > 12:
                shown = [*shown[:12], f"... ({len(pending.outcomes)} in all)"]
            raise IllegalActionError(None, outcome, shown, "not an outcome of this chance node")
        self._run_step(pending.before, pending.step, (*pending.given, outcome))
        if self._record is not None:
            self._record.moves.append([None, outcome])

    def clone(self) -> Self:
        game: Any = super(ExplicitChance, type(self))  # the game class's own clone
        other: Self = game.clone(self)
        other.__class__ = type(self)
        other._pending_chance = self._pending_chance
        return other

    def _begin(self) -> None:
        self._pending_chance = None
        self._run_step(None, None, ())

    def _settle_position(self) -> None:
        self._pending_chance = None
        self._run_step(None, (), ())

    def _apply(self, seat: int, action: Action) -> None:
        self._run_step(None, (seat, action), ())

    def _run_step(self, before: State | None, step: Step, given: tuple[Outcome, ...]) -> None:
        """Run ``step`` with ``given`` outcomes, from a clone of ``before`` (None: from here)."""
        if before is None:
            before = self.clone()
            run: State = self
        else:
            run = before.clone()
        run._chance_given = given
        run._chance_used = 0
        run._pending_chance = None
        # The game class's own _begin and _apply: the rules, not this mixin's steps.
        game: Any = super(ExplicitChance, type(self))
        try:
            if step is None:
                game._begin(run)
            elif step:
                game._apply(run, *step)
            else:
                game._settle(run)
        except NeedChance as need:
            run._pending_chance = PendingChance(before, step, given, need.outcomes, need.tape)
            run._stop_for_chance()
        if run is not self:
            log = self.events()
            for name in _slot_names(type(self)):
                # The moves are this state's own: the run's are those of the step's start.
                if name != _RECORD and hasattr(run, name):
                    setattr(self, name, getattr(run, name))
            if log is not None:  # the events() list stays the same: callers may hold on to it
                log[:] = self.events() or ()
                setattr(self, _LOG, log)

    def _chance(self, outcomes: Callable[[], Outcomes], tape: Outcome) -> Outcome:
        """The next outcome given to this step, logged; else stop here (:class:`NeedChance`)."""
        used = self._chance_used
        if used < len(self._chance_given):
            self._chance_used = used + 1
            outcome = self._chance_given[used]
            log = self.events()
            if log is not None:
                log.append({"type": "chance", "outcome": outcome})
            return outcome
        raise NeedChance(outcomes(), tape)

    def _chance_card(
        self,
        name: str,
        cards: MutableSequence[int],
        slot: int,
        region: range,
        text: Callable[[int], str],
        value: Callable[[str], int],
    ) -> None:
        """Chance draws the card at ``cards[slot]`` among the unseen ``cards[region]``."""
        outcome = self._chance(
            lambda: draw_outcomes(name, [cards[index] for index in region], text),
            f"{name} {text(cards[slot])}",
        )
        reveal(cards, slot, region, value(outcome.partition(" ")[2]))


#: Where every game class keeps its event list.
_LOG = "_log"
_RECORD = "_record"


@lru_cache(maxsize=16)
def _slot_names(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    return tuple(dict.fromkeys(names))
