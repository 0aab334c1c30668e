"""The `royale` game (Las Vegas Royale, alea 2019, seed 003): basic game and tiles.

A round: up to six tiles go to casinos 1, 2, 3, ... (option ``tiles``), six
pairs of money cards go to the casinos by pair value, every seat gets chips,
and seats take turns from the start player: roll all dice in hand, then place
all dice of one face on that face's casino, or pay a chip to place nothing.
Placing dice on a casino holding a tile activates the tile. When nobody holds
dice, the before-payout tiles act, the casinos pay out one by one (with their
tiles' payouts), then round-end payments happen.

The flow is an explicit machine so that any seat can be asked anything at any
point: ``_stack`` holds what remains to do as small integer frames (public,
JSON-able, part of the observation), and one decision at a time is asked of
one named seat (:meth:`RoyaleGame.to_move`). A decision with a single legal
action is applied by the state and logged as forced.

The game's flow names no tile: each tile side's rules (its set-up, what
activating it does, the decisions it asks with their legal actions, its part
of the payout and of the round end) are in its own module of :mod:`.effects`,
and the game calls them through the tables there (:data:`.effects.EFFECTS`).
It reads the board state two tiles leave (No Entry!'s closed casino, the Power
Play token and its casino), offers the shared ``move`` decision itself, and
its observation lists every tile's state. The decisions and action strings
are in :mod:`.common`, the position checks in :mod:`.positions`.

Actions (stable strings; listed in this order by :meth:`legal_actions`):

=========  ============================  ===========================================
decision   who                           actions
=========  ============================  ===========================================
place      the roller                    ``place F`` (rolled faces whose casino is
                                         open), ``pass`` (pay a chip); ``skip`` only
                                         when no rolled face can be placed
power      Power Play holder, turn start ``roll``, ``turn die F``, ``turn biggie F``
hide       Lucky Punch activator         ``hide 1`` .. ``hide 3``
guess      the activator's left seat     ``guess 1`` .. ``guess 3``
gamble     Fifty Fifty activator         ``stop``, ``higher``, ``lower``
close      No Entry! activator           ``close C`` ..., ``keep``
bar        each Knockout? opponent       ``bar die``, ``bar biggie``
block      Block It! activator           ``block SIZE C``
handicap   Handicap activator            ``take C chip|money|move``, ``take none``
move       Handicap / My Choice reward   ``turn die|biggie F``, ``return C die|biggie``
add        Prime Time winner             ``add none``, ``add F``, ``add F G``
split      left seat of Black Box winner ``split 60k+20k+0/20k+0+0`` (pile 1/pile 2)
pile       Black Box winner              ``pile 1``, ``pile 2``
bet        Double Down activator         ``bet K``, ``bet K biggie`` (K regular dice)
nice       Nice Dice activator           ``nice none``, ``nice F``, ``nice F biggie``
choose     My Choice activator           ``choose F`` (a black die's face)
activate   My Choice (face 4)            ``activate C``
gold       My Choice (face 6)            ``gold die``, ``gold biggie``
=========  ============================  ===========================================

Events (besides ``round_start``, ``stock``, ``neutral_roll``, ``roll``,
``decision``, ``place``, ``payout``, ``round_end``, ``game_end``): see
:data:`ROYALE_EVENTS`.
"""

from __future__ import annotations

import functools
import random
from collections import deque
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

from ...chance import (
    ChanceMode,
    ExplicitChance,
    dice_outcomes,
    dice_text,
    faces_of,
    ordered_dice_outcomes,
)
from ...description import GameDescription
from ...errors import InvalidPositionError
from ...position import (
    CHANCE_POSITION,
    check_cards,
    check_fields,
    decision_of,
    finish,
    restore,
)
from ...state import Action, JsonDict, OneSeatState, SeatResult, rank_seats
from ..dice import payout_event, rank_casino, roll_json
from ..rolls import NO_TAPE, RollTape
from .common import (
    BIGGIE,
    CASINOS,
    DIE,
    FRAME_FIELDS,
    KIND_NAMES,
    OP_BEFORE,
    OP_NAMES,
    OP_PAYOUT,
    OP_ROUND_END,
    OP_TURN,
    PASS,
    PLACE_ACTIONS,
    PLACE_FACE,
    RETURN_ACTIONS,
    SKIP,
    TURN_ACTIONS,
    Frame,
    RoyaleDecision,
    RoyaleSetup,
    context_fields,
    named_values,
    owner_name,
    owner_value,
    values_of,
)
from .effects import (
    ACTIVATIONS,
    BEFORE_PAYOUT,
    EFFECTS,
    RESETS,
    ROUND_END,
    tile_decisions,
    tile_frames,
)
from .effects.base import Choice, Handler, Legal, Op
from .effects.power_play import check_power
from .positions import POSITION_KEYS, check_royale_position
from .tiles import (
    HANDICAP_KINDS,
    PHYSICAL_TILES,
    TILE_BY_CODE,
    TILE_CODES,
    TILE_NAMES,
    Reward,
    RoyaleRules,
    Tile,
    arrange_pairs,
    bank_payment,
)

D = RoyaleDecision

#: Event types this rule system adds to the shared ones, with their fields.
ROYALE_EVENTS: Mapping[str, tuple[str, ...]] = {
    # A tile put at a casino at round start: code ("A1") and name.
    "tile_setup": ("casino", "tile", "name"),
    # Chips every seat receives at a round start.
    "chips_dealt": ("round", "chips"),
    # A seat paid a chip to place nothing; ``chips`` is what it has left.
    "chip_pass": ("seat", "chips"),
    # A seat activated the tile at a casino (by placing there, or My Choice).
    "activate": ("seat", "casino", "tile"),
    # The black extra dice were rolled for a tile.
    "black_dice": ("seat", "tile", "dice"),
    # Chips from the supply and money credited from the bank to a seat.
    "reward": ("seat", "chips", "money", "source"),
    # A payment to the bank: ``due``; ``money`` actually paid (net of change); chips taken.
    "bank_payment": ("seat", "due", "money", "chips", "source"),
    # Lucky Punch resolved: tokens hidden, the guess, whether the hider won.
    "lucky_punch": ("seat", "guesser", "tokens", "guess", "won"),
    # Jackpot roll: hit or not; ``pot`` is the pot after the roll.
    "jackpot_roll": ("seat", "dice", "hit", "pot"),
    # Fifty Fifty roll: ``call`` (null, higher, lower), dice, counter step,
    # outcome: rolled / won / lost / stop.
    "fifty_fifty": ("seat", "call", "dice", "step", "outcome"),
    # A token (High Five, Power Play) changed hands; holder null = back on the tile.
    "token": ("tile", "holder", "casino"),
    # No Entry!: the closed casino (null if kept) and the track position after.
    "no_entry": ("seat", "closed", "track"),
    # Dice moved: owner, kind (die, biggie, grey, black), count, from, to
    # (hand, casino C, bar, side bet, nice F, gold, tile, handicap KIND).
    "move": ("owner", "die", "count", "from", "to"),
    # Bad Luck: counts of the seats there, the seats that pay at round end.
    "bad_luck": ("casino", "counts", "seats"),
    # Black Box: both piles revealed and the pile taken (1 or 2).
    "black_box": ("casino", "winner", "splitter", "piles", "pick"),
    # Double Down side bet paid like a casino.
    "side_bet": ("casino", "counts", "cancelled", "awards"),
}


class RoyaleView(NamedTuple):
    """One seat's view of a Royale game, as :meth:`RoyaleGame.observe` shows it to
    that seat, in the state's own numbers (see :meth:`RoyaleGame.view`).

    Lists are the state's, not copied: a caller must not change them, and must
    read them before the next action. -1 stands for "none" where the state
    keeps it so (a seat, a tile, a casino, a Nice Dice face).
    """

    decision: str
    round: int
    start: int
    current: int | None
    to_move: tuple[int, ...]
    #: The decision's context by name (casinos 1-based), as in observations.
    context: dict[str, int]
    #: The unplaced dice of the roll: ``arena[face * 2 + kind]`` (kind 0 die, 1 Biggie).
    arena: list[int]
    #: This turn's placement: casino (0-based, -1 none), face, dice, Biggies.
    placed: list[int]
    black: list[int]
    #: Per casino: its money cards, dice per owner (seats, neutral, grey; a
    #: Biggie counts 2), Biggies per seat, its tile (-1 none).
    cards: list[list[int]]
    counts: list[list[int]]
    biggies: list[list[int]]
    tiles: list[int]
    #: The closed casino (0-based), -1 for none.
    closed: int
    hands: list[list[int]]
    chips: list[int]
    credit: list[int]
    money: list[int]
    won: list[list[int]]
    bank_cards: int
    under_pile: int
    pile_size: int
    round_winners: list[int]
    jackpot: int
    fifty_step: int
    fifty_sum: int
    high_five: int
    power: int
    power_ready: bool
    no_entry_track: int
    bar: list[list[int]]
    side_bet: list[list[int]]
    groups: list[int]
    handicap: list[int]
    #: Per face 0-5: the Nice Dice there as ``owner << 1 | biggie``, -1 for none.
    nice: list[int]
    gold: int
    #: During a guess: the hider and the tokens (None unless the seat is the hider).
    lucky_punch: tuple[int, int | None] | None
    #: While a Black Box split is piled: the two piles' sizes.
    black_box_sizes: tuple[int, int] | None
    bad_luck: list[int]


class RoyaleGame(OneSeatState):
    """A game of `royale`."""

    _decision: RoyaleDecision
    # The tiles' state, each set to rest by its tile's ``reset`` (see effects/):
    _lp_tokens: int  # lucky_punch
    _jackpot: int  # jackpot
    _fifty_step: int  # fifty_fifty
    _fifty_sum: int
    _high_five: int  # high_five
    _bad_luck: list[int]  # bad_luck
    _power: int  # power_play
    _power_ready: bool
    _power_casino: int
    _closed: int  # no_entry (read everywhere: a closed casino takes and gives nothing)
    _no_entry_track: int
    _bar: list[list[int]]  # knockout
    _groups: list[int]  # block_it
    _handicap: list[int]  # handicap
    _bb_split: int  # black_box
    _side: list[list[int]]  # double_down
    _nice: list[int]  # nice_dice: face -> owner * 2 + kind
    _gold: int  # my_choice: owner * 2 + kind

    __slots__ = (
        "_arena",
        "_bad_luck",
        "_bank_cards",
        "_bar",
        "_bb_split",
        "_big",
        "_black",
        "_cards",
        "_chips",
        "_closed",
        "_counts",
        "_credit",
        "_ctx",
        "_current",
        "_decision",
        "_fifty_step",
        "_fifty_sum",
        "_gold",
        "_groups",
        "_handicap",
        "_hands",
        "_high_five",
        "_jackpot",
        "_legal",
        "_log",
        "_lp_tokens",
        "_n",
        "_nice",
        "_no_entry_track",
        "_pile",
        "_placed",
        "_power",
        "_power_casino",
        "_power_ready",
        "_rolls",
        "_round",
        "_round_winners",
        "_setup",
        "_side",
        "_stack",
        "_start",
        "_tape",
        "_tile_at",
        "_tiles",
        "_under",
        "_won",
        "description",
        "seed",
    )

    def __init__(
        self, description: GameDescription, seed: int, rules: RoyaleRules, log: bool
    ) -> None:
        setup = RoyaleSetup.build(rules, description)
        self._init_empty(description, seed, setup)
        self._rng = random.Random(seed)
        pile = list(setup.cards)
        self._rng.shuffle(pile)
        self._pile: deque[int] = deque(pile)
        self._log: list[JsonDict] | None = [] if log else None
        self._record = None
        self._begin()

    def _init_empty(self, description: GameDescription, seed: int, setup: RoyaleSetup) -> None:
        n = setup.seats
        self.description = description
        self.seed = seed
        self._setup = setup
        self._n = n
        self._rng_shared = False
        self._pending_chance = None
        # Rolls made this round per stream: seats' rolls, then their black dice, then neutral dice.
        self._rolls = [0] * (2 * n + 1)
        self._tape = NO_TAPE
        self._log = None
        self._record = None
        self._pile = deque()
        self._under: list[int] = []
        self._bank_cards: list[int] = []
        self._cards: list[list[int]] = [[] for _ in range(CASINOS)]
        self._won: list[list[int]] = [[] for _ in range(n)]
        self._credit = [0] * n
        self._chips = [0] * n
        self._hands: list[list[int]] = [[0, 0] for _ in range(n)]
        self._counts: list[list[int]] = [[0] * (n + 2) for _ in range(CASINOS)]
        self._big: list[list[int]] = [[0] * n for _ in range(CASINOS)]
        self._round = 0
        self._start = 0
        self._current = 0
        self._decision = D.NONE
        self._legal: tuple[Action, ...] = ()
        self._ctx: tuple[int, ...] = ()
        self._stack: list[Frame] = []
        self._arena = [0] * 14  # unplaced dice of this turn's roll: face * 2 + kind
        # This turn's placement: casino, face, dice, biggies.
        self._placed: list[int] = [-1, 0, 0, 0]
        self._black: list[int] = []
        self._round_winners = [-1] * CASINOS
        self._tiles = [-1] * CASINOS
        self._tile_at = [-1] * 16
        self._reset_tiles()

    # ----------------------------------------------------------------- API

    def clone(self) -> RoyaleGame:
        other = RoyaleGame.__new__(RoyaleGame)
        other.description = self.description
        other.seed = self.seed
        other._setup = self._setup
        other._n = self._n
        self._share_random(other)
        other._tape = self._tape
        other._rolls = self._rolls[:]
        other._log = None if self._log is None else self._log[:]
        other._record = None if self._record is None else self._record.copy()
        other._pile = self._pile.copy()
        other._under = self._under[:]
        other._bank_cards = self._bank_cards[:]
        other._cards = [cards[:] for cards in self._cards]
        other._won = [cards[:] for cards in self._won]
        other._credit = self._credit[:]
        other._chips = self._chips[:]
        other._hands = [hand[:] for hand in self._hands]
        other._counts = [row[:] for row in self._counts]
        other._big = [row[:] for row in self._big]
        other._round = self._round
        other._start = self._start
        other._current = self._current
        other._decision = self._decision
        other._legal = self._legal
        other._ctx = self._ctx
        other._stack = self._stack[:]
        other._arena = self._arena[:]
        other._placed = self._placed[:]
        other._black = self._black[:]
        other._round_winners = self._round_winners[:]
        other._tiles = self._tiles[:]
        other._tile_at = self._tile_at[:]
        other._closed = self._closed
        other._jackpot = self._jackpot
        other._fifty_step = self._fifty_step
        other._fifty_sum = self._fifty_sum
        other._high_five = self._high_five
        other._power = self._power
        other._power_ready = self._power_ready
        other._power_casino = self._power_casino
        other._no_entry_track = self._no_entry_track
        other._bar = [pair[:] for pair in self._bar]
        other._groups = self._groups[:]
        other._handicap = self._handicap[:]
        other._bb_split = self._bb_split
        other._side = [pair[:] for pair in self._side]
        other._nice = self._nice[:]
        other._gold = self._gold
        other._lp_tokens = self._lp_tokens
        other._bad_luck = self._bad_luck[:]
        return other

    def _new_tape(self) -> None:
        rules = self._setup.rules
        width = rules.dice_per_seat + rules.biggies_per_seat
        # Twice as many rows as dice: knocked-out and taken-back dice are rolled again.
        self._tape = RollTape(self._random(), self._n, width, 2 * width)
        self._rolls = [0] * (2 * self._n + 1)

    def _dice(self, stream: int, count: int) -> Sequence[int]:
        """Faces 0-5 of the next roll of ``stream`` (see ``_rolls``) on the round's tape."""
        row = self._rolls[stream]
        self._rolls[stream] = row + 1
        return self._tape.roll(stream, row, count)

    # ------------------------------------------------------------ the flow

    def _begin(self) -> None:
        self._start_round()
        self._run()
        self._settle()

    def _stop_for_chance(self) -> None:
        self._decision = D.CHANCE
        self._legal = ()

    def _start_log(self, position: JsonDict | None) -> None:
        self._log = None if position is None else [{"type": "position", "position": position}]

    def _do(self, action: Action, forced: bool) -> None:
        log = self._log
        if log is not None:
            log.append(
                {"type": "decision", "seat": self._current, "action": action, "forced": forced}
            )
        handler = _HANDLERS[self._decision]
        self._decision = D.NONE
        self._legal = ()
        handler(self, action)
        self._run()

    def _run(self) -> None:
        """Carry out pending frames until a seat must decide or the game is over."""
        stack = self._stack
        while self._decision is D.NONE and stack:
            frame = stack.pop()
            _OPS[frame[0]](self, frame)

    def _offer(self, ask: RoyaleDecision, seat: int, ctx: tuple[int, ...]) -> None:
        self._decision = ask
        self._current = seat
        self._ctx = ctx
        self._legal = _LEGAL[ask](self)

    def _emit(self, event: JsonDict) -> None:
        if self._log is not None:
            self._log.append(event)

    # ------------------------------------------------------------- rounds

    def _start_round(self) -> None:
        setup = self._setup
        rules = setup.rules
        n = self._n
        rng = self._random()
        log = self._log
        if log is not None:
            log.append(
                {"type": "round_start", "round": self._round + 1, "start_player": self._start}
            )
        # Tiles first (the rulebook's setup order), each on a random side.
        self._tiles = [-1] * CASINOS
        self._tile_at = [-1] * 16
        if setup.tiles:
            drawn = rng.sample(range(PHYSICAL_TILES), setup.tiles)
            tiles = [physical * 2 + rng.randrange(2) for physical in drawn]
            for casino in range(setup.tiles):
                if self._explicit:
                    self._chance_tile(tiles, casino)
                tile = tiles[casino]
                self._tiles[casino] = tile
                self._tile_at[tile] = casino
        # Money cards: pairs by value.
        dealt = [self._draw() for _ in range(CASINOS * rules.cards_per_casino)]
        self._cards = arrange_pairs(
            [card for card in dealt if card is not None], CASINOS, rules.cards_per_casino
        )
        if self._round == 0 and setup.tiles:
            # Main game: the cards of the later rounds are set aside, the rest is the bank.
            keep = (rules.rounds - 1) * CASINOS * rules.cards_per_casino
            pile = self._pile
            if self._explicit:  # chance picks the bank's cards one by one from the unseen pile
                while len(pile) > keep:
                    self._chance_card("bank", pile, -1, range(len(pile)), str, int)
                    self._bank_cards.append(pile.pop())
                self._bank_cards.sort()
            else:
                rest = list(pile)
                self._pile = deque(rest[:keep])
                self._bank_cards = sorted(rest[keep:])
        if log is not None:
            for casino in range(CASINOS):
                log.append({"type": "stock", "casino": casino + 1, "notes": self._cards[casino][:]})
        chips = rules.chips_at_start if self._round == 0 else rules.chips_per_round
        for seat in range(n):
            self._chips[seat] += chips
        if log is not None:
            log.append({"type": "chips_dealt", "round": self._round + 1, "chips": chips})
        # Dice and the round's tile state.
        for hand in self._hands:
            hand[0], hand[1] = rules.dice_per_seat, rules.biggies_per_seat
        self._counts = [[0] * (n + 2) for _ in range(CASINOS)]
        self._big = [[0] * n for _ in range(CASINOS)]
        self._reset_tiles()
        for casino in range(CASINOS):
            tile = self._tiles[casino]
            if tile >= 0:
                self._emit(
                    {
                        "type": "tile_setup",
                        "casino": casino + 1,
                        "tile": TILE_CODES[tile],
                        "name": TILE_NAMES[tile],
                    }
                )
        for casino in range(CASINOS):
            tile = self._tiles[casino]
            if tile >= 0 and (setup_tile := EFFECTS[tile].setup) is not None:
                setup_tile(self, casino)  # Handicap's grey dice
        self._new_tape()
        if setup.neutral_dice:
            count = setup.neutral_dice
            faces = sorted(face + 1 for face in self._dice(2 * n, count))
            if self._explicit:
                faces = faces_of(
                    self._chance(
                        lambda: dice_outcomes("neutral", count), dice_text("neutral", faces)
                    )
                )
            for face in faces:
                self._counts[face - 1][n] += 1
            if log is not None:
                log.append({"type": "neutral_roll", "seat": self._start, "dice": faces})
        self._stack.append((OP_TURN, self._start))

    def _reset_tiles(self) -> None:
        """Every tile's state to rest (the tiles at ``_tile_at`` in play), and this turn's."""
        for reset in RESETS:
            reset(self)
        self._round_winners = [-1] * CASINOS
        self._arena = [0] * 14
        self._placed = [-1, 0, 0, 0]
        self._black = []

    def _chance_tile(self, tiles: list[int], casino: int) -> None:
        """Chance sets ``tiles[casino]`` among the tile sides no earlier casino holds.

        The tape drew ``tiles`` (its own later draws keep their places unless
        chance took their tile first: then they take the tile chance left).
        """
        taken = {tile // 2 for tile in tiles[:casino]}
        free = [t for t in range(2 * PHYSICAL_TILES) if t // 2 not in taken]
        outcome = self._chance(
            lambda: {f"tile {TILE_CODES[t]}": Fraction(1, len(free)) for t in free},
            f"tile {TILE_CODES[tiles[casino]]}",
        )
        tile = TILE_BY_CODE[outcome.split()[1]]
        for later in range(casino + 1, len(tiles)):
            if tiles[later] // 2 == tile // 2:
                tiles[later] = tiles[casino]
        tiles[casino] = tile

    def _draw(self) -> int | None:
        """The top card of the pile; cards put under it come after the pile."""
        pile = self._pile
        if pile:
            if self._explicit:  # every card in the pile is unseen
                self._chance_card("card", pile, 0, range(len(pile)), str, int)
            return pile.popleft()
        if self._under:
            return self._under.pop(0)
        return None

    def _op_turn(self, frame: Frame) -> None:
        """Give the turn to ``frame[1]`` or the next seat after it holding dice."""
        seat = frame[1]
        n = self._n
        hands = self._hands
        self._arena = [0] * 14
        self._placed = [-1, 0, 0, 0]
        for step in range(n):
            candidate = (seat + step) % n
            hand = hands[candidate]
            if hand[0] or hand[1]:
                if candidate == self._power and self._power_ready:
                    self._power_ready = False
                    self._offer(D.POWER, candidate, ())
                else:
                    self._roll(candidate)
                return
        self._begin_payout()

    def _roll(self, seat: int) -> None:
        hand = self._hands[seat]
        arena = [0] * 14
        dice = hand[0]
        faces = self._dice(seat, dice + hand[1])
        if self._explicit:
            faces = self._chance_roll(faces, hand)
        for face in faces[:dice]:
            arena[face * 2 + 2] += 1
        for face in faces[dice:]:
            arena[face * 2 + 3] += 1
        self._arena = arena
        if self._log is not None:
            self._log.append({"type": "roll", "seat": seat, "dice": _roll_json(arena)})
        self._offer(D.PLACE, seat, ())

    def _begin_payout(self) -> None:
        stack = self._stack
        stack.append((OP_ROUND_END,))
        for casino in range(CASINOS - 1, -1, -1):
            stack.append((OP_PAYOUT, casino))
        for casino in range(CASINOS - 1, -1, -1):
            tile = self._tiles[casino]
            if tile >= 0 and BEFORE_PAYOUT[tile] is not None:  # Prime Time, Bad Luck
                stack.append((OP_BEFORE, casino))

    def _op_before(self, frame: Frame) -> None:
        """The before-payout hook of the tile at ``frame[1]``, unless its casino is closed."""
        casino = frame[1]
        if casino == self._closed:
            return
        before_payout = BEFORE_PAYOUT[self._tiles[casino]]
        if before_payout is not None:
            before_payout(self, casino)

    def _op_payout(self, frame: Frame) -> None:
        """The casino at ``frame[1]`` pays its cards, then its tile pays (if active)."""
        casino = frame[1]
        n = self._n
        cards = sorted(self._cards[casino], reverse=True)
        self._cards[casino] = []
        counts = self._counts[casino]
        ranked, cancelled = rank_casino(counts)
        awards = list(zip(ranked, cards, strict=False))
        returned: list[int] = []
        for owner, card in awards:
            if owner < n:
                self._won[owner].append(card)
                if self._round_winners[casino] < 0:
                    self._round_winners[casino] = owner
            else:
                returned.append(card)
        returned.extend(cards[len(awards) :])
        self._under.extend(returned)
        if self._log is not None:
            self._log.append(
                payout_event(
                    casino,
                    cards,
                    counts,
                    cancelled,
                    awards,
                    returned,
                    "pile",
                    lambda owner: owner_name(owner, n),
                )
            )
        tile = self._tiles[casino]
        if tile >= 0:
            effect = EFFECTS[tile]
            payout = effect.payout
            if payout is not None and (casino != self._closed or effect.pays_when_closed):
                payout(self, casino, awards)

    def _op_round_end(self, frame: Frame) -> None:
        setup = self._setup
        n = self._n
        for round_end in ROUND_END:  # My Choice's golden space, then Bad Luck
            round_end(self)
        if self._log is not None:
            self._log.append({"type": "round_end", "round": self._round + 1, "money": self._cash()})
        # Next start player: the best seat at the highest casino where a seat won.
        start = (self._start + 1) % n
        for casino in range(CASINOS - 1, -1, -1):
            if self._round_winners[casino] >= 0:
                start = self._round_winners[casino]
                break
        self._round += 1
        self._counts = [[0] * (n + 2) for _ in range(CASINOS)]
        self._big = [[0] * n for _ in range(CASINOS)]
        self._hands = [[0, 0] for _ in range(n)]
        if self._round == setup.rules.rounds:
            self._tiles = [-1] * CASINOS
            self._tile_at = [-1] * 16
            self._reset_tiles()
            self._decision = D.NONE
            self._legal = ()
            if self._log is not None:
                self._log.append(
                    {"type": "game_end", "result": [seat.to_json() for seat in self._standings()]}
                )
            return
        self._start = start
        self._start_round()

    # ------------------------------------------------------------ turns

    def _place(self, action: Action) -> None:
        seat = self._current
        if action == PASS:
            self._chips[seat] -= 1
            self._emit({"type": "chip_pass", "seat": seat, "chips": self._chips[seat]})
            self._stack.append((OP_TURN, (seat + 1) % self._n))
            return
        if action == SKIP:
            self._stack.append((OP_TURN, (seat + 1) % self._n))
            return
        face = PLACE_FACE[action]
        casino = face - 1
        arena = self._arena
        dice, biggies = arena[face * 2], arena[face * 2 + 1]
        arena[face * 2] = arena[face * 2 + 1] = 0
        hand = self._hands[seat]
        hand[0] -= dice
        hand[1] -= biggies
        self._counts[casino][seat] += dice + 2 * biggies
        if biggies:
            self._big[casino][seat] += biggies
        self._placed = [casino, face, dice, biggies]
        if self._log is not None:
            self._log_place(seat, casino, dice, biggies)
        self._stack.append((OP_TURN, (seat + 1) % self._n))
        if casino == self._power_casino:
            check_power(self)
        if self._tiles[casino] >= 0:
            self._activate(casino, seat)

    def _log_place(self, seat: int, casino: int, dice: int, biggies: int) -> None:
        placed = {"die": dice, "biggie": biggies}
        self._emit(
            {
                "type": "place",
                "seat": seat,
                "casino": casino + 1,
                "face": casino + 1,
                "dice": {name: count for name, count in placed.items() if count},
            }
        )

    def _add_die(self, owner: int, kind: int, casino: int) -> None:
        self._counts[casino][owner] += 2 if kind else 1
        if kind:
            self._big[casino][owner] += 1

    def _remove_die(self, owner: int, kind: int, casino: int) -> None:
        self._counts[casino][owner] -= 2 if kind else 1
        if kind:
            self._big[casino][owner] -= 1

    def _take_from_arena(self, kind: int) -> None:
        """A die of ``kind`` left the hand: forget it among this turn's unplaced dice."""
        arena = self._arena
        for face in range(1, 7):
            if arena[face * 2 + kind]:
                arena[face * 2 + kind] -= 1
                return

    # -------------------------------------------------------- activation

    def _activate(self, casino: int, seat: int) -> None:
        tile = self._tiles[casino]
        if tile < 0 or casino == self._closed:
            return
        self._emit(
            {"type": "activate", "seat": seat, "casino": casino + 1, "tile": TILE_CODES[tile]}
        )
        ACTIVATIONS[tile](self, casino, seat)

    def _chance_roll(self, faces: Sequence[int], hand: list[int]) -> list[int]:
        """The faces (0-5) chance gives a roll of ``hand``: one chance node per kind of die."""
        rolled: list[int] = []
        for kind, count in enumerate(hand):
            if count:
                name = KIND_NAMES[kind]
                tape = sorted(face + 1 for face in faces[len(rolled) : len(rolled) + count])
                outcome = self._chance(
                    functools.partial(dice_outcomes, name, count), dice_text(name, tape)
                )
                rolled += [face - 1 for face in faces_of(outcome)]
        return rolled

    def _roll_black(self, seat: int, tile: Tile) -> list[int]:
        count = self._setup.rules.tiles.black_dice
        dice = [face + 1 for face in self._dice(self._n + seat, count)]
        if self._explicit:  # in rolling order: the log shows them so
            dice = faces_of(
                self._chance(
                    lambda: ordered_dice_outcomes("black", count), dice_text("black", dice)
                )
            )
        self._black = dice
        self._emit({"type": "black_dice", "seat": seat, "tile": TILE_CODES[tile], "dice": dice})
        return dice

    # ------------------------------ moves (Handicap's, My Choice's rewards)

    def _move(self, action: Action) -> None:
        seat = self._current
        verb, first, second = action.split()
        if verb == "turn":
            kind = KIND_NAMES.index(first)
            casino = int(second) - 1
            self._hands[seat][kind] -= 1
            self._take_from_arena(kind)
            self._add_die(seat, kind, casino)
            if self._log is not None:
                self._log_place(seat, casino, 1 - kind, kind)
        else:
            casino = int(first) - 1
            kind = KIND_NAMES.index(second)
            self._remove_die(seat, kind, casino)
            self._hands[seat][kind] += 1
            self._emit_move(seat, second, 1, f"casino {casino + 1}", "hand")
        if casino == self._power_casino:
            check_power(self)

    # ------------------------------------------------------- legal actions

    def _legal_place(self) -> tuple[Action, ...]:
        arena = self._arena
        closed = self._closed
        legal = [
            PLACE_ACTIONS[face]
            for face in range(1, 7)
            if (arena[face * 2] or arena[face * 2 + 1]) and face - 1 != closed
        ]
        if not legal:
            return (SKIP,)
        if self._chips[self._current]:
            legal.append(PASS)
        return tuple(legal)

    def _turn_options(self, seat: int) -> list[Action]:
        hand = self._hands[seat]
        closed = self._closed
        return [
            TURN_ACTIONS[kind][face]
            for kind in (DIE, BIGGIE)
            if hand[kind]
            for face in range(1, 7)
            if face - 1 != closed
        ]

    def _move_options(self, seat: int) -> list[Action]:
        options = self._turn_options(seat)
        for kind in (DIE, BIGGIE):
            for casino in range(CASINOS):
                if casino == self._closed:
                    continue
                biggies = self._big[casino][seat]
                have = biggies if kind else self._counts[casino][seat] - 2 * biggies
                if have > 0:
                    options.append(RETURN_ACTIONS[kind][casino + 1])
        return options

    def _legal_move(self) -> tuple[Action, ...]:
        return tuple(self._move_options(self._current))

    def _legal_none(self) -> tuple[Action, ...]:
        return ()

    # ------------------------------------------------------------- money

    def _reward(self, seat: int, reward: Reward, source: str) -> None:
        if not reward:
            return
        self._chips[seat] += reward.chips
        self._credit[seat] += reward.money
        self._emit(
            {
                "type": "reward",
                "seat": seat,
                "chips": reward.chips,
                "money": reward.money,
                "source": source,
            }
        )

    def _pay_bank(self, seat: int, due: int, source: str) -> None:
        money = sum(self._won[seat]) + self._credit[seat]
        paid, chips = bank_payment(money, self._chips[seat], due, self._setup.rules.chip_value)
        self._credit[seat] -= paid
        self._chips[seat] -= chips
        self._emit(
            {
                "type": "bank_payment",
                "seat": seat,
                "due": due,
                "money": paid,
                "chips": chips,
                "source": source,
            }
        )

    def _emit_move(self, owner: int, die: str, count: int, source: str, target: str) -> None:
        if self._log is not None:
            self._log.append(
                {
                    "type": "move",
                    "owner": owner_name(owner, self._n),
                    "die": die,
                    "count": count,
                    "from": source,
                    "to": target,
                }
            )

    def _cash(self) -> list[int]:
        return [sum(cards) + credit for cards, credit in zip(self._won, self._credit, strict=True)]

    def _standings(self) -> list[SeatResult]:
        value = self._setup.rules.chip_value
        money = [
            cash + chips * value for cash, chips in zip(self._cash(), self._chips, strict=True)
        ]
        cards = [len(won) + chips for won, chips in zip(self._won, self._chips, strict=True)]
        return rank_seats(money, cards)

    # -------------------------------------------------------- observation

    def view(self, seat: int) -> RoyaleView:
        """What :meth:`observe` shows ``seat``, without building its JSON (see RoyaleView)."""
        n = self._n
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        over = self._decision is D.NONE
        lucky_punch = None
        if self._decision is D.GUESS:
            hider = self._ctx[0]
            lucky_punch = (hider, self._lp_tokens if seat == hider else None)
        black_box = None
        if self._decision is D.PILE:
            split = self._setup.splits[self._bb_split]
            black_box = (len(split[0]), len(split[1]))
        return RoyaleView(
            decision=self._decision.value,
            round=min(self._round + 1, self._setup.rules.rounds),
            start=self._start,
            current=None if over else self._current,
            to_move=self.to_move(),
            context={}
            if over or self._decision is D.CHANCE
            else named_values(context_fields(self._decision), self._ctx),
            arena=self._arena,
            placed=self._placed,
            black=self._black,
            cards=self._cards,
            counts=self._counts,
            biggies=self._big,
            tiles=self._tiles,
            closed=self._closed,
            hands=self._hands,
            chips=self._chips,
            credit=self._credit,
            money=self._cash(),
            won=self._won,
            bank_cards=len(self._bank_cards),
            under_pile=len(self._under),
            pile_size=len(self._pile),
            round_winners=self._round_winners,
            jackpot=self._jackpot,
            fifty_step=self._fifty_step,
            fifty_sum=self._fifty_sum,
            high_five=self._high_five,
            power=self._power,
            power_ready=self._power_ready,
            no_entry_track=self._no_entry_track,
            bar=self._bar,
            side_bet=self._side,
            groups=self._groups,
            handicap=self._handicap,
            nice=self._nice,
            gold=self._gold,
            lucky_punch=lucky_punch,
            black_box_sizes=black_box,
            bad_luck=self._bad_luck,
        )

    def observe(self, seat: int) -> JsonDict:
        n = self._n
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        over = self._decision is D.NONE
        rounds = self._setup.rules.rounds
        casinos: list[JsonDict] = []
        for casino in range(CASINOS):
            counts = self._counts[casino]
            tile = self._tiles[casino]
            casinos.append(
                {
                    "casino": casino + 1,
                    "cards": list(self._cards[casino]),
                    "dice": {str(owner_name(o, n)): c for o, c in enumerate(counts) if c},
                    "biggies": {str(o): b for o, b in enumerate(self._big[casino]) if b},
                    "tile": TILE_CODES[tile] if tile >= 0 else None,
                    "closed": casino == self._closed,
                }
            )
        lucky_punch = None
        if self._decision is D.GUESS:
            hider = self._ctx[0]
            lucky_punch = {
                "hider": hider,
                "tokens": self._lp_tokens if seat == hider else None,
            }
        black_box = None
        if self._decision is D.PILE:
            casino, splitter = self._ctx
            split = self._setup.splits[self._bb_split]
            black_box = {
                "casino": casino + 1,
                "splitter": splitter,
                "sizes": [len(split[0]), len(split[1])],
                "split": self._setup.split_actions[self._bb_split] if seat == splitter else None,
            }
        placed = self._placed
        return {
            "rules": self.description.rules,
            "options": dict(self.description.options),
            "seats": n,
            "seat": seat,
            "round": min(self._round + 1, rounds),
            "rounds": rounds,
            "start_player": self._start,
            "to_move": list(self.to_move()),
            "decision": self._decision.value,
            "current_player": None if over else self._current,
            # A finished game keeps its last frame internally; it has no decision to explain,
            # and neither has chance.
            "context": {}
            if over or self._decision is D.CHANCE
            else named_values(context_fields(self._decision), self._ctx),
            "legal_actions": list(self.legal_actions(seat)) if not over else [],
            "pending": [
                {"step": OP_NAMES[frame[0]], **named_values(FRAME_FIELDS[frame[0]], frame[1:])}
                for frame in self._stack
            ],
            "roll": _roll_json(self._arena),
            "placed": None
            if placed[0] < 0
            else {
                "casino": placed[0] + 1,
                "face": placed[1],
                "die": placed[2],
                "biggie": placed[3],
            },
            "black_dice": self._black[:],
            "hands": [{"die": hand[0], "biggie": hand[1]} for hand in self._hands],
            "chips": self._chips[:],
            "bank_credit": self._credit[:],
            "won": [cards[:] for cards in self._won],
            "money": self._cash(),
            "casinos": casinos,
            "bank_cards": self._bank_cards[:],
            "under_pile": self._under[:],
            "pile_size": len(self._pile),
            "round_winners": [w if w >= 0 else None for w in self._round_winners],
            "tiles": {
                "jackpot": self._jackpot,
                "fifty_fifty": {"step": self._fifty_step, "sum": self._fifty_sum},
                "high_five": self._high_five if self._high_five >= 0 else None,
                "power_play": {
                    "holder": self._power if self._power >= 0 else None,
                    "ready": self._power_ready,
                },
                "no_entry": {
                    "closed": self._closed + 1 if self._closed >= 0 else None,
                    "track": self._no_entry_track,
                },
                "bar": [{"die": pair[0], "biggie": pair[1]} for pair in self._bar],
                "block_it": self._groups[:],
                "handicap": dict(zip(HANDICAP_KINDS, self._handicap, strict=True)),
                "side_bet": [{"die": pair[0], "biggie": pair[1]} for pair in self._side],
                "nice_dice": {
                    str(face): {"owner": die >> 1, "die": KIND_NAMES[die & 1]}
                    for face, die in enumerate(self._nice)
                    if die >= 0
                },
                "golden": None
                if self._gold < 0
                else {"owner": self._gold >> 1, "die": KIND_NAMES[self._gold & 1]},
                "lucky_punch": lucky_punch,
                "black_box": black_box,
                "bad_luck": self._bad_luck[:],
            },
            "result": None if not over else [r.to_json() for r in self._standings()],
        }

    @classmethod
    def from_observation(
        cls, description: GameDescription, seed: int, rules: RoyaleRules, observation: JsonDict
    ) -> RoyaleGame:
        """A state the observing seat cannot tell apart from the one it observed.

        Hidden are: the order and identity of the face-down pile (rebuilt from
        the cards seen nowhere else and shuffled), the Lucky Punch tokens
        hidden by another seat (drawn at random) and a Black Box split made by
        another seat (drawn among the splits of the announced pile sizes).
        Future chance follows ``seed``. The state keeps no log.
        """
        setup = RoyaleSetup.build(rules, description)
        n = setup.seats
        state = cls.__new__(cls)
        state._init_empty(description, seed, setup)
        rng = random.Random(seed)
        state._rng = rng
        state._new_tape()
        state._round = observation["round"] - 1
        state._start = observation["start_player"]
        state._decision = decision_of(D, observation["decision"])
        state._current = observation["current_player"] or 0
        state._ctx = values_of(context_fields(state._decision), observation["context"])
        state._stack = []
        for frame in observation["pending"]:
            op = OP_NAMES.index(frame["step"])
            state._stack.append((op, *values_of(FRAME_FIELDS[op], frame)))
        arena = [0] * 14
        for kind, faces in observation["roll"].items():
            for face in faces:
                arena[face * 2 + KIND_NAMES.index(kind)] += 1
        state._arena = arena
        placed = observation["placed"]
        if placed is not None:
            state._placed = [placed["casino"] - 1, placed["face"], placed["die"], placed["biggie"]]
        state._black = list(observation["black_dice"])
        state._hands = [[hand["die"], hand["biggie"]] for hand in observation["hands"]]
        state._chips = list(observation["chips"])
        state._credit = list(observation["bank_credit"])
        state._won = [list(cards) for cards in observation["won"]]
        for entry in observation["casinos"]:
            casino = entry["casino"] - 1
            state._cards[casino] = list(entry["cards"])
            for owner, count in entry["dice"].items():
                state._counts[casino][owner_value(owner, n)] = count
            for owner, count in entry["biggies"].items():
                state._big[casino][int(owner)] = count
            if entry["tile"] is not None:
                tile = TILE_BY_CODE[entry["tile"]]
                state._tiles[casino] = tile
                state._tile_at[tile] = casino
        state._bank_cards = list(observation["bank_cards"])
        state._under = list(observation["under_pile"])
        state._round_winners = [-1 if w is None else w for w in observation["round_winners"]]
        seen = state._bank_cards + state._under
        for cards in state._cards + state._won:
            seen += cards
        check_cards("cards", seen, setup.cards)
        unseen = list(setup.cards)
        for card in seen:
            unseen.remove(card)
        rng.shuffle(unseen)
        state._pile = deque(unseen)
        tiles = observation["tiles"]
        state._jackpot = tiles["jackpot"]
        state._fifty_step = tiles["fifty_fifty"]["step"]
        state._fifty_sum = tiles["fifty_fifty"]["sum"]
        state._high_five = -1 if tiles["high_five"] is None else tiles["high_five"]
        holder = tiles["power_play"]["holder"]
        state._power = -1 if holder is None else holder
        state._power_ready = tiles["power_play"]["ready"]
        state._power_casino = state._tile_at[Tile.POWER_PLAY]
        closed = tiles["no_entry"]["closed"]
        state._closed = -1 if closed is None else closed - 1
        state._no_entry_track = tiles["no_entry"]["track"]
        state._bar = [[pair["die"], pair["biggie"]] for pair in tiles["bar"]]
        state._groups = list(tiles["block_it"])
        state._handicap = [tiles["handicap"][kind] for kind in HANDICAP_KINDS]
        state._side = [[pair["die"], pair["biggie"]] for pair in tiles["side_bet"]]
        for face, die in tiles["nice_dice"].items():
            state._nice[int(face)] = die["owner"] * 2 + KIND_NAMES.index(die["die"])
        golden = tiles["golden"]
        state._gold = (
            -1 if golden is None else golden["owner"] * 2 + KIND_NAMES.index(golden["die"])
        )
        state._bad_luck = list(tiles["bad_luck"])
        lucky_punch = tiles["lucky_punch"]
        if lucky_punch is not None:
            tokens = lucky_punch["tokens"]
            state._lp_tokens = (
                tokens if tokens is not None else rng.choice(sorted(rules.tiles.lucky_punch))
            )
        black_box = tiles["black_box"]
        if black_box is not None:
            if black_box["split"] is not None:
                state._bb_split = setup.split_index[black_box["split"]]
            else:
                sizes = tuple(black_box["sizes"])
                candidates = [
                    index
                    for index, split in enumerate(setup.splits)
                    if (len(split[0]), len(split[1])) == sizes
                ]
                state._bb_split = rng.choice(candidates)
        state._legal = _LEGAL[state._decision](state) if state._decision is not D.NONE else ()
        if state._decision is D.NONE:
            state._round = rules.rounds
        return state

    # ----------------------------------------------------------- positions

    def position(self) -> JsonDict:
        """The observation's board, with what only one seat sees: the Lucky Punch
        tokens hidden (``tiles.lucky_punch.tokens``) and a Black Box split
        (``tiles.black_box.split``). The face-down pile is the cards seen nowhere
        else, so it is not listed; ``under_pile`` is in order."""
        if self._decision is D.CHANCE:
            raise InvalidPositionError("decision", CHANCE_POSITION)
        seen = self.observe(0)
        board = {key: seen[key] for key in POSITION_KEYS}
        tiles = board["tiles"]
        if tiles["lucky_punch"] is not None:
            tiles["lucky_punch"]["tokens"] = self._lp_tokens
        if tiles["black_box"] is not None:
            tiles["black_box"]["split"] = self._setup.split_actions[self._bb_split]
        return board

    @classmethod
    def from_position(
        cls,
        description: GameDescription,
        seed: int,
        rules: RoyaleRules,
        position: JsonDict,
        log: bool,
    ) -> RoyaleGame:
        """The state ``position`` describes; the face-down pile shuffled with ``seed``."""
        check_fields(position, RoyaleGame(description, 0, rules, False).position())
        check_royale_position(RoyaleSetup.build(rules, description), position)
        state = restore(lambda: cls.from_observation(description, seed, rules, position))
        return finish(state, position, log)


class ExplicitRoyaleGame(ExplicitChance, RoyaleGame):
    """A royale game that stops at every chance node (``new_game(..., chance="explicit")``)."""

    __slots__ = ()


def new_royale_game(
    description: GameDescription, seed: int, rules: RoyaleRules, log: bool, chance: ChanceMode
) -> RoyaleGame:
    """A royale game whose chance the tape resolves, or the caller (explicit)."""
    game = ExplicitRoyaleGame if chance is ChanceMode.EXPLICIT else RoyaleGame
    return game(description, seed, rules, log)


def royale_position(
    description: GameDescription,
    seed: int,
    rules: RoyaleRules,
    position: JsonDict,
    log: bool,
    chance: ChanceMode,
) -> RoyaleGame:
    """The royale game ``position`` describes (see RoyaleGame.position)."""
    game = ExplicitRoyaleGame if chance is ChanceMode.EXPLICIT else RoyaleGame
    return game.from_position(description, seed, rules, position, log)


def _roll_json(arena: list[int]) -> JsonDict:
    return roll_json(arena, 2)  # royale's kinds are the first two: die, biggie


def _core_frames() -> tuple[Op, ...]:
    """Every frame's runner by frame number: the game's own, then the tiles' (Knockout?)."""
    runners: dict[int, Op] = {
        OP_TURN: RoyaleGame._op_turn,
        OP_BEFORE: RoyaleGame._op_before,
        OP_PAYOUT: RoyaleGame._op_payout,
        OP_ROUND_END: RoyaleGame._op_round_end,
        **tile_frames(),
    }
    return tuple(runners[op] for op in range(len(OP_NAMES)))


_OPS: tuple[Op, ...] = _core_frames()

#: The decisions of the game itself; the tiles' come from their effects.
_CORE_CHOICES: dict[RoyaleDecision, Choice] = {
    D.PLACE: Choice(RoyaleGame._legal_place, RoyaleGame._place),
    # A die turned and placed, or taken back: Handicap's and My Choice's reward.
    D.MOVE: Choice(RoyaleGame._legal_move, RoyaleGame._move),
}
_CHOICES: dict[RoyaleDecision, Choice] = {**_CORE_CHOICES, **tile_decisions()}
_HANDLERS: dict[RoyaleDecision, Handler] = {
    decision: choice.handle for decision, choice in _CHOICES.items()
}
_LEGAL: dict[RoyaleDecision, Legal] = {
    **{decision: choice.legal for decision, choice in _CHOICES.items()},
    D.NONE: RoyaleGame._legal_none,
}


__all__ = [
    "ROYALE_EVENTS",
    "ExplicitRoyaleGame",
    "RoyaleDecision",
    "RoyaleGame",
    "new_royale_game",
    "royale_position",
]
