"""RecallClient: one method per thing a person does with Recall.

Paths and bodies follow the API's routes (``/api/v1/{context_id}/...``); answers are the parsed
JSON, as the OpenAPI document at ``/openapi.json`` describes them. Failed calls raise
:class:`~recall_client.errors.RecallError`.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, BinaryIO, Dict, Iterable, List, Mapping, Optional, Sequence, Union
from urllib.parse import quote, urlencode

from .errors import RecallPipelineError, RecallTimeoutError
from .multipart import encode_upload, media_type_of
from .transport import Request, RetryPolicy, Transport

#: A reader's or writer's scope: ``{"org": "acme", "user": "alice"}`` or ``["org=acme", "user=alice"]``.
Scope = Union[Mapping[str, str], Sequence[str]]
Json = Dict[str, Any]


def _env(name: str) -> Optional[str]:
    value = os.environ.get(name, "").strip()
    return value or None


class RecallClient:
    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        context_id: Optional[str] = None,
        *,
        admin_key: Optional[str] = None,
        timeout: float = 60.0,
        retry: Optional[RetryPolicy] = None,
        read_your_writes: bool = True,
    ) -> None:
        """
        :param base_url: where the API listens, e.g. ``http://127.0.0.1:8080``; default ``RECALL_URL`` from the environment
        :param api_key: the context's API key (sent as the ``API-KEY`` header); default ``RECALL_API_KEY``
        :param context_id: the context (tenant) every memory call is about; default ``RECALL_CONTEXT_ID``
        :param admin_key: the server's ``ADMIN_API_KEY``, for :meth:`create_context`
        :param timeout: seconds to connect and for each read of an answer (a turn waits up to the
            server's ``TURN_TIMEOUT_MS``, 30 s by default)
        :param retry: attempts and backoff for 429 and 503 answers
        :param read_your_writes: send the consistency token of this client's last write with each later call, so
            a read right after a write sees it where the server reads from replicas (docs/operating.md)
        """
        # As the Quickstart exports them, so an example runs unchanged on any port; an argument given wins.
        base_url = base_url or _env("RECALL_URL")
        if not base_url:
            raise ValueError("RecallClient needs base_url, or RECALL_URL in the environment (e.g. http://localhost:8080)")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key or _env("RECALL_API_KEY")
        self.context_id = context_id or _env("RECALL_CONTEXT_ID")
        self.admin_key = admin_key
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._transport = Transport(timeout, self.retry, read_your_writes=read_your_writes)

    def with_context(self, context_id: str, api_key: str) -> "RecallClient":
        """The same server and settings, for another context (e.g. one just made by :meth:`create_context`)."""
        return RecallClient(
            self.base_url, api_key, context_id, admin_key=self.admin_key, timeout=self.timeout, retry=self.retry
        )

    # Sessions and turns

    def create_session(self, metadata: Optional[Mapping[str, Any]] = None, *, idempotency_key: Optional[str] = None) -> str:
        """Starts a conversation session; returns its id."""
        body = {"metadata": dict(metadata)} if metadata is not None else {}
        return self._ctx("POST", "/sessions", body=body, idempotency_key=idempotency_key)["session_id"]

    def add_turn(
        self,
        session_id: str,
        *,
        role: str,
        content: str,
        scope: Optional[Scope] = None,
        name: Optional[str] = None,
        occurred_at: Optional[str] = None,
        attachments: Optional[Sequence[Mapping[str, Any]]] = None,
        wait: bool = True,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Adds a turn (``role``: user, assistant, system or tool).

        ``attachments``: images, files or links shared with it, up to 8, each
        ``{"kind": "image" | "file" | "link", "caption"?, "alt_text"?, "url"?, "mime_type"?}``; the caption and
        alt text are remembered like the content, a URL is stored and never fetched.

        With ``wait=True`` the answer comes once its extraction is committed, with the ``diff``;
        ``extraction.status`` is ``pending`` if it took longer than the server waits. With
        ``wait=False`` it is ``pending`` at once, with a ``status_url``: see :meth:`turn_status`.
        """
        body = _drop_none(
            {
                "role": role,
                "content": content,
                "scope": _scope_list(scope),
                "name": name,
                "occurred_at": occurred_at,
                "attachments": None if attachments is None else [dict(a) for a in attachments],
            }
        )
        body["wait"] = wait
        return self._ctx("POST", f"/sessions/{_id(session_id)}/turns", body=body, idempotency_key=idempotency_key)

    def turn_status(self, session_id: str, turn_id: str) -> Json:
        """A turn's extraction: pending, committed (with its diff) or failed (with the work item to retry)."""
        return self._ctx("GET", f"/sessions/{_id(session_id)}/turns/{_id(turn_id)}/status")

    def wait_for_turn(self, session_id: str, turn_id: str, *, timeout: float = 120.0, interval: float = 0.2) -> Json:
        """Polls :meth:`turn_status` until committed (or ``awaiting_model``: no model is configured for the rest); raises RecallPipelineError if it failed."""
        return _poll(
            lambda: self.turn_status(session_id, turn_id),
            lambda s: s["extraction"]["status"],
            f"turn {turn_id}",
            timeout,
            interval,
        )

    def list_turns(self, session_id: str, *, scope: Optional[Scope] = None, limit: Optional[int] = None, cursor: Optional[str] = None) -> Json:
        """The session's turns the reader's scope may see, in order, a page at a time (``next_cursor``)."""
        return self._ctx("GET", f"/sessions/{_id(session_id)}/turns", query={"scope": scope, "limit": limit, "cursor": cursor})

    def get_turn(self, session_id: str, turn_id: str, scope: Optional[Scope] = None) -> Json:
        """One turn with its whole ``content``: where a :meth:`query` hit with ``truncated: True`` is read in full."""
        return self._ctx("GET", f"/sessions/{_id(session_id)}/turns/{_id(turn_id)}", query={"scope": scope})

    def add_turns(self, session_id: str, turns: Iterable[Mapping[str, Any]], *, idempotency_key: Optional[str] = None) -> Json:
        """Imports up to 500 turns of one session in order (``{"role", "content", "scope"?, "name"?, "occurred_at"?, "attachments"?}``);
        answers at once with ``batch_id`` and ``turn_ids``: see :meth:`batch_status`."""
        body = {"turns": [_with_scope_list(t) for t in turns]}
        return self._ctx("POST", f"/sessions/{_id(session_id)}/turns/batch", body=body, idempotency_key=idempotency_key)

    def batch_status(self, session_id: str, batch_id: str) -> Json:
        """A batch's ``state`` (processing or done), turns per state, and each failed turn with its work item."""
        return self._ctx("GET", f"/sessions/{_id(session_id)}/turn-batches/{_id(batch_id)}")

    # Reading memory

    def profile(self, scope: Optional[Scope] = None, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Json:
        """Entities in the reader's scope with their current facts, and the active instructions."""
        return self._ctx("GET", "/profile", query={"scope": scope, "limit": limit, "cursor": cursor})

    def state(
        self,
        scope: Optional[Scope] = None,
        *,
        as_of: Optional[str] = None,
        recorded_as_of: Optional[str] = None,
        include_resolved: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Json:
        """Facts true at ``as_of`` (valid time) as known at ``recorded_as_of`` (system time), instructions, open unknowns."""
        body = {
            "scope": _scope_body(scope),
            "as_of": as_of,
            "recorded_as_of": recorded_as_of,
            "include_resolved": include_resolved,
            "limit": limit,
            "cursor": cursor,
        }
        return self._ctx("POST", "/state", body=_drop_none(body))

    def query(
        self,
        query: str,
        scope: Optional[Scope] = None,
        *,
        limit: Optional[int] = None,
        kinds: Optional[Sequence[str]] = None,
        match: Optional[str] = None,
    ) -> Json:
        """Searches facts, instructions, turns and document text; each result links to its source."""
        body = {"query": query, "scope": _scope_body(scope), "limit": limit, "kinds": _list(kinds), "match": match}
        return self._ctx("POST", "/query", body=_drop_none(body))

    def context(
        self,
        message: str,
        scope: Optional[Scope] = None,
        *,
        max_tokens: Optional[int] = None,
        as_of: Optional[str] = None,
        session_id: Optional[str] = None,
    ) -> Json:
        """A system-prompt block for ``message`` within ``max_tokens`` (o200k, default 1500): ``text``, ``tokens``, ``sections``."""
        body = {"message": message, "scope": _scope_body(scope), "max_tokens": max_tokens, "as_of": as_of, "session_id": session_id}
        return self._ctx("POST", "/context", body=_drop_none(body))

    def write_facts(
        self,
        scope: Optional[Scope] = None,
        *,
        entities: Optional[Sequence[Mapping[str, Any]]] = None,
        attributes: Optional[Sequence[Mapping[str, Any]]] = None,
        relations: Optional[Sequence[Mapping[str, Any]]] = None,
        instructions: Optional[Sequence[Mapping[str, Any]]] = None,
        uncertainties: Optional[Sequence[Mapping[str, Any]]] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Writes facts directly, validated and committed like extracted ones (``fact_write_id`` names the write)."""
        sections = {
            "entities": entities,
            "attributes": attributes,
            "relations": relations,
            "instructions": instructions,
            "uncertainties": uncertainties,
        }
        body = {"scope": _scope_body(scope), **{k: _list(v) for k, v in sections.items()}}
        return self._ctx("POST", "/facts", body=_drop_none(body), idempotency_key=idempotency_key)

    def provenance(self, fact_id: str, scope: Optional[Scope] = None) -> Json:
        """From an attribute, relation, assertion or instruction id back to the bytes it came from."""
        return self._ctx("GET", f"/facts/{_id(fact_id)}/provenance", query={"scope": scope})

    def history(self, entity_id: str, scope: Optional[Scope] = None, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Json:
        """Every value of an entity's attributes and relations, with validity and supersession."""
        return self._ctx("GET", f"/entities/{_id(entity_id)}/history", query={"scope": scope, "limit": limit, "cursor": cursor})

    # Documents

    def add_document(
        self,
        text: str,
        *,
        format: Optional[str] = None,
        scope: Optional[Scope] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        source: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Sends a document's text (``format``: text, markdown or html); accepted at once, see :meth:`wait_for_document`."""
        body = {"text": text, "format": format, "scope": _scope_list(scope), "metadata": metadata, "source": source}
        return self._ctx("POST", "/documents", body=_drop_none(body), idempotency_key=idempotency_key)

    def upload_document(
        self,
        file: Union[str, "os.PathLike[str]", bytes],
        *,
        file_name: Optional[str] = None,
        media_type: Optional[str] = None,
        scope: Optional[Scope] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        source: Union[str, Mapping[str, Any], None] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Uploads a file (Markdown, HTML, PDF or text) as multipart/form-data: a path, or bytes with ``file_name``.

        ``source`` is the source's id (a later upload under it is the next version) or a source object.
        """
        if isinstance(file, bytes):
            data, name = file, file_name or "document.txt"
        else:
            with open(file, "rb") as handle:
                data = handle.read()
            name = file_name or os.path.basename(os.fspath(file))
        body, content_type = encode_upload(
            data,
            name,
            media_type or media_type_of(name),
            scope=_scope_list(scope) or [],
            metadata=dict(metadata) if metadata is not None else None,
            source=source,
        )
        return self._ctx("POST", "/documents", raw=(body, content_type), idempotency_key=idempotency_key)

    def document_status(self, document_id: str) -> Json:
        """A document's progress by stage, its extraction plan and rejected candidates."""
        return self._ctx("GET", f"/documents/{_id(document_id)}/status")

    def document_text(
        self, document_id: str, scope: Optional[Scope] = None, *, start_byte: Optional[int] = None, end_byte: Optional[int] = None
    ) -> Json:
        """A range of the document's text by UTF-8 byte offsets, at most 150,000 bytes; ``next_start_byte`` continues."""
        query = {"scope": scope, "start_byte": start_byte, "end_byte": end_byte}
        return self._ctx("GET", f"/documents/{_id(document_id)}/text", query=query)

    def wait_for_document(self, document_id: str, *, timeout: float = 120.0, interval: float = 0.2) -> Json:
        """Polls :meth:`document_status` until committed; raises RecallPipelineError if it failed."""
        return _poll(lambda: self.document_status(document_id), lambda s: s["state"], f"document {document_id}", timeout, interval)

    # Delete by source: retract everything derived from a document, a turn or a direct write (nothing is deleted)

    def retract_document(self, document_id: str, reason: str, *, idempotency_key: Optional[str] = None) -> Json:
        return self._ctx("POST", f"/documents/{_id(document_id)}/retract", body={"reason": reason}, idempotency_key=idempotency_key)

    def retract_turn(self, turn_id: str, reason: str, *, idempotency_key: Optional[str] = None) -> Json:
        return self._ctx("POST", f"/turns/{_id(turn_id)}/retract", body={"reason": reason}, idempotency_key=idempotency_key)

    def retract_fact_write(self, fact_write_id: str, reason: str, *, idempotency_key: Optional[str] = None) -> Json:
        return self._ctx("POST", f"/fact-writes/{_id(fact_write_id)}/retract", body={"reason": reason}, idempotency_key=idempotency_key)

    # Erasure: the inputs' text deleted for good from every table, answered with a receipt (docs/erasure.md)

    def erase(
        self,
        *,
        turn_ids: Optional[Sequence[str]] = None,
        document_ids: Optional[Sequence[str]] = None,
        session_ids: Optional[Sequence[str]] = None,
        fact_write_ids: Optional[Sequence[str]] = None,
        scope: Optional[Scope] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        body: Dict[str, Any] = {}
        for name, value in (
            ("turn_ids", turn_ids),
            ("document_ids", document_ids),
            ("session_ids", session_ids),
            ("fact_write_ids", fact_write_ids),
        ):
            if value is not None:
                body[name] = list(value)
        if scope is not None:
            body["scope"] = dict(scope) if isinstance(scope, Mapping) else list(scope)
        return self._ctx("POST", "/erasures", body=body, idempotency_key=idempotency_key)

    def erasure(self, erasure_id: str) -> Json:
        return self._ctx("GET", f"/erasures/{_id(erasure_id)}")

    # Export and import of the context (docs/export-format.md)

    def export_to(
        self,
        sink: BinaryIO,
        *,
        scope: Optional[Scope] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
    ) -> int:
        """Writes the context's NDJSON export into ``sink`` (a binary file-like object) as it arrives; returns the bytes
        written. A complete export ends with its ``{"kind": "end", …}`` line."""
        if not self.context_id or not self.api_key:
            raise ValueError("this call needs a context: pass context_id and api_key (or use with_context)")
        query = _query_string({"scope": scope, "since": since, "until": until})
        url = f"{self.base_url}/api/v1/{_id(self.context_id)}/export{query}"
        headers = {"API-KEY": self.api_key, "Accept": "application/x-ndjson, application/problem+json"}
        return self._transport.stream_to(Request("GET", url, headers), sink)

    def import_export(self, data: Union[bytes, BinaryIO]) -> Json:
        """Imports an export (bytes, or a binary file read as it is sent) into this context: ids remapped, and a second
        import of the same export creates nothing twice. Answers the lines read and the rows created per kind."""
        return self._ctx("POST", "/import", raw=(data, "application/x-ndjson"))

    # Review before commit: candidates a context with ``config.review`` holds until a person approves them

    def reviews(
        self,
        *,
        status: Optional[str] = None,
        turn_id: Optional[str] = None,
        document_id: Optional[str] = None,
        session_id: Optional[str] = None,
        kind: Optional[str] = None,
        memory_category: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Json:
        """Held candidates, oldest first (``status``: pending by default, approved, committed, rejected or withdrawn),
        each with the quote and span it rests on and its source; a page at a time (``next_cursor``)."""
        query = {
            "status": status,
            "turn_id": turn_id,
            "document_id": document_id,
            "session_id": session_id,
            "kind": kind,
            "memory_category": memory_category,
            "limit": limit,
            "cursor": cursor,
        }
        return self._ctx("GET", "/reviews", query=query)

    def review(self, review_id: str) -> Json:
        return self._ctx("GET", f"/reviews/{_id(review_id)}")

    def approve_review(
        self,
        review_id: str,
        *,
        edit: Optional[Mapping[str, Optional[str]]] = None,
        note: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Approves a review, optionally edited (``{field: new value}``, ``None`` removes an optional field); it is
        answered ``approved`` and a worker commits it (then ``committed``). 409 when it was rejected or withdrawn."""
        body = _drop_none({"edit": dict(edit) if edit is not None else None, "note": note})
        return self._ctx("POST", f"/reviews/{_id(review_id)}/approve", body=body, idempotency_key=idempotency_key)

    def reject_review(self, review_id: str, *, note: Optional[str] = None, idempotency_key: Optional[str] = None) -> Json:
        """Rejects a review: recorded, never committed. 409 when it was approved or withdrawn."""
        return self._ctx("POST", f"/reviews/{_id(review_id)}/reject", body=_drop_none({"note": note}), idempotency_key=idempotency_key)

    def bulk_approve_reviews(
        self,
        *,
        review_ids: Optional[Sequence[str]] = None,
        filter: Optional[Mapping[str, str]] = None,
        limit: Optional[int] = None,
        note: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Approves the named reviews, or the pending ones matching ``filter`` (``turn_id``, ``document_id``,
        ``session_id``, ``kind``, ``memory_category``; ``{}`` matches all), at most ``limit`` (500) a call.
        Answers ``decided``, ``unchanged``, ``refused`` and ``remaining`` (call again while it is above 0)."""
        return self._bulk_review("approve", review_ids, filter, limit, note, idempotency_key)

    def bulk_reject_reviews(
        self,
        *,
        review_ids: Optional[Sequence[str]] = None,
        filter: Optional[Mapping[str, str]] = None,
        limit: Optional[int] = None,
        note: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Rejects the named reviews, or the pending ones matching ``filter``, as :meth:`bulk_approve_reviews`."""
        return self._bulk_review("reject", review_ids, filter, limit, note, idempotency_key)

    def _bulk_review(
        self,
        action: str,
        review_ids: Optional[Sequence[str]],
        filter: Optional[Mapping[str, str]],
        limit: Optional[int],
        note: Optional[str],
        idempotency_key: Optional[str],
    ) -> Json:
        body = _drop_none(
            {
                "review_ids": _list(review_ids),
                "filter": dict(filter) if filter is not None else None,
                "limit": limit,
                "note": note,
            }
        )
        return self._ctx("POST", f"/reviews/bulk-{action}", body=body, idempotency_key=idempotency_key)

    # Work items

    def work_items(
        self,
        *,
        status: Union[str, Sequence[str], None] = None,
        queue: Union[str, Sequence[str], None] = None,
        error_class: Union[str, Sequence[str], None] = None,
        document_id: Optional[str] = None,
        session_id: Optional[str] = None,
        turn_id: Optional[str] = None,
        created_after: Optional[str] = None,
        created_before: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Json:
        """Work items, newest first; ``status``, ``queue`` and ``error_class`` take one value or several."""
        query = {
            "status": _csv(status),
            "queue": _csv(queue),
            "error_class": _csv(error_class),
            "document_id": document_id,
            "session_id": session_id,
            "turn_id": turn_id,
            "created_after": created_after,
            "created_before": created_before,
            "limit": limit,
            "cursor": cursor,
        }
        return self._ctx("GET", "/work-items", query=query)

    def work_item(self, work_item_id: str) -> Json:
        """One work item with every attempt: error class and message, budget used, timings, trace id."""
        return self._ctx("GET", f"/work-items/{_id(work_item_id)}")

    def retry_work_item(self, work_item_id: str, *, from_extract: bool = False, idempotency_key: Optional[str] = None) -> Json:
        """Runs a failed, dead or cancelled work item again from its kept input (409 when it is none of those)."""
        query = {"from": "extract"} if from_extract else {}
        return self._ctx("POST", f"/work-items/{_id(work_item_id)}/retry", query=query, idempotency_key=idempotency_key)

    # Usage

    def usage(self, *, group_by: str = "day", from_: Optional[str] = None, to: Optional[str] = None) -> Json:
        """Model calls, tokens and estimated cost of this context between ``from_`` and ``to`` (ISO timestamps; default
        the last 7 days), grouped by ``day``, ``stage`` or ``model``; with the inputs extracted by the stage that finished them."""
        return self._ctx("GET", "/usage", query={"group_by": group_by, "from": from_, "to": to})

    def admin_usage(self, *, group_by: str = "context", from_: Optional[str] = None, to: Optional[str] = None) -> Json:
        """The same across contexts (``group_by`` may also be ``context``); needs ``admin_key``."""
        if not self.admin_key:
            raise ValueError("admin_usage needs admin_key (the server's ADMIN_API_KEY)")
        headers = {"Authorization": f"Bearer {self.admin_key}"}
        return self._send("GET", "/api/v1/admin/usage", headers=headers, query={"group_by": group_by, "from": from_, "to": to})

    # Webhooks: signed pushes of this context's events (docs/webhooks.md)

    def create_webhook(
        self, url: str, events: Sequence[str], *, description: Optional[str] = None, idempotency_key: Optional[str] = None
    ) -> Json:
        """Registers an endpoint; the answer's ``secret`` signs every request and is shown only now."""
        body = _drop_none({"url": url, "events": list(events), "description": description})
        return self._ctx("POST", "/webhooks", body=body, idempotency_key=idempotency_key)

    def webhooks(self) -> Json:
        """The context's webhooks, without their secrets."""
        return self._ctx("GET", "/webhooks")

    def webhook(self, webhook_id: str) -> Json:
        return self._ctx("GET", f"/webhooks/{_id(webhook_id)}")

    def delete_webhook(self, webhook_id: str) -> Json:
        """Deletes the webhook (its pending deliveries are not sent); answers it as it was."""
        return self._ctx("DELETE", f"/webhooks/{_id(webhook_id)}")

    def rotate_webhook_secret(self, webhook_id: str, *, keep_old_for_seconds: Optional[int] = None) -> Json:
        """A new signing secret (shown only now). The old one stops working at once, or with ``keep_old_for_seconds``
        (at most 7 days) keeps signing beside the new one until then."""
        body = {} if keep_old_for_seconds is None else {"keep_old_for_seconds": keep_old_for_seconds}
        return self._ctx("POST", f"/webhooks/{_id(webhook_id)}/rotate-secret", body=body)

    def enable_webhook(self, webhook_id: str) -> Json:
        """Takes events again on a webhook disabled for failing; its pending deliveries are tried at once."""
        return self._ctx("POST", f"/webhooks/{_id(webhook_id)}/enable", body={})

    def webhook_deliveries(self, webhook_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Json:
        """Deliveries, newest first: status, attempts, last answer code, next try."""
        return self._ctx("GET", f"/webhooks/{_id(webhook_id)}/deliveries", query={"limit": limit, "cursor": cursor})

    def redeliver(self, webhook_id: str, delivery_id: str) -> Json:
        """Sends the delivery again with the same event id."""
        return self._ctx("POST", f"/webhooks/{_id(webhook_id)}/deliveries/{_id(delivery_id)}/redeliver")

    # Admin and health

    def create_context(self, name: str, config: Optional[Mapping[str, Any]] = None) -> Json:
        """A new context and its first API key (shown once); needs ``admin_key``."""
        if not self.admin_key:
            raise ValueError("create_context needs admin_key (the server's ADMIN_API_KEY)")
        body = _drop_none({"name": name, "config": dict(config) if config is not None else None})
        headers = {"Authorization": f"Bearer {self.admin_key}"}
        return self._send("POST", "/api/v1/contexts", headers=headers, body=body)

    def health(self) -> Json:
        """``GET /healthz``: the process is up."""
        return self._send("GET", "/healthz")

    # Plumbing

    def _ctx(self, method: str, path: str, **kwargs: Any) -> Any:
        if not self.context_id or not self.api_key:
            raise ValueError("this call needs a context: pass context_id and api_key (or use with_context)")
        return self._send(method, f"/api/v1/{_id(self.context_id)}{path}", headers={"API-KEY": self.api_key}, **kwargs)

    def _send(
        self,
        method: str,
        path: str,
        *,
        headers: Optional[Dict[str, str]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        raw: Optional[tuple] = None,
        idempotency_key: Optional[str] = None,
    ) -> Any:
        all_headers = {"Accept": "application/json, application/problem+json", **(headers or {})}
        data = None
        if raw is not None:
            data, all_headers["Content-Type"] = raw
        elif body is not None:
            data = json.dumps(body).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        url = self.base_url + path + _query_string(query or {})
        return self._transport.send(Request(method, url, all_headers, data), idempotency_key)


def _poll(read, state_of, what: str, timeout: float, interval: float) -> Json:
    deadline = time.monotonic() + timeout
    pause = interval
    while True:
        status = read()
        state = state_of(status)
        # awaiting_model: the rules' sure part is committed and the rest waits for a model none is configured for.
        if state in ("committed", "awaiting_model"):
            return status
        if state in ("failed", "cancelled"):
            raise RecallPipelineError(what, status)
        left = deadline - time.monotonic()
        if left <= 0:
            raise RecallTimeoutError(timeout, f"waiting for {what} (state {state})")
        time.sleep(min(pause, left))
        pause = min(2.0, pause * 1.5)


def _query_string(query: Mapping[str, Any]) -> str:
    pairs: List[tuple] = []
    for key, value in query.items():
        if value is None:
            continue
        if key == "scope":
            pairs.extend(_scope_query(value))
        else:
            pairs.append((key, str(value).lower() if isinstance(value, bool) else str(value)))
    return "?" + urlencode(pairs) if pairs else ""


def _scope_query(scope: Scope) -> List[tuple]:
    """``scope[org]=acme&scope[user]=alice`` for an object, ``scope=org=acme`` repeated for a list."""
    if isinstance(scope, Mapping):
        return [(f"scope[{key}]", value) for key, value in scope.items()]
    return [("scope", entry) for entry in _scope_entries(scope)]


def _scope_body(scope: Optional[Scope]) -> Any:
    if scope is None or isinstance(scope, Mapping):
        return dict(scope) if scope is not None else None
    return _scope_entries(scope)


def _scope_list(scope: Optional[Scope]) -> Optional[List[str]]:
    """Turns and documents take their scope as a list of ``key=value`` entries."""
    if scope is None:
        return None
    if isinstance(scope, Mapping):
        return [f"{key}={value}" for key, value in scope.items()]
    return _scope_entries(scope)


def _scope_entries(scope: Sequence[str]) -> List[str]:
    if isinstance(scope, str):
        raise TypeError('scope is a list of "key=value" entries or a dict, not one string')
    return list(scope)


def _with_scope_list(turn: Mapping[str, Any]) -> Json:
    out = dict(turn)
    if "scope" in out:
        out["scope"] = _scope_list(out["scope"])
    return out


def _csv(value: Union[str, Sequence[str], None]) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    return ",".join(value)


def _list(value: Optional[Sequence[Any]]) -> Optional[List[Any]]:
    return None if value is None else [dict(v) if isinstance(v, Mapping) else v for v in value]


def _drop_none(body: Mapping[str, Any]) -> Json:
    return {k: v for k, v in body.items() if v is not None}


def _id(value: str) -> str:
    return quote(str(value), safe="")
