"""Hostile SDK bot: "loads its tables" for an hour before it starts the protocol."""

import sys
import time

from bots_sdk import Bot, run


class SlowStarter(Bot):
    def act(self, observation):
        return observation["legal_actions"][0]


if __name__ == "__main__":
    print("hostile: loading tables", file=sys.stderr, flush=True)
    time.sleep(3600)
    run(SlowStarter)
