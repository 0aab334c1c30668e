"""The bots' seccomp program, run by a small classic-BPF interpreter.

The sandbox tests show the kernel applying the filter to a few calls; here
every system call number is put through the assembled program, so a call
that leaks past the allow-list, or a broken jump in the decision tree, fails.
"""

from __future__ import annotations

import errno
import re
import struct
from pathlib import Path

import pytest

from bots_sdk.sandbox import _seccomp as seccomp

ALLOW = seccomp.SECCOMP_RET_ALLOW
KILL = seccomp.SECCOMP_RET_KILL_PROCESS


def ret_errno(code: int) -> int:
    return seccomp.SECCOMP_RET_ERRNO | code


def run(
    program: bytes, nr: int, args: tuple[int, ...] = (), arch: int = seccomp.AUDIT_ARCH_X86_64
) -> int:
    """What the filter returns for one call (the instructions the builder uses)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *args, *([0] * (6 - len(args))))
    insns = [struct.unpack_from("=HBBI", program, 8 * i) for i in range(len(program) // 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == 0x20:  # ld w abs
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x05:  # ja
            pc += k
        elif code in (0x15, 0x35, 0x45):  # jeq, jge, jset
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if taken else jf
        elif code == 0x06:  # ret k
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")


def test_every_allowed_call_is_allowed() -> None:
    special = {seccomp.NR_SOCKET, seccomp.NR_SOCKETPAIR, seccomp.NR_CLONE, seccomp.NR_IOCTL}
    for name, number in seccomp.ALLOWED_SYSCALLS.items():
        args = (seccomp.AF_UNIX,) if number in (seccomp.NR_SOCKET, seccomp.NR_SOCKETPAIR) else ()
        assert run(seccomp.BOT_FILTER, number, args) == ALLOW, name
    assert special <= set(seccomp.ALLOWED_SYSCALLS.values())


def test_denied_calls_get_eperm_and_every_other_number_enosys() -> None:
    listed = set(seccomp.ALLOWED_SYSCALLS.values())
    denied = set(seccomp.DENIED_SYSCALLS.values())
    outcomes: dict[int, int] = {}
    for number in range(1024):
        if number in listed:
            continue
        outcomes[number] = run(seccomp.BOT_FILTER, number)
    assert {n for n, r in outcomes.items() if r == ret_errno(errno.EPERM)} == denied
    others = {n: r for n, r in outcomes.items() if n not in denied}
    assert set(others.values()) == {ret_errno(errno.ENOSYS)}
    # Calls a newer kernel may add, and the ones this list leaves out on purpose:
    for number in (435, 206, 278, 449, 451, 0x3FFFFFFF):  # clone3, io_setup, vmsplice, ...
        assert run(seccomp.BOT_FILTER, number) == ret_errno(errno.ENOSYS), number


def test_other_architectures_are_killed_and_x32_denied() -> None:
    i386 = 0x40000003
    assert run(seccomp.BOT_FILTER, 0, arch=i386) == KILL
    assert run(seccomp.BOT_FILTER, seccomp.X32_SYSCALL_BIT | 39) == ret_errno(errno.EPERM)


def test_argument_checks() -> None:
    af_inet, af_vsock = 2, 40
    for nr in (seccomp.NR_SOCKET, seccomp.NR_SOCKETPAIR):
        assert run(seccomp.BOT_FILTER, nr, (seccomp.AF_UNIX,)) == ALLOW
        for family in (af_inet, af_vsock):
            assert run(seccomp.BOT_FILTER, nr, (family,)) == ret_errno(errno.EAFNOSUPPORT)
    sigchld = 17
    assert run(seccomp.BOT_FILTER, seccomp.NR_CLONE, (sigchld,)) == ALLOW
    for flag in (seccomp.CLONE_NEWUSER, seccomp.CLONE_NEWNET, seccomp.CLONE_PIDFD):
        assert run(seccomp.BOT_FILTER, seccomp.NR_CLONE, (flag | sigchld,)) == ret_errno(
            errno.EPERM
        )
    tcgets = 0x5401
    assert run(seccomp.BOT_FILTER, seccomp.NR_IOCTL, (0, tcgets)) == ALLOW
    for request in (seccomp.TIOCSTI, seccomp.TIOCLINUX):
        assert run(seccomp.BOT_FILTER, seccomp.NR_IOCTL, (0, request)) == ret_errno(errno.EPERM)


def test_a_call_on_both_lists_is_refused() -> None:
    with pytest.raises(ValueError, match="both allowed and denied"):
        seccomp.build_filter({"read": 0, "ptrace": 101}, {"ptrace": 101})


def test_a_smaller_allow_list_closes_the_rest() -> None:
    program = seccomp.build_filter({"read": 0, "write": 1, "exit_group": 231}, {})
    assert run(program, 1) == ALLOW
    assert run(program, 2) == ret_errno(errno.ENOSYS)
    assert run(program, 230) == ret_errno(errno.ENOSYS)
    assert run(program, 231) == ALLOW


UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")


@pytest.mark.skipif(not UNISTD.exists(), reason="no kernel headers (linux-libc-dev)")
def test_numbers_match_the_kernel_headers() -> None:
    numbers = {m[0]: int(m[1]) for m in re.findall(r"#define __NR_(\w+) (\d+)", UNISTD.read_text())}
    for table in (seccomp.ALLOWED_SYSCALLS, seccomp.DENIED_SYSCALLS):
        wrong = {name: nr for name, nr in table.items() if numbers.get(name) != nr}
        assert wrong == {}
