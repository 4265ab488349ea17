"""The parser processes of an index run, made to die with the process that started them: a
`graphctx index` killed with SIGKILL (which it cannot catch) leaves no worker parsing on for nobody.
On Linux the kernel sends each worker SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG);
elsewhere a thread in each worker polls for its parent and exits the worker when it is gone."""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>
POLL_SECONDS = 0.5


def pool(max_workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers exit when this process dies, however it dies."""
    return ProcessPoolExecutor(max_workers=max_workers, initializer=_start_worker, initargs=(os.getpid(),))


def _start_worker(main_pid: int) -> None:
    """Pool initializer: no cycle collector, and death with the parent."""
    no_collector()
    die_with_parent(main_pid)


def die_with_parent(main_pid: int) -> None:
    """Arm the parent-death signal, or start the polling thread where there is none, then check
    that the main process did not die before either was armed. The parent is read after arming: a
    parent that dies before sends no signal, but has left this process an orphan, adopted by another."""
    armed = _arm_parent_death_signal()
    parent = os.getppid()  # the main process, or the start method's server process, which dies with it
    if not armed:
        watch_parent(parent)
    if parent != main_pid and not _alive(main_pid):
        os._exit(1)


def no_collector() -> None:
    """The cycle collector off in a worker process (a parser, a resolution worker): what it inherited
    (modules, grammars, the embedding model; a resolution worker's table and scopes) lives as long as
    it does, and what it makes is freed by reference counts (parsing makes no cycles:
    tests/test_collector.py parses every language's fixtures to check it), so the collector's passes
    found nothing and cost each parser about half a second of a sympy build. Frozen too, should
    anything turn it back on."""
    gc.freeze()
    gc.disable()


def watch_parent(parent: int) -> threading.Thread:
    """Exit this process once `parent` is no longer its parent (an orphan is adopted by another
    process, so its parent id changes): the portable way to notice a parent's death."""

    def poll() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        os._exit(1)

    thread = threading.Thread(target=poll, name="graphctx-parent-watch", daemon=True)
    thread.start()
    return thread


def _arm_parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _alive(pid: int) -> bool:
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
