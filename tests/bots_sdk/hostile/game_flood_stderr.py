"""Hostile SDK bot: at its 1st decision, write 8 MiB to stderr (the sandbox keeps
a capped amount; writes past it fail and are ignored), then play on."""

import contextlib
import os

from bots_sdk import Bot, run


class StderrFlood(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            line = b"flood " * 170 + b"\n"  # 1021 bytes
            for _ in range(8 * 1024):
                with contextlib.suppress(OSError):  # past the cap: EPERM
                    os.write(2, line)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(StderrFlood)
