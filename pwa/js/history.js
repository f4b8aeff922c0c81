// The story of a game, rebuilt from the server's event log (GET /events?since=0, redacted for this
// device): turns, each split into its phases, each phase a few sentences with repeats grouped.
// The history speaks of every seat by name and never names a drawn card, so every phone (and the
// table screen) shows the same text; the "while you were away" card is the same story of one turn,
// told to the player who was waiting.

import { t, bean, boss } from './i18n.js';
import { sentence, who } from './narrate.js';

/** Phases in the order a turn goes through them; 'reveal' and 'draw' are the automatic ones. */
export const PHASES = ['leftovers', 'protection', 'plant', 'reveal', 'use', 'draw', 'end'];

const REVEALING = new Set(['reveal', 'capture', 'from_discard']);
// Consequences of the event before them: they belong to its phase (a capture's boss harvest is part
// of the reveal, a gift's boss harvest part of using the display).
const FOLLOWERS = new Set(['boss_harvest', 'exhausted', 'reshuffle']);

/** The phase the first turn began in: the log does not say, the next phase change does (a turn that
 * began with protection money moves on to planting; one that began with planting moves on to use). */
function firstPhase(log) {
  for (const entry of log) {
    for (const e of entry.events) {
      if (e.type === 'phase') return e.phase === 'plant' ? 'protection' : 'plant';
      if (e.type === 'pay') return 'protection';
    }
  }
  return 'plant';
}

/**
 * Split the log into turns: [{n, seat, version, phases: [{phase, events}]}], oldest first.
 * `version` is the version whose entry began the turn (0 for the first one).
 */
export function turns(log) {
  const out = [];
  let cur = null;
  let phase = firstPhase(log);
  for (const entry of log) {
    let prevBucket = null;
    for (const e of entry.events) {
      if (e.type === 'seat_joined' || e.type === 'seat_left') continue;
      if (e.type === 'turn') {
        cur = { n: out.length + 1, seat: e.seat, version: entry.version, phases: [] };
        out.push(cur);
        prevBucket = null;
        continue;
      }
      if (e.type === 'phase') {
        phase = e.phase;
        continue;
      }
      if (!cur) {
        // The first turn has no turn event: it began when the game was dealt.
        cur = { n: 1, seat: e.seat ?? 0, version: 0, phases: [] };
        out.push(cur);
      }
      let bucket = phase;
      if (e.final || e.type === 'game_over') bucket = 'end';
      else if (REVEALING.has(e.type)) bucket = 'reveal';
      else if (e.type === 'draw') bucket = 'draw';
      else if (FOLLOWERS.has(e.type) && prevBucket) bucket = prevBucket;
      prevBucket = bucket;
      if (e.type === 'game_over') continue; // the end screen says who won
      const last = cur.phases[cur.phases.length - 1];
      if (last && last.phase === bucket) last.events.push(e);
      else cur.phases.push({ phase: bucket, events: [e] });
    }
  }
  return out;
}

/** "2× Fire bean, Puff bean": the cards of a group of events, counted, in the order they came. */
function tally(events) {
  const counts = new Map();
  for (const e of events) if (e.bean) counts.set(e.bean, (counts.get(e.bean) || 0) + (e.count || 1));
  return [...counts].map(([b, n]) => (n > 1 ? t('hist.times', { n, bean: bean(b) }) : bean(b))).join(', ');
}

/** Consecutive events that read as one line: cards revealed, fetched or snatched in a row, draws,
 * and a player's plantings, discards or gifts to one boss in a row. */
function sameGroup(a, b) {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'reveal': case 'from_discard': return true;
    case 'capture': return a.boss === b.boss;
    case 'draw': case 'discard': return a.seat === b.seat;
    case 'plant': return a.seat === b.seat && a.source === b.source && !a.final;
    case 'give': return a.seat === b.seat && a.boss === b.boss;
    default: return false;
  }
}

/**
 * The sentences of one phase. `viewer` null: the public wording of the history (names, no drawn
 * cards); a seat: the wording for that player ("You", their own drawn cards).
 */
export function lines(events, viewer = null) {
  const groups = [];
  for (const e of events) {
    const g = groups[groups.length - 1];
    if (g && sameGroup(g[0], e)) g.push(e);
    else groups.push([e]);
  }
  return groups.map((g) => groupSentence(g, viewer)).filter(Boolean);
}

function groupSentence(g, viewer) {
  const e = g[0];
  const beans = tally(g);
  const mine = viewer !== null && e.seat === viewer;
  // "You plant", not "You plants": the viewer's own lines have their own sentences.
  const say = (key, vars) => t(mine ? `${key}.you` : key, { who: who(e.seat, viewer), ...vars });
  switch (e.type) {
    case 'reveal': return t('hist.reveal', { beans });
    case 'from_discard': return t('hist.from_discard', { beans, n: g.length });
    case 'capture': return t('hist.capture', { boss: boss(e.boss), beans });
    case 'draw':
      if (mine && g.some((x) => x.bean)) return t('hist.draw.you', { beans });
      return t('hist.draw', { who: who(e.seat, viewer), n: g.length });
    case 'plant': return say('hist.plant', { beans });
    case 'discard': return say('hist.discard', { beans });
    case 'give': return say('hist.give', { beans, boss: boss(e.boss) });
    default: return sentence(e, viewer);
  }
}

export const phaseName = (phase) => t(`hist.phase.${phase}`);

/** The whole history for the drawer: turns newest first, each with its phases and their lines. */
export function history(log) {
  return turns(log).reverse().map((turn) => ({
    n: turn.n,
    seat: turn.seat,
    who: who(turn.seat, null),
    phases: turn.phases.map((p) => ({ phase: p.phase, lines: lines(p.events, null) })),
  }));
}

/**
 * What `viewer` missed: the last turn of the other player, everything the Mafia did in it, and the
 * Mafia's moves since then, one line per phase ("Planting: Player 2 plants ...; ..."). Null when it is
 * not the start of the viewer's turn in a two-player game, or when there is nothing to tell.
 */
export function away(log, viewer) {
  const all = turns(log);
  const now = all[all.length - 1];
  if (!now || now.seat !== viewer || all.length < 2) return null;
  // Only at the start of the turn: once the player has moved, the card has done its job.
  if (now.phases.some((p) => p.events.some((e) => e.seat === viewer))) return null;
  const prev = all[all.length - 2];
  if (prev.seat === viewer) return null; // solo: nobody else played
  const rows = [];
  for (const p of [...prev.phases, ...now.phases]) {
    const ls = lines(p.events, viewer);
    if (ls.length) rows.push({ phase: p.phase, text: ls.join(' · ') });
  }
  return rows.length ? { turn: now.n, version: now.version, who: who(prev.seat, viewer), rows } : null;
}
