"""Ingestion of conversation logs: every format and container, and bad records located."""

from __future__ import annotations

import gzip
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from checkbench.convbench.ingest import (
    Conversation,
    IngestStats,
    Source,
    content_id,
    iter_conversations,
)
from checkbench.errors import InputError
from checkbench.schema import Message

OPENAI = {
    "id": "oa-1",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Sort a list in Python?"},
        {"role": "assistant", "content": "Use sorted()."},
    ],
}
SHAREGPT = {
    "id": "sg-1",
    "conversations": [
        {"from": "human", "value": "Write a haiku."},
        {"from": "gpt", "value": "Old pond..."},
        {"from": "human", "value": "Shorter lines."},
    ],
}
LMSYS = {
    "conversation_id": "lm-1",
    "model": "vicuna-13b",
    "conversation": [
        {"role": "user", "content": "Solve 2x = 4"},
        {"role": "assistant", "content": "x = 2"},
    ],
    "turn": 1,
    "language": "English",
    "openai_moderation": [{"flagged": False}],
    "redacted": False,
}
WILDCHAT = {
    "conversation_hash": "wc-1",
    "model": "gpt-4",
    "conversation": [
        {"role": "user", "content": "Bonjour", "language": "French", "toxic": False},
        {"role": "assistant", "content": "Salut", "language": "French", "toxic": False},
    ],
    "language": "French",
    "country": "France",
    "toxic": False,
}


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    """Write records (dicts as JSON, strings as they are) one a line."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def test_all_four_formats_are_detected_per_record(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", [OPENAI, SHAREGPT, LMSYS, WILDCHAT])
    convs = list(iter_conversations(path))
    assert [c.id for c in convs] == ["oa-1", "sg-1", "lm-1", "wc-1"]
    assert [c.meta["format"] for c in convs] == ["openai", "sharegpt", "lmsys", "wildchat"]
    assert [m.role for m in convs[0].messages] == ["system", "user", "assistant"]
    assert [m.role for m in convs[1].messages] == ["user", "assistant", "user"]
    assert convs[1].messages[1].content == "Old pond..."
    assert (convs[2].model, convs[2].language) == ("vicuna-13b", "English")
    assert convs[2].meta == {"format": "lmsys", "turn": 1, "redacted": False}  # nested dropped
    assert (convs[3].model, convs[3].language, convs[3].meta["country"]) == (
        "gpt-4",
        "French",
        "France",
    )
    assert convs[3].messages[0] == Message(role="user", content="Bonjour")
    assert [c.source.line for c in convs] == [1, 2, 3, 4]
    assert convs[0].source.path == str(path)


def test_first_user_message_skips_system_and_blank_turns(tmp_path: Path) -> None:
    record = {
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "   "},
            {"role": "assistant", "content": "?"},
            {"role": "user", "content": "the real question"},
        ]
    }
    (conv,) = iter_conversations(write_jsonl(tmp_path / "a.jsonl", [record]))
    assert conv.first_user_message == "the real question"


def test_openai_content_parts_keep_their_text(tmp_path: Path) -> None:
    parts = [
        {"type": "text", "text": "Describe"},
        {"type": "image_url", "image_url": {"url": "http://x/y.png"}},
        {"type": "text", "text": "this chart"},
    ]
    record = {"messages": [{"role": "user", "content": parts}]}
    (conv,) = iter_conversations(write_jsonl(tmp_path / "a.jsonl", [record]))
    assert conv.messages[0].content == "Describe\nthis chart"


def test_missing_id_gets_a_stable_content_hash_shared_across_formats(tmp_path: Path) -> None:
    openai = {
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    }
    sharegpt = {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}
    other = {"messages": [{"role": "user", "content": "hi!"}]}
    path = write_jsonl(tmp_path / "a.jsonl", [openai, sharegpt, other])
    first, second, third = iter_conversations(path)
    assert first.id == second.id == content_id(first.messages)
    assert first.id.startswith("h:") and third.id != first.id
    assert [c.id for c in iter_conversations(path)] == [first.id, second.id, third.id]


def test_integer_ids_become_strings(tmp_path: Path) -> None:
    record = {"id": 42, "messages": [{"role": "user", "content": "q"}]}
    (conv,) = iter_conversations(write_jsonl(tmp_path / "a.jsonl", [record]))
    assert conv.id == "42"


def test_gzipped_jsonl_is_read_by_its_magic_bytes(tmp_path: Path) -> None:
    path = tmp_path / "logs.data"  # no telling suffix on purpose
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for record in (OPENAI, LMSYS):
            handle.write(json.dumps(record) + "\n")
    assert [c.id for c in iter_conversations(path)] == ["oa-1", "lm-1"]


def test_truncated_gzip_is_a_located_input_error(tmp_path: Path) -> None:
    whole = gzip.compress("".join(json.dumps(OPENAI) + "\n" for _ in range(200)).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match="unreadable data") as info:
        list(iter_conversations(path))
    assert info.value.path == str(path)


def test_parquet_with_nested_columns_streams_row_groups(tmp_path: Path) -> None:
    rows = []
    for i in range(5):
        rows.append(
            {
                "conversation_hash": f"wc-{i}",
                "model": "gpt-4",
                "timestamp": datetime(2024, 1, 2, 3, 4, i),
                "conversation": [
                    {"role": "user", "content": f"question {i}", "toxic": False},
                    {"role": "tool" if i == 3 else "assistant", "content": "answer"},
                ],
                "language": "English",
            }
        )
    path = tmp_path / "wildchat.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=2)
    stats = IngestStats()
    convs = list(iter_conversations(path, stats=stats))
    assert [c.id for c in convs] == ["wc-0", "wc-1", "wc-2", "wc-4"]
    assert [c.source.line for c in convs] == [1, 2, 3, 5]  # Parquet row numbers
    assert convs[0].messages[0].content == "question 0"
    assert convs[2].meta["timestamp"] == "2024-01-02T03:04:02"
    assert (stats.read, stats.kept, stats.skipped) == (5, 4, 1)
    error = stats.errors[0]
    assert (error.line, error.field) == (4, "conversation.1.role")


def test_forced_format_rejects_records_of_another(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", [OPENAI, SHAREGPT])
    stats = IngestStats()
    convs = list(iter_conversations(path, fmt="sharegpt", stats=stats))
    assert [c.id for c in convs] == ["sg-1"]
    assert (stats.errors[0].line, stats.errors[0].field) == (1, "conversations")
    assert stats.reasons == {"missing field": 1}


MALFORMED: list[tuple[Any, str, str | None]] = [
    ('{"messages": [', "malformed JSON", None),
    ("[1, 2]", "not a JSON object", None),
    ({"prompt": "hi"}, "unrecognised record", None),
    ({"messages": "hi"}, "wrong type", "messages"),
    ({"messages": []}, "empty conversation", "messages"),
    ({"messages": ["hi"]}, "wrong type", "messages.0"),
    ({"messages": [{"content": "hi"}]}, "missing field", "messages.0.role"),
    ({"messages": [{"role": "tool", "content": "x"}]}, "unknown role", "messages.0.role"),
    ({"messages": [{"role": "user"}]}, "missing field", "messages.0.content"),
    ({"messages": [{"role": "user", "content": 3}]}, "wrong type", "messages.0.content"),
    ({"messages": [{"role": "assistant", "content": "x"}]}, "no user message", "messages"),
    ({"conversations": [{"from": "robot", "value": "x"}]}, "unknown role", "conversations.0.from"),
    ({"conversation": [{"role": "user", "content": "x"}], "model": 7}, "wrong type", "model"),
    ({"id": [1], "messages": [{"role": "user", "content": "x"}]}, "wrong type", "id"),
]


@pytest.mark.parametrize(("record", "reason", "field"), MALFORMED)
def test_each_malformed_record_is_skipped_and_located(
    tmp_path: Path, record: Any, reason: str, field: str | None
) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", [OPENAI, record, LMSYS])
    seen: list[InputError] = []
    stats = IngestStats()
    convs = list(iter_conversations(path, on_error=seen.append, stats=stats))
    assert [c.id for c in convs] == ["oa-1", "lm-1"]
    assert (stats.read, stats.kept, stats.skipped) == (3, 2, 1)
    assert stats.reasons == {reason: 1}
    (error,) = seen
    assert (error.path, error.line, error.field) == (str(path), 2, field)
    assert str(error).startswith(f"{path}:2") and reason in str(error)


@pytest.mark.parametrize(("record", "reason", "field"), MALFORMED)
def test_strict_raises_on_the_first_malformed_record(
    tmp_path: Path, record: Any, reason: str, field: str | None
) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", [OPENAI, record, record])
    stream = iter_conversations(path, strict=True)
    assert next(stream).id == "oa-1"  # lazy: good records before the bad one come through
    with pytest.raises(InputError) as info:
        next(stream)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 2, field)
    assert reason in info.value.message


def test_invalid_utf8_line_is_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(json.dumps(OPENAI).encode() + b"\n" + b'{"messages": "\xff"}\n')
    stats = IngestStats()
    assert len(list(iter_conversations(path, stats=stats))) == 1
    assert stats.reasons == {"malformed JSON": 1}


def test_stats_keep_only_the_first_errors_but_count_all(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", ["{bad"] * 30 + [OPENAI])
    stats = IngestStats(max_errors=5)
    assert len(list(iter_conversations(path, stats=stats))) == 1
    assert stats.skipped == 30 and len(stats.errors) == 5
    assert [e.line for e in stats.errors] == [1, 2, 3, 4, 5]


def test_blank_lines_are_ignored_but_keep_line_numbers(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", ["", json.dumps(OPENAI), "  ", json.dumps(LMSYS)])
    assert [c.source.line for c in iter_conversations(path)] == [2, 4]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "file not found"),
        ("", "file has no records"),
        ("\n\n", "file has no records"),
        ('[{"messages": []}]', "a JSON array, not JSON Lines"),
    ],
)
def test_file_level_problems_raise_even_when_not_strict(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "a.jsonl"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=message):
        list(iter_conversations(path))


def test_unknown_format_is_rejected_at_call_time(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown format 'alpaca'"):
        iter_conversations(tmp_path / "a.jsonl", fmt="alpaca")  # type: ignore[arg-type]


def test_conversation_model_rejects_tool_roles_and_userless_chats() -> None:
    source = Source(path="x", line=1)
    with pytest.raises(ValueError, match="roles must be"):
        Conversation(id="a", messages=[Message(role="tool", content="x")], source=source)
    with pytest.raises(ValueError, match="non-blank user message"):
        Conversation(id="a", messages=[Message(role="user", content=" ")], source=source)
