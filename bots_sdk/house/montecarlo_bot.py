"""The house bot ``montecarlo``: tries every action many times and keeps the best.

For each legal action it repeatedly samples a full state consistent with what
it sees (:func:`vegas_engine.determinize`), applies the action, and plays the
game to its end with the greedy policy for every seat. It picks the action
with the best mean margin: its final money minus the best opponent's, so it
plays to win rather than to collect. All actions are tried on the same
sampled states and dice (common random numbers: the comparison is fairer).

It stops sampling when its thinking time is up: half of this decision's time,
and no more than its fair share of the time bank left for the game, counted in
the CPU time it used (the referee does not charge time spent waiting for a CPU).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from bots_sdk import Bot, run
from vegas_engine import State, determinize
from vegas_engine.policies import greedy_policy
from vegas_engine.state import JsonDict

if TYPE_CHECKING:
    from bots_sdk.observations import Observation


class MonteCarloBot(Bot):
    name = "montecarlo"
    #: Playouts per legal action, at most (fewer when time runs out).
    playouts = 24
    #: Decisions a seat makes per round, roughly: to share the time bank.
    decisions_per_round = 6

    def act(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        # Stop sampling after the thinking time, once every action has had a
        # playout; and never start a playout that the slowest one so far says
        # would end past 80% of the time left. Both count this process's CPU
        # time: on a busy host the wall clock runs on while the bot waits for a
        # CPU, and the referee charges none of that wait.
        soft = self.thinking_time(observation)
        hard = 0.8 * self.time_left_ms / 1000
        slowest = 0.0
        totals = dict.fromkeys(legal, 0.0)
        counts = dict.fromkeys(legal, 0)
        for sample in range(self.playouts):
            sampled = determinize(cast(JsonDict, observation), self.rng.getrandbits(63))
            for action in legal:
                spent = self.cpu_seconds_spent()
                # The wall clock too, a safety net: on a host so loaded that the
                # referee could not leave all the wait out, the charge runs ahead.
                wall_left = self.seconds_left() - 0.2 * self.time_left_ms / 1000
                if spent + slowest > hard or wall_left < 0 or (sample and spent > soft):
                    break
                state = sampled.clone()
                state.apply_action(action, self.seat)
                totals[action] += self.playout(state)
                counts[action] += 1
                slowest = max(slowest, self.cpu_seconds_spent() - spent)
            if self.cpu_seconds_spent() > soft:
                break
        tried = [action for action in legal if counts[action]] or legal
        # Ties go to the first action in the legal order: deterministic.
        return max(tried, key=lambda action: totals[action] / max(1, counts[action]))

    def playout(self, state: State) -> float:
        """Play to the end with greedy for every seat; our margin over the best rival."""
        while movers := state.to_move():
            for seat in movers:
                state.apply_action(greedy_policy(state, seat, self.rng), seat)
        result = state.result()
        assert result is not None
        mine: int = result[self.seat].money
        return float(mine - max(r.money for r in result if r.seat != self.seat))

    def thinking_time(self, observation: Observation) -> float:
        """Seconds for this decision: half the decision's time, at most a fair
        share of the bank for the decisions still to come (every rule system
        has rounds; a seat makes a few decisions in each)."""
        rounds_left: int = observation["rounds"] - observation["round"] + 1
        share = self.bank_left_ms / (rounds_left * self.decisions_per_round)
        return min(self.time_left_ms / 2, share) / 1000


if __name__ == "__main__":
    run(MonteCarloBot)
