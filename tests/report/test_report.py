"""The report's data and file, its command-line errors, and `checkbench view`'s server."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import httpx
import pytest

from checkbench import api
from checkbench.fbbench.scoring import SLICES
from checkbench.llm.models_file import parse_prices
from checkbench.report.assemble import build_report
from checkbench.report.items import FAIL, PASS, UNSCORED
from checkbench.report.page import (
    PACKED_TYPE,
    PAGE_ENCODING,
    pack,
    packed_blocks,
    script_json,
    unpack,
)
from checkbench.report.run import ReportOptions
from checkbench.scan.prune import prune
from checkbench.scan.tree import load_taxonomy
from checkbench.scoring import model_summaries
from checkbench.store import RunStore
from tests.conftest import ROOT, run_cli
from tests.report.report_run import (
    HOSTILE_ITEM,
    HOSTILE_RESPONSE,
    JUDGE,
    PAIR_JUDGE,
    Expected,
    build_plain,
    build_run,
    serving,
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Expected:
    return build_run(tmp_path_factory.mktemp("report") / "run")


def test_script_json_cannot_close_its_script_element() -> None:
    value = {"text": "</script><!-- & \u2028\u2029 </textarea>", "n": [1, None, 2.5]}
    embedded = script_json(value)
    assert not set("<>&\u2028\u2029") & set(embedded)
    assert json.loads(embedded) == value


def test_report_file_is_self_contained_under_a_hashed_policy(run: Expected, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "report.html"
    result = run_cli("report", str(run.run_dir), "-o", str(out))
    assert result.returncode == 0, result.stderr
    html = out.read_bytes().decode(PAGE_ENCODING)
    assert '<meta charset="windows-1252">' in html[:1024]
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    script = re.search(r"<script>(.*?)</script>", html, flags=re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "window.__pwned" in html and "<script>window.__pwned" not in html
    blocks = re.findall(r'<script type="application/json" id="([^"]+)">(.*?)</script>', html)
    data = json.loads(dict(blocks)["cb-data"])
    chunks = [v for k, v in packed_blocks(html).items() if k.startswith("cb-chunk-")]
    assert data["mode"] == "file" and len(chunks) == 6  # 260 items, 50 per block
    assert HOSTILE_RESPONSE in chunks[0]["strings"]
    assert HOSTILE_RESPONSE not in html  # packed: inflated by the page when shown
    head = html.split(f'<script type="{PACKED_TYPE}"')[0]
    assert all(ord(c) < 128 for c in head)  # ASCII up to the packed blocks


@pytest.mark.parametrize(
    "value",
    [
        {"strings": ["题一 < = \r \x00 </script>", "\u2028", "ascii"], "n": [1, None, 2.5]},
        {"strings": [bytes(range(256)).decode("latin-1") * 50], "records": []},
    ],
)
def test_a_packed_block_holds_no_byte_script_data_changes_and_unpacks_to_its_value(
    value: dict,
) -> None:
    encoding, text = pack(value)
    assert not set("\x00\r<") & set(text) and max(map(ord, text)) < 256
    assert unpack(encoding, text) == value


def test_index_flags_each_models_verdicts(run: Expected) -> None:
    with RunStore.existing(run.run_dir) as store:
        index = build_report(store).data["index"]
    models = index["models"]
    for item_id, _, units in index["items"]:
        for model, flags, score in units:
            name = models[model]
            unscored = item_id in run.unscored[name] | run.failed[name]
            assert bool(flags & UNSCORED) == unscored
            assert (score is None) == unscored
            if score is not None:
                assert bool(flags & PASS) == (score > 0)
                assert flags & FAIL or score == 1


def test_prices_give_costs_per_role(run: Expected) -> None:
    prices = parse_prices(["model-a=1,2", f"{JUDGE}=2.5,10", "unused=1,1"])
    with RunStore.existing(run.run_dir) as store:
        facts = build_report(store, ReportOptions(prices=prices)).data["facts"]
    cost = {(row["role"], row["model"]): row["cost"] for row in facts["usage"]}
    assert cost[("candidate", "model-a")] == pytest.approx((900 * 1 + 225 * 2) / 1e6)
    assert cost[("judge", JUDGE)] == pytest.approx((2000 * 2.5 + 500 * 10) / 1e6)
    assert cost[("candidate", "model-b")] is None
    assert facts["unpriced"] == ["model-b"] and facts["unused_prices"] == ["unused"]
    assert facts["judges"][0]["prompts"] == ["checklist_judge_en@9"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--price", "model-a=1"], "expected MODEL=INPUT,OUTPUT"),
        (["--price", "model-a=-1,2"], "expected MODEL=INPUT,OUTPUT"),
        (["--price", "m=1,2", "--price", "m=3,4"], "priced twice"),
        (["--judge-id", "nobody"], "no verdicts by judge 'nobody'"),
        (["--unscored", "maybe"], "unscored policy"),
        (["--taxonomy", "missing.json"], "file not found"),
    ],
)
def test_bad_options_exit_2_and_write_nothing(
    run: Expected, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "report.html"
    result = run_cli("report", str(run.run_dir), "-o", str(out), *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert not out.exists()


def test_report_of_a_missing_run_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("report", str(tmp_path / "nothing"))
    assert result.returncode == 2
    assert "not a checkbench run directory" in result.stderr
    assert not (tmp_path / "nothing").exists()


def test_taxonomy_tree_and_unreadable_records(run: Expected, tmp_path: Path) -> None:
    taxonomy = load_taxonomy(ROOT / "examples" / "taxonomy-mini.json")
    shutil.copytree(run.run_dir, tmp_path / "run")
    with RunStore.existing(tmp_path / "run") as store:
        with store.transaction() as db:  # as a damaged or foreign store might hold it
            db.execute(
                "INSERT INTO records(kind, key, body) VALUES (?, ?, ?)",
                ("meta_report", "broken-judge", '{"overall": "not a report"}'),
            )
        data = build_report(store, ReportOptions(taxonomy=taxonomy)).data
    [navigation] = data["taxonomy"]["navigations"]
    nodes = {node["path"]: node for node in navigation["nodes"]}
    assert navigation["source"] == "computed"
    assert set(nodes) == set(prune(taxonomy).taxonomy.paths())
    assert nodes["mathematics/proof"]["items"] == 0
    same = api.taxonomy_navigate(run.run_dir, ROOT / "examples" / "taxonomy-mini.json")
    assert navigation["nodes"] == same.model_dump(mode="json")["nodes"]
    assert nodes["coding"]["items"] == len(run.items) // 2
    assert data["taxonomy"]["descriptions"]["coding"] == taxonomy.find("coding").description
    assert data["meta"]["problems"] == [
        "meta_report record 'broken-judge' is not readable (settings: Field required)"
    ]
    assert set(data["meta"]["judges"]) == {JUDGE, PAIR_JUDGE}


def test_judge_option_keeps_that_judges_results_only(run: Expected) -> None:
    with RunStore.existing(run.run_dir) as store:
        data = build_report(store, ReportOptions(judge=JUDGE)).data
    assert data["index"]["judges"] == [JUDGE]
    assert [board["judge"] for board in data["leaderboards"]] == [JUDGE]
    assert set(data["meta"]["judges"]) == {JUDGE}


def test_runs_without_fbbench_tags_get_mean_scores(tmp_path: Path) -> None:
    items = build_plain(tmp_path / "run", judged=True)
    with RunStore.existing(tmp_path / "run") as store:
        boards = build_report(store).data["leaderboards"]
        summaries = model_summaries(items, store.responses(), store.verdicts())
    [board] = boards
    assert board["kind"] == "mean"
    assert {row["model"]: row["overall"] for row in board["rows"]} == {
        model: summary.score for model, summary in summaries.items()
    }
    assert set(board["breakdowns"]["m1"]["topic"]) == {"all"}  # no EC or RM slices here
    assert set(board["breakdowns"]["m1"]["topic"]["all"]) == {"code", "math"}


def test_fbbench_breakdowns_are_the_leaderboard_json_by_facet_and_slice(run: Expected) -> None:
    with RunStore.existing(run.run_dir) as store:
        [board] = build_report(store, ReportOptions(judge=JUDGE)).data["leaderboards"]
    assert board["kind"] == "fb-bench"
    same = api.leaderboard(run.run_dir, judge=JUDGE).scores.model_dump(mode="json")
    assert board["breakdowns"] == same["breakdowns"] and board["rows"] == same["rows"]
    cells = board["breakdowns"]["model-a"]
    assert set(cells) == {"task", "subtask", "feedback_type", "deficiency"}
    assert set(cells["task"]) == {"EC", "RM", "all"} and set(cells["deficiency"]) == {"EC", "all"}
    # Each feedback type is given in two EC and two RM tasks: the "all" cell is the mean of
    # the four task means, so the mean of the EC and RM cells.
    ec, rm, both = (cells["feedback_type"][name]["Pointing Out Errors"] for name in SLICES)
    assert set(both) == {"score", "ci", "n", "unscored"}
    assert both["n"] == ec["n"] + rm["n"]
    assert both["score"] == pytest.approx((ec["score"] + rm["score"]) / 2, abs=0.01)


def test_unjudged_run_has_no_leaderboard_but_lists_its_items(tmp_path: Path) -> None:
    build_plain(tmp_path / "run", judged=False)
    with RunStore.existing(tmp_path / "run") as store:
        data = build_report(store).data
    assert data["leaderboards"] == [] and data["meta"] is None and data["taxonomy"] is None
    assert len(data["index"]["items"]) == 12


def test_view_serves_the_page_and_item_pages(run: Expected) -> None:
    with serving(run.run_dir) as url:
        page = httpx.get(url)
        assert page.status_code == 200
        assert "connect-src 'self'" in page.headers["content-security-policy"]
        assert 'id="cb-chunk-' not in page.text and "<img" not in page.text
        position = run.items.index(HOSTILE_ITEM)
        items = httpx.get(f"{url}api/items", params={"at": f"0,{position}"}).json()
        assert len(items["records"]) == 2 and HOSTILE_RESPONSE in items["strings"]
        assert items["records"][0][1][0][1] == items["strings"].index(
            "Question 0: what is 0 + 0? <!-- keep -->"
        )
        found = httpx.get(f"{url}api/search", params={"q": "WINDOW.__pwned=1"}).json()
        assert found == {"positions": [position]}
        assert httpx.get(f"{url}api/items", params={"at": "260"}).status_code == 400
        assert httpx.get(f"{url}api/items", params={"at": "x"}).status_code == 400
        assert httpx.get(url, headers={"Host": "attacker.example"}).status_code == 403
        assert httpx.get(f"{url}nothing").status_code == 404
