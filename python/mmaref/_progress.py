"""The status of long calls: ``progress=`` of dot, check_vectors, metrics and
gemm_metrics.

``None`` (the default): a tqdm bar where tqdm is installed and stderr is a
terminal, nothing otherwise; ``False``: nothing; ``True``: a bar (tqdm, or a
plain status line on stderr without it); a callable: called as
``progress(done, total, seconds)`` from the calling thread."""
import sys
import time
from typing import Any, Callable, Optional

Progress = Any  # None | bool | Callable[[int, int, float], Any]


class _Line:
    """A status line on stderr redrawn at most four times a second (tqdm's
    look without tqdm)."""

    def __init__(self, what: str, unit: str):
        self.what, self.unit, self.last, self.drawn = what, unit, 0.0, False

    def __call__(self, done: int, total: int, seconds: float) -> None:
        now = time.monotonic()
        if now - self.last < 0.25 and done < total:
            return
        self.last = now
        pct = f" ({100 * done / total:.0f}%)" if total else ""
        sys.stderr.write(f"\r{self.what}: {done:,} of {total:,} {self.unit}{pct}, {seconds:.1f} s   ")
        sys.stderr.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\r" + " " * 79 + "\r")
            sys.stderr.flush()


class _Tqdm:
    def __init__(self, tqdm: Any, what: str, unit: str):
        self.bar = tqdm(desc=what, unit=" " + unit, unit_scale=True, leave=False)

    def __call__(self, done: int, total: int, seconds: float) -> None:
        if self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()


class Reporter:
    """The callback a long call gives its loop, and close() after it."""

    def __init__(self, progress: Progress, what: str, unit: str):
        self.fn: Optional[Callable[[int, int, float], Any]] = None
        self.bar: Any = None
        if progress is None or progress is True:
            try:
                from tqdm import tqdm  # type: ignore
            except ImportError:
                tqdm = None
            if tqdm is not None and (progress is True or sys.stderr.isatty()):
                self.bar = _Tqdm(tqdm, what, unit)
            elif progress is True:
                self.bar = _Line(what, unit)
            self.fn = self.bar
        elif progress is False:
            pass
        elif callable(progress):
            self.fn = progress
        else:
            raise TypeError(f"progress: None, True, False or a callable (done, total, seconds), not {progress!r}")
        self.t0 = time.monotonic()

    def __bool__(self) -> bool:
        return self.fn is not None

    def __call__(self, done: int, total: int, seconds: Optional[float] = None) -> None:
        if self.fn is not None:
            self.fn(int(done), int(total), time.monotonic() - self.t0 if seconds is None else float(seconds))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> "Reporter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
