"""The observation a bot receives, as typed dictionaries: one per rule system.

These are :class:`typing.TypedDict` classes matching ``docs/observation.md``
field for field (``tests/bots_sdk/test_observations.py`` checks real
observations of every rule system against them, and the docs' tables against
their keys). They cost nothing at run time: import them for the type checker
only, so the bot starts without loading :mod:`typing`::

    from bots_sdk import Bot

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from bots_sdk.observations import ClassicObservation

    class MyBot(Bot):
        def act(self, observation: ClassicObservation) -> str:
            top = observation["casinos"][0]["notes"]  # list[int | "rainbow"]
            ...

:data:`Observation` is the union of the five; ``observation["rules"]``
tells them apart (a type checker narrows on it). Objects keyed by seat keep
JSON's string keys (``"0"``, ``"neutral"``): :mod:`bots_sdk.seats` reads them
by seat number.
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired[...] from
# evaluated annotations only (Python 3.11), and a checker reads them at run time.
from typing import Literal, NotRequired, TypedDict

#: A note (money card) in dollars, or a rainbow card (``boulevard``).
Note = int | Literal["rainbow"]
#: A card-game dice card: its face, ``"D"`` for a double card (``"5D"``).
Card = str
#: A chip-card colour: ``blue``, ``gold``, ``green``, ``pink``, ``silver``.
Colour = str
#: The decisions of every rule system (``docs/actions.md``, *By decision*).
DecisionName = Literal[
    "place",
    "kick",
    "chip",
    "select",
    "power",
    "hide",
    "guess",
    "gamble",
    "close",
    "bar",
    "block",
    "handicap",
    "move",
    "add",
    "split",
    "pile",
    "bet",
    "nice",
    "choose",
    "activate",
    "gold",
    "none",
]
#: A die's kind in royale's tiles.
DieKind = Literal["die", "biggie"]


class SeatResult(TypedDict):
    """One seat's final standing (``result``)."""

    seat: int
    money: int
    notes: int
    rank: int


class _Common(TypedDict):
    """The fields every rule system has (``rules`` and ``casinos`` are each system's)."""

    options: dict[str, bool | int]
    seats: int
    seat: int
    round: int
    rounds: int
    start_player: int
    to_move: list[int]
    decision: DecisionName
    current_player: int | None
    money: list[int]
    won: list[list[Note]]
    pile_size: int
    legal_actions: list[str]
    result: list[SeatResult] | None


# ------------------------------------------------------------------ chips


class Chips(TypedDict):
    """Option ``chips`` (``classic``, ``cardgame``): the chip cards."""

    at_casinos: list[list[Colour]]
    #: Per seat, colour -> cards held (colours with none left out).
    held: list[dict[Colour, int]]
    deck_size: int
    casino: int | None


# ------------------------------------------------------------------ dice systems


class Roll(TypedDict):
    """The current turn's roll: the roller and its faces by kind."""

    seat: int
    #: kind (``die``, ``biggie``, ``kicker``, ``neutral``; kinds not rolled left out) -> faces.
    dice: dict[str, list[int]]


class KickContext(TypedDict):
    """During a ``kick`` decision: where the kicker landed and how many are left."""

    casino: int
    kicks_left: int


class DiceHand(TypedDict):
    """The dice a seat holds, by kind (all four keys)."""

    die: int
    biggie: int
    kicker: int
    neutral: int


class SlotDie(TypedDict):
    """One die on the slot machine, in placing order."""

    owner: int | Literal["neutral"]
    face: int
    biggie: bool
    this_turn: bool


class DiceCasino(TypedDict):
    """A casino of the dice systems (7 is the slot machine)."""

    casino: int
    notes: list[Note]
    #: owner (``"0"``.., ``"neutral"``) -> dice, a Biggie counting 2.
    dice: dict[str, int]
    #: seat (``"0"``..) -> Biggies among those dice.
    biggies: dict[str, int]
    #: The slot machine only.
    faces: NotRequired[list[SlotDie]]


class _DiceFields(_Common):
    casinos: list[DiceCasino]
    notes_won: list[int]
    chips: Chips | None
    roll: Roll | None
    kick: KickContext | None
    hands: list[DiceHand]
    kickers_used: list[int]
    neutral_out: int
    last_roller: int
    discarded: list[Note]


class ClassicObservation(_DiceFields):
    """``classic``: Las Vegas, the dice game."""

    rules: Literal["classic"]


class BoulevardObservation(_DiceFields):
    """``boulevard``: classic with the expansion modules."""

    rules: Literal["boulevard"]


class SixdiceObservation(_DiceFields):
    """``sixdice``: the three-round edition with 6 dice and a Biggie."""

    rules: Literal["sixdice"]


# ------------------------------------------------------------------ card game


class CardCasino(TypedDict):
    """A casino of the card game."""

    casino: int
    notes: list[int]
    #: seat (``"0"``..) -> the cards it placed here, ascending.
    cards: dict[str, list[Card]]
    #: seat (``"0"``..) -> its dice total here, a double card counting 2.
    dice: dict[str, int]


class CardgameObservation(_Common):
    """``cardgame``: Las Vegas, the card game."""

    rules: Literal["cardgame"]
    casinos: list[CardCasino]
    notes_won: list[int]
    chips: Chips | None
    turn: int
    turns: int
    hand: list[Card]
    hand_sizes: list[int]
    draw_sizes: list[int]
    discards: list[Card]
    discard_sizes: list[int]
    chosen: list[int]
    my_choice: str | None
    finished: list[bool]
    cards_placed: list[int]


# ------------------------------------------------------------------ royale


class RoyaleCasino(TypedDict):
    """A casino of royale."""

    casino: int
    cards: list[int]
    #: owner (``"0"``.., ``"neutral"``, ``"grey"``) -> dice, a Biggie counting 2.
    dice: dict[str, int]
    #: seat (``"0"``..) -> Biggies among those dice.
    biggies: dict[str, int]
    tile: str | None
    closed: bool


class RoyaleContext(TypedDict, total=False):
    """What the current decision is about; the keys depend on the decision."""

    casino: int
    hider: int
    activator: int
    winner: int
    splitter: int


class PendingStep(TypedDict):
    """One step the engine still has to do (``pending``)."""

    step: Literal["turn", "knockout", "knockout_back", "before_payout", "payout", "round_end"]
    seat: NotRequired[int]
    opponent: NotRequired[int]
    activator: NotRequired[int]
    casino: NotRequired[int]


class Placement(TypedDict):
    """This turn's placement in royale."""

    casino: int
    face: int
    die: int
    biggie: int


class RoyaleDice(TypedDict):
    """Regular dice and Biggies (a hand, the bar, the side bet)."""

    die: int
    biggie: int


class FiftyFifty(TypedDict):
    step: int
    sum: int


class PowerPlay(TypedDict):
    holder: int | None
    ready: bool


class NoEntry(TypedDict):
    closed: int | None
    track: int


class HandicapSpaces(TypedDict):
    chip: int
    money: int
    move: int


class PlacedDie(TypedDict):
    """A die on a Nice Dice space or the golden space."""

    owner: int
    die: DieKind


class LuckyPunch(TypedDict):
    hider: int
    #: Shown to the hider only; ``None`` for the others.
    tokens: int | None


class BlackBox(TypedDict):
    casino: int
    splitter: int
    sizes: list[int]
    #: Shown to the splitter only.
    split: str | None


class RoyaleTiles(TypedDict):
    """The tiles' state in royale."""

    jackpot: int
    fifty_fifty: FiftyFifty
    high_five: int | None
    power_play: PowerPlay
    no_entry: NoEntry
    bar: list[RoyaleDice]
    block_it: list[int]
    handicap: HandicapSpaces
    side_bet: list[RoyaleDice]
    #: face (``"1"``..``"6"``) -> the die on that space.
    nice_dice: dict[str, PlacedDie]
    golden: PlacedDie | None
    lucky_punch: LuckyPunch | None
    black_box: BlackBox | None
    bad_luck: list[int]


class RoyaleObservation(_Common):
    """``royale``: Las Vegas Royale."""

    rules: Literal["royale"]
    casinos: list[RoyaleCasino]
    context: RoyaleContext
    pending: list[PendingStep]
    #: This turn's rolled dice not placed yet: ``die`` and ``biggie`` faces; ``{}`` between turns.
    roll: dict[str, list[int]]
    placed: Placement | None
    black_dice: list[int]
    hands: list[RoyaleDice]
    chips: list[int]
    bank_credit: list[int]
    bank_cards: list[int]
    under_pile: list[int]
    round_winners: list[int | None]
    tiles: RoyaleTiles


#: The observation of any rule system; ``observation["rules"]`` says which.
Observation = (
    ClassicObservation
    | BoulevardObservation
    | SixdiceObservation
    | CardgameObservation
    | RoyaleObservation
)

#: Rule system id -> its observation type.
OBSERVATION_TYPES: dict[str, type] = {
    "classic": ClassicObservation,
    "boulevard": BoulevardObservation,
    "sixdice": SixdiceObservation,
    "cardgame": CardgameObservation,
    "royale": RoyaleObservation,
}
