"""The transport against a local http.server that answers as scripted: retries on 429/503 with
Retry-After and one Idempotency-Key per call, problem+json as RecallError, timeouts, the query
string of a scope, and a multipart upload as the server receives it."""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
import unittest
from unittest import mock
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List, Tuple

from recall_client import RecallClient, RecallConnectionError, RecallError, RecallTimeoutError, RetryPolicy

CONTEXT = "ctx-1"
RESET = 0  # a scripted "answer" that resets the connection instead


class Scripted:
    """Answers each request with the next scripted (status, headers, body, delay) and records what came."""

    def __init__(self) -> None:
        self.answers: List[Tuple[int, dict, bytes, float]] = []
        self.seen: List[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep the test output clean
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.seen.append({"method": self.command, "path": self.path, "headers": self.headers, "body": body})
                status, headers, payload, delay = outer.answers.pop(0)
                if status == RESET:  # close with a TCP reset before any answer
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if delay:
                    threading.Event().wait(delay)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:
                pass  # a client that gave up (the timeout test) leaves a broken pipe behind: expected

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add(self, status: int, body: object = None, headers: dict = None, delay: float = 0.0, content_type: str = "application/json") -> None:
        payload = b"" if body is None else json.dumps(body).encode()
        self.answers.append((status, {"Content-Type": content_type, **(headers or {})}, payload, delay))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


PROBLEM = {
    "type": "https://recall.dev/problems/invalid_request",
    "title": "invalid request",
    "status": 400,
    "detail": "body.content: must not be empty",
    "errors": [{"field": "body.content", "message": "must not be empty"}],
}


class TransportTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = Scripted()
        self.recall = RecallClient(
            base_url=self.server.url, api_key="rk_test", context_id=CONTEXT, retry=RetryPolicy(max_attempts=3, base_delay=0.01)
        )

    def tearDown(self) -> None:
        self.server.close()

    def test_503_and_429_are_retried_after_retry_after_under_one_idempotency_key(self) -> None:
        self.server.add(503, {"title": "busy"}, {"Retry-After": "0"}, content_type="application/problem+json")
        self.server.add(429, {"title": "slow down"}, {"Retry-After": "0"}, content_type="application/problem+json")
        self.server.add(201, {"session_id": "s-1"})
        self.assertEqual(self.recall.create_session(), "s-1")
        keys = [r["headers"].get("Idempotency-Key") for r in self.server.seen]
        self.assertEqual(len(keys), 3)
        self.assertEqual(len(set(keys)), 1, keys)
        self.assertRegex(keys[0], r"^[0-9a-f-]{36}$")
        self.assertEqual(self.server.seen[0]["path"], f"/api/v1/{CONTEXT}/sessions")
        self.assertEqual(self.server.seen[0]["headers"]["API-KEY"], "rk_test")

    def test_the_newest_consistency_token_answered_is_sent_with_the_calls_after_it(self) -> None:
        self.server.add(201, {"session_id": "s"}, {"Recall-Consistency": "1/A0"})
        self.server.add(201, {"session_id": "s"}, {"Recall-Consistency": "0/FFFFFFFF"})
        self.server.add(200, {"entities": [], "instructions": [], "next_cursor": None})
        self.recall.create_session()
        self.recall.create_session()
        self.recall.profile()
        sent = [r["headers"].get("Recall-Consistency") for r in self.server.seen]
        # The second answer's position is older (answers to calls at once may cross): the newest is kept.
        self.assertEqual(sent, [None, "1/A0", "1/A0"])

    def test_read_your_writes_off_sends_no_token(self) -> None:
        recall = RecallClient(base_url=self.server.url, api_key="k", context_id=CONTEXT, read_your_writes=False)
        self.server.add(201, {"session_id": "s"}, {"Recall-Consistency": "1/A0"})
        self.server.add(200, {"entities": [], "instructions": [], "next_cursor": None})
        recall.create_session()
        recall.profile()
        self.assertEqual([r["headers"].get("Recall-Consistency") for r in self.server.seen], [None, None])

    def test_each_call_gets_its_own_key_and_a_given_key_is_sent_as_is(self) -> None:
        for _ in range(3):
            self.server.add(201, {"session_id": "s"})
        self.recall.create_session()
        self.recall.create_session()
        self.recall.create_session(idempotency_key="mine-1")
        keys = [r["headers"]["Idempotency-Key"] for r in self.server.seen]
        self.assertNotEqual(keys[0], keys[1])
        self.assertEqual(keys[2], "mine-1")

    def test_retries_end_after_max_attempts_and_a_retry_after_past_max_delay_is_not_waited_for(self) -> None:
        for _ in range(3):
            self.server.add(503, {"title": "busy"}, {"Retry-After": "0"}, content_type="application/problem+json")
        with self.assertRaises(RecallError) as raised:
            self.recall.profile({"user": "alice"})
        self.assertEqual((raised.exception.status, raised.exception.retry_after), (503, "0"))
        self.assertEqual(len(self.server.seen), 3)

        self.server.seen.clear()
        self.server.add(429, {"title": "slow down"}, {"Retry-After": "3600"}, content_type="application/problem+json")
        with self.assertRaises(RecallError) as raised:
            self.recall.profile({"user": "alice"})
        self.assertEqual((raised.exception.status, raised.exception.retry_after), (429, "3600"))
        self.assertEqual(len(self.server.seen), 1)

    def test_the_default_waits_outlast_a_restart_within_the_30_s_budget_and_a_retry_after_past_it_ends_them(self) -> None:
        waits: List[float] = []
        self.server.close()  # its port now refuses: every attempt is retried until the budget is spent
        recall = RecallClient(base_url=self.server.url, api_key="k", context_id=CONTEXT)
        recall._transport._sleep = waits.append  # counts the waits instead of waiting them
        with self.assertRaises(RecallConnectionError) as caught:
            recall.profile()
        self.assertEqual(caught.exception.attempts, len(waits) + 1)
        self.assertLessEqual(max(waits), 2.0)
        self.assertGreater(sum(waits), 28.0)
        self.assertLessEqual(sum(waits), 30.0)

        policy = RetryPolicy(budget=5.0)
        transport = recall._transport
        transport.retry = policy
        self.assertEqual(transport._next_delay("3", 1, 0.0), 3.0)
        self.assertIsNone(transport._next_delay("3", 2, 3.0), "3 s more would be 6 s of waiting")
        self.assertEqual(transport._next_delay("2", 2, 3.0), 2.0)

    def test_a_refused_connection_is_a_recall_connection_error_with_its_cause_after_every_attempt(self) -> None:
        self.server.close()  # its port now refuses
        with self.assertRaises(RecallConnectionError) as caught:
            self.recall.create_session()
        self.assertEqual(caught.exception.attempts, 3)
        self.assertIsInstance(caught.exception.__cause__, ConnectionRefusedError)
        self.assertIsInstance(caught.exception.reason, ConnectionRefusedError)

    def test_a_write_whose_connection_is_reset_is_sent_again_under_the_same_key(self) -> None:
        self.server.answers.append((RESET, {}, b"", 0.0))
        self.server.add(201, {"session_id": "s-1"})
        self.assertEqual(self.recall.create_session(), "s-1")
        keys = [seen["headers"]["Idempotency-Key"] for seen in self.server.seen]
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])

    def test_a_problem_answer_is_a_recall_error_with_status_title_detail_and_fields(self) -> None:
        self.server.add(400, PROBLEM, content_type="application/problem+json")
        with self.assertRaises(RecallError) as raised:
            self.recall.add_turn("s-1", role="user", content="")
        err = raised.exception
        self.assertEqual((err.status, err.title, err.type), (400, "invalid request", PROBLEM["type"]))
        self.assertEqual(err.detail, "body.content: must not be empty")
        self.assertEqual(err.field_error("body.content"), "must not be empty")
        self.assertEqual([e.field for e in err.errors], ["body.content"])
        self.assertEqual(len(self.server.seen), 1, "a 400 is final")

    def test_a_slow_answer_raises_recall_timeout_error(self) -> None:
        self.server.add(200, {"entities": []}, delay=1.0)
        slow = RecallClient(base_url=self.server.url, api_key="rk_test", context_id=CONTEXT, timeout=0.2)
        with self.assertRaises(RecallTimeoutError):
            slow.profile({"user": "alice"})

    def test_scope_goes_into_the_query_string_as_the_api_reads_it(self) -> None:
        self.server.add(200, {"entities": [], "instructions": [], "next_cursor": None})
        self.server.add(200, {"work_items": [], "next_cursor": None})
        self.recall.profile({"org": "acme", "user": "alice"}, limit=5)
        self.recall.work_items(status=["failed", "dead"], limit=2)
        self.assertEqual(self.server.seen[0]["path"], f"/api/v1/{CONTEXT}/profile?scope%5Borg%5D=acme&scope%5Buser%5D=alice&limit=5")
        self.assertEqual(self.server.seen[1]["path"], f"/api/v1/{CONTEXT}/work-items?status=failed%2Cdead&limit=2")

    def test_an_upload_is_multipart_with_the_file_and_its_fields(self) -> None:
        self.server.add(202, {"document_id": "d-1", "format": "markdown"})
        self.recall.upload_document(b"# Notes\n\nAlice is the CTO.", file_name="notes.md", scope=["org=acme"], source="notes-1")
        request = self.server.seen[0]
        raw = f"Content-Type: {request['headers']['Content-Type']}\r\n\r\n".encode() + request["body"]
        parts = {p.get_param("name", header="content-disposition"): p for p in BytesParser(policy=HTTP).parsebytes(raw).iter_parts()}
        self.assertEqual(sorted(parts), ["file", "scope", "source"])
        self.assertEqual(parts["file"].get_filename(), "notes.md")
        self.assertEqual(parts["file"].get_content_type(), "text/markdown")
        self.assertEqual(parts["file"].get_payload(decode=True), b"# Notes\n\nAlice is the CTO.")
        self.assertEqual(parts["scope"].get_payload(decode=True), b"org=acme")
        self.assertIn("Idempotency-Key", request["headers"])

    def test_memory_calls_need_a_context(self) -> None:
        # Without RECALL_CONTEXT_ID too: the service tests run with it set, and the client reads it as a default.
        with mock.patch.dict(os.environ):
            os.environ.pop("RECALL_CONTEXT_ID", None)
            with self.assertRaisesRegex(ValueError, "needs a context"):
                RecallClient(base_url=self.server.url).profile({"user": "alice"})


if __name__ == "__main__":
    unittest.main()
