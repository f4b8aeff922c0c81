// Learning the game: where the rules text lives (loaded only when needed), which section of "How to
// play" explains a hint or a rule, and starting the guided tutorial game. Small on purpose: it is part
// of the first load; the rules page itself (views/rules.js) and its text are fetched on demand.

import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { t } from './i18n.js';
import * as store from './store.js';
import { myName } from './names.js';

/** The sections of the rules page, in order; `#/rules/<id>` opens the page at one of them. */
export const SECTIONS = ['goal', 'table', 'start', 'beans', 'fields', 'harvest', 'turn', 'leftovers',
  'protection', 'plant', 'reveal', 'use', 'draw', 'bosses', 'third', 'end', 'solo'];

export const rulesHref = (section) => (section ? `#/rules/${section}` : '#/rules');

/** The section that explains each hint reason (api GET /hint `reason_code`). */
export const HINT_SECTION = {
  must_plant: 'plant', grow_field: 'plant', keep_hand: 'plant', make_room: 'harvest', make_room_zero: 'harvest',
  cash_in: 'harvest', cash_in_room: 'harvest', full_field: 'harvest', room_for_bundle: 'harvest',
  room_for_hand: 'harvest', stale_field: 'harvest', harvest_protected: 'protection',
  zero_keep_from_boss: 'protection', pay_protection: 'protection', pay_single: 'protection',
  take_bundle: 'use', start_bundle: 'use', discard: 'leftovers', feed_boss: 'bosses', unload_hand: 'use',
  give_card: 'use', buy_field: 'third', only_choice: 'turn', end_phase: 'turn',
};

/** Rule numbers of the specification the server quotes, by the section that explains them; a text that
 * still carries one shows a link to that section instead of the bare number. */
const RULE_RANGES = [
  [1, 'beans'], [5, 'bosses'], [6, 'third'], [10, 'table'], [12, 'fields'], [20, 'harvest'], [30, 'bosses'],
  [40, 'third'], [50, 'start'], [60, 'turn'], [62, 'leftovers'], [65, 'protection'], [69, 'plant'],
  [73, 'reveal'], [79, 'use'], [86, 'draw'], [90, 'end'], [103, 'solo'],
];

export function sectionOfRule(id) {
  const n = Number(String(id).replace(/^R/, '').replace(/[a-z]$/, ''));
  let found = 'turn';
  for (const [from, section] of RULE_RANGES) if (n >= from) found = section;
  return found;
}

// One request per language and page life; a failed fetch is forgotten so the next try asks again.
const texts = new Map();
export function rulesText(lang) {
  if (!texts.has(lang)) {
    const p = fetch(`/i18n/rules.${lang}.json`).then((r) => {
      if (!r.ok) throw new Error(`rules text: HTTP ${r.status}`);
      return r.json();
    });
    p.catch(() => texts.delete(lang));
    texts.set(lang, p);
  }
  return texts.get(lang);
}

/** Create the guided solo game on the fixed tutorial deal; this device remembers it as a tutorial. */
export async function startTutorial(api) {
  const name = myName();
  const r = await api.createGame({ mode: 'solo', tutorial: true, ...(name && { name }) });
  store.addToken(r.game_id, r.seat, r.token, { mode: 'solo', tutorial: true, created: Date.now() });
  location.hash = `#/g/${r.game_id}`;
}

// Where "Back" on the rules page returns to: the last screen outside the rules (a game, the start).
let from = '#/';
window.addEventListener('hashchange', (e) => {
  const old = new URL(e.oldURL).hash;
  if (!old.startsWith('#/rules')) from = old || '#/';
});
export const backHref = () => from;

/** The rules page, fetched on first use so it costs the first load nothing. */
export function RulesRoute(props) {
  const [Page, setPage] = useState(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    import('./views/rules.js').then((m) => setPage(() => m.Rules), () => setFailed(true));
  }, []);
  if (Page) return html`<${Page} ...${props} />`;
  return html`<div class="shell"><header class="bar"><a class="button link" href=${backHref()}>${t('learn.back')}</a>${props.langSwitch}</header>
    <main id="main" class="rules"><h1>${t('learn.rules')}</h1>
      <p role=${failed ? 'alert' : 'status'}>${failed ? t('err.network') : t('loading')}</p></main></div>`;
}
