// One game as this device sees it: the newest (version, view), the live channel, the move in flight,
// and the game's event log (the history). The server is the truth: we only ever replace our copy by a
// newer version (docs/protocol.md §12), fetch the events in between to narrate them, and send each move once
// with an Idempotency-Key that is reused on every retry, so a move made offline is applied exactly
// once when the network returns.
//
// Between two versions the board is shown step by step: each event's public effect is applied to a
// copy of the view (replay.js), so the board never contradicts the sentence beside it; a `stage`
// (fly.js, set by the screen) moves a card between the table areas for each step.

import { ApiError, Client, Connection, NetworkError, uuid } from './client.js';
import * as store from './store.js';
import { AUTOMATIC } from './narrate.js';
import { step as replayStep } from './replay.js';
import { cleanName, setSeats } from './names.js';

const POLL_MS = 3000; // only while the socket is down
const STEP_MS = 300; // one Mafia or deck step on screen
const REPEAT_MS = 150; // the same kind of step again (five cards from the discard pile): faster
const MAX_STEPS = 24; // after a long absence, narrate only the latest steps
const MAX_PLAYED = 60; // more events than this between two views: show the end state at once
const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;
// Moves keep their own retry loop below (the move shows as pending, and survives a reload): no hidden resends.
const api = new Client({ retries: 0 });

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
      // The event log as GET /events gives it for this seat; version 1 (the deal) has no entry.
      log: [], logVersion: 1,
    };
    this.storedPending = rec && rec.pending;
    this.listeners = new Set();
    this.queue = Promise.resolve();
    this.hold = null;
    this.retryTimer = null;
    this.retries = 0;
    this.stage = null; // {before(e, view), after(e, token, view)}: the card animations, if shown
    this.logBusy = false;
  }

  get token() {
    return this.watch ? null : this.tokens[this.s.seat];
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit() {
    setSeats(this.s.seats); // names/rematch: names.js names the seats of the game on screen
    this.rememberSeats();
    this.s = { ...this.s };
    for (const fn of this.listeners) fn(this.s);
  }

  /** Keep who sits at this game with the game's record, so the start screen can name the players. */
  rememberSeats() {
    if (this.watch) return;
    const seats = this.s.seats.filter((x) => x.taken)
      .map((x) => ({ seat: x.seat, name: cleanName(x.name), bot: x.bot || null }));
    const key = JSON.stringify(seats);
    if (!seats.length || key === this.seatsKey || !store.game(this.id)) return;
    this.seatsKey = key;
    store.saveGame(this.id, { seats });
  }

  /** Run sync steps one at a time, so answers are applied in the order they were asked for. */
  enqueue(fn) {
    this.queue = this.queue.then(fn).catch((err) => this.fail(err));
    return this.queue;
  }

  start() {
    // Opened below, unless the game is played hot-seat.
    this.socket = new Connection(api, this.id, this.watch ? null : this.token, {
      since: this.known(),
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
          this.emit();
          this.requestResync();
        }
      },
    });
    this.onWake = () => {
      if (document.visibilityState === 'visible') this.wake();
      // In the background timers crawl: show the end state now, so the turn cues are not held up.
      else this.finishHold();
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
    clearTimeout(this.logTimer);
    this.logTimer = null;
    this.halted = true;
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
    if (err instanceof NetworkError) {
      this.s.conn = 'offline';
    } else if (err instanceof ApiError && ['unknown_game', 'bad_token'].includes(err.code)) {
      this.s.error = err.code;
      this.halt();
    } else {
      if (!(err instanceof ApiError)) console.error(err); // a bug of ours: make it visible
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
    this.s.rematch = g.rematch || null; // names/rematch: the next game, once someone started it
    if (g.version > from) {
      const events = from ? await this.eventsSince(from, g.version) : [];
      this.present(g.version, g.view, events);
    } else if (!this.s.view) {
      this.present(g.version, g.view, []);
    }
  }

  async eventsSince(from, upto) {
    try {
      const r = await api.events(this.id, this.token, from);
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
        const r = await api.events(this.id, this.token, since);
        // A very long game's log keeps only its newest entries (the store's limit): begin where it begins.
        if (since === 1 && !this.s.log.length && r.log.length && r.log[0].version > 2) {
          this.s.logVersion = r.log[0].version - 1;
        }
        const before = since;
        this.absorb(r.log);
        if (this.s.logVersion !== before) this.emit();
      } while (this.logAgain && this.s.logVersion < this.known());
    } catch {
      // Offline or refused: try again in a while (and with the next version we see).
      clearTimeout(this.logTimer);
      this.logTimer = setTimeout(() => this.syncLog(), POLL_MS);
    } finally {
      this.logBusy = false;
    }
  }

  /** Keep the log in step with the version on screen: append the events we were given, else ask. */
  noteEvents(version, events) {
    if (version === this.s.logVersion + 1 && events.length) this.absorb([{ version, events }]);
    if (this.s.logVersion < version) this.syncLog();
  }

  onPush(msg) {
    if (msg.type === 'state' && typeof msg.version === 'number') {
      if (Array.isArray(msg.seats)) this.s.seats = msg.seats; // names/rematch: a name that just joined
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
    } else if (msg.type === 'rematch' && msg.game_id) {
      this.s.rematch = msg.game_id; // names/rematch: the end screen offers to join the next game
      this.emit();
    }
  }

  /** The newest version we hold: the one on screen, or the one waiting behind the step animation. */
  known() {
    if (!this.hold) return this.s.version;
    const q = this.hold.queue;
    return q.length ? q[q.length - 1].version : this.hold.version;
  }

  /** Show `events` step by step, then switch to `view` (at once under prefers-reduced-motion). */
  present(version, view, events) {
    // Compare with the newest version known, held or shown: a push that arrives during the step
    // animation for the same version must not cut it short.
    if (version <= this.known() && this.s.view) return;
    if (this.socket) this.socket.note(version); // its push of this version (our own move's) is no news
    this.noteEvents(version, events);
    // Versions that come while steps play (the computer's moves, one after the other) wait their turn,
    // unless so many are waiting that following them would lag: then skip to the newest.
    if (this.hold && events.length && document.visibilityState !== 'hidden') {
      const waiting = this.hold.queue.reduce((n, x) => n + x.events.length, 0);
      if (waiting + events.length <= MAX_PLAYED) {
        this.hold.queue.push({ version, view, events });
        return;
      }
    }
    this.finishHold();
    if (events.some((e) => e.type === 'seat_joined')) {
      this.s.seats = this.s.seats.map((x) => ({ ...x, taken: true }));
    }
    const steps = events.filter((e) => e.type !== 'phase' && e.type !== 'turn');
    const before = this.s.view;
    const play = before && events.length <= MAX_PLAYED && !reducedMotion()
      && document.visibilityState !== 'hidden';
    if (!play) {
      this.s.steps = steps.slice(-MAX_STEPS);
      this.s.shown = this.s.steps.length;
      this.apply(version, view);
      return;
    }
    // The board after each narrated step; phase and turn changes ride along with the step before.
    const frames = [];
    let cur = before;
    events.forEach((e, i) => {
      cur = replayStep(cur, e, events.slice(i + 1), view);
      if (e.type !== 'phase' && e.type !== 'turn') frames.push({ e, view: cur });
      else if (frames.length) frames[frames.length - 1].view = cur;
    });
    this.s.steps = steps;
    if (!steps.some((e) => AUTOMATIC.has(e.type))) {
      // A player's own move (or the other player's, pushed): no pause, but the cards still travel.
      const tokens = frames.map((f) => this.stageBefore(f.e, before));
      this.s.shown = steps.length;
      this.apply(version, view);
      frames.forEach((f, i) => this.stageAfter(f.e, tokens[i]));
      return;
    }
    this.s.shown = 0;
    this.s.busy = true;
    this.hold = { version, view, timer: null, frames, i: 0, queue: [] };
    const tick = () => {
      const h = this.hold;
      if (!h) return;
      const f = h.frames[h.i];
      const token = this.stageBefore(f.e, this.s.view);
      h.i += 1;
      if (h.i >= h.frames.length) {
        const queue = h.queue;
        h.queue = [];
        this.finishHold();
        this.stageAfter(f.e, token);
        for (const x of queue) this.present(x.version, x.view, x.events); // the next ones in order
        return;
      }
      this.s.shown = h.i;
      this.s.view = f.view;
      this.emit();
      this.stageAfter(f.e, token);
      // Steps the player made themselves need no pause; the Mafia's and the deck's do, a repeat less.
      const next = h.frames[h.i];
      const wait = !AUTOMATIC.has(f.e.type) ? 0 : next.e.type === f.e.type ? REPEAT_MS : STEP_MS;
      h.timer = setTimeout(tick, wait);
    };
    this.hold.timer = setTimeout(tick, 0);
    this.emit();
  }

  // The card animations are a nicety: a failure there must never stop the game.
  stageBefore(e, view) {
    try {
      return this.stage ? this.stage.before(e, view, this.s.seat) : null;
    } catch (err) {
      console.warn(err);
      return null;
    }
  }

  stageAfter(e, token) {
    try {
      if (this.stage && token) this.stage.after(e, token, this.s.seat);
    } catch (err) {
      console.warn(err);
    }
  }

  /** Skip the rest of the step animation (the Skip button, or a newer version arriving). */
  finishHold() {
    const h = this.hold;
    if (!h) return;
    this.hold = null;
    clearTimeout(h.timer);
    const last = h.queue.length ? h.queue[h.queue.length - 1] : h;
    if (h.queue.length) {
      // Skipped: the newest version at once, with what happened in the versions that were waiting.
      const more = h.queue.flatMap((x) => x.events).filter((e) => e.type !== 'phase' && e.type !== 'turn');
      this.s.steps = this.s.steps.concat(more).slice(-MAX_STEPS);
    }
    this.s.shown = this.s.steps.length;
    this.s.busy = false;
    this.apply(last.version, last.view);
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
    const p = { key: uuid(), action, version: this.s.version, seat: this.s.seat };
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
      r = await api.act(this.id, this.tokens[p.seat], p.action, p.version, { key: p.key });
    } catch (err) {
      const transient = err instanceof NetworkError || err.status >= 500 || err.status === 429;
      if (transient) {
        // Keep the move, same key: the retry gets the first answer if this one was applied after all.
        this.s.pendingStuck = true;
        if (err instanceof NetworkError) this.s.conn = 'offline';
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
