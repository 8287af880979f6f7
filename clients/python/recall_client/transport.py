"""One HTTP call with retries, over urllib.

Every write carries one ``Idempotency-Key``, reused by each of its attempts, so a write the
server already took is not stored twice. ``429`` and ``503`` are retried after the server's
``Retry-After`` (seconds or an HTTP date), else with exponential backoff and jitter; a
``Retry-After`` longer than ``max_delay`` ends the retries, and so does a wait that would take
the call's waits past ``budget`` (30 s by default: long enough to outlast an API restart).
Reads are also retried after a network error; a write only after a refused or reset connection (under the same key, so a
write the server took before the reset is answered, not stored again). What no attempt got an
answer to raises :class:`RecallConnectionError`, the network error kept as its cause.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, BinaryIO, Callable, Dict, Mapping, Optional, Union

from .errors import RecallConnectionError, RecallError, RecallTimeoutError

RETRYABLE_STATUSES = frozenset({429, 503})
#: Network errors after which a write is sent again: the connection was refused, or reset before an answer.
RESENDABLE = (ConnectionRefusedError, ConnectionResetError, BrokenPipeError)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class RetryPolicy:
    """Up to 30 s of waiting in all by default, as long as the longest Retry-After honoured: a restart of the API
    (3 to 10 s under a supervisor, longer on a loaded machine) is outlasted, and the backoff is capped at 2 s so the
    call goes through soon after the server is back."""

    #: Attempts in all, the first included (1 turns retries off); ``budget`` usually ends the retries first.
    max_attempts: int = 40
    #: First backoff in seconds when the server gives no Retry-After; doubled each attempt.
    base_delay: float = 0.25
    #: The longest backoff: a server coming back is noticed within this long.
    max_backoff: float = 2.0
    #: The longest wait between attempts; a longer Retry-After ends the retries instead.
    max_delay: float = 30.0
    #: Seconds of waiting between the attempts of one call, in all: a wait that would go past it ends the retries.
    budget: float = 30.0

    def delay(self, retry_after: Optional[str], attempt: int, now: Optional[float] = None) -> Optional[float]:
        """Seconds to wait before attempt ``attempt + 1``; None when the server asks for longer than allowed."""
        asked = parse_retry_after(retry_after, time.time() if now is None else now)
        if asked is not None:
            return asked if asked <= self.max_delay else None
        backoff = min(self.max_backoff, self.max_delay, self.base_delay * 2 ** (attempt - 1))
        # Half fixed, half random, so clients refused together do not come back together.
        return backoff / 2 + random.random() * backoff / 2


def parse_retry_after(value: Optional[str], now: float) -> Optional[float]:
    """Retry-After is delay-seconds or an HTTP date (RFC 9110 section 10.2.3)."""
    text = (value or "").strip()
    if not text:
        return None
    if text.isdigit():
        return float(text)
    try:
        return max(0.0, parsedate_to_datetime(text).timestamp() - now)
    except (TypeError, ValueError):
        return None


@dataclass
class Request:
    method: str
    url: str
    headers: Dict[str, str]
    #: bytes, or a binary file read as the request goes (sent chunked)
    body: Optional[Union[bytes, BinaryIO]] = None


CONSISTENCY = "Recall-Consistency"


def wal_position(token: str) -> int:
    """A consistency token as the server writes it (a Postgres WAL position, ``16/B374D848``) as a number; -1 if not one."""
    high, sep, low = token.partition("/")
    try:
        return (int(high, 16) << 32) + int(low, 16) if sep and 0 < len(high) <= 8 and 0 < len(low) <= 8 else -1
    except ValueError:
        return -1


class Transport:
    def __init__(
        self,
        timeout: float,
        retry: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        read_your_writes: bool = True,
    ) -> None:
        self.timeout = timeout
        self.retry = retry
        self._sleep = sleep
        #: The newest consistency token a write was answered with, sent with every later call so a read right
        #: after a write sees it where the server reads from replicas; None: none yet, or tracking is off.
        self.consistency: Optional[str] = None
        self._read_your_writes = read_your_writes

    def _note_consistency(self, headers: Mapping[str, str]) -> None:
        answered = headers.get(CONSISTENCY)
        if self._read_your_writes and answered and (self.consistency is None or wal_position(answered) > wal_position(self.consistency)):
            self.consistency = answered

    def send(self, request: Request, idempotency_key: Optional[str] = None) -> Any:
        """Sends the request until it is answered for good; returns the parsed 2xx body or raises RecallError."""
        safe = request.method in SAFE_METHODS
        if not safe:
            request.headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        if self.consistency and CONSISTENCY not in request.headers:
            request.headers[CONSISTENCY] = self.consistency
        # A body read from a file goes once: it cannot be sent again.
        resendable = request.body is None or isinstance(request.body, bytes)
        waited = 0.0
        attempt = 1
        while True:
            answer = self._once(request)
            if isinstance(answer, BaseException):
                again = (safe or isinstance(answer, RESENDABLE)) and resendable
                delay = self._next_delay(None, attempt, waited) if again else None
                if delay is None:
                    raise RecallConnectionError(request.method, request.url, answer, attempt) from answer
            else:
                status, headers, body = answer
                if 200 <= status < 300:
                    self._note_consistency(headers)
                    return _parse(headers, body)
                retry_after = headers.get("Retry-After")
                delay = self._next_delay(retry_after, attempt, waited) if status in RETRYABLE_STATUSES else None
                if delay is None:
                    raise RecallError(status, request.method, request.url, body, retry_after)
            self._sleep(delay)
            waited += delay
            attempt += 1

    def _next_delay(self, retry_after: Optional[str], attempt: int, waited: float) -> Optional[float]:
        """The wait before attempt ``attempt + 1``; None once attempts or the budget are spent."""
        if attempt >= self.retry.max_attempts:
            return None
        delay = self.retry.delay(retry_after, attempt)
        return delay if delay is not None and waited + delay <= self.retry.budget else None

    def stream_to(self, request: Request, sink: BinaryIO, chunk_size: int = 64 * 1024) -> int:
        """GETs the request once and copies its 2xx body into ``sink`` chunk by chunk; returns the bytes written."""
        req = urllib.request.Request(request.url, headers=request.headers, method=request.method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                written = 0
                while True:
                    chunk = response.read(chunk_size)
                    if not chunk:
                        return written
                    sink.write(chunk)
                    written += len(chunk)
        except urllib.error.HTTPError as err:
            try:
                raise RecallError(err.code, request.method, request.url, err.read(), err.headers.get("Retry-After")) from None
            finally:
                err.close()
        except (socket.timeout, TimeoutError) as err:
            raise RecallTimeoutError(self.timeout, f"{request.method} {request.url}") from err

    def _once(self, r: Request):
        """The answer as (status, headers, body), or the network error that kept it from coming."""
        req = urllib.request.Request(r.url, data=r.body, headers=r.headers, method=r.method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as err:
            try:
                return err.code, err.headers, err.read()
            finally:
                err.close()
        except (socket.timeout, TimeoutError) as err:
            raise RecallTimeoutError(self.timeout, f"{r.method} {r.url}") from err
        except urllib.error.URLError as err:
            if isinstance(err.reason, (socket.timeout, TimeoutError)):
                raise RecallTimeoutError(self.timeout, f"{r.method} {r.url}") from err
            return err.reason if isinstance(err.reason, BaseException) else err
        except (ConnectionError, http.client.HTTPException) as err:
            return err


def _parse(headers: Mapping[str, str], body: bytes) -> Any:
    if not body:
        return None
    if "json" in (headers.get("Content-Type") or ""):
        return json.loads(body.decode("utf-8"))
    return body.decode("utf-8", "replace")
