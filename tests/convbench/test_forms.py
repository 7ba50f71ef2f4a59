"""The form of mathematical text (`convbench.forms`): notation in any language, numbers, and
what is no notation (ranges, scores, dates, units glued to numbers, code)."""

from __future__ import annotations

import pytest

from checkbench.convbench.forms import FORMS, looks_like_code, math_form


@pytest.mark.parametrize(
    "text",
    [
        r"m取什么整数时，分式 $\frac{2m+7}{m-1}$ 的值为正整数？",
        "Löse die Gleichung 3x + 5 = 20 nach x auf.",
        "Найдите площадь, если a ≤ 4 и b ≠ 0",
        "What is √2 times π, to three decimals?",
        "若∠ONF=90°，求NF的最大值",
        "Simplify (x+1)^2 - x^2",
        "12 × 4 ÷ 3 = ?",
        "x² + y² = 25 の円の半径は？",
    ],
)
def test_notation_is_found_in_any_language(text: str) -> None:
    assert math_form(text).notation > 0


@pytest.mark.parametrize(
    "text",
    [
        "The match ended 4-0 and the next one 2-1.",
        "Pages 1-2 and 10-12 of the report, dated 2024/3/1.",
        "Compare the 5G phones with 20W and 65W chargers.",
        "请把这段话翻译成英文，谢谢。",
        "for (l = 0; l < n; l++) {\n  sum += a[l];\n}",
        "```python\nx = 1\nif x == 1: print(x)\n```",
    ],
)
def test_ranges_scores_dates_units_and_code_are_no_notation(text: str) -> None:
    assert math_form(text).notation == 0


def test_numbers_are_counted_and_code_is_told_apart() -> None:
    assert math_form("9个身高不等的人站成一排，共有多少种排列？").numbers == 1
    assert math_form("3.5 apples and 2 pears").numbers == 2
    assert math_form("no numbers here").numbers == 0
    assert looks_like_code("int main() {\n  return 0;\n}")
    assert not looks_like_code("Solve 2x = 8.")
    assert FORMS["math"] is math_form and "coding" not in FORMS
