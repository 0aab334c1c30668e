"""``python -m bots_sdk.sandbox``: run the sandbox self-test and print its report."""

from __future__ import annotations

import sys

from . import SandboxUnavailableError, self_test


def main() -> int:
    try:
        report = self_test()
    except SandboxUnavailableError as error:
        print(error, file=sys.stderr)
        return 1
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
