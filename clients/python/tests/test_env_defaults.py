"""RecallClient takes RECALL_URL, RECALL_API_KEY and RECALL_CONTEXT_ID as defaults; an argument given wins."""
import os
import unittest
from unittest import mock

from recall_client import RecallClient


class EnvDefaultsTest(unittest.TestCase):
    def test_each_missing_argument_is_read_from_its_variable(self) -> None:
        env = {"RECALL_URL": "http://127.0.0.1:18080/", "RECALL_API_KEY": "rk_env", "RECALL_CONTEXT_ID": "ctx-env"}
        with mock.patch.dict(os.environ, env):
            client = RecallClient()
            self.assertEqual((client.base_url, client.api_key, client.context_id), ("http://127.0.0.1:18080", "rk_env", "ctx-env"))
            given = RecallClient("http://other:1", api_key="rk_given")
            self.assertEqual((given.base_url, given.api_key, given.context_id), ("http://other:1", "rk_given", "ctx-env"))

    def test_without_base_url_or_recall_url_the_error_names_the_variable(self) -> None:
        with mock.patch.dict(os.environ, {"RECALL_URL": " "}):
            with self.assertRaisesRegex(ValueError, "RECALL_URL"):
                RecallClient()


if __name__ == "__main__":
    unittest.main()
