// Small pieces shared by the screens: a bean card, an action button, the connection indicator.

import { html } from '../html.js';
import { t, bean, CANONICAL, currentLang } from '../i18n.js';
import { actKey } from '../targets.js';

/** A bean, told apart by its code letters, its name and a pattern, not only by colour. Cards carry the
 * canonical German name; in another language its translation follows in small print. */
export function Bean({ code, count, small }) {
  if (!code) return null;
  const local = bean(code);
  const gloss = local !== CANONICAL[code] ? local : null;
  return html`<span class=${`bean bean-${code}${small ? ' small' : ''}`}>
    <span class="swatch" aria-hidden="true">${code}</span>
    <span class="bean-name"><span lang=${currentLang() === 'de' ? null : 'de'}>${CANONICAL[code]}</span>
      ${gloss ? html`<span class="gloss">${gloss}</span>` : null}</span>
    ${count !== undefined && html`<span class="count">${t('table.count', { n: count })}</span>`}
  </span>`;
}

/** A button for one legal action: `data-act` names it for tests; all such buttons are highlighted. */
export function Act({ action, label, onAct, disabled, primary }) {
  return html`<button type="button" class=${`act${primary ? ' primary' : ''}`} data-act=${actKey(action)}
    disabled=${disabled} onClick=${() => onAct(action)}>${label}</button>`;
}

export function Conn({ conn }) {
  return html`<span class=${`conn conn-${conn}`} role="status" title=${t(`conn.${conn}`)}>
    <span class="dot" aria-hidden="true"></span><span class="conn-text" aria-hidden="true">${t(`conn.short.${conn}`)}</span>
    <span class="sr-only">${t(`conn.${conn}`)}</span>
  </span>`;
}

export function cards(n) {
  return t('table.cards', { n });
}
