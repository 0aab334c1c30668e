"""Hostile SDK bot: at its 2nd decision, sleep (practically) forever."""

import time

from bots_sdk import Bot, run


class Sleeper(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            print("hostile: sleeping forever", flush=True)
            time.sleep(3600)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Sleeper)
