// "Learn by playing" (loaded by views/coach.js for tutorial games only): a coach explains each part of a
// turn the first time it comes up and points at the area of the table concerned (the data-area hooks).
// It only reads the game state and never plays: the player makes every move. It ends once every phase
// has been explained; "Skip" ends it at once. Progress is kept with the game on this device, so a
// reload continues where it was. The texts come from the rules file of the language (loaded lazily).

import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { currentLang } from '../i18n.js';
import * as store from '../store.js';
import { rulesText, rulesHref } from '../learn.js';

/**
 * The coach's tips in the order they are considered. `when(v, p)` says whether the tip applies now
 * (v: the view, p: the progress); `area` is what it points at; `section` its part of "How to play";
 * `phase`: the tip explains that phase, and the coach ends once all of them have been shown;
 * `optional`: shown if its moment comes before the end; `covers`: stands in for that tip.
 * The tips without `phase`, `optional` or `covers` (the introduction) come first, in order.
 */
export const STEPS = [
  { id: 'welcome', area: null, when: () => true },
  { id: 'mafia', area: 'mafia', section: 'bosses', when: () => true },
  { id: 'fields', area: 'fields', section: 'fields', when: () => true },
  // A turn that follows a finished "use" phase started with the automatic draw.
  { id: 'draw', area: 'hand', section: 'draw', phase: true, when: (v, p) => p.uses > 0 && v.phase !== 'use' },
  { id: 'protection', area: ['mafia', 'fields'], section: 'protection', phase: true, when: (v) => v.phase === 'protection' },
  // No boss matched a field in the first turns: explain the phase anyway, so the coach can finish.
  { id: 'protection_none', area: 'mafia', section: 'protection', covers: 'protection',
    when: (v, p) => p.uses >= 3 && v.phase !== 'protection' },
  { id: 'plant', area: ['hand', 'fields'], section: 'plant', phase: true, when: (v) => v.phase === 'plant' },
  // Harvesting, the first time it is needed (the front card fits no field) or pays a coin.
  { id: 'harvest', area: 'fields', section: 'harvest', phase: true, when: (v) => mustHarvest(v) || paysHarvest(v) },
  { id: 'reveal', area: 'display', section: 'reveal', phase: true, when: (v) => v.phase === 'use' },
  { id: 'use', area: 'display', section: 'use', phase: true, when: (v) => v.phase === 'use' },
  { id: 'boss_harvest', area: 'mafia', section: 'bosses', optional: true, when: (v) => v.treasury > 0 },
  { id: 'end', area: 'deck', section: 'end', when: () => true },
];
const PHASES = STEPS.filter((s) => s.phase).map((s) => s.id);

const mine = (v) => v.players[v.seat] || {};
/** The front card fits on no field: a harvest must make room before anything is planted. */
function mustHarvest(v) {
  const legal = v.legal_actions;
  return v.phase === 'plant' && v.planted === 0 && Boolean(mine(v).hand && mine(v).hand.length)
    && legal.some((a) => a.type === 'harvest') && !legal.some((a) => a.type === 'plant_hand');
}
/** A harvest that pays at least one coin can be made now. */
function paysHarvest(v) {
  const values = mine(v).harvest_values || [];
  return v.legal_actions.some((a) => a.type === 'harvest' && values[a.field] > 0);
}

const FRESH = { seen: [], uses: 0, last: null, done: false };

function progress(id) {
  const g = store.game(id);
  return { ...FRESH, ...((g && g.coach) || {}) };
}

const covered = (p, id) => p.seen.includes(id) || STEPS.some((s) => s.covers === id && p.seen.includes(s.id));

/** The tip to show now, or null. Tips wait for the player's own turn and for the Mafia to finish. */
export function nextStep(view, p) {
  if (p.done || view.phase === 'over') return null;
  for (const step of STEPS) {
    if (covered(p, step.id)) continue;
    if (step.covers && covered(p, step.covers)) continue;
    if (step.id === 'end') return PHASES.every((id) => covered(p, id)) ? step : null;
    if (step.when(view, p)) return step;
    if (!step.phase && !step.optional && !step.covers) return null; // the introduction keeps its order
  }
  return null;
}

/** The elements of a tip's area (one name or a list of names of data-area hooks). */
const areaEls = (area) => [].concat(area || []).map((a) => document.querySelector(`[data-area="${a}"]`)).filter(Boolean);

/** Point at an area: outline it and scroll it into view, leaving room for the card; returns a function
 * that undoes the outline. The docked hand is always on screen: with it, the rest of the area is
 * brought just above the dock (the card then fits above both); alone, an area goes to the top of the
 * screen (under the bar, see the CSS scroll margin). */
function pointAt(area) {
  const els = areaEls(area);
  for (const el of els) el.classList.add('coach-focus');
  const dock = document.querySelector('.dock');
  const free = els.filter((el) => !(dock && dock.contains(el)));
  if (free.length && free.length < els.length) {
    const bottom = Math.max(...free.map((el) => el.getBoundingClientRect().bottom));
    window.scrollBy(0, bottom - (dock.getBoundingClientRect().top - 8));
  } else if (free.length) free[0].scrollIntoView({ block: 'start', inline: 'nearest', behavior: 'auto' });
  return () => { for (const el of els) el.classList.remove('coach-focus'); };
}

/**
 * The top (px) for a card of height `h`: between the top bar and the docked hand if it fits there
 * without covering the area, else anywhere on screen without covering it, else where it covers least.
 * Set through the CSSOM (the CSP forbids style attributes, not this).
 */
function placeCard(area, h) {
  const gap = 8;
  const bar = document.querySelector('.bar');
  const dock = document.querySelector('.dock');
  const els = areaEls(area);
  const top = bar ? bar.getBoundingClientRect().bottom : 0;
  const inDock = Boolean(dock && els.some((el) => dock.contains(el)));
  const floor = dock && !inDock ? dock.getBoundingClientRect().top : window.innerHeight;
  if (!els.length) return Math.max(top + gap, floor - h - gap);
  const rects = els.map((el) => el.getBoundingClientRect());
  const spots = [top + gap, floor - h - gap, window.innerHeight - h - gap];
  for (const r of rects) spots.push(r.bottom + gap, r.top - h - gap);
  const overlap = (y) => rects.reduce((sum, r) => sum + Math.max(0, Math.min(y + h, r.bottom) - Math.max(y, r.top)), 0);
  const fits = (y, lo, hi) => y >= lo - 0.5 && y + h <= hi + 0.5;
  return spots.find((y) => fits(y, top, floor) && !overlap(y))
    ?? spots.find((y) => fits(y, top, window.innerHeight) && !overlap(y))
    ?? spots.filter((y) => fits(y, top, window.innerHeight)).sort((a, b) => overlap(a) - overlap(b))[0]
    ?? top + gap;
}

export function CoachCard({ id, s }) {
  const view = s.view;
  const [p, setP] = useState(() => progress(id));
  const [R, setR] = useState(null);
  const box = useRef(null);
  const lang = currentLang();
  useEffect(() => {
    let live = true;
    rulesText(lang).then((r) => live && setR({ lang, coach: r.coach }), () => {});
    return () => { live = false; };
  }, [lang]);

  const save = (next) => {
    store.saveGame(id, { coach: next });
    setP(next);
  };
  // Count the "use" phases entered: the draw that ends a turn is explained at the start of the next.
  // Counted while rendering, so a tip shows in the same frame as the phase it explains.
  const cur = view.phase === p.last ? p : { ...p, last: view.phase, uses: p.uses + (view.phase === 'use' ? 1 : 0) };
  useEffect(() => {
    if (cur !== p) save(cur);
  }, [view.phase]);

  // A tip waits for the player's turn, then stays until it is closed, even if the game moves on under
  // it (the client makes a move without a choice by itself).
  const myTurn = view.legal_actions.length > 0 && !s.busy && !s.pending;
  const shown = useRef(null);
  let step = null;
  if (R && R.lang === lang && !cur.done) {
    const kept = shown.current && !cur.seen.includes(shown.current) ? STEPS.find((x) => x.id === shown.current) : null;
    step = kept || (myTurn && view.phase !== 'over' ? nextStep(view, cur) : null);
  }
  shown.current = step ? step.id : null;

  // Point at the area, then put the card where it hides none of it, and give the card the focus.
  useLayoutEffect(() => {
    if (!step) return undefined;
    const undo = pointAt(step.area);
    const card = box.current;
    if (card) card.style.top = `${placeCard(step.area, card.getBoundingClientRect().height)}px`;
    const btn = card && card.querySelector('[data-coach-next]');
    if (btn) btn.focus({ preventScroll: true });
    return undo;
  }, [step && step.id]);

  // A rules file from before this tip existed (an old copy in the cache) has no text for it: no card.
  const text = step && R.coach[step.id];
  if (!text) return null;
  const last = step.id === 'end';
  // Closing the card hands the keyboard back to the table (the card's button is gone).
  const close = (next) => {
    save(next);
    const target = document.querySelector('.table [data-pick], .table [data-act]');
    if (target) target.focus({ preventScroll: true });
  };
  const next = () => close({ ...cur, seen: [...cur.seen, step.id], done: last || cur.done });
  const skip = () => close({ ...cur, done: true, skipped: true });
  return html`<section ref=${box} class="coach" role="dialog" aria-modal="false"
      aria-labelledby="coach-title" aria-describedby="coach-text" data-coach=${step.id}>
    <div class="coach-head"><p class="coach-kicker">${R.coach.label} · ${R.coach.step.replace('{n}', cur.seen.length + 1)}</p>
      ${last ? null : html`<button type="button" class="link" data-coach-skip onClick=${skip}>${R.coach.skip}</button>`}</div>
    <h2 id="coach-title">${text.title}</h2>
    <p id="coach-text">${text.text}</p>
    <div class="coach-row">
      <button type="button" class="primary" data-coach-next onClick=${next}>${last ? R.coach.done : R.coach.next}</button>
      ${step.section ? html`<a class="coach-more" href=${rulesHref(step.section)}>${R.coach.more}</a>` : null}
    </div>
  </section>`;
}
