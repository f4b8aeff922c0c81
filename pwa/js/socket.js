// The live channel of docs/websocket.md, receive side. Moves still go over HTTP (one path with idempotency
// keys); the socket only tells us, fast, that the game changed. It reconnects by itself with exponential
// backoff and jitter (0.5 s .. 10 s), and at once when the page becomes visible or the network returns,
// because mobile browsers silently kill background sockets.

const WATCHDOG_MS = 60000; // server pings every ~25 s but JS never sees pings: 2x interval plus slack

export class LiveSocket {
  /**
   * @param {() => string} url
   * @param {() => object} hello  the first message (token and the last version seen), built per connect
   * @param {(msg: object) => void} onMessage
   * @param {(open: boolean) => void} onOpenChange
   */
  constructor(url, hello, onMessage, onOpenChange) {
    Object.assign(this, { url, hello, onMessage, onOpenChange });
    this.ws = null;
    this.open = false;
    this.attempt = 0;
    this.stopped = false;
    this.timer = null;
    this.watchdog = null;
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
    this.setOpen(false);
  }

  /** Reconnect now unless already connected (visibilitychange, online). */
  kick() {
    if (this.stopped || this.open) return;
    clearTimeout(this.timer);
    this.attempt = 0;
    this.connect();
  }

  setOpen(open) {
    if (this.open !== open) {
      this.open = open;
      this.onOpenChange(open);
    }
  }

  connect() {
    if (this.stopped || typeof WebSocket === 'undefined') return;
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
    }
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.hello()));
      this.feed();
    };
    ws.onmessage = (e) => {
      this.attempt = 0; // a real frame: the server speaks our protocol, reset the backoff
      this.setOpen(true);
      this.feed();
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      // Refused before the hello was taken (server_busy, rate_limited): come back when the server says.
      if (msg && msg.type === 'error' && !msg.id && msg.retry_after > 0) this.wait = msg.retry_after * 1000;
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearTimeout(this.watchdog);
      this.setOpen(false);
      this.retry();
    };
    ws.onerror = () => {}; // onclose follows and schedules the retry
  }

  feed() {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      if (this.ws) this.ws.close(4000); // silent too long: treat as dead (docs/websocket.md)
    }, WATCHDOG_MS);
  }

  retry() {
    if (this.stopped) return;
    const base = Math.min(10000, 500 * 2 ** this.attempt);
    this.attempt += 1;
    const delay = Math.max(this.wait || 0, base / 2 + Math.random() * (base / 2));
    this.wait = 0;
    this.timer = setTimeout(() => this.connect(), delay);
  }
}
