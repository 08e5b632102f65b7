"""``tf.io.gfile``: files and directories through TensorFlow's file-system interface, on the local file system.

``GFile`` opens lazily as TF's does, reads bytes in binary modes and UTF-8 text in the others (no newline
translation: TF reads bytes and decodes them), and every failure raises TF's error class and text (``NotFoundError:
<path>; No such file or directory``, ``AlreadyExistsError: file already exists``, ...). Paths may be ``file://`` URLs;
other schemes raise UnimplementedError.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any, NamedTuple

from modtensor.framework import errors
from modtensor.framework.file_system import local_path, matching_paths, os_error

__all__ = ["GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join", "listdir", "makedirs", "mkdir",
           "remove", "rename", "rmtree", "stat", "walk"]  # fmt: skip


class FileStatistics(NamedTuple):
    """What ``stat`` tells: the size in bytes, the modification time in nanoseconds, whether it is a directory."""

    length: int
    mtime_nsec: int
    is_directory: bool


def _call(path: str, action: Any, *args: Any) -> Any:
    try:
        return action(*args)
    except OSError as e:
        raise os_error(e, path) from None


class GFile:
    """A file of the local file system with TF's ``GFile`` interface (``mode`` "r", "rb", "w", "wb", "a", "ab")."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        if mode not in ("r", "rb", "w", "wb", "a", "ab"):
            message = f"mode is not 'r' or 'w' or 'a' or 'rb' or 'wb' or 'ab': {mode}"
            raise errors.InvalidArgumentError(None, None, message)
        self.__name = os.fsdecode(os.fspath(name))
        self.__mode = mode
        self.__binary = "b" in mode
        self.__file: Any = None

    @property
    def name(self) -> str:
        """The file's name as given."""
        return self.__name

    @property
    def mode(self) -> str:
        """The mode it was opened with."""
        return self.__mode

    def _opened(self) -> Any:
        if self.__file is None:
            path = local_path(self.__name)
            raw_mode = self.__mode[0] + "b"
            self.__file = _call(self.__name, open, path, raw_mode)
        return self.__file

    def _text(self, data: bytes) -> Any:
        return data if self.__binary else data.decode("utf-8")

    def size(self) -> int:
        """The file's size in bytes (what was written so far, for a file being written)."""
        if self.__file is not None and self.__mode[0] != "r":
            self.__file.flush()
        return _call(self.__name, os.path.getsize, local_path(self.__name))

    def read(self, n: int = -1) -> Any:
        """``n`` bytes (all that remain for -1), decoded in text modes."""
        self._check_readable()
        return self._text(self._opened().read(None if n is None or n < 0 else n))

    def readline(self) -> Any:
        """The next line with its newline, or an empty string at the end."""
        self._check_readable()
        return self._text(self._opened().readline())

    def readlines(self) -> list[Any]:
        """Every remaining line."""
        self._check_readable()
        return [self._text(line) for line in self._opened().readlines()]

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def write(self, file_content: Any) -> None:
        """Append ``file_content`` (str as UTF-8, or bytes)."""
        if self.__mode[0] == "r":
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        data = file_content.encode("utf-8") if isinstance(file_content, str) else bytes(file_content)
        self._opened().write(data)

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None) -> int:
        """Move to ``offset`` (relative to ``whence``: 0 start, 1 current, 2 end); ``position`` is TF's old name."""
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        return self._opened().seek(position if offset is None else offset, whence)

    def tell(self) -> int:
        """The current position in bytes."""
        return self._opened().tell()

    def flush(self) -> None:
        """Write what is buffered."""
        if self.__file is not None:
            self.__file.flush()

    def close(self) -> None:
        """Flush and close (a later read or write opens it again)."""
        if self.__file is not None:
            self.__file.close()
            self.__file = None

    def seekable(self) -> bool:
        """Always True: local files can seek."""
        return True

    def _check_readable(self) -> None:
        if self.__mode[0] != "r":
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a finalizer must not raise
            self.close()


def exists(path: Any) -> bool:
    """Whether ``path`` names a file or a directory."""
    return os.path.exists(local_path(path))


def isdir(path: Any) -> bool:
    """Whether ``path`` is a directory."""
    return os.path.isdir(local_path(path))


def glob(pattern: Any) -> list[str]:
    """The paths matching ``pattern`` (a glob, or a list of them), pattern by pattern, each in the file system's
    order (as TF: not sorted)."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    return [path for p in patterns for path in matching_paths(os.fsdecode(os.fspath(p)))]


def listdir(path: Any) -> list[str]:
    """The names in directory ``path`` (without . and ..) in the file system's order, as TF lists them;
    NotFoundError when it is not a directory."""
    local = local_path(path)
    if not os.path.isdir(local):
        raise errors.NotFoundError(None, None, f"Could not find directory {os.fsdecode(os.fspath(path))}")
    return _call(local, os.listdir, local)


def makedirs(path: Any) -> None:
    """Create ``path`` and the directories above it that are missing."""
    local = local_path(path)
    _call(os.fsdecode(os.fspath(path)), os.makedirs, local, 0o777, True)


def mkdir(path: Any) -> None:
    """Create directory ``path`` (its parent must exist; an existing directory is fine, as in TF)."""
    local = local_path(path)
    if not os.path.isdir(local):
        _call(os.fsdecode(os.fspath(path)), os.mkdir, local)


def remove(path: Any) -> None:
    """Delete file ``path``."""
    _call(os.fsdecode(os.fspath(path)), os.remove, local_path(path))


def rmtree(path: Any) -> None:
    """Delete directory ``path`` and everything in it."""
    local = local_path(path)
    if not os.path.exists(local):
        raise errors.NotFoundError(None, None, f"{os.fsdecode(os.fspath(path))} not found")
    _call(os.fsdecode(os.fspath(path)), shutil.rmtree, local)


def _target_free(target: str, overwrite: bool) -> None:
    if not overwrite and os.path.exists(target):
        raise errors.AlreadyExistsError(None, None, "file already exists")


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Move ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists, unless ``overwrite``)."""
    source, target = local_path(src), local_path(dst)
    _target_free(target, overwrite)
    _call(os.fsdecode(os.fspath(src)), os.replace, source, target)


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copy file ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists, unless ``overwrite``)."""
    source, target = local_path(src), local_path(dst)
    _target_free(target, overwrite)
    _call(os.fsdecode(os.fspath(src)), shutil.copyfile, source, target)


def stat(path: Any) -> FileStatistics:
    """The size, modification time (ns) and kind of ``path``."""
    info = _call(os.fsdecode(os.fspath(path)), os.stat, local_path(path))
    return FileStatistics(info.st_size, info.st_mtime_ns, os.path.isdir(local_path(path)))


def walk(top: Any, topdown: bool = True, onerror: Any = None) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(directory, subdirectories, files)`` for ``top`` and every directory below it, in listdir's order."""
    top = os.fsdecode(os.fspath(top))
    try:
        names = listdir(top)
    except errors.NotFoundError as e:
        if onerror is not None:
            onerror(e)
        return
    subdirs = [n for n in names if isdir(join(top, n))]
    files = [n for n in names if n not in subdirs]
    if topdown:
        yield top, subdirs, files
    for subdir in subdirs:
        yield from walk(join(top, subdir), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def join(path: Any, *paths: Any) -> str:
    """Path components joined with '/' (a URL's scheme kept), as TF joins them."""
    return os.path.join(os.fsdecode(os.fspath(path)), *(os.fsdecode(os.fspath(p)) for p in paths))


def get_registered_schemes() -> list[str]:
    """The URL schemes served: local files only."""
    return ["file"]
