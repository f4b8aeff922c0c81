// One game as this device sees it, for the screens: the sync with the server (sync.js: versions, the
// move in flight, the live connection, the log) and the presentation over it (present.js: the steps
// told one by one, the card animations). The screen shows the server's latest view; a step shown in
// between is decoration and gives way at once to the end of the game, a rematch offer, a seat change,
// the Skip button, or a phone that fell behind.
//
// `s` is what the screens read: the sync's state, plus `view` (the board to draw: the step's board
// while steps are told, else the truth), `truth` (the latest server view; `version` is its version,
// `shownVersion` that of the board drawn), `steps`/`shown`/`busy`
// (the list of what just happened) and `curtain` (pass-and-play: the seat that must take the phone).

import { setSeats, cleanName } from './names.js';
import * as store from './store.js';
import { GameSync } from './sync.js';
import { Presenter } from './present.js';

export class GameSession {
  /** @param {import('./client.js').Client} api  the app's one API client
   * @param {string} id @param {{watch?: boolean}} opts  watch: the public table view, no token */
  constructor(api, id, { watch = false } = {}) {
    this.api = api;
    this.id = id;
    this.watch = watch;
    this.listeners = new Set();
    this.curtain = null;
    this.sync = new GameSync(api, id, {
      watch,
      onView: (from, view, events, fromVersion, own) => this.onView(from, view, events, fromVersion, own),
      onChange: () => this.emit(),
      onRematch: () => this.cut(), // the offer shows at once, whatever is being told
      onSteps: (events) => this.presenter.late(events),
    });
    this.presenter = new Presenter(() => this.emit(), () => this.sync.s.seat);
    this.s = this.state();
  }

  get token() {
    return this.sync.token;
  }

  get hotseat() {
    return this.sync.hotseat;
  }

  get tokens() {
    return this.sync.tokens;
  }

  /** The card animations (fly.js), set by the screen that shows them. */
  set stage(stage) {
    this.presenter.stage = stage;
  }

  get stage() {
    return this.presenter.stage;
  }

  state() {
    const y = this.sync.s;
    const p = this.presenter;
    const over = Boolean(y.view && y.view.phase === 'over' && y.view.result);
    return {
      ...y, view: p.frame || y.view, truth: y.view, over,
      // The version whose board is drawn: while steps are told, the one they start from.
      shownVersion: p.frame ? p.frameVersion : y.version,
      steps: p.steps, shown: p.shown, skipped: p.skipped, busy: p.busy, curtain: this.curtain,
    };
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit() {
    if (this.stopped) return;
    setSeats(this.sync.s.seats); // names.js names the seats of the game on screen
    this.rememberSeats();
    this.s = this.state();
    for (const fn of this.listeners) fn(this.s);
  }

  /** Keep who sits at this game with the game's record, so the start screen can name the players. */
  rememberSeats() {
    if (this.watch) return;
    const seats = this.sync.s.seats.filter((x) => x.taken)
      .map((x) => ({ seat: x.seat, name: cleanName(x.name), bot: x.bot || null }));
    const key = JSON.stringify(seats);
    if (!seats.length || key === this.seatsKey || !store.game(this.id)) return;
    this.seatsKey = key;
    store.saveGame(this.id, { seats });
  }

  start() {
    this.onHide = () => {
      // In the background timers crawl: show the truth now, so the turn cues are not held up.
      if (document.visibilityState === 'hidden') this.cut();
    };
    document.addEventListener('visibilitychange', this.onHide);
    this.sync.start();
  }

  stop() {
    this.halt();
    this.stopped = true;
    this.listeners.clear();
  }

  halt() {
    this.sync.halt();
    this.presenter.stop();
    document.removeEventListener('visibilitychange', this.onHide);
  }

  onView(from, view, events, fromVersion, own) {
    const y = this.sync.s;
    const over = view.phase === 'over';
    let urgent = over || events.some((e) => e.type === 'seat_joined');
    if (over) this.curtain = null;
    else if (this.hotseat && view.active !== y.seat && this.tokens[view.active] !== undefined) {
      this.curtain = view.active; // pass-and-play: hide everything until the next player is ready
      urgent = true;
    }
    // A view of another seat (pass-and-play after the curtain) continues no board: show it as it is.
    const same = from && from.seat === view.seat;
    this.presenter.news(same ? from : null, view, same ? events : [], { urgent, fromVersion, own });
  }

  /** Show the truth at once (Skip, the end, a rematch offer, a hidden page). */
  cut() {
    this.presenter.cut();
  }

  finishHold() {
    this.cut();
  }

  fail(err) {
    this.sync.fail(err);
  }

  /** Pass-and-play: the next player is holding the phone; show their seat. */
  reveal() {
    const seat = this.curtain;
    if (seat === null) return;
    this.curtain = null;
    this.presenter.steps = [];
    this.presenter.skipped = 0;
    this.presenter.cut();
    this.sync.switchSeat(seat);
  }

  /** Send one move; ignored while steps are told or another move is in flight. */
  act(action) {
    if (this.presenter.busy) return;
    this.sync.act(action);
  }

  /** The server's hint for the seat shown. */
  hint() {
    return this.api.hint(this.id, this.token);
  }

  /** Pass-and-play: take the game's second seat on this phone (the screen then opens a new session). */
  /** Pass-and-play: take the second seat on this device, under `name` (the second player's) if given. */
  async takeSecondSeat(name = null) {
    const r = await this.api.join(this.sync.s.joinCode, name ? { name } : {});
    store.addToken(this.id, r.seat, r.token, { hotseat: true });
  }
}
