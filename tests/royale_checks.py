"""An independent model of `royale` (seed 003) with all 16 action tiles, to re-check game logs.

Written from RULES.md, the rulebook (seed 003), docs/rulings.md 26-34 and the
published action grammar and observation (docs/actions.md, docs/observation.md,
docs/game-log.md), never from the engine's code: it imports nothing of
``vegas_engine.rules.royale`` and keeps its own position (dice by owner and
casino, hands, chips, money, cards, every tile's state).

:class:`RoyaleModel` walks a whole game's log as a plain program playing the
rules would. It takes from the log only chance: the tiles drawn and their
sides, the cards dealt (each checked to be one the pile can hold, in pairs
ranked by value), the bank, the faces of every roll and of the black dice.
Everything else is predicted and compared event by event: who rolls, who is
asked what, the legal actions of every decision (in their documented order)
and whether it is forced, every placement, token, tile effect, reward and
payment, every payout, the next start player, money and the standings. At
every decision a seat really took, the engine's observation of that seat is
compared field by field with the model's position (:func:`play_recorded`
records them).

Where the rules leave the engine a convention (the order of events inside one
effect, a decision nobody could decide differently that the engine does not
ask), the model follows the engine's documentation; those places say so.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from vegas_engine import GameDescription, new_game
from vegas_engine.log import description_of, seed_of

JsonDict = dict[str, Any]
Owner = int | str  # a seat, "neutral" (2-seat neutral dice) or "grey" (Block It!, Handicap)
K = 1000

# --------------------------------------------------------------------------
# Components and tile data, written down from RULES.md (royale section).

CARDS = {
    30 * K: 11,
    40 * K: 11,
    50 * K: 13,
    60 * K: 15,
    70 * K: 13,
    80 * K: 11,
    90 * K: 9,
    100 * K: 7,
}
ROUNDS = 3
DICE = 7  # regular dice per seat, plus one Biggie
CHIP_VALUE = 10 * K
CHIPS_DEALT = 2  # at the start, and again at the start of rounds 2 and 3
NEUTRAL_DICE = 8
SET_ASIDE = 24  # cards for rounds 2-3 in the main game; the rest is the bank
CASINOS = range(1, 7)

TILE_NAMES = {
    "A1": "Lucky Punch",
    "A2": "Jackpot",
    "B1": "Prime Time",
    "B2": "Fifty Fifty",
    "C1": "High Five",
    "C2": "Bad Luck",
    "D1": "Pay Day",
    "D2": "Power Play",
    "E1": "No Entry!",
    "E2": "Knockout?",
    "F1": "Block It!",
    "F2": "Handicap",
    "G1": "Black Box",
    "G2": "Double Down",
    "H1": "Nice Dice",
    "H2": "My Choice",
}

Reward = tuple[int, int]  # (chips, money)
LUCKY_PUNCH: dict[int, Reward] = {1: (2, 0), 2: (0, 30 * K), 3: (0, 40 * K)}
JACKPOT_START, JACKPOT_STEP, JACKPOT_MAX = 30 * K, 10 * K, 80 * K
FIFTY_FIFTY: list[Reward] = [(0, 0), (1, 0), (0, 30 * K), (0, 40 * K), (0, 60 * K)]
HIGH_FIVE_DICE, HIGH_FIVE_MONEY = 5, 100 * K
BAD_LUCK = 50 * K
PAY_DAY = 10 * K
AS_CHIPS = {10 * K: 1, 20 * K: 2}  # Pay Day and Black Box amounts paid as chips
NO_ENTRY_TRACK: list[Reward] = [(2, 0), (0, 0), (0, 30 * K), (0, 0), (1, 0), (0, 0)]
BAR_LIMIT = 2
BLOCK_IT = [1, 1, 2, 2, 3]
HANDICAP_SETUP = [1, 1, 1, 2, 2, 2]
HANDICAP_SPACES = {"chip": 2, "money": 3, "move": 4}
HANDICAP_REWARDS: dict[str, Reward] = {"chip": (1, 0), "money": (0, 30 * K)}
BLACK_BOX = [60 * K, 20 * K, 20 * K, 0, 0, 0]
BLACK_BOX_SIZES = [(3, 3), (4, 2), (5, 1)]
DOUBLE_DOWN = [60 * K, 30 * K]
NICE_DICE: dict[int, Reward] = {
    1: (1, 0),
    2: (2, 0),
    3: (0, 30 * K),
    4: (0, 40 * K),
    5: (0, 50 * K),
    6: (0, 60 * K),
}
MY_CHOICE: dict[int, Reward] = {1: (1, 0), 2: (2, 0), 3: (0, 30 * K)}
GOLDEN = 60 * K

KINDS = ("die", "biggie")


def owner_key(owner: Owner, seats: int) -> int:
    """Seats first, then the neutral dice, then the grey dice (the logs' order)."""
    if owner == "neutral":
        return seats
    if owner == "grey":
        return seats + 1
    assert isinstance(owner, int)
    return owner


def rank(counts: Mapping[Owner, int], seats: int) -> tuple[list[Owner], list[list[Owner]]]:
    """The rulebook's payout: owners with equal counts cancel; the rest ranked, most first."""
    groups: dict[int, list[Owner]] = {}
    for owner in sorted(counts, key=lambda o: owner_key(o, seats)):
        if counts[owner] > 0:
            groups.setdefault(counts[owner], []).append(owner)
    ordered = [groups[count] for count in sorted(groups, reverse=True)]
    return [g[0] for g in ordered if len(g) == 1], [g for g in ordered if len(g) > 1]


def clear_majority(counts: Mapping[Owner, int]) -> Owner | None:
    """The owner with more dice than every other owner (imaginary ones included), if any."""
    present = {owner: count for owner, count in counts.items() if count > 0}
    if not present:
        return None
    top = max(present.values())
    leaders = [owner for owner, count in present.items() if count == top]
    return leaders[0] if len(leaders) == 1 else None


def token_text(value: int) -> str:
    return f"{value // K}k" if value else "0"


def black_box_splits() -> dict[str, tuple[list[int], list[int]]]:
    """Every split of the six tokens (pile 1 the larger; both orders of a 3 + 3)."""
    splits: dict[str, tuple[list[int], list[int]]] = {}
    tokens = sorted(BLACK_BOX, reverse=True)
    for first, _ in BLACK_BOX_SIZES:
        for chosen in combinations(range(len(tokens)), first):
            one = [tokens[i] for i in chosen]
            two = [tokens[i] for i in range(len(tokens)) if i not in chosen]
            text = "split " + "+".join(map(token_text, one)) + "/" + "+".join(map(token_text, two))
            splits[text] = (one, two)
    return splits


SPLITS = black_box_splits()


def bank_payment(money: int, chips: int, due: int) -> tuple[int, int]:
    """RULES.md and the rulebook: (money paid, chips taken) for ``due`` to the bank.

    Pay with money; when it is short, chips worth $10,000 cover the rest (as
    many as needed, or all there are); the bank gives change in money, never
    in chips; nobody goes below zero.
    """
    if money >= due:
        return due, 0
    short = due - money
    taken = min(chips, (short + CHIP_VALUE - 1) // CHIP_VALUE)
    change = max(0, taken * CHIP_VALUE - short)
    return money - change, taken


# --------------------------------------------------------------------------
# A game's record: its log and what the engine showed at each real decision.


@dataclass
class Checkpoint:
    """Before a decision the engine asked: who, the legal actions, that seat's observation."""

    seat: int
    legal: list[str]
    view: JsonDict


@dataclass
class Record:
    description: GameDescription
    events: list[JsonDict]
    #: By the index its decision event got in the log.
    checkpoints: dict[int, Checkpoint]
    first_view: JsonDict
    final_views: list[JsonDict]


Chooser = Callable[[list[str], random.Random], str]


def uniform(legal: list[str], rng: random.Random) -> str:
    return rng.choice(legal)


def play_recorded(
    description: GameDescription, seed: int, rng: random.Random, choose: Chooser = uniform
) -> Record:
    """Play a whole game with ``choose``, recording what the model compares."""
    state = new_game(description, seed)
    events = state.events()
    assert events is not None
    first_view = state.observe(0)
    checkpoints: dict[int, Checkpoint] = {}
    while not state.is_terminal():
        (seat,) = state.to_move()
        legal = list(state.legal_actions(seat))
        checkpoints[len(events)] = Checkpoint(seat, legal, state.observe(seat))
        state.apply_action(choose(legal, rng), seat)
    views = [state.observe(seat) for seat in range(description.seats)]
    return Record(description, events, checkpoints, first_view, views)


def follow_log(log: JsonDict) -> Record:
    """Play a stored game's decisions again, recording what the model compares."""
    description = description_of(log)
    taken = iter(
        event["action"]
        for event in log["events"]
        if event["type"] == "decision" and not event["forced"]
    )
    record = play_recorded(
        description, seed_of(log), random.Random(0), lambda legal, rng: next(taken)
    )
    assert record.events == log["events"], "the stored log replays event for event"
    return record


# --------------------------------------------------------------------------
# The model.


@dataclass
class Tiles:
    """Every tile's state in one round (each round sets the tiles up anew)."""

    at: dict[int, str] = field(default_factory=dict)  # casino -> tile code
    closed: int | None = None
    jackpot: int = JACKPOT_START
    fifty: tuple[int, int] = (0, 0)  # (step, sum) of a Fifty Fifty in progress
    high_five: int | None = None
    power: int | None = None
    power_ready: bool = False
    track: int = 0
    groups: list[int] = field(default_factory=list)
    handicap: dict[str, int] = field(default_factory=lambda: dict.fromkeys(HANDICAP_SPACES, 0))
    nice: dict[int, tuple[int, str]] = field(default_factory=dict)  # face -> (owner, kind)
    golden: tuple[int, str] | None = None
    bad_luck: list[int] = field(default_factory=list)
    lucky_punch: tuple[int, int] | None = None  # (hider, tokens) while the guess is asked
    black_box: tuple[int, int, str] | None = None  # (casino, splitter, split) while picking

    def casino_of(self, code: str) -> int | None:
        return next((casino for casino, tile in self.at.items() if tile == code), None)


class RoyaleModel:
    """Re-plays one recorded game of `royale` by the rules and checks every event."""

    def __init__(self, record: Record) -> None:
        d = record.description
        self.record = record
        self.n = n = d.seats
        self.tile_count = int(d.options.get("tiles", 3))
        self.neutral = bool(d.options.get("neutral_dice", False))
        self.events = record.events
        self.at = 0
        self.asked: set[int] = set()  # indexes of the decisions the engine asked
        #: What was checked: event types, decisions by kind, notable situations.
        self.seen: Counter[str] = Counter()
        self.unknown: Counter[int] = Counter(CARDS)  # the pile's cards not seen yet
        self.under: list[int] = []
        self.bank: list[int] = []
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.credit = [0] * n
        self.chips = [0] * n
        self.round = 0
        self.start = 0
        self.winners: list[int | None] = [None] * 6
        self.new_round_tables()

    def new_round_tables(self) -> None:
        n = self.n
        self.hands = [{"die": 0, "biggie": 0} for _ in range(n)]
        self.counts: dict[int, Counter[Owner]] = {c: Counter() for c in CASINOS}
        self.biggies: dict[int, Counter[int]] = {c: Counter() for c in CASINOS}
        self.black: dict[int, Counter[int]] = {c: Counter() for c in CASINOS}  # Prime Time's
        self.cards: dict[int, list[int]] = {c: [] for c in CASINOS}
        self.bar = [{"die": 0, "biggie": 0} for _ in range(n)]
        self.side = [{"die": 0, "biggie": 0} for _ in range(n)]
        self.tiles = Tiles()
        self.arena: Counter[tuple[str, int]] = Counter()  # this turn's rolled dice not placed
        self.placed: tuple[int, dict[str, int]] | None = None  # this turn's placement
        self.black_dice: list[int] = []

    # ------------------------------------------------------------ the log

    def where(self) -> str:
        index = self.at - 1
        return f"event {index} {self.events[index] if 0 <= index < len(self.events) else ''}"

    def take(self, kind: str) -> JsonDict:
        assert self.at < len(self.events), f"the log ended where the rules expect a {kind}"
        event = self.events[self.at]
        self.at += 1
        assert event["type"] == kind, f"{self.where()}: the rules expect a {kind} event here"
        self.seen[kind] += 1
        return event

    def expect(self, kind: str, **fields: Any) -> None:
        event = self.take(kind)
        assert event == {"type": kind, **fields}, f"{self.where()}: the rules give {fields}"

    def draw(self, card: int) -> None:
        if self.unknown.total():
            assert self.unknown[card] > 0, f"{self.where()}: no {card} card can be in the pile"
            self.unknown[card] -= 1
        else:
            assert self.under, f"{self.where()}: drew {card} from an empty pile"
            top = self.under.pop(0)
            assert top == card, f"{self.where()}: the pile's top is {top}"

    def decide(
        self, seat: int, decision: str, legal: list[str], context: JsonDict, *, ordered: bool = True
    ) -> str:
        """The decision event of ``seat``: legal, forced exactly when alone, observed right."""
        assert legal, f"{self.where()}: the model offers no action for {decision}"
        index = self.at
        event = self.take("decision")
        assert event["seat"] == seat, f"{self.where()}: seat {seat} must decide {decision}"
        assert event["action"] in legal, f"{self.where()}: legal are {legal}"
        assert event["forced"] == (len(legal) == 1), f"{self.where()}: legal are {legal}"
        checkpoint = self.record.checkpoints.get(index)
        if event["forced"]:
            assert checkpoint is None, f"{self.where()}: the engine asked a forced decision"
        else:
            assert checkpoint is not None, f"{self.where()}: a decision nobody was asked"
            assert checkpoint.seat == seat, self.where()
            self.asked.add(index)
            if ordered:
                assert checkpoint.legal == legal, f"{self.where()}: legal {checkpoint.legal}"
            else:
                assert sorted(checkpoint.legal) == sorted(legal), self.where()
                assert len(set(legal)) == len(legal)
            self.check_view(checkpoint.view, seat, decision, context, checkpoint.legal)
        self.seen["decide " + decision] += 1
        return str(event["action"])

    # -------------------------------------------------------- the position

    def holds(self, seat: int) -> bool:
        return self.hands[seat]["die"] + self.hands[seat]["biggie"] > 0

    def cash(self, seat: int) -> int:
        return sum(self.won[seat]) + self.credit[seat]

    def is_open(self, casino: int) -> bool:
        return casino != self.tiles.closed

    def add_dice(self, owner: Owner, casino: int, kind: str, count: int = 1) -> None:
        self.counts[casino][owner] += count * (2 if kind == "biggie" else 1)
        if kind == "biggie":
            assert isinstance(owner, int)
            self.biggies[casino][owner] += count

    def remove_die(self, owner: int, casino: int, kind: str) -> None:
        self.add_dice(owner, casino, kind, -1)
        assert self.counts[casino][owner] >= 0 and self.biggies[casino][owner] >= 0

    def regular_at(self, seat: int, casino: int) -> int:
        """The seat's own regular dice at a casino (not its Biggie, not Prime Time's dice)."""
        return self.counts[casino][seat] - 2 * self.biggies[casino][seat] - self.black[casino][seat]

    def reward(self, seat: int, reward: Reward, source: str) -> None:
        chips, money = reward
        if chips or money:
            self.chips[seat] += chips
            self.credit[seat] += money
            self.expect("reward", seat=seat, chips=chips, money=money, source=source)

    def move(self, owner: Owner, die: str, count: int, source: str, target: str) -> None:
        self.expect("move", owner=owner, die=die, count=count, **{"from": source, "to": target})

    def place_event(self, seat: int, casino: int, dice: Mapping[str, int]) -> None:
        placed = {kind: count for kind, count in dice.items() if count}
        self.expect("place", seat=seat, casino=casino, face=casino, dice=placed)

    # ------------------------------------------------------------- the game

    def run(self) -> None:
        for _ in range(ROUNDS):
            self.play_round()
        self.expect("game_end", result=self.standings())
        assert self.at == len(self.events), f"events after game_end: {self.events[self.at :]}"
        for seat, view in enumerate(self.record.final_views):
            assert view["result"] == self.standings(), f"final observation of seat {seat}"
            assert view["chips"] == self.chips and view["bank_credit"] == self.credit
            assert view["won"] == self.won and view["money"] == [
                self.cash(s) for s in range(self.n)
            ]
            assert view["to_move"] == [] and view["legal_actions"] == []

    def standings(self) -> list[JsonDict]:
        """Most money (chips $10,000 each) wins; tie-break: most money cards plus chips."""
        keys = [
            (
                self.cash(seat) + CHIP_VALUE * self.chips[seat],
                len(self.won[seat]) + self.chips[seat],
            )
            for seat in range(self.n)
        ]
        return [
            {"seat": seat, "money": key[0], "notes": key[1], "rank": 1 + sum(o > key for o in keys)}
            for seat, key in enumerate(keys)
        ]

    def next_start(self) -> int:
        """The seat that took the higher card at casino 6, else 5, ...; else pass left."""
        if self.round == 0:
            return 0
        for casino in reversed(CASINOS):
            winner = self.winners[casino - 1]
            if winner is not None:
                return winner
        return (self.start + 1) % self.n

    def play_round(self) -> None:
        n = self.n
        self.start = self.next_start()
        self.round += 1
        self.winners = [None] * 6
        self.new_round_tables()
        self.expect("round_start", round=self.round, start_player=self.start)
        self.deal()
        for seat in range(n):
            self.chips[seat] += CHIPS_DEALT
        self.expect("chips_dealt", round=self.round, chips=CHIPS_DEALT)
        self.set_up_tiles()
        for hand in self.hands:
            hand.update(die=DICE, biggie=1)
        if self.neutral:
            event = self.take("neutral_roll")
            assert event["seat"] == self.start and len(event["dice"]) == NEUTRAL_DICE
            assert event["dice"] == sorted(event["dice"]), self.where()
            for face in event["dice"]:
                assert face in CASINOS, self.where()
                self.counts[face]["neutral"] += 1
        seat = self.start
        while True:
            roller = next(
                (s % n for s in range(seat, seat + n) if self.holds(s % n)),
                None,
            )
            if roller is None:
                break
            self.turn(roller)
            seat = roller + 1
        self.arena = Counter()
        self.placed = None
        self.before_payout()
        for casino in CASINOS:
            self.payout(casino)
        self.round_end()

    def deal(self) -> None:
        """Six pairs by value (RULES.md); in the main game the bank after the first deal."""
        pairs = []
        for casino in CASINOS:
            event = self.take("stock")
            assert event["casino"] == casino, self.where()
            notes = event["notes"]
            assert len(notes) == 2 and notes == sorted(notes, reverse=True), self.where()
            for card in notes:
                self.draw(card)
            self.cards[casino] = list(notes)
            pairs.append((sum(notes), notes[0]))
        assert pairs == sorted(pairs), f"{self.where()}: pairs not ranked by value: {pairs}"
        if self.round == 1 and self.tile_count:
            # Chance the log does not show: which cards form the (public) bank.
            bank = self.record.first_view["bank_cards"]
            assert bank == sorted(bank) and len(bank) == sum(CARDS.values()) - 12 - SET_ASIDE
            for card in bank:
                self.draw(card)
            self.bank = list(bank)

    def set_up_tiles(self) -> None:
        """``tiles`` random tiles, each on a random side, on casinos 1, 2, 3, ..."""
        letters = set()
        for casino in range(1, self.tile_count + 1):
            event = self.take("tile_setup")
            code = event["tile"]
            assert event["casino"] == casino and code in TILE_NAMES, self.where()
            assert event["name"] == TILE_NAMES[code], self.where()
            assert code[0] not in letters, f"{self.where()}: tile {code[0]} drawn twice"
            letters.add(code[0])
            self.tiles.at[casino] = code
            self.seen["tile " + code] += 1
        if "F1" in self.tiles.at.values():
            self.tiles.groups = list(BLOCK_IT)
        if "F2" in self.tiles.at.values():
            self.tiles.handicap = dict(HANDICAP_SPACES)
            for casino, count in zip(CASINOS, HANDICAP_SETUP, strict=True):
                self.counts[casino]["grey"] += count
                self.move("grey", "grey", count, "tile", f"casino {casino}")

    # --------------------------------------------------------------- turns

    def turn(self, seat: int) -> None:
        self.arena = Counter()
        self.placed = None
        tiles = self.tiles
        if tiles.power == seat and tiles.power_ready:
            # "On your next turn, if you still have the token, you may pass the turn."
            tiles.power_ready = False
            action = self.decide(seat, "power", ["roll", *self.turn_options(seat)], {})
            if action != "roll":
                _, kind, face = action.split()
                casino = int(face)
                self.turn_die(seat, kind, casino)
                self.placed = (casino, {kind: 1})
                self.seen["power play turn"] += 1
                self.activate(casino, seat)
                return
        self.roll(seat)
        faces = sorted({face for _, face in +self.arena})
        legal = [f"place {face}" for face in faces if self.is_open(face)]
        if not legal:
            legal = ["skip"]
        elif self.chips[seat]:
            legal.append("pass")
        action = self.decide(seat, "place", legal, {})
        if action == "skip":
            self.seen["skip"] += 1
            return
        if action == "pass":
            self.chips[seat] -= 1
            self.expect("chip_pass", seat=seat, chips=self.chips[seat])
            return
        casino = int(action.split()[1])
        dice = {kind: self.arena.pop((kind, casino), 0) for kind in KINDS}
        for kind, count in dice.items():
            self.hands[seat][kind] -= count
            self.add_dice(seat, casino, kind, count)
        self.place_event(seat, casino, dice)
        self.placed = (casino, dice)
        self.power_check(casino)
        self.activate(casino, seat)

    def roll(self, seat: int) -> None:
        event = self.take("roll")
        assert event["seat"] == seat, f"{self.where()}: seat {seat} rolls now"
        dice = event["dice"]
        assert set(dice) <= set(KINDS), self.where()
        for kind in KINDS:
            faces = dice.get(kind, [])
            assert kind not in dice or faces, f"{self.where()}: an empty kind is left out"
            assert len(faces) == self.hands[seat][kind], f"{self.where()}: rolls all in hand"
            assert faces == sorted(faces) and all(f in CASINOS for f in faces), self.where()
            for face in faces:
                self.arena[kind, face] += 1

    def turn_options(self, seat: int) -> list[str]:
        """Turn a die in hand to any face of an open casino: regular dice, then the Biggie."""
        return [
            f"turn {kind} {face}"
            for kind in KINDS
            if self.hands[seat][kind]
            for face in CASINOS
            if self.is_open(face)
        ]

    def move_options(self, seat: int) -> list[str]:
        """Handicap's move space and My Choice's 5: turn a die, or take one back."""
        returns = [
            f"return {casino} {kind}"
            for kind in KINDS
            for casino in CASINOS
            if self.is_open(casino)
            and (self.biggies[casino][seat] if kind == "biggie" else self.regular_at(seat, casino))
        ]
        return self.turn_options(seat) + returns

    def turn_die(self, seat: int, kind: str, casino: int) -> None:
        """A die from the hand turned to ``casino``'s face and placed there (logged as a place)."""
        assert self.hands[seat][kind] > 0
        self.hands[seat][kind] -= 1
        # The turned die is one of this turn's unplaced dice, if any (which one is not observable).
        rolled = sorted(key for key in +self.arena if key[0] == kind)
        if rolled:
            self.arena[rolled[0]] -= 1
        self.add_dice(seat, casino, kind)
        self.place_event(seat, casino, {kind: 1})
        self.power_check(casino)

    def do_move(self, seat: int, action: str) -> None:
        verb, first, second = action.split()
        if verb == "turn":
            self.turn_die(seat, first, int(second))
            self.seen["move turn"] += 1
            return
        casino, kind = int(first), second
        self.remove_die(seat, casino, kind)
        self.hands[seat][kind] += 1
        self.move(seat, kind, 1, f"casino {casino}", "hand")
        self.power_check(casino)
        self.seen["move return"] += 1

    # ------------------------------------------------------------- Power Play

    def power_check(self, casino: int) -> None:
        """RULES.md: the token returns to the tile when no player has a clear majority there.

        Called after every change of the dice at a casino. A clear majority of
        another player (without activating) leaves the token with its holder.
        """
        tiles = self.tiles
        if tiles.power is None or tiles.casino_of("D2") != casino:
            return
        leader = clear_majority(self.counts[casino])
        if leader is None:
            tiles.power = None
            tiles.power_ready = False
            self.expect("token", tile="D2", holder=None, casino=casino)
            self.seen["power play returns"] += 1
        elif leader != tiles.power:
            self.seen["power play kept against a clear majority"] += 1

    def power_play(self, casino: int, seat: int) -> None:
        """After placing, a player with the sole majority there takes the token."""
        if clear_majority(self.counts[casino]) == seat:
            if self.tiles.power not in (None, seat):
                self.seen["power play taken from a holder"] += 1
            self.tiles.power = seat
            self.tiles.power_ready = True
            self.expect("token", tile="D2", holder=seat, casino=casino)

    # ------------------------------------------------------------ activation

    def activate(self, casino: int, seat: int) -> None:
        tile = self.tiles.at.get(casino)
        if tile is None or not self.is_open(casino):
            return
        self.expect("activate", seat=seat, casino=casino, tile=tile)
        self.seen["activate " + tile] += 1
        ACTIVATIONS[tile](self, casino, seat)

    def nothing_now(self, casino: int, seat: int) -> None:
        """Prime Time, Bad Luck and Black Box act only before or at the payout."""

    def lucky_punch(self, casino: int, seat: int) -> None:
        hide = self.decide(seat, "hide", ["hide 1", "hide 2", "hide 3"], {"casino": casino})
        tokens = int(hide.split()[1])
        guesser = (seat + 1) % self.n  # the player to the left
        self.tiles.lucky_punch = (seat, tokens)
        guess_text = self.decide(
            guesser,
            "guess",
            ["guess 1", "guess 2", "guess 3"],
            {"hider": seat, "casino": casino},
        )
        self.tiles.lucky_punch = None
        guess = int(guess_text.split()[1])
        won = guess != tokens
        self.expect("lucky_punch", seat=seat, guesser=guesser, tokens=tokens, guess=guess, won=won)
        if won:
            self.reward(seat, LUCKY_PUNCH[tokens], "Lucky Punch")

    def throw_black(self, seat: int, tile: str) -> list[int]:
        event = self.take("black_dice")
        assert event["seat"] == seat and event["tile"] == tile, self.where()
        dice = list(event["dice"])
        assert len(dice) == 2 and all(face in CASINOS for face in dice), self.where()
        self.black_dice = dice
        return dice

    def jackpot(self, casino: int, seat: int) -> None:
        dice = self.throw_black(seat, "A2")
        hit = sum(dice) == 7 or dice[0] == dice[1]
        pot = self.tiles.jackpot
        if hit:
            self.tiles.jackpot = JACKPOT_START
        else:
            self.tiles.jackpot = min(pot + JACKPOT_STEP, JACKPOT_MAX)
        self.expect("jackpot_roll", seat=seat, dice=dice, hit=hit, pot=self.tiles.jackpot)
        if hit:
            self.reward(seat, (0, pot), "Jackpot")
            self.seen["jackpot hit"] += 1

    def fifty_fifty(self, casino: int, seat: int) -> None:
        dice = self.throw_black(seat, "B2")
        step, total = 1, sum(dice)
        self.expect("fifty_fifty", seat=seat, call=None, dice=dice, step=1, outcome="rolled")
        while True:
            self.tiles.fifty = (step, total)
            legal = ["stop", "higher", "lower"] if step < len(FIFTY_FIFTY) else ["stop"]
            call = self.decide(seat, "gamble", legal, {"casino": casino})
            if call == "stop":
                self.tiles.fifty = (0, 0)
                self.expect("fifty_fifty", seat=seat, call=None, dice=[], step=step, outcome="stop")
                self.reward(seat, FIFTY_FIFTY[step - 1], "Fifty Fifty")
                self.seen[f"fifty fifty stops at {step}"] += 1
                return
            dice = self.throw_black(seat, "B2")
            new = sum(dice)
            # "If you roll the same number twice in a row, you lose the bet!"
            right = new > total if call == "higher" else new < total
            step += 1
            outcome = "won" if right else "lost"
            self.expect("fifty_fifty", seat=seat, call=call, dice=dice, step=step, outcome=outcome)
            if not right:
                self.tiles.fifty = (0, 0)
                self.seen["fifty fifty lost"] += 1
                return
            total = new

    def high_five(self, casino: int, seat: int) -> None:
        """RULES.md: on activation, 5 or more dice there (a Biggie 2) take the token if free."""
        if self.tiles.high_five is None and self.counts[casino][seat] >= HIGH_FIVE_DICE:
            self.tiles.high_five = seat
            self.expect("token", tile="C1", holder=seat, casino=casino)
            self.seen["high five taken"] += 1
        elif self.tiles.high_five is None and self.counts[casino][seat] >= HIGH_FIVE_DICE - 1:
            self.seen["high five missed with 4"] += 1

    def pay_day(self, casino: int, seat: int) -> None:
        amount = PAY_DAY * sum(1 for c in CASINOS if self.counts[c][seat] > 0)
        chips = AS_CHIPS.get(amount)
        self.reward(seat, (chips, 0) if chips else (0, amount), "Pay Day")

    def no_entry(self, casino: int, seat: int) -> None:
        tiles = self.tiles
        legal = [f"close {c}" for c in CASINOS if c != casino and c != tiles.closed] + ["keep"]
        action = self.decide(seat, "close", legal, {"casino": casino})
        if action == "keep":
            self.expect("no_entry", seat=seat, closed=None, track=tiles.track)
            return
        tiles.closed = int(action.split()[1])
        tiles.track += 1
        self.expect("no_entry", seat=seat, closed=tiles.closed, track=tiles.track)
        self.reward(seat, NO_ENTRY_TRACK[(tiles.track - 1) % len(NO_ENTRY_TRACK)], "No Entry!")
        self.seen["casino closed"] += 1

    def knockout(self, casino: int, seat: int) -> None:
        n = self.n
        for step in range(1, n):
            other = (seat + step) % n
            bar = self.bar[other]
            # The Biggie counts as one of the two dice the bar may hold of a seat.
            if self.holds(other) and bar["die"] + bar["biggie"] < BAR_LIMIT:
                legal = [f"bar {kind}" for kind in KINDS if self.hands[other][kind]]
                action = self.decide(other, "bar", legal, {"activator": seat, "casino": casino})
                kind = action.split()[1]
                self.hands[other][kind] -= 1
                bar[kind] += 1
                self.move(other, kind, 1, "hand", "bar")
        own = self.bar[seat]
        for kind in KINDS:
            if own[kind]:
                self.move(seat, kind, own[kind], "bar", "hand")
                self.hands[seat][kind] += own[kind]
                own[kind] = 0
                self.seen["knockout dice back"] += 1

    def block_it(self, casino: int, seat: int) -> None:
        groups = self.tiles.groups
        if not groups:
            return  # all groups taken: nothing to choose, nothing asked
        legal = [
            f"block {size} {c}" for size in sorted(set(groups)) for c in CASINOS if self.is_open(c)
        ]
        action = self.decide(seat, "block", legal, {"casino": casino})
        _, size_text, target_text = action.split()
        size, target = int(size_text), int(target_text)
        groups.remove(size)
        self.counts[target]["grey"] += size
        self.move("grey", "grey", size, "tile", f"casino {target}")
        self.power_check(target)

    def handicap(self, casino: int, seat: int) -> None:
        free = self.tiles.handicap
        # docs/actions.md: a move space is offered only when a move is possible.
        can_move = bool(self.move_options(seat))
        legal = [
            f"take {c} {kind}"
            for c in CASINOS
            if self.is_open(c) and self.counts[c]["grey"] > 0
            for kind in HANDICAP_SPACES
            if free[kind] and (kind != "move" or can_move)
        ] + ["take none"]
        action = self.decide(seat, "handicap", legal, {"casino": casino})
        if action == "take none":
            return
        _, source_text, kind = action.split()
        source = int(source_text)
        self.counts[source]["grey"] -= 1
        free[kind] -= 1
        self.move("grey", "grey", 1, f"casino {source}", f"handicap {kind}")
        self.power_check(source)
        if kind == "move":
            move = self.decide(seat, "move", self.move_options(seat), {"casino": casino})
            self.do_move(seat, move)
        else:
            self.reward(seat, HANDICAP_REWARDS[kind], "Handicap")

    def double_down(self, casino: int, seat: int) -> None:
        if not self.counts[casino][seat]:
            return  # nothing of the seat's to move (My Choice's activation)
        regular = self.regular_at(seat, casino)
        biggie = self.biggies[casino][seat]
        legal = []
        for count in range(regular + 1):
            legal.append(f"bet {count}")
            if biggie:
                legal.append(f"bet {count} biggie")
        action = self.decide(seat, "bet", legal, {"casino": casino})
        parts = action.split()
        count = int(parts[1])
        if count:
            self.counts[casino][seat] -= count
            self.side[seat]["die"] += count
            self.move(seat, "die", count, f"casino {casino}", "side bet")
        if len(parts) == 3:
            self.remove_die(seat, casino, "biggie")
            self.side[seat]["biggie"] += 1
            self.move(seat, "biggie", 1, f"casino {casino}", "side bet")
        self.power_check(casino)

    def nice_dice(self, casino: int, seat: int) -> None:
        """A die just rolled (not placed) or just placed here goes to the space of its face."""
        tiles = self.tiles
        here: dict[str, int] = {}
        if self.placed is not None and self.placed[0] == casino:
            here = self.placed[1]
        legal = ["nice none"]
        for face in CASINOS:
            if face in tiles.nice and not self.is_open(face):
                continue  # the die there could not be bumped into its closed casino
            for kind in KINDS:
                if self.arena[kind, face] or (face == casino and here.get(kind, 0)):
                    legal.append(f"nice {face}" + (" biggie" if kind == "biggie" else ""))
        if len(legal) == 1:
            return  # no die can go on the tile: the engine asks nothing (docs/actions.md)
        action = self.decide(seat, "nice", legal, {"casino": casino})
        if action == "nice none":
            return
        parts = action.split()
        face = int(parts[1])
        kind = "biggie" if len(parts) == 3 else "die"
        if self.arena[kind, face]:
            self.arena[kind, face] -= 1
            self.hands[seat][kind] -= 1
            source = "hand"
        else:
            self.remove_die(seat, casino, kind)
            assert self.placed is not None
            self.placed[1][kind] -= 1
            source = f"casino {casino}"
        bumped = tiles.nice.get(face)
        if bumped is not None:  # logged first, then the die that takes its space
            owner, bumped_kind = bumped
            self.add_dice(owner, face, bumped_kind)
            self.move(owner, bumped_kind, 1, f"nice {face}", f"casino {face}")
            self.power_check(face)
            self.seen["nice dice bump"] += 1
        tiles.nice[face] = (seat, kind)
        self.move(seat, kind, 1, source, f"nice {face}")
        self.power_check(casino)

    def my_choice(self, casino: int, seat: int) -> None:
        dice = self.throw_black(seat, "H2")
        legal = [f"choose {face}" for face in sorted(set(dice))]
        face = int(self.decide(seat, "choose", legal, {"casino": casino}).split()[1])
        self.seen[f"my choice {face}"] += 1
        context = {"casino": casino}
        # An effect that cannot happen (no other active tile, no move, no die in
        # hand, the golden space taken) does nothing and asks nothing.
        if face in MY_CHOICE:
            self.reward(seat, MY_CHOICE[face], "My Choice")
        elif face == 4:
            others = [
                f"activate {c}"
                for c in CASINOS
                if c != casino and c in self.tiles.at and self.is_open(c)
            ]
            if others:
                target = int(self.decide(seat, "activate", others, context).split()[1])
                self.activate(target, seat)
        elif face == 5:
            options = self.move_options(seat)
            if options:
                self.do_move(seat, self.decide(seat, "move", options, context))
        else:
            hand = self.hands[seat]
            if self.tiles.golden is None and (hand["die"] or hand["biggie"]):
                legal = [f"gold {kind}" for kind in KINDS if hand[kind]]
                kind = self.decide(seat, "gold", legal, context).split()[1]
                hand[kind] -= 1
                rolled = sorted(key for key in +self.arena if key[0] == kind)
                if rolled:
                    self.arena[rolled[0]] -= 1
                self.tiles.golden = (seat, kind)
                self.move(seat, kind, 1, "hand", "gold")

    # ------------------------------------------------------------- payout

    def before_payout(self) -> None:
        """Casinos in order (ruling 32): Bad Luck marks its seats, Prime Time adds black dice."""
        for casino in CASINOS:
            tile = self.tiles.at.get(casino)
            if not self.is_open(casino):
                continue
            if tile == "C2":
                counts = [self.counts[casino][seat] for seat in range(self.n)]
                seats = [seat for seat in range(self.n) if counts[seat] == min(counts)]
                self.tiles.bad_luck = seats
                self.expect("bad_luck", casino=casino, counts=counts, seats=seats)
            elif tile == "B1":
                self.prime_time(casino)

    def prime_time(self, casino: int) -> None:
        ranked, _ = rank(self.counts[casino], self.n)
        if not ranked or not self.cards[casino] or not isinstance(ranked[0], int):
            return
        winner = ranked[0]
        dice = sorted(self.throw_black(winner, "B1"))
        legal = ["add none"]
        legal += [f"add {face}" for face in sorted(set(dice)) if self.is_open(face)]
        if all(self.is_open(face) for face in dice):
            legal.append(f"add {dice[0]} {dice[1]}")
        action = self.decide(winner, "add", legal, {"casino": casino})
        if action == "add none":
            return
        faces = [int(face) for face in action.split()[1:]]
        for face in faces:
            self.counts[face][winner] += 1
            self.black[face][winner] += 1
            self.move(winner, "black", 1, "black", f"casino {face}")
        for face in sorted(set(faces)):
            self.power_check(face)
        self.seen["prime time adds"] += 1

    def payout(self, casino: int) -> None:
        n = self.n
        notes = sorted(self.cards[casino], reverse=True)
        self.cards[casino] = []
        counts = self.counts[casino]
        ranked, cancelled = rank(counts, n)
        awards = list(zip(ranked, notes, strict=False))
        returned = [note for owner, note in awards if not isinstance(owner, int)]
        returned += notes[len(awards) :]
        self.expect(
            "payout",
            casino=casino,
            notes=notes,
            counts={
                str(o): c
                for o, c in sorted(counts.items(), key=lambda item: owner_key(item[0], n))
                if c
            },
            cancelled=cancelled,
            awards=[{"owner": owner, "note": note} for owner, note in awards],
            returned=returned,
            returned_to="pile",
        )
        for owner, note in awards:
            if isinstance(owner, int):
                self.won[owner].append(note)
                if self.winners[casino - 1] is None:
                    self.winners[casino - 1] = owner
        self.under += returned
        tile = self.tiles.at.get(casino)
        if tile == "C1" and self.tiles.high_five is not None:
            # A token already taken is its holder's, closed casino or not (ruling 30).
            self.reward(self.tiles.high_five, (0, HIGH_FIVE_MONEY), "High Five")
        if tile is None or not self.is_open(casino):
            return
        if tile == "G1" and awards and isinstance(awards[0][0], int):
            self.black_box(casino, awards[0][0])
        elif tile == "G2":
            self.side_bet(casino)
        elif tile == "H1":
            for face in CASINOS:
                if face in self.tiles.nice:
                    self.reward(self.tiles.nice[face][0], NICE_DICE[face], "Nice Dice")

    def black_box(self, casino: int, winner: int) -> None:
        splitter = (winner + 1) % self.n  # the player to the left of the winner
        split = self.decide(
            splitter,
            "split",
            list(SPLITS),
            {"casino": casino, "winner": winner},
            ordered=False,
        )
        self.tiles.black_box = (casino, splitter, split)
        pick = self.decide(
            winner, "pile", ["pile 1", "pile 2"], {"casino": casino, "splitter": splitter}
        )
        self.tiles.black_box = None
        piles = SPLITS[split]
        chosen = int(pick.split()[1])
        self.expect(
            "black_box",
            casino=casino,
            winner=winner,
            splitter=splitter,
            piles=[piles[0], piles[1]],
            pick=chosen,
        )
        # RULES.md: the winner is paid the pile's total; exactly $20k as 2 chips.
        total = sum(piles[chosen - 1])
        chips = AS_CHIPS.get(total)
        self.reward(winner, (chips, 0) if chips else (0, total), "Black Box")
        self.seen[f"black box pays {total // K}k"] += 1

    def side_bet(self, casino: int) -> None:
        """Double Down's side bet pays like a casino: $60k / $30k from the bank."""
        counts: dict[Owner, int] = {
            seat: bet["die"] + 2 * bet["biggie"]
            for seat, bet in enumerate(self.side)
            if bet["die"] or bet["biggie"]
        }
        ranked, cancelled = rank(counts, self.n)
        awards = list(zip(ranked, DOUBLE_DOWN, strict=False))
        self.expect(
            "side_bet",
            casino=casino,
            counts={str(seat): count for seat, count in counts.items()},
            cancelled=cancelled,
            awards=[{"owner": seat, "money": money} for seat, money in awards],
        )
        for seat, money in awards:
            assert isinstance(seat, int)
            self.reward(seat, (0, money), "Double Down")

    def round_end(self) -> None:
        golden = self.tiles.golden
        # RULES.md E1: a closed casino's tile pays nothing at round end, "not My
        # Choice's golden $60k space".
        my_choice = self.tiles.casino_of("H2")
        if golden is not None and my_choice is not None and self.is_open(my_choice):
            self.seen["golden space paid"] += 1
            self.reward(golden[0], (0, GOLDEN), "My Choice")
        elif golden is not None:
            self.seen["golden space closed"] += 1
        for seat in self.tiles.bad_luck:
            paid, chips = bank_payment(self.cash(seat), self.chips[seat], BAD_LUCK)
            self.credit[seat] -= paid
            self.chips[seat] -= chips
            self.expect(
                "bank_payment",
                seat=seat,
                due=BAD_LUCK,
                money=paid,
                chips=chips,
                source="Bad Luck",
            )
            if paid < BAD_LUCK:
                self.seen["bad luck paid short or with chips"] += 1
        self.expect(
            "round_end", round=self.round, money=[self.cash(seat) for seat in range(self.n)]
        )

    # --------------------------------------------------------- observation

    def check_view(
        self, view: JsonDict, seat: int, decision: str, context: JsonDict, legal: list[str]
    ) -> None:
        """The engine's observation of ``seat`` against the model's position."""
        n = self.n
        tiles = self.tiles
        self.check_conservation()
        roll: JsonDict = {}
        for kind in KINDS:
            faces = [face for face in CASINOS for _ in range(self.arena[kind, face])]
            if faces:
                roll[kind] = faces
        lucky_punch = None
        if tiles.lucky_punch is not None:
            hider, tokens = tiles.lucky_punch
            lucky_punch = {"hider": hider, "tokens": tokens if seat == hider else None}
        black_box = None
        if tiles.black_box is not None:
            casino, splitter, split = tiles.black_box
            piles = SPLITS[split]
            black_box = {
                "casino": casino,
                "splitter": splitter,
                "sizes": [len(piles[0]), len(piles[1])],
                "split": split if seat == splitter else None,
            }
        expected: JsonDict = {
            "seat": seat,
            "seats": n,
            "round": self.round,
            "rounds": ROUNDS,
            "start_player": self.start,
            "to_move": [seat],
            "decision": decision,
            "current_player": seat,
            "context": context,
            "legal_actions": legal,
            "roll": roll,
            "placed": None
            if self.placed is None
            else {
                "casino": self.placed[0],
                "face": self.placed[0],
                "die": self.placed[1].get("die", 0),
                "biggie": self.placed[1].get("biggie", 0),
            },
            "black_dice": self.black_dice,
            "hands": self.hands,
            "chips": self.chips,
            "bank_credit": self.credit,
            "won": self.won,
            "money": [self.cash(s) for s in range(n)],
            "bank_cards": self.bank,
            "under_pile": self.under,
            "pile_size": self.unknown.total(),
            "round_winners": self.winners,
            "casinos": [
                {
                    "casino": casino,
                    "cards": sorted(self.cards[casino], reverse=True),
                    "dice": {
                        str(o): c
                        for o, c in sorted(
                            self.counts[casino].items(), key=lambda item: owner_key(item[0], n)
                        )
                        if c
                    },
                    "biggies": {str(s): b for s, b in sorted(self.biggies[casino].items()) if b},
                    "tile": tiles.at.get(casino),
                    "closed": casino == tiles.closed,
                }
                for casino in CASINOS
            ],
            "tiles": {
                "jackpot": tiles.jackpot,
                "fifty_fifty": {"step": tiles.fifty[0], "sum": tiles.fifty[1]},
                "high_five": tiles.high_five,
                "power_play": {"holder": tiles.power, "ready": tiles.power_ready},
                "no_entry": {"closed": tiles.closed, "track": tiles.track},
                "bar": self.bar,
                "block_it": sorted(tiles.groups),
                "handicap": tiles.handicap,
                "side_bet": self.side,
                "nice_dice": {
                    str(face): {"owner": owner, "die": kind}
                    for face, (owner, kind) in sorted(tiles.nice.items())
                },
                "golden": None
                if tiles.golden is None
                else {"owner": tiles.golden[0], "die": tiles.golden[1]},
                "lucky_punch": lucky_punch,
                "black_box": black_box,
                "bad_luck": tiles.bad_luck,
            },
        }
        for key, value in expected.items():
            assert view[key] == value, (
                f"{self.where()}: observation of seat {seat}: {key} is {view[key]!r}, "
                f"the model has {value!r}"
            )

    def check_conservation(self) -> None:
        """Every seat's 7 dice and Biggie are somewhere; Prime Time's black dice are extra."""
        for seat in range(self.n):
            held = Counter(self.hands[seat]) + Counter(self.bar[seat]) + Counter(self.side[seat])
            held.update(kind for owner, kind in self.tiles.nice.values() if owner == seat)
            if self.tiles.golden is not None and self.tiles.golden[0] == seat:
                held[self.tiles.golden[1]] += 1
            for casino in CASINOS:
                held["die"] += self.regular_at(seat, casino)
                held["biggie"] += self.biggies[casino][seat]
            assert (held["die"], held["biggie"]) == (DICE, 1), f"{self.where()}: seat {seat}'s dice"
        grey = sum(self.counts[casino]["grey"] for casino in CASINOS)
        if "F1" in self.tiles.at.values():
            assert grey + sum(self.tiles.groups) == sum(BLOCK_IT), f"{self.where()}: grey dice"
        if "F2" in self.tiles.at.values():
            used = sum(HANDICAP_SPACES.values()) - sum(self.tiles.handicap.values())
            assert grey + used == sum(HANDICAP_SETUP), f"{self.where()}: grey dice"


ACTIVATIONS: dict[str, Callable[[RoyaleModel, int, int], None]] = {
    "A1": RoyaleModel.lucky_punch,
    "A2": RoyaleModel.jackpot,
    "B1": RoyaleModel.nothing_now,
    "B2": RoyaleModel.fifty_fifty,
    "C1": RoyaleModel.high_five,
    "C2": RoyaleModel.nothing_now,
    "D1": RoyaleModel.pay_day,
    "D2": RoyaleModel.power_play,
    "E1": RoyaleModel.no_entry,
    "E2": RoyaleModel.knockout,
    "F1": RoyaleModel.block_it,
    "F2": RoyaleModel.handicap,
    "G1": RoyaleModel.nothing_now,
    "G2": RoyaleModel.double_down,
    "H1": RoyaleModel.nice_dice,
    "H2": RoyaleModel.my_choice,
}


def check_game(record: Record) -> Counter[str]:
    """Re-check one recorded game; return what was checked (event types, situations)."""
    model = RoyaleModel(record)
    model.run()
    assert model.asked == set(record.checkpoints), "every decision asked is one the rules ask"
    model.seen["events"] = len(record.events)
    return model.seen


__all__ = ["Checkpoint", "Record", "RoyaleModel", "check_game", "follow_log", "play_recorded"]
