"""`cardgame`: Las Vegas, the card game (alea 2016, seed 000).

Each round every seat shuffles its 30 dice cards and draws 5. For up to six
turns, all seats still playing choose cards at once, hidden until everyone
has chosen (option ``sequential``: one after another from the start player):
1-2 cards, or 1-5 cards that all show the same face. Cards go to the casinos
of their faces, the rest of the hand is discarded, and five more are drawn.
A seat with 8 or more cards at the casinos at the end of a turn is finished
for the round. Each casino pays its two notes to the two highest dice totals
(a double card is two dice), equal totals cancelling.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..chance import ChanceMode, ExplicitChance
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
    decision_of,
    finish,
    refuse,
    restore,
)
from ..state import Action, Decision, JsonDict, SeatResult, State, rank_seats
from ..system import OptionSpec, RuleSystem
from .chips import CHIPS, ChipRules
from .dice import CASINOS, payout_event, rank_casino

Card = int  # face * 2 + 1 for a double card, face * 2 for a single


def card_face(card: Card) -> int:
    return card >> 1


def card_dice(card: Card) -> int:
    return 2 if card & 1 else 1


def card_text(card: Card) -> str:
    return f"{card >> 1}D" if card & 1 else str(card >> 1)


class CardDecision(Decision):
    """What a seat decides in `cardgame`."""

    SELECT = "select"
    """Choose cards from the hand to play; all seats at once and hidden (or in turn, option
    ``sequential``)."""

    CHIP = "chip"
    """Take one chip card from a casino where the seat just placed two or more dice, or none."""

    CHANCE = "chance"
    """Nobody decides: chance acts (explicit chance only; see ``State.chance_outcomes``)."""

    NONE = "none"
    """Nobody decides: the game is over."""


@dataclass(frozen=True)
class CardRules:
    """The card game's component data (RULES.md rules on what the rulebook leaves out)."""

    singles_per_face: int = 4
    doubles_per_face: int = 1
    #: (value, count) pairs; a tuple so the rules can key the selections cache.
    notes: tuple[tuple[int, int], ...] = tuple((value * 10_000, 6) for value in range(3, 11))
    notes_per_casino: int = 2
    rounds: int = 4
    hand_size: int = 5
    turns: int = 6
    #: Cards at the casinos that finish a seat for the round.
    stop_cards: int = 8
    #: Cards of any faces a seat may play in a turn...
    any_faces: int = 2
    #: ...or of one face.
    one_face: int = 5

    def deck(self) -> list[Card]:
        """One seat's dice cards in canonical order."""
        return [
            face * 2 + double
            for face in range(1, 7)
            for double, count in ((0, self.singles_per_face), (1, self.doubles_per_face))
            for _ in range(count)
        ]

    def note_pile(self) -> list[int]:
        return [value for value, count in sorted(self.notes) for _ in range(count)]

    def selections(self, hand: Sequence[Card]) -> dict[Action, tuple[Card, ...]]:
        """Every legal play from a sorted hand, by action text, in stable order.

        Shared and cached per hand: callers must not change the mapping.
        """
        return _selections(self, tuple(hand))

    def _selections(self, hand: tuple[Card, ...]) -> dict[Action, tuple[Card, ...]]:
        plays: set[tuple[Card, ...]] = set()
        for size in range(1, self.any_faces + 1):
            plays.update(itertools.combinations(hand, size))
        for face in {card_face(card) for card in hand}:
            same = [card for card in hand if card_face(card) == face]
            for size in range(self.any_faces + 1, min(len(same), self.one_face) + 1):
                plays.update(itertools.combinations(same, size))
        return {
            "play " + " ".join(card_text(card) for card in play): play
            for play in sorted(plays, key=lambda play: (len(play), play))
        }


@functools.lru_cache(maxsize=8192)
def _selections(rules: CardRules, hand: tuple[Card, ...]) -> dict[Action, tuple[Card, ...]]:
    # A few thousand distinct hands exist; each turn of each seat needs one.
    return rules._selections(hand)


RULES = CardRules()

# Hot paths test against these: a module global is ten times cheaper than `CardDecision.NONE`.
_NONE, _CHANCE = CardDecision.NONE, CardDecision.CHANCE


class CardView(NamedTuple):
    """One seat's view of a card game, as :meth:`CardGame.observe` shows it to that
    seat, in the state's own numbers (see :meth:`CardGame.view`).

    Only what the seat may know: its own hand, discards and hidden choice, the
    others' sizes, and the public board. The lists marked shared are the
    state's, not copied: a caller must not change them, and must read them
    before the next action.
    """

    decision: str
    round: int
    turn: int
    start: int
    current: int | None
    to_move: tuple[int, ...]
    #: The seat's own cards (shared), as cards (face << 1 | double).
    hand: list[Card]
    discards: list[Card]
    #: The seat's own choice this turn (an action), if made and not yet revealed.
    my_choice: str | None
    #: The seats that have chosen this turn.
    chosen: tuple[int, ...]
    hand_sizes: list[int]
    draw_sizes: list[int]
    discard_sizes: list[int]
    finished: list[bool]
    #: Per casino, per seat: the cards placed there (public; shared).
    placed: list[list[list[Card]]]
    #: Per casino: its notes, in no order (shared).
    notes: list[list[int]]
    #: Per seat: the notes won (shared).
    won: list[list[int]]
    pile_size: int
    #: As DiceView.chips: colours, cards at casinos and held, deck size, chip casino.
    chips: tuple[tuple[str, ...], list[list[int]], list[list[int]], int, int | None] | None


class CardGame(State):
    """A game of `cardgame`."""

    __slots__ = (
        "_chip_deck",
        "_chip_offers",
        "_chips",
        "_chips_at",
        "_chips_held",
        "_current",
        "_decision",
        "_discards",
        "_draws",
        "_finished",
        "_hands",
        "_legal",
        "_log",
        "_n",
        "_notes",
        "_pending",
        "_pile",
        "_placed",
        "_queue",
        "_resolving",
        "_round",
        "_rules",
        "_sequential",
        "_start",
        "_turn",
        "_won",
        "description",
        "seed",
    )

    def __init__(
        self, description: GameDescription, seed: int, log: bool, rules: CardRules = RULES
    ) -> None:
        n = description.seats
        self.description = description
        self.seed = seed
        self._rules = rules
        self._n = n
        self._sequential = bool(description.options["sequential"])
        self._chips: ChipRules | None = CHIPS if description.options["chips"] else None
        self._rng = random.Random(seed)
        self._rng_shared = False
        pile = rules.note_pile()
        self._rng.shuffle(pile)
        self._pile: deque[int] = deque(pile)
        self._chip_deck: list[int] = []
        if self._chips is not None:
            self._chip_deck = self._chips.deck()
            self._rng.shuffle(self._chip_deck)
        self._chips_at: list[list[int]] = [[] for _ in range(CASINOS)]
        self._chips_held: list[list[int]] = [[] for _ in range(n)]
        self._chip_offers: list[tuple[int, int]] = []  # (seat, casino) still to choose
        self._notes: list[list[int]] = [[] for _ in range(CASINOS)]
        self._won: list[list[int]] = [[] for _ in range(n)]
        self._draws: list[list[Card]] = [[] for _ in range(n)]
        self._hands: list[list[Card]] = [[] for _ in range(n)]
        self._discards: list[list[Card]] = [[] for _ in range(n)]
        # Cards at each casino by seat.
        self._placed: list[list[list[Card]]] = [[[] for _ in range(n)] for _ in range(CASINOS)]
        self._finished = [False] * n
        self._pending: dict[int, Action] = {}
        self._queue: list[int] = []  # seats still to choose this turn, in order
        self._resolving: list[int] = []  # seats whose played turn is being finished
        self._legal: dict[int, dict[Action, tuple[Card, ...]]] = {}
        self._current = 0
        self._decision = CardDecision.SELECT
        self._round = 0
        self._start = 0
        self._turn = 0
        self._log: list[JsonDict] | None = [] if log else None
        self._record = None
        self._begin()

    # ----------------------------------------------------------------- API

    def to_move(self) -> tuple[int, ...]:
        decision = self._decision
        if decision is _NONE or decision is _CHANCE:
            return ()
        if self._decision is CardDecision.CHIP or self._sequential:
            return (self._current,)
        return tuple(seat for seat in self._queue if seat not in self._pending)

    def decision(self) -> CardDecision:
        return self._decision

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        seat = self._seat_to_move(seat)
        if seat is None:
            return ()
        return tuple(self._legal[seat])

    def _apply(self, seat: int, action: Action) -> None:
        self._do(seat, action, forced=False)
        self._settle()

    def result(self) -> list[SeatResult] | None:
        return None if self._decision is not CardDecision.NONE else self._standings()

    def events(self) -> list[JsonDict] | None:
        return self._log

    def clone(self) -> CardGame:
        other = CardGame.__new__(CardGame)
        other.description = self.description
        other.seed = self.seed
        other._rules = self._rules
        other._n = self._n
        other._sequential = self._sequential
        other._chips = self._chips
        self._share_random(other)
        other._pile = self._pile.copy()
        other._chip_deck = self._chip_deck[:]
        other._chips_at = [chips[:] for chips in self._chips_at]
        other._chips_held = [chips[:] for chips in self._chips_held]
        other._chip_offers = self._chip_offers[:]
        other._notes = [notes[:] for notes in self._notes]
        other._won = [notes[:] for notes in self._won]
        other._draws = [cards[:] for cards in self._draws]
        other._hands = [cards[:] for cards in self._hands]
        other._discards = [cards[:] for cards in self._discards]
        other._placed = [[cards[:] for cards in casino] for casino in self._placed]
        other._finished = self._finished[:]
        other._pending = dict(self._pending)
        other._queue = self._queue[:]
        other._resolving = self._resolving[:]
        other._legal = dict(self._legal)
        other._current = self._current
        other._decision = self._decision
        other._round = self._round
        other._start = self._start
        other._turn = self._turn
        other._log = None if self._log is None else self._log[:]
        other._record = None if self._record is None else self._record.copy()
        return other

    # ------------------------------------------------------------ the flow

    def _begin(self) -> None:
        self._start_round()
        self._settle()

    def _stop_for_chance(self) -> None:
        self._decision = CardDecision.CHANCE

    def _start_log(self, position: JsonDict | None) -> None:
        self._log = None if position is None else [{"type": "position", "position": position}]

    def _settle(self) -> None:
        """Apply every decision that has exactly one legal action."""
        while self._decision is not CardDecision.NONE:
            forced = [seat for seat in self.to_move() if len(self._legal[seat]) == 1]
            if not forced:
                return
            seat = forced[0]
            self._do(seat, next(iter(self._legal[seat])), forced=True)

    def _do(self, seat: int, action: Action, forced: bool) -> None:
        if self._log is not None:
            self._log.append({"type": "decision", "seat": seat, "action": action, "forced": forced})
        if self._decision is CardDecision.CHIP:
            self._take_chip(seat, action)
        elif self._sequential:
            self._queue.remove(seat)
            self._play(seat, self._legal[seat][action])
            self._resolving = [seat]
            self._continue()
        else:
            self._pending[seat] = action
            if len(self._pending) == len(self._queue):
                # Everyone has chosen: reveal, in seat order from the start player.
                for player in self._queue:
                    self._play(player, self._legal[player][self._pending[player]])
                self._resolving = self._queue
                self._queue = []
                self._pending = {}
                self._continue()

    def _start_round(self) -> None:
        rules = self._rules
        n = self._n
        log = self._log
        if log is not None:
            log.append(
                {"type": "round_start", "round": self._round + 1, "start_player": self._start}
            )
        pile = self._pile
        for casino in range(CASINOS):
            notes = self._notes[casino]
            for _ in range(rules.notes_per_casino):
                if pile:
                    if self._explicit:  # every note in the pile is unseen
                        self._chance_card("note", pile, 0, range(len(pile)), str, int)
                    notes.append(pile.popleft())
            if log is not None:
                log.append({"type": "stock", "casino": casino + 1, "notes": notes[:]})
        chips = self._chips
        if chips is not None:
            chip_deck = self._chip_deck
            for casino in range(CASINOS):
                if chip_deck:
                    if self._explicit:
                        self._chance_card(
                            "chip",
                            chip_deck,
                            -1,
                            range(len(chip_deck)),
                            chips.colours.__getitem__,
                            chips.colour,
                        )
                    colour = chip_deck.pop()
                    self._chips_at[casino].append(colour)
                    if log is not None:
                        log.append(
                            {
                                "type": "chip_stock",
                                "casino": casino + 1,
                                "chip": chips.colours[colour],
                            }
                        )
        for seat in range(n):
            deck = rules.deck()
            self._random().shuffle(deck)
            self._draws[seat] = deck
            self._discards[seat] = []
            self._hands[seat] = []
            for casino in range(CASINOS):
                self._placed[casino][seat] = []
            self._finished[seat] = False
            self._draw(seat)
        self._turn = 1
        self._begin_turn()

    def _draw(self, seat: int) -> None:
        draw = self._draws[seat]
        count = min(self._rules.hand_size, len(draw))
        if self._explicit:  # the seat's whole draw pile is unseen: chance picks each card
            drawn = []
            for _ in range(count):
                self._chance_card("card", draw, -1, range(len(draw)), card_text, card_of)
                drawn.append(draw.pop())
        else:
            drawn = [draw.pop() for _ in range(count)]
        self._hands[seat] = sorted(drawn)
        if self._log is not None:
            self._log.append({"type": "draw", "seat": seat, "cards": _texts(self._hands[seat])})

    def _begin_turn(self) -> None:
        n = self._n
        order = [(self._start + step) % n for step in range(n)]
        self._queue = [seat for seat in order if not self._finished[seat] and self._hands[seat]]
        if not self._queue:
            self._end_round()
            return
        self._legal = {seat: self._rules.selections(self._hands[seat]) for seat in self._queue}
        self._decision = CardDecision.SELECT
        self._current = self._queue[0]

    def _play(self, seat: int, cards: tuple[Card, ...]) -> None:
        hand = self._hands[seat]
        dice = [0] * CASINOS
        for card in cards:
            hand.remove(card)
            self._placed[card_face(card) - 1][seat].append(card)
            dice[card_face(card) - 1] += card_dice(card)
        if self._log is not None:
            self._log.append({"type": "play", "seat": seat, "cards": _texts(cards)})
        chips = self._chips
        if chips is not None:
            self._chip_offers.extend(
                (seat, casino) for casino in range(CASINOS) if dice[casino] >= chips.dice_to_take
            )

    def _continue(self) -> None:
        """After plays: offer chips in order, then finish the players' turns, then go on."""
        chips = self._chips
        while self._chip_offers:
            seat, casino = self._chip_offers[0]
            if chips is not None and self._chips_at[casino]:
                self._decision = CardDecision.CHIP
                self._current = seat
                self._legal = {
                    seat: {action: () for action in chips.actions(self._chips_at[casino])}
                }
                return
            self._chip_offers.pop(0)
        rules = self._rules
        log = self._log
        for seat in self._resolving:
            if self._hands[seat] and log is not None:
                log.append({"type": "discard", "seat": seat, "cards": _texts(self._hands[seat])})
            self._discards[seat].extend(self._hands[seat])
            self._hands[seat] = []
            placed = sum(len(self._placed[casino][seat]) for casino in range(CASINOS))
            if placed >= rules.stop_cards:
                self._finished[seat] = True
                self._discards[seat].extend(self._draws[seat])
                self._draws[seat] = []
                if log is not None:
                    log.append({"type": "finish", "seat": seat, "cards_placed": placed})
            elif self._turn < rules.turns:
                self._draw(seat)
        self._resolving = []
        if self._sequential and self._queue:
            self._decision = CardDecision.SELECT
            self._current = self._queue[0]
            self._legal = {self._current: rules.selections(self._hands[self._current])}
            return
        self._turn += 1
        if self._turn > rules.turns:
            self._end_round()
        else:
            self._begin_turn()

    def _take_chip(self, seat: int, action: Action) -> None:
        chips = self._chips
        assert chips is not None
        _, casino = self._chip_offers.pop(0)
        colour = chips.colour_of(action)
        if colour is not None:
            self._chips_at[casino].remove(colour)
            self._chips_held[seat].append(colour)
        if self._log is not None:
            self._log.append(
                {
                    "type": "chip_take",
                    "seat": seat,
                    "casino": casino + 1,
                    "chip": None if colour is None else chips.colours[colour],
                }
            )
        self._continue()

    def _end_round(self) -> None:
        n = self._n
        log = self._log
        self._decision = CardDecision.NONE
        self._legal = {}
        for casino in range(CASINOS):
            notes = sorted(self._notes[casino], reverse=True)
            self._notes[casino] = []
            counts = [sum(card_dice(card) for card in cards) for cards in self._placed[casino]]
            ranked, cancelled = rank_casino(counts)
            awards = list(zip(ranked, notes, strict=False))
            for seat, note in awards:
                self._won[seat].append(note)
            returned = notes[len(awards) :]
            if log is not None:
                log.append(
                    payout_event(
                        casino, notes, counts, cancelled, awards, returned, "box", lambda seat: seat
                    )
                )
        if log is not None:
            log.append(
                {
                    "type": "round_end",
                    "round": self._round + 1,
                    "money": [sum(w) for w in self._won],
                }
            )
        self._round += 1
        if self._round < self._rules.rounds:
            self._start = (self._start + 1) % n
            self._start_round()
            return
        chips = self._chips
        if log is not None:
            if chips is not None:
                for seat, held in enumerate(self._chips_held):
                    log.append(
                        {
                            "type": "chip_score",
                            "seat": seat,
                            "chips": chips.named(held),
                            "money": chips.money(held),
                        }
                    )
            log.append({"type": "game_end", "result": [r.to_json() for r in self._standings()]})

    def _standings(self) -> list[SeatResult]:
        money = [sum(notes) for notes in self._won]
        chips = self._chips
        if chips is not None:  # chip cards add money but are not notes for the tie-break
            money = [m + chips.money(held) for m, held in zip(money, self._chips_held, strict=True)]
        return rank_seats(money, [len(notes) for notes in self._won])

    # -------------------------------------------------------- observation

    def observe(self, seat: int) -> JsonDict:
        n = self._n
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        over = self._decision is CardDecision.NONE
        chips = self._chips
        return {
            "rules": self.description.rules,
            "options": dict(self.description.options),
            "seats": n,
            "seat": seat,
            "round": min(self._round + 1, self._rules.rounds),
            "rounds": self._rules.rounds,
            "turn": self._turn,
            "turns": self._rules.turns,
            "start_player": self._start,
            "to_move": list(self.to_move()),
            "decision": self._decision.value,
            "current_player": self._current
            if self._decision is CardDecision.CHIP or (self._sequential and not over)
            else None,
            "hand": _texts(self._hands[seat]),
            "hand_sizes": [len(hand) for hand in self._hands],
            "draw_sizes": [len(draw) for draw in self._draws],
            "discards": _texts(sorted(self._discards[seat])),
            "discard_sizes": [len(cards) for cards in self._discards],
            "chosen": sorted(self._pending),
            "my_choice": self._pending.get(seat),
            "finished": self._finished[:],
            "cards_placed": [
                sum(len(self._placed[casino][s]) for casino in range(CASINOS)) for s in range(n)
            ],
            "casinos": [
                {
                    "casino": casino + 1,
                    "notes": sorted(self._notes[casino], reverse=True),
                    "cards": {
                        str(s): _texts(sorted(cards))
                        for s, cards in enumerate(self._placed[casino])
                        if cards
                    },
                    "dice": {
                        str(s): sum(card_dice(card) for card in cards)
                        for s, cards in enumerate(self._placed[casino])
                        if cards
                    },
                }
                for casino in range(CASINOS)
            ],
            "money": [sum(notes) for notes in self._won],
            "notes_won": [len(notes) for notes in self._won],
            "won": [notes[:] for notes in self._won],
            "pile_size": len(self._pile),
            "chips": None
            if chips is None
            else {
                "at_casinos": [[chips.colours[c] for c in at] for at in self._chips_at],
                "held": [chips.named(held) for held in self._chips_held],
                "deck_size": len(self._chip_deck),
                "casino": self._chip_offers[0][1] + 1
                if self._decision is CardDecision.CHIP
                else None,
            },
            "legal_actions": list(self.legal_actions(seat)),
            "result": None if not over else [r.to_json() for r in self._standings()],
        }

    def view(self, seat: int) -> CardView:
        """What :meth:`observe` shows ``seat``, without building its JSON (see CardView)."""
        n = self._n
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        over = self._decision is CardDecision.NONE
        chip = self._decision is CardDecision.CHIP
        chips = self._chips
        return CardView(
            decision=self._decision.value,
            round=min(self._round + 1, self._rules.rounds),
            turn=self._turn,
            start=self._start,
            current=self._current if chip or (self._sequential and not over) else None,
            to_move=self.to_move(),
            hand=self._hands[seat],
            discards=self._discards[seat],
            my_choice=self._pending.get(seat),
            chosen=tuple(self._pending),
            hand_sizes=[len(hand) for hand in self._hands],
            draw_sizes=[len(draw) for draw in self._draws],
            discard_sizes=[len(cards) for cards in self._discards],
            finished=self._finished,
            placed=self._placed,
            notes=self._notes,
            won=self._won,
            pile_size=len(self._pile),
            chips=None
            if chips is None
            else (
                chips.colours,
                self._chips_at,
                self._chips_held,
                len(self._chip_deck),
                self._chip_offers[0][1] + 1 if chip else None,
            ),
        )

    # ----------------------------------------------------------- positions

    def position(self) -> JsonDict:
        """Every seat's hand, discards and secret choice, the board, the notes back in
        the box, and the turn's flow: seats still to choose (``queue``), chip cards
        still to offer (``chip_offers``, [seat, casino]) and seats whose turn ends
        after them (``resolving``).

        The note pile, the chip deck and the draw piles are what no one has seen
        (the game's cards less every card seen), so they are not listed.
        """
        if self._decision is _CHANCE:
            raise InvalidPositionError("decision", CHANCE_POSITION)
        over = self._decision is _NONE
        chips = self._chips
        return {
            "round": min(self._round + 1, self._rules.rounds),
            "turn": self._turn,
            "start_player": self._start,
            "decision": self._decision.value,
            "current_player": self._current
            if self._decision is CardDecision.CHIP or (self._sequential and not over)
            else None,
            "hands": [_texts(hand) for hand in self._hands],
            "discards": [_texts(sorted(cards)) for cards in self._discards],
            "finished": self._finished[:],
            "casinos": [
                {
                    "casino": casino + 1,
                    "notes": sorted(self._notes[casino], reverse=True),
                    "cards": {
                        str(s): _texts(sorted(cards))
                        for s, cards in enumerate(self._placed[casino])
                        if cards
                    },
                }
                for casino in range(CASINOS)
            ],
            "won": [notes[:] for notes in self._won],
            "box": self._boxed(),
            "chosen": {str(seat): action for seat, action in sorted(self._pending.items())},
            "queue": self._queue[:],
            "chip_offers": [[seat, casino + 1] for seat, casino in self._chip_offers],
            "resolving": self._resolving[:],
            "chips": None
            if chips is None
            else {
                "at_casinos": [[chips.colours[c] for c in at] for at in self._chips_at],
                "held": [chips.named(held) for held in self._chips_held],
            },
        }

    def _boxed(self) -> list[int]:
        """The notes back in the box (unwon), ascending: what is neither won, stocked nor piled."""
        out = [note for notes in self._won + self._notes for note in notes] + list(self._pile)
        return sorted((Counter(self._rules.note_pile()) - Counter(out)).elements())

    @classmethod
    def from_position(
        cls, description: GameDescription, seed: int, position: JsonDict, log: bool
    ) -> CardGame:
        """The state ``position`` describes; piles and decks shuffled with ``seed``."""
        check_fields(position, CardGame(description, 0, False).position())
        check_card_position(description, RULES, position)
        return finish(restore(lambda: cls._restore(description, seed, position)), position, log)

    @classmethod
    def _restore(cls, description: GameDescription, seed: int, seen: JsonDict) -> CardGame:
        state = cls.__new__(cls)
        rules = RULES
        n = description.seats
        state.description = description
        state.seed = seed
        state._pending_chance = None
        state._rules = rules
        state._n = n
        state._sequential = bool(description.options["sequential"])
        chips = state._chips = CHIPS if description.options["chips"] else None
        rng = state._rng = random.Random(seed)
        state._rng_shared = False
        state._log = None
        state._record = None
        state._decision = decision_of(CardDecision, seen["decision"])
        state._round = seen["round"] - 1 if state._decision is not _NONE else rules.rounds
        state._turn = seen["turn"]
        state._start = seen["start_player"]
        state._finished = [bool(done) for done in _by_seat(seen, "finished", n)]
        state._won = [list(notes) for notes in _by_seat(seen, "won", n)]
        state._notes = [list(casino["notes"]) for casino in seen["casinos"]]
        state._placed = [
            [_cards(casino["cards"].get(str(s), [])) for s in range(n)]
            for casino in seen["casinos"]
        ]
        if len(state._notes) != CASINOS:
            raise InvalidPositionError("casinos", f"{CASINOS} casinos, got {len(state._notes)}")
        seen_notes = [note for notes in state._won + state._notes for note in notes]
        seen_notes += [int(note) for note in seen["box"]]
        check_cards("notes", seen_notes, rules.note_pile())
        pile = list((Counter(rules.note_pile()) - Counter(seen_notes)).elements())
        rng.shuffle(pile)
        state._pile = deque(pile)
        state._chips_at = [[] for _ in range(CASINOS)]
        state._chips_held = [[] for _ in range(n)]
        state._chip_deck = []
        if chips is not None:
            state._chips_at, state._chips_held, state._chip_deck = chips.restore(seen["chips"], rng)
        state._hands = [_cards(hand) for hand in _by_seat(seen, "hands", n)]
        state._discards = [_cards(cards) for cards in _by_seat(seen, "discards", n)]
        state._draws = []
        for s in range(n):
            held = state._hands[s] + state._discards[s]
            held += [card for casino in state._placed for card in casino[s]]
            check_cards(f"seat {s}'s cards", held, rules.deck())
            draw = list((Counter(rules.deck()) - Counter(held)).elements())
            rng.shuffle(draw)
            state._draws.append(draw)
        state._pending = {int(s): action for s, action in seen["chosen"].items()}
        state._queue = [int(s) for s in seen["queue"]]
        state._chip_offers = [(int(s), int(casino) - 1) for s, casino in seen["chip_offers"]]
        state._resolving = [int(s) for s in seen["resolving"]]
        state._legal = {}
        state._current = 0
        if state._decision is CardDecision.CHIP:
            if chips is None or not state._chip_offers:
                raise InvalidPositionError("chip_offers", "a chip decision needs a chip offer")
            state._current, casino = state._chip_offers[0]
            actions = chips.actions(state._chips_at[casino])
            state._legal = {state._current: {action: () for action in actions}}
        elif state._decision is CardDecision.SELECT:
            if not state._queue:
                raise InvalidPositionError("queue", "nobody left to choose cards")
            state._current = state._queue[0]
            state._legal = {s: rules.selections(state._hands[s]) for s in state._queue}
            for s, action in state._pending.items():
                if action not in state._legal.get(s, {}):
                    raise InvalidPositionError(f"chosen.{s}", f"{action!r} is not legal")
        return state

    @classmethod
    def from_observation(cls, description: GameDescription, seed: int, seen: JsonDict) -> CardGame:
        """A state the observing seat cannot tell apart from the real one.

        Hidden: other seats' hands and discards, every draw pile's order, the
        other seats' choices made this turn, the note pile's and the chip
        deck's order. They are sampled with ``seed``.
        """
        state = cls.__new__(cls)
        state.description = description
        state.seed = seed
        rules = RULES
        n = description.seats
        me = seen["seat"]
        state._rules = rules
        state._n = n
        state._sequential = bool(description.options["sequential"])
        state._chips = CHIPS if description.options["chips"] else None
        rng = state._rng = random.Random(seed)
        state._rng_shared = False
        state._log = None
        state._record = None
        state._round = seen["round"] - 1
        state._turn = seen["turn"]
        state._start = seen["start_player"]
        state._decision = CardDecision(seen["decision"])
        state._current = seen["current_player"] if seen["current_player"] is not None else 0
        state._finished = list(seen["finished"])
        state._won = [list(notes) for notes in seen["won"]]
        state._notes = [list(casino["notes"]) for casino in seen["casinos"]]
        state._placed = [
            [_cards(casino["cards"].get(str(s), [])) for s in range(n)]
            for casino in seen["casinos"]
        ]
        unseen_notes = rules.note_pile()
        for note in [v for notes in state._won + state._notes for v in notes]:
            unseen_notes.remove(note)
        rng.shuffle(unseen_notes)
        state._pile = deque(unseen_notes[: seen["pile_size"]])
        state._hands, state._discards, state._draws = [], [], []
        for s in range(n):
            unseen = rules.deck()
            for card in [c for casino in state._placed for c in casino[s]]:
                unseen.remove(card)
            if s == me:
                hand, discards = _cards(seen["hand"]), _cards(seen["discards"])
                for card in hand + discards:
                    unseen.remove(card)
            else:
                rng.shuffle(unseen)
                hand = sorted(unseen[: seen["hand_sizes"][s]])
                discards = unseen[len(hand) : len(hand) + seen["discard_sizes"][s]]
                unseen = unseen[len(hand) + len(discards) :]
            rng.shuffle(unseen)
            state._hands.append(hand)
            state._discards.append(discards)
            state._draws.append(unseen[: seen["draw_sizes"][s]])
        chips = state._chips
        state._chips_at = [[] for _ in range(CASINOS)]
        state._chips_held = [[] for _ in range(n)]
        state._chip_deck = []
        state._chip_offers = []
        if chips is not None:
            seen_chips = seen["chips"]
            state._chips_at, state._chips_held, state._chip_deck = chips.restore(seen_chips, rng)
            if seen_chips["casino"] is not None:
                state._chip_offers = [(state._current, seen_chips["casino"] - 1)]
        state._resolving = []
        state._queue = []
        state._pending = {}
        state._legal = {}
        if state._decision is CardDecision.CHIP:
            assert chips is not None
            casino = state._chip_offers[0][1]
            state._legal = {state._current: {a: () for a in chips.actions(state._chips_at[casino])}}
        elif state._decision is CardDecision.SELECT:
            order = [(state._start + step) % n for step in range(n)]
            if state._sequential:
                state._queue = order[order.index(state._current) :]
                state._queue = [s for s in state._queue if not state._finished[s]]
            else:
                state._queue = [s for s in order if not state._finished[s]]
            state._legal = {s: rules.selections(state._hands[s]) for s in state._queue}
            for s in seen["chosen"]:
                # The seat's own choice is known; another seat's is sampled from its hand.
                choice = seen["my_choice"] if s == me else rng.choice(list(state._legal[s]))
                state._pending[s] = choice
        return state


#: A position's fields (see CardGame.position).
POSITION_KEYS = (
    "round",
    "turn",
    "start_player",
    "decision",
    "current_player",
    "hands",
    "discards",
    "finished",
    "casinos",
    "won",
    "box",
    "chosen",
    "queue",
    "chip_offers",
    "resolving",
    "chips",
)


def check_card_position(description: GameDescription, rules: CardRules, position: JsonDict) -> None:
    """Refuse a position no card game can reach (InvalidPositionError naming the field).

    Each field's type and range, then what they must agree on: cards at the casino
    of their face, no card more often than a seat's deck has it (notes: the game),
    a finished seat's whole deck out, the start player passing left each round,
    and the turn's flow (who is still to choose, what they chose, the chip cards
    still to offer) as a turn can leave it. The order the state writes (sorted
    hands, notes high to low) is checked when it is built (position.finish).
    """
    n = description.seats
    sequential = bool(description.options["sequential"])
    round_number = check_int(position["round"], "round", 1, rules.rounds)
    decision = decision_of(CardDecision, position["decision"])
    over = decision is CardDecision.NONE
    check_int(position["turn"], "turn", 1, rules.turns + 1 if over else rules.turns)
    start = check_seat(position["start_player"], "start_player", n)
    if start != (round_number - 1) % n:
        refuse("start_player", f"seat 0 starts round 1 and the start passes left: not {start}")
    texts = sorted({card_text(card) for card in rules.deck()})
    notes = sorted({value for value, _ in rules.notes})

    def cards_of(value: Any, field: str, most: int | None = None) -> list[str]:
        for i, text in enumerate(check_list(value, field, most=most)):
            check_choice(text, f"{field}[{i}]", texts)
        return list(value)

    def notes_of(value: Any, field: str, most: int | None = None) -> list[int]:
        for i, note in enumerate(check_list(value, field, most=most)):
            check_choice(note, f"{field}[{i}]", notes)
        return list(value)

    hands = [
        cards_of(hand, f"hands[{seat}]", rules.hand_size)
        for seat, hand in enumerate(check_list(position["hands"], "hands", n))
    ]
    discards = [
        cards_of(cards, f"discards[{seat}]")
        for seat, cards in enumerate(check_list(position["discards"], "discards", n))
    ]
    finished = [
        check_bool(done, f"finished[{seat}]")
        for seat, done in enumerate(check_list(position["finished"], "finished", n))
    ]
    placed: list[list[str]] = [[] for _ in range(n)]
    dice_at = [[0] * n for _ in range(CASINOS)]
    for index, entry in enumerate(check_list(position["casinos"], "casinos", CASINOS)):
        where = f"casinos[{index}]"
        entry = check_object(entry, where, ("casino", "notes", "cards"))
        check_equal(entry["casino"], f"{where}.casino", index + 1, "the casinos in order")
        if notes_of(entry["notes"], f"{where}.notes", rules.notes_per_casino) and over:
            refuse(f"{where}.notes", "the game is over: every casino has paid out")
        seats = check_keys(entry["cards"], f"{where}.cards", [str(seat) for seat in range(n)])
        for owner, cards in seats.items():
            field = f"{where}.cards.{owner}"
            if not cards_of(cards, field):
                refuse(field, "a seat without cards here is left out")
            for i, text in enumerate(cards):
                if card_face(card_of(text)) != index + 1:
                    refuse(f"{field}[{i}]", f"card {text} goes to casino {text[0]}")
            placed[int(owner)] += cards
            dice_at[index][int(owner)] = sum(card_dice(card_of(text)) for text in cards)
    deck = [card_text(card) for card in rules.deck()]
    for seat in range(n):
        check_cards(f"seat {seat}'s cards", hands[seat] + discards[seat] + placed[seat], deck)
        if finished[seat] and len(placed[seat]) < rules.stop_cards:
            refuse(f"finished[{seat}]", f"a seat finishes with {rules.stop_cards} cards placed")
        if over and hands[seat]:
            refuse(f"hands[{seat}]", "the game is over: nobody holds cards")
    # The notes: two to each casino a round, from a pile that lasts the game exactly.
    pile = rules.note_pile()
    for seat, won in enumerate(check_list(position["won"], "won", n)):
        most = CASINOS * (round_number if over else round_number - 1)
        notes_of(won, f"won[{seat}]", most)
    seen = [note for won in position["won"] for note in won]
    seen += notes_of(position["box"], "box")
    check_sorted(position["box"], "box")
    check_cards("notes", seen, pile)
    for index, entry in enumerate(position["casinos"]):
        if not over and len(entry["notes"]) != rules.notes_per_casino:
            refuse(f"casinos[{index}].notes", f"{rules.notes_per_casino} notes until the payout")
    stocked = [note for entry in position["casinos"] for note in entry["notes"]]
    dealt = min(round_number * CASINOS * rules.notes_per_casino, len(pile))
    if len(seen) + len(stocked) != dealt:
        refuse("box", f"{dealt} notes are dealt by round {round_number}, not {len(seen)}")
    chips = CHIPS if description.options["chips"] else None
    if chips is None:
        check_null(position["chips"], "chips", "this game has no chip cards")
    else:
        seen_chips = check_object(position["chips"], "chips", ("at_casinos", "held"))
        chips.check_position(seen_chips, n, round_number)
    _check_card_turn(
        rules, position, decision, sequential, n, hands, finished, placed, dice_at, chips
    )


def _check_card_turn(
    rules: CardRules,
    position: JsonDict,
    decision: CardDecision,
    sequential: bool,
    n: int,
    hands: list[list[str]],
    finished: list[bool],
    placed: list[list[str]],
    dice_at: list[list[int]],
    chips: ChipRules | None,
) -> None:
    """The turn's flow: seats still to choose, their secret choices, chip cards to offer."""
    start = position["start_player"]
    order = [(start + step) % n for step in range(n)]

    def seats_of(field: str) -> list[int]:
        seats = [
            check_seat(s, f"{field}[{i}]", n)
            for i, s in enumerate(check_list(position[field], field))
        ]
        if [seat for seat in order if seat in seats] != seats:
            refuse(field, f"{seats} must be distinct seats in turn order from seat {start}")
        return seats

    queue = seats_of("queue")
    resolving = seats_of("resolving")
    offers: list[tuple[int, int]] = []
    for i, offer in enumerate(check_list(position["chip_offers"], "chip_offers")):
        field = f"chip_offers[{i}]"
        offer = check_list(offer, field, 2)
        seat = check_seat(offer[0], f"{field}[0]", n)
        casino = check_int(offer[1], f"{field}[1]", 1, CASINOS)
        if chips is None:
            refuse(field, "this game has no chip cards")
        if seat not in resolving:
            refuse(field, f"seat {seat} is not finishing its turn (resolving: {resolving})")
        if dice_at[casino - 1][seat] < chips.dice_to_take:
            refuse(field, f"seat {seat} has too few dice at casino {casino} to take a chip card")
        offers.append((resolving.index(seat), casino))
    if offers != sorted(set(offers)):
        refuse("chip_offers", "one offer per seat and casino, in turn order and casino order")
    chosen = check_keys(position["chosen"], "chosen", [str(seat) for seat in queue])
    for chooser, action in chosen.items():
        if not isinstance(action, str):
            refuse(f"chosen.{chooser}", f"an action (text) expected, got {action!r}")
    playing = [s for s in order if not finished[s] and hands[s]]
    # Each seat draws a hand a turn (its deck lasts the turns exactly) until it finishes.
    turn = position["turn"]
    deck = len(rules.deck())
    for seat in range(n):
        if finished[seat] or decision is CardDecision.NONE:
            drawn = deck  # the rest of a finished seat's deck is discarded
        elif sequential and seat not in queue and seat not in resolving:
            drawn = min((turn + 1) * rules.hand_size, deck)  # played this turn, drew again
        else:
            drawn = min(turn * rules.hand_size, deck)
        seen = len(hands[seat]) + len(position["discards"][seat]) + len(placed[seat])
        if seen != drawn:
            refuse(f"discards[{seat}]", f"seat {seat} has drawn {drawn} cards by now, not {seen}")
        if seat in queue and len(hands[seat]) != min(rules.hand_size, deck):
            refuse(f"hands[{seat}]", f"seat {seat} holds the {rules.hand_size} cards it drew")
        if not finished[seat] and len(placed[seat]) >= rules.stop_cards and seat not in resolving:
            refuse(f"finished[{seat}]", f"a seat with {rules.stop_cards} cards placed is finished")
    current = position["current_player"]
    if decision is CardDecision.NONE:
        check_null(current, "current_player", "the game is over")
        for field in ("queue", "resolving", "chip_offers", "chosen"):
            if position[field]:
                refuse(field, "the game is over: nothing is left of a turn")
        return
    if decision is CardDecision.CHIP:
        if chips is None or not offers:
            refuse("chip_offers", "a chip decision needs a chip offer")
        if chosen:
            refuse("chosen", "the choices were revealed before any chip card is offered")
        offers_seat = position["chip_offers"][0][0]
        check_equal(current, "current_player", offers_seat, "the seat of the first chip offer")
        if not position["chips"]["at_casinos"][position["chip_offers"][0][1] - 1]:
            refuse("chip_offers[0]", "no chip card is left at that casino")
        if sequential and len(resolving) != 1:
            refuse("resolving", "one seat plays at a time (option sequential)")
        if not sequential and queue:
            refuse("queue", "every seat has chosen before any chip card is offered")
    else:
        if resolving or offers:
            refuse(
                "resolving" if resolving else "chip_offers",
                "a turn is finished before the next choice",
            )
        if not queue:
            refuse("queue", "nobody left to choose cards")
        if sequential:
            check_equal(current, "current_player", queue[0], "the first seat to choose")
            if chosen:
                refuse("chosen", "with option sequential a choice is played at once")
        else:
            check_null(current, "current_player", "the seats choose at once")
            if len(chosen) >= len(queue):
                refuse("chosen", "once every seat has chosen the cards are played")
    if not sequential and decision is CardDecision.SELECT and queue != playing:
        refuse("queue", f"every seat still playing chooses: {playing}")
    for seat in queue:
        if seat not in playing:
            refuse("queue", f"seat {seat} is finished or holds no card")
    if sequential and queue:
        later = order[order.index(queue[0]) :]
        missing = [s for s in playing if s in later and s not in queue and s not in resolving]
        if missing:
            refuse("queue", f"seat {missing[0]} has not played this turn yet")


def _by_seat(seen: JsonDict, field: str, seats: int) -> list[Any]:
    """A position's per-seat list, checked to have one entry per seat."""
    values = seen[field]
    if not isinstance(values, list) or len(values) != seats:
        raise InvalidPositionError(field, f"one entry per seat ({seats})")
    return values


def _texts(cards: Sequence[Card]) -> list[str]:
    return [card_text(card) for card in cards]


def card_of(text: str) -> Card:
    """The card a text names: ``"3"`` or ``"3D"``."""
    return int(text[0]) * 2 + (1 if text.endswith("D") else 0)


def _cards(texts: Sequence[str]) -> list[Card]:
    return sorted(card_of(text) for text in texts)


class ExplicitCardGame(ExplicitChance, CardGame):
    """A card game that stops at every chance node (``new_game(..., chance="explicit")``)."""

    __slots__ = ()


def _game(chance: ChanceMode) -> type[CardGame]:
    return ExplicitCardGame if chance is ChanceMode.EXPLICIT else CardGame


CARDGAME = RuleSystem(
    id="cardgame",
    title="Las Vegas, the card game (alea 2016)",
    seeds=("000",),
    seats=(2, 3, 4, 5),
    rounds=RULES.rounds,
    options=(
        OptionSpec(
            "sequential",
            False,
            "Seats choose and place one after another from the start player instead of "
            "all at once in secret.",
        ),
        OptionSpec(
            "chips",
            False,
            "Chip cards: one face up at each casino per round; placing two or more dice "
            "(a double card is two) at a casino lets the seat take one; each colour held "
            "scores $10k/30k/60k/100k/150k for 1-5 cards at the end.",
        ),
    ),
    decisions=CardDecision,
    new_state=lambda description, seed, log, chance: _game(chance)(description, seed, log),
    from_observation=CardGame.from_observation,
    from_position=lambda description, seed, position, log, chance: _game(chance).from_position(
        description, seed, position, log
    ),
)
