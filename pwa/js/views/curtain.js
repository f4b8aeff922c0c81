// Pass-and-play: a full-screen curtain between turns, so the next player never sees the other hand.

import { html } from '../html.js';
import { t } from '../i18n.js';

export function Curtain({ seat, onReveal }) {
  return html`<section class="curtain" aria-labelledby="curtain-title">
    <h2 id="curtain-title">${t('curtain.title')}</h2>
    <p>${t('curtain.text', { n: seat + 1 })}</p>
    <button type="button" class="big primary" data-curtain=${seat} onClick=${onReveal}>${t('curtain.go', { n: seat + 1 })}</button>
  </section>`;
}
