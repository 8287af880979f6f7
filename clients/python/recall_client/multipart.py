"""multipart/form-data for document uploads, with the standard library only."""

from __future__ import annotations

import json
import mimetypes
import uuid
from typing import Any, Iterable, List, Optional, Tuple

# The types the API reads; mimetypes may not know .md on every Python.
_KNOWN_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".txt": "text/plain",
}


def media_type_of(file_name: str) -> str:
    """The media type to declare for a file name (the server checks it against the bytes)."""
    lower = file_name.lower()
    for extension, media_type in _KNOWN_TYPES.items():
        if lower.endswith(extension):
            return media_type
    return mimetypes.guess_type(file_name)[0] or "application/octet-stream"


def encode_upload(
    data: bytes,
    file_name: str,
    media_type: str,
    scope: Iterable[str] = (),
    metadata: Optional[dict] = None,
    source: Any = None,
) -> Tuple[bytes, str]:
    """The body and Content-Type of an upload: a ``file`` part, and ``scope``, ``metadata`` and ``source`` fields."""
    boundary = f"recall-{uuid.uuid4().hex}"
    fields: List[Tuple[str, str]] = [("scope", entry) for entry in scope]
    if metadata is not None:
        fields.append(("metadata", json.dumps(metadata)))
    if source is not None:
        fields.append(("source", source if isinstance(source, str) else json.dumps(source)))
    parts = [_part(boundary, f'name="{name}"', None, value.encode("utf-8")) for name, value in fields]
    parts.append(_part(boundary, f'name="file"; filename="{_quoted(file_name)}"', media_type, data))
    body = b"".join(parts) + f"--{boundary}--\r\n".encode("ascii")
    return body, f"multipart/form-data; boundary={boundary}"


def _part(boundary: str, disposition: str, media_type: Optional[str], value: bytes) -> bytes:
    head = f"--{boundary}\r\nContent-Disposition: form-data; {disposition}\r\n"
    if media_type:
        head += f"Content-Type: {media_type}\r\n"
    return head.encode("utf-8") + b"\r\n" + value + b"\r\n"


def _quoted(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")
