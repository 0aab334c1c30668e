"""A seccomp BPF program for bots, assembled in pure Python.

bubblewrap loads a compiled classic-BPF program given with ``--seccomp FD``
(the raw ``struct sock_filter`` array, 8 bytes per instruction, native byte
order) right before it executes the bot. The program:

* kills the process for any architecture other than x86-64 (this closes the
  32-bit ``int 0x80`` door) and denies x32 system calls;
* returns ``ENOSYS`` for every system call newer than :data:`LAST_VETTED_SYSCALL`,
  as a kernel that predates it would: each kernel release adds calls (and
  attack surface) that nobody here has looked at, and libc falls back;
* returns ``EPERM`` for the system calls in :data:`DENIED_SYSCALLS`;
* returns ``EAFNOSUPPORT`` for ``socket`` and ``socketpair`` of any address
  family but those in :data:`ALLOWED_SOCKET_FAMILIES` (unix sockets only):
  namespaces do not isolate every family (``AF_VSOCK`` reaches the host
  whatever the network namespace), and the kernel answers so for a family it
  was built without;
* returns ``EPERM`` for ``clone`` with any namespace flag or ``CLONE_PIDFD``,
  and for the terminal-injection ``ioctl`` requests ``TIOCSTI`` / ``TIOCLINUX``;
* returns ``ENOSYS`` for ``clone3`` (its flags sit behind a pointer that BPF
  cannot read, so libc falls back to ``clone``, which is checked);
* allows everything else.
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Collection, Mapping

# Classic BPF opcodes (linux/bpf_common.h).
_BPF_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_BPF_JMP_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_BPF_JMP_JGE_K = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
_BPF_JMP_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_BPF_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K

# Return values (linux/seccomp.h).
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# Offsets inside struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6];}.
_OFF_NR = 0
_OFF_ARCH = 4


def _arg_low(index: int) -> int:
    """Offset of the low 32 bits of argument ``index`` (little endian)."""
    return 16 + 8 * index


# Namespace flags refused in clone(2)'s first argument.
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NAMESPACE_FLAGS = (
    CLONE_NEWNS
    | CLONE_NEWCGROUP
    | CLONE_NEWUTS
    | CLONE_NEWIPC
    | CLONE_NEWUSER
    | CLONE_NEWPID
    | CLONE_NEWNET
)

#: A pidfd from clone: denied like pidfd_open (the handle of process_madvise & co).
CLONE_PIDFD = 0x00001000

TIOCSTI = 0x5412
TIOCLINUX = 0x541C

NR_IOCTL = 16
NR_SOCKET = 41
NR_SOCKETPAIR = 53
NR_CLONE = 56
NR_CLONE3 = 435

#: The newest x86-64 system call this filter was written for (process_mrelease,
#: Linux 5.15); newer ones get ENOSYS. Python 3.11 and glibc 2.36 use none.
LAST_VETTED_SYSCALL = 448

AF_UNIX = 1
#: Address families a bot may create sockets of (socket, socketpair): unix
#: sockets are what Python itself uses (multiprocessing, asyncio, socketpair).
ALLOWED_SOCKET_FAMILIES: frozenset[int] = frozenset({AF_UNIX})

#: x86-64 system calls that return EPERM inside the sandbox.
DENIED_SYSCALLS: Mapping[str, int] = {
    # debugging / reading other processes
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "pidfd_open": 434,
    "process_madvise": 440,
    "process_mrelease": 448,
    "perf_event_open": 298,
    # kernel keyrings
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    # big kernel attack surfaces
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "memfd_secret": 447,  # memory even the kernel's direct map does not hold
    "landlock_create_ruleset": 444,
    "landlock_add_rule": 445,
    "landlock_restrict_self": 446,
    "modify_ldt": 154,
    # namespaces and mounts
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "fanotify_init": 300,
    # kernel, modules, machine state
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "create_module": 174,
    "get_kernel_syms": 177,
    "query_module": 178,
    "uselib": 134,
    "_sysctl": 156,
    "nfsservctl": 180,
    "lookup_dcookie": 212,
    "syslog": 103,
    "reboot": 169,
    "swapon": 167,
    "swapoff": 168,
    "acct": 163,
    "quotactl": 179,
    "quotactl_fd": 443,
    "iopl": 172,
    "ioperm": 173,
    "vhangup": 153,
    "sethostname": 170,
    "setdomainname": 171,
    "settimeofday": 164,
    "clock_settime": 227,
    "clock_adjtime": 305,
    "adjtimex": 159,
    "personality": 135,
    # NUMA page moving
    "move_pages": 279,
    "migrate_pages": 256,
}

_Insn = tuple[int, int | str, int | str, int]  # code, jt, jf, k (jumps may be labels)


def _assemble(program: list[_Insn | str]) -> bytes:
    """Resolve label jumps (relative, forward only) and pack sock_filter structs."""
    labels: dict[str, int] = {}
    insns: list[_Insn] = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(insns)
        else:
            insns.append(item)

    def offset(target: int | str, here: int) -> int:
        if isinstance(target, int):
            return target
        delta = labels[target] - here - 1
        if not 0 <= delta <= 255:
            raise ValueError(f"seccomp jump to {target!r} out of range: {delta}")
        return delta

    out = bytearray()
    for index, (code, jt, jf, k) in enumerate(insns):
        out += struct.pack("=HBBI", code, offset(jt, index), offset(jf, index), k)
    return bytes(out)


def build_filter(
    denied: Mapping[str, int] = DENIED_SYSCALLS,
    *,
    socket_families: Collection[int] = ALLOWED_SOCKET_FAMILIES,
) -> bytes:
    """Return the BPF program (raw ``struct sock_filter[]`` bytes) for x86-64."""
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    enosys = SECCOMP_RET_ERRNO | errno.ENOSYS
    eafnosupport = SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT
    program: list[_Insn | str] = [
        (_BPF_LD_W_ABS, 0, 0, _OFF_ARCH),
        (_BPF_JMP_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (_BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        (_BPF_LD_W_ABS, 0, 0, _OFF_NR),
        (_BPF_JMP_JGE_K, "eperm", 0, X32_SYSCALL_BIT),
        (_BPF_JMP_JGE_K, "enosys", 0, LAST_VETTED_SYSCALL + 1),
        (_BPF_JMP_JEQ_K, "clone", 0, NR_CLONE),
        (_BPF_JMP_JEQ_K, "ioctl", 0, NR_IOCTL),
        (_BPF_JMP_JEQ_K, "socket", 0, NR_SOCKET),
        (_BPF_JMP_JEQ_K, "socket", 0, NR_SOCKETPAIR),
        (_BPF_JMP_JEQ_K, "enosys", 0, NR_CLONE3),
    ]
    for number in sorted(set(denied.values())):
        program.append((_BPF_JMP_JEQ_K, "eperm", 0, number))
    program += [
        (_BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        "socket",
        (_BPF_LD_W_ABS, 0, 0, _arg_low(0)),
        *[(_BPF_JMP_JEQ_K, "allow", 0, family) for family in sorted(socket_families)],
        (_BPF_RET_K, 0, 0, eafnosupport),
        "clone",
        (_BPF_LD_W_ABS, 0, 0, _arg_low(0)),
        (_BPF_JMP_JSET_K, "eperm", 0, CLONE_NAMESPACE_FLAGS | CLONE_PIDFD),
        (_BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        "ioctl",
        (_BPF_LD_W_ABS, 0, 0, _arg_low(1)),
        (_BPF_JMP_JEQ_K, "eperm", 0, TIOCSTI),
        (_BPF_JMP_JEQ_K, "eperm", 0, TIOCLINUX),
        (_BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        "allow",
        (_BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        "eperm",
        (_BPF_RET_K, 0, 0, eperm),
        "enosys",
        (_BPF_RET_K, 0, 0, enosys),
    ]
    return _assemble(program)


#: The default program, built once.
BOT_FILTER: bytes = build_filter()
