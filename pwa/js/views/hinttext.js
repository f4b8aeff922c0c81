// Why a hint suggests its move, in the player's language: the server's `reason_code` becomes a sentence
// of our catalog naming the bean and the boss, followed by a link to the part of "How to play" that
// explains the rule. A rule number never reaches the screen, not even from an unknown code's fallback
// text. Showing a hint also brings what it points at into view.

import { useEffect } from 'preact/hooks';
import { html } from '../html.js';
import { t, has, bean, boss as bossName } from '../i18n.js';
import { actKey } from '../targets.js';
import { HINT_SECTION, rulesHref, sectionOfRule } from '../learn.js';

const RULE_ID = /\s*\(?\b(R\d{1,3}[a-z]?)\b\)?/g;

/** The bean, boss and coins a reason sentence may name, read from the view the hint was asked in (the
 * same choices as engine/bots/hint.py makes for its English sentence). */
function vars(action, view, seat, code) {
  const me = (view && view.players[seat]) || {};
  const field = (i) => (me.fields && me.fields[i]) || null;
  const display = (view && view.display) || [];
  const size = (b) => display.filter((x) => x === b).length;
  const front = me.hand && me.hand.length ? me.hand[0] : null;
  const out = {};
  switch (action.type) {
    case 'plant_hand':
    case 'end_phase':
      if (front) out.bean = bean(front);
      break;
    case 'harvest':
    case 'pay': {
      const f = field(action.field);
      if (f) {
        out.bean = bean(f[0]);
        const holder = Object.keys(view.bosses).find((b) => view.bosses[b] && view.bosses[b][0] === f[0]);
        if (holder) out.boss = bossName(holder);
      }
      out.n = me.harvest_values ? me.harvest_values[action.field] : 0;
      if (code === 'room_for_hand' && front) out.card = bean(front);
      if (code === 'room_for_bundle' && f) {
        // The largest bundle of a kind no other field holds (the first of equal ones).
        const kinds = new Set((me.fields || []).filter((g, j) => g && j !== action.field).map((g) => g[0]));
        let best = null;
        for (const b of new Set(display)) {
          if (!kinds.has(b) && b !== f[0] && (best === null || size(b) > size(best))) best = b;
        }
        if (best) { out.bundle = bean(best); out.size = size(best); }
      }
      break;
    }
    case 'give_hand':
      if (me.hand && me.hand[action.index]) out.bean = bean(me.hand[action.index]);
      break;
    default:
      if (action.bean) { out.bean = bean(action.bean); out.size = size(action.bean); }
  }
  if (action.boss) out.boss = bossName(action.boss);
  return out;
}

/** The reason sentence and the rules section it links to. */
export function hintReason(hint, view, seat) {
  const code = hint.reason_code;
  const known = has(`hint.reason.${code}`) || has(`hint.reason.${code}.other`);
  if (known) {
    const v = vars(hint.action, view, seat, code);
    return { text: t(`hint.reason.${code}`, v), section: HINT_SECTION[code] || 'turn' };
  }
  // A code this client does not know yet: the server's own sentence, without its rule numbers.
  const raw = String(hint.reason || '');
  const ids = [...raw.matchAll(RULE_ID)].map((m) => m[1]);
  const text = raw.replace(RULE_ID, '').trim();
  return { text, section: ids.length ? sectionOfRule(ids[0]) : 'turn' };
}

/** The CSS selector of what the player taps first for the hinted move. */
function firstTarget(a) {
  if (a.type === 'give_hand') return `[data-pick="hand:${a.index}"]`;
  if (a.bean) return `[data-pick="bundle:${a.bean}"]`;
  return `[data-act="${actKey(a)}"]`;
}

export function HintText({ hint, view, seat }) {
  const { text, section } = hintReason(hint, view, seat);
  // Bring the first thing to tap on screen: it may sit below the fold or in a scrolled hand tray.
  useEffect(() => {
    const el = document.querySelector(`.table ${firstTarget(hint.action)}`)
      || document.querySelector(`.table [data-act="${actKey(hint.action)}"]`);
    if (el) {
      const smooth = !matchMedia('(prefers-reduced-motion: reduce)').matches;
      el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: smooth ? 'smooth' : 'auto' });
    }
  }, [hint]);
  return html`${text} <a class="rulelink" href=${rulesHref(section)} data-rulelink=${section}>${t('hint.more', { topic: t(`learn.section.${section}`) })}</a>`;
}
