"""The client against a running Recall: RECALL_URL, RECALL_API_KEY and RECALL_CONTEXT_ID name it
(apps/api/src/e2e/python-client.e2e.test.ts starts one with a scripted model that finds nothing,
so what is extracted here is the heuristics' reading). Skipped when they are not set; the review test
also needs RECALL_ADMIN_KEY (it makes a context that holds its candidates for review)."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, HTTPServer

from recall_client import RecallClient, RecallError

SERVICE = {name: os.environ.get(name) for name in ("RECALL_URL", "RECALL_API_KEY", "RECALL_CONTEXT_ID")}
MISSING = [name for name, value in SERVICE.items() if not value]
ADMIN_KEY = os.environ.get("RECALL_ADMIN_KEY")
ALICE = {"org": "acme", "user": "alice"}


@unittest.skipIf(MISSING, f"no Recall to test against: set {', '.join(MISSING)}")
class ServiceTest(unittest.TestCase):
    recall: RecallClient

    @classmethod
    def setUpClass(cls) -> None:
        cls.recall = RecallClient(
            base_url=SERVICE["RECALL_URL"], api_key=SERVICE["RECALL_API_KEY"], context_id=SERVICE["RECALL_CONTEXT_ID"]
        )

    def test_session_turn_profile_query_provenance_history_and_retraction(self) -> None:
        session_id = self.recall.create_session(metadata={"channel": "python"})
        turn = self.recall.add_turn(
            session_id, role="user", content="I'm Alice, CTO at Acme. Always respond in bullet points.", scope=["org=acme", "user=alice"]
        )
        self.assertEqual(turn["extraction"]["status"], "committed")
        self.assertIn(("Alice", "role", "CTO"), [(a["entity"], a["key"], a["value"]) for a in turn["diff"]["attributes"]])

        profile = self.recall.profile(scope=ALICE)
        alice = next(e for e in profile["entities"] if e["name"] == "Alice")
        role = next(a for a in alice["attributes"] if a["key"] == "role")
        self.assertEqual(role["value"], "CTO")
        self.assertRegex(profile["instructions"][0]["description"], "(?i)bullet points")
        self.assertEqual(self.recall.profile(scope={"org": "acme"})["entities"], [], "Alice's scope is not the org's")

        state = self.recall.state(ALICE)
        self.assertIn(("role", "CTO"), [(f.get("key"), f.get("value")) for f in state["facts"]])
        found = self.recall.query("what does Alice do at Acme", ["org=acme", "user=alice"], limit=5)
        self.assertTrue({"attribute", "turn"} <= {r["kind"] for r in found["results"]}, found)
        packed = self.recall.context("What does Alice do at Acme?", ALICE, max_tokens=200)
        self.assertLessEqual(packed["tokens"], 200)
        # The packed turn says the fact, so it is in sections and its words are in the text once.
        self.assertIn("I'm Alice, CTO at Acme.", packed["text"])
        self.assertIn(("role", "CTO"), [(f.get("predicate"), f.get("value")) for f in packed["sections"]["facts"]])
        self.assertRegex(packed["sections"]["instructions"][0]["description"], "(?i)bullet points")

        provenance = self.recall.provenance(role["id"], scope=ALICE)
        self.assertEqual((provenance["source"]["type"], provenance["source"]["session_id"]), ("turn", session_id))
        self.assertIn("CTO at Acme", provenance["span"]["text"])
        history = self.recall.history(alice["id"], scope=ALICE)
        self.assertIn(("role", "CTO", True), [(v.get("key"), v.get("value"), v["current"]) for v in history["values"]])
        self.assertEqual([t["turn_id"] for t in self.recall.list_turns(session_id, scope=ALICE)["turns"]], [turn["turn_id"]])

        retraction = self.recall.retract_turn(turn["turn_id"], "the user asked to forget it")
        self.assertEqual((retraction["source_type"], retraction["retracted"]["attributes"]), ("turn", 1))
        self.assertEqual(self.recall.profile(scope=ALICE)["entities"], [])

    def test_attachments_are_kept_and_searched(self) -> None:
        session_id = self.recall.create_session()
        photo = {"kind": "image", "caption": "a lighthouse named Pelvaroth at dusk", "url": "https://example.com/p.jpg"}
        turn = self.recall.add_turn(session_id, role="user", content="Take a look!", scope=["org=photos"], attachments=[photo])
        self.assertEqual(self.recall.get_turn(session_id, turn["turn_id"], scope=["org=photos"])["attachments"], [photo])
        found = self.recall.query("Pelvaroth lighthouse", ["org=photos"], limit=5)
        self.assertIn(turn["turn_id"], [r["id"] for r in found["results"] if r["kind"] == "turn"])

    def test_erasure_and_its_receipt(self) -> None:
        session_id = self.recall.create_session()
        turn = self.recall.add_turn(session_id, role="user", content="I'm Yusuf, CTO at Cyberdyne.", scope=["org=cyberdyne"])
        receipt = self.recall.erase(turn_ids=[turn["turn_id"]])
        self.assertEqual(receipt["erased"]["turn_ids"], [turn["turn_id"]])
        self.assertEqual(receipt["counts"]["turns"], 1)
        self.assertRegex(receipt["hash"], "^[0-9a-f]{64}$")
        self.assertEqual(self.recall.erasure(receipt["erasure_id"]), receipt)
        self.assertEqual(self.recall.profile(scope={"org": "cyberdyne"})["entities"], [])
        again = self.recall.erase(turn_ids=[turn["turn_id"]])
        self.assertEqual(again["already_erased"]["turn_ids"], [turn["turn_id"]])
        with self.assertRaises(RecallError) as refused:
            self.recall.erase()
        self.assertEqual(refused.exception.status, 400)

    def test_export_to_a_file_and_import_it_back(self) -> None:
        session_id = self.recall.create_session()
        self.recall.add_turn(session_id, role="user", content="I'm Zoe, CFO at Umbrella.", scope=["org=umbrella"])
        sink = io.BytesIO()
        written = self.recall.export_to(sink, scope={"org": "umbrella"})
        lines = [json.loads(line) for line in sink.getvalue().decode("utf-8").splitlines()]
        self.assertEqual(written, len(sink.getvalue()))
        self.assertEqual((lines[0]["kind"], lines[0]["version"], lines[-1]["kind"]), ("header", 1, "end"))
        self.assertIn("I'm Zoe, CFO at Umbrella.", [line.get("content") for line in lines if line["kind"] == "turn"])
        # Into its own context an export keeps its ids: everything is there already, nothing is created twice.
        for data in (sink.getvalue(), io.BytesIO(sink.getvalue())):
            answer = self.recall.import_export(data)
            self.assertEqual(answer["lines"], len(lines))
            self.assertEqual({c["created"] for c in answer["counts"].values()}, {0})
        header = json.dumps({**lines[0], "version": 99}).encode("utf-8")
        with self.assertRaises(RecallError) as refused:
            self.recall.import_export(header)
        self.assertEqual((refused.exception.status, refused.exception.errors[0].field), (400, "line 1.version"))

    def test_a_turn_without_waiting_and_a_batch(self) -> None:
        session_id = self.recall.create_session()
        accepted = self.recall.add_turn(session_id, role="user", content="I'm Bob, VP at Initech.", scope=["org=initech"], wait=False)
        self.assertEqual(accepted["extraction"], {"status": "pending"})
        self.assertIn(accepted["turn_id"], accepted["status_url"])
        done = self.recall.wait_for_turn(session_id, accepted["turn_id"], timeout=60)
        self.assertEqual(done["extraction"]["status"], "committed")

        batch = self.recall.add_turns(
            session_id,
            [
                {"role": "user", "content": "I live in Berlin.", "scope": {"org": "initech"}, "name": "Bob"},
                {"role": "assistant", "content": "Noted.", "scope": ["org=initech"]},
            ],
        )
        self.assertEqual(len(batch["turn_ids"]), 2)
        status = self.recall.batch_status(session_id, batch["batch_id"])
        self.assertEqual(status["turns"], 2)
        for turn_id in batch["turn_ids"]:
            self.recall.wait_for_turn(session_id, turn_id, timeout=60)
        self.assertEqual(self.recall.batch_status(session_id, batch["batch_id"])["state"], "done")

    def test_direct_writes_and_their_retraction(self) -> None:
        written = self.recall.write_facts(
            {"org": "acme", "user": "carol"},
            attributes=[{"entity": "Carol", "entity_type": "person", "key": "role", "value": "CFO", "memory_category": "identity"}],
        )
        self.assertEqual(len(written["committed"]["attribute_ids"]), 1)
        undone = self.recall.retract_fact_write(written["fact_write_id"], "entered by mistake")
        self.assertEqual(undone["retracted"]["attributes"], 1)

    def test_documents_as_text_and_as_a_file_upload(self) -> None:
        accepted = self.recall.add_document("Recall stores memory in Postgres.", scope=["org=acme"])
        status = self.recall.wait_for_document(accepted["document_id"], timeout=60)
        self.assertEqual(status["state"], "committed")
        self.assertEqual(self.recall.document_status(accepted["document_id"])["state"], "committed")

        uploaded = self.recall.upload_document(
            b"# Runbook\n\nThe ledger keeps entries in Postgres.\n", file_name="runbook.md", scope=["org=acme"], source="runbook"
        )
        self.assertEqual((uploaded["format"], uploaded["duplicate"]), ("markdown", False))
        self.assertEqual(self.recall.wait_for_document(uploaded["document_id"], timeout=60)["state"], "committed")
        again = self.recall.upload_document(
            b"# Runbook\n\nThe ledger keeps entries in Postgres.\n", file_name="runbook.md", scope=["org=acme"], source="runbook"
        )
        self.assertEqual((again["document_id"], again["duplicate"]), (uploaded["document_id"], True))
        self.assertEqual(self.recall.retract_document(uploaded["document_id"], "outdated")["source_type"], "document")

    def test_work_items_are_listed_and_a_finished_one_is_not_retried(self) -> None:
        session_id = self.recall.create_session()
        turn = self.recall.add_turn(session_id, role="user", content="I'm Erin, CEO at Globex.", scope=["org=globex"])
        items = self.recall.work_items(turn_id=turn["turn_id"], status=["succeeded"])["work_items"]
        self.assertTrue(items)
        detail = self.recall.work_item(items[0]["work_item_id"])
        self.assertEqual(detail["status"], "succeeded")
        with self.assertRaises(RecallError) as raised:
            self.recall.retry_work_item(items[0]["work_item_id"])
        self.assertEqual(raised.exception.status, 409)

    def test_usage_sums_this_context_and_refuses_a_bad_range(self) -> None:
        session_id = self.recall.create_session()
        self.recall.add_turn(session_id, role="user", content="I'm Erin, CEO at Globex.", scope=["org=globex"])
        usage = self.recall.usage(group_by="stage")
        self.assertEqual(usage["group_by"], "stage")
        self.assertGreaterEqual(usage["totals"]["inputs_extracted"]["heuristic"], 1)
        with self.assertRaises(RecallError) as raised:
            self.recall.usage(from_="2026-01-02T00:00:00Z", to="2026-01-01T00:00:00Z")
        self.assertEqual(raised.exception.status, 400)
        self.assertIn("query.from", [e.field for e in raised.exception.errors])

    def test_a_refused_request_raises_recall_error_naming_the_field(self) -> None:
        session_id = self.recall.create_session()
        with self.assertRaises(RecallError) as raised:
            self.recall.add_turn(session_id, role="user", content="", scope=["org acme"])
        err = raised.exception
        self.assertEqual((err.status, err.title), (400, "invalid request"))
        self.assertEqual(sorted(e.field for e in err.errors), ["body.content", "body.scope.0"])
        self.assertEqual(err.field_error("body.content"), "must not be empty")
        with self.assertRaises(RecallError) as missing:
            self.recall.turn_status(session_id, "00000000-0000-4000-8000-000000000000")
        self.assertEqual(missing.exception.status, 404)
        wrong_key = RecallClient(base_url=SERVICE["RECALL_URL"], api_key="rk_wrong", context_id=SERVICE["RECALL_CONTEXT_ID"])
        with self.assertRaises(RecallError) as unauthorised:
            wrong_key.profile(ALICE)
        self.assertEqual(unauthorised.exception.status, 401)

    @unittest.skipUnless(ADMIN_KEY, "the review test makes a context: set RECALL_ADMIN_KEY")
    def test_review_before_commit_list_approve_edited_reject_and_bulk(self) -> None:
        admin = RecallClient(base_url=SERVICE["RECALL_URL"], admin_key=ADMIN_KEY)
        created = admin.create_context("python-review", {"review": "required"})
        reviewed = admin.with_context(created["context_id"], created["api_key"])
        session_id = reviewed.create_session()
        turn = reviewed.add_turn(session_id, role="user", content="I'm Alice, CTO at Acme. Always respond in bullet points.")
        self.assertEqual(turn["extraction"]["status"], "pending_review")
        held = reviewed.reviews(turn_id=turn["turn_id"])["reviews"]
        self.assertEqual(len(held), turn["extraction"]["pending_reviews"])
        self.assertEqual({r["status"] for r in held}, {"pending"})
        self.assertEqual({r["source"]["turn_id"] for r in held}, {turn["turn_id"]})
        self.assertEqual(reviewed.profile()["entities"], [], "nothing reaches memory before a decision")
        role = next(r for r in held if r["kind"] == "attribute")
        instruction = next(r for r in held if r["kind"] == "instruction")
        self.assertEqual(reviewed.review(role["review_id"]), role)
        first = reviewed.reviews(turn_id=turn["turn_id"], limit=1)
        self.assertEqual(first["reviews"], held[:1])
        self.assertEqual(reviewed.reviews(turn_id=turn["turn_id"], cursor=first["next_cursor"])["reviews"], held[1:])

        approved = reviewed.approve_review(role["review_id"], edit={"value": "Chief Technology Officer"}, note="spelled out")
        self.assertEqual((approved["status"], approved["note"]), ("approved", "spelled out"))
        self.assertEqual(approved["edit"]["value"], {"from": role["candidate"]["value"], "to": "Chief Technology Officer"})
        rejected = reviewed.reject_review(instruction["review_id"], note="not a standing rule")
        self.assertEqual(rejected["status"], "rejected")
        with self.assertRaises(RecallError) as refused:
            reviewed.approve_review(instruction["review_id"])
        self.assertEqual(refused.exception.status, 409)
        _wait(lambda: reviewed.review(role["review_id"])["status"] == "committed", "the approval to commit")
        profile = json.dumps(reviewed.profile())
        self.assertIn("Chief Technology Officer", profile)
        self.assertNotIn("bullet", profile)
        self.assertEqual([r["review_id"] for r in reviewed.reviews(status="rejected")["reviews"]], [instruction["review_id"]])

        # Bulk: the pending ones of a turn by filter, a limited number at a time; named ones, one refused.
        other = reviewed.add_turn(session_id, role="user", content="I'm Bo, CFO at Initech.")
        pending = [r["review_id"] for r in reviewed.reviews(turn_id=other["turn_id"])["reviews"]]
        self.assertGreater(len(pending), 1)
        once = reviewed.bulk_approve_reviews(filter={"turn_id": other["turn_id"]}, limit=1, note="checked")
        self.assertEqual((once["decided"], once["remaining"]), (pending[:1], len(pending) - 1))
        rest = reviewed.bulk_reject_reviews(filter={"turn_id": other["turn_id"]})
        self.assertEqual((rest["decided"], rest["remaining"]), (pending[1:], 0))
        named = reviewed.bulk_approve_reviews(review_ids=pending)
        self.assertEqual(named["unchanged"], pending[:1])
        self.assertEqual([r["review_id"] for r in named["refused"]], pending[1:])
        self.assertEqual(reviewed.reviews(turn_id=other["turn_id"])["reviews"], [])
        with self.assertRaises(RecallError) as neither:
            reviewed.bulk_reject_reviews()
        self.assertEqual((neither.exception.status, neither.exception.errors[0].field), (400, "body.review_ids"))

    def test_webhooks_signed_turn_event_deliveries_redelivery_rotation(self) -> None:
        received = []

        class Receiver(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((dict(self.headers), raw))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        server = HTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/hook"
            hook = self.recall.create_webhook(url, ["turn.committed"], description="python test")
            self.assertTrue(hook["secret"].startswith("whsec_"))
            session_id = self.recall.create_session()
            turn = self.recall.add_turn(session_id, role="user", content="I'm Carol, CFO at Hooli.", scope=["org=hooli"])
            headers, raw = _wait(lambda: received[0] if received else None, "the turn event")
            self.assertTrue(verify_signature(hook["secret"], headers["Recall-Signature"], raw))
            event = json.loads(raw)
            self.assertEqual((event["type"], event["data"]["turn_id"]), ("turn.committed", turn["turn_id"]))
            self.assertEqual(headers["Recall-Event-Id"], event["id"])

            delivery = _wait(
                lambda: next(
                    (d for d in self.recall.webhook_deliveries(hook["webhook_id"])["deliveries"] if d["status"] == "delivered"), None
                ),
                "the delivery recorded",
            )
            self.recall.redeliver(hook["webhook_id"], delivery["delivery_id"])
            _, again = _wait(lambda: received[1] if len(received) > 1 else None, "the redelivery")
            self.assertEqual(json.loads(again)["id"], event["id"])

            rotated = self.recall.rotate_webhook_secret(hook["webhook_id"])
            self.assertNotEqual(rotated["secret"], hook["secret"])
            graced = self.recall.rotate_webhook_secret(hook["webhook_id"], keep_old_for_seconds=60)
            self.assertIsNotNone(graced["previous_secret_until"])
            self.assertIsNone(self.recall.enable_webhook(hook["webhook_id"])["disabled_at"])
            self.assertNotIn("secret", self.recall.webhook(hook["webhook_id"]))
            self.assertEqual([w["webhook_id"] for w in self.recall.webhooks()["webhooks"]], [hook["webhook_id"]])
            with self.assertRaises(RecallError) as refused:
                self.recall.create_webhook("http://10.0.0.1/hook", ["turn.committed"])
            self.assertEqual(refused.exception.status, 400)
            self.assertEqual(self.recall.delete_webhook(hook["webhook_id"])["webhook_id"], hook["webhook_id"])
            self.assertEqual(self.recall.webhooks()["webhooks"], [])
        finally:
            server.shutdown()
            server.server_close()


def verify_signature(secret: str, header: str, raw_body: bytes, tolerance: int = 300) -> bool:
    """What a receiver does: HMAC-SHA256 over "<t>.<raw body>", compared in constant time, t recent."""
    parts = [item.split("=", 1) for item in header.split(",")]
    t = next((v for k, v in parts if k == "t"), "")
    if not t.isdigit() or abs(time.time() - int(t)) > tolerance:
        return False
    expected = hmac.new(secret.encode(), f"{t}.".encode() + raw_body, hashlib.sha256).hexdigest()
    return any(k == "v1" and hmac.compare_digest(v, expected) for k, v in parts)


def _wait(read, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = read()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


if __name__ == "__main__":
    unittest.main()
