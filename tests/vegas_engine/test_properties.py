"""Property tests of every rule system with hypothesis.

Random valid descriptions (rule system, seat count, any option combination the
seat count allows, seed) are played with random decisions (hypothesis draws
the index of the action at each decision, then a seeded RNG goes on).

For the dice systems (`classic` with its options, `boulevard`, `sixdice`) an
independent referee, written from RULES.md and not from the engine's code,
re-derives the whole game from the log at every step. It takes from the log
only chance (the faces rolled, the notes and chip cards drawn, each checked to
be one the pile can hold) and checks every event and every seat's
observation: turn order, legal actions and their order, forced decisions,
placements, kicks, chip cards, stocking minimums, rainbow replacement, payout
rankings (slot machine tie-breaks included), where returned notes go, money
and standings. Dice and notes conservation is also checked from each
observation alone. `cardgame` gets conservation checks of cards and notes;
every system (also those the referee does not know yet) gets the generic
properties below.

Generic properties: the game ends within a bound of decisions; a seat that
must decide always has a legal action, indeed at least two (a single one is
applied by the engine and logged as forced); the same
description and decisions give the same log, with or without logging and
across clones; a log replays to the same state; an illegal action raises
IllegalActionError and changes nothing (observations, log, dice to come).
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vegas_engine import (
    RULE_SYSTEMS,
    GameDescription,
    GameOverError,
    IllegalActionError,
    State,
    describe,
    new_game,
)
from vegas_engine import log as game_logs
from vegas_engine.description import MAX_SEED
from vegas_engine.policies import POLICIES, expected_gain, play
from vegas_engine.replay import replay

pytestmark = pytest.mark.slow

# --------------------------------------------------------------------------
# The components, written down from RULES.md (an oracle independent of the
# engine's rule data).

Note = int | str  # a value in dollars, or "rainbow"
Owner = int | str  # a seat, or "neutral"

RAINBOW = "rainbow"
RAINBOW_STOCK_VALUE = 40_000
CLASSIC_NOTES = {
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
SIXDICE_NOTES = {
    10_000: 4,
    20_000: 4,
    30_000: 5,
    40_000: 5,
    50_000: 6,
    60_000: 6,
    70_000: 6,
    80_000: 4,
    90_000: 4,
    100_000: 4,
}
BOULEVARD_MINIMUM = {2: 30_000, 3: 40_000, 4: 50_000, 5: 60_000, 6: 70_000}
CHIP_COLOURS = ("blue", "gold", "green", "pink", "silver")
CHIP_SCORES = (10_000, 30_000, 60_000, 100_000, 150_000)
KINDS = ("die", "biggie", "kicker", "neutral")

#: The rule systems and options the referee knows; other games get the generic checks.
REFEREE_COVERS = {
    "classic": {"neutral_dice", "chips"},
    "boulevard": {"big_notes", "neutral_dice", "biggies", "kickers", "rainbow", "slot_machine"},
    "sixdice": {"neutral_dice", "slot_machine"},
}


@dataclass(frozen=True)
class Components:
    """What one game holds and how it runs, from its description and RULES.md alone."""

    seats: int
    rounds: int
    dice_per_seat: int
    biggies: int
    kickers: int
    neutral_held: int
    neutral_preplaced: int
    notes: Counter[Note]
    #: Stock each casino up to this minimum, or with exactly notes_per_casino notes.
    minimum: int | None
    notes_per_casino: int | None
    slot_machine: bool
    chips: bool
    unwon_to: str  # "pile" or "box"
    next_start: str  # "left" or "last_roller"

    @property
    def regular(self) -> int:
        return self.dice_per_seat - self.biggies - self.kickers

    @property
    def casinos(self) -> int:
        return 7 if self.slot_machine else 6

    @property
    def neutral_total(self) -> int:
        return self.seats * self.neutral_held + self.neutral_preplaced

    @property
    def max_decisions(self) -> int:
        """An upper bound on the decisions (forced ones included) of a whole game.

        Each placement spends at least one die of the hand and only a kick puts
        one back; a turn adds at most one decision per kicker and one chip choice.
        """
        placements = self.dice_per_seat + self.neutral_held + self.kickers
        return self.rounds * self.seats * placements * (2 + self.kickers)


def referee_covers(description: GameDescription) -> bool:
    known = REFEREE_COVERS.get(description.rules)
    return known is not None and all(
        name in known for name, value in description.options.items() if value
    )


def components(description: GameDescription) -> Components:
    on = description.options
    seats = description.seats
    rules = description.rules
    neutral = bool(on.get("neutral_dice"))
    if rules == "sixdice":
        return Components(
            seats=seats,
            rounds=3,
            dice_per_seat=7,
            biggies=1,
            kickers=0,
            neutral_held={2: 3, 3: 2, 4: 1}[seats] if neutral else 0,
            neutral_preplaced=0,
            notes=Counter(SIXDICE_NOTES),
            minimum=None,
            notes_per_casino=2,
            slot_machine=bool(on.get("slot_machine")),
            chips=False,
            unwon_to="box",
            next_start="last_roller",
        )
    notes: Counter[Note] = Counter(CLASSIC_NOTES)
    if on.get("big_notes"):
        notes[100_000] += 5
    if on.get("rainbow"):
        notes[RAINBOW] += 6
    return Components(
        seats=seats,
        rounds=4,
        dice_per_seat=8,
        biggies=1 if on.get("biggies") else 0,
        kickers=(2 if seats < 6 else 1) if on.get("kickers") else 0,
        neutral_held=(4 if seats == 2 else 2) if neutral else 0,
        neutral_preplaced=2 if neutral and seats == 3 else 0,
        notes=notes,
        minimum=BOULEVARD_MINIMUM[seats] if rules == "boulevard" else 50_000,
        notes_per_casino=None,
        slot_machine=bool(on.get("slot_machine")),
        chips=bool(on.get("chips")),
        unwon_to="pile",
        next_start="left",
    )


def stock_value(note: Note) -> int:
    return RAINBOW_STOCK_VALUE if note == RAINBOW else int(note)


def notes_desc(notes: Sequence[Note]) -> list[Note]:
    """Highest first; a rainbow card (worth nothing until replaced) last."""
    return sorted(notes, key=lambda note: 0 if note == RAINBOW else int(note), reverse=True)


def chip_money(held: Counter[str]) -> int:
    return sum(CHIP_SCORES[min(count, len(CHIP_SCORES)) - 1] for count in held.values() if count)


# --------------------------------------------------------------------------
# The referee: re-derives the whole game from the log.


class Referee:
    """Follows a game's events one by one and checks each against the rules.

    It trusts the log only for chance: the faces rolled, and which notes and
    chip cards come off their piles. Every card drawn must be one the pile can
    hold at that moment: the note pile is modelled as an unknown shuffled
    prefix (a multiset) followed by the notes returned under it, in order.
    """

    def __init__(self, description: GameDescription) -> None:
        self.d = description
        self.c = c = components(description)
        n = self.n = description.seats
        self.events_seen = 0
        self.round = 0
        self.start = 0
        self.last_roller = 0
        self.phase = "round_start"
        # The pile: an unknown shuffled part on top, then the notes put under it.
        self.unknown: Counter[Note] = Counter(c.notes)
        self.unknown_count = sum(self.unknown.values())
        self.under: deque[Note] = deque()
        self.casino_notes: list[list[Note]] = [[] for _ in range(c.casinos)]
        self.counts: list[Counter[Owner]] = [Counter() for _ in range(c.casinos)]
        self.biggies: list[Counter[Owner]] = [Counter() for _ in range(c.casinos)]
        self.slot: list[tuple[Owner, int, bool]] = []
        self.slot_from = 0
        self.hands: list[dict[str, int]] = [dict.fromkeys(KINDS, 0) for _ in range(n)]
        self.kickers_used = [0] * n
        self.neutral_out = 0
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.discarded: list[Note] = []
        self.current = 0
        self.roll: dict[str, list[int]] = {}
        self.next_from = 0
        self.pending: str | None = None  # the action of the last decision event
        self.kicks_left = 0
        self.kick_casino = 0
        self.placed_weight = 0  # dice (a Biggie 2) placed this turn, for the chip cards
        self.next_casino = 1  # the next casino to stock, or to pay out
        self.rainbow_casino = 1
        self.decisions = 0
        self.chip_deck: Counter[str] = Counter(dict.fromkeys(CHIP_COLOURS, 5) if c.chips else {})
        self.chips_at: list[Counter[str]] = [Counter() for _ in range(6)]
        self.chips_held: list[Counter[str]] = [Counter() for _ in range(n)]
        self.chip_scores_seen = 0

    # ------------------------------------------------------------ the pile

    @property
    def pile_size(self) -> int:
        return self.unknown_count + len(self.under)

    def draw(self, note: Note, where: str) -> None:
        if self.unknown_count:
            assert self.unknown[note] > 0, f"{where}: {note!r} cannot be in the pile"
            self.unknown[note] -= 1
            self.unknown_count -= 1
        else:
            assert self.under, f"{where}: drew {note!r} from an empty pile"
            top = self.under.popleft()
            assert top == note, f"{where}: the pile's top is {top!r}, the log drew {note!r}"

    # ----------------------------------------------------------- the rules

    def seat_has_dice(self, seat: int) -> bool:
        return any(self.hands[seat].values())

    def place_options(self) -> list[str]:
        faces = sorted({face for faces in self.roll.values() for face in faces})
        legal = [f"place {face}" for face in faces]
        if self.c.slot_machine:
            on_slot = {face for _, face, _ in self.slot}
            legal += [f"slot {face}" for face in faces if face not in on_slot]
        return legal

    def kick_options(self) -> list[str]:
        casino = self.kick_casino
        if casino == 7:
            regular: Counter[Owner] = Counter()
            big: Counter[Owner] = Counter()
            for owner, _, biggie in self.slot[self.slot_from :]:
                (big if biggie else regular)[owner] += 1
        else:
            big = self.biggies[casino - 1]
            counts = self.counts[casino - 1]
            regular = Counter({o: counts[o] - 2 * big[o] for o in counts})
        legal: list[str] = []
        for seat in range(self.n):
            if regular[seat] > 0:
                legal.append(f"kick {seat} die")
            if big[seat] > 0:
                legal.append(f"kick {seat} biggie")
        if regular["neutral"] > 0:
            legal.append("kick neutral die")
        return legal

    def chip_options(self) -> list[str]:
        at = self.chips_at[self.kick_casino - 1]
        return [f"chip {colour}" for colour in CHIP_COLOURS if at[colour]] + ["chip none"]

    def chip_offered(self) -> bool:
        casino = self.kick_casino
        return (
            self.c.chips
            and casino <= 6
            and self.placed_weight >= 2
            and sum(self.chips_at[casino - 1].values()) > 0
        )

    def legal(self) -> list[str]:
        if self.phase == "place":
            return self.place_options()
        if self.phase == "kick":
            return self.kick_options()
        if self.phase == "chip":
            return self.chip_options()
        return []

    def expected_roller(self) -> int | None:
        for step in range(self.n):
            seat = (self.next_from + step) % self.n
            if self.seat_has_dice(seat):
                return seat
        return None

    def ranking(self, casino: int) -> tuple[list[Owner], list[list[Owner]]]:
        """(owners in payout order, cancelled groups), both best first."""
        keys: dict[Owner, tuple[int, ...]] = {}
        if casino == 7:
            for owner, face, biggie in self.slot:
                weight = 2 if biggie else 1
                count, pips, top = keys.get(owner, (0, 0, 0))
                keys[owner] = (count + weight, pips + face * weight, max(top, face))
        else:
            keys = {o: (c,) for o, c in self.counts[casino - 1].items() if c > 0}
        by_key: dict[tuple[int, ...], list[Owner]] = {}
        for owner in sorted(keys, key=lambda o: self.n if o == "neutral" else int(o)):
            by_key.setdefault(keys[owner], []).append(owner)
        groups = [by_key[key] for key in sorted(by_key, reverse=True)]
        ranked = [group[0] for group in groups if len(group) == 1]
        cancelled = [group for group in groups if len(group) > 1]
        return ranked, cancelled

    def standings(self) -> list[dict[str, int]]:
        keys = [
            (sum(notes) + chip_money(held), len(notes))
            for notes, held in zip(self.won, self.chips_held, strict=True)
        ]
        return [
            {
                "seat": seat,
                "money": key[0],
                "notes": key[1],
                "rank": 1 + sum(other > key for other in keys),
            }
            for seat, key in enumerate(keys)
        ]

    # ------------------------------------------------------------- events

    def follow(self, events: Sequence[dict[str, Any]]) -> None:
        """Check the events not seen yet."""
        for index in range(self.events_seen, len(events)):
            event = events[index]
            handler: Callable[[dict[str, Any], str], None] = getattr(self, "on_" + event["type"])
            handler(event, f"event {index} {event}")
        self.events_seen = len(events)

    def on_round_start(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "round_start", where
        assert e["round"] == self.round + 1, where
        if self.round == 0:
            expected_start = 0
        elif self.c.next_start == "left":
            expected_start = (self.start + 1) % self.n
        else:
            expected_start = self.last_roller
        assert e["start_player"] == expected_start, f"{where}: wrong start player"
        self.round += 1
        self.start = expected_start
        assert all(not notes for notes in self.casino_notes), where
        self.counts = [Counter() for _ in range(self.c.casinos)]
        self.biggies = [Counter() for _ in range(self.c.casinos)]
        self.slot = []
        self.slot_from = 0
        c = self.c
        for hand in self.hands:
            hand.update(die=c.regular, biggie=c.biggies, kicker=c.kickers, neutral=c.neutral_held)
        self.kickers_used = [0] * self.n
        self.neutral_out = 0
        self.next_casino = 1
        self.phase = "stock"

    def stocked(self) -> None:
        """Casinos stocked (and chip cards dealt): on to the neutral roll or the first turn."""
        self.phase = "neutral_roll" if self.c.neutral_preplaced else "roll"
        self.next_from = self.start

    def on_stock(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "stock" and e["casino"] == self.next_casino, where
        notes = e["notes"]
        for note in notes:
            self.draw(note, where)
        if self.c.minimum is not None:
            values = [stock_value(note) for note in notes]
            if self.pile_size:
                assert sum(values) >= self.c.minimum, f"{where}: stocked below the minimum"
            if values:
                assert sum(values[:-1]) < self.c.minimum, f"{where}: drew past the minimum"
        else:
            assert len(notes) == self.c.notes_per_casino or self.pile_size == 0, where
        assert notes or self.pile_size == 0, where
        self.casino_notes[e["casino"] - 1] = list(notes)
        self.next_casino += 1
        if self.next_casino > self.c.casinos:
            if self.c.chips:
                self.phase = "chip_stock"
                self.next_casino = 1
            else:
                self.stocked()

    def on_chip_stock(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "chip_stock" and e["casino"] == self.next_casino, where
        chip = e["chip"]
        assert self.chip_deck[chip] > 0, f"{where}: no such chip card left"
        self.chip_deck[chip] -= 1
        self.chips_at[e["casino"] - 1][chip] += 1
        self.next_casino += 1
        if self.next_casino > 6 or not self.chip_deck.total():
            self.stocked()

    def on_neutral_roll(self, e: dict[str, Any], where: str) -> None:
        if self.phase == "chip_stock":
            assert not self.chip_deck.total(), f"{where}: a casino got no chip card"
            self.stocked()
        assert self.phase == "neutral_roll", where
        assert e["seat"] == self.start, f"{where}: the start player rolls the neutral dice"
        assert len(e["dice"]) == self.c.neutral_preplaced, where
        assert e["dice"] == sorted(e["dice"]), where
        for face in e["dice"]:
            assert 1 <= face <= 6, where
            self.counts[face - 1]["neutral"] += 1
        self.phase = "roll"

    def on_roll(self, e: dict[str, Any], where: str) -> None:
        if self.phase == "chip_stock":
            assert not self.chip_deck.total(), f"{where}: a casino got no chip card"
            self.stocked()
        assert self.phase == "roll", where
        assert e["seat"] == self.expected_roller(), f"{where}: not the next seat with dice"
        seat = self.current = self.last_roller = e["seat"]
        dice = e["dice"]
        for kind in KINDS:
            faces = dice.get(kind, [])
            assert kind not in dice or faces, f"{where}: an empty kind is left out"
            assert len(faces) == self.hands[seat][kind], f"{where}: rolls the whole hand"
            assert faces == sorted(faces) and all(1 <= f <= 6 for f in faces), where
        assert set(dice) <= set(KINDS), where
        self.roll = {kind: list(dice.get(kind, [])) for kind in KINDS if dice.get(kind)}
        self.phase = "place"

    def on_decision(self, e: dict[str, Any], where: str) -> None:
        assert self.phase in ("place", "kick", "chip") and self.pending is None, where
        assert e["seat"] == self.current, where
        legal = self.legal()
        assert e["action"] in legal, f"{where}: legal are {legal}"
        assert e["forced"] == (len(legal) == 1), f"{where}: forced iff only one action"
        self.pending = e["action"]
        self.decisions += 1
        assert self.decisions <= self.c.max_decisions, f"{where}: too many decisions"

    def on_place(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "place" and self.pending is not None, where
        verb, face_text = self.pending.split()
        self.pending = None
        face = int(face_text)
        casino = 7 if verb == "slot" else face
        seat = self.current
        assert (e["seat"], e["casino"], e["face"]) == (seat, casino, face), where
        placed = {kind: self.roll.get(kind, []).count(face) for kind in KINDS}
        assert e["dice"] == {k: v for k, v in placed.items() if v}, f"{where}: all dice of face"
        hand = self.hands[seat]
        for kind in KINDS:
            hand[kind] -= placed[kind]
        index = casino - 1
        self.counts[index][seat] += placed["die"] + 2 * placed["biggie"]
        self.biggies[index][seat] += placed["biggie"]
        self.counts[index]["neutral"] += placed["neutral"]
        if casino == 7:
            self.slot_from = len(self.slot)
            self.slot += [(seat, face, False)] * placed["die"]
            self.slot += [(seat, face, True)] * placed["biggie"]
            self.slot += [("neutral", face, False)] * placed["neutral"]
        self.kickers_used[seat] += placed["kicker"]
        self.kicks_left = placed["kicker"]
        self.kick_casino = casino
        self.placed_weight = placed["die"] + 2 * placed["biggie"] + placed["neutral"]
        self.next_from = (seat + 1) % self.n
        if self.kicks_left:
            self.phase = "kick"
        else:
            self.after_kicks()

    def on_kick(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "kick" and self.kicks_left > 0, where
        assert (e["seat"], e["casino"]) == (self.current, self.kick_casino), where
        kicked = e["kicked"]
        if kicked is None:
            assert self.pending is None, where
            assert not self.kick_options(), f"{where}: a kicker with something to kick"
        else:
            assert self.pending is not None, f"{where}: a kick without a decision"
            owner_text, kind = self.pending.split()[1:]
            self.pending = None
            owner: Owner = owner_text if owner_text == "neutral" else int(owner_text)
            assert kicked == {"owner": owner, "die": kind}, where
            index = self.kick_casino - 1
            biggie = kind == "biggie"
            self.counts[index][owner] -= 2 if biggie else 1
            self.biggies[index][owner] -= 1 if biggie else 0
            if self.kick_casino == 7:
                for at in range(len(self.slot) - 1, self.slot_from - 1, -1):
                    if self.slot[at][0] == owner and self.slot[at][2] == biggie:
                        del self.slot[at]
                        break
                else:
                    raise AssertionError(f"{where}: no such die placed this turn")
            if owner == "neutral":
                self.neutral_out += 1
            else:
                assert isinstance(owner, int)
                self.hands[owner][kind] += 1
        self.kicks_left -= 1
        if not self.kicks_left:
            self.after_kicks()

    def after_kicks(self) -> None:
        if self.chip_offered():
            self.phase = "chip"
        else:
            self.end_turn()

    def on_chip_take(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "chip" and self.pending is not None, where
        assert (e["seat"], e["casino"]) == (self.current, self.kick_casino), where
        colour = self.pending.removeprefix("chip ")
        self.pending = None
        if colour == "none":
            assert e["chip"] is None, where
        else:
            assert e["chip"] == colour, where
            self.chips_at[self.kick_casino - 1][colour] -= 1
            self.chips_held[self.current][colour] += 1
        self.end_turn()

    def end_turn(self) -> None:
        self.phase = "roll"
        if self.expected_roller() is None:
            self.phase = "rainbow"
            self.rainbow_casino = 1
            self.next_casino = 1

    def on_rainbow(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "rainbow", f"{where}: rainbows are replaced after the last die"
        casino = e["casino"]
        assert casino >= self.rainbow_casino, f"{where}: casinos in order"
        for earlier in range(self.rainbow_casino, casino):
            assert RAINBOW not in self.casino_notes[earlier - 1], where
        self.rainbow_casino = casino
        notes = self.casino_notes[casino - 1]
        assert RAINBOW in notes, where
        notes.remove(RAINBOW)
        self.discarded.append(RAINBOW)
        if e["drawn"] is None:
            assert self.pile_size == 0, f"{where}: a rainbow discarded with notes in the pile"
        else:
            self.draw(e["drawn"], where)
            notes.append(e["drawn"])

    def on_payout(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "rainbow", where
        if self.next_casino == 1:
            for notes in self.casino_notes:
                assert RAINBOW not in notes, f"{where}: a rainbow left at payout"
        casino = e["casino"]
        assert casino == self.next_casino, f"{where}: payout casino by casino, slot last"
        notes = notes_desc(self.casino_notes[casino - 1])
        self.casino_notes[casino - 1] = []
        assert e["notes"] == notes, where
        counts = {str(o): c for o, c in self.counts[casino - 1].items() if c}
        assert e["counts"] == counts, where
        ranked, cancelled = self.ranking(casino)
        assert e["cancelled"] == cancelled, where
        awards = list(zip(ranked, notes, strict=False))
        assert e["awards"] == [{"owner": o, "note": note} for o, note in awards], where
        returned = [note for o, note in awards if o == "neutral"] + notes[len(awards) :]
        assert e["returned"] == returned, where
        assert e["returned_to"] == self.c.unwon_to, where
        assert returned == notes_desc(returned), f"{where}: returned highest first"
        for owner, note in awards:
            if owner != "neutral":
                assert isinstance(owner, int) and isinstance(note, int)
                self.won[owner].append(note)
        if self.c.unwon_to == "pile":
            self.under.extend(returned)
        else:
            self.discarded.extend(returned)
        self.next_casino += 1
        if self.next_casino > self.c.casinos:
            self.phase = "round_end"

    def on_round_end(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "round_end" and e["round"] == self.round, where
        assert e["money"] == [sum(notes) for notes in self.won], where
        if self.round < self.c.rounds:
            self.phase = "round_start"
        else:
            self.phase = "chip_score" if self.c.chips else "game_end"

    def on_chip_score(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "chip_score" and e["seat"] == self.chip_scores_seen, where
        held = self.chips_held[e["seat"]]
        assert e["chips"] == {colour: held[colour] for colour in CHIP_COLOURS if held[colour]}
        assert e["money"] == chip_money(held), where
        self.chip_scores_seen += 1
        if self.chip_scores_seen == self.n:
            self.phase = "game_end"

    def on_game_end(self, e: dict[str, Any], where: str) -> None:
        assert self.phase == "game_end", where
        assert e["result"] == self.standings(), where
        self.phase = "over"

    # -------------------------------------------------------- observation

    def check(self, state: State) -> None:
        """Follow the new events, then compare every seat's observation."""
        events = state.events()
        assert events is not None
        self.follow(events)
        over = self.phase == "over"
        assert state.is_terminal() == over
        movers = list(state.to_move())
        legal: tuple[str, ...] = ()
        if not over:
            assert self.phase in ("place", "kick", "chip") and self.pending is None, self.phase
            assert movers == [self.current]
            legal = state.legal_actions(self.current)
            assert list(legal) == self.legal(), "legal actions in their stable order"
            assert len(legal) >= 2, "a decision with one action is applied by the engine"
        for seat in range(self.n):
            self.check_observation(state.observe(seat), seat, movers, legal)

    def check_observation(
        self, obs: dict[str, Any], seat: int, movers: list[int], legal: tuple[str, ...]
    ) -> None:
        over = self.phase == "over"
        where = f"observe({seat})"
        assert obs["seat"] == seat and obs["seats"] == self.n, where
        assert obs["rules"] == self.d.rules and obs["options"] == dict(self.d.options)
        assert (obs["round"], obs["rounds"]) == (self.round, self.c.rounds), where
        assert obs["start_player"] == self.start, where
        assert obs["to_move"] == movers, where
        assert obs["decision"] == ("none" if over else self.phase), where
        assert obs["current_player"] == (None if over else self.current), where
        roll = None if over else {"seat": self.current, "dice": self.roll}
        assert obs["roll"] == roll, where
        kick = None
        if self.phase == "kick":
            kick = {"casino": self.kick_casino, "kicks_left": self.kicks_left}
        assert obs["kick"] == kick, where
        assert obs["hands"] == self.hands, where
        assert obs["kickers_used"] == self.kickers_used, where
        assert obs["neutral_out"] == self.neutral_out, where
        assert len(obs["casinos"]) == self.c.casinos, where
        for index, casino in enumerate(obs["casinos"]):
            here = f"{where} casino {index + 1}"
            assert casino["casino"] == index + 1, here
            assert casino["notes"] == notes_desc(self.casino_notes[index]), here
            assert casino["dice"] == {str(o): c for o, c in self.counts[index].items() if c}, here
            biggies = {str(o): c for o, c in self.biggies[index].items() if c}
            assert casino["biggies"] == biggies, here
            if index == 6:
                faces = Counter((f["owner"], f["face"], f["biggie"]) for f in casino["faces"])
                assert faces == Counter(self.slot), here
        assert obs["money"] == [sum(notes) for notes in self.won], where
        assert obs["notes_won"] == [len(notes) for notes in self.won], where
        if "won" in obs:
            assert obs["won"] == self.won, where
        if "discarded" in obs:
            assert obs["discarded"] == self.discarded, where
        if "last_roller" in obs:
            assert obs["last_roller"] == self.last_roller, where
        assert obs["pile_size"] == self.pile_size, where
        if self.c.chips:
            chips = obs["chips"]
            assert chips["deck_size"] == self.chip_deck.total(), where
            assert [Counter(at) for at in chips["at_casinos"]] == self.chips_at, where
            assert chips["held"] == [
                {colour: held[colour] for colour in CHIP_COLOURS if held[colour]}
                for held in self.chips_held
            ], where
            assert chips["casino"] == (self.kick_casino if self.phase == "chip" else None)
        elif "chips" in obs:
            assert obs["chips"] is None, where
        mine = list(legal) if not over and seat == self.current else []
        assert obs["legal_actions"] == mine, where
        assert obs["result"] == (self.standings() if over else None), where
        assert_conserved(obs, self.c, len(self.discarded))


def assert_conserved(obs: dict[str, Any], c: Components, discarded: int) -> None:
    """Dice and notes conservation from one observation alone."""
    casinos = obs["casinos"]
    for seat in range(c.seats):
        key = str(seat)
        hand = obs["hands"][seat]
        on_biggies = sum(casino["biggies"].get(key, 0) for casino in casinos)
        on_weighted = sum(casino["dice"].get(key, 0) for casino in casinos)
        on_regular = on_weighted - 2 * on_biggies
        assert on_regular >= 0
        assert hand["die"] + on_regular == c.regular, f"seat {seat}: regular dice"
        assert hand["biggie"] + on_biggies == c.biggies, f"seat {seat}: biggies"
        assert hand["kicker"] + obs["kickers_used"][seat] == c.kickers, f"seat {seat}: kickers"
        in_hand = hand["die"] + hand["biggie"] + hand["kicker"]
        total = in_hand + on_regular + on_biggies + obs["kickers_used"][seat]
        assert total == c.dice_per_seat, f"seat {seat}: dice"
    held = sum(hand["neutral"] for hand in obs["hands"])
    placed = sum(casino["dice"].get("neutral", 0) for casino in casinos)
    assert held + placed + obs["neutral_out"] == c.neutral_total, "neutral dice"
    assert not any("neutral" in casino["biggies"] for casino in casinos)
    at_casinos = sum(len(casino["notes"]) for casino in casinos)
    won = sum(obs["notes_won"])
    assert obs["pile_size"] + at_casinos + won + discarded == c.notes.total(), "notes"
    if "won" in obs:
        assert obs["money"] == [sum(notes) for notes in obs["won"]]
        seen: Counter[Note] = Counter(note for notes in obs["won"] for note in notes)
        seen.update(note for casino in casinos for note in casino["notes"])
        seen.update(obs["discarded"])
        assert not seen - c.notes, "more notes of a value than the game holds"


# --------------------------------------------------------------------------
# Strategies and helpers.

#: The bound on decisions for a game the referee does not cover.
GENERIC_BOUND = 20_000


def decision_bound(description: GameDescription) -> int:
    if referee_covers(description):
        return components(description).max_decisions
    return GENERIC_BOUND


def valid_option_sets(rules: str, seats: int) -> Iterator[dict[str, bool | int]]:
    """Every combination of option values allowed with this seat count."""
    specs = [
        spec for spec in RULE_SYSTEMS[rules].options if spec.seats is None or seats in spec.seats
    ]
    for values in itertools.product(*(spec.allowed_values() for spec in specs)):
        yield dict(zip((spec.name for spec in specs), values, strict=True))


@st.composite
def deals(draw: st.DrawFn) -> tuple[GameDescription, int]:
    """Any valid description (rule system, seat count, options valid for it) and a seed."""
    rules = draw(st.sampled_from(sorted(RULE_SYSTEMS)))
    system = RULE_SYSTEMS[rules]
    seats = draw(st.sampled_from(system.seats))
    options = {
        spec.name: draw(st.sampled_from(spec.allowed_values()))
        for spec in system.options
        if spec.seats is None or seats in spec.seats
    }
    seed = draw(st.one_of(st.integers(0, 1000), st.integers(0, MAX_SEED)))
    return describe(rules, seats, options), seed


class Chooser:
    """Picks the index of the action at each decision: hypothesis's picks, then an RNG."""

    def __init__(self, picks: list[int], seed: int) -> None:
        self.picks = picks
        self.seed = seed
        self.rng = random.Random(seed)
        self.step = 0

    def __repr__(self) -> str:
        return f"Chooser({self.picks!r}, {self.seed!r})"

    def copy(self) -> Chooser:
        return Chooser(self.picks, self.seed)

    def __call__(self, legal: Sequence[str]) -> str:
        assert legal, "a seat that must decide has a legal action"
        pick = self.picks[self.step] if self.step < len(self.picks) else self.rng.randrange(1 << 16)
        self.step += 1
        return legal[pick % len(legal)]


choosers = st.builds(Chooser, st.lists(st.integers(0, 1 << 16), max_size=40), st.integers(0, 2**32))


def examples(count: int) -> settings:
    """Hypothesis settings: ``count`` games, no per-example deadline (games vary)."""
    return settings(
        max_examples=count,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


Move = tuple[str, int]


def decide(state: State, choose: Chooser) -> list[Move]:
    """One decision of every seat to move, applied in seat order."""
    moves: list[Move] = []
    for seat in state.to_move():
        legal = state.legal_actions(seat)
        assert legal, f"seat {seat} must decide but has no legal action"
        action = choose(legal)
        state.apply_action(action, seat)
        moves.append((action, seat))
    return moves


def play_out(state: State, choose: Chooser, limit: int) -> list[Move]:
    """Play to the end; return the decisions taken."""
    taken: list[Move] = []
    while not state.is_terminal():
        assert len(taken) < limit, "the game did not end within the bound"
        taken += decide(state, choose)
    return taken


def snapshot(state: State) -> str:
    """Every seat's observation, the log, who moves and the legal actions, as text."""
    seats = state.description.seats
    return json.dumps(
        {
            "observe": [state.observe(seat) for seat in range(seats)],
            "events": state.events(),
            "to_move": list(state.to_move()),
            "legal": [list(state.legal_actions(seat)) for seat in range(seats)],
        },
        sort_keys=True,
    )


def check_generic(state: State) -> None:
    """What holds for every rule system at every step."""
    movers = state.to_move()
    assert len(set(movers)) == len(movers)
    assert state.is_terminal() == (not movers)
    assert (state.result() is None) == bool(movers)
    for seat in range(state.description.seats):
        legal = state.legal_actions(seat)
        assert len(set(legal)) == len(legal), "legal actions are distinct"
        if seat in movers:
            assert legal, f"seat {seat} must decide but has no legal action"
            assert len(legal) >= 2, "a single legal action is applied by the engine (forced)"
        else:
            assert legal == (), f"seat {seat} is not to move but has legal actions"
        assert state.observe(seat)["legal_actions"] == list(legal)


def check_cardgame(state: State) -> None:
    """Conservation in `cardgame`, from the observations and the log (no referee yet)."""
    n = state.description.seats
    events = state.events() or []
    boxed = sum(len(e["returned"]) for e in events if e["type"] == "payout")
    for seat in range(n):
        obs = state.observe(seat)
        assert len(obs["hand"]) == obs["hand_sizes"][seat]
        assert len(obs["discards"]) == obs["discard_sizes"][seat]
        for other in range(n):
            cards = (
                obs["hand_sizes"][other]
                + obs["draw_sizes"][other]
                + obs["discard_sizes"][other]
                + obs["cards_placed"][other]
            )
            assert cards == 30, f"seat {other}'s 30 dice cards"
            placed = sum(len(c["cards"].get(str(other), [])) for c in obs["casinos"])
            assert placed == obs["cards_placed"][other]
        at_casinos = sum(len(casino["notes"]) for casino in obs["casinos"])
        assert obs["pile_size"] + at_casinos + sum(obs["notes_won"]) + boxed == 48, "notes"
        assert obs["money"] == [sum(notes) for notes in obs["won"]]
        chips = obs["chips"]
        if chips is not None:
            held = sum(sum(h.values()) for h in chips["held"])
            at = sum(len(a) for a in chips["at_casinos"])
            assert chips["deck_size"] + held + at == 25, "chip cards"


# --------------------------------------------------------------------------
# Properties.


@examples(120)
@given(deal=deals(), choose=choosers)
def test_random_games_follow_the_rules(deal: tuple[GameDescription, int], choose: Chooser) -> None:
    """Terminates; conservation, money and every event by the rules; replays."""
    description, seed = deal
    state = new_game(description, seed)
    referee = Referee(description) if referee_covers(description) else None
    bound = decision_bound(description)
    steps = 0
    while True:
        check_generic(state)
        if referee is not None:
            referee.check(state)
        elif description.rules == "cardgame":
            check_cardgame(state)
        if state.is_terminal():
            break
        steps += 1
        assert steps <= bound, "the game did not end within the bound"
        decide(state, choose)
    log = game_logs.game_log(state)
    assert game_logs.loads(game_logs.dumps(log)) == log
    replayed = replay(log)
    assert replayed.result() == state.result()
    assert snapshot(replayed) == snapshot(state)


@examples(60)
@given(deal=deals(), choose=choosers, split=st.floats(0, 1))
def test_same_description_and_decisions_give_the_same_game(
    deal: tuple[GameDescription, int], choose: Chooser, split: float
) -> None:
    """Same log twice; logging changes nothing; a clone is independent and identical."""
    description, seed = deal
    first = new_game(description, seed)
    taken = play_out(first, choose, decision_bound(description))
    log = game_logs.dumps(game_logs.game_log(first))

    again = new_game(description, seed)
    silent = new_game(description, seed, log=False)
    cut = int(split * len(taken))
    for action, seat in taken[:cut]:
        again.apply_action(action, seat)
        silent.apply_action(action, seat)
        assert silent.observe(seat) == again.observe(seat), "logging changes nothing"
    fork = again.clone()
    rest = taken[cut:]
    for action, seat in rest:
        again.apply_action(action, seat)
        silent.apply_action(action, seat)
    assert game_logs.dumps(game_logs.game_log(again)) == log
    assert silent.events() is None
    assert silent.result() == first.result()
    assert [silent.observe(s) for s in range(description.seats)] == [
        first.observe(s) for s in range(description.seats)
    ]
    # The clone is independent (the original moved on) and continues identically.
    assert fork.is_terminal() == (not rest)
    for action, seat in rest:
        fork.apply_action(action, seat)
    assert game_logs.dumps(game_logs.game_log(fork)) == log


def illegal_candidates(state: State, seat: int) -> list[Any]:
    """Malformed, out-of-range and wrong-decision actions; none is legal for ``seat``."""
    legal = set(state.legal_actions(seat))
    pool: list[Any] = [f"place {face}" for face in range(8)]
    pool += [f"slot {face}" for face in range(8)]
    pool += [f"kick {owner} {kind}" for owner in range(7) for kind in ("die", "biggie")]
    pool += ["kick neutral die", "kick neutral biggie", "kick 0 kicker", "chip none", "chip red"]
    pool += ["chip blue", "pass", "", "PLACE 1", " place 1", "place 1 ", "place  1", "place one"]
    return [action for action in pool if action not in legal] + [None, 3, ("place", 1)]


@examples(60)
@given(
    deal=deals(),
    choose=choosers,
    tries=st.lists(st.integers(0, 1 << 16), min_size=1, max_size=4),
    when=st.floats(0, 1),
)
def test_illegal_action_raises_and_changes_nothing(
    deal: tuple[GameDescription, int], choose: Chooser, tries: list[int], when: float
) -> None:
    """IllegalActionError; every observation, the log and the dice to come unchanged."""
    description, seed = deal
    n = description.seats
    bound = decision_bound(description)
    total = len(play_out(new_game(description, seed, log=False), choose.copy(), bound))
    state = new_game(description, seed)
    while not state.is_terminal() and choose.step < int(when * total):
        decide(state, choose)
    before = snapshot(state)
    twin = state.clone()
    attempts: list[tuple[Any, int | None]] = []
    if state.is_terminal():
        attempts = [("place 1", 0), ("place 1", None), ("kick 0 die", n - 1), ("", None)]
    else:
        seat = state.to_move()[0]
        candidates = illegal_candidates(state, seat)
        legal = state.legal_actions(seat)
        others = [other for other in range(n) if other not in state.to_move()]
        for pick in tries:
            attempts.append((candidates[pick % len(candidates)], seat))
            if len(state.to_move()) == 1:
                attempts.append((candidates[pick % len(candidates)], None))
            # A legal action, but for a seat that is not to move or no seat at all.
            if others:
                attempts.append((legal[pick % len(legal)], others[pick % len(others)]))
            attempts.append((legal[pick % len(legal)], n + pick % 3))
            attempts.append((legal[pick % len(legal)], -1))
    for action, who in attempts:
        error = GameOverError if state.is_terminal() else IllegalActionError
        with pytest.raises(error) as info:
            state.apply_action(action, who)
        assert info.value.action == action
        assert snapshot(state) == before, f"{action!r} by seat {who} changed the state"
    # The random generator is untouched too: both go on identically.
    for action, seat in play_out(state, choose, bound):
        twin.apply_action(action, seat)
    assert snapshot(twin) == snapshot(state)


ALL_OPTION_SETS = [
    (rules, seats, options)
    for rules, system in sorted(RULE_SYSTEMS.items())
    for seats in system.seats
    for options in valid_option_sets(rules, seats)
]


def option_set_id(rules: str, seats: int, options: dict[str, bool | int]) -> str:
    on = [name if value is True else f"{name}={value}" for name, value in options.items() if value]
    return f"{rules}-{seats}p-" + ("+".join(on) or "none")


@pytest.mark.parametrize(
    ("rules", "seats", "options"),
    ALL_OPTION_SETS,
    ids=[option_set_id(*case) for case in ALL_OPTION_SETS],
)
def test_every_option_set_plays_by_the_rules(
    rules: str, seats: int, options: dict[str, bool | int]
) -> None:
    """Each valid (rules, seats, options) once, refereed at every step, then replayed."""
    seed = 1000 + ALL_OPTION_SETS.index((rules, seats, options))
    description = describe(rules, seats, options)
    state = new_game(description, seed)
    referee = Referee(description) if referee_covers(description) else None
    choose = Chooser([], seed)
    bound = decision_bound(description)
    steps = 0
    while True:
        if referee is not None:
            referee.check(state)
        elif rules == "cardgame":
            check_cardgame(state)
        if state.is_terminal():
            break
        steps += 1
        assert steps <= bound, "the game did not end within the bound"
        decide(state, choose)
    replay(game_logs.game_log(state))


POLICY_MIXES = {
    "greedy": lambda seat: "greedy",
    "random": lambda seat: "random",
    "mixed": lambda seat: "greedy" if seat % 2 == 0 else "random",
}


@pytest.mark.parametrize(
    ("rules", "mix"), [(rules, mix) for rules in sorted(RULE_SYSTEMS) for mix in POLICY_MIXES]
)
def test_builtin_policies_finish_every_rule_system(rules: str, mix: str) -> None:
    """vegas_engine.policies.play ends every game, with every seat count and option set."""
    system = RULE_SYSTEMS[rules]
    for seats in system.seats:
        option_sets = list(valid_option_sets(rules, seats))
        for options in (option_sets[0], option_sets[-1]):
            description = describe(rules, seats, options)
            policies = [POLICIES[POLICY_MIXES[mix](seat)] for seat in range(seats)]
            state = play(description, 7 * seats, policies)
            assert state.result() is not None
            replay(game_logs.game_log(state))


@examples(30)
@given(seats=st.sampled_from([2, 3, 4, 5]), seed=st.integers(0, 10_000), choose=choosers)
def test_expected_gain_is_the_named_seats_in_simultaneous_turns(
    seats: int, seed: int, choose: Chooser
) -> None:
    """Regression: greedy's estimate must be the named seat's, whoever chose first.

    `expected_gain(action, seat)` once took no seat and valued the first seat
    of a simultaneous card-game turn, so greedy crashed (KeyError) or valued
    the wrong hand for every other seat. Another seat's hidden choice is not
    counted, so the estimate must not change when other seats choose first.
    """
    state = new_game(describe("cardgame", seats), seed, log=False)
    while not state.is_terminal() and choose.step < 10:
        decide(state, choose)
    if state.is_terminal() or len(state.to_move()) < 2:
        return
    movers = state.to_move()
    gains = {
        seat: {a: expected_gain(state, a, seat) for a in state.legal_actions(seat)}
        for seat in movers
    }
    for first in movers:
        other = state.clone()
        other.apply_action(choose(other.legal_actions(first)), first)
        for seat in other.to_move():
            assert {a: expected_gain(other, a, seat) for a in other.legal_actions(seat)} == gains[
                seat
            ]


def test_slot_machine_this_turn_marks_only_dice_placed_this_turn() -> None:
    for seed in range(20):
        description = describe("boulevard", 3)
        state = new_game(description, seed)
        referee = Referee(description)
        choose = Chooser([], seed)
        while not state.is_terminal():
            referee.check(state)
            faces = state.observe(0)["casinos"][6]["faces"]
            on_slot_now = referee.phase == "kick" and referee.kick_casino == 7
            expected = [on_slot_now and index >= referee.slot_from for index in range(len(faces))]
            assert [face["this_turn"] for face in faces] == expected, (
                f"seed {seed}: kick at casino {referee.kick_casino}, faces {faces}"
            )
            decide(state, choose)
