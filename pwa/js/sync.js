// Sync of one game with the server: the newest (version, view) this device holds, who sits where, the
// live connection, the move in flight, and the game's event log (the history). The server is the
// truth: our copy is only ever replaced by a newer version (docs/protocol.md §12), and each newer view
// is handed on at once (`onView`), with the events that led to it when they are known. Each move is
// sent once with an Idempotency-Key that is reused on every retry, so a move made offline is applied
// exactly once when the network returns. Nothing here waits for an animation.

import { ApiError, Connection, NetworkError, uuid } from './client.js';
import * as store from './store.js';
import { actKey } from './targets.js';

const POLL_MS = 3000; // only while the socket is down

export class GameSync {
  /**
   * @param {import('./client.js').Client} api  the app's one API client
   * @param {string} id @param {{watch?: boolean, onView: Function, onChange: Function, onRematch?: Function}} opts
   *   watch: the public table view, no token. onView(from, view, events, fromVersion, own): a newer
   *   view is the truth now (own: the answer to this phone's move). onChange(): anything else changed. onRematch(): the next game exists.
   */
  constructor(api, id, { watch = false, onView, onChange, onRematch = () => {}, onSteps = () => {} }) {
    this.api = api;
    this.id = id;
    this.watch = watch;
    this.onView = onView;
    this.onChange = onChange;
    this.onRematch = onRematch;
    this.onSteps = onSteps; // events of a version already shown, read afterwards
    const rec = watch ? null : store.game(id);
    this.tokens = (rec && rec.tokens) || {};
    this.hotseat = Boolean(rec && rec.hotseat);
    const seats = Object.keys(this.tokens).map(Number).sort();
    this.s = {
      version: 0, view: null, seats: [], joinCode: null, seat: watch ? null : (seats[0] ?? null),
      conn: 'connecting', socketOpen: false, pending: null, pendingStuck: false,
      error: null, notice: null, online: null, rematch: null,
      // The event log as GET /events gives it for this seat; version 1 (the deal) has no entry.
      log: [], logVersion: 1,
    };
    this.storedPending = rec && rec.pending;
    this.queue = Promise.resolve();
    this.retryTimer = null;
    this.retries = 0;
    this.logBusy = false;
  }

  get token() {
    return this.watch ? null : this.tokens[this.s.seat];
  }

  /** Run sync steps one at a time, so answers are applied in the order they were asked for. */
  enqueue(fn) {
    this.queue = this.queue.then(fn).catch((err) => this.fail(err));
    return this.queue;
  }

  start() {
    this.onWake = () => {
      if (document.visibilityState === 'visible') this.wake();
    };
    this.onOnline = () => this.wake();
    document.addEventListener('visibilitychange', this.onWake);
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOnline);
    this.poller = setInterval(() => {
      if (!this.s.socketOpen) this.requestResync();
    }, POLL_MS);
    this.enqueue(async () => {
      await this.resync();
      if (this.storedPending && !this.s.error) {
        this.s.pending = this.storedPending; // sent before a reload: retry with the same key
        this.onChange();
        await this.send();
      }
    });
    this.openSocket();
  }

  /** The live channel of the seat shown (pass-and-play: reopened for the next seat when it takes over). */
  openSocket() {
    if (this.socket) this.socket.stop();
    this.s.socketOpen = false;
    this.socket = new Connection(this.api, this.id, this.token ?? null, {
      since: this.s.version,
      fillEvents: false, // a gap is read again as a whole below (seats and join code too)
      onState: (msg) => this.onPush(msg),
      onMessage: (msg) => this.onPush(msg),
      onError: (err) => this.fail(err), // the game or the seat is gone: the socket ends for good
      onOpen: (open) => {
        this.s.socketOpen = open;
        if (open) {
          this.ok();
          this.kickPending();
        } else {
          // Say so at once, and ask over HTTP right away: that tells polling from offline, and a
          // restarting server may have changed things while the socket was down.
          this.s.conn = 'connecting';
          this.onChange();
          this.requestResync();
        }
      },
    });
    this.socket.start();
  }

  /** Stop every timer and the socket (the game is gone, or the screen left it). */
  halt() {
    clearInterval(this.poller);
    clearTimeout(this.retryTimer);
    clearTimeout(this.logTimer);
    this.logTimer = null;
    this.halted = true;
    if (this.socket) this.socket.stop();
    document.removeEventListener('visibilitychange', this.onWake);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOnline);
  }

  /** The page came back (visible, online): reconnect and look at once instead of waiting. */
  wake() {
    if (this.socket) this.socket.kick();
    this.requestResync();
    this.kickPending();
  }

  /** Queue one read of the game, unless one is already waiting (a slow network must not pile them up). */
  requestResync() {
    if (this.resyncQueued) return;
    this.resyncQueued = true;
    this.enqueue(() => {
      this.resyncQueued = false;
      return this.resync();
    });
  }

  ok() {
    this.s.conn = this.s.socketOpen ? 'live' : 'polling';
    this.onChange();
  }

  fail(err) {
    if (err instanceof NetworkError) {
      this.s.conn = 'offline';
    } else if (err instanceof ApiError && ['unknown_game', 'bad_token'].includes(err.code)) {
      this.s.error = err.code;
      this.halt();
    } else {
      if (!(err instanceof ApiError)) console.error(err); // a bug of ours: make it visible
      this.s.notice = err.code || 'generic';
    }
    this.onChange();
  }

  /** Pass-and-play: show `seat` from now on (its own view and its own live channel). */
  switchSeat(seat) {
    this.s.seat = seat;
    this.s.version = 0; // that seat's view is another view: read it fresh
    if (!this.halted) this.openSocket();
    this.requestResync();
  }

  // ------------------------------------------------------------------ reading

  /** Fetch the current game; take it (with the events since our version) if it is newer. */
  async resync() {
    const from = this.s.version;
    const g = await this.api.getGame(this.id, this.token);
    this.ok();
    // The socket may have brought a newer version while this answer was on its way: then the answer's
    // seats, join code and rematch are older than what is shown, and would bring back a lobby the
    // game has left (with nothing newer to come).
    if (g.version < this.s.version) return;
    this.s.seats = g.seats;
    this.s.joinCode = g.join_code || null;
    this.setRematch(g.rematch || null);
    if (g.version > from) {
      const events = from ? await this.eventsSince(from, g.version) : [];
      this.take(g.version, g.view, events);
    } else if (!this.s.view) {
      this.take(g.version, g.view, []);
    }
  }

  /** Read the events from `from` to `upto` for the list of what just happened, unless the game moved
   * on meanwhile. Beside the queue: the view is already shown. */
  async fillSteps(from, upto) {
    if (!from || this.halted) return;
    try {
      const events = await this.eventsSince(from, upto);
      if (this.s.version === upto && events.length) this.onSteps(events);
    } catch {
      // narration is a nicety: the History reads the log again
    }
  }

  async eventsSince(from, upto) {
    try {
      const r = await this.api.events(this.id, this.token, from);
      if (from <= this.s.logVersion) this.absorb(r.log);
      return r.log.filter((x) => x.version <= upto).flatMap((x) => x.events);
    } catch (err) {
      if (err instanceof NetworkError) throw err;
      return []; // narration is a nicety; the view is what counts
    }
  }

  /** Add log entries that continue the log we hold (older ones are known, later ones wait for syncLog). */
  absorb(entries) {
    const add = [];
    let v = this.s.logVersion;
    for (const x of entries) {
      if (x.version === v + 1 && Array.isArray(x.events)) {
        add.push({ version: x.version, events: x.events });
        v = x.version;
      }
    }
    if (!add.length) return;
    this.s.log = this.s.log.concat(add);
    this.s.logVersion = v;
  }

  /** Read the log entries we do not hold yet (all of them after a load: the history survives a
   * reload because it is always rebuilt from the server's log). Runs beside the queue: the history
   * must never hold up a move. */
  async syncLog() {
    if (this.halted) return;
    if (this.logBusy) {
      this.logAgain = true;
      return;
    }
    this.logBusy = true;
    try {
      do {
        this.logAgain = false;
        const since = this.s.logVersion;
        const r = await this.api.events(this.id, this.token, since);
        // A very long game's log keeps only its newest entries (the store's limit): begin where it begins.
        if (since === 1 && !this.s.log.length && r.log.length && r.log[0].version > 2) {
          this.s.logVersion = r.log[0].version - 1;
        }
        const before = since;
        this.absorb(r.log);
        if (this.s.logVersion !== before) this.onChange();
      } while (this.logAgain && this.s.logVersion < this.s.version);
    } catch {
      // Offline or refused: try again in a while (and with the next version we see).
      clearTimeout(this.logTimer);
      this.logTimer = setTimeout(() => this.syncLog(), POLL_MS);
    } finally {
      this.logBusy = false;
    }
  }

  /** Keep the log in step with the version held: append the events we were given, else ask. */
  noteEvents(version, events) {
    if (version === this.s.logVersion + 1 && events.length) this.absorb([{ version, events }]);
    if (this.s.logVersion < version) this.syncLog();
  }

  onPush(msg) {
    if (msg.type === 'state' && typeof msg.version === 'number') {
      if (Array.isArray(msg.seats)) this.s.seats = msg.seats; // a name that just joined
      if (msg.version <= this.s.version) return; // never go back
      const gap = msg.version > this.s.version + 1;
      const lobby = this.s.seats.some((x) => !x.taken);
      if (gap || lobby || !msg.view) {
        this.requestResync(); // a missed version (or seats changed): read it all again
      } else if (msg.events) {
        // The server attaches the events when we held the version before: the truth, told at once.
        this.take(msg.version, msg.view, msg.events);
      } else {
        // The next version without its events: shown at once, what happened is read after it
        // (nothing that is shown waits for a request).
        const from = this.s.version;
        this.take(msg.version, msg.view, []);
        this.fillSteps(from, msg.version);
      }
    } else if (msg.type === 'presence' && Array.isArray(msg.seats)) {
      if (this.hotseat) return; // both seats are this phone: one of them is always "away"
      this.s.online = Object.fromEntries(msg.seats.map((x) => [x.seat, Boolean(x.online)]));
      this.onChange();
    } else if (msg.type === 'rematch' && msg.game_id) {
      this.setRematch(msg.game_id);
      this.onChange();
    }
  }

  setRematch(id) {
    const fresh = id && id !== this.s.rematch;
    this.s.rematch = id;
    if (fresh) this.onRematch();
  }

  /** A newer view is the truth now: hand it on at once. `own`: the answer to this phone's move. */
  take(version, view, events, own = false) {
    if (version <= this.s.version && this.s.view) return;
    // The push of the version our move made may come before the move's answer: it is ours too.
    const p = this.s.pending;
    own = own || Boolean(p && p.seat === this.s.seat && version === p.version + 1);
    if (this.socket) this.socket.note(version); // its push of this version (our own move's) is no news
    this.noteEvents(version, events);
    if (events.some((e) => e.type === 'seat_joined')) {
      this.s.seats = this.s.seats.map((x) => ({ ...x, taken: true }));
    }
    const from = this.s.view;
    const fromVersion = this.s.version;
    this.s.version = version;
    this.s.view = view;
    this.onView(from, view, events, fromVersion, own);
  }

  // ------------------------------------------------------------------ writing

  /** Send one move (the caller checks that the table takes moves now). A move with `then` (a harvest
   * that makes room, targets.js harvestThenPlant) is two: the second is sent after the first's answer,
   * and only if that answer lists it among the legal actions. */
  act(action) {
    if (this.s.pending || this.watch) return;
    this.s.notice = null;
    const { then = null, ...move } = action;
    const p = { key: uuid(), action: move, then, version: this.s.version, seat: this.s.seat };
    this.s.pending = p;
    store.setPending(this.id, p);
    this.onChange();
    this.enqueue(() => this.send());
  }

  kickPending() {
    if (this.s.pending && this.s.pendingStuck) {
      clearTimeout(this.retryTimer);
      this.enqueue(() => this.send());
    }
  }

  async send() {
    const p = this.s.pending;
    if (!p) return;
    let r;
    try {
      // No hidden resends: the move shows as pending and is retried below (and after a reload).
      r = await this.api.act(this.id, this.tokens[p.seat], p.action, p.version, { key: p.key, retries: 0 });
    } catch (err) {
      const transient = err instanceof NetworkError || err.status >= 500 || err.status === 429;
      if (transient) {
        // Keep the move, same key: the retry gets the first answer if this one was applied after all.
        this.s.pendingStuck = true;
        if (err instanceof NetworkError) this.s.conn = 'offline';
        this.onChange();
        const delay = Math.min(10000, 1000 * 2 ** this.retries++);
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.kickPending(), delay);
        return;
      }
      this.clearPending();
      this.s.notice = err.code || 'generic';
      this.onChange();
      await this.resync(); // refused (stale, illegal, ...): show what is true now
      return;
    }
    this.clearPending();
    this.ok();
    this.take(r.version, r.view, r.events || [], true);
    const next = p.then && actKey({ ...p.then, then: undefined }); // the next move, without the rest
    if (next && this.s.version === r.version && this.s.seat === p.seat
        && (this.s.view.legal_actions || []).some((a) => actKey(a) === next)) {
      this.act(p.then);
    }
  }

  clearPending() {
    this.s.pending = null;
    this.s.pendingStuck = false;
    this.retries = 0;
    clearTimeout(this.retryTimer);
    store.setPending(this.id, null);
  }
}
