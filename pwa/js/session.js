// One game as this device sees it: the newest (version, view), the live channel, the move in flight.
// The server is the truth: we only ever replace our copy by a newer version (PROTOCOL §7), fetch the
// events in between to narrate them, and send each move once with an Idempotency-Key that is reused on
// every retry, so a move made offline is applied exactly once when the network returns.

import * as api from './api.js';
import * as store from './store.js';
import { LiveSocket } from './socket.js';
import { AUTOMATIC } from './narrate.js';

const POLL_MS = 3000; // only while the socket is down
const STEP_MS = 450; // one Mafia step on screen
const MAX_STEPS = 24; // after a long absence, narrate only the latest steps
const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

export class GameSession {
  /** @param {string} id @param {{watch?: boolean}} opts  watch: the public table view, no token */
  constructor(id, { watch = false } = {}) {
    this.id = id;
    this.watch = watch;
    const rec = watch ? null : store.game(id);
    this.tokens = (rec && rec.tokens) || {};
    this.hotseat = Boolean(rec && rec.hotseat);
    const seats = Object.keys(this.tokens).map(Number).sort();
    this.s = {
      version: 0, view: null, seats: [], joinCode: null, seat: watch ? null : (seats[0] ?? null),
      conn: 'connecting', socketOpen: false, pending: null, pendingStuck: false, steps: [], shown: 0,
      busy: false, error: null, notice: null, curtain: null, online: null,
    };
    this.storedPending = rec && rec.pending;
    this.listeners = new Set();
    this.queue = Promise.resolve();
    this.hold = null;
    this.retryTimer = null;
    this.retries = 0;
  }

  get token() {
    return this.watch ? null : this.tokens[this.s.seat];
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit() {
    this.s = { ...this.s };
    for (const fn of this.listeners) fn(this.s);
  }

  /** Run sync steps one at a time, so answers are applied in the order they were asked for. */
  enqueue(fn) {
    this.queue = this.queue.then(fn).catch((err) => this.fail(err));
    return this.queue;
  }

  start() {
    this.socket = new LiveSocket(
      () => api.socketUrl(this.id),
      () => ({ type: 'hello', token: this.watch ? null : this.token, since: this.known() }),
      (msg) => this.onPush(msg),
      (open) => {
        this.s.socketOpen = open;
        if (open) {
          this.ok();
          this.kickPending();
        } else {
          // Say so at once, and ask over HTTP right away: that tells polling from offline, and a
          // restarting server may have changed things while the socket was down.
          this.s.conn = 'connecting';
          this.emit();
          this.requestResync();
        }
      },
    );
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
        this.emit();
        await this.send();
      }
    });
    if (!this.hotseat) this.socket.start(); // a hot-seat game has no remote changes to wait for
  }

  stop() {
    this.halt();
    this.listeners.clear();
  }

  /** Stop every timer and the socket (the game is gone, or the screen left it). */
  halt() {
    clearInterval(this.poller);
    clearTimeout(this.retryTimer);
    this.finishHold();
    if (this.socket) this.socket.stop();
    document.removeEventListener('visibilitychange', this.onWake);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOnline);
  }

  /** The page came back (visible, online): reconnect and look at once instead of waiting. */
  wake() {
    if (this.socket && !this.hotseat) this.socket.kick();
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
    this.emit();
  }

  fail(err) {
    if (err instanceof api.NetworkError) {
      this.s.conn = 'offline';
    } else if (err instanceof api.ApiError && ['unknown_game', 'bad_token'].includes(err.code)) {
      this.s.error = err.code;
      this.halt();
    } else {
      if (!(err instanceof api.ApiError)) console.error(err); // a bug of ours: make it visible
      this.s.notice = err.code || 'generic';
    }
    this.emit();
  }

  // ------------------------------------------------------------------ reading

  /** Fetch the current game; narrate what happened since our version; apply it if it is newer. */
  async resync() {
    const from = this.known();
    const g = await api.getGame(this.id, this.token);
    this.ok();
    this.s.seats = g.seats;
    this.s.joinCode = g.join_code || null;
    if (g.version > from) {
      const events = from ? await this.eventsSince(from, g.version) : [];
      this.present(g.version, g.view, events);
    } else if (!this.s.view) {
      this.present(g.version, g.view, []);
    }
  }

  async eventsSince(from, upto) {
    try {
      const r = await api.getEvents(this.id, this.token, from);
      const all = r.log.filter((x) => x.version <= upto).flatMap((x) => x.events);
      return all.slice(-MAX_STEPS);
    } catch (err) {
      if (err instanceof api.NetworkError) throw err;
      return []; // narration is a nicety; the view is what counts
    }
  }

  onPush(msg) {
    if (msg.type === 'state' && typeof msg.version === 'number') {
      if (msg.version <= this.known()) return; // never go back
      const gap = msg.version > this.known() + 1;
      const lobby = this.s.seats.some((x) => !x.taken);
      if (gap || lobby || !msg.view) {
        this.requestResync(); // a missed version (or seats changed): read it all again
      } else {
        this.enqueue(async () => {
          if (msg.version <= this.known()) return;
          // The server attaches the events when we held the version before; otherwise ask for them.
          const events = msg.events || (await this.eventsSince(this.known(), msg.version));
          this.present(msg.version, msg.view, events);
        });
      }
    } else if (msg.type === 'presence' && Array.isArray(msg.seats)) {
      this.s.online = Object.fromEntries(msg.seats.map((x) => [x.seat, Boolean(x.online)]));
      this.emit();
    } else if (msg.type === 'resync') {
      this.requestResync();
    } else if (msg.type === 'error' && !msg.id && ['unknown_game', 'bad_token'].includes(msg.code)) {
      this.fail(new api.ApiError(msg.status, msg)); // the socket ends: the game or the seat is gone
    }
  }

  /** The newest version we hold: the one on screen, or the one waiting behind the step animation. */
  known() {
    return this.hold ? this.hold.version : this.s.version;
  }

  /** Show `events` step by step, then switch to `view` (at once under prefers-reduced-motion). */
  present(version, view, events) {
    // Compare with the newest version known, held or shown: a push that arrives during the step
    // animation for the same version must not cut it short.
    if (version <= this.known() && this.s.view) return;
    this.finishHold();
    if (events.some((e) => e.type === 'seat_joined')) {
      this.s.seats = this.s.seats.map((x) => ({ ...x, taken: true }));
    }
    const steps = events.filter((e) => e.type !== 'phase' && e.type !== 'turn');
    this.s.steps = steps;
    const auto = steps.filter((e) => AUTOMATIC.has(e.type)).length;
    if (!this.s.view || !auto || reducedMotion() || document.visibilityState === 'hidden') {
      this.s.shown = steps.length;
      this.apply(version, view);
      return;
    }
    this.s.shown = 0;
    this.s.busy = true;
    this.hold = { version, view, timer: null };
    const tick = () => {
      this.s.shown += 1;
      // Steps the player made themselves need no pause; the Mafia's and the deck's do.
      while (this.s.shown < steps.length && !AUTOMATIC.has(steps[this.s.shown].type)) this.s.shown += 1;
      if (this.s.shown >= steps.length) this.finishHold();
      else {
        this.emit();
        this.hold.timer = setTimeout(tick, STEP_MS);
      }
    };
    this.hold.timer = setTimeout(tick, 0);
    this.emit();
  }

  /** Skip the rest of the step animation (the Skip button, or a newer version arriving). */
  finishHold() {
    const h = this.hold;
    if (!h) return;
    this.hold = null;
    clearTimeout(h.timer);
    this.s.shown = this.s.steps.length;
    this.s.busy = false;
    this.apply(h.version, h.view);
  }

  apply(version, view) {
    this.s.version = version;
    this.s.view = view;
    if (this.hotseat && view.phase !== 'over' && view.active !== this.s.seat && this.tokens[view.active]) {
      this.s.curtain = view.active; // pass-and-play: hide everything until the next player is ready
    }
    this.emit();
  }

  /** Pass-and-play: the next player is holding the phone; show their seat. */
  reveal() {
    const seat = this.s.curtain;
    if (seat === null) return;
    this.s.seat = seat;
    this.s.curtain = null;
    this.s.version = 0; // that seat's view is another view: read it fresh
    this.s.steps = [];
    this.enqueue(() => this.resync());
  }

  // ------------------------------------------------------------------ writing

  /** Send one move. Ignored while another move is in flight or the steps are still playing. */
  act(action) {
    if (this.s.pending || this.s.busy || this.watch) return;
    this.s.notice = null;
    const p = { key: api.uuid(), action, version: this.s.version, seat: this.s.seat };
    this.s.pending = p;
    store.setPending(this.id, p);
    this.emit();
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
      r = await api.postAction(this.id, this.tokens[p.seat], p.action, p.version, p.key);
    } catch (err) {
      const transient = err instanceof api.NetworkError || err.status >= 500 || err.status === 429;
      if (transient) {
        // Keep the move, same key: the retry gets the first answer if this one was applied after all.
        this.s.pendingStuck = true;
        if (err instanceof api.NetworkError) this.s.conn = 'offline';
        this.emit();
        const delay = Math.min(10000, 1000 * 2 ** this.retries++);
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.kickPending(), delay);
        return;
      }
      this.clearPending();
      this.s.notice = err.code || 'generic';
      this.emit();
      await this.resync(); // refused (stale, illegal, ...): show what is true now
      return;
    }
    this.clearPending();
    this.ok();
    this.present(r.version, r.view, r.events || []);
  }

  clearPending() {
    this.s.pending = null;
    this.s.pendingStuck = false;
    this.retries = 0;
    clearTimeout(this.retryTimer);
    store.setPending(this.id, null);
  }
}
