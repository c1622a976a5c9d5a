// The connection to the table server: HTTP for guests and tables, one WebSocket per table that
// reconnects by itself, resumes from the last event it saw, and resends unanswered commands with
// the same id (the server answers a resend with the original answer, so nothing happens twice).
// Offline, a tap queues no new message: it takes the place of the same decision still waiting,
// so what goes out on the reconnect is one message per decision, once, not one per tap (a burst
// of them would trip the server's per-connection rate limit and close the new socket).

export async function api(path, { method = "GET", body, token } = {}) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  let data = null;
  try {
    data = await r.json();
  } catch {
    data = null;
  }
  if (!r.ok) {
    const err = new Error((data && data.message) || `HTTP ${r.status}`);
    err.code = (data && data.code) || `http_${r.status}`;
    err.status = r.status;
    throw err;
  }
  return data;
}

export class TableSocket {
  constructor({ table, token, role = "player", onFrame, onStatus }) {
    this.table = table;
    this.token = token;
    this.role = role;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.ws = null;
    this.seq = null;
    this.pending = new Map(); // id -> command without an answer yet
    this.sentOn = new Map(); // id -> the socket it last went out on
    this.synced = false; // the socket's hello is answered: commands go out at once
    this.counter = 0;
    this.prefix = Math.random().toString(36).slice(2, 8);
    this.retry = 0;
    this.closed = false;
    this.lastFrame = 0;
    this.offset = 0; // server clock minus ours, in seconds
    this.status = "connecting";
    this.heartbeat = setInterval(() => this.beat(), 5000);
  }

  setStatus(s) {
    if (this.status !== s) {
      this.status = s;
      this.onStatus && this.onStatus(s);
    }
  }

  connect() {
    if (this.closed) return;
    this.setStatus(this.seq === null ? "connecting" : "reconnecting");
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    this.synced = false;
    ws.onopen = () => {
      const hello = { type: "hello", token: this.token, table: this.table, role: this.role };
      if (this.seq !== null) hello.last_seq = this.seq;
      ws.send(JSON.stringify(hello));
      this.lastFrame = Date.now();
      this.pingSent = Date.now() / 1000;
      ws.send(JSON.stringify({ type: "ping", id: "clock" }));
    };
    ws.onmessage = (e) => {
      this.lastFrame = Date.now();
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      this.take(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.setStatus("reconnecting");
      const wait = Math.min(5000, 300 * 2 ** this.retry);
      this.retry += 1;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.connect(), wait);
    };
    ws.onerror = () => {};
  }

  take(msg) {
    if (msg.type === "sync") {
      this.seq = msg.seq;
      this.retry = 0;
      this.setStatus("online");
      this.onFrame(msg);
      this.synced = true;
      this.flush();
      return;
    }
    if (msg.type === "event") {
      if (this.seq !== null && msg.seq > this.seq + 1) {
        this.sendRaw({ type: "sync", last_seq: this.seq }); // a gap: ask for the whole view
        return;
      }
      if (this.seq !== null && msg.seq <= this.seq) return;
      this.seq = msg.seq;
    }
    if (msg.type === "pong") {
      if (msg.id === "clock" && msg.ts) {
        const now = Date.now() / 1000;
        const rtt = now - (this.pingSent || now);
        this.offset = msg.ts + rtt / 2 - now;
      }
      return;
    }
    if ((msg.type === "ack" || msg.type === "error") && msg.id) {
      this.pending.delete(msg.id);
      this.sentOn.delete(msg.id);
    }
    this.onFrame(msg);
  }

  beat() {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastFrame > 25000) {
      ws.close(); // nothing heard for too long: start again
      return;
    }
    if (Date.now() - this.lastFrame > 8000) {
      this.pingSent = Date.now() / 1000;
      this.sendRaw({ type: "ping", id: "clock" });
    }
  }

  sendRaw(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** Whether a command goes out now: the socket is open and its hello answered. */
  get live() {
    return Boolean(this.synced && this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  /** Send a command (or keep it for the reconnect); its id, to match the answer. */
  command(msg) {
    if (!this.live) {
      const same = [...this.pending.values()].find((m) => sameDecision(m, msg));
      if (same) {
        // Already on its way once (the answer lost with the socket): that one is resent with its
        // id, and this tap adds nothing. Never sent: the newest tap is the decision, in its place.
        if (!this.sentOn.has(same.id)) this.pending.set(same.id, { ...msg, id: same.id });
        return same.id;
      }
    }
    this.counter += 1;
    const m = { ...msg, id: `${this.prefix}-${this.counter}` };
    this.pending.set(m.id, m);
    if (this.live) this.send(m);
    return m.id;
  }

  /** Once a socket is synced: every command without an answer goes out on it, once. */
  flush() {
    for (const m of this.pending.values()) if (this.sentOn.get(m.id) !== this.ws) this.send(m);
  }

  send(m) {
    this.sentOn.set(m.id, this.ws);
    this.sendRaw(m); // a resend has the same id: applied at most once
  }

  /** Server time now, in seconds since the epoch. */
  now() {
    return Date.now() / 1000 + this.offset;
  }

  /** Drop the socket as a network cut would; it comes back by itself. */
  drop() {
    if (this.ws) this.ws.close();
  }

  close() {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}

/** Two commands are the same decision when they are of one kind at one position: a play (or a
 * choice, a redeal answer) at the same `seq`, a seed for the same hand, the same seat. */
function sameDecision(a, b) {
  return a.type === b.type && a.seq === b.seq && a.hand === b.hand && a.seat === b.seat;
}
