"""What a failed call raises.

The API answers every error as RFC 9457 problem details (``application/problem+json``);
:class:`RecallError` carries them, with the per-field errors a 400 names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, List, Optional


@dataclass(frozen=True)
class FieldError:
    """Where a request was wrong (``body.content``, ``query.limit``, ``path.sessionId``) and why."""

    field: str
    message: str


class RecallError(Exception):
    """A non-success answer from the API, after any retries."""

    def __init__(
        self,
        status: int,
        method: str,
        url: str,
        body: bytes,
        retry_after: Optional[str] = None,
    ) -> None:
        problem = _problem(body)
        self.status = status
        self.method = method
        self.url = url
        self.type: str = _text(problem.get("type")) or "about:blank"
        self.title: str = _text(problem.get("title")) or f"HTTP {status}"
        detail = _text(problem.get("detail"))
        self.detail: str = detail if detail is not None else body[:500].decode("utf-8", "replace") if not problem else ""
        self.errors: List[FieldError] = [
            FieldError(e["field"], e["message"])
            for e in problem.get("errors") or []
            if isinstance(e, dict) and isinstance(e.get("field"), str) and isinstance(e.get("message"), str)
        ]
        #: The Retry-After of the last answer, when the server sent one (429, 503).
        self.retry_after = retry_after
        suffix = f": {self.detail}" if self.detail else ""
        super().__init__(f"{method} {url}: {status} {self.title}{suffix}")

    def field_error(self, field: str) -> Optional[str]:
        """The message the server gave for one field, e.g. ``err.field_error("body.content")``."""
        return next((e.message for e in self.errors if e.field == field), None)


class RecallConnectionError(Exception):
    """The call got no answer: the connection was refused or reset, or could not be made, after any retries.

    ``reason`` is the network error (``ConnectionRefusedError``, ``ConnectionResetError``, ...), also kept as
    ``__cause__``; ``attempts`` is how many times the call was sent.
    """

    def __init__(self, method: str, url: str, reason: BaseException, attempts: int) -> None:
        self.method = method
        self.url = url
        self.reason = reason
        self.attempts = attempts
        plural = "" if attempts == 1 else "s"
        super().__init__(f"{method} {url}: no answer ({type(reason).__name__}: {reason}) after {attempts} attempt{plural}")


class RecallTimeoutError(Exception):
    """No answer within the configured timeout (an attempt, or a wait for a document or turn)."""

    def __init__(self, timeout: float, what: str) -> None:
        self.timeout = timeout
        super().__init__(f"{what}: no answer within {timeout:g} s")


class RecallPipelineError(Exception):
    """A document's or turn's extraction ended ``failed``; ``status`` is its status, naming the stage and error."""

    def __init__(self, what: str, status: Any) -> None:
        self.status = status
        super().__init__(f"{what} failed: {json.dumps(status)[:500]}")


def _problem(body: bytes) -> dict:
    try:
        parsed = json.loads(body.decode("utf-8"))
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None
