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
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

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
    ADD_NONE,
    BAR_ACTIONS,
    BIGGIE,
    CASINOS,
    CLOSE_ACTIONS,
    DIE,
    FRAME_FIELDS,
    GOLD_ACTIONS,
    HIGHER,
    KEEP,
    KIND_NAMES,
    LOWER,
    NICE_NONE,
    OP_BEFORE,
    OP_KNOCKOUT,
    OP_KNOCKOUT_BACK,
    OP_NAMES,
    OP_PAYOUT,
    OP_ROUND_END,
    OP_TURN,
    PASS,
    PILE_ACTIONS,
    PLACE_ACTIONS,
    PLACE_FACE,
    RETURN_ACTIONS,
    ROLL,
    SKIP,
    STOP,
    TAKE_NONE,
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
from .positions import POSITION_KEYS, check_royale_position
from .tiles import (
    ACTIVATE,
    GOLD,
    HANDICAP_KINDS,
    MOVE,
    PHYSICAL_TILES,
    TILE_BY_CODE,
    TILE_CODES,
    TILE_NAMES,
    Reward,
    RoyaleRules,
    Tile,
    arrange_pairs,
    bank_payment,
    sole_majority,
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


class RoyaleGame(OneSeatState):
    """A game of `royale`."""

    _decision: RoyaleDecision

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
        rules = setup.rules
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
        self._closed = -1
        self._jackpot = rules.tiles.jackpot_start
        self._fifty_step = 0
        self._fifty_sum = 0
        self._high_five = -1
        self._power = -1
        self._power_ready = False
        self._power_casino = -1
        self._no_entry_track = 0
        self._bar: list[list[int]] = [[0, 0] for _ in range(n)]
        self._groups: list[int] = []
        self._handicap: list[int] = [0, 0, 0]
        self._bb_split = -1
        self._side: list[list[int]] = [[0, 0] for _ in range(n)]
        self._nice = [-1] * 7  # face -> owner * 2 + kind
        self._gold = -1  # owner * 2 + kind
        self._lp_tokens = 0
        self._bad_luck: list[int] = []

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
        if self._tile_at[Tile.HANDICAP] >= 0:
            grey = n + 1
            for casino, count in enumerate(rules.tiles.handicap_setup):
                if count:
                    self._counts[casino][grey] += count
                    self._emit_move(grey, "grey", count, "tile", f"casino {casino + 1}")
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
        n = self._n
        data = self._setup.rules.tiles
        self._closed = -1
        self._jackpot = data.jackpot_start
        self._fifty_step = 0
        self._fifty_sum = 0
        self._high_five = -1
        self._power = -1
        self._power_ready = False
        self._power_casino = self._tile_at[Tile.POWER_PLAY]
        self._no_entry_track = 0
        self._bar = [[0, 0] for _ in range(n)]
        self._groups = list(data.block_it_groups) if self._tile_at[Tile.BLOCK_IT] >= 0 else []
        self._handicap = (
            [data.handicap_spaces.get(kind, 0) for kind in HANDICAP_KINDS]
            if self._tile_at[Tile.HANDICAP] >= 0
            else [0, 0, 0]
        )
        self._bb_split = -1
        self._side = [[0, 0] for _ in range(n)]
        self._nice = [-1] * 7
        self._gold = -1
        self._lp_tokens = 0
        self._bad_luck = []
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
            if self._tiles[casino] in (Tile.PRIME_TIME, Tile.BAD_LUCK):
                stack.append((OP_BEFORE, casino))

    def _op_before(self, frame: Frame) -> None:
        casino = frame[1]
        if casino == self._closed:
            return
        n = self._n
        counts = self._counts[casino]
        if self._tiles[casino] == Tile.BAD_LUCK:
            fewest = min(counts[:n])
            seats = [seat for seat in range(n) if counts[seat] == fewest]
            self._bad_luck = seats
            self._emit(
                {"type": "bad_luck", "casino": casino + 1, "counts": counts[:n], "seats": seats}
            )
            return
        # Prime Time: the seat about to take the higher card rolls the black dice.
        ranked, _ = rank_casino(counts)
        if not ranked or not self._cards[casino] or ranked[0] >= n:
            return
        winner = ranked[0]
        self._roll_black(winner, Tile.PRIME_TIME)
        self._offer(D.ADD, winner, (casino,))

    def _op_payout(self, frame: Frame) -> None:
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
        data = self._setup.rules.tiles
        if tile == Tile.HIGH_FIVE:
            # A taken token is its holder's: it pays even if the casino is closed.
            if self._high_five >= 0:
                self._reward(self._high_five, data.high_five, "High Five")
            return
        if tile < 0 or casino == self._closed:
            return
        if tile == Tile.BLACK_BOX:
            if awards and awards[0][0] < n:
                winner = awards[0][0]
                self._offer(D.SPLIT, (winner + 1) % n, (casino, winner))
        elif tile == Tile.DOUBLE_DOWN:
            self._pay_side_bet(casino)
        elif tile == Tile.NICE_DICE:
            for face in range(1, 7):
                die = self._nice[face]
                if die >= 0:
                    self._reward(die >> 1, data.nice_dice[face - 1], "Nice Dice")

    def _pay_side_bet(self, casino: int) -> None:
        n = self._n
        counts = [pair[0] + 2 * pair[1] for pair in self._side]
        ranked, cancelled = rank_casino(counts)
        awards = list(zip(ranked, self._setup.rules.tiles.double_down, strict=False))
        self._emit(
            {
                "type": "side_bet",
                "casino": casino + 1,
                "counts": {str(seat): count for seat, count in enumerate(counts) if count},
                "cancelled": cancelled,
                "awards": [{"owner": seat, "money": money} for seat, money in awards],
            }
        )
        for seat, money in awards:
            if seat < n:
                self._reward(seat, Reward(money=money), "Double Down")

    def _op_round_end(self, frame: Frame) -> None:
        setup = self._setup
        data = setup.rules.tiles
        n = self._n
        # Round-end credits first, then debits: the golden space can pay Bad Luck. It is
        # My Choice's: inactive, like the rest of the tile, while its casino is closed.
        if self._gold >= 0 and self._tile_at[Tile.MY_CHOICE] != self._closed:
            self._reward(self._gold >> 1, Reward(money=data.golden), "My Choice")
        for seat in self._bad_luck:
            self._pay_bank(seat, data.bad_luck, "Bad Luck")
        self._bad_luck = []
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
            self._check_power()
        if self._tiles[casino] >= 0:
            self._activate(casino, seat)

    def _power_turn(self, action: Action) -> None:
        seat = self._current
        if action == ROLL:
            self._roll(seat)
            return
        _, kind_name, face_text = action.split()
        kind = KIND_NAMES.index(kind_name)
        face = int(face_text)
        casino = face - 1
        self._hands[seat][kind] -= 1
        self._add_die(seat, kind, casino)
        self._placed = [casino, face, 1 - kind, kind]
        if self._log is not None:
            self._log_place(seat, casino, 1 - kind, kind)
        self._stack.append((OP_TURN, (seat + 1) % self._n))
        if casino == self._power_casino:
            self._check_power()
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

    def _check_power(self) -> None:
        """RULES.md: the Power Play token returns to the tile when no player (imaginary
        ones included) has a clear majority there. A clear majority of another
        player leaves it with its holder: only activating the casino takes it."""
        casino = self._power_casino
        if self._power >= 0 and sole_majority(self._counts[casino]) < 0:
            self._power = -1
            self._power_ready = False
            self._emit(
                {
                    "type": "token",
                    "tile": TILE_CODES[Tile.POWER_PLAY],
                    "holder": None,
                    "casino": casino + 1,
                }
            )

    # -------------------------------------------------------- activation

    def _activate(self, casino: int, seat: int) -> None:
        tile = self._tiles[casino]
        if tile < 0 or casino == self._closed:
            return
        self._emit(
            {"type": "activate", "seat": seat, "casino": casino + 1, "tile": TILE_CODES[tile]}
        )
        _ACTIVATIONS[tile](self, casino, seat)

    def _no_effect(self, casino: int, seat: int) -> None:
        """Prime Time, Bad Luck and Black Box act only around payout."""

    def _lucky_punch(self, casino: int, seat: int) -> None:
        self._offer(D.HIDE, seat, (casino,))

    def _jackpot_roll(self, casino: int, seat: int) -> None:
        data = self._setup.rules.tiles
        dice = self._roll_black(seat, Tile.JACKPOT)
        hit = sum(dice) in data.jackpot_sums or (
            data.jackpot_doubles and len(dice) > 1 and len(set(dice)) == 1
        )
        if hit:
            pot = self._jackpot
            self._jackpot = data.jackpot_start
            self._emit(
                {
                    "type": "jackpot_roll",
                    "seat": seat,
                    "dice": dice,
                    "hit": True,
                    "pot": self._jackpot,
                }
            )
            self._reward(seat, Reward(money=pot), "Jackpot")
        else:
            self._jackpot = min(self._jackpot + data.jackpot_step, data.jackpot_max)
            self._emit(
                {
                    "type": "jackpot_roll",
                    "seat": seat,
                    "dice": dice,
                    "hit": False,
                    "pot": self._jackpot,
                }
            )

    def _fifty_fifty(self, casino: int, seat: int) -> None:
        """The first roll puts the counter on step 1 (reward ``fifty_fifty[0]``, $0).

        Each right call (strictly higher / lower sum than the previous roll)
        moves one step on; a wrong call or an equal sum ends with nothing; on
        the last step the seat must stop.
        """
        dice = self._roll_black(seat, Tile.FIFTY_FIFTY)
        self._fifty_step = 1
        self._fifty_sum = sum(dice)
        self._emit(
            {
                "type": "fifty_fifty",
                "seat": seat,
                "call": None,
                "dice": dice,
                "step": 1,
                "outcome": "rolled",
            }
        )
        self._offer(D.GAMBLE, seat, (casino,))

    def _high_five_check(self, casino: int, seat: int) -> None:
        data = self._setup.rules.tiles
        if self._high_five < 0 and self._counts[casino][seat] >= data.high_five_count:
            self._high_five = seat
            self._emit(
                {
                    "type": "token",
                    "tile": TILE_CODES[Tile.HIGH_FIVE],
                    "holder": seat,
                    "casino": casino + 1,
                }
            )

    def _pay_day(self, casino: int, seat: int) -> None:
        data = self._setup.rules.tiles
        present = sum(1 for row in self._counts if row[seat])
        if present:
            self._reward(seat, data.as_reward(present * data.pay_day_per_casino), "Pay Day")

    def _power_play(self, casino: int, seat: int) -> None:
        if sole_majority(self._counts[casino]) == seat:
            self._power = seat
            self._power_ready = True
            self._emit(
                {
                    "type": "token",
                    "tile": TILE_CODES[Tile.POWER_PLAY],
                    "holder": seat,
                    "casino": casino + 1,
                }
            )

    def _no_entry(self, casino: int, seat: int) -> None:
        self._offer(D.CLOSE, seat, (casino,))

    def _knockout(self, casino: int, seat: int) -> None:
        n = self._n
        stack = self._stack
        stack.append((OP_KNOCKOUT_BACK, seat))
        for step in range(n - 1, 0, -1):
            stack.append((OP_KNOCKOUT, (seat + step) % n, seat, casino))

    def _block_it(self, casino: int, seat: int) -> None:
        if self._groups:
            self._offer(D.BLOCK, seat, (casino,))

    def _handicap_offer(self, casino: int, seat: int) -> None:
        self._offer(D.HANDICAP, seat, (casino,))

    def _double_down(self, casino: int, seat: int) -> None:
        if self._counts[casino][seat]:
            self._offer(D.BET, seat, (casino,))

    def _nice_dice(self, casino: int, seat: int) -> None:
        self._offer(D.NICE, seat, (casino,))
        if len(self._legal) == 1:  # no die can go on the tile: nothing to ask
            self._decision = D.NONE
            self._legal = ()

    def _my_choice(self, casino: int, seat: int) -> None:
        self._roll_black(seat, Tile.MY_CHOICE)
        self._offer(D.CHOOSE, seat, (casino,))

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

    def _op_knockout(self, frame: Frame) -> None:
        _, opponent, activator, casino = frame
        hand = self._hands[opponent]
        bar = self._bar[opponent]
        if (hand[0] or hand[1]) and bar[0] + bar[1] < self._setup.rules.tiles.knockout_bar:
            self._offer(D.BAR, opponent, (activator, casino))

    def _op_knockout_back(self, frame: Frame) -> None:
        seat = frame[1]
        bar = self._bar[seat]
        hand = self._hands[seat]
        for kind in (DIE, BIGGIE):
            if bar[kind]:
                hand[kind] += bar[kind]
                self._emit_move(seat, KIND_NAMES[kind], bar[kind], "bar", "hand")
                bar[kind] = 0

    # ----------------------------------------------------- decision handlers

    def _hide(self, action: Action) -> None:
        seat = self._current
        self._lp_tokens = int(action.split()[1])
        self._offer(D.GUESS, (seat + 1) % self._n, (seat, self._ctx[0]))

    def _guess(self, action: Action) -> None:
        guess = int(action.split()[1])
        hider = self._ctx[0]
        tokens = self._lp_tokens
        self._lp_tokens = 0
        won = guess != tokens
        self._emit(
            {
                "type": "lucky_punch",
                "seat": hider,
                "guesser": self._current,
                "tokens": tokens,
                "guess": guess,
                "won": won,
            }
        )
        if won:
            self._reward(hider, self._setup.rules.tiles.lucky_punch[tokens], "Lucky Punch")

    def _gamble(self, action: Action) -> None:
        seat = self._current
        steps = self._setup.rules.tiles.fifty_fifty
        if action == STOP:
            reward = steps[self._fifty_step - 1]
            self._emit(
                {
                    "type": "fifty_fifty",
                    "seat": seat,
                    "call": None,
                    "dice": [],
                    "step": self._fifty_step,
                    "outcome": "stop",
                }
            )
            self._fifty_step = self._fifty_sum = 0
            self._reward(seat, reward, "Fifty Fifty")
            return
        before = self._fifty_sum
        dice = self._roll_black(seat, Tile.FIFTY_FIFTY)
        total = sum(dice)
        won = total > before if action == HIGHER else total < before
        self._fifty_step += 1
        self._emit(
            {
                "type": "fifty_fifty",
                "seat": seat,
                "call": action,
                "dice": dice,
                "step": self._fifty_step,
                "outcome": "won" if won else "lost",
            }
        )
        if won:
            self._fifty_sum = total
            self._offer(D.GAMBLE, seat, self._ctx)
        else:
            self._fifty_step = self._fifty_sum = 0

    def _close(self, action: Action) -> None:
        seat = self._current
        if action == KEEP:
            self._emit(
                {"type": "no_entry", "seat": seat, "closed": None, "track": self._no_entry_track}
            )
            return
        self._closed = int(action.split()[1]) - 1
        self._no_entry_track += 1
        track = self._setup.rules.tiles.no_entry_track
        self._emit(
            {
                "type": "no_entry",
                "seat": seat,
                "closed": self._closed + 1,
                "track": self._no_entry_track,
            }
        )
        self._reward(seat, track[(self._no_entry_track - 1) % len(track)], "No Entry!")

    def _bar_die(self, action: Action) -> None:
        seat = self._current
        kind = BAR_ACTIONS.index(action)
        self._hands[seat][kind] -= 1
        self._bar[seat][kind] += 1
        self._emit_move(seat, KIND_NAMES[kind], 1, "hand", "bar")

    def _block(self, action: Action) -> None:
        _, size_text, casino_text = action.split()
        size, casino = int(size_text), int(casino_text) - 1
        self._groups.remove(size)
        self._counts[casino][self._n + 1] += size
        self._emit_move(self._n + 1, "grey", size, "tile", f"casino {casino + 1}")
        if casino == self._power_casino:
            self._check_power()

    def _take_grey(self, action: Action) -> None:
        if action == TAKE_NONE:
            return
        seat = self._current
        _, casino_text, kind = action.split()
        casino = int(casino_text) - 1
        grey = self._n + 1
        self._counts[casino][grey] -= 1
        self._handicap[HANDICAP_KINDS.index(kind)] -= 1
        self._emit_move(grey, "grey", 1, f"casino {casino + 1}", f"handicap {kind}")
        if casino == self._power_casino:
            self._check_power()
        if kind == MOVE:
            self._offer(D.MOVE, seat, self._ctx)
        else:
            self._reward(seat, self._setup.rules.tiles.handicap_rewards[kind], "Handicap")

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
            self._check_power()

    def _add_black(self, action: Action) -> None:
        if action == ADD_NONE:
            return
        seat = self._current
        casinos = [int(face_text) - 1 for face_text in action.split()[1:]]
        for casino in casinos:
            self._counts[casino][seat] += 1
            self._emit_move(seat, "black", 1, "black", f"casino {casino + 1}")
        # Both dice are added at once: the token is checked once they are there.
        if self._power_casino in casinos:
            self._check_power()

    def _split(self, action: Action) -> None:
        casino, winner = self._ctx
        self._bb_split = self._setup.split_index[action]
        self._offer(D.PILE, winner, (casino, self._current))

    def _pick_pile(self, action: Action) -> None:
        casino, splitter = self._ctx
        winner = self._current
        split = self._setup.splits[self._bb_split]
        self._bb_split = -1
        pick = PILE_ACTIONS.index(action)
        self._emit(
            {
                "type": "black_box",
                "casino": casino + 1,
                "winner": winner,
                "splitter": splitter,
                "piles": [list(split[0]), list(split[1])],
                "pick": pick + 1,
            }
        )
        total = sum(split[pick])
        self._reward(winner, self._setup.rules.tiles.as_reward(total), "Black Box")

    def _bet(self, action: Action) -> None:
        seat = self._current
        casino = self._ctx[0]
        parts = action.split()
        dice = int(parts[1])
        biggies = 1 if len(parts) > 2 else 0
        self._counts[casino][seat] -= dice + 2 * biggies
        self._big[casino][seat] -= biggies
        side = self._side[seat]
        side[0] += dice
        side[1] += biggies
        if dice:
            self._emit_move(seat, "die", dice, f"casino {casino + 1}", "side bet")
        if biggies:
            self._emit_move(seat, "biggie", 1, f"casino {casino + 1}", "side bet")
        if casino == self._power_casino:
            self._check_power()

    def _nice_pick(self, action: Action) -> None:
        if action == NICE_NONE:
            return
        seat = self._current
        casino = self._ctx[0]
        parts = action.split()
        face = int(parts[1])
        kind = BIGGIE if len(parts) > 2 else DIE
        arena = self._arena
        if arena[face * 2 + kind]:
            arena[face * 2 + kind] -= 1
            self._hands[seat][kind] -= 1
            source = "hand"
        else:
            self._remove_die(seat, kind, casino)
            self._placed[2 + kind] -= 1
            source = f"casino {casino + 1}"
        bumped = self._nice[face]
        if bumped >= 0:
            owner, bumped_kind = bumped >> 1, bumped & 1
            self._add_die(owner, bumped_kind, face - 1)
            self._emit_move(owner, KIND_NAMES[bumped_kind], 1, f"nice {face}", f"casino {face}")
            if face - 1 == self._power_casino:
                self._check_power()
        self._nice[face] = seat * 2 + kind
        self._emit_move(seat, KIND_NAMES[kind], 1, source, f"nice {face}")
        if casino == self._power_casino:
            self._check_power()

    def _choose(self, action: Action) -> None:
        """Any rolled face may be chosen; an effect that cannot happen (no other
        active tile, no move possible, no die in hand or the golden space taken)
        does nothing."""
        seat = self._current
        casino = self._ctx[0]
        effect = self._setup.rules.tiles.my_choice[int(action.split()[1]) - 1]
        if isinstance(effect, Reward):
            self._reward(seat, effect, "My Choice")
        elif effect == ACTIVATE:
            if self._activatable(casino):
                self._offer(D.ACTIVATE, seat, (casino,))
        elif effect == MOVE:
            if self._move_options(seat):
                self._offer(D.MOVE, seat, (casino,))
        elif effect == GOLD:
            hand = self._hands[seat]
            if self._gold < 0 and (hand[0] or hand[1]):
                self._offer(D.GOLD, seat, (casino,))

    def _activate_other(self, action: Action) -> None:
        self._activate(int(action.split()[1]) - 1, self._current)

    def _gold_die(self, action: Action) -> None:
        seat = self._current
        kind = GOLD_ACTIONS.index(action)
        self._hands[seat][kind] -= 1
        self._take_from_arena(kind)
        self._gold = seat * 2 + kind
        self._emit_move(seat, KIND_NAMES[kind], 1, "hand", "gold")

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

    def _legal_power(self) -> tuple[Action, ...]:
        return (ROLL, *self._turn_options(self._current))

    def _legal_hide(self) -> tuple[Action, ...]:
        return self._setup.hide_actions

    def _legal_guess(self) -> tuple[Action, ...]:
        return self._setup.guess_actions

    def _legal_gamble(self) -> tuple[Action, ...]:
        if self._fifty_step < len(self._setup.rules.tiles.fifty_fifty):
            return (STOP, HIGHER, LOWER)
        return (STOP,)

    def _legal_close(self) -> tuple[Action, ...]:
        own = self._ctx[0]
        return (
            *(
                CLOSE_ACTIONS[casino + 1]
                for casino in range(CASINOS)
                if casino not in (own, self._closed)
            ),
            KEEP,
        )

    def _legal_bar(self) -> tuple[Action, ...]:
        hand = self._hands[self._current]
        return tuple(BAR_ACTIONS[kind] for kind in (DIE, BIGGIE) if hand[kind])

    def _legal_block(self) -> tuple[Action, ...]:
        return tuple(
            f"block {size} {casino + 1}"
            for size in sorted(set(self._groups))
            for casino in range(CASINOS)
            if casino != self._closed
        )

    def _legal_handicap(self) -> tuple[Action, ...]:
        seat = self._current
        grey = self._n + 1
        free = self._handicap
        can_move = bool(self._move_options(seat))
        legal = [
            f"take {casino + 1} {kind}"
            for casino in range(CASINOS)
            if casino != self._closed and self._counts[casino][grey]
            for index, kind in enumerate(HANDICAP_KINDS)
            if free[index] and (kind != MOVE or can_move)
        ]
        legal.append(TAKE_NONE)
        return tuple(legal)

    def _legal_move(self) -> tuple[Action, ...]:
        return tuple(self._move_options(self._current))

    def _legal_add(self) -> tuple[Action, ...]:
        dice = sorted(self._black)
        closed = self._closed
        legal = [ADD_NONE]
        for index, face in enumerate(dice):
            if face - 1 != closed and face not in dice[:index]:
                legal.append(f"add {face}")
        if len(dice) == 2 and all(face - 1 != closed for face in dice):
            legal.append(f"add {dice[0]} {dice[1]}")
        return tuple(legal)

    def _legal_split(self) -> tuple[Action, ...]:
        """Pile 1 is the larger pile; 3 + 3 splits are listed in both orders."""
        return self._setup.split_actions

    def _legal_pile(self) -> tuple[Action, ...]:
        return PILE_ACTIONS

    def _legal_bet(self) -> tuple[Action, ...]:
        casino = self._ctx[0]
        seat = self._current
        biggies = self._big[casino][seat]
        dice = self._counts[casino][seat] - 2 * biggies
        legal: list[Action] = []
        for count in range(dice + 1):
            legal.append(f"bet {count}")
            if biggies:
                legal.append(f"bet {count} biggie")
        return tuple(legal)

    def _legal_nice(self) -> tuple[Action, ...]:
        """Candidates: this turn's rolled dice not placed (any face, leaving the hand)
        and the dice just placed on the Nice Dice casino; a Biggie may go too. A
        space whose die would be bumped into a closed casino cannot be used."""
        casino = self._ctx[0]
        arena = self._arena
        placed_casino, placed_face, placed_dice, placed_biggies = self._placed
        here = placed_casino == casino
        legal = [NICE_NONE]
        for face in range(1, 7):
            bumped = self._nice[face]
            if bumped >= 0 and face - 1 == self._closed:
                continue  # the bumped die could not enter its closed casino
            on_casino = here and placed_face == face
            if arena[face * 2] or (on_casino and placed_dice):
                legal.append(f"nice {face}")
            if arena[face * 2 + 1] or (on_casino and placed_biggies):
                legal.append(f"nice {face} biggie")
        return tuple(legal)

    def _legal_choose(self) -> tuple[Action, ...]:
        return tuple(f"choose {face}" for face in sorted(set(self._black)))

    def _activatable(self, casino: int) -> list[int]:
        return [
            other
            for other in range(CASINOS)
            if other != casino and other != self._closed and self._tiles[other] >= 0
        ]

    def _legal_activate(self) -> tuple[Action, ...]:
        return tuple(f"activate {other + 1}" for other in self._activatable(self._ctx[0]))

    def _legal_gold(self) -> tuple[Action, ...]:
        hand = self._hands[self._current]
        return tuple(GOLD_ACTIONS[kind] for kind in (DIE, BIGGIE) if hand[kind])

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


Handler = Callable[[RoyaleGame, Action], None]
Op = Callable[[RoyaleGame, Frame], None]
Activation = Callable[[RoyaleGame, int, int], None]
Legal = Callable[[RoyaleGame], tuple[Action, ...]]

_OPS: tuple[Op, ...] = (
    RoyaleGame._op_turn,
    RoyaleGame._op_knockout,
    RoyaleGame._op_knockout_back,
    RoyaleGame._op_before,
    RoyaleGame._op_payout,
    RoyaleGame._op_round_end,
)

_HANDLERS: dict[RoyaleDecision, Handler] = {
    D.PLACE: RoyaleGame._place,
    D.POWER: RoyaleGame._power_turn,
    D.HIDE: RoyaleGame._hide,
    D.GUESS: RoyaleGame._guess,
    D.GAMBLE: RoyaleGame._gamble,
    D.CLOSE: RoyaleGame._close,
    D.BAR: RoyaleGame._bar_die,
    D.BLOCK: RoyaleGame._block,
    D.HANDICAP: RoyaleGame._take_grey,
    D.MOVE: RoyaleGame._move,
    D.ADD: RoyaleGame._add_black,
    D.SPLIT: RoyaleGame._split,
    D.PILE: RoyaleGame._pick_pile,
    D.BET: RoyaleGame._bet,
    D.NICE: RoyaleGame._nice_pick,
    D.CHOOSE: RoyaleGame._choose,
    D.ACTIVATE: RoyaleGame._activate_other,
    D.GOLD: RoyaleGame._gold_die,
}

_LEGAL: dict[RoyaleDecision, Legal] = {
    D.PLACE: RoyaleGame._legal_place,
    D.POWER: RoyaleGame._legal_power,
    D.HIDE: RoyaleGame._legal_hide,
    D.GUESS: RoyaleGame._legal_guess,
    D.GAMBLE: RoyaleGame._legal_gamble,
    D.CLOSE: RoyaleGame._legal_close,
    D.BAR: RoyaleGame._legal_bar,
    D.BLOCK: RoyaleGame._legal_block,
    D.HANDICAP: RoyaleGame._legal_handicap,
    D.MOVE: RoyaleGame._legal_move,
    D.ADD: RoyaleGame._legal_add,
    D.SPLIT: RoyaleGame._legal_split,
    D.PILE: RoyaleGame._legal_pile,
    D.BET: RoyaleGame._legal_bet,
    D.NICE: RoyaleGame._legal_nice,
    D.CHOOSE: RoyaleGame._legal_choose,
    D.ACTIVATE: RoyaleGame._legal_activate,
    D.GOLD: RoyaleGame._legal_gold,
    D.NONE: RoyaleGame._legal_none,
}

_ACTIVATIONS: tuple[Activation, ...] = (
    RoyaleGame._lucky_punch,  # A1
    RoyaleGame._jackpot_roll,  # A2
    RoyaleGame._no_effect,  # B1 Prime Time: before payout
    RoyaleGame._fifty_fifty,  # B2
    RoyaleGame._high_five_check,  # C1
    RoyaleGame._no_effect,  # C2 Bad Luck: before payout
    RoyaleGame._pay_day,  # D1
    RoyaleGame._power_play,  # D2
    RoyaleGame._no_entry,  # E1
    RoyaleGame._knockout,  # E2
    RoyaleGame._block_it,  # F1
    RoyaleGame._handicap_offer,  # F2
    RoyaleGame._no_effect,  # G1 Black Box: during payout
    RoyaleGame._double_down,  # G2
    RoyaleGame._nice_dice,  # H1
    RoyaleGame._my_choice,  # H2
)


__all__ = [
    "ROYALE_EVENTS",
    "ExplicitRoyaleGame",
    "RoyaleDecision",
    "RoyaleGame",
    "new_royale_game",
    "royale_position",
]
