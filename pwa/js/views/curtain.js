// Pass-and-play: a full-screen curtain between turns, so the next player never sees the other hand.

import { html } from '../html.js';
import { t } from '../i18n.js';
import { seatName } from '../names.js';

export function Curtain({ seat, onReveal }) {
  const name = seatName(seat); // the seat's name, else "Player n" (names.js)
  return html`<section class="curtain" aria-labelledby="curtain-title">
    <h2 id="curtain-title">${t('curtain.title')}</h2>
    <p>${t('social.curtain.text', { name })}</p>
    <button type="button" class="big primary" data-curtain=${seat} onClick=${onReveal}>${t('social.curtain.go', { name })}</button>
  </section>`;
}
