"""How long a server's event loop takes to answer a socket while a test loads it.

``python loop_pinger.py WS_URL SECONDS [GAP]`` opens a WebSocket, sends ``{"type": "ping"}``
every ``GAP`` seconds (0.01) for ``SECONDS`` and prints one JSON line: every round trip in
milliseconds, in order. It runs in a process of its own so that the load the test makes (in the
test's process) never delays the measure on the client's side: what it measures is the server.
The server answers a ``ping`` from its loop (docs/protocol.md), behind whatever the loop is doing.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import websockets


async def measure(url: str, seconds: float, gap: float) -> list[float]:
    rtts: list[float] = []
    async with websockets.connect(url, open_timeout=30) as ws:
        end = time.perf_counter() + seconds
        n = 0
        while time.perf_counter() < end:
            n += 1
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "id": str(n)}))
            while True:  # only our pongs come on a socket that never said hello
                reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if reply.get("type") == "pong" and reply.get("id") == str(n):
                    break
            rtts.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(gap)
    return rtts


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


if __name__ == "__main__":
    gap = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
    print(json.dumps(asyncio.run(measure(sys.argv[1], float(sys.argv[2]), gap))), flush=True)
