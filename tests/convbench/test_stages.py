"""The build's model stages against a scripted server: the whole Conv-to-Bench pipeline over
every log format with known answers, unusable and failed answers at every stage (re-asked,
then dropped with a recorded, counted reason), FB-Bench curation and the difficulty filter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checkbench import api
from checkbench.benchmarks import load_items
from checkbench.convbench.decisions import CALL_FAILED, DECISIONS, ITEM_RECORD, UNUSABLE
from checkbench.convbench.spec import BuildSpec
from checkbench.convbench.summary import BuildSummary
from checkbench.errors import InputError
from checkbench.llm import ModelOptions
from checkbench.schema import Check, Item, Message
from checkbench.store import RunStore
from checkbench.testing import Reply
from tests.conftest import run_cli
from tests.convbench.build_helpers import LOGS, Request, Route, answer, item_line, routed, verdicts

OFF_DOMAIN = {"oa-poem", "sg-bread", "lm-lisbon", "wc-tomato"}
NEEDS_FILES = {"oa-regex"}
FEEDBACK_WORDS = {
    "thanks": "positive",
    "Perfect": "positive",
    "No, that": "negative",
    "ReferenceError": "negative",
    "KeyError": "negative",
    "不对": "negative",
}


def _label(text: str) -> str:
    message = text.split("The user's next message:", 1)[1]
    return next((label for word, label in FEEDBACK_WORDS.items() if word in message), "neither")


def conv_route(request: Request) -> str | Reply:
    """Scripted answers of a capable model for every Conv-to-Bench stage, and for the
    candidate and judge of a later run (the judge passes instruction checks only)."""
    about = request.about
    if request.stage == "domain":
        return answer(in_domain="no" if about in OFF_DOMAIN else "yes")
    if request.stage == "instruction":
        return answer(instruction=f"[{about}] Solve the task of {about}.")
    if request.stage == "quality":
        return answer(problem="needs missing files" if about in NEEDS_FILES else "none")
    if request.stage == "feedback":
        return answer(feedback=_label(request.text))
    if request.stage == "checklist":
        allowed = request.schema["properties"]["checks"]["items"]["properties"]["source"]["enum"]
        checks = [
            {"text": f"Does it meet need {n} of {about}?", "source": "instruction"}
            for n in (1, 2, 3)
        ]
        checks += [{"text": f"Does it act on {s}?", "source": s} for s in allowed[1:]]
        return answer(checks=checks)
    if request.stage == "fb_draft":
        return answer(
            reason="The reply was wrong.",
            deficiency="Logical Error",
            feedback_type="Pointing Out Errors",
            task="Coding",
            checklist=[
                {"text": "Does it fix the error?", "weight": 2},
                {"text": "Does it explain the fix?", "weight": 1},
                {"text": "Does it keep the rest?", "weight": 1},
            ],
        )
    if request.stage == "judge":
        instruction_checks = {"c1", "c2", "c3"}
        return verdicts(request, lambda check: check in instruction_checks)
    return "A candidate answer."


def _spec(tmp_path: Path, **fields: Any) -> BuildSpec:
    """All four logs; one topic cluster and a vocabulary of every word in the logs, so that
    tier 1 keeps everything and the scripted model decides the rest."""
    words = {w.lower() for log in LOGS for w in log.read_text().replace('"', " ").split()}
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(sorted(w for w in words if w.isalpha() and len(w) > 1)))
    defaults: dict[str, Any] = {
        "logs": LOGS,
        "domain": "coding",
        "vocab": vocab,
        "model": "openai:builder",
        "topics": {"k": 1},
    }
    return BuildSpec(**{**defaults, **fields})


def _build(server: Any, spec: BuildSpec, run: Path) -> BuildSummary:
    options = ModelOptions(base_url=server.base_url)
    return api.build(spec, run, run / "bench.jsonl", options=options).report


def _stage(report: BuildSummary, name: str) -> dict[str, Any]:
    return next(s for s in report.stages if s.stage == name).model_dump()


def test_scripted_build_over_every_format(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with routed(conv_route) as server:
        report = _build(server, _spec(tmp_path), run)
        assert report.broken_chain() == []
        assert [(s.stage, s.seen, s.kept) for s in report.stages] == [
            ("read", 12, 12),
            ("topics", 12, 12),
            ("domain", 12, 8),
            ("instruction", 8, 8),
            ("quality", 8, 7),
            ("feedback", 7, 7),
            ("checklist", 7, 7),
        ]
        assert _stage(report, "domain")["reasons"] == {"out of domain": 4}
        assert _stage(report, "quality")["reasons"] == {"instruction needs missing files": 1}
        assert report.feedback_labels == {"negative": 3, "neither": 2, "positive": 2}
        assert {u.role for u in report.usage} == {
            "build:domain",
            "build:instruction",
            "build:quality",
            "build:feedback",
            "build:checklist",
        }
        assert sum(u.calls for u in report.usage) == len(server.requests)

        items = {item.id: item for item in load_items(run / "bench.jsonl")}
        assert sorted(items) == sorted(
            ["oa-sort", "sg-sql", "sg-debounce", "lm-bash", "lm-rust", "wc-pandas", "wc-palindrome"]
        )
        pandas = items["wc-pandas"]
        assert pandas.messages == [
            Message(role="user", content="[wc-pandas] Solve the task of wc-pandas.")
        ]
        assert [(c.id, c.source) for c in pandas.checklist] == [
            ("c1", "instruction"),
            ("c2", "instruction"),
            ("c3", "instruction"),
            ("c4", "feedback:2"),
        ]
        assert pandas.meta["feedback"] == {"2": "negative"}
        assert pandas.tags["domain"] == ["coding"] and pandas.tags["cluster"] == ["0"]
        assert items["lm-bash"].meta["feedback"] == {}
        assert items["wc-palindrome"].meta["provenance"]["language"] == "Chinese"
        for item in items.values():
            origin = item.meta["provenance"]
            record = item_line(Path(origin["file"]), origin["line"])
            assert item.id in json.dumps(record, ensure_ascii=False)

        with RunStore.existing(run) as store:
            assert set(store.records(ITEM_RECORD)) == set(items)
            assert store.records(DECISIONS["quality"])["oa-regex"]["reason"] == (
                "instruction needs missing files"
            )
            calls = sum(row.calls for row in store.usage())

        # A rerun replays every call from the store: the server hears nothing new.
        heard = len(server.requests)
        again = _build(server, _spec(tmp_path), run)
        assert len(server.requests) == heard
        assert all(stage.calls == 0 for stage in again.stages)
        assert [(s.stage, s.seen, s.kept, s.reasons) for s in again.stages] == [
            (s.stage, s.seen, s.kept, s.reasons) for s in report.stages
        ]
        assert (run / "bench.jsonl").read_text().count("\n") == len(items)
        with RunStore.existing(run) as store:
            assert sum(row.calls for row in store.usage()) == calls

        # The bench runs through generate and judge; the judge passes instruction checks only.
        options = ModelOptions(base_url=server.base_url)
        answers = tmp_path / "answers"
        api.generate(run / "bench.jsonl", ["openai:cand"], answers, options=options)
        api.judge(answers, "openai:judge", options=options)
    instruction_only = api.score(answers, checks="instruction").scores.models[0]
    assert (instruction_only.score, instruction_only.n) == (100.0, 7)
    every = api.score(answers, checks="all").scores.models[0]
    expected = sum(
        sum(c.source == "instruction" for c in i.checklist) / len(i.checklist)
        for i in items.values()
    )
    assert every.score == round(100 * expected / len(items), 2)


def _garbage_for(stage: str, victim: str, kind: str, once: str) -> Route:
    """conv_route, except that `stage` answers `victim` badly every time (kind "garbage"), or
    fails the call (kind "error"), and answers `once` badly only the first time."""

    def route(request: Request) -> str | Reply:
        if request.stage == stage:
            target = _feedback_target(request) if stage == "feedback" else request.about
            if target == victim:
                return (
                    Reply(status=400, body={"error": "no"})
                    if kind == "error"
                    else "not json at all"
                )
            if target == once and not request.reask:
                return '{"half": '
        return conv_route(request)

    return route


FEEDBACK_TARGETS = {"Also show the total": "sg-sql", "Perfect, that compiles": "lm-rust"}
"""The later user message of each victim conversation, for the feedback stage."""


def _feedback_target(request: Request) -> str | None:
    message = request.text.split("The user's next message:", 1)[1]
    return next((cid for phrase, cid in FEEDBACK_TARGETS.items() if phrase in message), None)


@pytest.mark.parametrize("stage", ["domain", "instruction", "quality", "feedback", "checklist"])
@pytest.mark.parametrize("kind", ["garbage", "error"])
def test_bad_answers_are_reasked_then_dropped_with_a_recorded_reason(
    tmp_path: Path, stage: str, kind: str
) -> None:
    run = tmp_path / "run"
    with routed(_garbage_for(stage, "sg-sql", kind, "lm-rust")) as server:
        report = _build(server, _spec(tmp_path, settings={"reasks": 2}), run)
    assert report.broken_chain() == []
    reason = (
        "feedback identification failed"
        if stage == "feedback"
        else (UNUSABLE if kind == "garbage" else CALL_FAILED)
    )
    assert _stage(report, stage)["reasons"].get(reason) == 1
    with RunStore.existing(run) as store:
        records = store.records(DECISIONS[stage])
        calls = {row.role: row for row in store.usage()}
    victim = records["sg-sql"]
    assert victim["kept"] is False and victim["reason"] == reason
    detail = victim["problems"]["2"] if stage == "feedback" else victim
    if kind == "garbage":
        assert detail["raw"] == "not json at all"
        assert "no JSON object found" in detail["problem"]
        if stage != "feedback":
            assert detail["attempts"] == 3  # the first answer and two re-asks
    else:
        assert "400" in detail["problem"]
        assert calls[f"build:{stage}"].errors >= 1
    assert records["lm-rust"]["kept"] is True
    if stage != "feedback":
        assert records["lm-rust"]["attempts"] == 2
    assert "sg-sql" not in {i.id for i in load_items(run / "bench.jsonl")}


@pytest.mark.parametrize("domain", [None, "coding"])
def test_feedback_curation_selects_apologies_and_drafts_weighted_items(
    tmp_path: Path, domain: str | None
) -> None:
    run = tmp_path / "run"
    with_domain = {} if domain else {"domain": None, "vocab": None}
    spec = _spec(tmp_path, mode="feedback", **with_domain)
    with routed(conv_route) as server:
        report = _build(server, spec, run)
    assert report.broken_chain() == []
    concession = _stage(report, "concession")
    assert (concession["seen"], concession["kept"]) == (12, 4)
    assert concession["reasons"] == {
        "fewer than two assistant turns": 4,
        "neither a concession nor a hold in a later assistant turn": 4,
    }
    expected_stages = (
        ["read", "concession", "draft"]
        if domain is None
        else ["read", "concession", "topics", "domain", "draft"]
    )
    assert [s.stage for s in report.stages] == expected_stages
    items = {item.id: item for item in load_items(run / "bench.jsonl")}
    assert sorted(items) == ["oa-regex", "sg-debounce", "wc-palindrome", "wc-pandas"]
    regex = items["oa-regex"]
    assert [m.role for m in regex.messages] == ["system", "user", "assistant", "user"]
    assert regex.messages[2].content.startswith("Use re.compile")
    assert regex.messages[-1].content.startswith("No, that also matches 'a@b'.")  # as logged
    assert regex.rule == "weighted"
    assert [(c.weight, c.source) for c in regex.checklist] == [
        (0.5, "feedback:3"),
        (0.25, "feedback:3"),
        (0.25, "feedback:3"),
    ]
    assert regex.meta["curation"]["weights_normalised_from"] == 4
    assert regex.meta["curation"]["concession"] == {"message": 4, "marker": "sorry"}
    palindrome = items["wc-palindrome"]
    assert palindrome.meta["curation"]["concession"]["marker"] == "抱歉"
    assert palindrome.messages[-1].content == "不对，要忽略大小写和空格。"
    assert (palindrome.meta["language"], regex.meta["language"]) == ("zh", "en")
    assert regex.tags["scenario"] == ["EC"] and regex.tags["deficiency"] == ["Logical Error"]
    assert regex.tags["task"] == ["Coding"]


def test_draft_answers_that_stay_unusable_are_dropped_and_counted(tmp_path: Path) -> None:
    def route(request: Request) -> str | Reply:
        if request.stage == "fb_draft" and request.about == "sg-debounce":
            return answer(
                reason="x",
                deficiency="Logical Error",
                feedback_type="Pointing Out Errors",
                checklist=[
                    {"text": "a?", "weight": 0},
                    {"text": "b?", "weight": 1},
                    {"text": "c?", "weight": 1},
                ],
            )
        return conv_route(request)

    run = tmp_path / "run"
    with routed(route) as server:
        report = _build(server, _spec(tmp_path, mode="feedback", domain=None, vocab=None), run)
    assert _stage(report, "draft")["reasons"] == {UNUSABLE: 1}
    with RunStore.existing(run) as store:
        record = store.records(DECISIONS["draft"])["sg-debounce"]
    assert "weight 1 must be above 0" in record["problem"]


def _difficulty_route(request: Request) -> str | Reply:
    """Weak model A aces EASY and FLAKY and misses HARD; weak model B aces EASY and HARD, and
    its answer to FLAKY gets an unreadable judgment."""
    if request.stage == "candidate":
        return f"reply from {request.model}"
    text = request.text
    if "FLAKY" in text and "reply from weak-b" in text:
        return "I cannot judge this."
    return verdicts(
        request, lambda check: not ("HARD" in text and "weak-a" in text and check == "c1")
    )


def _difficulty_bench(path: Path) -> Path:
    items = [
        Item(
            id=name.lower(),
            messages=[Message(role="user", content=f"{name} task")],
            checklist=[Check(id="c1", text="first"), Check(id="c2", text="second")],
        )
        for name in ("EASY", "HARD", "FLAKY")
    ]
    path.write_text("".join(item.model_dump_json() + "\n" for item in items))
    return path


def test_difficulty_filter_drops_items_every_weak_model_aces(tmp_path: Path) -> None:
    bench = _difficulty_bench(tmp_path / "bench.jsonl")
    out = tmp_path / "hard.jsonl"
    with routed(_difficulty_route) as server:
        report = api.filter_by_difficulty(
            bench,
            ["openai:weak-a", "openai:weak-b"],
            "openai:judge",
            out,
            options=ModelOptions(base_url=server.base_url),
        )
    assert [item.id for item in load_items(out)] == ["hard", "flaky"]
    assert (report.seen, report.kept, report.dropped, report.undecided) == (3, 2, 1, 1)
    assert report.dropped_ids == ["easy"]
    assert report.full_scores == {"openai:weak-a": 2, "openai:weak-b": 2}


def test_fbbench_filter_command_keeps_its_run_for_resuming(tmp_path: Path) -> None:
    """The rerun, by the old name `build filter`, resumes from the run with a note."""
    bench = _difficulty_bench(tmp_path / "bench.jsonl")
    out, run = tmp_path / "hard.jsonl", tmp_path / "weak-run"
    args = [str(bench), "-w", "openai:weak-a", "--judge", "openai:judge"]
    with routed(_difficulty_route) as server:
        args += ["--out", str(out), "--run", str(run), "--base-url", server.base_url]
        result = run_cli("fbbench", "filter", *args)
        assert result.returncode == 0, result.stderr
        heard = len(server.requests)
        again = run_cli("build", "filter", *args)
        assert again.returncode == 0 and "dropped 2" in again.stdout
        assert len(server.requests) == heard
        assert "note: `checkbench build filter` is now `checkbench fbbench filter`" in again.stderr
    # weak-a alone aces EASY and FLAKY.
    assert [item.id for item in load_items(out)] == ["hard"]
    assert "dropped 2" in result.stdout


def test_malformed_records_and_repeated_ids_are_skipped_and_counted(tmp_path: Path) -> None:
    good = LOGS[0].read_text().splitlines()[2]  # oa-regex: it apologises
    log = tmp_path / "mixed.jsonl"
    log.write_text("\n".join([good, "{not json", '{"messages": []}', good]) + "\n")
    spec = _spec(tmp_path, logs=[log], mode="feedback", domain=None, vocab=None)
    with routed(conv_route) as server:
        report = _build(server, spec, tmp_path / "run")
    read = _stage(report, "read")
    assert (read["seen"], read["kept"]) == (4, 1)
    assert read["reasons"] == {
        "malformed JSON": 1,
        "empty conversation": 1,
        "duplicate conversation id": 1,
    }
    assert [e.split(": ", 1)[0] for e in report.skipped_records] == [
        f"{log}:2",
        f"{log}:3",
        f"{log}:4",
    ]
    with RunStore.existing(tmp_path / "run") as store:
        assert store.records(DECISIONS["read"])[f"{log}:4"]["reason"] == "duplicate conversation id"
    assert report.items == 1


def test_a_run_directory_holds_one_build(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with routed(conv_route) as server:
        _build(server, _spec(tmp_path, mode="feedback", domain=None, vocab=None), run)
        other = _spec(tmp_path, mode="feedback", domain=None, vocab=None, settings={"reasks": 0})
        with pytest.raises(InputError, match="settings differ"):
            _build(server, other, run)


def test_user_sides_too_long_for_the_model_are_dropped_without_a_call(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with routed(conv_route) as server:
        report = _build(server, _spec(tmp_path, settings={"max_user_chars": 120}), run)
        asked = [r for r in server.requests if Request(r).stage == "instruction"]
    instruction = _stage(report, "instruction")
    assert instruction["reasons"] == {"user side too long": instruction["dropped"]}
    assert len(asked) == instruction["kept"] >= 1 and instruction["dropped"] >= 1
    with RunStore.existing(run) as store:
        long = [r for r in store.records(DECISIONS["instruction"]).values() if not r["kept"]]
    assert all(r["user_chars"] > r["limit"] == 120 for r in long)
