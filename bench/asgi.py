"""The site's ASGI application plus benchmark endpoints: frames handed out on the server's loop, a floor.

`POST /bench/hand-out?frames=K&size=S&path=direct|send&pause=P` hands K update frames of about S bytes
(each P seconds after the last, default 0) to every dashboard socket of this process, through
`LocalFanout.hand_out` (`direct`: each frame encoded once and written to every socket that can take it)
or through each consumer's channels `send`, as every frame went before (`send`). It answers
`{"sockets", "direct", "seconds", "cpu_seconds"}`: sockets reached, socket writes that took the frame's
bytes as encoded once, and the wall and CPU time the loop's thread spent handing out (the wall time
also counts waits for a core on a busy machine).
Served only by the benchmark and its tests (`daphne bench.asgi:application`); never deployed.
"""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import parse_qs

from counters_site.asgi import application as site_application

HAND_OUT_PATH = "/bench/hand-out"
# The floor beside the site beacon: an ASGI endpoint that reads the body and answers 204, doing nothing.
NOTHING_PATH = "/bench/nothing"


def padded_update(size: int, number: int) -> str:
    """An update frame carrying no counter, padded to about `size` bytes (the clients read it as usual)."""
    head = json.dumps({"type": "update", "counters": [], "frame": number, "pad": ""}, separators=(",", ":"))
    return head[:-2] + "x" * max(0, size - len(head)) + '"}'


def live_fanout():
    """This process's fan-out (imported late: the site module set Django up first)."""
    try:
        from counters.runtime import runtime
    except ImportError:  # the tree before the per-process runtime
        from counters.live.fanout import fanout

        return fanout
    return runtime().fanout


async def hand_out_frames(frames: int, size: int, path: str, pause: float) -> dict:
    """Hand `frames` frames, `pause` seconds apart, to this process's sockets along `path`; what it took."""
    fanout = live_fanout()
    sockets, direct, seconds, cpu = len(fanout), 0, 0.0, 0.0
    for number in range(frames):
        # Apart, as frames go (100 ms at least): each is written out on its own, not batched with the next.
        await asyncio.sleep(pause)
        text = padded_update(size, number)
        began, began_cpu = time.perf_counter(), time.thread_time()
        if path == "direct":
            direct += await fanout.hand_out(text)
        else:
            # The path every frame took before: a plain str goes through the consumer's channels `send`.
            for socket in list(fanout._sockets):
                await socket.send_update(text)
        seconds, cpu = seconds + time.perf_counter() - began, cpu + time.thread_time() - began_cpu
    return {"sockets": sockets, "direct": direct, "seconds": seconds, "cpu_seconds": cpu}


async def answer(send, status: int, body: dict) -> None:
    """Send a JSON answer."""
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def nothing(receive, send) -> None:
    """Read the request and answer 204: what any endpoint costs the server before it does anything."""
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def application(scope, receive, send):
    """The site, with the hand-out endpoint and the do-nothing floor in front of it."""
    if scope["type"] == "http" and scope["path"] == NOTHING_PATH:
        return await nothing(receive, send)
    if scope["type"] != "http" or scope["path"] != HAND_OUT_PATH:
        return await site_application(scope, receive, send)
    query = {key: values[-1] for key, values in parse_qs(scope["query_string"].decode()).items()}
    path = query.get("path", "direct")
    if scope["method"] != "POST" or path not in ("direct", "send"):
        return await answer(send, 400, {"error": "bad_request", "detail": "POST, path=direct|send"})
    frames, size = int(query.get("frames", "1")), int(query.get("size", "100"))
    pause = float(query.get("pause", "0"))
    return await answer(send, 200, await hand_out_frames(frames, size, path, pause))
