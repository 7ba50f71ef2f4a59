"""The form of a domain's text, a signal beside its vocabulary: what mathematics looks like
written down, in any language.

A vocabulary names a topic in the words of some languages; notation is shared by all of them.
`math_form` finds, in a message:

- notation: LaTeX (`\\frac{1}{2}`, `$x^2$`, `^{...}`), mathematical symbols (≤ ≠ √ π ∑ ∫ ∠ ∈ ²,
  ÷), and expressions: operands (numbers, single-letter variables, a closing bracket) joined by
  an operator (`3x+2=5`, `x^2`, `2m+7`, `12 × 4`). A hyphen between two numbers is a range or a
  score ("1-2"), a slash a date or a ratio, so neither alone makes an expression, nor does a
  unit glued to a number ("5G", "20W"). Expressions are looked for only in a text with a
  number, around its operators.
- numbers: how many numbers the message holds.

Code writes `l = 0` and `i < n` too, so a message that looks like code (a fenced block, lines
ending in `;` or braces, `==`, `->`, `#include`, ...) has no notation. No word of any
language is matched here: the signal is the same for a log in Chinese, German or Hindi.

`FORMS` maps a built-in domain to its form; the topic filter (`topics`) keeps a cluster where
at least `TopicConfig.form_share` of the messages carry notation, and, outside kept clusters,
a message with notation, or with a vocabulary term and a number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_LATEX = re.compile(
    r"\\(?:frac|dfrac|tfrac|sqrt|cdot|times|div|le|ge|leq|geq|neq|pm|mp|pi|infty|sum|prod|int"
    r"|oint|lim|log|ln|sin|cos|tan|cot|sec|csc|angle|cap|cup|in|notin|subset|subseteq|alpha"
    r"|beta|gamma|delta|theta|lambda|mu|sigma|omega|varphi|phi|binom|overline|vec|mathbb)\b"
    r"|[\^_]\{|\$[^$\n]*[\\^_=][^$\n]*\$"
)
_SYMBOLS = re.compile(r"[∠∩∪∈∉⊂⊆⊇⊃≤≥≠≈≡±∓√∛π∑∏∫∮∞∵∴∀∃∂∇⊥∥²³÷]")
_NUMBER = r"\d+(?:\.\d+)?"
_OPERAND = rf"(?:{_NUMBER}[a-zA-Z]?|(?<![^\W\d_])[a-zA-Z](?![^\W\d_])|\))"
_EXPRESSION = re.compile(rf"{_OPERAND}\s*(?:[+*/×÷^=<>≤≥]|-)\s*\(?\s*{_OPERAND}(?![^\W\d_])")
_STRONG_OPERATOR = re.compile(r"[+*×÷^=<>≤≥]")
_HAS_VARIABLE = re.compile(r"[a-zA-Z)]")
_NUMBERS = re.compile(_NUMBER)
_CODE = re.compile(
    r"```|^\s*(?:def |class |import |from \S+ import|#include|public |private |function "
    r"|var |let |const |return\b|for\s*\(|if\s*\(|while\s*\()|[;{}]\s*$|==|!=|\+=|->|=>|::",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Form:
    """What a message shows of a domain's form: whether it carries notation, and how many
    numbers it holds."""

    notation: bool
    numbers: int


_OPERATORS = re.compile(r"[+*/×÷^=<>≤≥-]")
_WINDOW = 24
"""Characters either side of an operator that an expression around it is looked for in."""


def _has_expression(text: str) -> bool:
    """Operands joined by an operator, looked for only around the operators the text holds;
    between two numbers a '-' or '/' alone is no expression (a range, a score, a date)."""
    for operator in _OPERATORS.finditer(text):
        start = operator.start()
        window = text[max(start - _WINDOW, 0) : start + _WINDOW]
        for found in _EXPRESSION.finditer(window):
            if _STRONG_OPERATOR.search(found.group()) or _HAS_VARIABLE.search(found.group()):
                return True
    return False


def looks_like_code(text: str) -> bool:
    """Whether the text holds code: a fenced block, a statement line, `==`, `->` and the like."""
    return _CODE.search(text) is not None


def math_form(text: str) -> Form:
    """Whether a text carries notation (LaTeX, symbols, expressions; never in code) and how
    many numbers it holds."""
    numbers = sum(1 for _ in _NUMBERS.finditer(text))
    notation = bool(
        _SYMBOLS.search(text) or _LATEX.search(text) or (numbers and _has_expression(text))
    )
    return Form(notation=notation and not looks_like_code(text), numbers=numbers)


FormOf = Callable[[str], Form]
FORMS: dict[str, FormOf] = {"math": math_form}
"""The built-in domains whose text has a form of its own."""
