"""The whole Conv-to-Bench pipeline on synthetic multilingual logs: stages, calls, time, memory.

Writes N synthetic multi-turn conversations (half English, half Chinese, five topics, later
turns that complain, thank, concede or hold) to a temporary JSONL file, then runs `checkbench
build` on it twice against a local OpenAI-compatible server that answers every structured call
at once with JSON valid for its schema (checkbench.testing's server with `--answers schema`, in
another process, so that what is timed is checkbench): once as Conv-to-Bench (`--domain
coding`), once as FB-Bench curation (`--curate feedback`). Each build runs in a fresh process so
that its peak RSS (ru_maxrss) is its own. Prints, per build, every stage with what it saw and
kept, its model calls and its seconds, and the peak memory.

    python bench/bench_convbench.py [--n 3000] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from checkbench import api
from checkbench.llm import ModelOptions
from checkbench.steps.progress import ProgressSink
from checkbench.testing import ServerProcess

SIZE_KB = 1024  # ru_maxrss is in KiB on Linux
TOPICS = {
    "coding": (
        "a python function that sorts a list|a SQL query with a join|a javascript promise that "
        "never resolves|a bash script that renames files|a TypeError in my class|a react "
        "component that re-renders|a regex for email addresses|a memory leak in my C program",
        "写一个排序函数|这段代码报错了|数据库查询太慢|正则表达式匹配邮箱|递归函数栈溢出|前端页面部署到服务器|"
        "多线程程序死锁|接口返回的数据格式不对",
    ),
    "math": (
        "solve the quadratic equation|the derivative of x squared|the probability of two "
        "sixes|the area of a triangle|prove the theorem|the sum of the series|simplify the "
        "fraction|the integral from 0 to 1",
        "解这个一元二次方程|求函数的导数|计算三角形的面积|这道概率题怎么算|证明这个几何定理|求数列的前十项和|"
        "化简这个分数|求定积分的值",
    ),
    "writing": (
        "a poem about the sea|a short story with a dragon|a cover letter for a job|an essay on "
        "climate change|a toast for my sister's wedding|a haiku about autumn|the opening "
        "chapter of a novel|a slogan for a bakery",
        "写一首关于大海的诗|写一篇关于秋天的作文|帮我润色这段文案|续写这个故事|写一段婚礼致辞|写一首七言绝句|"
        "写一个广告语|写一篇读后感",
    ),
    "cooking": (
        "a recipe for lasagna|bake sourdough bread|a vegan dinner|marinade for steak|gluten "
        "free cake|homemade pasta|slow cooker chicken|a spicy curry",
        "红烧肉怎么做|蛋糕烤箱温度多少|饺子馅怎么调|番茄炒蛋的做法|炖鸡汤要放什么调料|面包发酵要多久|"
        "怎么腌制牛排|火锅底料怎么炒",
    ),
    "travel": (
        "a trip to Japan|an itinerary for Paris|cheap flights to Rome|visa requirements for "
        "Canada|a road trip route|a packing list for hiking|the best time to visit Bali|"
        "hotels near the beach",
        "去日本旅游的行程|巴黎三日游攻略|去云南自驾路线|签证需要什么材料|徒步需要带什么|什么时候去西藏最好|"
        "海边酒店推荐|机票怎么买便宜",
    ),
}
TURNS = {
    "en": {
        "opener": ["Can you help me with", "Please explain", "I need", "Question:", "Hi! I want"],
        "reply": "Here is an answer about {topic}.",
        "complaint": ["That's wrong, check it again.", "No, I asked for something else."],
        "thanks": ["Thanks, can you make it shorter?", "Great, now add an example."],
        "concede": ["Good catch, here is the fix.", "Sorry, you're right.", "My mistake: fixed."],
        "hold": ["I understand, but the answer is still correct.", "My earlier answer stands."],
    },
    "zh": {
        "opener": ["请问", "你好，", "帮我看看：", "我想知道", ""],
        "reply": "这是关于{topic}的回答。",
        "complaint": ["不对，再检查一下。", "我要的不是这个。"],
        "thanks": ["谢谢，能再简短一点吗？", "很好，再加一个例子。"],
        "concede": ["你说得对，下面是修改后的版本。", "抱歉，我搞错了。", "确实，这里应该改一下。"],
        "hold": ["我理解你的疑问，但答案仍然是正确的。", "我再次核对了，原来的回答没有问题。"],
    },
}


def conversation(rng: random.Random, i: int) -> dict[str, Any]:
    """One chat: a request of one topic in one language, and maybe a second round."""
    language = "zh" if i % 2 else "en"
    topic = rng.choice(list(TOPICS))
    fragments = TOPICS[topic][language == "zh"].split("|")
    turns = TURNS[language]
    ask = f"{rng.choice(turns['opener'])} {' and '.join(rng.sample(fragments, 2))}"
    messages = [
        {"role": "user", "content": ask.strip()},
        {"role": "assistant", "content": turns["reply"].format(topic=fragments[0])},
    ]
    second = "none"
    if rng.random() < 0.7:
        second = rng.choice(["concede", "concede", "hold", "thanks"])
        answer = turns["reply"].format(topic=topic) if second == "thanks" else None
        messages += [
            {"role": "user", "content": rng.choice(turns["thanks" if answer else "complaint"])},
            {"role": "assistant", "content": answer or rng.choice(turns[second])},
        ]
    return {"id": f"c{i}-{language}-{topic}-{second}", "messages": messages}


def write_corpus(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(json.dumps(conversation(rng, i), ensure_ascii=False) + "\n")


class StageClock(ProgressSink):
    """Notes when each model stage starts, to time the stages from the outside."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, float]] = []

    def start(self, label: str, total: int) -> None:
        self.starts.append((label, time.perf_counter()))


def worker(log: Path, mode: str, base_url: str, concurrency: int) -> dict[str, Any]:
    """One build; its stages with their counts and seconds, and the process's peak RSS."""
    spec = api.BuildSpec(
        logs=[log],
        mode=mode,
        domain="coding" if mode == "conv-to-bench" else None,
        model=f"openai:schema@{base_url}",
        settings={"min_checks": 1, "max_checks": 3},
    )
    options = ModelOptions(concurrency=concurrency, max_concurrency=concurrency, api_key_env="NONE")
    clock = StageClock()
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        bench = Path(scratch) / "bench.jsonl"
        built = api.build(spec, Path(scratch) / "run", bench, options=options, progress=clock)
        report = built.report
        end = time.perf_counter()
        ids = [json.loads(line)["id"] for line in bench.open(encoding="utf-8")]
    marks = [*clock.starts, ("", end)]
    seconds = {label: b - a for (label, a), (_, b) in zip(marks, marks[1:], strict=False)}
    cheap = (clock.starts[0][1] if clock.starts else end) - start
    return {
        "mode": mode,
        "items": report.items,
        "stages": [stage.model_dump() for stage in report.stages],
        "seconds": seconds,
        "cheap_s": cheap,
        "topics": report.topics.timings if report.topics else None,
        "total_s": end - start,
        "ids": ids,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / SIZE_KB,
    }


def run_worker(log: Path, mode: str, base_url: str, concurrency: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", mode, str(log), base_url, str(concurrency)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"{mode} build failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def selection(result: dict[str, Any], n: int) -> str:
    """Precision and recall of what the build kept, against the corpus's own labels (the
    topic, for Conv-to-Bench; a conceding second reply, for curation)."""
    wanted = "-coding-" if result["mode"] == "conv-to-bench" else "-concede"
    rng = random.Random(0)
    relevant = sum(wanted in conversation(rng, i)["id"] for i in range(n))
    hits = sum(wanted in item for item in result["ids"])
    precision = hits / max(len(result["ids"]), 1)
    return f"precision {precision:.2f}, recall {hits / max(relevant, 1):.2f} ({wanted.strip('-')})"


def show(result: dict[str, Any], n: int) -> None:
    print(f"\n{result['mode']}: {result['items']:,} items in {result['total_s']:.1f} s, "
          f"peak RSS {result['peak_mib']:.0f} MiB; {selection(result, n)}")  # fmt: skip
    print(f"  cheap stages (read, select, topics, read again): {result['cheap_s']:.1f} s")
    if result["topics"]:
        parts = ", ".join(f"{k} {v:.1f}" for k, v in result["topics"].items())
        print(f"    topics: {parts} s")
    header = "".join(f"{name:>7}" for name in ("seen", "kept", "calls", "cached"))
    print(f"  {'stage':<11}{header}{'seconds':>9}{'calls/s':>9}")
    for stage in result["stages"]:
        seconds = result["seconds"].get(stage["stage"])
        rate = f"{stage['calls'] / seconds:9.0f}" if seconds and stage["calls"] else " " * 9
        shown = f"{seconds:9.2f}" if seconds is not None else "        -"
        counts = "".join(f"{stage[key]:>7}" for key in ("seen", "kept", "calls", "cached"))
        print(f"  {stage['stage']:<11}{counts}{shown}{rate}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        mode, log, base_url, concurrency = args.worker
        print(json.dumps(worker(Path(log), mode, base_url, int(concurrency))))
        return
    with tempfile.TemporaryDirectory() as folder, ServerProcess("--answers", "schema") as server:
        base_url = server.base_url
        log = Path(folder) / "logs.jsonl"
        write_corpus(log, args.n)
        print(f"{args.n:,} conversations (half Chinese), {log.stat().st_size / 2**20:.1f} MiB; "
              f"server {base_url}, concurrency {args.concurrency}")  # fmt: skip
        for mode in ("conv-to-bench", "feedback"):
            show(run_worker(log, mode, base_url, args.concurrency), args.n)


if __name__ == "__main__":
    main()
