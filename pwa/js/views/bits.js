// Small pieces shared by the screens: a bean card, an action button, the connection indicator.

import { html } from '../html.js';
import { t, bean } from '../i18n.js';
import { actKey } from '../targets.js';
import { Art } from './art.js';

/** A bean card: our picture, its name in the interface language, and a count badge. Beans are told
 * apart by outline, mark and name as well as colour. */
export function Bean({ code, count, small }) {
  if (!code) return null;
  return html`<span class=${`bean bean-${code}${small ? ' small' : ''}`}>
    <${Art} code=${code} />
    <span class="bean-name">${bean(code)}</span>
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
