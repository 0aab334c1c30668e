"""The rule data of `royale` (seed 003) and the pure helpers its game uses.

Every number the rulebook or ``RULES.md`` gives lives in :class:`RoyaleRules`
and :class:`TileRules`; the game code reads them from there. The helpers
(card pairs, sole majority, Black Box splits, payments to the bank) are pure
functions so tests can check them on the rulebook's worked examples.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

# --------------------------------------------------------------------- tiles


class Tile(enum.IntEnum):
    """The 16 tile sides: physical tile ``t // 2`` (A..H), side ``t % 2 + 1``."""

    LUCKY_PUNCH = 0  # A1
    JACKPOT = 1  # A2
    PRIME_TIME = 2  # B1
    FIFTY_FIFTY = 3  # B2
    HIGH_FIVE = 4  # C1
    BAD_LUCK = 5  # C2
    PAY_DAY = 6  # D1
    POWER_PLAY = 7  # D2
    NO_ENTRY = 8  # E1
    KNOCKOUT = 9  # E2
    BLOCK_IT = 10  # F1
    HANDICAP = 11  # F2
    BLACK_BOX = 12  # G1
    DOUBLE_DOWN = 13  # G2
    NICE_DICE = 14  # H1
    MY_CHOICE = 15  # H2


PHYSICAL_TILES = 8
TILE_CODES: tuple[str, ...] = tuple(f"{'ABCDEFGH'[t // 2]}{t % 2 + 1}" for t in range(16))
TILE_NAMES: tuple[str, ...] = (
    "Lucky Punch",
    "Jackpot",
    "Prime Time",
    "Fifty Fifty",
    "High Five",
    "Bad Luck",
    "Pay Day",
    "Power Play",
    "No Entry!",
    "Knockout?",
    "Block It!",
    "Handicap",
    "Black Box",
    "Double Down",
    "Nice Dice",
    "My Choice",
)
TILE_BY_CODE: Mapping[str, Tile] = {TILE_CODES[tile]: Tile(tile) for tile in Tile}


@dataclass(frozen=True)
class Reward:
    """What a tile pays: chips from the supply and money credited from the bank."""

    chips: int = 0
    money: int = 0

    def __bool__(self) -> bool:
        return bool(self.chips or self.money)

    def to_json(self) -> dict[str, int]:
        return {"chips": self.chips, "money": self.money}


NOTHING = Reward()

#: My Choice faces that are not plain rewards.
ACTIVATE, MOVE, GOLD = "activate", "move", "gold"
#: Handicap reward spaces, in the order of its actions.
HANDICAP_KINDS: tuple[str, ...] = ("chip", "money", "move")


def _rewards(*values: Reward) -> tuple[Reward, ...]:
    return values


@dataclass(frozen=True)
class TileRules:
    """Every number the 16 tiles use (RULES.md; *configurable*)."""

    #: Extra black dice rolled by Jackpot, Prime Time, Fifty Fifty and My Choice.
    black_dice: int = 2
    #: Lucky Punch: tokens one may hide -> reward when the guess is wrong.
    lucky_punch: Mapping[int, Reward] = field(
        default_factory=lambda: {
            1: Reward(chips=2),
            2: Reward(money=30_000),
            3: Reward(money=40_000),
        }
    )
    #: Jackpot: a sum in ``jackpot_sums`` or a double takes the pot.
    jackpot_start: int = 30_000
    jackpot_step: int = 10_000
    jackpot_max: int = 80_000
    jackpot_sums: tuple[int, ...] = (7,)
    jackpot_doubles: bool = True
    #: Fifty Fifty: the reward below the counter after the 1st, 2nd, ... roll.
    fifty_fifty: tuple[Reward, ...] = field(
        default_factory=lambda: _rewards(
            NOTHING,
            Reward(chips=1),
            Reward(money=30_000),
            Reward(money=40_000),
            Reward(money=60_000),
        )
    )
    #: High Five: count (a Biggie counts 2) that takes the token, and its reward.
    high_five_count: int = 5
    high_five: Reward = Reward(money=100_000)
    #: Bad Luck: paid to the bank at round end by the seats with the fewest dice.
    bad_luck: int = 50_000
    #: Pay Day: money per casino holding a die of the activating seat.
    pay_day_per_casino: int = 10_000
    #: Amounts of Pay Day and Black Box paid as chips instead of money.
    paid_as_chips: Mapping[int, int] = field(default_factory=lambda: {10_000: 1, 20_000: 2})
    #: No Entry!: rewards of the track spaces, in order; the track is cyclic.
    no_entry_track: tuple[Reward, ...] = field(
        default_factory=lambda: _rewards(
            Reward(chips=2), NOTHING, Reward(money=30_000), NOTHING, Reward(chips=1), NOTHING
        )
    )
    #: Knockout?: most dice of one seat in the bar (a Biggie counts 1 here).
    knockout_bar: int = 2
    #: Block It!: grey dice groups on the tile.
    block_it_groups: tuple[int, ...] = (1, 1, 2, 2, 3)
    #: Handicap: grey dice put on casinos 1..6 at setup.
    handicap_setup: tuple[int, ...] = (1, 1, 1, 2, 2, 2)
    #: Handicap: reward spaces per kind (chip, money, move) and their rewards.
    handicap_spaces: Mapping[str, int] = field(
        default_factory=lambda: {"chip": 2, "money": 3, "move": 4}
    )
    handicap_rewards: Mapping[str, Reward] = field(
        default_factory=lambda: {"chip": Reward(chips=1), "money": Reward(money=30_000)}
    )
    #: Black Box: the tokens' values, and the pile sizes a split may have.
    black_box_tokens: tuple[int, ...] = (60_000, 20_000, 20_000, 0, 0, 0)
    black_box_sizes: tuple[tuple[int, int], ...] = ((3, 3), (4, 2), (5, 1))
    #: Double Down: the side bet pays like a casino, from the bank.
    double_down: tuple[int, ...] = (60_000, 30_000)
    #: Nice Dice: reward of a die on the space of face 1..6.
    nice_dice: tuple[Reward, ...] = field(
        default_factory=lambda: _rewards(
            Reward(chips=1),
            Reward(chips=2),
            Reward(money=30_000),
            Reward(money=40_000),
            Reward(money=50_000),
            Reward(money=60_000),
        )
    )
    #: My Choice: what each face of a black die does.
    my_choice: tuple[Reward | str, ...] = (
        Reward(chips=1),
        Reward(chips=2),
        Reward(money=30_000),
        ACTIVATE,
        MOVE,
        GOLD,
    )
    #: My Choice: the golden space's money, paid at round end.
    golden: int = 60_000

    def as_reward(self, amount: int) -> Reward:
        """An amount paid as chips where the rules say so (Pay Day, Black Box)."""
        chips = self.paid_as_chips.get(amount)
        return Reward(chips=chips) if chips is not None else Reward(money=amount)


# ------------------------------------------------------------------ the game

ROYALE_CARDS: Mapping[int, int] = {
    30_000: 11,
    40_000: 11,
    50_000: 13,
    60_000: 15,
    70_000: 13,
    80_000: 11,
    90_000: 9,
    100_000: 7,
}


@dataclass(frozen=True)
class RoyaleRules:
    """The component data of `royale` (RULES.md and seed 003; *configurable*)."""

    cards: Mapping[int, int] = field(default_factory=lambda: dict(ROYALE_CARDS))
    rounds: int = 3
    dice_per_seat: int = 7
    biggies_per_seat: int = 1
    #: Money cards dealt to each casino each round (as one pair).
    cards_per_casino: int = 2
    chips_at_start: int = 2
    chips_per_round: int = 2
    chip_value: int = 10_000
    #: Neutral dice rolled onto the casinos each round (option ``neutral_dice``).
    neutral_dice: int = 8
    #: Tiles per round by default, and the most (one per casino).
    default_tiles: int = 3
    max_tiles: int = 6
    tiles: TileRules = field(default_factory=TileRules)

    @property
    def card_list(self) -> tuple[int, ...]:
        return tuple(value for value, count in sorted(self.cards.items()) for _ in range(count))


ROYALE_RULES = RoyaleRules()

# ------------------------------------------------------------ pure helpers


def arrange_pairs(cards: Sequence[int], casinos: int = 6, per_casino: int = 2) -> list[list[int]]:
    """Card groups for casinos 1..``casinos`` (index 0 is casino 1), each sorted high first.

    ``cards`` are in dealing order; consecutive cards form a pair. The pair
    with the highest sum goes to the highest casino; equal sums: the pair with
    the higher single card goes higher. A short deal (pile exhausted) leaves
    the lowest casinos with fewer cards, or none.
    """
    groups = [
        sorted(cards[start : start + per_casino], reverse=True)
        for start in range(0, min(len(cards), casinos * per_casino), per_casino)
    ]
    groups.sort(key=lambda group: (sum(group), group), reverse=True)
    groups += [[] for _ in range(casinos - len(groups))]
    return groups[::-1]


def sole_majority(counts: Sequence[int]) -> int:
    """The owner with strictly more dice than every other owner, or -1."""
    best, owner, shared = 0, -1, False
    for index, count in enumerate(counts):
        if count > best:
            best, owner, shared = count, index, False
        elif count == best and count:
            shared = True
    return -1 if shared else owner


def bank_payment(money: int, chips: int, due: int, chip_value: int) -> tuple[int, int]:
    """A payment of ``due`` to the bank: returns (money paid, chips taken).

    Money pays first. When it is short, chips (worth ``chip_value`` each) are
    taken, as few as cover the rest or all the seat has; the bank gives change
    in money, never in chips. Nobody goes below zero: money paid may be less
    than ``due`` and is negative when the change exceeds what was short.
    """
    if money >= due:
        return due, 0
    needed = -(-(due - money) // chip_value)
    taken = min(chips, needed)
    change = max(0, money + taken * chip_value - due)
    return money - change, taken


Split = tuple[tuple[int, ...], tuple[int, ...]]


def black_box_splits(tokens: Sequence[int], sizes: Sequence[tuple[int, int]]) -> tuple[Split, ...]:
    """Every way to split the tokens into two piles, in a stable order.

    Piles are multisets sorted high first. Pile 1 is the larger; for equal
    sizes both orders are listed, since the picker takes pile 1 or pile 2.
    """
    ordered = sorted(tokens, reverse=True)
    splits: list[Split] = []
    for first, second in sizes:
        if first + second != len(ordered):
            raise ValueError(f"a {first}+{second} split needs {first + second} tokens")
        seen: set[tuple[int, ...]] = set()
        for chosen in combinations(range(len(ordered)), first):
            pile = tuple(ordered[index] for index in chosen)
            if pile in seen:
                continue
            seen.add(pile)
            rest = list(ordered)
            for value in pile:
                rest.remove(value)
            splits.append((pile, tuple(rest)))
    return tuple(splits)


def token_text(value: int) -> str:
    return f"{value // 1000}k" if value else "0"


def split_action(split: Split) -> str:
    first, second = split
    return "split " + "+".join(map(token_text, first)) + "/" + "+".join(map(token_text, second))


__all__ = [
    "ACTIVATE",
    "GOLD",
    "HANDICAP_KINDS",
    "MOVE",
    "NOTHING",
    "PHYSICAL_TILES",
    "ROYALE_CARDS",
    "ROYALE_RULES",
    "TILE_BY_CODE",
    "TILE_CODES",
    "TILE_NAMES",
    "Reward",
    "RoyaleRules",
    "Split",
    "Tile",
    "TileRules",
    "arrange_pairs",
    "bank_payment",
    "black_box_splits",
    "sole_majority",
    "split_action",
]
