"""One price type, spelled in the models file or with `--price`; a run keeps the models file's
prices of the models it used, so its report (of a copied run directory too) bills them, and
`--price` overrides them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from checkbench.errors import InputError
from checkbench.llm.models_file import Price, load_models_file, parse_price, parse_prices
from checkbench.report.page import read_page
from checkbench.store import RunStore, UsageRow
from checkbench.testing import OpenAIServer, completion, verdicts
from tests.conftest import run_cli
from tests.llm.test_endpoints import bench
from tests.report.test_browser import browser, open_page, visit

__all__ = ["browser"]  # the fixture, shared with the browser tests

KEY = "sk-price-test-0123456789abcdef"
CANDIDATE_TOKENS = (100, 10)
JUDGE_TOKENS = (300, 30)


def _answer(body: dict[str, Any], _headers: dict[str, str]) -> tuple[int, Any]:
    """Candidates and judges use different token counts, so each role's cost is its own."""
    if "response_format" in body:
        return 200, completion(verdicts(body), *JUDGE_TOKENS)
    return 200, completion("an answer", *CANDIDATE_TOKENS)


def _models_file(path: Path, url: str, candidate_price: str) -> Path:
    path.write_text(
        f'[models.cand]\nmodel = "c"\nbase_url = "{url}"\napi_key_env = "PRICE_KEY"\n'
        f"price = {candidate_price}\n\n"
        f'[models.jdg]\nmodel = "j"\nbase_url = "{url}"\napi_key_env = "PRICE_KEY"\n'
        "price = { input = 3, output = 5, batch_discount = 0.25 }\n"
    )
    return path


def _report_facts(run_dir: Path, *args: str) -> dict[str, Any]:
    result = run_cli("report", str(run_dir), *args)
    assert result.returncode == 0, result.stderr
    html = read_page(run_dir / "report.html")
    assert KEY not in html
    block = re.search(r'<script type="application/json" id="cb-data">(.*?)</script>', html, re.S)
    assert block is not None
    return json.loads(block.group(1))["facts"]


def _costs(facts: dict[str, Any]) -> dict[tuple[str, str], float | None]:
    return {(row["role"], row["model"]): row["cost"] for row in facts["usage"]}


def test_the_command_line_and_the_models_file_spell_the_same_price(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text(
        '[models.a]\nmodel = "x"\nprice = { input = 2, output = 8, batch_discount = 0.25 }\n'
        '[models.b]\nmodel = "y"\nprice = { input = 2, output = 8 }\n'
    )
    entries = load_models_file(path)
    assert parse_price("a=2,8,0.25") == ("a", entries["a"].price)
    assert parse_price("openai:gpt-4o=2,8") == ("openai:gpt-4o", entries["b"].price)
    row = UsageRow("a", "judge", 2, 0, 1_000_000, 500_000, 1.0, 2, 0, 400_000, 100_000)
    full = 2 + 0.5 * 8
    assert Price(input=2, output=8).billed(row) == pytest.approx(full - 0.5 * (0.8 + 0.8))
    assert entries["a"].price is not None
    assert entries["a"].price.billed(row) == pytest.approx(full - 0.25 * (0.8 + 0.8))


@pytest.mark.parametrize("spec", ["m=inf,1", "m=nan,1", "m=1,2,1.5", "m=-1,2", "=1,2", "m=1"])
def test_a_bad_price_is_one_error_naming_the_option(spec: str) -> None:
    with pytest.raises(InputError, match="expected MODEL=INPUT,OUTPUT") as err:
        parse_price(spec)
    assert "--price" in str(err.value)
    with pytest.raises(InputError, match="priced twice"):
        parse_prices(["m=1,2", "m=3,4"])


def test_an_infinite_price_in_the_models_file_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('[models.a]\nmodel = "x"\nprice = { input = inf, output = 1 }\n')
    result = run_cli(
        "generate",
        str(bench(tmp_path / "b.jsonl", 1)),
        "--out",
        "r",
        "-m",
        "a",
        "--models",
        str(path),
        cwd=tmp_path,
    )
    assert result.returncode == 2 and not (tmp_path / "r").exists()
    assert f"{path}:3: field 'models.a.price.input'" in result.stderr


@pytest.fixture(scope="module")
def priced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run by two priced aliases of the models file, copied where no models file is, the
    file itself deleted."""
    tmp_path = tmp_path_factory.mktemp("priced")
    items = bench(tmp_path / "b.jsonl", 3)
    run_dir = tmp_path / "run"
    with OpenAIServer(_answer) as server:
        models = _models_file(tmp_path / "m.toml", server.base_url, "{ input = 1, output = 2 }")
        args = ["run", str(items), "--out", str(run_dir), "-m", "cand", "--judge", "jdg"]
        result = run_cli(*args, "--models", str(models), env={"PRICE_KEY": KEY})
    assert result.returncode == 0, result.stderr
    copy = tmp_path / "elsewhere" / "copied"
    shutil.copytree(run_dir, copy)
    models.unlink()
    return copy


CANDIDATE_COST = 3 * (CANDIDATE_TOKENS[0] * 1 + CANDIDATE_TOKENS[1] * 2) / 1e6
JUDGE_COST = 3 * (JUDGE_TOKENS[0] * 3 + JUDGE_TOKENS[1] * 5) / 1e6


def test_the_report_bills_the_prices_the_run_kept(priced: Path) -> None:
    facts = _report_facts(priced)
    assert _costs(facts) == {
        ("candidate", "cand"): pytest.approx(CANDIDATE_COST),
        ("judge", "jdg"): pytest.approx(JUDGE_COST),
    }
    assert facts["prices"]["jdg"] == {
        "input": 3.0,
        "output": 5.0,
        "batch_discount": 0.25,
        "from": "models file",
    }
    assert facts["unpriced"] == [] and facts["unused_prices"] == []


def test_a_price_option_overrides_one_stored_price(priced: Path) -> None:
    facts = _report_facts(priced, "--price", "cand=10,20", "--price", "gone=1,1")
    assert _costs(facts)[("candidate", "cand")] == pytest.approx(10 * CANDIDATE_COST)
    assert _costs(facts)[("judge", "jdg")] == pytest.approx(JUDGE_COST)
    assert facts["prices"]["cand"]["from"] == "--price" and facts["unused_prices"] == ["gone"]
    with RunStore.existing(priced) as store:
        assert Price.model_validate(store.prices()["cand"]) == Price(
            input=1, output=2
        )  # the report stored nothing


def test_the_run_tab_says_where_each_price_comes_from(browser: Browser, priced: Path) -> None:
    _report_facts(priced, "--price", "cand=10,20")
    page, trouble = open_page(browser, (priced / "report.html").as_uri())
    visit(page, "run")
    notes = page.locator("[data-panel=run] p.note").all_inner_texts()
    said = next(note for note in notes if note.startswith("Cost in USD"))
    assert "cand 10, 20 (--price)" in said
    assert "jdg 3, 5, batch discount 0.25 (models file)" in said
    cells = page.locator("table[data-table=usage] tbody tr").first.locator("td").all_inner_texts()
    assert cells[-1].startswith("$")
    assert trouble == []
    page.close()


def test_two_models_under_one_alias_keep_their_own_prices(tmp_path: Path) -> None:
    """The same alias on another endpoint is another model (stored as `cand~hash`): each keeps
    the price it had, and a rerun with a changed price reprices that model only."""
    items = bench(tmp_path / "b.jsonl", 2)
    run_dir = tmp_path / "run"
    with OpenAIServer(_answer) as a, OpenAIServer(_answer) as b:
        for url, price in ((a.base_url, "1"), (b.base_url, "7"), (a.base_url, "2")):
            models = _models_file(tmp_path / "m.toml", url, f"{{ input = {price}, output = 0 }}")
            args = ["generate", str(items), "--out", str(run_dir), "-m", "cand"]
            assert run_cli(*args, "--models", str(models)).returncode == 0
    with RunStore.existing(run_dir) as store:
        prices = store.prices()
        other = next(name for name in store.models() if name != "cand")
    assert other.startswith("cand~")
    assert prices == {
        "cand": {**Price(input=2, output=0).model_dump()},
        other: Price(input=7, output=0).model_dump(),
    }
    costs = _costs(_report_facts(run_dir))
    tokens = 2 * CANDIDATE_TOKENS[0] / 1e6
    assert costs == {
        ("candidate", "cand"): pytest.approx(2 * tokens),
        ("candidate", other): pytest.approx(7 * tokens),
    }
