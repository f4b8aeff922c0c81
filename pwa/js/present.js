// Presentation of one game: what the board shows while the events between two server views are told.
// The latest server view is the truth and is what the screen shows whenever nothing is being told;
// this module only lays decoration over it: a short run of intermediate boards (the events' public
// effect, replay.js), one step at a time, with the cards flying between the areas (fly.js, the `stage`).
//
// Telling can always be cut short: the Skip button, a phone that falls more than a few steps behind
// (fast bots, a locked screen, a slow network), the end of the game, a rematch or a seat change. Cut
// short, the screen shows the newest view at once and the list of what just happened keeps what was
// skipped (the History drawer always has the whole game from the server's log). A replay that does not
// arrive exactly at the server's view is not shown at all: the view is shown at once instead.

import { AUTOMATIC } from './narrate.js';
import { step as replayStep, agrees } from './replay.js';

const STEP_MS = 300; // one Mafia or deck step on screen
const REPEAT_MS = 150; // the same kind of step again (five cards from the discard pile): faster
export const MAX_STEPS = 24; // the list of what just happened keeps the latest steps only
const MAX_BEHIND = 12; // more steps than this still to tell: jump to the present
const MAX_PLAYED = 40; // a batch with more events than this is not played out at all
const BURST_MS = 250; // versions arriving closer than this (play over the API, a catch-up): no flights
const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

const reducedMotion = () => typeof matchMedia === 'function'
  && matchMedia('(prefers-reduced-motion: reduce)').matches;
const hiddenPage = () => typeof document !== 'undefined' && document.visibilityState === 'hidden';
const told = (events) => events.filter((e) => e.type !== 'phase' && e.type !== 'turn');

/**
 * The boards after each told step from `from` to `to`, or null when the replay does not end exactly at
 * `to` (then nothing is played: the truth is shown). Phase and turn changes ride with the step before.
 */
export function framesOf(from, to, events) {
  const frames = [];
  let cur = from;
  events.forEach((e, i) => {
    cur = replayStep(cur, e, events.slice(i + 1), to);
    if (e.type !== 'phase' && e.type !== 'turn') frames.push({ e, view: cur });
    else if (frames.length) frames[frames.length - 1].view = cur;
  });
  return agrees(cur, to) ? frames : null;
}

export class Presenter {
  /** @param {() => void} onChange  called whenever what is shown changes
   * @param {() => number|null} seat  the seat this screen shows (for the card animations) */
  constructor(onChange, seat) {
    this.onChange = onChange;
    this.seat = seat;
    this.frame = null; // the board shown while steps are told; null: the truth
    this.steps = []; // the told events of the latest batch (and what was skipped to reach it)
    this.skipped = 0; // told events left out of `steps` (the list keeps the latest): the History has them
    this.shown = 0; // how many of them are told so far
    this.busy = false; // steps are being told: nothing is tappable
    this.play = null; // {frames, i, timer, queue: [{from, view, events, fromVersion}]}
    this.stage = null; // {before(e, view, seat), after(e, token, seat)}: the card animations, if shown
  }

  /**
   * A newer server view arrived (it is already the truth). `from` is the view it follows, `events`
   * what happened in between. `urgent`: show it at once, whatever is being told.
   */
  news(from, view, events, { urgent = false, fromVersion = null, queued = false, own = false } = {}) {
    const steps = told(events);
    // A pushed version right behind the one before it (play over the API, a catch-up; not the answer
    // to this phone's own move, nor one that waited its turn while steps were told) is shown at once:
    // a burst of flying cards would only lag behind the truth.
    const t = now();
    const burst = !queued && !own && t - (this.lastPush ?? -Infinity) < BURST_MS;
    if (!queued && !own) this.lastPush = t;
    if (this.play) {
      const behind = this.play.frames.length - this.play.i
        + this.play.queue.reduce((n, x) => n + told(x.events).length, 0) + steps.length;
      if (!urgent && !hiddenPage() && behind <= MAX_BEHIND && events.length) {
        this.play.queue.push({ from, view, events, fromVersion });
        this.onChange(); // the truth moved on (its version, the log) while the board tells the steps
        return;
      }
      this.cut(steps);
      return;
    }
    if (urgent) this.land();
    const motion = from && !urgent && !burst && !reducedMotion() && !hiddenPage() && events.length <= MAX_PLAYED;
    const frames = motion ? framesOf(from, view, events) : null;
    if (motion && !frames) console.warn('replay.js did not reach the server view: shown at once', events);
    this.skipped = 0;
    if (!frames) {
      this.keep(steps);
      this.settle();
      return;
    }
    this.steps = steps;
    if (!steps.some((e) => AUTOMATIC.has(e.type))) {
      // A player's own move (or the other player's, pushed): no pause, but the cards still travel.
      const tokens = frames.map((f) => this.before(f.e, from));
      this.settle();
      frames.forEach((f, i) => this.after(f.e, tokens[i]));
      return;
    }
    this.start(from, frames, fromVersion);
  }

  /** Tell `frames` one by one, beginning with the board `from` (the truth waits until the last). */
  start(from, frames, fromVersion) {
    this.frame = { ...from, legal_actions: [] };
    this.frameVersion = fromVersion; // the version of the board the steps start from
    this.shown = 0;
    this.busy = true;
    this.play = { frames, i: 0, timer: null, queue: [] };
    this.play.timer = setTimeout(() => this.tick(), 0);
    this.onChange();
  }

  tick() {
    const p = this.play;
    if (!p) return;
    const f = p.frames[p.i];
    const token = this.before(f.e, this.frame);
    p.i += 1;
    if (p.i >= p.frames.length) {
      this.play = null;
      this.settle();
      this.after(f.e, token);
      this.next(p.queue);
      return;
    }
    this.shown = p.i;
    this.frame = f.view;
    this.onChange();
    this.after(f.e, token);
    // Steps the player made themselves need no pause; the Mafia's and the deck's do, a repeat less.
    const following = p.frames[p.i];
    const wait = !AUTOMATIC.has(f.e.type) ? 0 : following.e.type === f.e.type ? REPEAT_MS : STEP_MS;
    p.timer = setTimeout(() => this.tick(), wait);
  }

  /** The versions that came while steps were told, in order. */
  next(queue) {
    while (queue.length) {
      const x = queue.shift();
      this.news(x.from, x.view, x.events, { fromVersion: x.fromVersion, queued: true });
      if (this.play) {
        this.play.queue.push(...queue);
        return;
      }
    }
  }

  /** Show the truth at once; `more` (the told events of a version that just came) and everything still
   * waiting join the list of what just happened. The Skip button, a phone far behind, the end. */
  cut(more = []) {
    const p = this.play;
    this.land();
    if (p) {
      clearTimeout(p.timer);
      this.play = null;
      const waiting = p.queue.flatMap((x) => told(x.events));
      this.keep(this.steps.concat(waiting, more));
    } else if (more.length) {
      this.keep(this.steps.concat(more));
    }
    this.settle();
  }

  /** What led to the view on screen, read after it was shown (a missed version): into the list. */
  late(events) {
    if (this.play) return; // newer steps are being told: these are the History's
    this.keep(this.steps.concat(told(events)));
    this.shown = this.steps.length;
    this.onChange();
  }

  /** The list of what just happened keeps the latest steps; the rest are counted (see History). */
  keep(steps) {
    const kept = steps.slice(-MAX_STEPS);
    this.skipped += steps.length - kept.length;
    this.steps = kept;
  }

  settle() {
    this.frame = null;
    this.busy = false;
    this.shown = this.steps.length;
    this.onChange();
  }

  stop() {
    if (this.play) clearTimeout(this.play.timer);
    this.play = null;
    this.frame = null;
    this.busy = false;
  }

  // The card animations are a nicety: a failure there must never stop the game.
  land() {
    try {
      if (this.stage && this.stage.cut) this.stage.cut();
    } catch (err) {
      console.warn(err);
    }
  }

  before(e, view) {
    try {
      return this.stage ? this.stage.before(e, view, this.seat()) : null;
    } catch (err) {
      console.warn(err);
      return null;
    }
  }

  after(e, token) {
    try {
      if (this.stage && token) this.stage.after(e, token, this.seat());
    } catch (err) {
      console.warn(err);
    }
  }
}
