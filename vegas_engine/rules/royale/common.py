"""What the `royale` game and its tile effects share.

The decisions (:class:`RoyaleDecision`), the frames of the game's machine,
the action strings, the setup resolved for one game (:class:`RoyaleSetup`)
and how owners and decision contexts are named in observations. The game
(:mod:`.game`), the tiles' effects (:mod:`.effects`) and the position checks
(:mod:`.positions`) import them from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ...description import GameDescription
from ...state import Action, Decision
from .tiles import PHYSICAL_TILES, RoyaleRules, Split, black_box_splits, split_action


class RoyaleDecision(Decision):
    """What a seat decides in `royale` (the module docstring lists each one's actions)."""

    PLACE = "place"
    """Place all dice of one rolled face on its casino, or pay a chip to place nothing."""

    POWER = "power"
    """Power Play: the token holder rolls as usual, or turns one remaining die and places it."""

    HIDE = "hide"
    """Lucky Punch: hide 1, 2 or 3 tokens; only the hider sees the count until the guess."""

    GUESS = "guess"
    """Lucky Punch: the hider's left neighbour guesses how many tokens are hidden."""

    GAMBLE = "gamble"
    """Fifty Fifty: stop and take the reward, or call higher or lower and roll again."""

    CLOSE = "close"
    """No Entry!: close another casino with the token, or keep it where it is."""

    BAR = "bar"
    """Knockout?: an opponent puts one of its remaining dice into the bar."""

    BLOCK = "block"
    """Block It!: take one group of grey dice and choose the casino it goes to."""

    HANDICAP = "handicap"
    """Handicap: move a grey die from a casino onto a reward space, or leave them."""

    MOVE = "move"
    """Turn a remaining die to any face and place it, or take a die back (Handicap, My Choice)."""

    ADD = "add"
    """Prime Time: the casino's winner adds none, one or both black dice to their casinos."""

    SPLIT = "split"
    """Black Box: the winner's left neighbour splits the tokens into two face-down piles."""

    PILE = "pile"
    """Black Box: the casino's winner takes one of the two face-down piles."""

    BET = "bet"
    """Double Down: move any of the seat's dice from this casino to the side bet."""

    NICE = "nice"
    """Nice Dice: put a die just rolled or placed here on the space of its face, or not."""

    CHOOSE = "choose"
    """My Choice: pick the face of one of the two black dice."""

    ACTIVATE = "activate"
    """My Choice face 4: activate another casino's tile."""

    GOLD = "gold"
    """My Choice face 6: put a remaining die on the golden $60,000 space."""

    CHANCE = "chance"
    """Nobody decides: chance acts (explicit chance only; see ``State.chance_outcomes``)."""

    NONE = "none"
    """Nobody decides: the game is over."""


D = RoyaleDecision

DIE, BIGGIE = 0, 1
KIND_NAMES = ("die", "biggie")
CASINOS = 6

# Frames of the machine (first element of each tuple in ``_stack``).
OP_TURN, OP_KNOCKOUT, OP_KNOCKOUT_BACK, OP_BEFORE, OP_PAYOUT, OP_ROUND_END = range(6)
OP_NAMES = ("turn", "knockout", "knockout_back", "before_payout", "payout", "round_end")
Frame = tuple[int, ...]

#: The named fields of each frame in observations' ``pending``.
FRAME_FIELDS: dict[int, tuple[str, ...]] = {
    OP_TURN: ("seat",),
    OP_KNOCKOUT: ("opponent", "activator", "casino"),
    OP_KNOCKOUT_BACK: ("seat",),
    OP_BEFORE: ("casino",),
    OP_PAYOUT: ("casino",),
    OP_ROUND_END: (),
}

# Actions.
PLACE_ACTIONS: tuple[Action, ...] = tuple(f"place {face}" for face in range(7))
PLACE_FACE: dict[Action, int] = {PLACE_ACTIONS[face]: face for face in range(1, 7)}
PASS, SKIP, ROLL = "pass", "skip", "roll"
STOP, HIGHER, LOWER = "stop", "higher", "lower"
KEEP = "keep"
TURN_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(f"turn {KIND_NAMES[kind]} {face}" for face in range(7)) for kind in (DIE, BIGGIE)
)
RETURN_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(f"return {casino} {KIND_NAMES[kind]}" for casino in range(7)) for kind in (DIE, BIGGIE)
)
CLOSE_ACTIONS: tuple[Action, ...] = tuple(f"close {casino}" for casino in range(7))
BAR_ACTIONS: tuple[Action, ...] = ("bar die", "bar biggie")
TAKE_NONE = "take none"
ADD_NONE = "add none"
NICE_NONE = "nice none"
PILE_ACTIONS: tuple[Action, ...] = ("pile 1", "pile 2")
GOLD_ACTIONS: tuple[Action, ...] = ("gold die", "gold biggie")


@dataclass(frozen=True)
class RoyaleSetup:
    """The rules resolved for one game: seat count and options applied."""

    rules: RoyaleRules
    seats: int
    tiles: int
    neutral_dice: int
    cards: tuple[int, ...]
    splits: tuple[Split, ...]
    split_actions: tuple[Action, ...]
    split_index: Mapping[Action, int]
    hide_actions: tuple[Action, ...]
    guess_actions: tuple[Action, ...]

    @classmethod
    def build(cls, rules: RoyaleRules, description: GameDescription) -> RoyaleSetup:
        options = description.options
        tiles = int(options.get("tiles", rules.default_tiles))
        neutral = bool(options.get("neutral_dice", False))
        key = (id(rules), description.seats, tiles, neutral)
        cached = _SETUPS.get(key)
        if cached is not None and cached.rules is rules:
            return cached
        setup = cls._build(rules, description.seats, tiles, neutral)
        _SETUPS[key] = setup
        return setup

    @classmethod
    def _build(cls, rules: RoyaleRules, seats: int, tiles: int, neutral: bool) -> RoyaleSetup:
        if not 0 <= tiles <= min(rules.max_tiles, CASINOS, PHYSICAL_TILES):
            raise ValueError(f"tiles must be 0..{rules.max_tiles}, got {tiles}")
        splits = black_box_splits(rules.tiles.black_box_tokens, rules.tiles.black_box_sizes)
        actions = tuple(split_action(split) for split in splits)
        counts = sorted(rules.tiles.lucky_punch)
        return cls(
            rules=rules,
            seats=seats,
            tiles=tiles,
            neutral_dice=rules.neutral_dice if neutral else 0,
            cards=rules.card_list,
            splits=splits,
            split_actions=actions,
            split_index={action: index for index, action in enumerate(actions)},
            hide_actions=tuple(f"hide {count}" for count in counts),
            guess_actions=tuple(f"guess {count}" for count in counts),
        )


_SETUPS: dict[tuple[int, int, int, bool], RoyaleSetup] = {}


def owner_name(owner: int, seats: int) -> int | str:
    if owner < seats:
        return owner
    return "neutral" if owner == seats else "grey"


def owner_value(name: int | str, seats: int) -> int:
    if name == "neutral":
        return seats
    if name == "grey":
        return seats + 1
    return int(name)


def context_fields(ask: RoyaleDecision) -> tuple[str, ...]:
    """The named fields of a decision's context in observations."""
    if ask in (D.PLACE, D.POWER, D.NONE):
        return ()
    return {
        D.GUESS: ("hider", "casino"),
        D.BAR: ("activator", "casino"),
        D.SPLIT: ("casino", "winner"),
        D.PILE: ("casino", "splitter"),
    }.get(ask, ("casino",))


def named_values(fields: tuple[str, ...], values: Iterable[int]) -> dict[str, int]:
    """Engine frame values by name; casinos count 1-6 outside the engine, as everywhere."""
    return {
        name: value + 1 if name == "casino" else value
        for name, value in zip(fields, values, strict=True)
    }


def values_of(fields: tuple[str, ...], named: Mapping[str, int]) -> tuple[int, ...]:
    """The engine's values from an observation's named fields (see ``named_values``)."""
    return tuple(named[name] - 1 if name == "casino" else named[name] for name in fields)
