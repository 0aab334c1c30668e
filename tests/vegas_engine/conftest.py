"""Shared helpers for the engine tests: the rulebooks' personas, positions, game searches.

A test that needs a particular situation (a roll, a payout, a pile running
out) sets it up with :func:`dice_position` (``vegas_engine.from_position``).
Tests about what real games show play them with seeded random decisions and
stop at the first step that shows it: those searches are deterministic (seed
0, 1, 2, ...) and bounded, so they are reproducible and fail instead of
hanging when the situation never comes up.
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from vegas_engine import State, describe, from_position, new_game, observe

# The rulebooks' personas (seeds 001 and 002), by seat.
ANNA, BENNO, CARLA, DENNY = 0, 1, 2, 3

# Component data as printed in the rulebooks (seeds 001 and 002), kept here
# independently of the engine's own tables.
CLASSIC_NOTES: dict[int, int] = {
    10_000: 6,
    20_000: 8,
    30_000: 8,
    40_000: 6,
    50_000: 6,
    60_000: 5,
    70_000: 5,
    80_000: 5,
    90_000: 5,
}
BIG_NOTES: dict[int, int] = {100_000: 5}
RAINBOW_CARDS = 6
RAINBOW_STOCK_VALUE = 40_000
BOULEVARD_MINIMUM = {2: 30_000, 3: 40_000, 4: 50_000, 5: 60_000, 6: 70_000}
CLASSIC_MINIMUM = 50_000

Policy = Callable[[State, int, random.Random], str]


def random_choice(state: State, seat: int, rng: random.Random) -> str:
    return rng.choice(state.legal_actions(seat))


@dataclass
class Step:
    """One step of a played game: the events one decision (or the start) produced."""

    seed: int
    #: The live state right after the step (it moves on if the game is continued).
    state: State
    #: A clone taken just before the decision (only when asked for), else None.
    before: State | None
    seat: int | None
    action: str | None
    #: The events this step appended, and the index of the first one in the log.
    events: list[dict[str, Any]]
    first: int

    def log(self) -> list[dict[str, Any]]:
        events = self.state.events()
        assert events is not None
        return events


def steps(
    rules: str,
    seats: int,
    seed: int,
    options: Mapping[str, object] | None = None,
    *,
    policy: Policy = random_choice,
    keep_before: bool = False,
) -> Iterator[Step]:
    """Play one game, yielding the start and then every decision taken."""
    state = new_game(describe(rules, seats, options), seed)
    events = state.events()
    assert events is not None
    yield Step(seed, state, None, None, None, list(events), 0)
    rng = random.Random(seed * 7919 + 13)
    while not state.is_terminal():
        seat = state.to_move()[0]
        action = policy(state, seat, rng)
        before = state.clone() if keep_before else None
        first = len(events)
        state.apply_action(action, seat)
        yield Step(seed, state, before, seat, action, events[first:], first)


def find_step(
    rules: str,
    seats: int,
    options: Mapping[str, object] | None,
    predicate: Callable[[Step], bool],
    *,
    seeds: Iterable[int] = range(400),
    policy: Policy = random_choice,
    keep_before: bool = False,
) -> Step:
    """The first step, over ``seeds`` in order, for which ``predicate`` holds.

    A test may put a known seed first (a hint) so that it normally needs one
    game, while the bounded search still finds another if the engine's use of
    its generator changes.
    """
    for seed in seeds:
        for step in steps(rules, seats, seed, options, policy=policy, keep_before=keep_before):
            if predicate(step):
                return step
    pytest.fail(f"no {rules} game with {seats} seats over the seeds tried shows the situation")


@dataclass
class Found:
    """A logged event found by :func:`scan`; ``model`` stands just before it."""

    seed: int
    state: State
    events: list[dict[str, Any]]
    index: int
    model: RulebookModel

    @property
    def event(self) -> dict[str, Any]:
        return self.events[self.index]

    def rest_of_round(self) -> list[dict[str, Any]]:
        """The events after the found one, up to the end of its round."""
        rest: list[dict[str, Any]] = []
        for event in self.events[self.index + 1 :]:
            if event["type"] == "round_end":
                break
            rest.append(event)
        return rest


def scan(
    rules: str,
    seats: int,
    options: Mapping[str, object] | None,
    predicate: Callable[[RulebookModel, dict[str, Any]], bool],
    *,
    seeds: Iterable[int] = range(400),
    policy: Policy = random_choice,
) -> Found:
    """The first logged event (whole games, seeds in order) for which ``predicate`` holds.

    The predicate sees the rulebook model as it stands just before the event,
    and every event before it has been checked by the model.
    """
    for seed in seeds:
        state = play_out(rules, seats, seed, options, policy=policy)
        events = state.events()
        assert events is not None
        model = RulebookModel(rules, seats, options)
        for index, event in enumerate(events):
            if predicate(model, event):
                return Found(seed, state, events, index, model)
            model.feed(event)
    pytest.fail(f"no {rules} game with {seats} seats over the seeds tried shows the event")


def play_out(
    rules: str,
    seats: int,
    seed: int,
    options: Mapping[str, object] | None = None,
    *,
    policy: Policy = random_choice,
) -> State:
    """A whole game with seeded random decisions."""
    last = deque(steps(rules, seats, seed, options, policy=policy), maxlen=1)
    return last[0].state


def dice_position(
    rules: str,
    seats: int,
    options: Mapping[str, object] | None = None,
    *,
    mover: int,
    roll: Mapping[str, list[int]],
    hands: Mapping[int, Mapping[str, int]] | None = None,
    dice: Mapping[int, Mapping[str, int]] | None = None,
    notes: Mapping[int, list[int | str]] | None = None,
    won: list[list[int]] | None = None,
    under_pile: list[int | str] | None = None,
    seed: int = 0,
) -> State:
    """A dice game where ``mover`` has just rolled ``roll`` (dice by kind, e.g.
    ``{"die": [3, 3, 5]}``), from a fresh game's first position, edited.

    By default the mover holds exactly the dice it rolled and nobody else holds
    any, so the round ends with its last die. ``dice``: casino -> {owner: count}
    (owners "0".."5", "neutral"; every other casino is empty); ``notes``: casino
    -> its notes, high to low (the others keep those dealt); ``won`` and
    ``under_pile`` replace the position's.
    """
    game = describe(rules, seats, options)
    position = new_game(game, seed).position()
    position["current_player"] = position["last_roller"] = mover
    position["roll"] = {
        "seat": mover,
        "dice": {kind: sorted(faces) for kind, faces in roll.items()},
    }
    empty = {"die": 0, "biggie": 0, "kicker": 0, "neutral": 0}
    position["hands"] = [dict(empty) for _ in range(seats)]
    position["hands"][mover].update({kind: len(faces) for kind, faces in roll.items()})
    for seat, hand in (hands or {}).items():
        position["hands"][seat].update(hand)
    for casino in position["casinos"]:
        casino["dice"] = dict((dice or {}).get(casino["casino"], {}))
        casino["biggies"] = {}
        if casino["casino"] in (notes or {}):
            casino["notes"] = list((notes or {})[casino["casino"]])
    if won is not None:
        position["won"] = won
    if under_pile is not None:
        position["under_pile"] = under_pile
    return from_position(game, position, seed)


def snapshot(state: State) -> str:
    """Everything observable of ``state``: every seat's view and the log, as text."""
    seats = state.description.seats
    views = [observe(state, seat) for seat in range(seats)]
    return json.dumps(
        {
            "views": views,
            "events": state.events(),
            "to_move": list(state.to_move()),
            "legal": list(state.legal_actions()),
        },
        sort_keys=True,
    )


def by_round(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The events split at each round_start (each list starts with its round_start)."""
    rounds: list[list[dict[str, Any]]] = []
    for event in events:
        if event["type"] == "round_start":
            rounds.append([])
        rounds[-1].append(event)
    return rounds


def stock_value(note: int | str) -> int:
    return RAINBOW_STOCK_VALUE if note == "rainbow" else int(note)


def all_cards(*, big_notes: bool = False, rainbow: bool = False) -> Counter[int | str]:
    cards: Counter[int | str] = Counter(CLASSIC_NOTES)
    if big_notes:
        cards.update(BIG_NOTES)
    if rainbow:
        cards["rainbow"] = RAINBOW_CARDS
    return cards


class ShadowPile:
    """The pile as the log reveals it: unseen cards on top, returned notes below.

    The initial order is hidden, so the pile starts as that many unknown cards
    (drawn from the printed composition). Every note a payout returns is put
    under the pile, so once the unknown cards are used up, draws must come out
    exactly in the order the notes were returned.
    """

    UNKNOWN = object()

    def __init__(self, cards: Counter[int | str]) -> None:
        self.unseen = Counter(cards)
        self.pile: list[object] = [self.UNKNOWN] * sum(cards.values())
        #: Where each note came from that a draw took back from under the pile
        #: ("unwon" or "neutral": won by the neutral dice).
        self.redrawn: list[str] = []

    def draw(self, note: int | str | None) -> None:
        if note is None:
            assert not self.pile, "the engine found the pile empty but it holds cards"
            return
        assert self.pile, f"drew {note!r} from an empty pile"
        top = self.pile.pop(0)
        if top is self.UNKNOWN:
            assert self.unseen[note] > 0, f"drew {note!r}: more such cards than the game has"
            self.unseen[note] -= 1
        else:
            assert isinstance(top, tuple)
            assert note == top[0], f"drew {note!r}, but {top[0]!r} went under the pile first"
            self.redrawn.append(top[1])

    def put_under(self, returned: list[int], neutral_won: list[int]) -> None:
        neutral = Counter(neutral_won)
        for note in returned:
            origin = "neutral" if neutral[note] else "unwon"
            neutral[note] -= 1
            self.pile.append((note, origin))

    def follow(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event["type"] == "stock":
                for note in event["notes"]:
                    self.draw(note)
            elif event["type"] == "rainbow":
                self.draw(event["drawn"])
            elif event["type"] == "payout" and event["returned_to"] == "pile":
                won = [a["note"] for a in event["awards"] if a["owner"] == "neutral"]
                self.put_under(event["returned"], won)


# --------------------------------------------------------------------------
# An independent model of the rulebooks, fed with a game's log.

KINDS = ("die", "biggie", "kicker", "neutral")


@dataclass(frozen=True)
class Setup:
    """What the rulebooks (and RULES.md) give a game of this description."""

    seats: int
    #: Dice per seat at each round start, by kind (die, biggie, kicker, neutral).
    hand: dict[str, int]
    preplaced: int
    minimum: int
    slot_machine: bool
    cards: Counter[int | str]


def rulebook_setup(rules: str, seats: int, options: Mapping[str, object] | None = None) -> Setup:
    on = describe(rules, seats, options).options
    if rules == "classic":
        biggie = kicker = 0
        neutral = {2: 4, 3: 2, 4: 2}[seats] if on["neutral_dice"] else 0
        minimum = CLASSIC_MINIMUM
        slot = False
        cards = all_cards()
    else:
        assert rules == "boulevard"
        biggie = 1 if on["biggies"] else 0
        kicker = (2 if seats < 6 else 1) if on["kickers"] else 0
        neutral = (4 if seats == 2 else 2) if on["neutral_dice"] else 0
        minimum = BOULEVARD_MINIMUM[seats]
        slot = bool(on["slot_machine"])
        cards = all_cards(big_notes=bool(on["big_notes"]), rainbow=bool(on["rainbow"]))
    return Setup(
        seats=seats,
        hand={"die": 8 - biggie - kicker, "biggie": biggie, "kicker": kicker, "neutral": neutral},
        preplaced=2 if neutral and seats == 3 else 0,
        minimum=minimum,
        slot_machine=slot,
        cards=cards,
    )


def payout_order(keys: Mapping[int, Any]) -> tuple[list[int], list[set[int]]]:
    """The rulebook's payout: equal keys cancel, the rest ranked best first."""
    groups: dict[Any, list[int]] = {}
    for owner, key in keys.items():
        groups.setdefault(key, []).append(owner)
    ordered = sorted(groups.items(), key=lambda item: item[0], reverse=True)
    ranked = [owners[0] for _, owners in ordered if len(owners) == 1]
    cancelled = [set(owners) for _, owners in ordered if len(owners) > 1]
    return ranked, cancelled


class RulebookModel:
    """Follows a game's log event by event and checks it against the rulebooks.

    It keeps its own hands, casinos, slot machine, pile and money, and asserts
    that every event is what the rules allow: dice rolled = dice held, all dice
    of the chosen face placed, the right seat rolling next, forced flags exactly
    on single choices, kicks only of dice that may be kicked, stocking to the
    minimum, rainbow replacement, payouts, money and the final ranking.
    Between events its attributes show the position (tests peek at them).
    """

    def __init__(self, rules: str, seats: int, options: Mapping[str, object] | None = None):
        self.setup = rulebook_setup(rules, seats, options)
        self.n = seats
        self.pile = ShadowPile(self.setup.cards)
        self.won: list[list[int]] = [[] for _ in range(seats)]
        self.round = 0
        self.start = 0
        self.notes: list[list[int | str]] = [[] for _ in range(7)]
        self.index = -1
        self._new_round_tables()
        self.finished = False

    def _new_round_tables(self) -> None:
        n = self.n
        self.hands = [dict(self.setup.hand) for _ in range(n)]
        self.counts = [[0] * (n + 1) for _ in range(7)]
        self.biggies = [[0] * (n + 1) for _ in range(7)]
        #: Dice on the slot machine: [owner, face, weight, turn number].
        self.slot: list[tuple[int, int, int, int]] = []
        self.neutral_out = 0
        self.turn = 0
        self.current: int | None = None
        self.roll: dict[str, Counter[int]] = {}
        self.pending: str | None = None  # "place" or "kick": the decision awaited
        self.legal: set[str] = set()
        self.kicks_left = 0
        self.kick_casino = 0
        self.decided: str | None = None
        self.last_placer: int | None = None
        self.paid = 0

    # -- helpers ----------------------------------------------------------

    def owner(self, name: int | str) -> int:
        return self.n if name == "neutral" else int(name)

    def owner_name(self, owner: int) -> int | str:
        return "neutral" if owner == self.n else owner

    def held(self, seat: int) -> int:
        return sum(self.hands[seat].values())

    def place_options(self) -> set[str]:
        faces = {face for faces in self.roll.values() for face in faces}
        legal = {f"place {face}" for face in faces}
        if self.setup.slot_machine:
            used = {face for _, face, _, _ in self.slot}
            legal |= {f"slot {face}" for face in faces - used}
        return legal

    def kick_options(self) -> set[str]:
        n = self.n
        regular = [0] * (n + 1)
        big = [0] * (n + 1)
        if self.kick_casino == 7:
            for owner, _, weight, turn in self.slot:
                if turn == self.turn:
                    (big if weight == 2 else regular)[owner] += 1
        else:
            row = self.counts[self.kick_casino - 1]
            big = self.biggies[self.kick_casino - 1][:]
            regular = [count - 2 * b for count, b in zip(row, big, strict=True)]
        legal = {f"kick {o} die" for o in range(n) if regular[o]}
        legal |= {f"kick {o} biggie" for o in range(n) if big[o]}
        if regular[n]:
            legal.add("kick neutral die")
        return legal

    def next_roller(self, after: int) -> int | None:
        for step in range(1, self.n + 1):
            seat = (after + step) % self.n
            if self.held(seat):
                return seat
        return None

    # -- events -----------------------------------------------------------

    def follow(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.feed(event)

    def feed(self, event: dict[str, Any]) -> None:
        self.index += 1
        assert not self.finished, f"event after game_end: {event}"
        handler = getattr(self, "_" + event["type"])
        handler(event)

    def _round_start(self, event: dict[str, Any]) -> None:
        assert event["round"] == self.round + 1
        assert event["start_player"] == self.round % self.n, "the start player passes left"
        assert all(not notes for notes in self.notes), "notes left on a casino from last round"
        self.round += 1
        self.start = event["start_player"]
        self._new_round_tables()

    def _stock(self, event: dict[str, Any]) -> None:
        casino = event["casino"]
        assert 1 <= casino <= (7 if self.setup.slot_machine else 6)
        assert not self.notes[casino - 1]
        total = 0
        for note in event["notes"]:
            assert total < self.setup.minimum, f"casino {casino} stocked past the minimum"
            self.pile.draw(note)
            total += stock_value(note)
        assert total >= self.setup.minimum or not self.pile.pile, (
            f"casino {casino} holds {total} < {self.setup.minimum} with cards left in the pile"
        )
        self.notes[casino - 1] = list(event["notes"])

    def _neutral_roll(self, event: dict[str, Any]) -> None:
        assert self.setup.preplaced, "no neutral pre-roll in this game"
        assert event["seat"] == self.start
        assert len(event["dice"]) == self.setup.preplaced
        for face in event["dice"]:
            assert 1 <= face <= 6
            self.counts[face - 1][self.n] += 1

    def _roll(self, event: dict[str, Any]) -> None:
        seat = event["seat"]
        assert self.pending is None, f"roll while a {self.pending} decision is pending"
        expected = self.start if self.last_placer is None else self.next_roller(self.last_placer)
        assert seat == expected, f"seat {seat} rolled, seat {expected} should have"
        rolled = {kind: Counter(faces) for kind, faces in event["dice"].items()}
        for kind in KINDS:
            count = sum(rolled.get(kind, Counter()).values())
            assert count == self.hands[seat][kind], (
                f"seat {seat} rolled {count} {kind} dice, holds {self.hands[seat][kind]}"
            )
        assert all(1 <= face <= 6 for faces in rolled.values() for face in faces)
        self.current = seat
        self.roll = rolled
        self.turn += 1
        self.pending = "place"
        self.legal = self.place_options()

    def _decision(self, event: dict[str, Any]) -> None:
        assert self.pending is not None, f"a decision with nothing to decide: {event}"
        assert event["seat"] == self.current
        assert event["action"] in self.legal, f"{event['action']!r} not in {sorted(self.legal)}"
        assert event["forced"] == (len(self.legal) == 1), (
            f"forced={event['forced']} with legal {sorted(self.legal)}"
        )
        self.decided = event["action"]

    def _place(self, event: dict[str, Any]) -> None:
        assert self.pending == "place" and self.decided is not None
        seat = event["seat"]
        assert seat == self.current
        where, face_text = self.decided.split()
        face = int(face_text)
        casino = 7 if where == "slot" else face
        assert (event["casino"], event["face"]) == (casino, face)
        placed = {kind: self.roll.get(kind, Counter())[face] for kind in KINDS}
        assert event["dice"] == {kind: count for kind, count in placed.items() if count}, (
            "all dice showing the chosen face must be placed"
        )
        for kind in KINDS:
            self.hands[seat][kind] -= placed[kind]
        row = self.counts[casino - 1]
        row[seat] += placed["die"] + 2 * placed["biggie"]
        row[self.n] += placed["neutral"]
        self.biggies[casino - 1][seat] += placed["biggie"]
        if casino == 7:
            self.slot += [(seat, face, 1, self.turn)] * placed["die"]
            self.slot += [(seat, face, 2, self.turn)] * placed["biggie"]
            self.slot += [(self.n, face, 1, self.turn)] * placed["neutral"]
        self.last_placer = seat
        self.decided = None
        self.kicks_left = placed["kicker"]
        self.kick_casino = casino
        self.pending = None
        self._next_kick()

    def _next_kick(self) -> None:
        if self.kicks_left:
            self.pending = "kick"
            self.legal = self.kick_options()
        else:
            self.pending = None
            self.legal = set()

    def _kick(self, event: dict[str, Any]) -> None:
        assert self.pending == "kick", f"unexpected kick {event}"
        assert event["seat"] == self.current and event["casino"] == self.kick_casino
        kicked = event["kicked"]
        if kicked is None:
            assert not self.legal, f"kicked nothing though {sorted(self.legal)} could be kicked"
            assert self.decided is None
        else:
            owner = self.owner(kicked["owner"])
            kind = kicked["die"]
            action = f"kick {kicked['owner']} {kind}"
            assert self.decided == action, f"kicked {action} after deciding {self.decided}"
            weight = 2 if kind == "biggie" else 1
            casino = self.kick_casino
            self.counts[casino - 1][owner] -= weight
            if kind == "biggie":
                self.biggies[casino - 1][owner] -= 1
            if casino == 7:
                for index in range(len(self.slot) - 1, -1, -1):
                    entry = self.slot[index]
                    if entry[0] == owner and entry[2] == weight and entry[3] == self.turn:
                        del self.slot[index]
                        break
            if owner == self.n:
                self.neutral_out += 1
            else:
                self.hands[owner][kind] += 1
        self.decided = None
        self.kicks_left -= 1
        self._next_kick()

    def _round_over(self) -> None:
        assert self.pending is None
        assert all(self.held(seat) == 0 for seat in range(self.n)), "dice left in a hand"

    def _rainbow(self, event: dict[str, Any]) -> None:
        self._round_over()
        assert self.paid == 0, "rainbow cards are replaced before any payout"
        notes = self.notes[event["casino"] - 1]
        assert "rainbow" in notes
        notes.remove("rainbow")
        self.pile.draw(event["drawn"])
        if event["drawn"] is not None:
            notes.append(event["drawn"])

    def _payout(self, event: dict[str, Any]) -> None:
        self._round_over()
        casino = event["casino"]
        assert casino == self.paid + 1, "casinos pay out in order"
        self.paid += 1
        notes = self.notes[casino - 1]
        assert "rainbow" not in notes or not self.pile.pile, "a rainbow card was not replaced"
        assert event["notes"] == sorted(notes, reverse=True)
        row = self.counts[casino - 1]
        assert event["counts"] == {
            str(self.owner_name(owner)): count for owner, count in enumerate(row) if count
        }
        if casino == 7:
            keys: dict[int, tuple[int, int, int]] = {}
            for owner, face, weight, _ in self.slot:
                count, pips, top = keys.get(owner, (0, 0, 0))
                keys[owner] = (count + weight, pips + face * weight, max(top, face))
            ranked, cancelled = payout_order(keys)
        else:
            ranked, cancelled = payout_order({o: c for o, c in enumerate(row) if c})
        assert [set(self.owner(o) for o in group) for group in event["cancelled"]] == cancelled
        ordered = sorted(notes, reverse=True)
        awards = list(zip(ranked, ordered, strict=False))
        assert event["awards"] == [
            {"owner": self.owner_name(owner), "note": note} for owner, note in awards
        ]
        returned = [note for owner, note in awards if owner == self.n] + ordered[len(awards) :]
        assert sorted(event["returned"]) == sorted(returned)
        assert event["returned_to"] == "pile"
        for owner, note in awards:
            if owner < self.n:
                self.won[owner].append(int(note))
        self.pile.put_under(event["returned"], [note for o, note in awards if o == self.n])
        self.notes[casino - 1] = []

    def _round_end(self, event: dict[str, Any]) -> None:
        casinos = 7 if self.setup.slot_machine else 6
        assert self.paid == casinos, "every casino pays out before the round ends"
        assert event["round"] == self.round
        assert event["money"] == [sum(notes) for notes in self.won]

    def _game_end(self, event: dict[str, Any]) -> None:
        assert self.round == 4
        keys = [(sum(notes), len(notes)) for notes in self.won]
        expected = [
            {"seat": seat, "money": key[0], "notes": key[1], "rank": 1 + sum(o > key for o in keys)}
            for seat, key in enumerate(keys)
        ]
        assert event["result"] == expected
        self.finished = True
