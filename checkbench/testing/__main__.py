"""The fake OpenAI-compatible server in this process, until killed; its base URL is the first
line of stdout:

    python -m checkbench.testing [--answers NAME] [--capacity N] [--delay-ms MS] [--latency-ms MS]
    python -m checkbench.testing --replay RUN --replay-judge ID    # a replay judge (replay.py)
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from checkbench.testing.answers import ANSWERS
from checkbench.testing.openai_server import OpenAIServer
from checkbench.testing.replay import ReplayJudge


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible server.")
    parser.add_argument("--answers", choices=sorted(ANSWERS), default="default")
    parser.add_argument("--capacity", type=int, help="answer 429 above this many in flight")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="wait before every answer")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="mean drawn wait")
    parser.add_argument("--replay", help="run directory whose stored verdicts to replay")
    parser.add_argument("--replay-judge", help="the judge of --replay whose verdicts to replay")
    args = parser.parse_args(argv)
    if (args.replay is None) != (args.replay_judge is None):
        parser.error("--replay and --replay-judge go together")
    answer = ReplayJudge(args.replay, args.replay_judge) if args.replay else ANSWERS[args.answers]
    OpenAIServer(
        answer,
        capacity=args.capacity,
        delay_s=args.delay_ms / 1000,
        latency_s=args.latency_ms / 1000,
    ).serve_forever()


if __name__ == "__main__":
    main()
