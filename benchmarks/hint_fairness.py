"""The engine shared fairly: another member's Hint while one member floods the hints' worker.

    .venv/bin/python -m benchmarks.hint_fairness [--samples 20] [--every 2] [--pages 16]
                                                 [--mode both|fair|bypass] [--seed 1]

The bot's :class:`Adviser` (its worker process, as the bot starts it). Bob presses Hint every
``--every`` seconds (± a quarter, drawn from ``--seed``), ``--samples`` times, on mid-game
positions; timed from asking to the hint. First alone ("quiet"), then while Ana floods from
``--pages`` pages: as many loops, each asking the best turn of a mid-game position as soon as its
last answer came — a refusal (her request pushed out by a newer one of hers) included, after the
page's round trip (``--round-trip`` ms: the refusal's frame to the page, the next ask back).

``--mode fair`` asks through :meth:`Adviser.hint` (the :class:`FairScheduler`); ``bypass`` calls
the worker directly, as ``Adviser.hint`` did before the scheduler (one unbounded queue); ``both``
runs one then the other. Prints p50 / p95 / max of Bob's wait in each phase, Ana's answers and
refusals a second, and the CPU the bot's process (not its worker) spent meanwhile. Every hint is
checked legal (exit code 1 otherwise). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from dataclasses import dataclass, field

from bot.fair_play.scheduler import Replaced
from bot.workers.ai import Adviser, _hint
from engine import Position, parse_turn
from engine.hints import Hint
from engine.newgame import new_game
from engine.play import random_game

from .bot_latency import latency_row

ANA, BOB = 1, 2


def mid_game_positions(rng: random.Random, count: int) -> list[Position]:
    """``count`` positions from the middle thirds of random games (none over)."""
    positions: list[Position] = []
    while len(positions) < count:
        game = random_game(new_game(seed=rng.randrange(2**31)), rng)
        line = [game.start]
        for turn in game.turns:
            line.append(line[-1].apply(turn))
        third = len(line) // 3
        positions.extend(p for p in line[third : 2 * third] if not p.is_over())
    rng.shuffle(positions)
    return positions[:count]


@dataclass
class Flood:
    """Ana's pages: answers and refusals counted."""

    answers: int = 0
    refused: int = 0
    illegal: list[str] = field(default_factory=list)


async def ask(adviser: Adviser, fair: bool, member: int, position: Position, seed: int) -> Hint:
    """A hint for ``member``: through the scheduler, or straight to the worker (the old way)."""
    if fair:
        return await adviser.hint(position, seed, member=member)
    turn, expected, exact, gain = await adviser.worker.run(_hint, str(position), seed)
    return Hint(parse_turn(turn), expected, exact, gain)


async def page(
    adviser: Adviser, fair: bool, positions: list[Position], flood: Flood, round_trip: float
) -> None:
    """One of Ana's pages: ask, wait for the answer, ask again, until cancelled."""
    index = 0
    while True:
        position = positions[index % len(positions)]
        index += 1
        try:
            found = await ask(adviser, fair, ANA, position, index)
        except Replaced:
            flood.refused += 1
        else:
            flood.answers += 1
            if found.turn not in position.legal_turns():
                flood.illegal.append(f"{found.turn} in {position}")
        await asyncio.sleep(round_trip)  # the answer's way to the page and the next ask's back


async def bob_presses(
    adviser: Adviser, fair: bool, positions: list[Position], every: float, rng: random.Random
) -> tuple[list[float], list[str]]:
    """Bob's waits (seconds), one Hint at a time, ``every`` seconds apart (± a quarter)."""
    waits: list[float] = []
    illegal: list[str] = []
    for index, position in enumerate(positions):
        await asyncio.sleep(every * rng.uniform(0.75, 1.25))
        asked = time.perf_counter()
        found = await ask(adviser, fair, BOB, position, index)
        waits.append(time.perf_counter() - asked)
        if found.turn not in position.legal_turns():
            illegal.append(f"{found.turn} in {position}")
    return waits, illegal


async def measure(args: argparse.Namespace, fair: bool) -> int:
    """Both phases for one mode; returns the exit code."""
    rng = random.Random(args.seed)
    bob = mid_game_positions(rng, args.samples)
    ana = mid_game_positions(rng, 64)
    adviser = Adviser()
    name = "fair (FairScheduler)" if fair else "bypass (the worker's one queue, as before)"
    print(f"\n{name}")
    try:
        await adviser.hint(new_game(), 0, member=BOB)  # the worker started
        quiet, illegal = await bob_presses(adviser, fair, bob, args.every, rng)
        flood = Flood()
        pages = [
            asyncio.create_task(
                page(adviser, fair, ana[i::4] or ana, flood, args.round_trip / 1000)
            )
            for i in range(args.pages)
        ]
        started, cpu = time.perf_counter(), time.process_time()
        try:
            flooded, more = await bob_presses(adviser, fair, bob, args.every, rng)
        finally:
            for task in pages:
                task.cancel()
            await asyncio.gather(*pages, return_exceptions=True)
        seconds = time.perf_counter() - started
        cpu = (time.process_time() - cpu) / seconds
    finally:
        adviser.close()
    print(f"    {'Bob’s Hint, ms':<40}{'n':>6}{'p50':>8}{'p95':>8}{'max':>8}")
    print(latency_row("alone", quiet))
    print(latency_row(f"while Ana floods from {args.pages} pages", flooded))
    print(
        f"    Ana: {flood.answers / seconds:.1f} answers/s, "
        f"{flood.refused / seconds:.0f} refusals/s over {seconds:.0f} s; "
        f"the bot process's CPU {cpu:.0%} of a core; "
        f"load {' '.join(f'{value:.1f}' for value in os.getloadavg())}"
    )
    wrong = illegal + more + flood.illegal
    for text in wrong:
        print(f"not legal: {text}")
    return 1 if wrong else 0


async def main_async(args: argparse.Namespace) -> int:
    print(
        f"seed {args.seed}, {args.samples} Hints every {args.every} s, {args.pages} pages, "
        f"round trip {args.round_trip} ms; load before "
        f"{' '.join(f'{value:.1f}' for value in os.getloadavg())}"
    )
    modes = {"fair": [True], "bypass": [False], "both": [True, False]}[args.mode]
    codes = [await measure(args, fair) for fair in modes]
    return max(codes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--every", type=float, default=2.0)
    parser.add_argument("--pages", type=int, default=16)
    parser.add_argument("--round-trip", type=float, default=2.0)
    parser.add_argument("--mode", choices=("both", "fair", "bypass"), default="both")
    parser.add_argument("--seed", type=int, default=1)
    raise SystemExit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
