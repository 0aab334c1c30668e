"""Fixed-size numbers for learning: the action space, the observation vector, the returns.

Every bridge uses the same three pieces, so a policy trained through one
plays through another:

- :class:`ActionSpace`: every action string the rule system can offer at a
  table (rules, seats, options), in a fixed order; an action is its index,
  and a mask marks the legal ones.
- :class:`ObservationEncoder`: a seat's observation as a fixed-size
  ``float32`` vector, seats counted from the observer (the observer first,
  then its left neighbour, ...), every value in ``[low, high]``. Its
  :attr:`~ObservationEncoder.segments` name each part (``docs/rl.md``).
- :func:`pairwise_returns`: the final reward of each seat, the mean over the
  other seats of +1 (ranked above it), 0 (tied) or -1 (below): zero-sum,
  +1 for winning outright, -1 for finishing last alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _engine
from ._engine import CardView, DiceView, GameState, JsonDict, RoyaleView, Table

FACES = range(1, 7)
KINDS = ("die", "biggie")
COLOURS = ("blue", "gold", "green", "pink", "silver")
#: The card game's cards, ascending: each face single, then double (a seat's deck
#: has 4 singles and 1 double of each face).
CARDS = tuple(card for face in FACES for card in (str(face), f"{face}D"))
SINGLES_PER_FACE, DOUBLES_PER_FACE = 4, 1
#: Black Box's tokens (dollars) and how they are written.
TOKENS = ((60_000, "60k"), (20_000, "20k"), (20_000, "20k"), (0, "0"), (0, "0"), (0, "0"))
#: Royale's tile codes: A1, A2, ..., H2.
TILE_CODES = tuple(f"{letter}{side}" for letter in "ABCDEFGH" for side in (1, 2))
#: Royale: the most regular dice of one seat a Double Down may move (its 7 dice,
#: dice added by Prime Time and bumped by Nice Dice, with room to spare).
MAX_BET = 12

#: Scales: money in millions, notes in units of $100,000.
MONEY = 1_000_000
NOTE = 100_000
#: What a rainbow card counts as in a vector (its stocking value, $40,000).
RAINBOW = 40_000

#: The most masks an action space keeps, by legal actions, to copy instead of build.
MASKS_KEPT = 4096

Vector = npt.NDArray[np.float32]
#: Where an encoder writes a vector's raw numbers before scaling them.
Raw = list[float]
#: Vectors stacked: one row per game.
Vectors = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


class ActionSpaceError(ValueError):
    """The engine offered an action the fixed action space does not hold."""


def pairwise_returns(ranks: Sequence[int]) -> list[float]:
    """Each seat's reward: the mean over the others of +1 (better rank), 0, -1 (worse)."""
    seats = len(ranks)
    return [sum((other > mine) - (other < mine) for other in ranks) / (seats - 1) for mine in ranks]


# ------------------------------------------------------------------ actions


@dataclass(frozen=True)
class ActionSpace:
    """The actions of one table, in a fixed order; an action is its index."""

    actions: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {action: i for i, action in enumerate(self.actions)})
        # Masks by legal-action tuple: a game offers the same few sets again and again.
        object.__setattr__(self, "_masks", {})

    def __len__(self) -> int:
        return len(self.actions)

    def index(self, action: str) -> int:
        try:
            index: int = self.__dict__["_index"][action]
        except KeyError:
            raise ActionSpaceError(
                f"{action!r} is not in this table's action space ({len(self)} actions): "
                "the engine offers an action bots_sdk.rl.encoding does not list; report it"
            ) from None
        return index

    def indices(self, legal: Iterable[str]) -> list[int]:
        return [self.index(action) for action in legal]

    def mask(self, legal: Iterable[str]) -> Mask:
        """1 for each legal action, 0 elsewhere (a new array)."""
        return self.shared_mask(legal).copy()

    def shared_mask(self, legal: Iterable[str]) -> Mask:
        """:meth:`mask`, read-only and shared by every call with the same legal actions."""
        key = legal if isinstance(legal, tuple) else tuple(legal)
        masks: dict[tuple[str, ...], Mask] = self.__dict__["_masks"]
        mask = masks.get(key)
        if mask is None:
            mask = np.zeros(len(self.actions), dtype=np.int8)
            mask[self.indices(key)] = 1
            mask.flags.writeable = False
            if len(masks) < MASKS_KEPT:
                masks[key] = mask
        return mask


def _dice_actions(table: Table) -> list[str]:
    actions = [f"place {face}" for face in FACES]
    if table.options.get("slot_machine"):
        actions += [f"slot {face}" for face in FACES]
    if table.options.get("kickers"):
        kinds = KINDS if table.options.get("biggies") else ("die",)
        actions += [f"kick {seat} {kind}" for seat in range(table.seats) for kind in kinds]
        if table.options.get("neutral_dice"):
            actions.append("kick neutral die")
    return actions


def _chip_actions(table: Table) -> list[str]:
    return [f"chip {colour}" for colour in (*COLOURS, "none")] if table.options["chips"] else []


def _card_selections() -> list[str]:
    """Every card-game selection a deck allows: 1-2 cards of any faces, 3-5 of one face."""
    deck = [card for card in CARDS for _ in range(SINGLES_PER_FACE if len(card) == 1 else 1)]
    chosen: set[tuple[str, ...]] = set()
    for size in range(1, 6):
        for cards in itertools.combinations(deck, size):
            if size <= 2 or len({card[0] for card in cards}) == 1:
                chosen.add(cards)
    ordered = sorted(chosen, key=lambda cards: (len(cards), [CARDS.index(c) for c in cards]))
    return ["play " + " ".join(cards) for cards in ordered]


def _splits() -> list[str]:
    """Black Box: every split into a pile of 3, 4 or 5 tokens and the rest, high first."""
    splits: set[str] = set()
    for size in (3, 4, 5):
        for first in itertools.combinations(range(len(TOKENS)), size):
            piles = (
                [TOKENS[i] for i in first],
                [TOKENS[i] for i in range(len(TOKENS)) if i not in first],
            )
            written = ["+".join(text for _, text in pile) for pile in piles]
            splits.add(f"split {written[0]}/{written[1]}")
    return sorted(splits)


def _royale_actions(table: Table) -> list[str]:
    actions = [f"place {face}" for face in FACES] + ["pass", "skip"]
    if not table.options["tiles"]:
        return actions
    faces_ascending = list(itertools.combinations_with_replacement(FACES, 2))
    return [
        *actions,
        "roll",
        *(f"turn {kind} {face}" for kind in KINDS for face in FACES),
        *(f"return {casino} {kind}" for casino in FACES for kind in KINDS),
        *(f"hide {count}" for count in (1, 2, 3)),
        *(f"guess {count}" for count in (1, 2, 3)),
        "stop",
        "higher",
        "lower",
        *(f"close {casino}" for casino in FACES),
        "keep",
        *(f"bar {kind}" for kind in KINDS),
        *(f"block {size} {casino}" for size in (1, 2, 3) for casino in FACES),
        *(f"take {casino} {space}" for casino in FACES for space in ("chip", "money", "move")),
        "take none",
        "add none",
        *(f"add {face}" for face in FACES),
        *(f"add {low} {high}" for low, high in faces_ascending),
        *_splits(),
        "pile 1",
        "pile 2",
        *(f"bet {count}{biggie}" for count in range(MAX_BET + 1) for biggie in ("", " biggie")),
        "nice none",
        *(f"nice {face}{biggie}" for face in FACES for biggie in ("", " biggie")),
        *(f"choose {face}" for face in FACES),
        *(f"activate {casino}" for casino in FACES),
        *(f"gold {kind}" for kind in KINDS),
    ]


@cache
def action_space(table: Table) -> ActionSpace:
    """Every action the engine may offer at ``table``, in a fixed order."""
    if table.rules in ("classic", "boulevard", "sixdice"):
        actions = _dice_actions(table) + (_chip_actions(table) if "chips" in table.options else [])
    elif table.rules == "cardgame":
        actions = _card_selections() + _chip_actions(table)
    elif table.rules == "royale":
        actions = _royale_actions(table)
    else:
        raise ValueError(f"no action space for rule system {table.rules!r}")
    assert len(set(actions)) == len(actions), "each action is listed once"
    return ActionSpace(tuple(actions))


# ------------------------------------------------------------------ observations


@dataclass(frozen=True)
class Segment:
    """A named slice of the observation vector."""

    name: str
    start: int
    size: int
    low: float
    high: float


class _Layout:
    """The segments of a table's vector, declared in order, with each value's divisor.

    An encoder writes raw numbers (counts, dollars, flags) at fixed offsets of
    a list; one numpy division by the divisors and one clip into the bounds
    turn the list into the vector, instead of scaling and clipping each value
    in Python.
    """

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.divisors: list[float] = []

    @property
    def size(self) -> int:
        return len(self.divisors)

    def add(
        self,
        name: str,
        size: int,
        divisor: float | Sequence[float] = 1.0,
        low: float = 0.0,
        high: float = 1.0,
    ) -> int:
        """Declare the next segment; returns its start."""
        start = self.size
        self.segments.append(Segment(name, start, size, low, high))
        if isinstance(divisor, int | float):
            self.divisors += [float(divisor)] * size
        else:
            assert len(divisor) == size, f"{name}: {len(divisor)} divisors for {size} values"
            self.divisors += [float(d) for d in divisor]
        return start


def _note(note: int | str) -> int:
    """A note's dollars (a rainbow card counts its stocking value)."""
    if note.__class__ is int:
        return note  # type: ignore[return-value]
    return RAINBOW if note == "rainbow" else int(note)


def _one_hot(values: Raw, start: int, index: int | None, size: int) -> None:
    if index is not None and 0 <= index < size:
        values[start + index] = 1


#: The card game's cards and Royale's tiles by their text: their place in a segment.
_CARD_INDEX = {card: i for i, card in enumerate(CARDS)}
_TILE_INDEX = {code: i for i, code in enumerate(TILE_CODES)}
_COLOUR_INDEX = {colour: i for i, colour in enumerate(COLOURS)}
_DICE_DECISIONS = {"place": 0, "kick": 1, "chip": 2}
_CARD_DECISIONS = {"select": 0, "chip": 1}
#: The kinds of dice a dice system's roll shows, in the vector's order.
_ROLL_KINDS = ("die", "biggie", "kicker", "neutral")


class ObservationEncoder:
    """A seat's observation of one table as a fixed-size vector (``docs/rl.md``).

    The layout (every segment's offset and divisor) is worked out once per
    table; :meth:`encode` writes an observation's raw numbers at their
    offsets, seats already turned to count from the observer, and scales and
    clips them all in one numpy pass.
    """

    ROYALE_DECISIONS = (
        "place", "power", "hide", "guess", "gamble", "close", "bar", "block", "handicap",
        "move", "add", "split", "pile", "bet", "nice", "choose", "activate", "gold",
    )  # fmt: skip

    def __init__(self, table: Table) -> None:
        self.table = table
        self.seats = n = table.seats
        self.casinos = 7 if table.options.get("slot_machine") else 6
        self.rounds = _engine.rounds(table.rules)
        self._chips_on = bool(table.options.get("chips"))
        # Rule systems whose states are read straight from their numbers (the
        # others through observe()); each reader says False for a state it cannot read.
        self._read_state: Callable[[Raw, GameState, int], bool] | None = {
            "classic": self._read_dice,
            "boulevard": self._read_dice,
            "sixdice": self._read_dice,
            "cardgame": self._read_cards,
            "royale": self._read_royale,
        }.get(table.rules)
        # Seat s as the observer o sees it: (s - o) % n, a list per observer.
        self._turned = [[(s - o) % n for s in range(n)] for o in range(n)]
        self._seat_of = {str(s): s for s in range(n)}
        self._royale_decisions = {name: i for i, name in enumerate(self.ROYALE_DECISIONS)}
        self._royale_tile_index = [_TILE_INDEX[code] for code in _engine.ROYALE_TILE_CODES]
        sample = _engine.observe(_engine.new_state(table, 0), 0)
        layout = _Layout()
        self._at: dict[str, int] = {}
        self._casino_at: list[dict[str, int]] = []
        self._common_layout(layout)
        fill, build = {
            "classic": (self._dice, self._dice_layout),
            "boulevard": (self._dice, self._dice_layout),
            "sixdice": (self._dice, self._dice_layout),
            "cardgame": (self._cardgame, self._cardgame_layout),
            "royale": (self._royale, self._royale_layout),
        }[table.rules]
        self._fill: Callable[[Raw, JsonDict, list[int]], None] = fill
        build(layout, sample)
        self.segments: tuple[Segment, ...] = tuple(layout.segments)
        self.size = layout.size
        self.low = np.array([s.low for s in self.segments for _ in range(s.size)], dtype=np.float32)
        self.high = np.array(
            [s.high for s in self.segments for _ in range(s.size)], dtype=np.float32
        )
        # The writers fill a copy of this list (a list takes Python's numbers
        # faster than a numpy or C array does, item by item); numpy then
        # converts it whole.
        self._blank: list[float] = [0] * self.size
        self._divisors = np.array(layout.divisors, dtype=np.float64)
        self._low64 = self.low.astype(np.float64)
        self._high64 = self.high.astype(np.float64)
        self._raw = np.zeros(self.size, dtype=np.float64)

    def encode(self, observation: JsonDict, out: Vector | None = None) -> Vector:
        """The vector of ``observation``: a new array, or written into ``out`` (float32)."""
        return self._finish(self._values(observation), out)

    def encode_state(self, state: GameState, seat: int, out: Vector | None = None) -> Vector:
        """The vector of ``seat``'s observation of an engine state (what :meth:`encode`
        gives for ``observe(state, seat)``)."""
        return self._finish(self._state_values(state, seat), out)

    def encode_states(self, views: Sequence[tuple[GameState, int]], out: Vectors) -> Vectors:
        """The vectors of several (state, seat) views, row by row into ``out``:
        scaled and clipped in one numpy pass for all of them."""
        raw = np.array([self._state_values(state, seat) for state, seat in views], np.float64)
        raw = raw.reshape(len(views), self.size)
        np.divide(raw, self._divisors, out=raw)
        np.maximum(raw, self._low64, out=raw)
        np.minimum(raw, self._high64, out=raw)
        out[:] = raw
        return out

    def _values(self, observation: JsonDict) -> Raw:
        """The raw numbers of ``observation`` at their offsets, seats turned."""
        if observation["rules"] != self.table.rules or observation["seats"] != self.seats:
            raise ValueError(
                f"an observation of {observation['rules']} with {observation['seats']} seats; "
                f"this encoder is for {self.table.rules} with {self.seats}"
            )
        values = self._blank.copy()
        turn = self._turned[observation["seat"]]
        self._common(values, observation, turn)
        self._fill(values, observation, turn)
        if len(values) != self.size:
            raise AssertionError(f"encoded {len(values)} values, the layout has {self.size}")
        return values

    def _state_values(self, state: GameState, seat: int) -> Raw:
        """:meth:`_values` of ``observe(state, seat)``; a dice game's straight from its
        numbers (:func:`_engine.dice_view`: what the observation shows, no more)."""
        description = state.description
        if (
            self._read_state is None
            or description.rules != self.table.rules
            or description.seats != self.seats
            or not 0 <= seat < self.seats
        ):
            return self._values(_engine.observe(state, seat))
        values = self._blank.copy()
        if not self._read_state(values, state, seat):
            return self._values(_engine.observe(state, seat))
        if len(values) != self.size:
            raise AssertionError(f"encoded {len(values)} values, the layout has {self.size}")
        return values

    def _read_dice(self, values: Raw, state: GameState, seat: int) -> bool:
        view = _engine.dice_view(state)
        if view is None:
            return False
        self._dice_view(values, view, seat)
        return True

    def _read_royale(self, values: Raw, state: GameState, seat: int) -> bool:
        view = _engine.royale_view(state, seat)
        if view is None:
            return False
        self._royale_view(values, view, seat)
        return True

    def _read_cards(self, values: Raw, state: GameState, seat: int) -> bool:
        view = _engine.card_view(state, seat)
        if view is None:
            return False
        self._card_view(values, view, seat)
        return True

    def _finish(self, values: Raw, out: Vector | None) -> Vector:
        raw = self._raw
        # Division, as the reference divides each value: the same float64, then float32.
        # (A list of ints becomes int64: exact, and divided in float64 all the same.)
        np.divide(np.array(values), self._divisors, out=raw)
        np.maximum(raw, self._low64, out=raw)
        np.minimum(raw, self._high64, out=raw)
        if out is None:
            return raw.astype(np.float32)
        out[:] = raw
        return out

    # The layouts: each declares its segments in the vector's order.

    def _seg(self, layout: _Layout, name: str, size: int, *args: Any, **kwargs: Any) -> int:
        start = layout.add(name, size, *args, **kwargs)
        self._at[name] = start
        return start

    def _common_layout(self, layout: _Layout) -> None:
        n = self.seats
        self._seg(layout, "round", self.rounds)
        self._seg(layout, "to_move", n)
        self._seg(layout, "start_player", n)
        self._seg(layout, "current_player", n)
        self._seg(layout, "money", n, MONEY, high=4.0)
        self._seg(layout, "notes_won", n, 20)
        self._seg(layout, "pile_size", 1, 100)

    def _chips_layout(self, layout: _Layout) -> None:
        if not self._chips_on:
            return
        self._seg(layout, "chips.at_casinos", 6 * len(COLOURS), 2)
        self._seg(layout, "chips.held", self.seats * len(COLOURS), 5)
        self._seg(layout, "chips.deck_size", 1, 25)
        self._seg(layout, "chips.casino", 6)

    def _dice_layout(self, layout: _Layout, sample: JsonDict) -> None:
        n = self.seats
        self._seg(layout, "decision", 3)
        self._seg(layout, "roll", len(_ROLL_KINDS) * 6, 8)
        self._seg(layout, "kick.casino", self.casinos)
        self._seg(layout, "kick.kicks_left", 1, 2)
        for casino in sample["casinos"][: self.casinos]:
            name = f"casino{casino['casino']}"
            at = {
                "notes": layout.add(f"{name}.notes", 5, NOTE),
                "dice": layout.add(f"{name}.dice", n, 8),
                "neutral": layout.add(f"{name}.neutral", 1, 8),
                "biggies": layout.add(f"{name}.biggies", n),
            }
            if casino["casino"] == 7:
                at["slot"] = self._seg(layout, "slot.faces_taken", 6)
            self._casino_at.append(at)
        self._seg(layout, "hands", 4 * n, [8, 1, 2, 8] * n)
        # Per casino: the offsets of its notes, dice, Biggies, neutral dice and
        # slot faces (-1: none).
        self._dice_casinos = [
            (at["notes"], at["dice"], at["biggies"], at["neutral"], at.get("slot", -1))
            for at in self._casino_at
        ]
        self._seg(layout, "kickers_used", n, 2)
        self._seg(layout, "neutral_out", 1, 8)
        self._chips_layout(layout)

    def _cardgame_layout(self, layout: _Layout, sample: JsonDict) -> None:
        n = self.seats
        self._turns: int = sample["turns"]
        self._seg(layout, "decision", 2)
        self._seg(layout, "turn", self._turns)
        for name in ("hand", "discards", "my_choice"):
            self._seg(layout, name, len(CARDS), 4)
        self._seg(layout, "hand_sizes", n, 5)
        self._seg(layout, "draw_sizes", n, 30)
        self._seg(layout, "discard_sizes", n, 30)
        self._seg(layout, "chosen", n)
        self._seg(layout, "finished", n)
        self._seg(layout, "cards_placed", n, 10)
        for casino in sample["casinos"]:
            name = f"casino{casino['casino']}"
            at = {"notes": layout.add(f"{name}.notes", 2, NOTE)}
            at["dice"] = layout.add(f"{name}.dice", n, 10)
            self._casino_at.append(at)
        self._chips_layout(layout)

    def _royale_layout(self, layout: _Layout, sample: JsonDict) -> None:
        n = self.seats
        self._seg(layout, "decision", len(self.ROYALE_DECISIONS))
        self._seg(layout, "context.casino", 6)
        for role in ("hider", "activator", "winner", "splitter"):
            self._seg(layout, f"context.{role}", n)
        self._seg(layout, "roll", len(KINDS) * 6, 8)
        self._seg(layout, "placed.casino", 6)
        self._seg(layout, "placed.dice", 2, [8, 1])
        self._seg(layout, "black_dice", 6, 2)
        for casino in sample["casinos"]:
            name = f"casino{casino['casino']}"
            at = {"cards": layout.add(f"{name}.cards", 3, NOTE)}
            at["dice"] = layout.add(f"{name}.dice", n, 8)
            at["neutral_grey"] = layout.add(f"{name}.neutral_grey", 2, 8)
            at["biggies"] = layout.add(f"{name}.biggies", n)
            at["tile"] = layout.add(f"{name}.tile", len(TILE_CODES))
            at["closed"] = layout.add(f"{name}.closed", 1)
            self._casino_at.append(at)
        self._seg(layout, "hands", 2 * n, [8, 1] * n)
        self._seg(layout, "chips", n, 10)
        self._seg(layout, "bank_credit", n, MONEY, low=-1.0, high=1.0)
        self._seg(layout, "bank_cards", 1, 30)
        self._seg(layout, "under_pile", 1, 30)
        self._round_winners: int = len(sample["round_winners"])
        self._seg(layout, "round_winners", self._round_winners * n)
        self._seg(layout, "tiles.jackpot", 1, NOTE, high=4.0)
        self._seg(layout, "tiles.fifty_fifty", 2, [5, 12])
        self._seg(layout, "tiles.high_five", n)
        self._seg(layout, "tiles.power_play.holder", n)
        self._seg(layout, "tiles.power_play.ready", 1)
        self._seg(layout, "tiles.no_entry.closed", 6)
        self._seg(layout, "tiles.no_entry.track", 1, 5)
        self._seg(layout, "tiles.bar", 2 * n, [8, 1] * n)
        self._seg(layout, "tiles.side_bet", 2 * n, [8, 1] * n)
        self._seg(layout, "tiles.block_it", 3, 2)
        self._seg(layout, "tiles.handicap", 3, 5)
        self._seg(layout, "tiles.nice_dice", 18)
        self._seg(layout, "tiles.golden", n)
        self._seg(layout, "tiles.lucky_punch.hider", n)
        self._seg(layout, "tiles.lucky_punch.tokens", 1, 3)
        self._seg(layout, "tiles.black_box.sizes", 2, 6)
        self._seg(layout, "tiles.bad_luck", n)

    # The writers: raw numbers at the layout's offsets, seats turned by ``turn``.

    def _seat_keyed(self, v: Raw, start: int, mapping: JsonDict, turn: list[int]) -> None:
        """An object keyed by seat (``{"0": 2, "neutral": 1}``): each seat's value."""
        seat_of = self._seat_of
        for key, value in mapping.items():
            seat = seat_of.get(key)
            if seat is not None:
                v[start + turn[seat]] = value

    def _common(self, v: Raw, o: JsonDict, turn: list[int]) -> None:
        at = self._at
        _one_hot(v, at["round"], o["round"] - 1, self.rounds)
        start = at["to_move"]
        for seat in o["to_move"]:
            v[start + turn[seat]] = 1
        v[at["start_player"] + turn[o["start_player"]]] = 1
        current = o["current_player"]
        if current is not None:
            v[at["current_player"] + turn[current]] = 1
        money, notes = at["money"], at["notes_won"]
        for seat, won in enumerate(o["won"]):
            v[notes + turn[seat]] = len(won)
        for seat, value in enumerate(o["money"]):
            v[money + turn[seat]] = value
        v[at["pile_size"]] = o["pile_size"]

    def _chips(self, v: Raw, o: JsonDict, turn: list[int]) -> None:
        if not self._chips_on:
            return
        chips = o["chips"]
        if chips is None:
            return
        at = self._at
        colour = _COLOUR_INDEX
        start = at["chips.at_casinos"]
        for casino, cards in enumerate(chips["at_casinos"]):
            for card in cards:
                if card in colour:
                    v[start + 5 * casino + colour[card]] += 1
        start = at["chips.held"]
        for seat, held in enumerate(chips["held"]):
            row = start + 5 * turn[seat]
            for name, count in held.items():
                if name in colour:
                    v[row + colour[name]] = count
        v[at["chips.deck_size"]] = chips["deck_size"]
        casino = chips["casino"]
        _one_hot(v, at["chips.casino"], None if casino is None else casino - 1, 6)

    def _dice(self, v: Raw, o: JsonDict, turn: list[int]) -> None:
        at = self._at
        _one_hot(v, at["decision"], _DICE_DECISIONS.get(o["decision"]), 3)
        roll = o["roll"]
        if roll is not None:
            start = at["roll"]
            dice = roll["dice"]
            for kind, name in enumerate(_ROLL_KINDS):
                for face in dice.get(name, ()):
                    if 1 <= face <= 6:
                        v[start + 6 * kind + face - 1] += 1
        kick = o["kick"]
        if kick is not None:
            _one_hot(v, at["kick.casino"], kick["casino"] - 1, self.casinos)
            v[at["kick.kicks_left"]] = kick["kicks_left"]
        seat_of = self._seat_of
        for casino, offsets in zip(o["casinos"], self._casino_at, strict=False):
            start = offsets["notes"]
            for i, note in enumerate(casino["notes"][:5]):
                v[start + i] = _note(note)
            start = offsets["dice"]
            for key, count in casino["dice"].items():
                seat = seat_of.get(key)
                if seat is not None:
                    v[start + turn[seat]] = count
                elif key == "neutral":
                    v[offsets["neutral"]] = count
            biggies = casino["biggies"]
            if biggies:
                self._seat_keyed(v, offsets["biggies"], biggies, turn)
            if "slot" in offsets:
                start = offsets["slot"]
                for die in casino.get("faces", ()):
                    if 1 <= die["face"] <= 6:
                        v[start + die["face"] - 1] = 1
        start = at["hands"]
        for seat, hand in enumerate(o["hands"]):
            row = start + 4 * turn[seat]
            v[row] = hand["die"]
            v[row + 1] = hand["biggie"]
            v[row + 2] = hand["kicker"]
            v[row + 3] = hand["neutral"]
        start = at["kickers_used"]
        for seat, used in enumerate(o["kickers_used"]):
            v[start + turn[seat]] = used
        v[at["neutral_out"]] = o["neutral_out"]
        self._chips(v, o, turn)

    def _dice_view(self, v: Raw, view: DiceView, observer: int) -> None:
        """:meth:`_common` and :meth:`_dice` for ``observer`` from a dice game's own numbers."""
        at, n, turn = self._at, self.seats, self._turned[observer]
        self._common_view(v, view, observer)
        _one_hot(v, at["decision"], _DICE_DECISIONS.get(view.decision), 3)
        start = at["roll"]
        for kind, faces in enumerate(view.dice):
            for face in faces:  # 0-5
                v[start + 6 * kind + face] += 1
        if view.kick is not None:
            casino, left = view.kick
            _one_hot(v, at["kick.casino"], casino, self.casinos)
            v[at["kick.kicks_left"]] = left
        # Seats counted from the observer are a list's rotation, values[o:n] +
        # values[:o], written by slice: list operations in C, not a loop per seat.
        o = observer
        counts_of, biggies_of, notes_of = view.counts, view.biggies, view.notes
        for casino, (notes_at, dice_at, biggies_at, neutral_at, slot_at) in enumerate(
            self._dice_casinos[: view.casino_count]
        ):
            notes = notes_of[casino]
            if notes:
                top = sorted(notes, reverse=True)[:5]
                if 0 in top:  # the engine keeps a rainbow card as 0
                    top = [note or RAINBOW for note in top]
                v[notes_at : notes_at + len(top)] = top
            counts, biggies = counts_of[casino], biggies_of[casino]
            v[dice_at : dice_at + n] = counts[o:n] + counts[:o]
            v[neutral_at] = counts[n]
            v[biggies_at : biggies_at + n] = biggies[o:n] + biggies[:o]
            if slot_at >= 0:
                for _, face, _ in view.slot:
                    if 1 <= face <= 6:
                        v[slot_at + face - 1] = 1
        start = at["hands"]
        hands = view.hands
        v[start : start + 4 * n] = [count for hand in hands[o:] + hands[:o] for count in hand[:4]]
        start = at["kickers_used"]
        used = view.kickers_used
        v[start : start + n] = used[o:] + used[:o]
        v[at["neutral_out"]] = view.neutral_out
        self._chips_view(v, view, turn)

    def _common_view(self, v: Raw, view: DiceView | CardView, observer: int) -> None:
        """:meth:`_common` from a game's own numbers."""
        at, turn, o, n = self._at, self._turned[observer], observer, self.seats
        _one_hot(v, at["round"], view.round - 1, self.rounds)
        start = at["to_move"]
        for seat in view.to_move:
            v[start + turn[seat]] = 1
        v[at["start_player"] + turn[view.start]] = 1
        if view.current is not None:
            v[at["current_player"] + turn[view.current]] = 1
        won = view.won[o:] + view.won[:o]
        start = at["money"]
        v[start : start + n] = [sum(notes) for notes in won]
        start = at["notes_won"]
        v[start : start + n] = [len(notes) for notes in won]
        v[at["pile_size"]] = view.pile_size

    def _chips_view(self, v: Raw, view: DiceView | CardView, turn: list[int]) -> None:
        """:meth:`_chips` from a game's own numbers."""
        if not self._chips_on or view.chips is None:
            return
        at = self._at
        colours, at_casinos, held, deck_size, chip_casino = view.chips
        colour = [_COLOUR_INDEX[name] for name in colours]
        start = at["chips.at_casinos"]
        for casino, cards in enumerate(at_casinos):
            for card in cards:
                v[start + 5 * casino + colour[card]] += 1
        start = at["chips.held"]
        for seat, cards in enumerate(held):
            row = start + 5 * turn[seat]
            for card in cards:
                v[row + colour[card]] += 1
        v[at["chips.deck_size"]] = deck_size
        _one_hot(v, at["chips.casino"], None if chip_casino is None else chip_casino - 1, 6)

    def _royale_view(self, v: Raw, view: RoyaleView, observer: int) -> None:
        """:meth:`_common`, :meth:`_royale` and :meth:`_royale_tiles` from a Royale game
        as ``observer`` sees it."""
        at, turn, o, n = self._at, self._turned[observer], observer, self.seats
        _one_hot(v, at["round"], view.round - 1, self.rounds)
        start = at["to_move"]
        for seat in view.to_move:
            v[start + turn[seat]] = 1
        v[at["start_player"] + turn[view.start]] = 1
        if view.current is not None:
            v[at["current_player"] + turn[view.current]] = 1
        start = at["money"]
        v[start : start + n] = view.money[o:] + view.money[:o]
        start = at["notes_won"]
        won = view.won
        v[start : start + n] = [len(cards) for cards in won[o:] + won[:o]]
        v[at["pile_size"]] = view.pile_size
        decisions = self._royale_decisions
        _one_hot(v, at["decision"], decisions.get(view.decision), len(decisions))
        context = view.context
        casino = context.get("casino")
        _one_hot(v, at["context.casino"], None if casino is None else casino - 1, 6)
        for role in ("hider", "activator", "winner", "splitter"):
            self._seat_hot(v, f"context.{role}", context.get(role), turn)
        start, arena = at["roll"], view.arena
        for face in FACES:
            v[start + face - 1] = arena[2 * face]
            v[start + 5 + face] = arena[2 * face + 1]
        placed = view.placed
        if placed[0] >= 0:
            _one_hot(v, at["placed.casino"], placed[0], 6)
            v[at["placed.dice"]] = placed[2]
            v[at["placed.dice"] + 1] = placed[3]
        start = at["black_dice"]
        for face in view.black:
            if 1 <= face <= 6:
                v[start + face - 1] += 1
        tile_index = self._royale_tile_index
        for casino, offsets in enumerate(self._casino_at):
            start = offsets["cards"]
            for i, card in enumerate(view.cards[casino][:3]):
                v[start + i] = card
            counts = view.counts[casino]
            start = offsets["dice"]
            v[start : start + n] = counts[o:n] + counts[:o]
            v[offsets["neutral_grey"]] = counts[n]
            v[offsets["neutral_grey"] + 1] = counts[n + 1]
            biggies = view.biggies[casino]
            start = offsets["biggies"]
            v[start : start + n] = biggies[o:n] + biggies[:o]
            tile = view.tiles[casino]
            if tile >= 0:
                v[offsets["tile"] + tile_index[tile]] = 1
            v[offsets["closed"]] = casino == view.closed
        start = at["hands"]
        hands = view.hands
        v[start : start + 2 * n] = [count for hand in hands[o:] + hands[:o] for count in hand[:2]]
        start = at["chips"]
        v[start : start + n] = view.chips[o:] + view.chips[:o]
        start = at["bank_credit"]
        v[start : start + n] = view.credit[o:] + view.credit[:o]
        v[at["bank_cards"]] = view.bank_cards
        v[at["under_pile"]] = view.under_pile
        start = at["round_winners"]
        for casino, seat in enumerate(view.round_winners):
            if seat >= 0:
                v[start + n * casino + turn[seat]] = 1
        v[at["tiles.jackpot"]] = view.jackpot
        v[at["tiles.fifty_fifty"]] = view.fifty_step
        v[at["tiles.fifty_fifty"] + 1] = view.fifty_sum
        if view.high_five >= 0:
            v[at["tiles.high_five"] + turn[view.high_five]] = 1
        if view.power >= 0:
            v[at["tiles.power_play.holder"] + turn[view.power]] = 1
        v[at["tiles.power_play.ready"]] = view.power_ready
        _one_hot(v, at["tiles.no_entry.closed"], view.closed if view.closed >= 0 else None, 6)
        v[at["tiles.no_entry.track"]] = view.no_entry_track
        for name, pairs in (("tiles.bar", view.bar), ("tiles.side_bet", view.side_bet)):
            start = at[name]
            v[start : start + 2 * n] = [x for pair in pairs[o:] + pairs[:o] for x in pair[:2]]
        start = at["tiles.block_it"]
        for size in view.groups:
            if 1 <= size <= 3:
                v[start + size - 1] += 1
        start = at["tiles.handicap"]
        v[start : start + 3] = view.handicap[:3]
        start = at["tiles.nice_dice"]
        nice = view.nice
        for face in FACES:
            die = nice[face] if face < len(nice) else -1
            if die >= 0:
                row = start + 3 * (face - 1)
                v[row if turn[die >> 1] == 0 else row + 1] = 1
                if die & 1:
                    v[row + 2] = 1
        if view.gold >= 0:
            v[at["tiles.golden"] + turn[view.gold >> 1]] = 1
        if view.lucky_punch is not None:
            hider, tokens = view.lucky_punch
            v[at["tiles.lucky_punch.hider"] + turn[hider]] = 1
            if tokens is not None:
                v[at["tiles.lucky_punch.tokens"]] = tokens
        if view.black_box_sizes is not None:
            start = at["tiles.black_box.sizes"]
            v[start], v[start + 1] = view.black_box_sizes
        start = at["tiles.bad_luck"]
        for seat in view.bad_luck:
            v[start + turn[seat]] = 1

    def _card_view(self, v: Raw, view: CardView, observer: int) -> None:
        """:meth:`_common` and :meth:`_cardgame` from a card game as ``observer`` sees it."""
        at, turn = self._at, self._turned[observer]
        self._common_view(v, view, observer)
        _one_hot(v, at["decision"], _CARD_DECISIONS.get(view.decision), 2)
        _one_hot(v, at["turn"], view.turn - 1, self._turns)
        # A card is face << 1 | double: "1" is 2, "1D" 3 ... "6D" 13; CARDS has them in order.
        start = at["hand"]
        for card in view.hand:
            v[start + card - 2] += 1
        start = at["discards"]
        for card in view.discards:
            v[start + card - 2] += 1
        if view.my_choice:
            self._cards(v, at["my_choice"], view.my_choice.split()[1:])
        self._by_seat(v, at["hand_sizes"], view.hand_sizes, turn)
        self._by_seat(v, at["draw_sizes"], view.draw_sizes, turn)
        self._by_seat(v, at["discard_sizes"], view.discard_sizes, turn)
        self._by_seat(v, at["finished"], view.finished, turn)
        start = at["chosen"]
        for seat in view.chosen:
            v[start + turn[seat]] = 1
        placed_at = at["cards_placed"]
        for casino, (offsets, by_seat) in enumerate(zip(self._casino_at, view.placed, strict=True)):
            notes = view.notes[casino]
            if notes:
                start = offsets["notes"]
                for i, note in enumerate(sorted(notes, reverse=True)[:2]):
                    v[start + i] = note
            start = offsets["dice"]
            for seat, cards in enumerate(by_seat):
                if cards:
                    v[start + turn[seat]] = len(cards) + sum(card & 1 for card in cards)
                    v[placed_at + turn[seat]] += len(cards)
        self._chips_view(v, view, turn)

    @staticmethod
    def _cards(v: Raw, start: int, cards: Iterable[str]) -> None:
        for card in cards:
            v[start + _CARD_INDEX[card]] += 1

    def _by_seat(self, v: Raw, start: int, values: Iterable[float], turn: list[int]) -> None:
        for seat, value in enumerate(values):
            v[start + turn[seat]] = value

    def _cardgame(self, v: Raw, o: JsonDict, turn: list[int]) -> None:
        at = self._at
        _one_hot(v, at["decision"], _CARD_DECISIONS.get(o["decision"]), 2)
        _one_hot(v, at["turn"], o["turn"] - 1, self._turns)
        self._cards(v, at["hand"], o["hand"])
        self._cards(v, at["discards"], o["discards"])
        choice = o["my_choice"]
        if choice:
            self._cards(v, at["my_choice"], choice.split()[1:])
        for name in ("hand_sizes", "draw_sizes", "discard_sizes", "finished", "cards_placed"):
            self._by_seat(v, at[name], o[name], turn)
        start = at["chosen"]
        for seat in o["chosen"]:
            v[start + turn[seat]] = 1
        for casino, offsets in zip(o["casinos"], self._casino_at, strict=False):
            start = offsets["notes"]
            for i, note in enumerate(casino["notes"][:2]):
                v[start + i] = _note(note)
            self._seat_keyed(v, offsets["dice"], casino["dice"], turn)
        self._chips(v, o, turn)

    def _seat_hot(self, v: Raw, name: str, seat: int | None, turn: list[int]) -> None:
        if seat is not None:
            v[self._at[name] + turn[seat]] = 1

    def _royale(self, v: Raw, o: JsonDict, turn: list[int]) -> None:
        at = self._at
        _one_hot(
            v,
            at["decision"],
            self._royale_decisions.get(o["decision"]),
            len(self._royale_decisions),
        )
        context = o["context"]
        casino = context.get("casino")
        _one_hot(v, at["context.casino"], None if casino is None else casino - 1, 6)
        for role in ("hider", "activator", "winner", "splitter"):
            self._seat_hot(v, f"context.{role}", context.get(role), turn)
        start = at["roll"]
        roll = o["roll"]
        for kind, name in enumerate(KINDS):
            for face in roll.get(name, ()):
                if 1 <= face <= 6:
                    v[start + 6 * kind + face - 1] += 1
        placed = o["placed"]
        if placed is not None:
            _one_hot(v, at["placed.casino"], placed["casino"] - 1, 6)
            v[at["placed.dice"]] = placed["die"]
            v[at["placed.dice"] + 1] = placed["biggie"]
        start = at["black_dice"]
        for face in o["black_dice"]:
            if 1 <= face <= 6:
                v[start + face - 1] += 1
        for casino, offsets in zip(o["casinos"], self._casino_at, strict=False):
            start = offsets["cards"]
            for i, card in enumerate(casino["cards"][:3]):
                v[start + i] = _note(card)
            dice = casino["dice"]
            self._seat_keyed(v, offsets["dice"], dice, turn)
            v[offsets["neutral_grey"]] = dice.get("neutral", 0)
            v[offsets["neutral_grey"] + 1] = dice.get("grey", 0)
            self._seat_keyed(v, offsets["biggies"], casino["biggies"], turn)
            tile = casino["tile"]
            if tile is not None:
                v[offsets["tile"] + _TILE_INDEX[tile]] = 1
            v[offsets["closed"]] = casino["closed"]
        start = at["hands"]
        for seat, hand in enumerate(o["hands"]):
            row = start + 2 * turn[seat]
            v[row] = hand["die"]
            v[row + 1] = hand["biggie"]
        self._by_seat(v, at["chips"], o["chips"], turn)
        self._by_seat(v, at["bank_credit"], o["bank_credit"], turn)
        v[at["bank_cards"]] = len(o["bank_cards"])
        v[at["under_pile"]] = len(o["under_pile"])
        start, n = at["round_winners"], self.seats
        for casino, seat in enumerate(o["round_winners"]):
            if seat is not None:
                v[start + n * casino + turn[seat]] = 1
        self._royale_tiles(v, o["tiles"], turn)

    def _royale_tiles(self, v: Raw, t: JsonDict, turn: list[int]) -> None:
        at = self._at
        v[at["tiles.jackpot"]] = t["jackpot"]
        v[at["tiles.fifty_fifty"]] = t["fifty_fifty"]["step"]
        v[at["tiles.fifty_fifty"] + 1] = t["fifty_fifty"]["sum"]
        self._seat_hot(v, "tiles.high_five", t["high_five"], turn)
        self._seat_hot(v, "tiles.power_play.holder", t["power_play"]["holder"], turn)
        v[at["tiles.power_play.ready"]] = t["power_play"]["ready"]
        closed = t["no_entry"]["closed"]
        _one_hot(v, at["tiles.no_entry.closed"], None if closed is None else closed - 1, 6)
        v[at["tiles.no_entry.track"]] = t["no_entry"]["track"]
        for part in ("bar", "side_bet"):
            start = at[f"tiles.{part}"]
            for seat, dice in enumerate(t[part]):
                row = start + 2 * turn[seat]
                v[row] = dice["die"]
                v[row + 1] = dice["biggie"]
        start = at["tiles.block_it"]
        for size in t["block_it"]:
            if 1 <= size <= 3:
                v[start + size - 1] += 1
        start, spaces = at["tiles.handicap"], t["handicap"]
        v[start], v[start + 1], v[start + 2] = spaces["chip"], spaces["money"], spaces["move"]
        start = at["tiles.nice_dice"]
        nice = t["nice_dice"]
        for face in FACES:
            die = nice.get(str(face))
            if die is not None:
                row = start + 3 * (face - 1)
                v[row if turn[die["owner"]] == 0 else row + 1] = 1
                if die["die"] == "biggie":
                    v[row + 2] = 1
        golden = t["golden"]
        self._seat_hot(v, "tiles.golden", None if golden is None else golden["owner"], turn)
        punch = t["lucky_punch"]
        if punch is not None:
            self._seat_hot(v, "tiles.lucky_punch.hider", punch["hider"], turn)
            if punch["tokens"] is not None:
                v[at["tiles.lucky_punch.tokens"]] = punch["tokens"]
        box = t["black_box"]
        if box is not None:
            start = at["tiles.black_box.sizes"]
            for i, size in enumerate(box["sizes"]):
                v[start + i] = size
        start = at["tiles.bad_luck"]
        for seat in t["bad_luck"]:
            v[start + turn[seat]] = 1


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m bots_sdk.rl.encoding``: a table's vector layout and action space."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--options", default="{}", help="JSON, e.g. '{\"chips\": true}'")
    args = parser.parse_args(argv)
    table = _engine.table(args.rules, args.seats, json.loads(args.options))
    encoder = ObservationEncoder(table)
    print(f"{table.rules}, {table.seats} seats, {dict(table.options)}")
    print(f"observation vector: {encoder.size} values")
    for segment in encoder.segments:
        print(
            f"  {segment.start:4d}  {segment.name:28s} {segment.size:3d}"
            f"  [{segment.low:g}, {segment.high:g}]"
        )
    actions = action_space(table).actions
    print(f"actions: {len(actions)}")
    for index, action in enumerate(actions):
        print(f"  {index:4d}  {action}")


if __name__ == "__main__":
    main()
