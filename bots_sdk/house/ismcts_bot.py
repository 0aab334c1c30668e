"""The house bot ``ismcts``: information-set Monte Carlo tree search.

Every iteration of the search deals one world the bot cannot tell apart from
the real one: :func:`vegas_engine.determinize` keeps everything the bot saw
and draws what it could not see (the order of a pile, the other hands of the
card game) and, from a fresh seed, every roll and draw still to come. So the
worlds sample hidden information and chance together, each outcome with its
true probability.

The tree holds the bot's own decisions, each node an information set as the
bot tells them apart: its own actions so far, and the actions it may take
now with the dice or cards each would spend (which tells its roll: "place 3"
with one die and with four are different decisions). The others play the
greedy policy: a fixed model of the opponents keeps every iteration on the
bot's own choices, which pays more than nodes for the others with a budget
of a few hundred iterations, and it keeps the card game's simultaneous
choices secret (nobody reacts to a choice they cannot see). Below the tree,
greedy plays every seat to the end.

- At the root, sequential halving picks the action: every surviving action is
  played in the same worlds (the same hidden cards and dice: differences
  between actions are not drowned by luck), then the worse half is dropped,
  until one is left. It spends most playouts on the close calls. Where there
  are more actions than the budget can compare well, it searches greedy's
  favourites only.
- Below the root, each node is a UCB1 bandit over the actions legal there,
  widening progressively: greedy's choice first, another action each time
  the visits pass the next square (times :data:`WIDENING`), so a node seen a
  few times plays greedy.

A playout scores how far the bot finished ahead of each other seat: pair by
pair, as the ladders' ratings count, but smooth (a logistic curve of the
money between them), so that a search of a few hundred playouts can tell
close actions apart.

The search plays a fixed amount of work per decision, counted in moves
(:data:`WORK`): one greedy playout from a first world tells how long a playout
is from here, so the same work buys many playouts late in a game and fewer
early, and a decision takes about the same time throughout. The same bot seed
gives the same answers. A guard stops the search early only on a machine far
slower than planned: past 60% of this decision's time or past one and a half
times its fair share of the time bank left for the game (less the reserve,
over the decisions a seat makes in the rounds left), counted in the CPU time
the bot used (on a busy host the wall clock runs on while the bot waits for a
CPU, and the referee charges none of that wait). Each halving may use only its
part of that time (a quarter more than an even part), so that a cut search
still compares its last survivors rather than stopping in its first halving.
Past 80% of the decision's time by the wall clock the search stops all the
same, a safety net on a host so loaded that the referee could not leave all
the wait out; once a decision that waited long for a CPU was charged about its
CPU time (the bank tells), the net moves to three times that, so that a busy
host does not cut the search for nothing. The last tenth of the bank is a
reserve the search never spends: once the bank is down to it, the bot answers
as greedy does, at once, so that even a game on a slow host ends within the
bank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from bots_sdk import Bot, run
from vegas_engine import State, determinize
from vegas_engine.policies import VALUATIONS, greedy_policy
from vegas_engine.state import JsonDict

if TYPE_CHECKING:
    from bots_sdk.observations import Observation

#: Moves the search plays per decision, by rule system: sized from the time bank the
#: bot was measured to use, so that a game spends about half to two thirds of the
#: ladders' bank (a move of the card game costs several of the dice games'; boulevard
#: and royale have longer games).
WORK = {
    "classic": 20_000,
    "sixdice": 27_000,
    "royale": 18_000,
    "boulevard": 6_000,
    "cardgame": 3_400,
}
#: Decisions a seat makes per round, about (measured), by rule system: to share the bank.
DECISIONS_PER_ROUND = {"classic": 5, "sixdice": 5, "royale": 9, "boulevard": 9, "cardgame": 5}
#: The part of the game's time bank kept for answering greedily, never searched with.
RESERVE = 0.1
#: A halving may run up to this many times its even part of the decision's time.
HALVING_SLACK = 1.25
#: A wait for a CPU this long (s) in one decision tells how the referee charges it.
WAIT_TO_TELL = 0.1
#: The wall clock's safety net, times 80% of the decision's time, on a referee that
#: charges CPU time (a stall net only: the CPU guard bounds the search there).
WALL_NET_CPU_CHARGED = 3
#: What dealing a world and scoring a playout cost, in moves.
PLAYOUT_OVERHEAD = 4
#: The fewest worlds a halving plays each action in (fewer actions are searched if need be).
MIN_WORLDS = 6
#: Exploration constant of UCB1, for scores between 0 and 1.
EXPLORATION = 0.5
#: Visits a node needs per extra action, squared: 8 for a second, 32 for a third...
WIDENING = 8
#: The money lead that counts as about three quarters of "finished ahead" ($): about
#: one small note, so that a playout scores nearly as the ladders count (ahead or not).
MONEY_SCALE = 15_000


class Arm:
    """One action at a node: how often it was tried, its total score, the node after it."""

    __slots__ = ("children", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        #: The next own decision's nodes, by :meth:`IsmctsBot.situation`.
        self.children: dict[tuple[tuple[str, int], ...], Node] = {}


class Node:
    """An own decision: its actions in the order they join the bandit (greedy's first)."""

    __slots__ = ("arms", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.arms: dict[str, Arm] = {}


class IsmctsBot(Bot):
    name = "ismcts"
    #: The game's whole time bank (ms), of which :data:`RESERVE` is kept.
    game_bank_ms = 0
    #: Whether the referee was seen to leave out of its charge the time the bot waited
    #: for a CPU (then the wall clock's safety net is looser); kept from game to game.
    charges_cpu = False
    #: The last decision's bank before it (ms), CPU and wall time (s): to learn the charge.
    last_decision: tuple[float, float, float] | None = None

    def on_game_start(self, seat: int, game: JsonDict) -> None:
        self.game_bank_ms = self.bank_left_ms
        self.last_decision = None

    def act(self, observation: Observation) -> str:
        self.learn_the_charge()
        action = self.decide(observation)
        elapsed = self.time_left_ms / 1000 - self.seconds_left()
        self.last_decision = (self.bank_left_ms, self.cpu_seconds_spent(), elapsed)
        return action

    def learn_the_charge(self) -> None:
        """Whether the referee charges CPU time, not the wall clock: told by the bank
        after a decision that waited long for a CPU (charged about its CPU time, or
        about its wall time)."""
        if self.last_decision is None:
            return
        bank_before, cpu, wall = self.last_decision
        waited = wall - cpu
        if waited >= WAIT_TO_TELL:
            charged = (bank_before - self.bank_left_ms) / 1000
            self.charges_cpu = charged < cpu + waited / 2

    def decide(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        first = determinize(cast(JsonDict, observation), self.rng.getrandbits(63))
        # The bank's last part is never searched with: however slow the host was,
        # greedy answers at once (a millisecond or so) for the rest of the game.
        spare = self.bank_left_ms - RESERVE * self.game_bank_ms
        if spare <= 0:
            return greedy_policy(first, self.seat, self.rng)
        # The guard counts this process's CPU time: on a busy host the wall clock
        # runs on while the bot waits for a CPU, and the referee charges none of it.
        rounds_left: int = observation["rounds"] - observation["round"] + 1
        decisions_left = rounds_left * DECISIONS_PER_ROUND.get(observation["rules"], 8)
        allowed = min(0.6 * self.time_left_ms, 1.5 * spare / decisions_left) / 1000
        budget = self.playouts(first.clone(), WORK.get(observation["rules"], 2_000))
        survivors = self.candidates(first, legal, budget)
        arms = {action: Arm() for action in survivors}
        halvings = math.ceil(math.log2(len(survivors)))
        for halving in range(halvings):
            # Each halving may run to its part of the time allowed (and a little more),
            # so that on a host slower than planned the later halvings still run.
            share = min(1.0, HALVING_SLACK * (halving + 1) / halvings)
            # This halving's share of the budget, in worlds every survivor plays.
            for world_index in range(max(1, budget // (halvings * len(survivors)))):
                if world_index and self.out_of_time(allowed, share):
                    break
                world = determinize(cast(JsonDict, observation), self.rng.getrandbits(63))
                for action in survivors:
                    if self.out_of_time(allowed):
                        break
                    self.iterate(world.clone(), action, arms[action])
            # Ties keep the earlier action (a stable sort): greedy's order, deterministic.
            survivors.sort(key=lambda action: -arms[action].total / max(1, arms[action].visits))
            survivors = survivors[: math.ceil(len(survivors) / 2)]
            if self.out_of_time(allowed):
                break
        return survivors[0]

    def out_of_time(self, allowed: float, share: float = 1.0) -> bool:
        """Past ``share`` of the CPU time ``allowed``; or, a safety net, past ``share``
        of 80% of this decision's time by the wall clock (a host so loaded that not
        all its wait was left out), of :data:`WALL_NET_CPU_CHARGED` times that once the
        bank showed that the referee charges CPU time."""
        net = 0.8 * self.time_left_ms / 1000 * (WALL_NET_CPU_CHARGED if self.charges_cpu else 1)
        elapsed = self.time_left_ms / 1000 - self.seconds_left()
        return self.cpu_seconds_spent() > share * allowed or elapsed > share * net

    def playouts(self, world: State, work: int) -> int:
        """How many playouts ``work`` moves pay for from here: as many as one greedy
        playout of ``world`` is long (the same work early in a game and late)."""
        moves = 0
        while movers := world.to_move():
            for seat in movers:
                world.apply_action(greedy_policy(world, seat, self.rng), seat)
                moves += 1
        return max(2, work // (moves + PLAYOUT_OVERHEAD))

    def candidates(self, state: State, legal: list[str], budget: int) -> list[str]:
        """The actions worth searching, greedy's favourites first: as many as the budget
        gives every halving at least :data:`MIN_WORLDS` worlds (the card game's hands
        offer a dozen plays and more; a halving on one world each would be a coin toss)."""
        valuation = VALUATIONS[state.description.rules]
        ranked = sorted(
            legal,
            key=lambda action: (
                -valuation.gain(state, action, self.seat),
                valuation.dice_spent(state, action, self.seat),
            ),
        )
        keep = len(ranked)
        while keep > 2 and MIN_WORLDS * keep * math.ceil(math.log2(keep)) > budget:
            keep -= 1
        return ranked[:keep]

    def iterate(self, state: State, first: str, root: Arm) -> None:
        """Play ``first`` in this world, then the tree, then greedy; back up the score."""
        path = [root]
        arm: Arm | None = root
        while movers := state.to_move():
            for seat in movers:
                if seat != self.seat:
                    action = greedy_policy(state, seat, self.rng)
                elif first:
                    action, first = first, ""
                else:
                    legal = state.legal_actions(seat)
                    if arm is None or len(legal) == 1:
                        action = greedy_policy(state, seat, self.rng)
                    else:
                        node = arm.children.get(key := self.situation(state, legal))
                        if node is None:
                            node = arm.children[key] = Node()
                        action = self.select(node, state, legal)
                        arm = node.arms[action]
                        path.append(arm)
                        # An arm seen for the first time ends the tree for this playout.
                        arm = arm if arm.visits else None
                state.apply_action(action, seat)
        score = self.score(state)
        for visited in path:
            visited.visits += 1
            visited.total += score

    def situation(self, state: State, legal: Sequence[str]) -> tuple[tuple[str, int], ...]:
        """What tells an own decision apart in the tree: each legal action with the dice
        or cards it would spend."""
        spent = VALUATIONS[state.description.rules].dice_spent
        return tuple((action, spent(state, action, self.seat)) for action in legal)

    def select(self, node: Node, state: State, legal: Sequence[str]) -> str:
        """UCB1 among the node's arms, one more arm each time its visits pass a square."""
        if not node.arms:
            node.arms[greedy_policy(state, self.seat, self.rng)] = Arm()
        elif len(node.arms) < len(legal) and WIDENING * len(node.arms) ** 2 <= node.visits:
            node.arms[next(action for action in legal if action not in node.arms)] = Arm()
        node.visits += 1
        untried = next((action for action, arm in node.arms.items() if not arm.visits), None)
        if untried is not None:
            return untried
        log_visits = math.log(node.visits)
        return max(
            node.arms,
            key=lambda action: (
                node.arms[action].total / node.arms[action].visits
                + EXPLORATION * math.sqrt(log_visits / node.arms[action].visits)
            ),
        )

    def score(self, state: State) -> float:
        """Against each rival, a smooth "finished ahead": 1/2 at equal money, nearer 1
        the more money ahead; the mean over rivals."""
        result = state.result()
        assert result is not None
        mine = result[self.seat].money
        rivals = [r.money for r in result if r.seat != self.seat]
        return sum(1 / (1 + math.exp((money - mine) / MONEY_SCALE)) for money in rivals) / len(
            rivals
        )


if __name__ == "__main__":
    run(IsmctsBot)
