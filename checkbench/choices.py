"""The named choices of settings that commands take as options, each defined once here.

Light on purpose (it imports only `typing`): the CLI types its options with these, so typer can
check a value and list the choices in --help without importing the modules that use them; those
modules take their Literal from here.
"""

from typing import Literal

NATIVE_FORMAT = "native"
"""checkbench's own benchmark file format (Items, JSONL or a JSON list); the other formats are
the registered protocols' (`checkbench.registry`)."""
UnscoredPolicy = Literal["zero", "exclude"]
"""Items left unscored by the judge count as 0 (as FB-Bench publishes) or are left out."""
JudgeMode = Literal["text", "logprob"]
"""Checklist judging: one JSON verdict per response (text) or P(yes) per check (logprob)."""
ExecutorName = Literal["local", "ray"]
"""The executors by name, as `--executor` takes them."""
Curation = Literal["conv-to-bench", "feedback"]
"""Conv-to-Bench builds: checklists from conversations, or feedback items from follow-ups."""
LogFormat = Literal["auto", "openai", "sharegpt", "lmsys", "wildchat"]
"""Conversation log formats: detected from the first record (auto), or one of these."""
CheckMode = Literal["instruction", "all"]
"""Conv-to-Bench scores over the checks derived from the instruction, or over all checks."""
Paradigm = Literal["verification", "pairwise", "both"]
"""IF-RewardBench meta-evaluation paradigms."""
PairScope = Literal["all", "edges"]
"""IF-RewardBench pairs to judge: every pair, or only the preference graph's edges."""
PairwiseMethod = Literal["bradley_terry", "elo"]
"""Rankings from pairwise verdicts: Bradley-Terry or Elo."""
CalibrationMethod = Literal["logistic", "isotonic"]
"""Calibration curves: logistic (Platt) or isotonic."""
Decision = Literal["bayes", "rate"]
"""Calibrated decisions: pass at calibrated P(pass) >= 0.5 (bayes), or at the level that passes
as many training checks as the reference did (rate)."""
PC2Mode = Literal["pointwise", "pairwise", "both"]
"""PC^2 grading: pointwise scores, pairwise margins, or both."""
TaxonomyFormat = Literal["checkbench", "scan"]
"""Taxonomy file formats: checkbench's own, or SCAN's released one."""
ScoringProtocol = Literal["auto", "fb-bench", "conv-to-bench"]
"""How `run` scores: by the FB-Bench leaderboard or by Conv-to-Bench's check means."""
NoEdges = Literal["exclude", "zero"]
"""IF-RewardBench instructions without preference edges: left out of the ranking metrics, or
scored zero (as the released code does)."""
MissingVerdicts = Literal["pass", "unscored"]
"""What a constraint without a verdict in its critique becomes."""
ScoreSource = Literal["verdicts", "stored"]
"""FB-Bench scores from the run's verdicts, or the imported files' own scores."""

TagTurns = Literal["first", "all"]
"""Which user turns SCAN's tagger reads as the task."""
ChecklistChoice = Literal["full", "refined"]
"""Score a run with its items' checklists, or with the refined ones `audit --write-refined`
stored in it (no model call)."""
FlagKind = Literal[
    "all-pass", "all-fail", "negative", "disagree", "flip", "unscored", "duplicate", "placeholder"
]
"""Why an audit flags a check: passed or failed by every model, discriminates negatively,
judges disagree, flips between samples, often unscored, near-duplicate of an earlier check of
its item, placeholder or echoed text."""
SimilarityBackend = Literal["auto", "ngrams", "wordllama"]
"""How an audit embeds check texts: character n-gram TF-IDF, wordllama (the build extra), or
auto (wordllama when installed and the texts are in spaced scripts, else n-grams)."""
