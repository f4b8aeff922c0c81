// End of game: the final harvest (in the steps list), scores, the winner, rematch; solo streak.

import { html } from '../html.js';
import { t } from '../i18n.js';
import { who } from '../narrate.js';

export function winnerText(result, seat, mode, hotseat) {
  const w = result.winners;
  if (w.includes('mafia')) return t('end.win.mafia');
  if (mode === 'solo') return t('end.win.you');
  if (w.length > 1) return t('end.win.both');
  if (w[0] === seat && !hotseat) return t('end.win.you');
  return t('end.win.seat', { n: w[0] + 1 });
}

export function End({ s, streak, onRematch, onHome, hotseat }) {
  const view = s.view;
  const r = view.result;
  return html`<section class="end">
    <h2>${t('end.title')}</h2>
    <p class="winner" data-winner=${r.winners.join(',')}>${winnerText(r, s.seat, view.mode, hotseat)}</p>
    <ul class="scores">
      ${r.scores.map((n, i) => html`<li>${t('end.score', { who: who(i, s.seat, hotseat), n })}</li>`)}
      <li>${t(view.mode === 'solo' ? 'end.mafia.solo' : 'end.mafia', { n: r.mafia })}</li>
    </ul>
    ${streak ? html`<p class="streak">${t('end.streak', streak)}</p>` : null}
    ${s.seat !== null ? html`<div class="row">
      <button type="button" class="primary" data-end="rematch" onClick=${onRematch}>${t('end.rematch')}</button>
      <button type="button" data-end="home" onClick=${onHome}>${t('end.home')}</button>
    </div>` : null}
  </section>`;
}
