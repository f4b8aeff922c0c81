// The list of what just happened: the Mafia's and the deck's moves appear one by one.

import { html } from '../html.js';
import { t } from '../i18n.js';
import { sentence } from '../narrate.js';

export function Steps({ s, seat, hotseat, hidden, onSkip }) {
  // A hidden hand also hides which cards were drawn into it.
  const seen = (e) => (hidden && e.type === 'draw' ? { type: 'draw', seat: e.seat } : e);
  const lines = s.steps.slice(0, s.shown).map((e) => sentence(seen(e), seat, hotseat)).filter(Boolean);
  if (!lines.length) return null;
  // Afterwards the list folds away: the board shows the result, and the history has the whole story.
  if (!s.busy) {
    // A phone that caught up after a while lists the latest steps; the History drawer has them all.
    return html`<details class="steps"><summary>${t('table.steps')} (${lines.length})</summary>
      ${s.skipped ? html`<p class="hint" data-steps-skipped=${s.skipped}>${t('table.steps.more', { n: s.skipped })}</p>` : null}
      <ol>${lines.map((l) => html`<li>${l}</li>`)}</ol></details>`;
  }
  return html`<section class="steps" aria-label=${t('table.steps')}>
    <h2 class="sub">${t('table.steps')}
      <button type="button" class="link" onClick=${onSkip}>${t('table.skip')}</button></h2>
    <ol>${lines.map((l) => html`<li>${l}</li>`)}</ol>
  </section>`;
}
