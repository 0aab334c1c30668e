"""Hostile SDK bot: at its 1st decision, try to read host files: /etc/passwd and
the paths in $HOSTILE_TARGETS (a JSON object label -> path: the worker's
directory, the test's tmp directory, another bot's files). Reports one line per
target on stderr, and "FOUND" with the context of anything that looks like a
secret; then plays on."""

import json
import os

from bots_sdk import Bot, run

MARKER = b"vegas-hostile-secret"


def probe(path):
    """What reading ``path`` gave: its size and any secret, or the error."""
    try:
        if os.path.isdir(path):
            names = sorted(os.listdir(path))
            data = "\n".join(names).encode()
            for name in names:
                full = os.path.join(path, name)
                if os.path.isfile(full):
                    with open(full, "rb") as handle:
                        data += handle.read(65536)
            found = f"listed {len(names)} entries"
        else:
            with open(path, "rb") as handle:
                data = handle.read(1 << 20)
            found = f"read {len(data)} bytes"
    except OSError as exc:
        return f"{type(exc).__name__} errno {exc.errno}"
    at = data.find(MARKER)
    if at >= 0:
        found += " FOUND " + data[at : at + 80].decode("latin-1")
    return found


class FileSpy(Bot):
    decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            targets = {"passwd": "/etc/passwd", **json.loads(os.environ["HOSTILE_TARGETS"])}
            for label, path in targets.items():
                print(f"hostile: {label}: {probe(path)}", flush=True)
        return observation["legal_actions"][0]


if __name__ == "__main__":
    run(FileSpy)
