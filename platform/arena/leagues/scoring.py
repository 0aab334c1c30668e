"""League standings as pure functions: points per rank, money, head-to-head, league Elo.

A *unit* is what one table rank is given for: one game, or with duplicate
deals one whole deal (its games' money added up per entrant, then ranked by
``arena.ladders.deals``, the ruling duplicate ladders rate on).
No Django: the services load rows, this module only computes, so the same
maths runs in tests and the bench on plain tuples.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.ladders.deals import DealSeat, deal_ranks, deal_totals
from arena.ladders.elo import INITIAL_RATING, SeatRating, k_factor, seat_changes

from .formats import table_points


@dataclass(frozen=True)
class GameSeat:
    """One seat's result in one game."""

    entry: int
    money: int
    rank: int
    forfeit: bool


@dataclass(frozen=True)
class UnitSeat:
    """An entrant's result in one unit: a deal's money added up, and how many games it sat."""

    entry: int
    money: int
    rank: int
    forfeit: bool
    games: int


@dataclass(frozen=True)
class Unit:
    """A scored unit of one table (fixture): a game, or a duplicate deal."""

    fixture: int
    seats: tuple[UnitSeat, ...]
    #: False for a walkover: it gives points but no money, rating or head-to-head.
    played: bool = True


def deal_unit(
    fixture: int, games: Sequence[Sequence[GameSeat]], *, duplicate: bool, played: bool = True
) -> Unit:
    """The unit of a game (``duplicate`` False: one game) or of a deal (its rotations).

    A deal ranks its entrants as a duplicate ladder rates a deal
    (:mod:`arena.ladders.deals`): by the money they won over all its games
    (the same seed from every seat), a forfeit in any of its games ranking
    last, equal totals sharing the better rank.
    """
    if not duplicate:
        (game,) = games
        seats = tuple(UnitSeat(s.entry, s.money, s.rank, s.forfeit, 1) for s in game)
        return Unit(fixture, seats, played)
    deal_seats = [seat for game in games for seat in game]
    totals = deal_totals(DealSeat(s.entry, s.money, s.forfeit) for s in deal_seats)
    count = Counter(s.entry for s in deal_seats)
    seats = tuple(
        UnitSeat(t.player, t.money, rank, t.forfeited, count[t.player])
        for t, rank in zip(totals, deal_ranks(totals), strict=True)
    )
    return Unit(fixture, seats, played)


def walkover_ranks(forfeited: Sequence[bool]) -> list[int]:
    """Ranks of a game not played: forfeiting seats share the last places, the rest the top."""
    present = sum(not f for f in forfeited)
    return [present + 1 if f else 1 for f in forfeited]


@dataclass
class Line:
    """An entrant's standing; ``key`` orders the table (smaller is better)."""

    entry: int
    seed: int
    points: float = 0.0
    money: int = 0
    games: int = 0
    results: int = 0
    wins: int = 0
    forfeits: int = 0
    byes: int = 0
    rating: float = INITIAL_RATING
    rated: int = 0
    head_to_head: float = 0.0
    #: Knockout: (round reached, place at its last table); ignored otherwise.
    stage: tuple[int, int] = (0, 0)

    def key(self) -> tuple[float, ...]:
        return (
            -self.stage[0],
            self.stage[1],
            -self.points,
            -self.money,
            -self.head_to_head,
            -self.rating,
            self.seed,
        )


def fixture_order(units: Iterable[Unit], points_per_rank: Sequence[float]) -> list[int]:
    """The entrants of one table, best first: its points, then money (then entry id)."""
    points: dict[int, float] = defaultdict(float)
    money: dict[int, int] = defaultdict(int)
    for unit in units:
        for seat, value in zip(
            unit.seats, table_points([s.rank for s in unit.seats], points_per_rank), strict=True
        ):
            points[seat.entry] += value
            money[seat.entry] += seat.money
    return sorted(points, key=lambda e: (-points[e], -money[e], e))


def _head_to_head(lines: list[Line], units: Sequence[Unit]) -> None:
    """Among entrants tied on everything before it: places won against each other."""
    groups: dict[tuple[float, ...], list[Line]] = defaultdict(list)
    for line in lines:
        groups[(-line.stage[0], line.stage[1], -line.points, -line.money)].append(line)
    tied = {line.entry: line for group in groups.values() if len(group) > 1 for line in group}
    if not tied:
        return
    group_of = {line.entry: key for key, group in groups.items() for line in group}
    for unit in units:
        if not unit.played:
            continue
        present = [s for s in unit.seats if s.entry in tied]
        for a in present:
            for b in present:
                if a is not b and group_of[a.entry] == group_of[b.entry]:
                    if a.rank < b.rank:
                        tied[a.entry].head_to_head += 1.0
                    elif a.rank == b.rank:
                        tied[a.entry].head_to_head += 0.5


def standings(
    seeds: Mapping[int, int],
    units: Sequence[Unit],
    *,
    points_per_rank: Sequence[float],
    byes: Mapping[int, int] | None = None,
    bye_points: float = 0.0,
    stages: Mapping[int, tuple[int, int]] | None = None,
) -> list[Line]:
    """Every entrant's line, best first.

    ``seeds`` maps entry id to seed (the last tie-break); ``units`` come in
    playing order (the league Elo follows it); ``byes`` counts rounds sat out,
    each worth ``bye_points``; ``stages`` ranks knockout entrants by how far
    they went before anything else.
    """
    lines = {entry: Line(entry, seed) for entry, seed in seeds.items()}
    for entry, count in (byes or {}).items():
        lines[entry].byes = count
        lines[entry].points += count * bye_points
    for entry, stage in (stages or {}).items():
        lines[entry].stage = stage
    for unit in units:
        ranks = [s.rank for s in unit.seats]
        points = table_points(ranks, points_per_rank)
        for seat, value in zip(unit.seats, points, strict=True):
            line = lines[seat.entry]
            line.points += value
            line.money += seat.money
            line.games += seat.games
            line.results += 1
            line.wins += seat.rank == 1 and not seat.forfeit
            line.forfeits += seat.forfeit
        if unit.played and len(unit.seats) >= 2:
            rated = [
                SeatRating(
                    player=s.entry,
                    rating=lines[s.entry].rating,
                    rank=s.rank,
                    k=k_factor(lines[s.entry].rated, len(unit.seats)),
                )
                for s in unit.seats
            ]
            for seat, change in zip(unit.seats, seat_changes(rated), strict=True):
                lines[seat.entry].rating += change
                lines[seat.entry].rated += 1
    ordered = list(lines.values())
    _head_to_head(ordered, units)
    ordered.sort(key=Line.key)
    return ordered
