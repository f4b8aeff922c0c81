// The flow of a turn on the phone: which taps can be spared. The client still decides nothing: a move
// is made by itself only where the player has no choice left that changes the game, and picking a
// bundle for the player is no move (nothing happens until a target is tapped).

import { html } from '../html.js';
import { t } from '../i18n.js';

/**
 * The move the client makes by itself, or null:
 * - the server offers exactly one action (other than buying a field): ending a phase with nothing else
 *   to do, the one card protection money forces, planting the front card where only one field takes
 *   it, the one card that must fill an empty boss, the one harvest that makes room;
 * - planting is over (two cards planted, or an empty hand): "Done planting" would be a tap without a
 *   choice, so the cards are turned up at once. Harvesting stays possible after the reveal.
 * Buying a field is never forced, so it is never made alone.
 */
export function flowMove(view, legal) {
  if (legal.length === 1 && legal[0].type !== 'buy_field') return legal[0];
  if (view.phase !== 'plant' || !legal.length) return null;
  const end = legal.find((a) => a.type === 'end_phase');
  const me = view.players[view.active] || {};
  const plantingOver = view.planted >= 2 || (me.hand_size === 0);
  return end && plantingOver && !legal.some((a) => a.type === 'plant_hand') ? end : null;
}

/** What the banner says while the client makes `move` by itself (null: the usual "No choice here"). */
export function flowText(move, view) {
  if (move.type === 'end_phase' && view.phase === 'plant') return t('lay.auto.reveal');
  return null;
}

/**
 * The selection the table starts with when the player has picked nothing: the first bundle of the
 * display (in the order the cards came), so that one tap on a lit field or boss moves it; another
 * bundle or a hand card is one tap away. A hidden hand is never picked for the player. `free` is
 * targets(legal, null).
 */
export function preselect(free, display, hidden) {
  if (free.bundles.size) {
    const first = display.find((b) => free.bundles.has(b));
    return { kind: 'bundle', bean: first };
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

/** Short notes under the prompt: the last pass of the draw pile running out. */
export function DockNotes({ view }) {
  const last = view.pass >= 3 && view.phase !== 'over' && view.deck_size <= LAST_PASS_WARN;
  if (!last) return null;
  return html`<p class="lastpass" data-lastpass=${view.deck_size} role="note">${view.deck_size
    ? t('lay.lastpass', { n: view.deck_size }) : t('lay.lastpass.none')}</p>`;
}

// A turn takes some five cards from the draw pile (three that stay in the display, the Mafia's
// captures, two drawn): the warning comes about four turns before the end.
const LAST_PASS_WARN = 20;
