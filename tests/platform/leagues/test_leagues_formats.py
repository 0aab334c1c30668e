"""League formats and scoring as pure functions: property tests over entrant and seat counts."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladders.elo import INITIAL_RATING
from arena.leagues import formats, scoring

SEATS = st.integers(min_value=2, max_value=5)


def _games_per_entrant(tables: Sequence[Sequence[int]]) -> Counter[int]:
    return Counter(e for table in tables for e in table)


def _spread(counts: dict[int, list[int]]) -> int:
    return max(max(row) - min(row) for row in counts.values())


# --------------------------------------------------------------------------- round robin


@settings(max_examples=60, deadline=None)
@given(data=st.data(), seats=SEATS, games=st.integers(min_value=1, max_value=6))
def test_full_round_robin_is_complete_fair_and_seat_balanced(
    data: st.DataObject, seats: int, games: int
) -> None:
    entrants = data.draw(st.integers(min_value=seats, max_value=seats + 5))
    plans = formats.round_robin(entrants, seats, max_tables=10_000)
    tables = [t for plan in plans for t in plan.tables]
    # Every combination exactly once: complete.
    assert sorted(tables) == list(itertools.combinations(range(entrants), seats))
    # Nobody plays twice in a round.
    for plan in plans:
        players = [e for t in plan.tables for e in t]
        assert len(players) == len(set(players))
    # Same number of games for everyone; each seat used as evenly as possible.
    seatings = formats.seat_tables(tables, seats=seats, games_per_table=games)
    flat = [s for table_games in seatings for s in table_games]
    per_entrant = Counter(e for s in flat for e in s)
    assert set(per_entrant.values()) == {math.comb(entrants - 1, seats - 1) * games}
    assert _spread(formats.seat_counts(flat, seats)) <= 1
    for table, table_games in zip(tables, seatings, strict=True):
        assert len(table_games) == games
        assert all(sorted(s) == sorted(table) for s in table_games)


def test_pairs_round_robin_uses_the_circle_method() -> None:
    plans = formats.round_robin(10, 2, max_tables=1000)
    assert len(plans) == 9
    assert all(len(plan.tables) == 5 for plan in plans)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), seats=SEATS, seed=st.integers(0, 1000))
def test_balanced_design_above_the_cap(data: st.DataObject, seats: int, seed: int) -> None:
    entrants = data.draw(st.integers(min_value=seats * 2, max_value=40))
    cap = max(entrants // seats, math.comb(entrants, seats) // 3)
    plans = formats.round_robin(entrants, seats, max_tables=cap, seed=seed)
    assert len(plans) == formats.round_robin_rounds(entrants, seats, max_tables=cap)
    tables = [t for plan in plans for t in plan.tables]
    assert len(tables) <= cap
    for plan in plans:
        # Everyone plays once per round or sits out; byes are the remainder.
        players = [e for t in plan.tables for e in t]
        assert len(players) == len(set(players))
        assert len(plan.byes) == entrants % seats
        assert set(players) | set(plan.byes) == set(range(entrants))
    played = _games_per_entrant(tables)
    games = {e: played[e] for e in range(entrants)}
    # Everyone plays, unless the cap leaves the whole design fewer seats than entrants
    # (5 entrants in pairs, 3 tables: one round of two tables); byes still go round.
    if len(tables) * seats >= entrants:
        assert min(games.values()) >= 1
    assert max(games.values()) - min(games.values()) <= 1
    if (len(plans) * (entrants % seats)) % entrants == 0:
        assert len(set(games.values())) == 1
    # Pairs meet as evenly as the local search gets: no pair more than 2 over the mean.
    met = Counter(p for t in tables for p in itertools.combinations(sorted(t), 2))
    mean = sum(met.values()) / math.comb(entrants, 2)
    assert max(met.values()) <= math.ceil(mean) + 2
    seatings = formats.seat_tables(tables, seats=seats, games_per_table=1)
    assert _spread(formats.seat_counts([s for g in seatings for s in g], seats)) <= 1


def test_balanced_design_of_64_entrants_meets_every_pair_about_once() -> None:
    plans = formats.round_robin(64, 4, max_tables=500, seed=1)
    tables = [t for plan in plans for t in plan.tables]
    met = Counter(p for t in tables for p in itertools.combinations(sorted(t), 2))
    assert len(plans) == 21
    assert set(_games_per_entrant(tables).values()) == {21}
    assert max(met.values()) <= 2
    # 21 rounds x 3 opponents = 63 meetings each: most pairs meet exactly once.
    assert len(met) >= 0.85 * math.comb(64, 2)


def test_round_robin_rejects_impossible_settings() -> None:
    with pytest.raises(formats.FormatError, match="3 entrants cannot fill a table of 4 seats"):
        formats.round_robin(3, 4, max_tables=100)
    with pytest.raises(formats.FormatError, match="over the cap of 10"):
        formats.round_robin(100, 4, max_tables=10)


# --------------------------------------------------------------------------- seats


@settings(max_examples=80, deadline=None)
@given(
    games=st.lists(
        st.lists(st.integers(0, 11), min_size=3, max_size=3, unique=True), min_size=1, max_size=40
    )
)
def test_balance_seats_is_equitable(games: list[list[int]]) -> None:
    balanced = formats.balance_seats([tuple(g) for g in games], 3)
    for before, after in zip(games, balanced, strict=True):
        assert sorted(before) == sorted(after)
    assert _spread(formats.seat_counts(balanced, 3)) <= 1


def test_duplicate_deal_seats_everyone_once_per_seat() -> None:
    deal = formats.duplicate_deal(["a", "b", "c", "d"])
    assert deal[0] == ("a", "b", "c", "d")
    assert len(deal) == 4
    for seat in range(4):
        assert sorted(s[seat] for s in deal) == ["a", "b", "c", "d"]
    seatings = formats.seat_tables([(0, 1, 2)], seats=3, games_per_table=2, duplicate=True)
    assert len(seatings[0]) == 6
    assert set(formats.seat_counts(seatings[0], 3)[0]) == {2}


# --------------------------------------------------------------------------- swiss


def _partitions(players: list[int], seats: int) -> Iterator[list[tuple[int, ...]]]:
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for others in itertools.combinations(rest, seats - 1):
        remaining = [p for p in rest if p not in others]
        for tail in _partitions(remaining, seats):
            yield [(head, *others), *tail]


def _min_repeats(players: list[int], seats: int, played: set[frozenset[int]]) -> int:
    return min(sum(frozenset(t) in played for t in split) for split in _partitions(players, seats))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), seats=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_swiss_repeats_no_table_while_avoidable(data: st.DataObject, seats: int, seed: int) -> None:
    entrants = data.draw(st.integers(min_value=seats, max_value=9 if seats < 4 else 10))
    rounds = data.draw(st.integers(1, 7))
    games = data.draw(st.integers(1, 3))
    rng = random.Random(seed)
    score: Counter[int] = Counter()
    byes: Counter[int] = Counter()
    played: set[frozenset[int]] = set()
    history: dict[int, list[int]] = {}
    for _ in range(rounds):
        order = sorted(range(entrants), key=lambda e: (-score[e], e))
        players, out = formats.swiss_byes(order, seats, byes)
        assert len(out) == entrants % seats
        byes.update(out)
        leftover = games % seats
        tables = formats.swiss_tables(players, seats, played, history=history if leftover else None)
        assert sorted(e for t in tables for e in t) == sorted(players)
        repeats = sum(frozenset(t) in played for t in tables)
        assert repeats == _min_repeats(players, seats, played)
        if not played:
            # Tables follow the standings: neighbours sit together.
            assert tables == [tuple(players[i : i + seats]) for i in range(0, len(players), seats)]
        seatings = formats.seat_tables(tables, seats=seats, games_per_table=games, history=history)
        for table, table_games in zip(tables, seatings, strict=True):
            played.add(frozenset(table))
            for seating in table_games:
                for seat, entrant in enumerate(seating):
                    history.setdefault(entrant, [0] * seats)[seat] += 1
            for entrant in table:
                score[entrant] += rng.random()
    # Byes rotate: nobody sits out twice before everyone sat out once.
    assert max(byes.values(), default=0) - min(byes[e] for e in range(entrants)) <= 1
    # Round by round, seats stay within 2 of each other (1 is not always reachable).
    assert _spread(history) <= 2


def test_swiss_allows_a_repeat_only_when_forced() -> None:
    # Four players, pairs, after three rounds every pair met: a repeat is unavoidable.
    played = {frozenset(p) for p in itertools.combinations(range(4), 2)}
    tables = formats.swiss_tables([0, 1, 2, 3], 2, played)
    assert len(tables) == 2
    fresh = formats.swiss_tables([0, 1, 2, 3], 2, {frozenset({0, 1})})
    assert frozenset(fresh[0]) != frozenset({0, 1})


# --------------------------------------------------------------------------- knockout


@settings(max_examples=80, deadline=None)
@given(data=st.data(), seats=SEATS)
def test_knockout_plan_ends_with_one_full_final_table(data: st.DataObject, seats: int) -> None:
    entrants = data.draw(st.integers(min_value=seats, max_value=300))
    advance = data.draw(st.integers(1, seats - 1))
    plan = formats.knockout_plan(entrants, seats, advance)
    assert plan[0].entrants == entrants
    assert plan[-1] == formats.KnockoutRound(seats, 1, (1,), 0)
    for current, following in itertools.pairwise(plan):
        assert current.tables >= 1
        assert current.survivors == following.entrants
        assert current.tables * seats + current.byes == current.entrants
        # Every table lets through k, the last one possibly more (never everyone).
        assert all(a == advance for a in current.advance[:-1])
        assert advance <= current.advance[-1] < seats
    order = list(range(entrants))
    tables, byes = formats.knockout_tables(order, plan[0])
    assert byes == order[: plan[0].byes]
    assert sorted(e for t in tables for e in t) == order[plan[0].byes :]
    assert all(len(t) == seats for t in tables)


def test_knockout_serpentine_spreads_the_seeds() -> None:
    plan = formats.knockout_plan(8, 4, 2)[0]
    tables, byes = formats.knockout_tables(list(range(8)), plan)
    assert byes == []
    assert tables == [(0, 3, 4, 7), (1, 2, 5, 6)]


def test_knockout_rejects_bad_advance() -> None:
    with pytest.raises(formats.FormatError, match="k must be 1-3 for 4 seats, got 4"):
        formats.knockout_plan(8, 4, 4)


# --------------------------------------------------------------------------- scoring


def test_tied_ranks_share_the_points_of_their_places() -> None:
    assert formats.table_points([1, 2, 3, 4], [3, 2, 1, 0]) == [3, 2, 1, 0]
    assert formats.table_points([1, 1, 3, 4], [3, 2, 1, 0]) == [2.5, 2.5, 1, 0]
    assert formats.table_points([1, 2, 2, 2], [3, 2, 1, 0]) == [3, 1, 1, 1]
    assert scoring.walkover_ranks([False, True, False, False]) == [1, 4, 1, 1]


def test_check_points_messages() -> None:
    with pytest.raises(formats.FormatError, match="one value per seat"):
        formats.check_points([1, 0], 4)
    with pytest.raises(formats.FormatError, match="must not grow"):
        formats.check_points([0, 1], 2)


def _unit(fixture: int, *seats: tuple[int, int, int]) -> scoring.Unit:
    return scoring.deal_unit(
        fixture,
        [[scoring.GameSeat(entry, money, rank, False) for entry, money, rank in seats]],
        duplicate=False,
    )


def test_standings_points_then_money_then_head_to_head_then_rating() -> None:
    units = [
        _unit(1, (1, 500, 1), (2, 100, 2)),
        _unit(2, (3, 400, 1), (4, 300, 2)),
        _unit(3, (2, 700, 1), (1, 300, 2)),
        _unit(4, (4, 900, 1), (3, 0, 2)),
    ]
    lines = scoring.standings({1: 1, 2: 2, 3: 3, 4: 4}, units, points_per_rank=[1, 0])
    # All on 1 point: money decides (1: 800, 2: 800, 4: 1200, 3: 400); 1 and 2 tie on money
    # and split their head-to-head, so the league rating decides between them.
    assert (lines[0].entry, lines[-1].entry) == (4, 3)
    assert {lines[1].entry, lines[2].entry} == {1, 2}
    assert lines[1].rating >= lines[2].rating
    assert sum(line.points for line in lines) == 4
    assert all(line.rated == 2 for line in lines)


def test_head_to_head_breaks_a_tie_on_points_and_money() -> None:
    units = [_unit(1, (1, 0, 1), (2, 0, 2)), _unit(2, (2, 0, 1), (3, 0, 2))]
    # 1 and 2: one point and no money each; 1 beat 2, so 1 is ahead (2 is the top seed).
    lines = scoring.standings({1: 2, 2: 1, 3: 3}, units, points_per_rank=[1, 0])
    assert [line.entry for line in lines] == [1, 2, 3]
    assert (lines[0].head_to_head, lines[1].head_to_head) == (1.0, 0.0)


def test_duplicate_deal_ranks_by_money_over_the_deal() -> None:
    games = [
        [scoring.GameSeat(1, 100, 1, False), scoring.GameSeat(2, 50, 2, False)],
        [scoring.GameSeat(2, 300, 1, False), scoring.GameSeat(1, 20, 2, False)],
    ]
    unit = scoring.deal_unit(7, games, duplicate=True)
    by_entry = {s.entry: s for s in unit.seats}
    assert by_entry[2].money == 350 and by_entry[2].rank == 1
    assert by_entry[1].money == 120 and by_entry[1].rank == 2
    assert by_entry[1].games == 2
    # A forfeit anywhere in the deal ranks last, whatever the money.
    games[1][0] = scoring.GameSeat(2, 300, 2, True)
    unit = scoring.deal_unit(7, games, duplicate=True)
    assert {s.entry: s.rank for s in unit.seats} == {1: 1, 2: 2}


def test_walkovers_give_points_but_no_rating() -> None:
    unit = scoring.deal_unit(
        1,
        [[scoring.GameSeat(1, 0, 1, False), scoring.GameSeat(2, 0, 2, True)]],
        duplicate=False,
        played=False,
    )
    lines = scoring.standings({1: 1, 2: 2}, [unit], points_per_rank=[1, 0])
    assert (lines[0].entry, lines[0].points, lines[0].rating) == (1, 1.0, INITIAL_RATING)
    assert (lines[1].forfeits, lines[1].rated) == (1, 0)
