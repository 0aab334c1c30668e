"""Hostile SDK bot: at its 3rd decision, exit with status 0 in the middle of the game."""

import sys

from bots_sdk import Bot, run


class Quitter(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 3:
            print("hostile: exiting mid-game", flush=True)
            sys.exit(0)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Quitter)
