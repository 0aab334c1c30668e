"""The dice game shared by `classic` and `boulevard`, driven by rule data.

A round: casinos are stocked with notes, then seats take turns from the start
player: roll every die still in hand, choose one face, and place all dice
showing it on that face's casino (or on the slot machine). Kickers remove one
die of their placer's choice as they land. When the last die is placed,
rainbow cards are replaced and the casinos pay out one by one.

Hot-path notes (random playouts run millions of turns): a roll is kept as the
tape's bytes (faces 0-5), one bytes object per kind of die, so it is a slice
of the tape and ``bytes.count`` tells how many dice show a face; legal actions
are tuples of interned strings, looked up by the set of faces rolled; events
are built only when the state logs.
"""

from __future__ import annotations

import enum
import functools
import itertools
import random
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..chance import ChanceMode, ExplicitChance, dice_outcomes, dice_text, faces_of
from ..description import GameDescription
from ..errors import InvalidPositionError
from ..position import (
    CHANCE_POSITION,
    check_bool,
    check_cards,
    check_choice,
    check_equal,
    check_fields,
    check_int,
    check_keys,
    check_list,
    check_null,
    check_object,
    check_seat,
    check_sorted,
    check_total,
    decision_of,
    finish,
    refuse,
    restore,
)
from ..state import Action, Decision, JsonDict, OneSeatState, SeatResult, rank_seats
from .chips import ChipRules
from .rolls import NO_TAPE, RollTape

#: The rainbow card, kept among the notes as value 0.
RAINBOW = 0

# Kinds of dice in a seat's hand, and their names in logs and observations.
DIE, BIGGIE, KICKER, NEUTRAL = 0, 1, 2, 3
KIND_NAMES = ("die", "biggie", "kicker", "neutral")

CASINOS = 6
SLOT = 6  # casino index of the slot machine; it is "casino 7" in logs
MAX_SEATS = 6

PLACE_ACTIONS: tuple[Action, ...] = tuple(f"place {face}" for face in range(7))
#: Tape faces (bytes 0-5) to the numbers shown (1-6).
FACE_NUMBERS = bytes((byte + 1) % 256 for byte in range(256))
SLOT_ACTIONS: tuple[Action, ...] = tuple(f"slot {face}" for face in range(7))
#: action -> (casino index, face)
PLACE_TARGETS: dict[Action, tuple[int, int]] = {
    **{PLACE_ACTIONS[face]: (face - 1, face) for face in range(1, 7)},
    **{SLOT_ACTIONS[face]: (SLOT, face) for face in range(1, 7)},
}
NEUTRAL_OWNER = -1  # in kick actions; the state maps it to its own neutral index
KICK_TARGETS: dict[Action, tuple[int, int]] = {
    **{f"kick {seat} die": (seat, DIE) for seat in range(MAX_SEATS)},
    **{f"kick {seat} biggie": (seat, BIGGIE) for seat in range(MAX_SEATS)},
    "kick neutral die": (NEUTRAL_OWNER, DIE),
}
#: The place actions for each bit mask of rolled faces (bit f set: face f shows).
PLACES_BY_MASK: tuple[tuple[Action, ...], ...] = tuple(
    tuple(PLACE_ACTIONS[face] for face in range(1, 7) if mask >> face & 1) for mask in range(128)
)
#: The place actions for each set of rolled faces as tape bytes (0-5).
PLACES_BY_FACES: dict[frozenset[int], tuple[Action, ...]] = {
    frozenset(face - 1 for face in range(1, 7) if mask >> face & 1): PLACES_BY_MASK[mask]
    for mask in range(0, 128, 2)
}
#: The place actions for each roll of up to 4 dice, as tape bytes: half the rolls of a
#: round are that short, and looking the bytes up costs a third of making a frozenset.
PLACES_BY_SHORT_ROLL: dict[bytes, tuple[Action, ...]] = {
    bytes(roll): PLACES_BY_FACES[frozenset(roll)]
    for size in range(1, 5)
    for roll in itertools.product(range(6), repeat=size)
}
#: A roll of no dice: one empty bytes per kind.
NO_ROLL: tuple[bytes, ...] = (b"", b"", b"", b"")
KICK_DIE_ACTIONS = tuple(f"kick {seat} die" for seat in range(MAX_SEATS))
KICK_BIGGIE_ACTIONS = tuple(f"kick {seat} biggie" for seat in range(MAX_SEATS))
KICK_NEUTRAL = "kick neutral die"


class DiceDecision(Decision):
    """What a seat decides in a dice game (`classic`, `boulevard`, `sixdice`)."""

    PLACE = "place"
    """Choose one rolled face; all dice showing it go to that casino (or the slot machine)."""

    KICK = "kick"
    """Choose which die a kicker just placed removes from its casino."""

    CHIP = "chip"
    """Take one chip card from the casino where the seat just placed two or more dice, or none."""

    CHANCE = "chance"
    """Nobody decides: chance acts (explicit chance only; see ``State.chance_outcomes``)."""

    NONE = "none"
    """Nobody decides: the game is over."""


# For the hot paths: a module global is much cheaper than `DiceDecision.PLACE` in 3.11.
_PLACE, _KICK, _OVER = DiceDecision.PLACE, DiceDecision.KICK, DiceDecision.NONE


class UnwonNotes(enum.Enum):
    """Where a casino's unwon notes, and the neutral player's winnings, go."""

    PILE = "pile"
    """Face down under the pile (classic, boulevard)."""

    BOX = "box"
    """Back to the box, out of the game (sixdice)."""


class NextStart(enum.Enum):
    """Who starts the next round."""

    LEFT = "left"
    """The seat to the left of the current start player."""

    LAST_ROLLER = "last_roller"
    """The seat that rolled last in the round just ended."""


# Read once a round or once a payout: module globals, for the reason of _PLACE above.
_TO_PILE, _LAST_ROLLER = UnwonNotes.PILE, NextStart.LAST_ROLLER


@dataclass(frozen=True)
class DiceRules:
    """A dice rule system's component data; every printed number lives here."""

    notes: Mapping[int, int]
    rounds: int
    dice_per_seat: int
    #: Stock each casino until it holds at least this much (by seat count)...
    minimum_by_seats: Mapping[int, int] | None = None
    #: ...or with exactly this many notes.
    notes_per_casino: int | None = None
    neutral_held_by_seats: Mapping[int, int] = field(default_factory=dict)
    neutral_preplaced_by_seats: Mapping[int, int] = field(default_factory=dict)
    big_notes: Mapping[int, int] = field(default_factory=dict)
    rainbow_cards: int = 0
    rainbow_stock_value: int = 0
    kickers_by_seats: Mapping[int, int] = field(default_factory=dict)
    unwon_to: UnwonNotes = UnwonNotes.PILE
    next_start: NextStart = NextStart.LEFT


@dataclass(frozen=True)
class DiceSetup:
    """The rules resolved for one game: seat count and options applied."""

    seats: int
    rounds: int
    #: Dice each seat holds at the start of a round: die, biggie, kicker, neutral.
    hand: tuple[int, int, int, int]
    neutral_preplaced: int
    minimum: int | None
    notes_per_casino: int | None
    #: Every note in the game, in a canonical order (shuffled at the start).
    notes: tuple[int, ...]
    rainbow_stock_value: int
    slot_machine: bool
    unwon_to: UnwonNotes
    next_start: NextStart
    chips: ChipRules | None = None

    @classmethod
    def build(
        cls,
        rules: DiceRules,
        seats: int,
        *,
        neutral_dice: bool = False,
        big_notes: bool = False,
        biggies: bool = False,
        kickers: bool = False,
        rainbow: bool = False,
        slot_machine: bool = False,
        chips: ChipRules | None = None,
    ) -> DiceSetup:
        biggie_count = 1 if biggies else 0
        kicker_count = rules.kickers_by_seats.get(seats, 0) if kickers else 0
        regular = rules.dice_per_seat - biggie_count - kicker_count
        neutral = rules.neutral_held_by_seats.get(seats, 0) if neutral_dice else 0
        preplaced = rules.neutral_preplaced_by_seats.get(seats, 0) if neutral_dice else 0
        notes = [value for value, count in sorted(rules.notes.items()) for _ in range(count)]
        if big_notes:
            notes += [
                value for value, count in sorted(rules.big_notes.items()) for _ in range(count)
            ]
        if rainbow:
            notes += [RAINBOW] * rules.rainbow_cards
        minimum = None
        if rules.minimum_by_seats is not None:
            minimum = rules.minimum_by_seats[seats]
        return cls(
            seats=seats,
            rounds=rules.rounds,
            hand=(regular, biggie_count, kicker_count, neutral),
            neutral_preplaced=preplaced,
            minimum=minimum,
            notes_per_casino=rules.notes_per_casino,
            notes=tuple(notes),
            rainbow_stock_value=rules.rainbow_stock_value,
            slot_machine=slot_machine,
            unwon_to=rules.unwon_to,
            next_start=rules.next_start,
            chips=chips,
        )


class DiceView(NamedTuple):
    """A dice game as :meth:`DiceGame.observe` shows it, in the state's own numbers.

    Read-only and not copied: the lists are the state's (a caller must not
    change them, and must read them before the next action). Everything in a
    dice game is public, so every seat sees this same view. For encoders that
    need the numbers without the JSON (``bots_sdk.rl.encoding``).
    """

    decision: str
    #: The round shown (1-based, as in observations), and the start player.
    round: int
    start: int
    #: The seat deciding, None once the game is over; the seats to move.
    current: int | None
    to_move: tuple[int, ...]
    #: This turn's roll: each kind's faces (0-5) in KIND_NAMES order (none once over).
    dice: tuple[bytes, ...]
    #: During a kick: the kicker's casino (0-based) and the kicks left; else None.
    kick: tuple[int, int] | None
    casino_count: int
    #: Per casino (0-based, the slot machine last): dice per owner (the neutral
    #: owner last; a Biggie counts 2), Biggies per owner, and its notes (a
    #: rainbow card is RAINBOW), in no order.
    counts: list[list[int]]
    biggies: list[list[int]]
    notes: list[list[int]]
    #: The slot machine's dice as (owner, face, weight).
    slot: list[tuple[int, int, int]]
    #: Per seat: dice left of each kind, in KIND_NAMES order.
    hands: list[list[int]]
    kickers_used: list[int]
    neutral_out: int
    #: Per seat: the notes won.
    won: list[list[int]]
    pile_size: int
    #: With chips: their colours, the cards (colour indices) at each casino and
    #: held by each seat, the deck's size and the casino (1-based) of a chip
    #: decision; None without chips.
    chips: tuple[tuple[str, ...], list[list[int]], list[list[int]], int, int | None] | None


def owner_name(owner: int, seats: int) -> int | str:
    return "neutral" if owner >= seats else owner


class DiceGame(OneSeatState):
    """A game of a dice rule system (`classic`, `boulevard`, `sixdice`)."""

    _decision: DiceDecision

    __slots__ = (
        "_biggies",
        "_casino_count",
        "_chip_casino",
        "_chip_deck",
        "_chips_at",
        "_chips_held",
        "_counts",
        "_current",
        "_decision",
        "_dice",
        "_discarded",
        "_hands",
        "_kick_casino",
        "_kickers_used",
        "_kicks_left",
        "_last_roller",
        "_legal",
        "_log",
        "_n",
        "_neutral_out",
        "_notes",
        "_pile",
        "_returned",
        "_rolls",
        "_round",
        "_setup",
        "_slot",
        "_slot_from",
        "_start",
        "_tape",
        "_won",
        "description",
        "seed",
    )

    def __init__(
        self, description: GameDescription, seed: int, setup: DiceSetup, log: bool
    ) -> None:
        n = setup.seats
        self.description = description
        self.seed = seed
        self._setup = setup
        self._n = n
        self._rng = random.Random(seed)
        self._rng_shared = False
        pile = list(setup.notes)
        self._rng.shuffle(pile)
        self._pile: deque[int] = deque(pile)
        # Notes put under the pile so far: known, drawn after the unseen ones (see _unseen).
        self._returned = 0
        # Chip cards as colour indices; shuffled only when in play, so games
        # without chips draw exactly the same dice.
        self._chip_deck: list[int] = []
        if setup.chips is not None:
            self._chip_deck = setup.chips.deck()
            self._rng.shuffle(self._chip_deck)
        self._chips_at: list[list[int]] = [[] for _ in range(CASINOS)]
        self._chips_held: list[list[int]] = [[] for _ in range(n)]
        self._chip_casino = -1
        self._discarded: list[int] = []  # rainbow cards and notes returned to the box
        self._won: list[list[int]] = [[] for _ in range(n)]
        self._casino_count = CASINOS + 1 if setup.slot_machine else CASINOS
        self._counts: list[list[int]] = [[0] * (n + 1) for _ in range(CASINOS + 1)]
        self._biggies: list[list[int]] = [[0] * (n + 1) for _ in range(CASINOS + 1)]
        self._notes: list[list[int]] = [[] for _ in range(CASINOS + 1)]
        # Dice on the slot machine, each as [owner, face, weight], in placing order.
        self._slot: list[tuple[int, int, int]] = []
        self._slot_from = 0
        self._hands: list[list[int]] = [list(setup.hand) for _ in range(n)]
        self._kickers_used = [0] * n
        self._neutral_out = 0
        # This turn's roll: the faces (0-5) of each kind of die, in KIND_NAMES order.
        self._dice: tuple[bytes, ...] = NO_ROLL
        self._round = 0
        self._start = 0
        self._current = 0
        self._last_roller = 0
        self._decision = DiceDecision.PLACE
        self._legal: tuple[Action, ...] = ()
        self._kicks_left = 0
        self._kick_casino = 0
        self._log: list[JsonDict] | None = [] if log else None
        self._record = None
        self._rolls = [0] * n  # each seat's rolls this round: the row of its tape
        self._tape = NO_TAPE
        self._begin()

    # ----------------------------------------------------------------- API

    def clone(self) -> DiceGame:
        other = DiceGame.__new__(DiceGame)
        other.description = self.description
        other.seed = self.seed
        other._setup = self._setup
        other._n = self._n
        self._share_random(other)
        other._tape = self._tape
        other._rolls = self._rolls[:]
        other._pile = self._pile.copy()
        other._returned = self._returned
        other._chip_deck = self._chip_deck[:]
        other._chips_at = [chips[:] for chips in self._chips_at]
        other._chips_held = [chips[:] for chips in self._chips_held]
        other._chip_casino = self._chip_casino
        other._discarded = self._discarded[:]
        other._won = [notes[:] for notes in self._won]
        other._casino_count = self._casino_count
        other._counts = [row[:] for row in self._counts]
        other._biggies = [row[:] for row in self._biggies]
        other._notes = [notes[:] for notes in self._notes]
        other._slot = self._slot[:]
        other._slot_from = self._slot_from
        other._hands = [hand[:] for hand in self._hands]
        other._kickers_used = self._kickers_used[:]
        other._neutral_out = self._neutral_out
        other._dice = self._dice
        other._round = self._round
        other._start = self._start
        other._current = self._current
        other._last_roller = self._last_roller
        other._decision = self._decision
        other._legal = self._legal
        other._kicks_left = self._kicks_left
        other._kick_casino = self._kick_casino
        other._log = None if self._log is None else self._log[:]
        other._record = None if self._record is None else self._record.copy()
        return other

    # ------------------------------------------------------------ the flow

    def _begin(self) -> None:
        self._start_round()
        self._settle()

    def _stop_for_chance(self) -> None:
        self._decision = DiceDecision.CHANCE
        self._legal = ()

    def _start_log(self, position: JsonDict | None) -> None:
        self._log = None if position is None else [{"type": "position", "position": position}]

    def _do(self, action: Action, forced: bool) -> None:
        log = self._log
        if log is not None:
            log.append(
                {"type": "decision", "seat": self._current, "action": action, "forced": forced}
            )
        decision = self._decision
        if decision is _PLACE:
            self._place(action)
        elif decision is _KICK:
            self._kick(action)
        else:
            self._take_chip(action)

    def _start_round(self) -> None:
        setup = self._setup
        n = self._n
        log = self._log
        if log is not None:
            log.append(
                {"type": "round_start", "round": self._round + 1, "start_player": self._start}
            )
        self._stock_casinos()
        if setup.chips is not None:
            self._deal_chips(setup.chips)
        self._counts = [[0] * (n + 1) for _ in range(CASINOS + 1)]
        self._biggies = [[0] * (n + 1) for _ in range(CASINOS + 1)]
        self._slot.clear()
        self._slot_from = 0
        for hand in self._hands:
            hand[:] = setup.hand
        self._kickers_used[:] = [0] * n
        self._neutral_out = 0
        if setup.neutral_preplaced:
            rand = self._random().random
            count = setup.neutral_preplaced
            faces = [int(rand() * 6) + 1 for _ in range(count)]
            if self._explicit:
                faces = faces_of(
                    self._chance(
                        lambda: dice_outcomes("neutral", count), dice_text("neutral", sorted(faces))
                    )
                )
            for face in faces:
                self._counts[face - 1][n] += 1
            if log is not None:
                log.append({"type": "neutral_roll", "seat": self._start, "dice": sorted(faces)})
        self._new_tape()
        self._next_turn(self._start)

    def _new_tape(self) -> None:
        # Twice as many rows as dice: kicked dice come back and are rolled again.
        width = sum(self._setup.hand)
        self._tape = RollTape(self._random(), self._n, width, 2 * width)
        self._rolls = [0] * self._n

    def _stock_casinos(self) -> None:
        """Stock every casino from the pile, in order (one call a round, not one a casino)."""
        setup = self._setup
        pile = self._pile
        minimum = setup.minimum
        log = self._log
        for casino in range(self._casino_count):
            notes = self._notes[casino]
            # The tape's loops inline the draw: stocking runs every round of every playout.
            if self._explicit:
                self._stock_explicit(notes)
            elif minimum is not None:
                total = 0
                while total < minimum and pile:
                    note = pile.popleft()
                    notes.append(note)
                    total += setup.rainbow_stock_value if note == RAINBOW else note
            else:
                assert setup.notes_per_casino is not None
                for _ in range(setup.notes_per_casino):
                    if pile:
                        notes.append(pile.popleft())
            if log is not None:
                log.append({"type": "stock", "casino": casino + 1, "notes": _notes_json(notes)})

    def _stock_explicit(self, notes: list[int]) -> None:
        setup = self._setup
        if setup.minimum is not None:
            total = 0
            while total < setup.minimum and self._pile:
                note = self._draw_note()
                notes.append(note)
                total += setup.rainbow_stock_value if note == RAINBOW else note
        else:
            assert setup.notes_per_casino is not None
            for _ in range(setup.notes_per_casino):
                if self._pile:
                    notes.append(self._draw_note())

    def _unseen(self) -> int:
        """How many notes on top of the pile nobody has seen (the rest went under it)."""
        return max(0, len(self._pile) - self._returned)

    def _draw_note(self) -> int:
        """The top note of a pile that is not empty; an unseen one is chance's (explicit)."""
        pile = self._pile
        if self._explicit and self._unseen():
            self._chance_card("note", pile, 0, range(self._unseen()), _note_text, _note_value)
        return pile.popleft()

    def _deal_chips(self, chips: ChipRules) -> None:
        for casino in range(CASINOS):
            if not self._chip_deck:
                return
            deck = self._chip_deck
            if self._explicit:
                self._chance_card(
                    "chip", deck, -1, range(len(deck)), chips.colours.__getitem__, chips.colour
                )
            colour = deck.pop()
            self._chips_at[casino].append(colour)
            if self._log is not None:
                self._log.append(
                    {"type": "chip_stock", "casino": casino + 1, "chip": chips.colours[colour]}
                )

    def _next_turn(self, seat: int) -> None:
        """Give the turn to ``seat`` or the next seat after it that still has dice: it rolls."""
        n = self._n
        hands = self._hands
        for _ in range(n):
            hand = hands[seat]
            if hand[0] or hand[1] or hand[2] or hand[3]:  # any(hand), without its call
                break
            seat = (seat + 1) % n
        else:
            self._end_round()
            return
        # One function for the whole roll: it runs on every turn of every playout.
        self._current = seat
        self._last_roller = seat
        self._decision = _PLACE
        row = self._rolls[seat]
        self._rolls[seat] = row + 1
        regular, biggies, kickers, neutral = hand
        count = regular + biggies + kickers + neutral
        tape = self._tape
        if row < tape.rows and count <= tape.width:
            # RollTape.roll's own case, inlined: the call would cost as much as the slice.
            start = (seat * tape.rows + row) * tape.width
            faces = tape.faces[start : start + count]
        else:
            faces = tape.roll(seat, row, count)
        if self._explicit:
            faces = self._chance_roll(faces, hands[seat])
        # The tape row holds the regular dice first, then Biggie, kickers, neutral dice.
        if biggies or kickers or neutral:
            biggie = regular + biggies
            kicker = biggie + kickers
            self._dice = (
                faces[:regular],
                faces[regular:biggie],
                faces[biggie:kicker],
                faces[kicker:],
            )
        else:
            self._dice = (faces, b"", b"", b"")
        if self._casino_count > CASINOS:
            self._offer_places(faces)
        elif count <= 4:
            self._legal = PLACES_BY_SHORT_ROLL[faces]
        else:
            self._legal = PLACES_BY_FACES[frozenset(faces)]
        if self._log is not None:
            self._log.append({"type": "roll", "seat": seat, "dice": self._roll_json()})

    def _chance_roll(self, faces: bytes, hand: list[int]) -> bytes:
        """The faces chance gives a roll of ``hand``: one chance node per kind of die."""
        rolled = b""
        for kind, count in enumerate(hand):
            if count:
                name = KIND_NAMES[kind]
                tape = sorted(faces[len(rolled) : len(rolled) + count].translate(FACE_NUMBERS))
                outcome = self._chance(
                    functools.partial(dice_outcomes, name, count), dice_text(name, tape)
                )
                rolled += bytes(face - 1 for face in faces_of(outcome))
        return rolled

    def _offer_places(self, faces: bytes) -> None:
        """Offer the ``faces`` rolled (tape bytes 0-5), and the slot machine."""
        places = PLACES_BY_FACES[frozenset(faces)]
        if self._casino_count > CASINOS:
            used = {face for _, face, _ in self._slot}
            slots = tuple(SLOT_ACTIONS[PLACE_TARGETS[a][1]] for a in places)
            places += tuple(a for a in slots if PLACE_TARGETS[a][1] not in used)
        self._legal = places

    def _roll_json(self) -> JsonDict:
        """This turn's roll as logs and observations show it: each kind's faces, ascending."""
        regular, biggies, kickers, neutral = self._dice
        if not (biggies or kickers or neutral):  # every roll of classic: one kind
            return {"die": sorted(regular.translate(FACE_NUMBERS))}
        return {
            KIND_NAMES[kind]: sorted(faces.translate(FACE_NUMBERS))
            for kind, faces in enumerate(self._dice)
            if faces
        }

    def _shown(self, face: int) -> tuple[int, int, int, int]:
        """How many dice of each kind (die, biggie, kicker, neutral) show ``face`` (1-6)."""
        byte = face - 1
        regular, biggies, kickers, neutral = self._dice
        return regular.count(byte), biggies.count(byte), kickers.count(byte), neutral.count(byte)

    def _place(self, action: Action) -> None:
        seat = self._current
        casino, face = PLACE_TARGETS[action]
        roll = self._dice
        hand = self._hands[seat]
        n = self._n
        counts = self._counts[casino]
        if roll[1] or roll[2] or roll[3]:
            dice, biggies, kickers, neutral = self._shown(face)
            hand[1] -= biggies
            hand[2] -= kickers
            hand[3] -= neutral
            counts[n] += neutral
            if biggies:
                self._biggies[casino][seat] += biggies
        else:  # regular dice only, as always in classic: the other kinds need no update
            dice, biggies, kickers, neutral = roll[0].count(face - 1), 0, 0, 0
        hand[0] -= dice
        counts[seat] += dice + 2 * biggies
        if casino == SLOT:
            slot = self._slot
            self._slot_from = len(slot)
            slot.extend([(seat, face, 1)] * dice)
            slot.extend([(seat, face, 2)] * biggies)
            slot.extend([(n, face, 1)] * neutral)
        if self._log is not None:
            placed: JsonDict = {"die": dice} if dice else {}
            if biggies or kickers or neutral:
                for name, count in (("biggie", biggies), ("kicker", kickers), ("neutral", neutral)):
                    if count:
                        placed[name] = count
            self._log.append(
                {"type": "place", "seat": seat, "casino": casino + 1, "face": face, "dice": placed}
            )
        chips = self._setup.chips
        self._chip_casino = -1
        if (
            chips is not None
            and casino < CASINOS
            and dice + 2 * biggies + neutral >= chips.dice_to_take
            and self._chips_at[casino]
        ):
            self._chip_casino = casino
        if kickers:
            self._kickers_used[seat] += kickers
            self._kicks_left = kickers
            self._kick_casino = casino
            self._offer_kick()
        elif self._chip_casino >= 0:
            self._offer_chip()
        else:
            self._next_turn((seat + 1) % n)

    def _offer_kick(self) -> None:
        """Ask for the next pending kick, or end the turn if none can kick anything."""
        while self._kicks_left:
            legal = self._kick_options()
            if legal:
                self._decision = DiceDecision.KICK
                self._legal = legal
                return
            self._kicks_left -= 1
            if self._log is not None:
                self._log.append(
                    {
                        "type": "kick",
                        "seat": self._current,
                        "casino": self._kick_casino + 1,
                        "kicked": None,
                    }
                )
        self._offer_chip()

    def _offer_chip(self) -> None:
        """Offer a chip card where the seat just qualified for one, else end the turn."""
        chips = self._setup.chips
        casino = self._chip_casino
        if chips is not None and casino >= 0 and self._chips_at[casino]:
            self._decision = DiceDecision.CHIP
            self._legal = chips.actions(self._chips_at[casino])
            return
        self._next_turn((self._current + 1) % self._n)

    def _take_chip(self, action: Action) -> None:
        chips = self._setup.chips
        assert chips is not None
        casino = self._chip_casino
        self._chip_casino = -1
        colour = chips.colour_of(action)
        if colour is not None:
            self._chips_at[casino].remove(colour)
            self._chips_held[self._current].append(colour)
        if self._log is not None:
            self._log.append(
                {
                    "type": "chip_take",
                    "seat": self._current,
                    "casino": casino + 1,
                    "chip": None if colour is None else chips.colours[colour],
                }
            )
        self._next_turn((self._current + 1) % self._n)

    def _kick_options(self) -> tuple[Action, ...]:
        n = self._n
        casino = self._kick_casino
        if casino == SLOT:
            # A kicker on the slot machine may only kick dice placed this turn.
            weights: list[list[int]] = [[0, 0] for _ in range(n + 1)]
            for owner, _, weight in self._slot[self._slot_from :]:
                weights[owner][weight - 1] += 1
            regular = [pair[0] for pair in weights]
            biggies = [pair[1] for pair in weights]
        else:
            biggies = self._biggies[casino]
            regular = [
                count - 2 * big for count, big in zip(self._counts[casino], biggies, strict=True)
            ]
        legal: list[Action] = []
        for owner in range(n):
            if regular[owner]:
                legal.append(KICK_DIE_ACTIONS[owner])
            if biggies[owner]:
                legal.append(KICK_BIGGIE_ACTIONS[owner])
        if regular[n]:
            legal.append(KICK_NEUTRAL)
        return tuple(legal)

    def _kick(self, action: Action) -> None:
        n = self._n
        owner, kind = KICK_TARGETS[action]
        if owner == NEUTRAL_OWNER:
            owner = n
        casino = self._kick_casino
        weight = 2 if kind == BIGGIE else 1
        self._counts[casino][owner] -= weight
        if kind == BIGGIE:
            self._biggies[casino][owner] -= 1
        if casino == SLOT:
            slot = self._slot
            for index in range(len(slot) - 1, self._slot_from - 1, -1):
                if slot[index][0] == owner and slot[index][2] == weight:
                    del slot[index]
                    break
        if owner == n:
            self._neutral_out += 1  # a kicked neutral die is out for the round
        else:
            self._hands[owner][kind] += 1
        if self._log is not None:
            self._log.append(
                {
                    "type": "kick",
                    "seat": self._current,
                    "casino": casino + 1,
                    "kicked": {"owner": owner_name(owner, n), "die": KIND_NAMES[kind]},
                }
            )
        self._kicks_left -= 1
        self._offer_kick()

    def _end_round(self) -> None:
        log = self._log
        self._decision = _OVER
        self._legal = ()
        self._replace_rainbows()
        for casino in range(self._casino_count):
            self._pay_out(casino)
        if log is not None:
            money = [sum(notes) for notes in self._won]
            log.append({"type": "round_end", "round": self._round + 1, "money": money})
        self._round += 1
        if self._round == self._setup.rounds:
            chips = self._setup.chips
            if log is not None and chips is not None:
                for seat, held in enumerate(self._chips_held):
                    log.append(
                        {
                            "type": "chip_score",
                            "seat": seat,
                            "chips": chips.named(held),
                            "money": chips.money(held),
                        }
                    )
            if log is not None:
                log.append(
                    {"type": "game_end", "result": [seat.to_json() for seat in self._standings()]}
                )
            return
        if self._setup.next_start is _LAST_ROLLER:
            self._start = self._last_roller
        else:
            self._start = (self._start + 1) % self._n
        self._start_round()

    def _replace_rainbows(self) -> None:
        pile = self._pile
        for casino in range(self._casino_count):
            notes = self._notes[casino]
            if RAINBOW not in notes:  # every casino of a game without rainbow cards
                continue
            index = 0
            while index < len(notes):
                if notes[index] != RAINBOW:
                    index += 1
                    continue
                self._discarded.append(RAINBOW)
                drawn = self._draw_note() if pile else None
                if drawn is None:
                    del notes[index]
                else:
                    notes[index] = drawn  # a drawn rainbow is replaced in turn
                if self._log is not None:
                    self._log.append(
                        {
                            "type": "rainbow",
                            "casino": casino + 1,
                            "drawn": None if drawn is None else _note_json(drawn),
                        }
                    )

    def _pay_out(self, casino: int) -> None:
        n = self._n
        notes = self._notes[casino]
        notes.sort(reverse=True)
        self._notes[casino] = []
        counts = self._counts[casino]
        cancelled: list[list[int]] = []  # the cancelled groups: for the log alone
        if casino == SLOT:
            ranked, cancelled = rank_slot(self._slot)
        elif self._log is None:
            ranked = payout_order(counts)
        else:
            ranked, cancelled = rank_casino(counts)
        won = self._won
        returned: list[int] = []  # notes the neutral player won, then the unwon ones
        for owner, note in zip(ranked, notes, strict=False):
            if owner < n:
                won[owner].append(note)
            else:
                returned.append(note)
        returned += notes[len(ranked) :]
        if self._setup.unwon_to is _TO_PILE:
            self._pile.extend(returned)
            self._returned += len(returned)
        else:
            self._discarded.extend(returned)
        if self._log is not None:
            self._log.append(
                payout_event(
                    casino,
                    notes,
                    counts,
                    cancelled,
                    list(zip(ranked, notes, strict=False)),
                    returned,
                    self._setup.unwon_to.value,
                    lambda owner: owner_name(owner, n),
                )
            )

    def _standings(self) -> list[SeatResult]:
        money = [sum(notes) for notes in self._won]
        chips = self._setup.chips
        if chips is not None:  # chip cards add money but are not notes for the tie-break
            money = [
                total + chips.money(held)
                for total, held in zip(money, self._chips_held, strict=True)
            ]
        return rank_seats(money, [len(notes) for notes in self._won])

    # -------------------------------------------------------- observation

    def observe(self, seat: int) -> JsonDict:
        n = self._n
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        over = self._decision is DiceDecision.NONE
        casinos: list[JsonDict] = []
        for casino in range(self._casino_count):
            counts = self._counts[casino]
            entry: JsonDict = {
                "casino": casino + 1,
                "notes": _notes_json(sorted(self._notes[casino], reverse=True)),
                "dice": {str(owner_name(o, n)): c for o, c in enumerate(counts) if c},
                "biggies": {str(o): b for o, b in enumerate(self._biggies[casino]) if b},
            }
            if casino == SLOT:
                entry["faces"] = [
                    {
                        "owner": owner_name(o, n),
                        "face": f,
                        "biggie": w == 2,
                        "this_turn": index >= self._slot_from
                        and self._kicks_left > 0
                        and self._kick_casino == SLOT,
                    }
                    for index, (o, f, w) in enumerate(self._slot)
                ]
            casinos.append(entry)
        return {
            "rules": self.description.rules,
            "options": dict(self.description.options),
            "seats": n,
            "seat": seat,
            "round": min(self._round + 1, self._setup.rounds),
            "rounds": self._setup.rounds,
            "start_player": self._start,
            "to_move": list(self.to_move()),
            "decision": self._decision.value,
            "current_player": None if over else self._current,
            "roll": None if over else {"seat": self._current, "dice": self._roll_json()},
            "kick": {"casino": self._kick_casino + 1, "kicks_left": self._kicks_left}
            if self._decision is DiceDecision.KICK
            else None,
            "hands": [{KIND_NAMES[kind]: hand[kind] for kind in range(4)} for hand in self._hands],
            "kickers_used": self._kickers_used[:],
            "neutral_out": self._neutral_out,
            "casinos": casinos,
            "last_roller": self._last_roller,
            "money": [sum(notes) for notes in self._won],
            "notes_won": [len(notes) for notes in self._won],
            "won": [notes[:] for notes in self._won],
            "discarded": [_note_json(note) for note in self._discarded],
            "pile_size": len(self._pile),
            "chips": self._chips_json(),
            "legal_actions": list(self.legal_actions(seat)) if not over else [],
            "result": None if not over else [r.to_json() for r in self._standings()],
        }

    def view(self) -> DiceView:
        """What :meth:`observe` shows, without building its JSON (see DiceView)."""
        over = self._decision is DiceDecision.NONE
        kick = self._decision is DiceDecision.KICK
        chips = self._setup.chips
        return DiceView(
            decision=self._decision.value,
            round=min(self._round + 1, self._setup.rounds),
            start=self._start,
            current=None if over else self._current,
            to_move=self.to_move(),
            dice=NO_ROLL if over else self._dice,
            kick=(self._kick_casino, self._kicks_left) if kick else None,
            casino_count=self._casino_count,
            counts=self._counts,
            biggies=self._biggies,
            notes=self._notes,
            slot=self._slot,
            hands=self._hands,
            kickers_used=self._kickers_used,
            neutral_out=self._neutral_out,
            won=self._won,
            pile_size=len(self._pile),
            chips=None
            if chips is None
            else (
                chips.colours,
                self._chips_at,
                self._chips_held,
                len(self._chip_deck),
                self._chip_casino + 1 if self._decision is DiceDecision.CHIP else None,
            ),
        )

    def _chips_json(self) -> JsonDict | None:
        chips = self._setup.chips
        if chips is None:
            return None
        return {
            "at_casinos": [[chips.colours[c] for c in at] for at in self._chips_at],
            "held": [chips.named(held) for held in self._chips_held],
            "deck_size": len(self._chip_deck),
            "casino": self._chip_casino + 1 if self._decision is DiceDecision.CHIP else None,
        }

    # ----------------------------------------------------------- positions

    def position(self) -> JsonDict:
        """The observation's board (everything in a dice game is public), and the notes
        put under the pile, in order (vegas_engine.position)."""
        if self._decision is DiceDecision.CHANCE:
            raise InvalidPositionError("decision", CHANCE_POSITION)
        seen = self.observe(0)
        board = {key: seen[key] for key in POSITION_KEYS if key in seen}
        chips = board["chips"]
        if chips is not None:
            del chips["deck_size"]
        board["under_pile"] = [_note_json(note) for note in self._pile][self._unseen() :]
        return board

    @classmethod
    def from_observation(
        cls, description: GameDescription, seed: int, setup: DiceSetup, observation: JsonDict
    ) -> DiceGame:
        """A state the observing seat cannot tell apart from the real one.

        Everything in a dice game is public but the order of the pile: it is
        rebuilt from the notes not seen elsewhere and shuffled with ``seed``.
        Future rolls come from that seed too. The state keeps no log.
        """
        return cls._restore(description, seed, setup, observation, ())

    @classmethod
    def from_position(
        cls,
        description: GameDescription,
        seed: int,
        setup: DiceSetup,
        position: JsonDict,
        log: bool,
    ) -> DiceGame:
        """The state ``position`` describes; the unseen notes shuffled with ``seed``."""
        check_fields(position, DiceGame(description, 0, setup, False).position())
        check_dice_position(setup, position)
        state = restore(
            lambda: cls._restore(
                description,
                seed,
                setup,
                position,
                [_note_value(note) for note in position["under_pile"]],
            )
        )
        return finish(state, position, log)

    @classmethod
    def _restore(
        cls,
        description: GameDescription,
        seed: int,
        setup: DiceSetup,
        observation: JsonDict,
        under: Sequence[int],
    ) -> DiceGame:
        n = setup.seats
        state = cls.__new__(cls)
        state._pending_chance = None
        state.description = description
        state.seed = seed
        state._setup = setup
        state._n = n
        state._rng = random.Random(seed)
        state._rng_shared = False
        state._won = [list(notes) for notes in observation["won"]]
        state._discarded = [_note_value(note) for note in observation["discarded"]]
        state._casino_count = CASINOS + 1 if setup.slot_machine else CASINOS
        state._counts = [[0] * (n + 1) for _ in range(CASINOS + 1)]
        state._biggies = [[0] * (n + 1) for _ in range(CASINOS + 1)]
        state._notes = [[] for _ in range(CASINOS + 1)]
        state._slot = []
        for entry in observation["casinos"]:
            casino = entry["casino"] - 1
            state._notes[casino] = [_note_value(note) for note in entry["notes"]]
            for owner, count in entry["dice"].items():
                state._counts[casino][n if owner == "neutral" else int(owner)] = count
            for owner, count in entry["biggies"].items():
                state._biggies[casino][int(owner)] = count
            for die in entry.get("faces", ()):
                owner = n if die["owner"] == "neutral" else die["owner"]
                state._slot.append((owner, die["face"], 2 if die["biggie"] else 1))
        this_turn = (
            [die["this_turn"] for die in observation["casinos"][SLOT:][0]["faces"]]
            if (setup.slot_machine)
            else []
        )
        state._slot_from = this_turn.index(True) if True in this_turn else len(state._slot)
        seen = [note for notes in state._won + state._notes for note in notes]
        seen += state._discarded + list(under)
        check_cards("notes", seen, setup.notes)
        unseen = list((Counter(setup.notes) - Counter(seen)).elements())
        state._rng.shuffle(unseen)
        state._pile = deque(unseen + list(under))
        state._returned = len(under)
        state._new_tape()
        state._chips_at = [[] for _ in range(CASINOS)]
        state._chips_held = [[] for _ in range(n)]
        state._chip_deck = []
        state._chip_casino = -1
        chips = setup.chips
        if chips is not None:
            seen_chips = observation["chips"]
            state._chips_at, state._chips_held, state._chip_deck = chips.restore(
                seen_chips, state._rng
            )
            if seen_chips["casino"] is not None:
                state._chip_casino = seen_chips["casino"] - 1
        state._hands = [[hand[name] for name in KIND_NAMES] for hand in observation["hands"]]
        state._kickers_used = list(observation["kickers_used"])
        state._neutral_out = observation["neutral_out"]
        state._round = observation["round"] - 1
        state._start = observation["start_player"]
        state._last_roller = observation["last_roller"]
        state._log = None
        state._record = None
        state._dice = NO_ROLL
        state._kicks_left = 0
        state._kick_casino = 0
        state._decision = decision_of(DiceDecision, observation["decision"])
        state._current = observation["current_player"] or 0
        state._legal = ()
        if not 0 <= state._current < n:
            raise InvalidPositionError("current_player", f"no seat {state._current}")
        if state._decision is DiceDecision.NONE:
            state._round = setup.rounds
            return state
        rolled = observation["roll"]["dice"]
        state._dice = tuple(bytes(face - 1 for face in rolled.get(kind, ())) for kind in KIND_NAMES)
        if state._decision is DiceDecision.KICK:
            state._kicks_left = observation["kick"]["kicks_left"]
            state._kick_casino = observation["kick"]["casino"] - 1
            state._legal = state._kick_options()
        elif state._decision is DiceDecision.CHIP:
            if chips is None or state._chip_casino < 0:
                raise InvalidPositionError("chips", "a chip decision needs chip cards at a casino")
            state._legal = chips.actions(state._chips_at[state._chip_casino])
        else:
            held = state._hands[state._current]
            if [len(faces) for faces in state._dice] != held:
                raise InvalidPositionError(
                    "roll", f"seat {state._current} holds {held} dice of each kind, not the roll"
                )
            state._offer_places(b"".join(state._dice))
        return state


#: A position's fields: the observation's board (see DiceGame.position).
POSITION_KEYS = (
    "round",
    "start_player",
    "decision",
    "current_player",
    "roll",
    "kick",
    "hands",
    "kickers_used",
    "neutral_out",
    "casinos",
    "last_roller",
    "won",
    "discarded",
    "chips",
)


def check_dice_position(setup: DiceSetup, position: JsonDict) -> None:
    """Refuse a position no game of ``setup`` can reach (InvalidPositionError naming the field).

    Each field's type and range, then what the fields must agree on: no seat with
    more dice of a kind than it has in all (hand, casinos, kickers used), no
    neutral die more than the game has, dice and Biggies on the slot machine as
    its faces list them, a roll of the dice the current seat holds, a kick or a
    chip card offered where the roll put a kicker or enough dice. A position may
    leave dice out (a seat holding fewer than it has), which tests use to set up
    the end of a round. What the state writes otherwise (order, flags) is
    checked when it is built (vegas_engine.position.finish).
    """
    n = setup.seats
    regular, biggies, kickers, neutral_held = setup.hand
    neutral_total = n * neutral_held + setup.neutral_preplaced
    casino_count = CASINOS + 1 if setup.slot_machine else CASINOS
    round_number = check_int(position["round"], "round", 1, setup.rounds)
    start = check_seat(position["start_player"], "start_player", n)
    if setup.next_start is NextStart.LEFT and start != (round_number - 1) % n:
        refuse("start_player", f"seat 0 starts round 1 and the start passes left: not {start}")
    decision = decision_of(DiceDecision, position["decision"])
    over = decision is DiceDecision.NONE
    last_roller = check_seat(position["last_roller"], "last_roller", n)
    current = -1
    if over:
        check_null(position["current_player"], "current_player", "the game is over")
    else:
        current = check_seat(position["current_player"], "current_player", n)
        if last_roller != current:
            refuse("last_roller", f"{last_roller}, but seat {current} rolled last: it decides")
    hands: list[list[int]] = []
    for seat, hand in enumerate(check_list(position["hands"], "hands", n)):
        hand = check_object(hand, f"hands[{seat}]", KIND_NAMES)
        hands.append(
            [
                _check_dice(hand[name], f"hands[{seat}].{name}", name, setup.hand[kind])
                for kind, name in enumerate(KIND_NAMES)
            ]
        )
        if over and any(hands[seat]):
            refuse(f"hands[{seat}]", "the game is over: nobody holds dice")
    for seat, used in enumerate(check_list(position["kickers_used"], "kickers_used", n)):
        used = _check_dice(used, f"kickers_used[{seat}]", "kicker", kickers)
        used += hands[seat][2]
        check_total(f"kickers_used[{seat}]", "kickers held and used", used, kickers)
    neutral_out = _check_dice(position["neutral_out"], "neutral_out", "neutral", neutral_total)
    # The casinos: notes, dice by owner and Biggies, and the slot machine's dice.
    owners = [str(seat) for seat in range(n)] + (["neutral"] if neutral_total else [])
    note_names = sorted({_note_json(note) for note in setup.notes}, key=str)
    placed = [[0, 0] for _ in range(n)]  # each seat's regular dice and Biggies on casinos
    neutral_placed = 0
    slot_faces: list[tuple[int | str, int, bool, bool]] = []
    casinos = check_list(position["casinos"], "casinos", casino_count)
    for index, entry in enumerate(casinos):
        where = f"casinos[{index}]"
        keys = ["casino", "notes", "dice", "biggies"] + (["faces"] if index == SLOT else [])
        entry = check_object(entry, where, keys)
        check_equal(entry["casino"], f"{where}.casino", index + 1, "the casinos in order")
        for i, note in enumerate(check_list(entry["notes"], f"{where}.notes")):
            check_choice(note, f"{where}.notes[{i}]", note_names)
        _check_stock(setup, entry["notes"], f"{where}.notes")
        if over and entry["notes"]:
            refuse(f"{where}.notes", "the game is over: every casino has paid out")
        dice = check_keys(entry["dice"], f"{where}.dice", owners)
        counts = {
            owner: check_int(count, f"{where}.dice.{owner}", 1, regular + 2 * biggies)
            if owner != "neutral"
            else check_int(count, f"{where}.dice.neutral", 1, neutral_total)
            for owner, count in dice.items()
        }
        big = check_keys(entry["biggies"], f"{where}.biggies", owners[:n] if biggies else ())
        for owner, count in big.items():
            check_int(count, f"{where}.biggies.{owner}", 1, biggies)
            if counts.get(owner, 0) < 2 * count:
                refuse(f"{where}.dice.{owner}", f"seat {owner}'s {count} Biggies count twice")
        for owner, count in counts.items():
            if owner == "neutral":
                neutral_placed += count
            else:
                placed[int(owner)][0] += count - 2 * big.get(owner, 0)
                placed[int(owner)][1] += big.get(owner, 0)
        if index == SLOT:
            slot_faces = _check_slot(entry, f"{where}.faces", n, biggies, neutral_total)
            weights = Counter[str]()
            big_faces = Counter[str]()
            for die_owner, _, biggie, _ in slot_faces:
                weights[str(die_owner)] += 2 if biggie else 1
                big_faces[str(die_owner)] += biggie
            if weights != Counter(counts) or big_faces != Counter(big):
                refuse(f"{where}.faces", "the slot machine's dice are not those its faces list")
    for seat in range(n):
        for kind, name in ((0, "die"), (1, "biggie")):
            total = hands[seat][kind] + placed[seat][kind]
            field = f"hands[{seat}].{name}"
            check_total(field, f"{name} dice held and placed", total, setup.hand[kind])
    neutral = sum(hand[3] for hand in hands) + neutral_placed + neutral_out
    check_total("neutral_out", "neutral dice held, placed and out", neutral, neutral_total)
    # Notes won, discarded, put under the pile: each the game's, none more often than it has.
    notes = [name for name in note_names if name != "rainbow"]
    for seat, won in enumerate(check_list(position["won"], "won", n)):
        for i, note in enumerate(check_list(won, f"won[{seat}]")):
            check_choice(note, f"won[{seat}][{i}]", notes)
    boxed = note_names if setup.unwon_to is UnwonNotes.BOX else ["rainbow"]
    for i, note in enumerate(check_list(position["discarded"], "discarded")):
        check_choice(note, f"discarded[{i}]", [name for name in boxed if name in note_names])
    under = notes if setup.unwon_to is UnwonNotes.PILE else []
    for i, note in enumerate(check_list(position["under_pile"], "under_pile")):
        check_choice(note, f"under_pile[{i}]", under)
    _check_turn(setup, position, decision, current, hands, slot_faces)
    _check_chips(setup, position, decision, current)


def _check_stock(setup: DiceSetup, notes: list[int | str], field: str) -> None:
    """A casino holds what stocking gives it: notes drawn until it holds the minimum
    (the last one drawn, at best the highest, took it there), or a fixed count."""
    if setup.minimum is None:
        assert setup.notes_per_casino is not None
        if len(notes) > setup.notes_per_casino:
            refuse(field, f"a casino is stocked with {setup.notes_per_casino} notes")
        return
    values = [setup.rainbow_stock_value if note == "rainbow" else int(note) for note in notes]
    if values and sum(values) - max(values) >= setup.minimum:
        refuse(field, f"stocking stops once a casino holds {setup.minimum}: {notes!r} is more")


def _check_dice(value: Any, field: str, name: str, most: int) -> int:
    """A count of dice of kind ``name``, of which a seat (or the game) has ``most``."""
    if most == 0 and value != 0:
        check_int(value, field, 0, None)
        refuse(field, f"{value}: there are no {name} dice in this game; allowed: 0")
    return check_int(value, field, 0, most)


def _check_slot(
    entry: Mapping[str, Any], field: str, n: int, biggies: int, neutral: int
) -> list[tuple[int | str, int, bool, bool]]:
    """The slot machine's dice in placing order: (owner, face, biggie, this_turn); each
    face's dice placed together, by one seat (with the neutral dice it held)."""
    owners: list[int | str] = [*range(n), *(["neutral"] if neutral else [])]
    faces: list[tuple[int | str, int, bool, bool]] = []
    for i, die in enumerate(check_list(entry["faces"], field)):
        where = f"{field}[{i}]"
        die = check_object(die, where, ("owner", "face", "biggie", "this_turn"))
        owner = check_choice(die["owner"], f"{where}.owner", owners)
        face = check_int(die["face"], f"{where}.face", 1, 6)
        biggie = check_bool(die["biggie"], f"{where}.biggie")
        if biggie and (owner == "neutral" or not biggies):
            refuse(f"{where}.biggie", f"{owner}'s die here is no Biggie")
        faces.append((owner, face, biggie, check_bool(die["this_turn"], f"{where}.this_turn")))
    for i in range(1, len(faces)):
        face = faces[i][1]
        if face != faces[i - 1][1] and any(other[1] == face for other in faces[: i - 1]):
            refuse(f"{field}[{i}].face", f"face {face} was placed on the slot machine earlier")
        seats = {owner for owner, f, _, _ in faces if f == face and owner != "neutral"}
        if len(seats) > 1:
            refuse(f"{field}[{i}].owner", f"face {face} was placed by one seat, not {seats}")
    return faces


def _check_chips(
    setup: DiceSetup, position: JsonDict, decision: DiceDecision, current: int
) -> None:
    chips = setup.chips
    seen = position["chips"]
    if chips is None:
        check_null(seen, "chips", "this game has no chip cards")
        return
    seen = check_object(seen, "chips", ("at_casinos", "held", "casino"))
    chips.check_position(seen, setup.seats, position["round"])
    if decision is not DiceDecision.CHIP:
        check_null(seen["casino"], "chips.casino", "nobody is taking a chip card")
        return
    casino = check_int(seen["casino"], "chips.casino", 1, CASINOS)
    if not seen["at_casinos"][casino - 1]:
        refuse("chips.casino", f"casino {casino} has no chip card to take")
    rolled = position["roll"]["dice"]
    shown = sum(
        faces.count(casino) * (2 if kind == "biggie" else 1)
        for kind, faces in rolled.items()
        if kind != "kicker"
    )
    if shown < chips.dice_to_take:
        refuse("chips.casino", f"seat {current} placed {shown} dice at casino {casino}: too few")


def _check_turn(
    setup: DiceSetup,
    position: JsonDict,
    decision: DiceDecision,
    current: int,
    hands: list[list[int]],
    slot_faces: list[tuple[int | str, int, bool, bool]],
) -> None:
    """The roll and the kick: what the current seat rolled and decides about."""
    kick = position["kick"]
    if decision is not DiceDecision.KICK:
        check_null(kick, "kick", "nobody is kicking")
    if decision is DiceDecision.NONE:
        check_null(position["roll"], "roll", "the game is over")
        return
    roll = check_object(position["roll"], "roll", ("seat", "dice"))
    check_equal(roll["seat"], "roll.seat", current, "the current player rolled")
    names = [KIND_NAMES[kind] for kind in range(4) if setup.hand[kind]]
    rolled = [0] * 4
    for name, faces in check_keys(roll["dice"], "roll.dice", names).items():
        kind = KIND_NAMES.index(name)
        field = f"roll.dice.{name}"
        for i, face in enumerate(check_list(faces, field, most=setup.hand[kind])):
            check_int(face, f"{field}[{i}]", 1, 6)
        check_sorted(faces, field)
        rolled[kind] = len(faces)
    if not any(rolled):
        refuse("roll.dice", "a seat deciding has rolled at least one die")
    if decision is DiceDecision.PLACE and rolled != hands[current]:
        refuse("roll", f"seat {current} holds {hands[current]} dice of each kind, not the roll")
    if decision is not DiceDecision.KICK:
        return
    kick = check_object(kick, "kick", ("casino", "kicks_left"))
    last = SLOT + 1 if setup.slot_machine else CASINOS
    casino = check_int(kick["casino"], "kick.casino", 1, last)
    left = check_int(kick["kicks_left"], "kick.kicks_left", 1, setup.hand[2])
    check_total("kick.kicks_left", "kicks", left, position["kickers_used"][current])
    face = casino
    if casino == SLOT + 1:
        this_turn = {f for _, f, _, now in slot_faces if now}
        if len(this_turn) != 1:
            refuse("casinos", "a kick on the slot machine needs the dice placed there this turn")
        face = this_turn.pop()
    kickers = roll["dice"].get("kicker", [])
    check_total("kick.kicks_left", f"kicks by kickers showing {face}", left, kickers.count(face))


class ExplicitDiceGame(ExplicitChance, DiceGame):
    """A dice game that stops at every chance node (``new_game(..., chance="explicit")``)."""

    __slots__ = ()


def new_dice_game(
    description: GameDescription, seed: int, setup: DiceSetup, log: bool, chance: ChanceMode
) -> DiceGame:
    """A dice game whose chance the tape resolves, or the caller (explicit)."""
    game = ExplicitDiceGame if chance is ChanceMode.EXPLICIT else DiceGame
    return game(description, seed, setup, log)


def dice_position(
    description: GameDescription,
    seed: int,
    setup: DiceSetup,
    position: JsonDict,
    log: bool,
    chance: ChanceMode,
) -> DiceGame:
    """The dice game ``position`` describes (see DiceGame.position)."""
    game = ExplicitDiceGame if chance is ChanceMode.EXPLICIT else DiceGame
    return game.from_position(description, seed, setup, position, log)


def roll_json(counts: Sequence[int], kinds: int) -> JsonDict:
    """A roll as logs and observations show it: each kind's faces, ascending.

    ``counts[face * kinds + kind]`` dice of ``kind`` show ``face`` (1-6); the
    first ``kinds`` names of KIND_NAMES name them. Kinds no die shows are left out.
    """
    dice: JsonDict = {}
    for kind in range(kinds):
        faces: list[int] = []
        for face in range(1, 7):
            count = counts[face * kinds + kind]
            if count:
                faces += [face] * count
        if faces:
            dice[KIND_NAMES[kind]] = faces
    return dice


def payout_order(counts: Sequence[int]) -> list[int]:
    """The owners paid at a casino, most dice first, from each owner's dice count
    (a Biggie counts 2): those whose count nobody else has; equal counts cancel.
    """
    # Every payout of a playout runs this: one loop (a comprehension is a call in
    # 3.11) and a sort only when there is something to order.
    paid: list[int] = []
    for owner, count in enumerate(counts):
        if count and counts.count(count) == 1:
            paid.append(owner)
    if len(paid) > 1:
        # The counts of `paid` all differ, so sorting by count alone is the payout order.
        paid.sort(key=counts.__getitem__, reverse=True)
    return paid


def rank_casino(counts: Sequence[int]) -> tuple[list[int], list[list[int]]]:
    """Payout order at a casino from each owner's dice count (a Biggie counts 2).

    Returns the owners in payout order (most dice first, :func:`payout_order`)
    and the cancelled groups, most dice first: owners with equal counts, who
    all win nothing there.
    """
    tied: list[int] = []  # counts several owners share
    for count in counts:
        if count and count not in tied and counts.count(count) > 1:
            tied.append(count)
    if not tied:  # most casinos: skip building an empty list of groups
        return payout_order(counts), []
    tied.sort(reverse=True)
    cancelled = [[owner for owner, count in enumerate(counts) if count == t] for t in tied]
    return payout_order(counts), cancelled


def rank_slot(dice: Sequence[tuple[int, int, int]]) -> tuple[list[int], list[list[int]]]:
    """Payout order on the slot machine from its dice as (owner, face, weight).

    Ranked by dice count (a Biggie counts 2), ties broken by the higher pip
    sum (a Biggie's face counts twice), then by the highest face; owners still
    equal cancel.
    """
    keys: dict[int, tuple[int, int, int]] = {}
    for owner, face, weight in dice:
        count, pips, top = keys.get(owner, (0, 0, 0))
        keys[owner] = (count + weight, pips + face * weight, max(top, face))
    groups: dict[tuple[int, int, int], list[int]] = {}
    for owner in sorted(keys):
        groups.setdefault(keys[owner], []).append(owner)
    return _split_groups(groups)


def payout_event(
    casino: int,
    notes: list[int],
    counts: Sequence[int],
    cancelled: list[list[int]],
    awards: list[tuple[int, int]],
    returned: list[int],
    returned_to: str,
    name: Callable[[int], int | str],
) -> JsonDict:
    """The log event of one casino's payout, owners shown by ``name`` (seat or imaginary)."""
    return {
        "type": "payout",
        "casino": casino + 1,
        "notes": notes,
        "counts": {str(name(owner)): count for owner, count in enumerate(counts) if count},
        "cancelled": [[name(owner) for owner in group] for group in cancelled],
        "awards": [{"owner": name(owner), "note": note} for owner, note in awards],
        "returned": returned,
        "returned_to": returned_to,
    }


def _split_groups(groups: Mapping[Any, list[int]]) -> tuple[list[int], list[list[int]]]:
    ordered = sorted(groups.items(), reverse=True)
    ranked = [owners[0] for _, owners in ordered if len(owners) == 1]
    cancelled = [owners for _, owners in ordered if len(owners) > 1]
    return ranked, cancelled


def _note_json(note: int) -> int | str:
    return "rainbow" if note == RAINBOW else note


def _notes_json(notes: list[int]) -> list[int | str]:
    """A copy of ``notes`` as logs show them: rainbow cards by name."""
    if RAINBOW in notes:
        return [_note_json(note) for note in notes]
    return list(notes)


def _note_text(note: int) -> str:
    return str(_note_json(note))


def _note_value(note: int | str) -> int:
    return RAINBOW if note == "rainbow" else int(note)
