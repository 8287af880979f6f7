"""A client for the Recall memory API, with the Python standard library only.

    from recall_client import RecallClient

    recall = RecallClient(base_url="http://127.0.0.1:8080", api_key=KEY, context_id=CONTEXT_ID)
    session_id = recall.create_session()
    recall.add_turn(session_id, role="user", content="I'm Alice, CTO at Acme.", scope=["org=acme", "user=alice"])
    profile = recall.profile(scope={"org": "acme", "user": "alice"})
"""

from .client import RecallClient, Scope
from .errors import FieldError, RecallConnectionError, RecallError, RecallPipelineError, RecallTimeoutError
from .transport import RetryPolicy

__all__ = [
    "FieldError",
    "RecallClient",
    "RecallError",
    "RecallPipelineError",
    "RecallConnectionError",
    "RecallTimeoutError",
    "RetryPolicy",
    "Scope",
]
__version__ = "0.1.0"
