"""The local file system as TensorFlow's ``Env`` presents it to ops and to ``tf.io.gfile``: TF's error classes and
texts for failed operations, and glob patterns matched as ``GetMatchingPaths`` matches them.

Only local paths (or ``file://`` URLs) are served; other schemes (``gs://``, ``hdfs://``, ...) are refused by name.
"""

from __future__ import annotations

import errno
import glob
import os

from modtensor.framework import errors

__all__ = ["local_path", "matching_paths", "os_error"]

_KINDS = {
    errno.ENOENT: errors.NotFoundError,
    errno.EISDIR: errors.FailedPreconditionError,
    errno.ENOTDIR: errors.FailedPreconditionError,
    errno.EACCES: errors.PermissionDeniedError,
    errno.EPERM: errors.PermissionDeniedError,
    errno.EEXIST: errors.AlreadyExistsError,
    errno.ENOSPC: errors.ResourceExhaustedError,
}


def os_error(error: OSError, path: str) -> errors.OpError:
    """TF's status for a failed file operation: ``path; strerror`` with the errno's error class."""
    message = f"{path}; {os.strerror(error.errno) if error.errno else error}"
    return _KINDS.get(error.errno, errors.UnknownError)(None, None, message)


def local_path(path: str | bytes | os.PathLike) -> str:
    """``path`` as a local file name (a ``file://`` URL's path); UnimplementedError for another scheme."""
    path = os.fsdecode(os.fspath(path))
    scheme, sep, rest = path.partition("://")
    if not sep:
        return path
    if scheme == "file":
        return rest
    raise errors.UnimplementedError(
        None, None, f"File system scheme '{scheme}' not implemented (file: '{path}'): modtensor reads local files only"
    )


def matching_paths(pattern: str) -> list[str]:
    """The paths matching ``pattern`` (``*``, ``?`` and ``[...]`` within one path component, hidden files too), in
    the order the file system lists them, as TF's GetMatchingPaths gives them (MatchingFiles sorts them)."""
    return glob.glob(local_path(pattern), include_hidden=True)
