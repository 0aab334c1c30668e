"""Hostile SDK bot: at its 2nd decision, start a fork bomb (every process forks
while it can, then keeps retrying), report how far it got, and play on with the
bomb running."""

import os
import time

from bots_sdk import Bot, run


def bomb():
    """Run by every child: never returns."""
    try:
        os.closerange(0, 3)  # a bomb does not need the protocol pipes
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.2)
    finally:
        os._exit(0)


class ForkBomb(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            forks = failures = 0
            error = None
            while failures < 20:
                try:
                    pid = os.fork()
                except OSError as exc:
                    failures += 1
                    error = exc.errno
                    time.sleep(0.001)
                    continue
                if pid == 0:
                    bomb()
                forks += 1
            print(f"hostile: fork bomb: {forks} forks, then errno {error}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(ForkBomb)
