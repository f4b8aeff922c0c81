// The flow of a turn on the phone: which taps can be spared. The client still decides nothing: a move
// is made by itself only where the player has no choice left that changes the game, and picking a
// bundle for the player is no move (nothing happens until a target is tapped).

import { html } from '../html.js';
import { t } from '../i18n.js';
import { targets } from '../targets.js';

/**
 * The move the client makes by itself, or null:
 * - the server offers exactly one action (other than buying a field): ending a phase with nothing else
 *   to do, the one card protection money forces, planting the front card where only one field takes
 *   it, the one card that must fill an empty boss, the one harvest that makes room;
 * - planting is over (two cards planted, or an empty hand): "Done planting" would be a tap without a
 *   choice, so the cards are turned up at once. Harvesting stays possible after the reveal;
 * - the display is empty and no hand card can go to a boss: "End turn" would be a tap without a
 *   choice. What is left (a harvest, buying the third field) can be done as well at the start of the
 *   next turn, and the final harvest takes every field anyway.
 * Buying a field is never forced, so it is never made alone.
 */
export function flowMove(view, legal) {
  if (legal.length === 1 && legal[0].type !== 'buy_field') return legal[0];
  const end = legal.find((a) => a.type === 'end_phase');
  if (!end) return null;
  const only = (types) => legal.every((a) => types.includes(a.type));
  const me = view.players[view.active] || {};
  if (view.phase === 'plant') {
    const plantingOver = view.planted >= 2 || me.hand_size === 0;
    return plantingOver && only(['end_phase', 'harvest', 'buy_field']) ? end : null;
  }
  if (view.phase === 'use') {
    return !view.display.length && only(['end_phase', 'harvest', 'buy_field']) ? end : null;
  }
  return null;
}

/** What the banner says while the client makes `move` by itself (null: the usual "No choice here"). */
export function flowText(move, view) {
  if (move.type === 'end_phase' && view.phase === 'plant') return t('lay.auto.reveal');
  if (move.type === 'end_phase' && view.phase === 'use') return t('lay.auto.end');
  return null;
}

/**
 * The selection the table starts with when the player has picked nothing: the bundle or hand card of
 * the hint on screen (`hinted`, its action), else a bundle of the display: one that goes onto a field
 * of yours growing its bean, else one that can be planted at all, else one that can be moved without
 * a harvest first, the larger first, else the first (in the order the cards came). One tap on a lit
 * field or boss then moves it; another bundle or a hand card is one tap away. A hidden hand is never
 * picked for the player. `free` is targets(legal, null, view).
 */
export function preselect(free, view, legal, hidden, hinted = null) {
  if (hinted && hinted.bean && hinted.type !== 'give_hand' && free.bundles.has(hinted.bean)) {
    return { kind: 'bundle', bean: hinted.bean };
  }
  if (hinted && hinted.type === 'give_hand' && !hidden && free.hand.has(hinted.index)) {
    return { kind: 'hand', index: hinted.index };
  }
  if (free.bundles.size) {
    const me = view.players[view.active] || {};
    const growing = new Set((me.fields || []).filter(Boolean).map((f) => f[0]));
    const plantable = new Set(legal.filter((a) => a.type === 'plant_display').map((a) => a.bean));
    const size = (b) => view.display.filter((x) => x === b).length;
    const movable = targets(legal, null).bundles; // not only after a harvest ("harvest + plant")
    const rank = (b) => [growing.has(b) && plantable.has(b) ? 1 : 0, plantable.has(b) ? 1 : 0,
      movable.has(b) ? 1 : 0, size(b)];
    const better = (r, q) => {
      const i = r.findIndex((x, j) => x !== q[j]);
      return i >= 0 && r[i] > q[i];
    };
    let best = null;
    for (const b of view.display) {
      if (free.bundles.has(b) && (best === null || better(rank(b), rank(best)))) best = b;
    }
    return { kind: 'bundle', bean: best };
  }
  if (free.hand.size === 1 && !hidden) return { kind: 'hand', index: [...free.hand][0] };
  return null;
}

/**
 * Whether a tap on this harvest asks "Harvest anyway?" first. Only a harvest that pays no coin and has
 * no purpose in sight asks: not the move the hint on screen proposed, not when harvesting is all that
 * is left to do (room must be made), not when it settles protection money without feeding the boss,
 * and not when it makes room (no field is empty) for what is waiting: the front card while planting,
 * or a bundle of the display.
 */
export function asksFirst(view, a, legal, hinted) {
  if (a.type !== 'harvest' || hinted) return false;
  const me = view.players[view.seat] || {};
  const f = me.fields && me.fields[a.field];
  if (!f || !me.harvest_values || me.harvest_values[a.field] !== 0) return false;
  if (legal.every((x) => x.type === 'harvest' || x.type === 'buy_field')) return false;
  if (view.phase === 'protection' && Object.values(view.bosses).some((b) => b && b[0] === f[0])) return false;
  if (me.fields.some((g) => g === null)) return true; // a free field is there already
  const others = new Set(me.fields.filter((g, j) => g && j !== a.field).map((g) => g[0]));
  const waiting = view.phase === 'plant' ? (me.hand || []).slice(0, view.planted < 2 ? 1 : 0)
    : view.phase === 'use' || view.phase === 'leftovers' ? view.display : [];
  return !waiting.some((b) => b !== f[0] && !others.has(b));
}

/** The pass on the draw pile; the last one is marked, as the game ends when that pile runs out. */
export function PassLine({ view }) {
  const last = view.pass >= 3 && view.phase !== 'over';
  return html`<div class=${`pass${last ? ' last' : ''}`} data-pass=${view.pass}>${last
    ? t('table.pass.last') : t('table.pass', { n: view.pass })}</div>`;
}

/** Short notes under the prompt: the last pass of the draw pile about to run out. */
export function DockNotes({ view }) {
  const last = view.pass >= 3 && view.phase !== 'over' && view.deck_size <= LAST_PASS_WARN;
  if (!last) return null;
  return html`<p class="lastpass" data-lastpass=${view.deck_size} role="note">${view.deck_size
    ? t('lay.lastpass', { n: view.deck_size }) : t('lay.lastpass.none')}</p>`;
}

// A turn takes some five cards from the draw pile (three that stay in the display, the Mafia's
// captures, two drawn): the line under the prompt comes about two turns before the end.
const LAST_PASS_WARN = 10;
