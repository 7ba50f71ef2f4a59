"""Answers a model writes: one pydantic model is both the JSON schema sent with the request and
the parser of what comes back.

Every answer is bounded, so a small model under a grammar cannot ramble until max_tokens:
strings have a maximum length (`text`), lists a maximum count (`listing`), choices are a fixed
set (`choice`, `YesNo`), and the schema sent requires every property and allows no other. The
reader is as strict where it matters and no stricter: a property with a default (free-text
reasoning: a reason, an analysis) may be left out, and properties not asked for are ignored.

`parse_answer` finds the JSON in a reply (tolerating code fences and chatter around it), repairs
LaTeX backslashes a model wrote unescaped (`repair_latex`: "\\frac" is not a form feed) and
validates it; what is wrong becomes one short line (`Unusable`) that a re-ask shows the model.
Checks beyond the types (distinct names, usable weights) are validators of the answer model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache, partial
from typing import Annotated, Any, Literal, TypeVar, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model

A = TypeVar("A", bound="Answer")
SHOWN_ERRORS = 3
_YES = {"yes", "y", "true", "是", "pass"}
_NO = {"no", "n", "false", "否", "fail"}
_NOISE = {"title", "description", "default", "discriminator", "$defs"}


class Unusable(ValueError):
    """A model answer that does not satisfy what was asked; the message says why."""


class Answer(BaseModel):
    """The base of every answer. The schema sent requires every property and allows no other;
    the reader strips blanks around strings and ignores a property it did not ask for."""

    model_config = ConfigDict(
        extra="ignore",
        str_strip_whitespace=True,
        json_schema_serialization_defaults_required=True,
        json_schema_extra={"additionalProperties": False},
    )


class Keyed(Answer):
    """An answer with one property per key (check ids, criterion ids: any strings), made by
    `keyed`."""

    @classmethod
    def keys(cls) -> list[str]:
        return [str(info.alias) for info in cls.model_fields.values()]

    def entries(self) -> dict[str, Any]:
        """key -> its entry, in the order asked."""
        fields = type(self).model_fields
        return {str(info.alias): getattr(self, name) for name, info in fields.items()}


def text(max_chars: int, *, min_chars: int = 0) -> Any:
    """A string of `min_chars` to `max_chars` characters (blanks around it not counted)."""
    return Annotated[str, Field(min_length=min_chars or None, max_length=max_chars)]


def listing(entry: Any, *, max_items: int, min_items: int = 0) -> Any:
    """A list of `min_items` to `max_items` entries."""
    return Annotated[list[entry], Field(min_length=min_items or None, max_length=max_items)]


def _fold(options: tuple[Any, ...], value: Any) -> Any:
    """The option a string names, ignoring blanks around it and, where that leaves one option,
    case. A JSON true or false is not the number 1 or 0."""
    if isinstance(value, bool):
        return json.dumps(value)
    if not isinstance(value, str):
        return value
    word = value.strip()
    if word in options:
        return word
    folded = [o for o in options if isinstance(o, str) and o.casefold() == word.casefold()]
    return folded[0] if len(folded) == 1 else value


def choice(options: Sequence[Any]) -> Any:
    """One value out of `options` (strings or integers), sent as an enum."""
    values = tuple(options)
    return Annotated[Literal[values], BeforeValidator(partial(_fold, values))]


def yes_no(word: str) -> bool | None:
    """True for a yes word (yes, true, pass, 是...), False for a no word, else None."""
    folded = word.strip().strip(".").lower()
    return True if folded in _YES else False if folded in _NO else None


def _yes_or_no(value: Any) -> Any:
    if isinstance(value, bool):
        return "yes" if value else "no"
    word = yes_no(value) if isinstance(value, str) else None
    return value if word is None else "yes" if word else "no"


YesNo = Annotated[Literal["yes", "no"], BeforeValidator(_yes_or_no)]
"""A yes/no verdict; true/false and the usual yes and no words are read as such."""


def answer_model(title: str, base: type[A] = Answer, /, **fields: Any) -> type[A]:
    """An answer model made at run time, for bounds and choices known only then; each field is
    a type (required) or a (type, default) pair."""
    spec = {
        key: value if isinstance(value, tuple) else (value, ...) for key, value in fields.items()
    }
    return cast(type[A], create_model(title, __base__=base, **spec))


def keyed(name: str, keys: Sequence[str], entry: Any, base: type[A] = Keyed) -> type[A]:
    """An answer with one required `entry` per key, in order."""
    spec = {f"key{n}": (entry, Field(alias=key)) for n, key in enumerate(keys)}
    return cast(type[A], create_model(name, __base__=base, **spec))


def _plain(node: Any, defs: Mapping[str, Any]) -> Any:
    """A schema with its references inlined, single values as one-entry enums, unions as
    anyOf, and none of what is there for people or for pydantic (titles, descriptions, defaults,
    discriminators)."""
    if isinstance(node, list):
        return [_plain(part, defs) for part in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _plain(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    plain: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            plain[key] = {name: _plain(sub, defs) for name, sub in value.items()}
        elif key == "const":
            plain["enum"] = [value]
        elif key == "oneOf":
            plain["anyOf"] = _plain(value, defs)
        elif key not in _NOISE:
            plain[key] = _plain(value, defs)
    return plain


@cache
def answer_schema(answer: type[Answer]) -> dict[str, Any]:
    """The JSON schema sent for an answer: every property required, nothing referenced, no
    titles, so any JSON-schema grammar (llama.cpp's too) takes it as it is."""
    schema = answer.model_json_schema(mode="serialization")
    return cast(dict[str, Any], _plain(schema, schema.get("$defs", {})))


def json_text(raw: str) -> str:
    """The JSON object or array in a model answer, without code fences and chatter around it."""
    body = raw.strip()
    if "```" in body:  # the pattern costs more than the rest of the parse
        body = re.sub(r"^```(?:json)?\s*|\s*```$", "", body)
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts:
        raise Unusable("no JSON object found")
    start = min(starts)
    end = body.rfind("}" if body[start] == "{" else "]")
    if end <= start:
        raise Unusable("the JSON is incomplete")
    return body[start : end + 1]


_LATEX = frozenset(
    """backslash bar begin beta big bigcap bigcup bigg bigl bigr binom bmod boldsymbol bot
    boxed bullet because bf fbox flat footnote forall frac frown nabla natural ne nearrow
    neg neq newline nexists ngeq ni nleq nmid noindent nonumber not notin nparallel nu
    rangle rbrace rceil ref rfloor rho right rightarrow rm rvert tan tanh tau text textbf
    textit textnormal textrm textsf textstyle texttt tfrac therefore theta thinspace tilde
    times tiny to top triangle triangleq tt""".split()  # noqa: SIM905
)
r"""LaTeX commands whose backslash JSON would read as an escape (\b \f \n \r \t)."""
_HEX = frozenset("0123456789abcdefABCDEF")


def repair_latex(text: str) -> str:
    r"""JSON text with the LaTeX backslashes a model left unescaped doubled: "\frac" would read
    as a form feed and "rac", "\alpha" as an invalid escape. Real escapes stay: \" \\ \/,
    \uXXXX, and \n \t \r \b \f unless the letters they start spell a LaTeX command
    ("\nu", "\text"; never "\nThe")."""
    if "\\" not in text:
        return text
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        following = text[index + 1 : index + 2]
        if following in ('"', "\\", "/"):
            keep = True
        elif following == "u":
            keep = len(text) >= index + 6 and set(text[index + 2 : index + 6]) <= _HEX
        elif following and following in "bfnrt":
            end = index + 1
            while end < len(text) and text[end].isascii() and text[end].isalpha():
                end += 1
            keep = text[index + 1 : end] not in _LATEX
        else:
            keep = False
        if keep:
            out.append(text[index : index + 2])
            index += 2
        else:
            out.append("\\\\")
            index += 1
    return "".join(out)


def extract_json(raw: str) -> Any:
    """The JSON value in a model answer, for readers that take what they can of it."""
    try:
        return json.loads(repair_latex(json_text(raw)))
    except json.JSONDecodeError as exc:
        raise Unusable(f"invalid JSON ({exc.msg})") from None


def parse_answer(raw: str, answer: type[A]) -> A:
    """The answer in a model's reply, validated; Unusable says what is wrong with it."""
    try:
        return answer.model_validate_json(repair_latex(json_text(raw)))
    except ValidationError as exc:
        raise Unusable(problem(exc)) from None


def problem(error: ValidationError) -> str:
    """What is wrong with an answer in one line: the first few errors, each saying where."""
    found = [_describe(e) for e in error.errors(include_url=False)]
    more = len(found) - SHOWN_ERRORS
    return "; ".join(found[:SHOWN_ERRORS]) + (f" (and {more} more)" if more > 0 else "")


def _where(loc: Sequence[int | str]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}" if path else part
    return path


def _shown(value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _describe(error: Any) -> str:
    where, kind, ctx = _where(error["loc"]), error["type"], error.get("ctx") or {}
    named = f"'{where}'" if where else "the answer"
    if kind == "json_invalid":
        return f"invalid JSON ({ctx.get('error', error['msg'])})"
    if kind == "value_error":
        return f"{named}: {ctx['error']}" if where else str(ctx["error"])
    if kind in ("model_type", "dict_type"):
        return f"{named} must be a JSON object" if where else "expected a JSON object"
    if kind == "list_type":
        return f"{named} must be a list"
    if kind == "missing":
        return f"{named} is missing"
    if kind == "literal_error":
        return f"{named} must be one of {ctx['expected']}, not {_shown(error['input'])}"
    if kind == "union_tag_invalid":
        expected = f"{ctx['discriminator']} must be one of {ctx['expected_tags']}"
        return f"{named}: {expected}, not {_shown(ctx['tag'])}"
    if kind == "too_short":
        return f"{named} needs at least {ctx['min_length']} entries, not {ctx['actual_length']}"
    if kind == "too_long":
        return f"{named} allows at most {ctx['max_length']} entries, not {ctx['actual_length']}"
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return f"{named} must not be empty"
    return f"{named}: {error['msg']}"
