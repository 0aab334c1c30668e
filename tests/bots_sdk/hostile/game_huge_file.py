"""Hostile SDK bot: at its 1st decision, try to write a 1 GiB file in /tmp,
/dev/shm, its own directory /bot and /; report what each allowed on stderr,
remove what it wrote and play on."""

import contextlib
import os

from bots_sdk import Bot, run


def fill(path):
    written = 0
    try:
        with open(path, "wb", buffering=0) as handle:
            chunk = b"\1" * (1 << 20)
            while written < 1 << 30:
                written += handle.write(chunk)
        return f"wrote {written} bytes"
    except OSError as exc:
        return f"wrote {written} bytes, then {type(exc).__name__} errno {exc.errno}"
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


class FileFiller(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            for path in ("/tmp/huge", "/dev/shm/huge", "/bot/huge", "/huge"):
                print(f"hostile: {path}: {fill(path)}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(FileFiller)
