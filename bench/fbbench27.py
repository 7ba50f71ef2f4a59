"""27 FB-Bench judgment files from the 6 published ones: the scale of the authors' full release.

Each of the 27 models takes one of the 6 real files (in turn), under a model name of the
paper's size and shape, with about one verdict in ten flipped (seeded per model) so that the
27 differ. From the second round on, the answers and the judge's reasons go through a letter
substitution of the model's own (a shift of the Latin and CJK letters): same lengths, the
same compressibility, but no text shared with another model, as with real answers. The stored
scores are left as published: `leaderboard --stored-scores` reads them, the verdict-based
leaderboard notes the records where they differ.

    python bench/fbbench27.py OUT_DIR [SOURCE_DIR]

then `checkbench fbbench import OUT_DIR -o RUN` makes the 27-model run that
`bench/report_size.py` measures.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SOURCE = Path("/work/shared/data/fb-bench/model_judgment/gpt-4o-2024-08-06")
NAMES = [
    "gpt-4o-2024-08-06",
    "gpt-4o-mini-2024-07-18",
    "claude-3-5-sonnet-20240620",
    "claude-3-opus-20240229",
    "gemini-1.5-pro-002",
    "gemini-1.5-flash-002",
    "o1-preview-2024-09-12",
    "o1-mini-2024-09-12",
    "Meta-Llama-3.1-405B-Instruct",
    "Meta-Llama-3.1-70B-Instruct",
    "Mistral-Large-Instruct-2407",
    "Mixtral-8x22B-Instruct-v0.1",
    "Qwen2.5-7B-Instruct",
    "Qwen2-72B-Instruct",
    "DeepSeek-V2.5",
    "deepseek-llm-67b-chat",
    "glm-4-9b-chat",
    "GLM-4-Plus",
    "Yi-1.5-34B-Chat",
    "yi-lightning",
    "internlm2_5-20b-chat",
    "ERNIE-4.0-Turbo-8K",
    "moonshot-v1-32k",
    "Doubao-pro-32k",
    "step-1-8k",
    "gemma-2-27b-it",
    "local:SmolLM2-135M-Instruct.Q4_1",
]
FLIP = 0.1
VERDICT = "评判结果"
REASON = "评判理由"
CJK = (0x4E00, 0x9FFF)


def disguised(text: str, shift: int) -> str:
    """`text` with its Latin letters and CJK characters shifted by `shift` places."""
    if not shift or not isinstance(text, str):
        return text
    out = []
    for char in text:
        code = ord(char)
        if CJK[0] <= code <= CJK[1]:
            code = CJK[0] + (code - CJK[0] + 37 * shift) % (CJK[1] - CJK[0] + 1)
        elif "a" <= char <= "z":
            code = ord("a") + (code - ord("a") + shift) % 26
        elif "A" <= char <= "Z":
            code = ord("A") + (code - ord("A") + shift) % 26
        out.append(chr(code))
    return "".join(out)


def synthesize(out: Path, source: Path = SOURCE) -> list[Path]:
    """Write the 27 files into `out`; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    files = sorted(source.glob("*.jsonl"))
    written = []
    for k, name in enumerate(NAMES):
        rng = random.Random(k)
        lines = []
        for line in files[k % len(files)].read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            record["infer_model"] = name
            shift = k // len(files)
            record["second_response"] = disguised(record.get("second_response"), shift)
            for entry in (record.get("judgement") or {}).values():
                if isinstance(entry, dict) and REASON in entry:
                    entry[REASON] = disguised(entry[REASON], shift)
                verdict = entry.get(VERDICT) if isinstance(entry, dict) else None
                if verdict in ("是", "否") and rng.random() < FLIP:
                    entry[VERDICT] = "否" if entry[VERDICT] == "是" else "是"
            lines.append(json.dumps(record, ensure_ascii=False))
        path = out / f"{name.replace(':', '_')}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    source = Path(sys.argv[2]) if len(sys.argv) > 2 else SOURCE
    for path in synthesize(Path(sys.argv[1]), source):
        print(path)
