// The one sentence that says what must be done now, from the view alone (phase, planted, legal list).

import { t, bean } from '../i18n.js';
import { seatName } from '../names.js';

/** conn: the live connection's state (sync.js); offline is said in the sentence itself, as the phone
 * then shows an old table and no turn can reach it. */
export function bannerText(view, { seat, busy, watch, conn = 'live' }) {
  if (view.phase === 'over') return t('phase.over');
  if (busy) return t('phase.busy');
  const legal = view.legal_actions || [];
  if (watch || seat === null || view.active !== seat || !legal.length) {
    const who = seatName(view.active); // the name on the seat (names.js), else Player n
    if (conn === 'offline') return t('phase.wait.offline', { who });
    return t(watch || seat === null ? 'phase.wait.table' : 'phase.wait', { who });
  }
  const can = (type) => legal.some((a) => a.type === type);
  const me = view.players[seat];
  switch (view.phase) {
    case 'leftovers': return t('phase.leftovers');
    case 'protection': return t('phase.protection');
    case 'plant':
      if (!me.hand || !me.hand.length) return t('phase.plant.empty');
      // The front card fits no field: nothing to plant lights up until a harvest makes room.
      if (view.planted === 0 && !can('plant_hand')) return t('phase.plant.stuck', { bean: bean(me.hand[0]) });
      if (view.planted === 0) return t('phase.plant.first');
      return can('plant_hand') ? t('phase.plant.second') : t('phase.plant.done');
    case 'use':
      // An empty boss holds the turn open (it must get a card if one can go to it): say so first.
      if (!can('end_phase') && Object.values(view.bosses).some((b) => b === null)) {
        return t('phase.use.fill');
      }
      return t(view.mode === 'solo' ? 'phase.use.solo' : 'phase.use');
    default: return '';
  }
}
