"""A short reinforcement-learning run: a linear policy learns to beat the random bot.

    python3 bench/rl_train.py                    # classic, 2 seats, against random (~1 minute)
    python3 bench/rl_train.py --quick            # a few seconds: a smoke test
    python3 bench/rl_train.py --opponent greedy --seats 3 --episodes 10000

The agent plays one seat (a random seat each game) of the Gymnasium
environment ``bots_sdk.rl.gymnasium.VegasEnv`` against house bots; numpy only.

**Policy.** A softmax over the legal actions. An action that names a casino
(``place F``: casino F; ``slot F``: the slot machine) is scored by one linear
function, shared by all casinos, of the slice of the observation vector
about that casino and that face (``bots_sdk.rl.encoding``: the casino's
notes, dice by seat from the agent's, neutral dice, Biggies, and how many
dice of each kind show the face in the roll), plus a bias per action; other
actions (``chip``, ``kick``) have their bias only. About 20 weights.

**Learning.** REINFORCE: after each batch of games, the policy gradient of
the final reward (``pairwise_returns``: +1 won, -1 lost) less a running mean
of it, plain gradient ascent.

It prints the win rate against the opponent before training (all weights 0:
the uniform policy over the legal actions, i.e. the random bot) and after it
(the most probable action), each over ``--eval-games`` games whose seeds the
training never saw, with a 95% interval, and the CPU time of each part.
``docs/rl.md`` shows a run. Nothing is asserted: the exit code is 0.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import numpy.typing as npt

from bots_sdk.rl.gymnasium import VegasEnv

#: Training seeds start here; evaluation seeds are 0, 1, ...: they never meet.
TRAIN_SEEDS = 10**9
DICE_SYSTEMS = ("classic", "boulevard", "sixdice")

#: A numpy array of any shape and type (observations, masks, probabilities).
Array = npt.NDArray[Any]
Step = tuple[Array, Array, int, float]


class CasinoPolicy:
    """Softmax of ``features(action) @ theta + bias[action]`` over the legal actions."""

    def __init__(self, env: VegasEnv) -> None:
        segments = {segment.name: segment for segment in env.encoder.segments}
        kinds = segments["roll"].size // 6
        rows = []
        for text in env.actions.actions:
            verb, *parts = text.split()
            columns: list[int] = []
            if verb in ("place", "slot"):
                face = int(parts[0])
                casino = face if verb == "place" else 7
                for part in ("notes", "dice", "neutral", "biggies"):
                    segment = segments[f"casino{casino}.{part}"]
                    columns += range(segment.start, segment.start + segment.size)
                columns += [segments["roll"].start + kind * 6 + face - 1 for kind in range(kinds)]
            rows.append(columns)
        width = max(len(row) for row in rows)
        # Index `size` reads the 0 appended to the vector: actions without a casino.
        size = env.encoder.size
        self.index = np.array([row + [size] * (width - len(row)) for row in rows])
        self.theta = np.zeros(width)
        self.bias = np.zeros(len(rows))

    def probabilities(self, x: Array, mask: Array) -> Array:
        logits = np.append(x, 0.0)[self.index] @ self.theta + self.bias
        logits = np.where(mask > 0, logits, -np.inf)
        exp = np.exp(logits - logits.max())
        probabilities: Array = exp / exp.sum()
        return probabilities

    def gradient(self, x: Array, mask: Array, action: int) -> tuple[Any, Any]:
        """d log pi(action | x) / d (theta, bias)."""
        features = np.append(x, 0.0)[self.index]
        p = self.probabilities(x, mask)
        bias = -p
        bias[action] += 1.0
        return features[action] - p @ features, bias


def play(
    env: VegasEnv, policy: CasinoPolicy, seed: int, rng: np.random.Generator | None
) -> tuple[list[Step], float]:
    """One game: its steps and the final reward. With ``rng`` the policy samples
    its actions, else it takes the most probable one."""
    x, info = env.reset(seed=seed)
    steps: list[Step] = []
    reward, done = 0.0, False
    while not done:
        mask = info["action_mask"]
        p = policy.probabilities(x, mask)
        action = int(rng.choice(len(p), p=p)) if rng is not None else int(np.argmax(p))
        steps.append((x, mask, action, reward))
        x, reward, done, _, info = env.step(action)
    return steps, float(reward)


def evaluate(env: VegasEnv, policy: CasinoPolicy, games: int, sample: bool) -> dict[str, float]:
    """Win and tie rates and the mean final reward over games on seeds 0 .. games-1."""
    rng = np.random.default_rng(1) if sample else None
    rewards = [play(env, policy, seed, rng)[1] for seed in range(games)]
    return {
        "win": sum(r > 0 for r in rewards) / games,
        "tie": sum(r == 0 for r in rewards) / games,
        "reward": float(np.mean(rewards)),
    }


def interval(rate: float, games: int) -> float:
    """Half the width of the 95% normal interval of a rate."""
    return 1.96 * math.sqrt(rate * (1 - rate) / games)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rules", choices=DICE_SYSTEMS, default="classic")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--opponent", default="random", help="a house bot for every other seat")
    parser.add_argument("--episodes", type=int, default=4000, help="training games")
    parser.add_argument("--batch", type=int, default=50, help="games per gradient step")
    parser.add_argument("--rate", type=float, default=1.0, help="the gradient step's size")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="the training's seeds and sampling")
    parser.add_argument("--quick", action="store_true", help="500 training games, 200 to evaluate")
    args = parser.parse_args()
    if args.quick:
        args.episodes, args.eval_games = 500, 200

    env = VegasEnv(args.rules, args.seats, opponents=args.opponent, seat=None)
    policy = CasinoPolicy(env)
    weights = policy.theta.size + policy.bias.size
    print(
        f"{args.rules}, {args.seats} seats, against {args.opponent}: observation vector of "
        f"{env.encoder.size} values, {len(env.actions)} actions, {weights} weights"
    )

    started = time.process_time()
    before = evaluate(env, policy, args.eval_games, sample=True)
    before_cpu = time.process_time() - started

    rng = np.random.default_rng(args.seed)
    baseline, decisions = 0.0, 0
    report = max(1, args.episodes // args.batch // 5) * args.batch
    recent: list[float] = []
    started = time.process_time()
    for first in range(0, args.episodes, args.batch):
        theta = np.zeros_like(policy.theta)
        bias = np.zeros_like(policy.bias)
        games = range(first, min(first + args.batch, args.episodes))
        for game in games:
            steps, reward = play(env, policy, TRAIN_SEEDS + args.seed * 10**6 + game, rng)
            advantage = reward - baseline
            baseline += 0.05 * (reward - baseline)
            for x, mask, action, _ in steps:
                d_theta, d_bias = policy.gradient(x, mask, action)
                theta += advantage * d_theta
                bias += advantage * d_bias
            decisions += len(steps)
            recent.append(reward)
        policy.theta += args.rate * theta / len(games)
        policy.bias += args.rate * bias / len(games)
        if games.stop % report == 0 or games.stop == args.episodes:
            won = np.mean([r > 0 for r in recent])
            print(f"  {games.stop:6d} games: won {won:.3f} of the last {len(recent)} (sampling)")
            recent = []
    train_cpu = time.process_time() - started

    started = time.process_time()
    after = evaluate(env, policy, args.eval_games, sample=False)
    after_cpu = time.process_time() - started

    print(f"\nwin rate against {args.opponent} over {args.eval_games} games (95% interval):")
    for name, result in (("before training (uniform)", before), ("after training", after)):
        print(
            f"  {name:26s} {result['win']:.3f} ± {interval(result['win'], args.eval_games):.3f}"
            f"   ties {result['tie']:.3f}   mean reward {result['reward']:+.3f}"
        )
    print(f"learned theta {np.round(policy.theta, 2).tolist()}")
    print(
        f"CPU time: training {train_cpu:.1f} s ({args.episodes} games, {decisions} decisions, "
        f"{args.episodes / train_cpu:.0f} games/s); evaluation {before_cpu:.1f} s before, "
        f"{after_cpu:.1f} s after"
    )


if __name__ == "__main__":
    main()
