"""The observation encoder as it was written first, kept as the reference.

It appends one value at a time and clips each in Python: slow, but plain to
read against docs/rl.md. ``test_encoding.py`` checks that the fast
:class:`bots_sdk.rl.encoding.ObservationEncoder` writes exactly the same
vector (and the same segments) on random states of every rule system.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from bots_sdk.rl import _engine
from bots_sdk.rl._engine import JsonDict, Table
from bots_sdk.rl.encoding import (
    CARDS,
    COLOURS,
    FACES,
    KINDS,
    MONEY,
    NOTE,
    RAINBOW,
    TILE_CODES,
    Segment,
    Vector,
)
from bots_sdk.seats import by_seat


class _Writer:
    """Appends named segments, clipping each value into its segment's bounds."""

    def __init__(self) -> None:
        self.values: list[float] = []
        self.segments: list[Segment] = []

    def add(self, name: str, values: Iterable[float], low: float = 0.0, high: float = 1.0) -> None:
        start = len(self.values)
        self.values.extend(min(high, max(low, float(value))) for value in values)
        self.segments.append(Segment(name, start, len(self.values) - start, low, high))

    def one_hot(self, name: str, index: int | None, size: int) -> None:
        """``size`` flags, the one at ``index`` set (none when ``index`` is None)."""
        self.add(name, (1.0 if i == index else 0.0 for i in range(size)))


def _note(note: int | str) -> float:
    return (RAINBOW if note == "rainbow" else int(note)) / NOTE


class ReferenceEncoder:
    """The encoder as it was before the fast one: one value at a time, each clipped in Python."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.seats = table.seats
        self.casinos = 7 if table.options.get("slot_machine") else 6
        self.rounds = _engine.rounds(table.rules)
        self._fill: Callable[[_Writer, JsonDict, Callable[[int], int]], None] = {
            "classic": self._dice,
            "boulevard": self._dice,
            "sixdice": self._dice,
            "cardgame": self._cardgame,
            "royale": self._royale,
        }[table.rules]
        # The layout is the same for every observation: take it from a real one.
        sample = _engine.new_state(table, 0)
        writer = self._write(_engine.observe(sample, 0))
        self.segments: tuple[Segment, ...] = tuple(writer.segments)
        self.size = len(writer.values)
        self.low = np.array([s.low for s in self.segments for _ in range(s.size)], dtype=np.float32)
        self.high = np.array(
            [s.high for s in self.segments for _ in range(s.size)], dtype=np.float32
        )

    def encode(self, observation: JsonDict) -> Vector:
        if (observation["rules"], observation["seats"]) != (self.table.rules, self.seats):
            raise ValueError(
                f"an observation of {observation['rules']} with {observation['seats']} seats; "
                f"this encoder is for {self.table.rules} with {self.seats}"
            )
        values = self._write(observation).values
        if len(values) != self.size:
            raise AssertionError(f"encoded {len(values)} values, the layout has {self.size}")
        return np.array(values, dtype=np.float32)

    def _write(self, observation: JsonDict) -> _Writer:
        writer = _Writer()
        me: int = observation["seat"]
        seats = self.seats

        def rel(seat: int) -> int:
            return (seat - me) % seats

        self._common(writer, observation, rel)
        self._fill(writer, observation, rel)
        return writer

    # The parts: each writes the same sizes whatever the observation holds.

    def _by_seat(self, values: Sequence[float], rel: Callable[[int], int]) -> list[float]:
        ordered = [0.0] * self.seats
        for seat, value in enumerate(values):
            ordered[rel(seat)] = value
        return ordered

    def _seat_keyed(
        self, mapping: dict[str, int], rel: Callable[[int], int], scale: float
    ) -> list[float]:
        """An object keyed by seat (``{"0": 2, "neutral": 1}``): the seats' values, scaled."""
        return self._by_seat([value / scale for value in by_seat(mapping, self.seats)], rel)

    def _seat_flags(self, seats: Iterable[int], rel: Callable[[int], int]) -> list[float]:
        flags = [0.0] * self.seats
        for seat in seats:
            flags[rel(seat)] = 1.0
        return flags

    def _common(self, w: _Writer, o: JsonDict, rel: Callable[[int], int]) -> None:
        w.one_hot("round", o["round"] - 1, self.rounds)
        w.add("to_move", self._seat_flags(o["to_move"], rel))
        w.one_hot("start_player", rel(o["start_player"]), self.seats)
        current = o["current_player"]
        w.one_hot("current_player", None if current is None else rel(current), self.seats)
        w.add("money", self._by_seat([m / MONEY for m in o["money"]], rel), high=4.0)
        notes = [len(won) / 20 for won in o["won"]]
        w.add("notes_won", self._by_seat(notes, rel))
        w.add("pile_size", [o["pile_size"] / 100])

    def _chips(self, w: _Writer, o: JsonDict, rel: Callable[[int], int]) -> None:
        if not self.table.options.get("chips"):
            return
        chips = o["chips"] or {"at_casinos": [[]] * 6, "held": [], "deck_size": 0, "casino": None}
        w.add(
            "chips.at_casinos",
            (at.count(colour) / 2 for at in chips["at_casinos"] for colour in COLOURS),
        )
        held = [[0.0] * len(COLOURS) for _ in range(self.seats)]
        for seat, cards in enumerate(chips["held"]):
            held[rel(seat)] = [cards.get(colour, 0) / 5 for colour in COLOURS]
        w.add("chips.held", (count for row in held for count in row))
        w.add("chips.deck_size", [chips["deck_size"] / 25])
        casino = chips["casino"]
        w.one_hot("chips.casino", None if casino is None else casino - 1, 6)

    def _dice(self, w: _Writer, o: JsonDict, rel: Callable[[int], int]) -> None:
        decisions = ["place", "kick", "chip"]
        w.one_hot(
            "decision", decisions.index(o["decision"]) if o["decision"] in decisions else None, 3
        )
        roll = o["roll"] or {"seat": None, "dice": {}}
        kinds = ("die", "biggie", "kicker", "neutral")
        w.add(
            "roll",
            (roll["dice"].get(kind, []).count(face) / 8 for kind in kinds for face in FACES),
        )
        kick = o["kick"]
        w.one_hot("kick.casino", None if kick is None else kick["casino"] - 1, self.casinos)
        w.add("kick.kicks_left", [0 if kick is None else kick["kicks_left"] / 2])
        for casino in o["casinos"][: self.casinos]:
            name = f"casino{casino['casino']}"
            notes = [_note(note) for note in casino["notes"][:5]]
            w.add(f"{name}.notes", notes + [0.0] * (5 - len(notes)))
            w.add(f"{name}.dice", self._seat_keyed(casino["dice"], rel, 8))
            w.add(f"{name}.neutral", [casino["dice"].get("neutral", 0) / 8])
            w.add(f"{name}.biggies", self._seat_keyed(casino["biggies"], rel, 1))
            if casino["casino"] == 7:
                taken = {die["face"] for die in casino.get("faces", [])}
                w.add("slot.faces_taken", (float(face in taken) for face in FACES))
        hands = [[0.0] * 4 for _ in range(self.seats)]
        for seat, hand in enumerate(o["hands"]):
            hands[rel(seat)] = [
                hand["die"] / 8,
                hand["biggie"],
                hand["kicker"] / 2,
                hand["neutral"] / 8,
            ]
        w.add("hands", (value for row in hands for value in row))
        w.add("kickers_used", self._by_seat([k / 2 for k in o["kickers_used"]], rel))
        w.add("neutral_out", [o["neutral_out"] / 8])
        self._chips(w, o, rel)

    def _cards(self, cards: Iterable[str], scale: float) -> list[float]:
        counts = dict.fromkeys(CARDS, 0)
        for card in cards:
            counts[card] += 1
        return [counts[card] / scale for card in CARDS]

    def _cardgame(self, w: _Writer, o: JsonDict, rel: Callable[[int], int]) -> None:
        decisions = ["select", "chip"]
        w.one_hot(
            "decision", decisions.index(o["decision"]) if o["decision"] in decisions else None, 2
        )
        w.one_hot("turn", o["turn"] - 1, o["turns"])
        w.add("hand", self._cards(o["hand"], 4))
        w.add("discards", self._cards(o["discards"], 4))
        choice = o["my_choice"]
        w.add("my_choice", self._cards(choice.split()[1:] if choice else [], 4))
        w.add("hand_sizes", self._by_seat([n / 5 for n in o["hand_sizes"]], rel))
        w.add("draw_sizes", self._by_seat([n / 30 for n in o["draw_sizes"]], rel))
        w.add("discard_sizes", self._by_seat([n / 30 for n in o["discard_sizes"]], rel))
        w.add("chosen", self._seat_flags(o["chosen"], rel))
        w.add("finished", self._by_seat([float(f) for f in o["finished"]], rel))
        w.add("cards_placed", self._by_seat([n / 10 for n in o["cards_placed"]], rel))
        for casino in o["casinos"]:
            name = f"casino{casino['casino']}"
            notes = [_note(note) for note in casino["notes"][:2]]
            w.add(f"{name}.notes", notes + [0.0] * (2 - len(notes)))
            w.add(f"{name}.dice", self._seat_keyed(casino["dice"], rel, 10))
        self._chips(w, o, rel)

    ROYALE_DECISIONS = (
        "place", "power", "hide", "guess", "gamble", "close", "bar", "block", "handicap",
        "move", "add", "split", "pile", "bet", "nice", "choose", "activate", "gold",
    )  # fmt: skip

    def _royale(self, w: _Writer, o: JsonDict, rel: Callable[[int], int]) -> None:
        decisions = self.ROYALE_DECISIONS
        decision = o["decision"]
        w.one_hot(
            "decision", decisions.index(decision) if decision in decisions else None, len(decisions)
        )
        context = o["context"]
        casino = context.get("casino")
        w.one_hot("context.casino", None if casino is None else casino - 1, 6)
        for role in ("hider", "activator", "winner", "splitter"):
            seat = context.get(role)
            w.one_hot(f"context.{role}", None if seat is None else rel(seat), self.seats)
        w.add("roll", (o["roll"].get(kind, []).count(face) / 8 for kind in KINDS for face in FACES))
        placed = o["placed"]
        w.one_hot("placed.casino", None if placed is None else placed["casino"] - 1, 6)
        w.add("placed.dice", [0, 0] if placed is None else [placed["die"] / 8, placed["biggie"]])
        w.add("black_dice", (o["black_dice"].count(face) / 2 for face in FACES))
        for casino in o["casinos"]:
            name = f"casino{casino['casino']}"
            cards = [_note(card) for card in casino["cards"][:3]]
            w.add(f"{name}.cards", cards + [0.0] * (3 - len(cards)))
            w.add(f"{name}.dice", self._seat_keyed(casino["dice"], rel, 8))
            w.add(
                f"{name}.neutral_grey", [casino["dice"].get(k, 0) / 8 for k in ("neutral", "grey")]
            )
            w.add(f"{name}.biggies", self._seat_keyed(casino["biggies"], rel, 1))
            tile = casino["tile"]
            w.one_hot(
                f"{name}.tile", None if tile is None else TILE_CODES.index(tile), len(TILE_CODES)
            )
            w.add(f"{name}.closed", [float(casino["closed"])])
        hands = [[0.0, 0.0] for _ in range(self.seats)]
        for seat, hand in enumerate(o["hands"]):
            hands[rel(seat)] = [hand["die"] / 8, hand["biggie"]]
        w.add("hands", (value for row in hands for value in row))
        w.add("chips", self._by_seat([n / 10 for n in o["chips"]], rel))
        credit = [c / MONEY for c in o["bank_credit"]]
        w.add("bank_credit", self._by_seat(credit, rel), low=-1.0, high=1.0)
        w.add("bank_cards", [len(o["bank_cards"]) / 30])
        w.add("under_pile", [len(o["under_pile"]) / 30])
        winners = o["round_winners"]
        w.add(
            "round_winners",
            (
                float(seat is not None and rel(seat) == r)
                for seat in winners
                for r in range(self.seats)
            ),
        )
        self._royale_tiles(w, o["tiles"], rel)

    def _royale_tiles(self, w: _Writer, t: JsonDict, rel: Callable[[int], int]) -> None:
        def seat_hot(name: str, seat: int | None) -> None:
            w.one_hot(name, None if seat is None else rel(seat), self.seats)

        w.add("tiles.jackpot", [t["jackpot"] / NOTE], high=4.0)
        w.add("tiles.fifty_fifty", [t["fifty_fifty"]["step"] / 5, t["fifty_fifty"]["sum"] / 12])
        seat_hot("tiles.high_five", t["high_five"])
        seat_hot("tiles.power_play.holder", t["power_play"]["holder"])
        w.add("tiles.power_play.ready", [float(t["power_play"]["ready"])])
        closed = t["no_entry"]["closed"]
        w.one_hot("tiles.no_entry.closed", None if closed is None else closed - 1, 6)
        w.add("tiles.no_entry.track", [t["no_entry"]["track"] / 5])
        for part in ("bar", "side_bet"):
            rows = [[0.0, 0.0] for _ in range(self.seats)]
            for seat, dice in enumerate(t[part]):
                rows[rel(seat)] = [dice["die"] / 8, dice["biggie"]]
            w.add(f"tiles.{part}", (value for row in rows for value in row))
        w.add("tiles.block_it", (t["block_it"].count(size) / 2 for size in (1, 2, 3)))
        spaces = t["handicap"]
        w.add("tiles.handicap", (spaces[kind] / 5 for kind in ("chip", "money", "move")))
        nice = []
        for face in FACES:
            die = t["nice_dice"].get(str(face))
            mine = die is not None and rel(die["owner"]) == 0
            nice += [
                float(mine),
                float(die is not None and not mine),
                float(bool(die) and die["die"] == "biggie"),
            ]
        w.add("tiles.nice_dice", nice)
        golden = t["golden"]
        seat_hot("tiles.golden", None if golden is None else golden["owner"])
        punch = t["lucky_punch"]
        seat_hot("tiles.lucky_punch.hider", None if punch is None else punch["hider"])
        w.add(
            "tiles.lucky_punch.tokens",
            [0 if punch is None or punch["tokens"] is None else punch["tokens"] / 3],
        )
        box = t["black_box"]
        w.add(
            "tiles.black_box.sizes", [0, 0] if box is None else [size / 6 for size in box["sizes"]]
        )
        w.add("tiles.bad_luck", self._seat_flags(t["bad_luck"], rel))
