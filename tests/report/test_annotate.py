"""`checkbench view RUN --annotate` over HTTP: the labelling page and its queue, labels kept as
the judge human:NAME beside (never over) the model judges' verdicts, and the server's guards:
loopback host only, POSTs only with the page's CSRF token from the server's own origin."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from checkbench.report.assemble import build_report
from checkbench.report.run import ReportOptions
from checkbench.store import RunStore
from checkbench.store.labels import labels
from tests.conftest import run_cli
from tests.report.annotate_run import HOSTILE, build_labelling_run
from tests.report.report_run import serving

LABEL = {"item_id": "q0", "model": "m1", "sample": 0, "check_id": "c1", "passed": False}


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    build_labelling_run(tmp_path / "run")
    return tmp_path / "run"


def token_of(page: str) -> str:
    found = re.search(r'"token":"([^"]+)"', page)
    assert found, "no CSRF token in the page"
    return found.group(1)


def post(url: str, body: object, **headers: str) -> httpx.Response:
    origin = url.rstrip("/")
    sent = {"Origin": origin, "Content-Type": "application/json", **headers}
    return httpx.post(f"{url}api/annotate/label", content=json.dumps(body), headers=sent)


def test_without_annotate_there_is_no_labelling_page(run_dir: Path) -> None:
    with serving(run_dir) as url:
        assert httpx.get(f"{url}annotate").status_code == 404
        assert httpx.get(f"{url}api/annotate/queue").status_code == 404
        assert post(url, LABEL, **{"X-CSRF-Token": "x"}).status_code == 404


def test_labels_need_the_token_the_origin_and_the_host(run_dir: Path) -> None:
    with serving(run_dir, "--annotate", "--annotator", "alice") as url:
        page = httpx.get(f"{url}annotate")
        assert page.status_code == 200
        assert "script-src 'sha256-" in page.headers["content-security-policy"]
        token = token_of(page.text)
        good = {"X-CSRF-Token": token}
        assert post(url, LABEL).status_code == 403  # no token
        assert post(url, LABEL, **{"X-CSRF-Token": token[:-1] + "x"}).status_code == 403
        assert post(url, LABEL, **good, Origin="http://evil.example").status_code == 403
        assert post(url, LABEL, **good, Origin="null").status_code == 403
        assert post(url, LABEL, **good, Origin=url.rstrip("/")[len("http://") :]).status_code == 403
        assert post(url, LABEL, **good, Host="evil.example").status_code == 403
        assert httpx.get(f"{url}annotate", headers={"Host": "evil.example"}).status_code == 403
        assert post(url, LABEL, **good, **{"Content-Type": "text/plain"}).status_code == 400
        assert post(url, {**LABEL, "passed": None}, **good).status_code == 400
        assert post(url, {**LABEL, "extra": 1}, **good).status_code == 400
        assert post(url, {**LABEL, "note": "x" * 2001}, **good).status_code == 400
        assert post(url, {**LABEL, "check_id": "c9"}, **good).status_code == 404
        with RunStore.existing(run_dir) as store:
            assert store.judges() == ["j", "k"]  # nothing refused was kept
        saved = post(url, {**LABEL, "note": "misses the point"}, **good)
        assert saved.status_code == 200 and saved.json() == {"saved": True, "labelled": 1}
    with RunStore.existing(run_dir) as store:
        (label,) = store.verdicts("human:alice")
        assert (label.item_id, label.check_id, label.passed) == ("q0", "c1", False)
        assert label.reason == "misses the point"
        (record,) = labels(store)
        assert record.annotator == "alice" and record.at > 0
        assert record.queue_reason == "judges disagree: 1 of 2 pass"
        assert len(store.verdicts("j")) == 48  # the model judges' verdicts are untouched


def test_queue_comes_disagreements_first_with_texts_as_data(run_dir: Path) -> None:
    with serving(run_dir, "--annotate", "--annotator", "alice") as url:
        first = httpx.get(f"{url}api/annotate/queue", params={"offset": 0, "limit": 8}).json()
        assert first["total"] == 48 and first["labelled"] == 0
        assert {e["item_id"] for e in first["entries"]} == {"q0", "q3", "q6", "q9"}
        assert all(e["reasons"] == ["judges disagree: 1 of 2 pass"] for e in first["entries"])
        hostile = httpx.get(f"{url}api/annotate/queue", params={"offset": 0, "limit": 48}).json()
        q5 = [e for e in hostile["entries"] if e["item_id"] == "q5"]
        assert {e["response"] for e in q5} == {HOSTILE} and HOSTILE in {e["check"] for e in q5}
        assert HOSTILE not in httpx.get(f"{url}annotate").text
        bad = httpx.get(f"{url}api/annotate/queue", params={"limit": 1000})
        assert bad.status_code == 400


def test_relabelling_replaces_only_that_persons_label(run_dir: Path, tmp_path: Path) -> None:
    for annotator, passed in (("alice", True), ("bob", False), ("alice", False)):
        with serving(run_dir, "--annotator", annotator) as url:
            token = token_of(httpx.get(f"{url}annotate").text)
            sent = post(url, {**LABEL, "passed": passed}, **{"X-CSRF-Token": token})
            assert sent.status_code == 200
    with RunStore.existing(run_dir) as store:
        assert [v.passed for v in store.verdicts("human:alice")] == [False]
        assert [v.passed for v in store.verdicts("human:bob")] == [False]
        assert [v.passed for v in store.verdicts("j") if v.item_id == "q0"] == [True] * 4
    out = tmp_path / "labels.jsonl"
    result = run_cli("export-labels", str(run_dir), "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(x["judge"], x["passed"]) for x in lines] == [
        ("human:bob", False),
        ("human:alice", False),  # relabelled last
    ]
    assert {"item_id", "model", "check_id", "note", "at"} <= set(lines[0])  # sample 0 left out
    assert (
        run_cli("export-labels", str(run_dir), "--out", str(out), "--annotator", "bob").returncode
        == 0
    )
    assert [json.loads(x)["annotator"] for x in out.read_text().splitlines()] == ["bob"]


def test_a_bad_annotator_name_is_one_line(run_dir: Path) -> None:
    result = run_cli("view", str(run_dir), "--annotator", "a b")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "annotator" in result.stderr


def test_the_report_leaves_people_out_unless_named(run_dir: Path) -> None:
    with serving(run_dir, "--annotator", "alice") as url:
        token = token_of(httpx.get(f"{url}annotate").text)
        assert post(url, LABEL, **{"X-CSRF-Token": token}).status_code == 200
    with RunStore.existing(run_dir) as store:
        boards = build_report(store).data["leaderboards"]
        assert [board["judge"] for board in boards] == ["j", "k"]
        named = build_report(store, ReportOptions(judge="human:alice")).data["leaderboards"]
        assert [board["judge"] for board in named] == ["human:alice"]
