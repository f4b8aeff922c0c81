// The board as it stands after each event: the public effect of one event applied to a copy of the
// view, so the table shown while the steps play out never contradicts the sentence beside it.
// Only what the event itself says is applied (a card moves from here to there, counts change); the
// client needs no rule for it. What an event cannot tell (the card under a discard pile's top) is
// taken from the view the steps lead to, which replaces the copy once the last step is shown.

import { coins, THIRD_FIELD_COST } from './beans.js';

const copyView = (v) => ({
  ...v,
  players: v.players.map((p) => ({
    ...p,
    fields: p.fields.map((f) => (f ? [...f] : null)),
    harvest_values: p.harvest_values ? [...p.harvest_values] : p.harvest_values,
    hand: p.hand ? [...p.hand] : p.hand,
  })),
  bosses: Object.fromEntries(Object.entries(v.bosses).map(([k, b]) => [k, b ? [...b] : null])),
  display: [...v.display],
  legal_actions: [], // nothing is tappable while the steps play out
});

function toDiscard(v, bean, n) {
  if (n <= 0) return;
  v.discard_size += n;
  v.discard_top = bean;
}

function setField(p, i, f) {
  p.fields[i] = f;
  // What a harvest would pay now, read off the printed beanometer (beans.js), as the view gives it.
  if (p.harvest_values) p.harvest_values[i] = f ? coins(f[0], f[1]) : null;
}

function removeBundle(v, bean) {
  v.display = v.display.filter((c) => c !== bean);
}

function addToBoss(v, boss, bean, n) {
  // A boss that reaches its threshold harvests at once; the engine then reports a boss_harvest as the
  // next event, which empties the boss. Until then the boss holds the cards, as the narration says.
  const b = v.bosses[boss];
  v.bosses[boss] = [bean, (b ? b[1] : 0) + n];
}

/**
 * Return the view after event `e`, given the view `v` before it. `rest` are the events still to come
 * and `end` is the view they lead to (for what no event says: the card under the discard top).
 */
export function step(v, e, rest = [], end = null) {
  const n = copyView(v);
  const player = e.seat === undefined ? null : n.players[e.seat];
  switch (e.type) {
    case 'reveal':
      n.deck_size = Math.max(0, n.deck_size - 1);
      n.display.push(e.bean);
      break;
    case 'capture':
      n.deck_size = Math.max(0, n.deck_size - 1);
      addToBoss(n, e.boss, e.bean, 1);
      break;
    case 'boss_harvest':
      n.bosses[e.boss] = null;
      n.treasury += e.coins;
      toDiscard(n, e.bean, e.count - e.coins);
      break;
    case 'from_discard': {
      n.discard_size = Math.max(0, n.discard_size - 1);
      n.display.push(e.bean);
      const following = rest[0];
      if (!n.discard_size) n.discard_top = null;
      else if (following && following.type === 'from_discard') n.discard_top = following.bean;
      // No event names the card under it: show the top the steps end with (a pile that changes
      // again later in the same steps shows that top a moment early).
      else if (end) n.discard_top = end.discard_top;
      break;
    }
    case 'exhausted':
      n.exhaustions = e.exhaustions;
      break;
    case 'reshuffle':
      n.deck_size = e.deck_size;
      n.pass = e.pass;
      n.discard_size = 0;
      n.discard_top = null;
      n.set_aside = 0;
      break;
    case 'draw':
      n.deck_size = Math.max(0, n.deck_size - 1);
      if (player) {
        player.hand_size += 1;
        if (player.hand && e.bean) player.hand.push(e.bean);
      }
      break;
    case 'harvest':
      if (player) {
        setField(player, e.field, null);
        player.coins += e.coins;
      }
      toDiscard(n, e.bean, e.count - e.coins);
      break;
    case 'plant':
      if (player) {
        const f = player.fields[e.field];
        setField(player, e.field, [e.bean, (f && f[0] === e.bean ? f[1] : 0) + e.count]);
        if (e.source === 'hand') {
          player.hand_size = Math.max(0, player.hand_size - 1);
          if (player.hand) player.hand.shift();
          n.planted = (n.planted || 0) + 1;
        }
      }
      if (e.source === 'display') removeBundle(n, e.bean);
      break;
    case 'discard':
      removeBundle(n, e.bean);
      toDiscard(n, e.bean, e.count);
      break;
    case 'give':
      if (e.source === 'display') removeBundle(n, e.bean);
      else if (player) {
        player.hand_size = Math.max(0, player.hand_size - 1);
        if (player.hand) player.hand.splice(e.index ?? 0, 1);
      }
      addToBoss(n, e.boss, e.bean, e.count);
      break;
    case 'pay':
      if (player) {
        const f = player.fields[e.field];
        setField(player, e.field, f && f[1] > 1 ? [f[0], f[1] - 1] : null);
      }
      addToBoss(n, e.boss, e.bean, 1);
      break;
    case 'buy_field':
      if (player) {
        player.fields.push(null);
        if (player.harvest_values) player.harvest_values.push(null);
        player.third_field = true;
        // Its price, printed on the card: that many coins go face down onto the set-aside pile.
        player.coins = Math.max(0, player.coins - THIRD_FIELD_COST);
        n.set_aside += THIRD_FIELD_COST;
      }
      break;
    case 'phase':
      // The end needs its result, which only the view the steps lead to has (game_over brings it):
      // a board in phase "over" without a result is never made.
      if (e.phase === 'over') break;
      n.phase = e.phase;
      if (e.seat !== undefined) n.active = e.seat;
      if (e.phase !== 'plant') n.planted = 0;
      break;
    case 'turn':
      n.active = e.seat;
      n.planted = 0;
      break;
    case 'game_over':
      if (end) return { ...copyView(end), legal_actions: end.legal_actions };
      break;
    default:
      break;
  }
  return n;
}

// What the board draws of a view: a replay that does not end exactly here is not shown.
const SHOWN = ['mode', 'phase', 'active', 'players', 'bosses', 'display', 'discard_top', 'discard_size',
  'deck_size', 'treasury', 'set_aside', 'exhaustions', 'pass', 'result'];

/** Does the board `v` (the end of a replay) show exactly what the server's view `want` says? */
export function agrees(v, want) {
  if (!v || !want) return false;
  return SHOWN.every((k) => JSON.stringify(v[k] ?? null) === JSON.stringify(want[k] ?? null));
}
