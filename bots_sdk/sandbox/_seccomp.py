"""A seccomp BPF program for bots, assembled in pure Python.

bubblewrap loads a compiled classic-BPF program given with ``--seccomp FD``
(the raw ``struct sock_filter`` array, 8 bytes per instruction, native byte
order) right before it executes the bot. The program is an allow-list:

* it kills the process for any architecture other than x86-64 (this closes
  the 32-bit ``int 0x80`` door) and denies x32 system calls;
* it allows the system calls in :data:`ALLOWED_SYSCALLS`, enumerated by name:
  what the bot runtimes and their compilers (Python, Node.js, gcc, g++,
  OpenJDK, rustc, Go) use, and nothing that reaches past the bot's own
  processes and files;
* it returns ``EPERM`` for the system calls in :data:`DENIED_SYSCALLS`, the
  known dangerous ones, named so a test can show each is refused;
* it returns ``ENOSYS`` for every other number, as a kernel without that
  call would: libc and the runtimes fall back (``clone3`` to ``clone``, for
  one), and a call added by a newer kernel stays closed until someone here
  has looked at it;
* among the allowed calls, ``socket`` and ``socketpair`` get ``EAFNOSUPPORT``
  for any address family but those in :data:`ALLOWED_SOCKET_FAMILIES` (unix
  sockets only): namespaces do not isolate every family (``AF_VSOCK`` reaches
  the host whatever the network namespace), and the kernel answers so for a
  family it was built without; ``clone`` gets ``EPERM`` with any namespace
  flag or ``CLONE_PIDFD``, and ``ioctl`` for the terminal-injection requests
  ``TIOCSTI`` / ``TIOCLINUX``.

The decision over the call number is a balanced tree of range checks, so a
call costs a dozen BPF instructions whatever the length of the lists.
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
_BPF_JMP_JA = 0x05 | 0x00  # BPF_JMP | BPF_JA: unconditional, 32-bit offset in k
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

AF_UNIX = 1
#: Address families a bot may create sockets of (socket, socketpair): unix
#: sockets are what Python itself uses (multiprocessing, asyncio, socketpair).
ALLOWED_SOCKET_FAMILIES: frozenset[int] = frozenset({AF_UNIX})

#: x86-64 system calls a bot may make; every other number is refused (see above).
# fmt: off
ALLOWED_SYSCALLS: Mapping[str, int] = {
    # files: reading and writing what the bot may reach (its own view of the file system)
    "read": 0, "write": 1, "readv": 19, "writev": 20, "pread64": 17, "pwrite64": 18, "preadv": 295,
    "pwritev": 296, "preadv2": 327, "pwritev2": 328, "lseek": 8, "sendfile": 40, "splice": 275,
    "tee": 276, "copy_file_range": 326,
    # files: descriptors
    "open": 2, "openat": 257, "openat2": 437, "creat": 85, "close": 3, "close_range": 436,
    "dup": 32, "dup2": 33, "dup3": 292, "fcntl": 72, "flock": 73, "fsync": 74, "fdatasync": 75,
    "sync_file_range": 277, "fadvise64": 221, "readahead": 187, "fallocate": 285, "truncate": 76,
    "ftruncate": 77,
    # files: names and metadata
    "stat": 4, "fstat": 5, "lstat": 6, "newfstatat": 262, "statx": 332, "statfs": 137,
    "fstatfs": 138, "access": 21, "faccessat": 269, "faccessat2": 439, "readlink": 89,
    "readlinkat": 267, "getdents": 78, "getdents64": 217, "getcwd": 79, "chdir": 80, "fchdir": 81,
    "mkdir": 83, "mkdirat": 258, "rmdir": 84, "rename": 82, "renameat": 264, "renameat2": 316,
    "link": 86, "linkat": 265, "unlink": 87, "unlinkat": 263, "symlink": 88, "symlinkat": 266,
    "mknod": 133, "mknodat": 259, "chmod": 90, "fchmod": 91, "fchmodat": 268, "chown": 92,
    "fchown": 93, "lchown": 94, "fchownat": 260, "umask": 95, "utime": 132, "utimes": 235,
    "utimensat": 280, "futimesat": 261,
    # files: extended attributes (shutil.copystat) and change notification
    "getxattr": 191, "lgetxattr": 192, "fgetxattr": 193, "listxattr": 194, "llistxattr": 195,
    "flistxattr": 196, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197,
    "lremovexattr": 198, "fremovexattr": 199, "inotify_init": 253, "inotify_init1": 294,
    "inotify_add_watch": 254, "inotify_rm_watch": 255,
    # memory (charged to the bot's cgroup; locking is bounded by RLIMIT_MEMLOCK)
    "mmap": 9, "munmap": 11, "mprotect": 10, "mremap": 25, "msync": 26, "mincore": 27,
    "madvise": 28, "brk": 12, "mlock": 149, "mlock2": 325, "munlock": 150, "mlockall": 151,
    "munlockall": 152, "membarrier": 324, "memfd_create": 319, "pkey_mprotect": 329,
    "pkey_alloc": 330, "pkey_free": 331, "get_mempolicy": 239,
    # System V IPC, private to the sandbox's IPC namespace
    "shmget": 29, "shmat": 30, "shmdt": 67, "shmctl": 31, "semget": 64, "semop": 65,
    "semtimedop": 220, "semctl": 66, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71,
    # pipes, event descriptors and waiting on descriptors
    "pipe": 22, "pipe2": 293, "eventfd": 284, "eventfd2": 290, "signalfd": 282, "signalfd4": 289,
    "timerfd_create": 283, "timerfd_settime": 286, "timerfd_gettime": 287, "poll": 7, "ppoll": 271,
    "select": 23, "pselect6": 270, "epoll_create": 213, "epoll_create1": 291, "epoll_ctl": 233,
    "epoll_wait": 232, "epoll_pwait": 281, "epoll_pwait2": 441,
    # sockets: unix ones only (socket and socketpair check the family); no network here
    "socket": 41, "socketpair": 53, "connect": 42, "accept": 43, "accept4": 288, "bind": 49,
    "listen": 50, "shutdown": 48, "getsockname": 51, "getpeername": 52, "setsockopt": 54,
    "getsockopt": 55, "sendto": 44, "recvfrom": 45, "sendmsg": 46, "recvmsg": 47, "sendmmsg": 307,
    "recvmmsg": 299,
    # processes and threads (clone checks its flags); signals reach only the sandbox's pid namespace
    "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "exit": 60,
    "exit_group": 231, "wait4": 61, "waitid": 247, "kill": 62, "tkill": 200, "tgkill": 234,
    "set_tid_address": 218, "set_robust_list": 273, "rseq": 334, "futex": 202,
    "restart_syscall": 219, "arch_prctl": 158, "prctl": 157, "seccomp": 317,
    # identity: the bot user's own ids (changing them needs capabilities the bot has not)
    "getpid": 39, "getppid": 110, "gettid": 186, "getpgrp": 111, "getpgid": 121, "setpgid": 109,
    "getsid": 124, "setsid": 112, "getuid": 102, "geteuid": 107, "getgid": 104, "getegid": 108,
    "getresuid": 118, "getresgid": 120, "getgroups": 115, "setuid": 105, "setgid": 106,
    "setreuid": 113, "setregid": 114, "setresuid": 117, "setresgid": 119, "setfsuid": 122,
    "setfsgid": 123, "setgroups": 116, "capget": 125, "capset": 126,
    # signals and timers
    "rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15, "rt_sigpending": 127,
    "rt_sigtimedwait": 128, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "rt_sigsuspend": 130,
    "sigaltstack": 131, "pause": 34, "alarm": 37, "getitimer": 36, "setitimer": 38,
    "timer_create": 222, "timer_settime": 223, "timer_gettime": 224, "timer_getoverrun": 225,
    "timer_delete": 226, "nanosleep": 35, "clock_nanosleep": 230, "clock_gettime": 228,
    "clock_getres": 229, "gettimeofday": 96, "time": 201, "times": 100,
    # limits and scheduling (raising either needs capabilities the bot has not)
    "getrlimit": 97, "setrlimit": 160, "prlimit64": 302, "getrusage": 98, "getpriority": 140,
    "setpriority": 141, "ioprio_get": 252, "ioprio_set": 251, "sched_yield": 24,
    "sched_getaffinity": 204, "sched_setaffinity": 203, "sched_getparam": 143,
    "sched_setparam": 142, "sched_getscheduler": 145, "sched_setscheduler": 144,
    "sched_get_priority_max": 146, "sched_get_priority_min": 147, "sched_rr_get_interval": 148,
    "sched_getattr": 315, "sched_setattr": 314,
    # the machine, read-only; the terminal (ioctl checks its request)
    "uname": 63, "sysinfo": 99, "getcpu": 309, "getrandom": 318, "ioctl": 16,
}
# fmt: on

#: x86-64 system calls refused with EPERM: the dangerous ones, named (all others
#: outside :data:`ALLOWED_SYSCALLS` get ENOSYS).
DENIED_SYSCALLS: Mapping[str, int] = {
    # debugging / reading other processes
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "pidfd_open": 434,
    "pidfd_send_signal": 424,
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
    "fanotify_mark": 301,
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

_Insn = tuple[int, int | str, int | str, int | str]  # code, jt, jf, k (jumps may be labels)


def _assemble(program: list[_Insn | str]) -> bytes:
    """Resolve label jumps (relative, forward only) and pack sock_filter structs."""
    labels: dict[str, int] = {}
    insns: list[_Insn] = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(insns)
        else:
            insns.append(item)

    def offset(target: int | str, here: int, limit: int) -> int:
        if isinstance(target, int):
            return target
        delta = labels[target] - here - 1
        if not 0 <= delta <= limit:
            raise ValueError(f"seccomp jump to {target!r} out of range: {delta}")
        return delta

    out = bytearray()
    for index, (code, jt, jf, k) in enumerate(insns):
        jt, jf = offset(jt, index, 255), offset(jf, index, 255)
        out += struct.pack("=HBBI", code, jt, jf, offset(k, index, 0xFFFFFFFF))
    return bytes(out)


#: What the filter does with one system call number: return this value, or
#: jump to the label of the argument check of that call.
_Verdict = int | str


def _number_ranges(
    verdicts: Mapping[int, _Verdict], default: _Verdict
) -> list[tuple[int, _Verdict]]:
    """``(first number, verdict)`` of each run of equal verdicts, from 0 up;
    the last run extends to every higher number."""
    ranges: list[tuple[int, _Verdict]] = []
    for number in range(max(verdicts) + 2):
        verdict = verdicts.get(number, default)
        if not ranges or ranges[-1][1] != verdict:
            ranges.append((number, verdict))
    return ranges


def _decide(ranges: list[tuple[int, _Verdict]], tag: str) -> list[_Insn | str]:
    """A balanced tree of ``nr >= first`` checks over ``ranges`` (the number
    is loaded): each leaf returns its verdict or jumps to its check."""
    if len(ranges) == 1:
        verdict = ranges[0][1]
        if isinstance(verdict, str):
            return [(_BPF_JMP_JA, 0, 0, verdict)]
        return [(_BPF_RET_K, 0, 0, verdict)]
    middle = len(ranges) // 2
    upper = f"{tag}u"
    # The far side through an unconditional jump: a conditional one reaches 255 only.
    return [
        (_BPF_JMP_JGE_K, 0, 1, ranges[middle][0]),
        (_BPF_JMP_JA, 0, 0, upper),
        *_decide(ranges[:middle], f"{tag}l"),
        upper,
        *_decide(ranges[middle:], upper),
    ]


def build_filter(
    allowed: Mapping[str, int] = ALLOWED_SYSCALLS,
    denied: Mapping[str, int] = DENIED_SYSCALLS,
    *,
    socket_families: Collection[int] = ALLOWED_SOCKET_FAMILIES,
) -> bytes:
    """Return the BPF program (raw ``struct sock_filter[]`` bytes) for x86-64."""
    both = set(allowed.values()) & set(denied.values())
    if both:
        raise ValueError(f"system calls both allowed and denied: {sorted(both)}")
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    enosys = SECCOMP_RET_ERRNO | errno.ENOSYS
    eafnosupport = SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT
    verdicts: dict[int, _Verdict] = {number: SECCOMP_RET_ALLOW for number in allowed.values()}
    verdicts.update((number, eperm) for number in denied.values())
    checked = {NR_CLONE: "clone", NR_IOCTL: "ioctl", NR_SOCKET: "socket", NR_SOCKETPAIR: "socket"}
    verdicts.update((n, label) for n, label in checked.items() if n in allowed.values())
    program: list[_Insn | str] = [
        (_BPF_LD_W_ABS, 0, 0, _OFF_ARCH),
        (_BPF_JMP_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (_BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        (_BPF_LD_W_ABS, 0, 0, _OFF_NR),
        (_BPF_JMP_JGE_K, "eperm", 0, X32_SYSCALL_BIT),
        *_decide(_number_ranges(verdicts, enosys), "n"),
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
    ]
    return _assemble(program)


#: The default program, built once.
BOT_FILTER: bytes = build_filter()
