"""Hostile SDK bot: at its 2nd decision, read address 0 through ctypes (SIGSEGV)."""

import ctypes

from bots_sdk import Bot, run


class Segfault(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            print("hostile: reading address 0", flush=True)
            ctypes.c_long.from_address(0).value  # noqa: B018 - the read is the point
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(Segfault)
