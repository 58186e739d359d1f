// Websocket load for the benchmarks: many dashboard sockets held open by one Node process (the `ws`
// package), so the clients cost the machine little CPU per socket beside the server they measure.
//
// Run by bench/node_clients.py. It reads one JSON line of settings on stdin:
//   {"urls": [...], "origin": "...", "count": N, "cookies": [...] | null, "watch": ["prefix", ...],
//    "at_once": 50, "timeout": 300}
// opens `count` sockets (spread over `urls` in turn, socket i with cookies[i] if given), and prints
// {"event": "ready", ...} once every socket holds its snapshot. Then each line on stdin is a command:
//   {"cmd": "cpu"}                              -> {"event": "cpu", "cpu_seconds": ...}
//   {"cmd": "settle", "final": {name: [value, version]}, "timeout": s}
//        -> waits (at most `timeout`) until every socket holds `final`, then
//           {"event": "report", "sockets": [{"known": {name: [value, version, at]}, "frames": n,
//            "last": t, "peak": p}, ...], "cpu_seconds": ...}
//   {"cmd": "close"}                            -> closes every socket and exits
// Times (`at`, `last`) are seconds on the monotonic clock (Python's time.monotonic() reads the same).
// Only counters whose name starts with a `watch` prefix are kept; `frames` counts update frames.

import { createInterface } from "node:readline";
import WebSocket from "ws";

const now = () => Number(process.hrtime.bigint()) / 1e9;
const cpuSeconds = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

class Socket {
  constructor(watch) {
    this.watch = watch;
    this.known = {};
    this.frames = [];
    this.ready = false;
  }

  take(raw, at) {
    // Heartbeats and viewing-now frames carry no totals: skip them unparsed.
    const head = raw.slice(0, 24);
    const snapshot = head.includes('"snapshot"');
    if (!snapshot && !head.includes('"update"') && !head.includes('"catalog"')) return;
    for (const counter of JSON.parse(raw).counters || []) {
      if (!("value" in counter) || !this.watch.some((prefix) => counter.name.startsWith(prefix))) continue;
      const held = this.known[counter.name];
      if (held === undefined || counter.version > held[1]) {
        this.known[counter.name] = [counter.value, counter.version, at];
      }
    }
    if (snapshot) this.ready = true;
    else if (head.includes('"update"')) this.frames.push(at);
  }

  holds(final) {
    return Object.entries(final).every(([name, [value, version]]) => {
      const held = this.known[name];
      return held !== undefined && held[0] === value && held[1] === version;
    });
  }

  summary() {
    return { known: this.known, frames: this.frames.length, last: this.frames.at(-1) ?? null, peak: peak(this.frames) };
  }
}

// The most frames inside any half-open one-second window.
function peak(frames) {
  let best = 0;
  let start = 0;
  frames.forEach((at, end) => {
    while (at - frames[start] >= 1.0) start += 1;
    best = Math.max(best, end - start + 1);
  });
  return best;
}

function open(settings, socket, i) {
  const headers = settings.cookies ? { Cookie: settings.cookies[i] } : {};
  const url = settings.urls[i % settings.urls.length];
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin: settings.origin, headers, perMessageDeflate: false });
    ws.on("message", (data) => socket.take(data.toString(), now()));
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

async function openAll(settings, sockets) {
  const held = new Array(sockets.length);
  let next = 0;
  const worker = async () => {
    while (next < sockets.length) {
      const i = next++;
      held[i] = await open(settings, sockets[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(settings.at_once, sockets.length) }, worker));
  return held;
}

async function until(check, seconds) {
  const deadline = now() + seconds;
  while (!check() && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

async function main() {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const settings = JSON.parse((await lines.next()).value);
  const sockets = Array.from({ length: settings.count }, () => new Socket(settings.watch));
  const began = now();
  const cpu = cpuSeconds();
  const held = await openAll(settings, sockets);
  await until(() => sockets.every((s) => s.ready), settings.timeout);
  const ready = sockets.filter((s) => s.ready).length;
  say({ event: "ready", sockets: ready, connect_seconds: now() - began, connect_cpu_seconds: cpuSeconds() - cpu });
  for await (const line of lines) {
    const command = JSON.parse(line);
    if (command.cmd === "cpu") {
      say({ event: "cpu", cpu_seconds: cpuSeconds() });
    } else if (command.cmd === "settle") {
      await until(() => sockets.every((s) => s.holds(command.final)), command.timeout);
      say({ event: "report", sockets: sockets.map((s) => s.summary()), cpu_seconds: cpuSeconds() });
    } else if (command.cmd === "close") {
      break;
    }
  }
  held.forEach((ws) => ws.terminate());
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
