"""League formats as pure functions: who sits at which table, in which seat, and the points.

No Django here: entrants are plain ints (indices), so the same functions serve
leagues, a ladder option (duplicate deals) and the property tests.

- Round robin: every combination of entrants into tables of N when there are
  at most ``max_tables`` of them, else rounds of tables (a balanced
  incomplete design) where every entrant plays once per round, byes rotate,
  and pairs meet as evenly as a local search can make them.
- Swiss: tables of neighbours in the current standings, never a table that
  already played while another split avoids it.
- Knockout by tables: the top ``advance`` of each table go through, top seeds
  get byes, until one final table of N.
- Seats: a table's games rotate the seats; games left over from full
  rotations get seats balanced over the whole design (an equitable edge
  colouring), or, round by round, towards each entrant's least used seats.
- Duplicate deals: one seed played once per rotation by the same players.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

#: Entrant indices in seat order: ``seating[s]`` plays seat ``s``.
Seating = tuple[int, ...]
#: A table's entrants (seat order of its first game).
Table = tuple[int, ...]

#: Search nodes the Swiss pairing may visit before it settles for repeats.
SWISS_NODE_LIMIT = 200_000
#: Improvement passes of the balanced design's local search per round.
DESIGN_PASSES = 8


class FormatError(ValueError):
    """Settings no schedule can satisfy; the message says which and why."""


# --------------------------------------------------------------------------- seats


def rotation(order: Sequence[T], game: int) -> tuple[T, ...]:
    """Game ``game`` of a rotation: the player at index i sits at seat (i + game) mod n."""
    n = len(order)
    return tuple(order[(seat - game) % n] for seat in range(n))


def duplicate_deal(players: Sequence[T]) -> list[tuple[T, ...]]:
    """The seatings of one duplicate deal: the same seed once per seat rotation.

    Every player sits in every seat exactly once, and the engine fixes each
    seat's dice by the seed (ruling 35), so each meets the deal's dice from
    every seat. Ladders seat their deals the same way (``bots_sdk.referee.rotations``).
    """
    if len(players) < 2:
        raise FormatError("a duplicate deal needs at least 2 players.")
    return [rotation(players, game) for game in range(len(players))]


def seat_counts(games: Iterable[Seating], seats: int) -> dict[int, list[int]]:
    """How often each entrant sat in each seat."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0] * seats)
    for seating in games:
        for seat, entrant in enumerate(seating):
            counts[entrant][seat] += 1
    return dict(counts)


def _balance_two_colours(
    colour: list[int], edges: list[tuple[int, int]], a: int, b: int, game_base: int
) -> None:
    """Recolour the a/b edges so every vertex has as many a as b (within one).

    The a/b edges form a bipartite graph (entrants, games) where every game
    has exactly one a and one b edge. Odd entrants are joined to one dummy
    vertex, making every degree even; colouring each Euler circuit
    alternately then splits every vertex's edges evenly, and each game keeps
    one a and one b. Vertex ids: entrants < game_base <= games; dummy -1.
    """
    chosen = [i for i, c in enumerate(colour) if c in (a, b)]
    if not chosen:
        return
    adjacency: dict[int, list[int]] = defaultdict(list)
    ends: list[tuple[int, int]] = []
    for k, edge_id in enumerate(chosen):
        entrant, game = edges[edge_id]
        ends.append((entrant, game_base + game))
        adjacency[entrant].append(k)
        adjacency[game_base + game].append(k)
    real = len(ends)
    for vertex in [v for v, incident in adjacency.items() if len(incident) % 2]:
        ends.append((vertex, -1))
        adjacency[vertex].append(len(ends) - 1)
        adjacency[-1].append(len(ends) - 1)
    used = [False] * len(ends)
    pointer: dict[int, int] = defaultdict(int)
    new_colour = [0] * len(ends)
    for start in list(adjacency):
        if pointer[start] >= len(adjacency[start]):
            continue
        # Hierholzer: the circuit's edges in order, then alternate colours.
        stack: list[tuple[int, int]] = [(start, -2)]
        circuit: list[int] = []
        while stack:
            vertex, via = stack[-1]
            incident = adjacency[vertex]
            while pointer[vertex] < len(incident) and used[incident[pointer[vertex]]]:
                pointer[vertex] += 1
            if pointer[vertex] < len(incident):
                k = incident[pointer[vertex]]
                used[k] = True
                u, v = ends[k]
                stack.append((v if u == vertex else u, k))
            else:
                stack.pop()
                if via >= 0:
                    circuit.append(via)
        # Bipartite graph: circuits are even, so alternation closes cleanly.
        for position, k in enumerate(circuit):
            new_colour[k] = a if position % 2 == 0 else b
    for k in range(real):
        colour[chosen[k]] = new_colour[k]


def balance_seats(games: Sequence[Seating], seats: int) -> list[Seating]:
    """The same games with seats reassigned so each entrant's seat counts differ by at most 1.

    Each game keeps its entrants and has every seat once. This is an
    equitable edge colouring of the bipartite graph entrants-games (de Werra:
    one always exists): while an entrant uses seat a at least twice more
    than seat b, every a/b edge is recoloured by alternating Euler circuits,
    which evens a and b at every vertex and never unbalances the rest (the
    sum of squared counts strictly drops).
    """
    edges: list[tuple[int, int]] = []
    colour: list[int] = []
    for index, seating in enumerate(games):
        for seat, entrant in enumerate(seating):
            edges.append((entrant, index))
            colour.append(seat)
    game_base = max((entrant for entrant, _ in edges), default=-1) + 1
    while True:
        counts: dict[int, list[int]] = defaultdict(lambda: [0] * seats)
        for (entrant, _), seat in zip(edges, colour, strict=True):
            counts[entrant][seat] += 1
        worst = None
        for row in counts.values():
            high, low = max(row), min(row)
            if high - low >= 2:
                worst = (row.index(high), row.index(low))
                break
        if worst is None:
            break
        _balance_two_colours(colour, edges, worst[0], worst[1], game_base)
    result: list[list[int]] = [[-1] * seats for _ in games]
    for (entrant, index), seat in zip(edges, colour, strict=True):
        result[index][seat] = entrant
    return [tuple(row) for row in result]


def _least_used_seating(
    entrants: Sequence[int], counts: Mapping[int, Sequence[int]], seats: int
) -> Seating:
    """The seating that puts the entrants on their least used seats (round by round)."""
    return _seating_cost(entrants, counts, seats)[1]


def _seating_cost(
    entrants: Sequence[int], counts: Mapping[int, Sequence[int]], seats: int
) -> tuple[tuple[int, int], Seating]:
    """The best seating of a table and its cost (worst excess over a least used seat, sum)."""
    best: Seating | None = None
    best_cost: tuple[int, int] | None = None
    for perm in itertools.permutations(range(seats)):
        # Cost grows fast with a seat's excess over the entrant's least used one.
        cost = 0
        worst = 0
        for entrant, seat in zip(entrants, perm, strict=True):
            row = counts.get(entrant)
            excess = row[seat] - min(row) if row is not None else 0
            cost += 4**excess
            worst = max(worst, excess)
        key = (worst, cost)
        if best_cost is None or key < best_cost:
            seating = [0] * seats
            for entrant, seat in zip(entrants, perm, strict=True):
                seating[seat] = entrant
            best, best_cost = tuple(seating), key
    assert best is not None and best_cost is not None
    return best_cost, best


def seat_tables(
    tables: Sequence[Table],
    *,
    seats: int,
    games_per_table: int,
    duplicate: bool = False,
    history: Mapping[int, Sequence[int]] | None = None,
) -> list[list[Seating]]:
    """The seating of every game of every table, seats rotating.

    With ``duplicate`` each table plays ``games_per_table`` deals of ``seats``
    rotations each (balanced by construction). Otherwise each table plays
    whole rotations first; the games left over are balanced over all the
    tables given when ``history`` is None (a whole design known in advance),
    else placed on each entrant's least used seats given ``history`` (seat
    counts so far, for formats built round by round).
    """
    if games_per_table < 1:
        raise FormatError("a table plays at least 1 game.")
    for table in tables:
        if len(table) != seats:
            raise FormatError(f"table {table} has {len(table)} entrants for {seats} seats.")
    if duplicate:
        return [
            [seating for _ in range(games_per_table) for seating in duplicate_deal(table)]
            for table in tables
        ]
    full = games_per_table - games_per_table % seats
    per_table = [[rotation(table, game) for game in range(full)] for table in tables]
    leftover = games_per_table - full
    if not leftover:
        return per_table
    extra = [[rotation(table, full + k) for k in range(leftover)] for table in tables]
    if history is None:
        flat = balance_seats([s for games in extra for s in games], seats)
        for index, games in enumerate(per_table):
            games.extend(flat[index * leftover : (index + 1) * leftover])
        return per_table
    counts: dict[int, list[int]] = {e: list(row) for e, row in history.items()}
    for table, games in zip(tables, per_table, strict=True):
        for entrant in table:
            counts.setdefault(entrant, [0] * seats)
        for _ in range(leftover):
            seating = _least_used_seating(table, counts, seats)
            games.append(seating)
            for seat, entrant in enumerate(seating):
                counts[entrant][seat] += 1
    return per_table


# --------------------------------------------------------------------------- round robin


def _pack_rounds(tables: Sequence[Table]) -> list[list[Table]]:
    """Split tables into rounds where no entrant plays twice (first fit)."""
    rounds: list[list[Table]] = []
    busy: list[set[int]] = []
    for table in tables:
        for index, players in enumerate(busy):
            if players.isdisjoint(table):
                rounds[index].append(table)
                players.update(table)
                break
        else:
            rounds.append([table])
            busy.append(set(table))
    return rounds


def _circle_rounds(entrants: int) -> list[list[Table]]:
    """The circle method for pairs: n - 1 rounds (n even) where everyone plays once."""
    players: list[int | None] = list(range(entrants))
    if entrants % 2:
        players.append(None)  # whoever meets None sits out
    count = len(players)
    rounds: list[list[tuple[int, ...]]] = []
    for _ in range(count - 1):
        pairs = [(players[i], players[count - 1 - i]) for i in range(count // 2)]
        rounds.append([(min(a, b), max(a, b)) for a, b in pairs if a is not None and b is not None])
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def _pairs(table: Sequence[int]) -> Iterable[tuple[int, int]]:
    return itertools.combinations(table, 2)


def _design_round(
    players: list[int], seats: int, met: list[list[int]], rng: random.Random
) -> list[Table]:
    """Split ``players`` into tables that repeat as few past pairings as possible."""
    rng.shuffle(players)
    tables = [players[i : i + seats] for i in range(0, len(players), seats)]
    for _ in range(DESIGN_PASSES):
        improved = False
        for i, j in itertools.combinations(range(len(tables)), 2):
            first, second = tables[i], tables[j]
            for x in range(seats):
                for y in range(seats):
                    a, b = first[x], second[y]
                    # What swapping a and b changes in the sum of past meetings.
                    delta = 0
                    for other in first:
                        if other != a:
                            delta += met[b][other] - met[a][other]
                    for other in second:
                        if other != b:
                            delta += met[a][other] - met[b][other]
                    if delta < 0:
                        first[x], second[y] = b, a
                        improved = True
        if not improved:
            break
    return [tuple(sorted(table)) for table in tables]


def _byes_for(
    candidates: Sequence[int], count: int, byes: Mapping[int, int], rng: random.Random
) -> list[int]:
    """``count`` entrants to sit out: those with the fewest byes, at random among equals."""
    if not count:
        return []
    shuffled = list(candidates)
    rng.shuffle(shuffled)
    return sorted(shuffled, key=lambda e: byes.get(e, 0))[:count]


def balanced_design_rounds(entrants: int, seats: int) -> int:
    """Rounds of a balanced design: enough for every pair to meet about once.

    With byes, rounded up to a multiple that gives everyone the same number
    of byes (so of games) when that at most doubles the rounds.
    """
    base = max(1, math.ceil((entrants - 1) / (seats - 1)))
    sitting = entrants % seats
    if sitting:
        step = entrants // math.gcd(entrants, sitting)
        even = math.ceil(base / step) * step
        if even <= 2 * base:
            return even
    return base


def _spread_rounds(tables: Sequence[Table], rounds: int) -> list[list[Table]]:
    """Deal tables into ``rounds`` rounds, each entrant's tables spread evenly over them."""
    load: list[Counter[int]] = [Counter() for _ in range(rounds)]
    spread: list[list[Table]] = [[] for _ in range(rounds)]
    for table in tables:
        index = min(
            range(rounds),
            key=lambda r: (max(load[r][e] for e in table), len(spread[r]), r),
        )
        spread[index].append(table)
        load[index].update(table)
    return [r for r in spread if r]


@dataclass(frozen=True)
class RoundPlan:
    """One round: its tables and who sits out."""

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()


def round_robin(
    entrants: int,
    seats: int,
    *,
    max_tables: int,
    rounds: int | None = None,
    seed: int = 0,
) -> list[RoundPlan]:
    """Rounds of a round robin between entrants 0..n-1.

    Every combination of ``seats`` entrants is a table when there are at most
    ``max_tables``, packed into rounds where nobody plays twice (or spread
    over ``rounds`` rounds). Otherwise
    ``rounds`` rounds (default :func:`balanced_design_rounds`) each split the
    entrants into tables, the ``entrants % seats`` byes going to those with
    the fewest so far and pairs meeting as evenly as a local search makes it.
    """
    check_entrants(entrants, seats)
    if math.comb(entrants, seats) <= max_tables:
        combos = list(itertools.combinations(range(entrants), seats))
        if rounds is not None:
            packed = _spread_rounds(combos, rounds)
        elif seats == 2:
            packed = _circle_rounds(entrants)
        else:
            packed = _pack_rounds(combos)
        return [RoundPlan(tuple(r)) for r in packed]
    rounds = round_robin_rounds(entrants, seats, max_tables=max_tables, rounds=rounds)
    rng = random.Random(seed)
    met = [[0] * entrants for _ in range(entrants)]
    byes: Counter[int] = Counter()
    plans = []
    for _ in range(rounds):
        out = _byes_for(range(entrants), entrants % seats, byes, rng)
        byes.update(out)
        sitting_out = set(out)
        players = [e for e in range(entrants) if e not in sitting_out]
        tables = _design_round(players, seats, met, rng)
        for table in tables:
            for a, b in _pairs(table):
                met[a][b] += 1
                met[b][a] += 1
        plans.append(RoundPlan(tuple(tables), tuple(sorted(out))))
    return plans


def round_robin_rounds(
    entrants: int, seats: int, *, max_tables: int, rounds: int | None = None
) -> int:
    """How many rounds :func:`round_robin` returns for these settings."""
    check_entrants(entrants, seats)
    total = math.comb(entrants, seats)
    if total <= max_tables:
        if rounds is not None:
            return min(rounds, total)
        if seats == 2:
            return entrants - 1 + entrants % 2
        return len(_pack_rounds(list(itertools.combinations(range(entrants), seats))))
    per_round = entrants // seats
    if per_round > max_tables:
        raise FormatError(
            f"one round of {entrants} entrants needs {per_round} tables, over the cap of "
            f"{max_tables}."
        )
    if rounds is None:
        rounds = balanced_design_rounds(entrants, seats)
    return min(rounds, max_tables // per_round)


def check_entrants(entrants: int, seats: int) -> None:
    if seats < 2:
        raise FormatError(f"tables need at least 2 seats, got {seats}.")
    if entrants < seats:
        raise FormatError(
            f"{entrants} entrants cannot fill a table of {seats} seats: "
            f"add at least {seats - entrants} more."
        )


# --------------------------------------------------------------------------- swiss


def swiss_byes(
    order: Sequence[int], seats: int, byes: Mapping[int, int]
) -> tuple[list[int], list[int]]:
    """(players, byes): the ``len % seats`` lowest-placed entrants with the fewest byes sit out."""
    count = len(order) % seats
    if not count:
        return list(order), []
    # Lowest placed first among those with the fewest byes.
    ranked = sorted(range(len(order)), key=lambda i: (byes.get(order[i], 0), -i))
    out = {order[i] for i in ranked[:count]}
    return [e for e in order if e not in out], sorted(out)


def _swiss_search(
    players: list[int],
    seats: int,
    played: Collection[frozenset[int]],
    allowed: int,
    budget: list[int],
) -> list[Table] | None:
    """Depth first: the first player with the nearest others, within ``allowed`` repeats."""
    if not players:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    head, rest = players[0], players[1:]
    for others in itertools.combinations(range(len(rest)), seats - 1):
        table = (head, *(rest[i] for i in others))
        repeat = frozenset(table) in played
        if repeat and not allowed:
            continue
        chosen = set(others)
        remaining = [p for i, p in enumerate(rest) if i not in chosen]
        found = _swiss_search(remaining, seats, played, allowed - repeat, budget)
        if found is not None:
            return [table, *found]
        if budget[0] < 0:
            return None
    return None


def _improve_seats(
    tables: list[Table],
    seats: int,
    played: Collection[frozenset[int]],
    history: Mapping[int, Sequence[int]],
) -> list[Table]:
    """Swap entrants between neighbouring tables when it evens seats and repeats no more tables.

    Round by round, two entrants who both need the same seat may be drawn
    together; a swap with the next table (the nearest scores) avoids that,
    as colour preferences do in chess pairings.
    """
    tables = list(tables)

    def cost(table: Table) -> tuple[int, int]:
        return _seating_cost(table, history, seats)[0]

    for _ in range(4):
        improved = False
        for i in range(len(tables) - 1):
            first, second = tables[i], tables[i + 1]
            now_worst = max(cost(first)[0], cost(second)[0])
            now = (now_worst, cost(first)[1] + cost(second)[1])
            repeats = (frozenset(first) in played) + (frozenset(second) in played)
            for x, y in itertools.product(range(seats), repeat=2):
                a = (*first[:x], second[y], *first[x + 1 :])
                b = (*second[:y], first[x], *second[y + 1 :])
                if (frozenset(a) in played) + (frozenset(b) in played) > repeats:
                    continue
                cost_a, cost_b = cost(a), cost(b)
                if (max(cost_a[0], cost_b[0]), cost_a[1] + cost_b[1]) < now:
                    tables[i], tables[i + 1] = a, b
                    improved = True
                    break
        if not improved:
            break
    return tables


def swiss_tables(
    players: Sequence[int],
    seats: int,
    played: Collection[frozenset[int]],
    *,
    history: Mapping[int, Sequence[int]] | None = None,
    node_limit: int = SWISS_NODE_LIMIT,
) -> list[Table]:
    """Tables of neighbours in ``players`` (best first), repeating no played table if possible.

    The search tries the nearest neighbours first, so tables follow the
    standings; it allows one more repeated table at a time only when no split
    with fewer exists (or the search budget ran out, on huge fields). With
    ``history`` (seat counts so far; give it when a table's games do not fill
    whole rotations) neighbouring tables swap entrants to even the seats.
    """
    if len(players) % seats:
        raise FormatError(f"{len(players)} players do not split into tables of {seats}.")
    for allowed in range(len(players) // seats + 1):
        found = _swiss_search(list(players), seats, played, allowed, [node_limit])
        if found is not None:
            if history is not None:
                found = _improve_seats(found, seats, played, history)
            return found
    # Unreachable: with every table allowed to repeat, the first split is taken.
    raise AssertionError("no Swiss split found")


# --------------------------------------------------------------------------- knockout


@dataclass(frozen=True)
class KnockoutRound:
    """One knockout round: its tables, how many go through from each, and the byes."""

    entrants: int
    tables: int
    advance: tuple[int, ...]
    byes: int

    @property
    def survivors(self) -> int:
        return sum(self.advance) + self.byes


def knockout_plan(entrants: int, seats: int, advance: int) -> list[KnockoutRound]:
    """The rounds from ``entrants`` to one final table of ``seats`` (whose rank 1 wins).

    Each round plays as many tables as it can without leaving fewer than a
    full final table; the last table lets through more than ``advance`` when
    needed to land exactly on the final's size. Top seeds take the byes.
    """
    check_entrants(entrants, seats)
    if not 1 <= advance < seats:
        raise FormatError(
            f"the top k of each table advance: k must be 1-{seats - 1} for {seats} seats, "
            f"got {advance}."
        )
    plan = []
    remaining = entrants
    while remaining > seats:
        drop = seats - advance
        to_eliminate = remaining - seats
        tables = min(remaining // seats, math.ceil(to_eliminate / drop))
        eliminated = min(to_eliminate, tables * drop)
        last_drop = eliminated - (tables - 1) * drop
        advances = (advance,) * (tables - 1) + (seats - last_drop,)
        plan.append(KnockoutRound(remaining, tables, advances, remaining - tables * seats))
        remaining -= eliminated
    plan.append(KnockoutRound(seats, 1, (1,), 0))
    return plan


def knockout_tables(
    order: Sequence[int], round_plan: KnockoutRound
) -> tuple[list[Table], list[int]]:
    """(tables, byes) of a knockout round; ``order`` is best first.

    The best ``byes`` entrants go through; the others are dealt to the tables
    in a serpentine (1-2-3-3-2-1 ...), so every table gets strong and weak seeds.
    """
    if len(order) != round_plan.entrants:
        raise FormatError(f"this round expects {round_plan.entrants} entrants, got {len(order)}.")
    byes = list(order[: round_plan.byes])
    players = order[round_plan.byes :]
    count = round_plan.tables
    tables: list[list[int]] = [[] for _ in range(count)]
    for index, entrant in enumerate(players):
        row, column = divmod(index, count)
        tables[column if row % 2 == 0 else count - 1 - column].append(entrant)
    return [tuple(table) for table in tables], byes


# --------------------------------------------------------------------------- points


def competition_ranks(scores: Sequence[float]) -> list[int]:
    """Rank 1 is the highest score; equal scores share the better rank (1, 2, 2, 4)."""
    return [1 + sum(other > score for other in scores) for score in scores]


def table_points(ranks: Sequence[int], points_per_rank: Sequence[float]) -> list[float]:
    """Points of each seat: tied seats share the points of the places they fill.

    Ranks are competition ranks (1, 2, 2, 4): two seats tied at rank 2 split
    the points of places 2 and 3, so a table always hands out the same total.
    """
    tied = Counter(ranks)
    points = []
    for rank in ranks:
        places = points_per_rank[rank - 1 : rank - 1 + tied[rank]]
        points.append(sum(places) / len(places))
    return points


def default_points(seats: int) -> list[int]:
    """Seats - 1 points for first place down to 0 for last: one per seat beaten."""
    return list(range(seats - 1, -1, -1))


def check_points(points_per_rank: Sequence[float], seats: int) -> None:
    if len(points_per_rank) != seats:
        raise FormatError(
            f"points per rank need one value per seat ({seats}), got {len(points_per_rank)}."
        )
    if any(p < 0 for p in points_per_rank):
        raise FormatError("points per rank cannot be negative.")
    if any(a < b for a, b in itertools.pairwise(points_per_rank)):
        raise FormatError("points per rank must not grow with the rank (first gets the most).")
