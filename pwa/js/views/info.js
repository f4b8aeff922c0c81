// "What is this?": one or two sentences in players' words for any card or area tapped on the table.
// The table marks explainable things with data-info="<kind>[:<arg>[:<arg>]]"; nothing here decides
// anything, it only reads the view.

import { html } from '../html.js';
import { t, bean, boss as bossName } from '../i18n.js';
import { BEANOMETER, THRESHOLD, THIRD_FIELD_COST, coins } from '../beans.js';

/** "3 → 1, 6 → 2, 8 → 3, 9 → 4": how many cards pay how many coins. */
export function meterText(code) {
  return BEANOMETER[code].map((n, i) => t('lay.meter.step', { n, c: i + 1 })).join(', ');
}

/** The sentences for a data-info value, or null. */
export function infoText(info, view, seat) {
  const [kind, a, b] = String(info).split(':');
  switch (kind) {
    case 'boss': {
      const held = view.bosses[a];
      const base = t('lay.info.boss', { boss: bossName(a), n: THRESHOLD[a] });
      if (!held) return `${base} ${t('lay.info.boss.empty')}`;
      return `${base} ${t('lay.info.boss.held', { count: held[1], bean: bean(held[0]) })}`;
    }
    case 'field': {
      const p = view.players[Number(a)];
      const f = p && p.fields[Number(b)];
      if (!f) return t('lay.info.field.empty');
      // What a harvest pays now is the server's word (view.harvest_values); the printed table only
      // stands in for a view without it.
      const hv = p.harvest_values && p.harvest_values[Number(b)];
      const now = typeof hv === 'number' ? hv : coins(f[0], f[1]);
      return t('lay.info.field', { count: f[1], bean: bean(f[0]), now, meter: meterText(f[0]) });
    }
    case 'third': return t('lay.info.third', { n: THIRD_FIELD_COST });
    case 'hand': return t('lay.info.hand');
    case 'card': return t('lay.info.card', { bean: bean(a), meter: meterText(a) });
    case 'deck': return t('lay.info.deck', { n: view.deck_size, pass: view.pass });
    case 'discard': return t('lay.info.discard');
    case 'display': return t(view.mode === 'solo' ? 'lay.info.display.solo' : 'lay.info.display');
    case 'treasury': return t(view.mode === 'solo' ? 'lay.info.treasury.solo' : 'lay.info.treasury', { n: view.treasury });
    default: return null;
  }
}

/** The popover: the explanation of what was tapped last; any tap closes it. */
export function InfoPop({ info, low, view, seat, onClose }) {
  const text = info ? infoText(info, view, seat) : null;
  if (!text) return null;
  return html`<div class=${`infopop${low ? ' low' : ''}`} role="status" data-infopop=${info}>
    <p>${text}</p>
    <button type="button" class="link" onClick=${onClose}>${t('lay.info.close')}</button>
  </div>`;
}
