"""Domain vocabularies: the words whose presence among a topic's keywords marks it in-domain.

A vocabulary is a set of lowercase single words, matched against the unigram keywords that
`topics` extracts (plural keywords fold to their singular: "equations" matches "equation").
Built-ins: ``coding``, ``math``, ``writing``. They avoid words that are common in every kind of
request ("write", "help", "model") so that a cluster matches on what it is about, not on how
people ask. Users pass their own as a list of words or a file with one word a line (``#`` starts
a comment).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from checkbench.errors import InputError
from checkbench.inputs import iter_input_lines

# What the keyword tokenizer produces: a letter, then letters, digits or underscores.
TOKEN_PATTERN = r"(?u)\b[^\W\d_]\w+\b"
_TERM = re.compile(r"[^\W\d_]\w+")

_CODING = """
python javascript typescript java kotlin swift rust golang ruby php perl scala haskell cpp
csharp dotnet lua dart elixir erlang clojure fortran cobol assembly matlab vba powershell bash
shell zsh sql mysql postgres postgresql sqlite mongodb redis elasticsearch html css scss json yaml
xml csv regex linux unix ubuntu docker dockerfile kubernetes git github gitlab api rest
graphql http https endpoint server backend frontend database query schema code coding codebase
program programming programmer script scripting function method class object variable array
list dict dictionary tuple string integer boolean float loop iterate iteration recursion
recursive algorithm compile compiler compilation interpreter runtime debug debugging debugger
bug error exception traceback stacktrace stack heap queue pointer struct enum interface module
package library framework import install pip conda npm yarn node nodejs react vue angular svelte
nextjs django flask fastapi spring express laravel rails pandas numpy scipy matplotlib seaborn
tensorflow pytorch keras sklearn dataframe async await promise callback thread threading
multithreading concurrency concurrent mutex syntax parse parser parsing lambda iterator generator
decorator inheritance polymorphism constructor instance attribute repository repo commit branch
merge deploy deployment unittest pytest junit refactor refactoring snippet implement
implementation terminal command cli ide vscode jupyter notebook linked binary tree graph hash
hashmap hashtable sorting sort index indexing null undefined typeerror valueerror segfault
memory cache caching token authentication oauth jwt websocket socket tcp udp config
configuration dependency selenium scrape scraping scraper crawler arduino
microcontroller firmware webpage website jquery ajax android ios flutter unity
gradle maven webpack vite bytes bitwise nosql orm crud microservice
serverless aws azure gcp cron nginx apache localhost port breakpoint
stdout stderr argv subprocess runtimeerror nullpointerexception leetcode hackerrank
"""

_MATH = """
math maths mathematics mathematical algebra algebraic geometry geometric calculus trigonometry
trigonometric arithmetic equation inequality solve solving solution polynomial quadratic cubic
linear derivative differentiate differentiation differential integral integrate integration
antiderivative limit series sequence summation sum product fraction decimal percent percentage
ratio proportion proportional prime factor factorial factorize factorization divisible divisor
gcd lcm modulo modular integer rational irrational imaginary complex matrix matrices vector
determinant eigenvalue eigenvector theorem proof prove lemma axiom corollary conjecture
probability statistics statistical mean median variance deviation distribution binomial poisson
gaussian expectation permutation combination combinatorics triangle angle circle radius diameter
circumference area perimeter volume sqrt root exponent exponential logarithm logarithmic log sine
cosine tangent sin cos tan pi hypotenuse pythagorean pythagoras slope intercept coordinate
parabola hyperbola ellipse asymptote subset union intersection infinity infinite convergence
converge diverge divergent formula calculate calculation compute evaluate simplify multiply
multiplication divide division addition subtraction numerator denominator coefficient digit
polygon hexagon pentagon rectangle quadrilateral parallelogram trapezoid rhombus sphere cylinder
cone pyramid congruent perpendicular parallel symmetry symmetric topology manifold
scalar tensor dot cross orthogonal basis span dimension rank kernel calculator equals
numerical quotient remainder dividend exponentiation
"""

_WRITING = """
writing essay story poem poetry poet poetic verse stanza rhyme rhyming haiku sonnet limerick
lyrics song songwriting novel novella fiction nonfiction narrative narrator plot character
protagonist antagonist dialogue scene chapter prose tale fable fairy myth legend screenplay
monologue blog article headline slogan tagline caption copywriting paragraph outline draft
rewrite paraphrase proofread proofreading edit editing grammar tone metaphor simile imagery
theme genre romance fantasy horror mystery thriller comedy humor humorous funny creative
imaginative letter speech eulogy toast tweet biography memoir journal diary anecdote punchline
joke riddle ode ballad elegy epic villanelle alliteration description descriptive persuasive
argumentative introduction conclusion thesis bedtime villain hero heroine adventure wordplay pun
rap chorus storytelling worldbuilding fanfic fanfiction roleplay suspense cliffhanger
prologue epilogue manuscript publish author readers storyline backstory vivid
wording rephrase reword synonyms vocabulary
"""

BUILTIN: dict[str, frozenset[str]] = {
    "coding": frozenset(_CODING.split()),
    "math": frozenset(_MATH.split()),
    "writing": frozenset(_WRITING.split()),
}


def load_vocabulary(*specs: str | Path | Iterable[str]) -> frozenset[str]:
    """The union of vocabularies: built-in names, word-list files, or iterables of words."""
    if not specs:
        raise InputError("no domain vocabulary given")
    terms: set[str] = set()
    for spec in specs:
        terms |= _one(spec)
    return frozenset(terms)


def _one(spec: str | Path | Iterable[str]) -> frozenset[str]:
    if isinstance(spec, str) and spec in BUILTIN:
        return BUILTIN[spec]
    if isinstance(spec, str | Path):
        return _read(Path(spec))
    return frozenset(_normalise(term, where=None) for term in spec)


def _read(path: Path) -> frozenset[str]:
    if not path.exists():
        raise InputError(f"not a built-in vocabulary ({', '.join(BUILTIN)}) nor a file", path=path)
    terms = set()
    for number, line in iter_input_lines(path):
        text = line.split("#", 1)[0].strip()
        if text:
            terms.add(_normalise(text, where=(path, number)))
    if not terms:
        raise InputError("vocabulary file has no words", path=path)
    return frozenset(terms)


def _normalise(term: str, *, where: tuple[Path, int] | None) -> str:
    """A vocabulary term lowercased; a term the keyword tokenizer cannot produce is an error."""
    word = term.strip().lower() if isinstance(term, str) else ""
    if _TERM.fullmatch(word):
        return word
    path, line = where if where else (None, None)
    raise InputError(
        f"vocabulary term {term!r} must be one word starting with a letter, 2+ characters",
        path=path,
        line=line,
    )


def match_terms(keywords: Iterable[str], vocabulary: frozenset[str]) -> list[str]:
    """The keywords found in the vocabulary, as written or as their singular."""
    return [word for word in keywords if any(form in vocabulary for form in _forms(word))]


def _forms(word: str) -> tuple[str, ...]:
    """The word and its plausible singulars: queries -> query, classes -> class, lists -> list."""
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        forms.append(word[:-1])
    return tuple(forms)
