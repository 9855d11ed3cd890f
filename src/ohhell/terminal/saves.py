"""Saved matches: one ``ohhell play`` at a time on each save, and the
matches set aside when a new one starts.

- ``SaveLock``: while a match is open its save is locked (``fcntl.flock`` on
  ``NAME.lock`` beside it, holding the process id). The operating system
  lets the lock go when the process ends, however it ends, so a crashed
  match never stays locked. A second ``ohhell play`` on a locked save is
  told which process holds it and is offered a match in another file
  (``free_save``) instead: two windows never write the same file.
- ``keep_previous``: a new match at a path that holds an older one moves
  the older one aside, and deletes the oldest of those moved aside beyond a
  few; it never deletes a record that is unfinished, open in a process, or
  not a record it can read.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from pathlib import Path
from typing import Final

from .. import RecordError, load

KEEP_PREVIOUS: Final = 5
"""How many matches moved aside by ``keep_previous`` are kept (the newest);
unfinished ones are kept besides."""


class SaveHeldError(Exception):
    """The save is open in another process; ``pid`` is that process (None
    when it has not written its number yet)."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path, self.pid = path, pid
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(f"the match saved in {path} is open in another ohhell play ({who})")


def lock_path(path: Path) -> Path:
    """The lock file beside a save: ``current.ohr.lock``."""
    return path.with_name(path.name + ".lock")


class SaveLock:
    """The lock on one save, held from ``take`` until ``release`` or the end
    of the process."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def take(cls, path: Path) -> SaveLock:
        """Lock ``path`` for this process; raise ``SaveHeldError`` when another
        process holds it, ``OSError`` when the lock file cannot be made."""
        if sys.platform == "win32":  # pragma: no cover - no flock there: no lock
            return cls(path, None)
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _pid_in(fd)
            os.close(fd)
            raise SaveHeldError(path, pid) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Let the save go (closing the file releases the lock)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


def _pid_in(fd: int) -> int | None:
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else None


def is_held(path: Path) -> bool:
    """Does a process hold ``path``'s lock now?"""
    if sys.platform == "win32" or not lock_path(path).exists():  # pragma: no cover - no flock there
        return False
    try:
        SaveLock.take(path).release()
    except SaveHeldError:
        return True
    except OSError:
        return True  # cannot tell: count it as held, so it is never deleted
    return False


def free_save(path: Path) -> tuple[Path, SaveLock]:
    """A new save beside a held ``path`` (``current-2.ohr``, ``current-3.ohr``
    and on), no file yet and locked for this process."""
    for k in range(2, 1000):
        other = path.with_name(f"{path.stem}-{k}{path.suffix}")
        if other.exists():
            continue
        try:
            lock = SaveLock.take(other)
        except SaveHeldError:
            continue
        if other.exists():  # made between the look and the lock
            lock.release()
            continue
        return other, lock
    raise OSError(f"no free file name beside {path}")  # pragma: no cover


def is_finished(path: Path) -> bool:
    """Is ``path`` a record of a match that is over?"""
    try:
        return load(path).replay().is_over
    except (OSError, RecordError):
        return False


def keep_previous(path: Path, keep: int = KEEP_PREVIOUS) -> Path | None:
    """Move an existing record at ``path`` aside (``current-20240101-120000.ohr``)
    so a new match never overwrites an old one, and delete the finished ones
    moved aside before, beyond the ``keep`` newest; return where it went, if
    anywhere. The caller holds ``path``'s lock."""
    if not path.exists():
        return None
    stamp = _timestamp()
    for k in range(1, 1000):
        target = path.with_name(f"{path.stem}-{stamp}{'' if k == 1 else f'-{k}'}{path.suffix}")
        if not target.exists():
            path.replace(target)
            break
    else:  # pragma: no cover
        raise OSError(f"cannot find a free name to keep {path}")
    pattern = re.compile(re.escape(path.stem) + r"-\d{8}-\d{6}(?:-\d+)?" + re.escape(path.suffix))
    kept = [p for p in path.parent.iterdir() if pattern.fullmatch(p.name)]

    def age(kept_path: Path) -> tuple[str, int]:  # the stamp, then the -k suffix of the same second
        date, clock, *k = kept_path.stem[len(path.stem) + 1 :].split("-")
        return date + clock, int(k[0]) if k else 1

    kept.sort(key=age, reverse=True)
    for old in kept[max(keep, 1) :]:
        # Only a finished match that no process has open is deleted: an
        # unfinished one may still be resumed, and one open may be written.
        if old != target and is_finished(old) and not is_held(old):
            with contextlib.suppress(OSError):
                old.unlink()
                lock_path(old).unlink(missing_ok=True)
    return target


def _timestamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")
