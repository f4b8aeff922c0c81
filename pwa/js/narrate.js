// Turns engine events (docs/protocol.md §8: action answers, GET /events) into short sentences for the step list.

import { t as tr, has, bean, boss } from './i18n.js';
import { nameOf, currentSeats } from './names.js';

/** Events the Mafia or the deck cause by themselves: these are played out step by step. */
export const AUTOMATIC = new Set(['reveal', 'capture', 'boss_harvest', 'from_discard', 'reshuffle',
  'exhausted', 'draw', 'game_over']);

/** "You", the seat's chosen name, "Computer" or "Player n" (names.js, PWA-SOCIAL). */
export function who(seat, viewer, hotseat) {
  return nameOf(seat, currentSeats(), viewer, hotseat);
}

/** One sentence for an event, or null for bookkeeping events that say nothing new. */
export function sentence(e, viewer, hotseat = false) {
  const w = e.seat === undefined ? '' : who(e.seat, viewer, hotseat);
  // "You draw", not "You draws": the viewer's own moves have their own sentences.
  const self = e.seat !== undefined && e.seat === viewer && !hotseat;
  const t = (key, vars) => tr(self && has(`${key}.you`) ? `${key}.you` : key, vars);
  const b = e.bean ? bean(e.bean) : '';
  switch (e.type) {
    case 'reveal': return t('ev.reveal', { bean: b });
    case 'capture': return t('ev.capture', { boss: boss(e.boss), bean: b });
    case 'boss_harvest':
      return t(e.final ? 'ev.boss_harvest.final' : 'ev.boss_harvest',
        { boss: boss(e.boss), bean: b, count: e.count, coins: e.coins });
    case 'from_discard': return t('ev.from_discard', { bean: b });
    case 'reshuffle': return t('ev.reshuffle', { pass: e.pass, deck: e.deck_size });
    case 'exhausted': return t('ev.exhausted', { n: e.exhaustions });
    case 'draw': return e.bean ? t('ev.draw', { who: w, bean: b }) : t('ev.draw.hidden', { who: w });
    case 'harvest':
      return t(e.final ? 'ev.harvest.final' : 'ev.harvest', { who: w, bean: b, count: e.count, coins: e.coins });
    case 'plant': return t('ev.plant', { who: w, bean: b, count: e.count });
    case 'discard': return t('ev.discard', { who: w, bean: b, count: e.count });
    case 'give': return t('ev.give', { who: w, bean: b, count: e.count, boss: boss(e.boss) });
    case 'pay': return t('ev.pay', { who: w, bean: b, boss: boss(e.boss) });
    case 'buy_field': return t('ev.buy_field', { who: w });
    case 'game_over': return t('ev.game_over');
    case 'seat_joined': return t('ev.seat_joined');
    default: return null; // phase, turn: the banner already says it
  }
}
