"""A request's cache key is the hash of its whole canonical JSON (the schema's text is reused
between requests, not the key's meaning), so the answers of earlier runs keep being found."""

from __future__ import annotations

import hashlib
import json

from checkbench.judges.checklist import JudgeSettings, text_request, verdicts_answer
from checkbench.llm.base import ChatRequest
from checkbench.schema import Item, Message
from checkbench.steps.answers import answer_schema


def _canonical_key(request: ChatRequest, model: str) -> str:
    payload = {"model": model, **request.model_dump(mode="json")}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def test_cache_keys_hash_the_whole_request_as_canonical_json() -> None:
    item = Item.model_validate(
        {
            "id": "q",
            "messages": [{"role": "user", "content": 'Wie heißt 中文 "quoted"?'}],
            "checklist": [{"id": "c1", "text": "a"}, {"id": "c2", "text": "b"}],
        }
    )
    judged = text_request(item, "an answer", JudgeSettings())
    schemas = [answer_schema(verdicts_answer(ids)) for ids in (("c1", "c2"), ("c2",))]
    requests = [
        judged,
        *(judged.model_copy(update={"json_schema": schema}) for schema in schemas + schemas),
        ChatRequest(
            messages=(Message(role="user", content="q"),),
            temperature=0.7,
            seed=3,
            top_p=0.5,
            sample=2,
            stop=("\n", "END"),
            top_logprobs=5,
        ),
        ChatRequest(  # escapes pydantic's encoder and json must write alike; a float with an
            # exponent, which they write differently, goes to json
            messages=(Message(role="user", content="tab\t nul\x00 bell\x07 \u2028 \\ end"),),
            temperature=1e-05,
            seed=2**70,
        ),
    ]
    keys = [request.cache_key("model-identity") for request in requests]
    assert keys == [_canonical_key(request, "model-identity") for request in requests]
    assert len(set(keys)) == 5  # the two schemas asked twice each give the same keys
    assert requests[1].cache_key("another") != keys[1]
