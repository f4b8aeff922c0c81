// "How to play": the rules as this app plays them, in the player's language, with a picture per area
// and the beanometers drawn from the engine's own data (../beans.js). The long text is a JSON file per
// language (i18n/rules.<lang>.json), fetched when the page opens; this module is loaded on demand too.
// The page is short to scroll: every part folded to its title (the titles are the contents); a part
// opens with a tap on its title or from a link to it (a hint's, the coach's), and all open at once.

import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t, bean, boss as bossName, currentLang } from '../i18n.js';
import { BEANS, BEANOMETER, COUNTS, THRESHOLD, BOSS_ORDER } from '../beans.js';
import { rulesText, rulesHref, backHref } from '../learn.js';
import { Sketch } from './sketch.js';
import { Art } from './art.js';

/** Inline marks of the rules text: **strong**, *emphasis*, [words](section). Rendered as nodes, never
 * as markup, so the text cannot inject anything. */
export function rich(text) {
  const out = [];
  const re = /\*\*(.+?)\*\*|\*(.+?)\*|\[(.+?)\]\(([a-z]+)\)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(html`<strong>${m[1]}</strong>`);
    else if (m[2] !== undefined) out.push(html`<em>${m[2]}</em>`);
    else out.push(html`<a href=${rulesHref(m[4])}>${m[3]}</a>`);
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function Beanometers({ R }) {
  const T = R.table;
  // The wrapper scrolls sideways on a narrow screen: it takes the focus so keyboards can scroll it too.
  return html`<div class="tablewrap" tabindex="0" role="region" aria-labelledby="cap-beanometer">
    <table class="rtable" data-table="beanometer">
    <caption id="cap-beanometer">${T.caption}</caption>
    <thead><tr><th scope="col" rowspan="2">${T.bean}</th><th scope="col" rowspan="2">${T.cards}</th>
      <th scope="colgroup" colspan="4">${T.coinsgroup}</th></tr>
      <tr>${[1, 2, 3, 4].map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
    <tbody>${BEANS.map((b) => html`<tr data-bean=${b}>
      <th scope="row"><${Art} code=${b} /> ${bean(b)}</th><td>${COUNTS[b]}</td>
      ${BEANOMETER[b].map((n) => html`<td>${n}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

/** When each boss harvests, per bean: his threshold in coins is reached at that beanometer step. */
function BossTable({ R }) {
  const T = R.table;
  const plural = new Intl.PluralRules(currentLang());
  const coinsText = (n) => T[`threshold.value.${plural.select(n)}`].replace('{n}', n);
  return html`<div class="tablewrap" tabindex="0" role="region" aria-labelledby="cap-bosses">
    <table class="rtable" data-table="bosses">
    <caption id="cap-bosses">${T.bosscaption}</caption>
    <thead><tr><th scope="col">${T.bean}</th>${BOSS_ORDER.map((b) => html`<th scope="col">${bossName(b)}
      <span class="th-sub">${T.threshold} ${coinsText(THRESHOLD[b])}${b === 'joe' ? ` (${T.solo})` : ''}</span></th>`)}</tr></thead>
    <tbody>${BEANS.map((b) => html`<tr><th scope="row"><${Art} code=${b} /> ${bean(b)}</th>
      ${BOSS_ORDER.map((x) => html`<td>${BEANOMETER[b][THRESHOLD[x] - 1]}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

function Block({ b, R }) {
  if (typeof b === 'string') return html`<p>${rich(b)}</p>`;
  if (b.list) return html`<ul class="rules-list">${b.list.map((x) => html`<li>${rich(x)}</li>`)}</ul>`;
  if (b.steps) return html`<ol class="rules-steps">${b.steps.map((x) => html`<li>${rich(x)}</li>`)}</ol>`;
  if (b.note) return html`<aside class="decided"><strong>${R.decided}:</strong> ${rich(b.note)}</aside>`;
  if (b.pic) return html`<figure class="sketch-fig"><${Sketch} name=${b.pic} R=${R} /></figure>`;
  if (b.beanometer) return html`<${Beanometers} R=${R} />`;
  if (b.bosses) return html`<${BossTable} R=${R} />`;
  return null;
}

function LearnBox({ R, onTutorial }) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const go = async () => {
    setBusy(true);
    setFailed(false);
    try {
      await onTutorial();
    } catch {
      setFailed(true);
      setBusy(false);
    }
  };
  return html`<section class="learnbox" id="rule-learn" aria-labelledby="rule-learn-h">
    <h2 id="rule-learn-h">${R.learn.title}</h2>
    <p>${R.learn.text}</p>
    <button type="button" class="primary big" data-learn="start" disabled=${busy} onClick=${go}>
      ${busy ? R.learn.busy : R.learn.button}</button>
    ${failed ? html`<p class="notice" role="alert">${R.learn.error}</p>` : null}
  </section>`;
}

export function Rules({ section, langSwitch, onTutorial }) {
  const lang = currentLang();
  const [R, setR] = useState(null);
  const [failed, setFailed] = useState(false);
  // Parts opened or closed by a tap; the rest is open only when linked to (the section in the address).
  const [toggled, setToggled] = useState({});
  const [all, setAll] = useState(false);
  const isOpen = (id) => (id in toggled ? toggled[id] : all || id === section);
  const toggle = (id) => setToggled((x) => ({ ...x, [id]: !isOpen(id) }));
  useEffect(() => { if (section) setToggled((x) => ({ ...x, [section]: true })); }, [section]);
  useEffect(() => {
    let live = true;
    setFailed(false);
    rulesText(lang).then((r) => live && setR({ lang, ...r }), () => live && setFailed(true));
    return () => { live = false; };
  }, [lang]);
  // Open at the asked section (a hint's or the coach's link) once its text is on the page.
  useEffect(() => {
    if (!R) return;
    const el = section && document.getElementById(`rule-${section}-h`);
    if (el) {
      el.scrollIntoView({ block: 'start' });
      el.focus({ preventScroll: true });
    } else window.scrollTo(0, 0);
  }, [R && R.lang, section]);

  const bar = html`<header class="bar"><a class="button link" href=${backHref()} data-rules="back">${t('learn.back')}</a>${langSwitch}</header>`;
  if (!R || R.lang !== lang) {
    return html`<div class="shell">${bar}<main id="main" class="rules"><h1>${t('learn.rules')}</h1>
      <p role=${failed ? 'alert' : 'status'}>${failed ? t('err.network') : t('loading')}</p></main></div>`;
  }
  return html`<div class="shell">${bar}
    <main id="main" class="rules" data-rules=${lang}>
      <h1>${R.title}</h1>
      <p class="lead">${R.intro}</p>
      <${LearnBox} R=${R} onTutorial=${onTutorial} />
      <p class="fold-row"><span class="hint">${R.fold_hint}</span>
        <button type="button" class="link" data-rules="all" aria-pressed=${all ? 'true' : 'false'}
          onClick=${() => {
            // Closing closes every part, the one linked to as well.
            setToggled(all ? Object.fromEntries(R.sections.map((x) => [x.id, false])) : {});
            setAll(!all);
          }}>${all ? R.close_all : R.open_all}</button></p>
      ${R.sections.map((s) => {
        const open = isOpen(s.id);
        return html`<section class=${`rsec${open ? ' open' : ''}`} id=${`rule-${s.id}`} data-section=${s.id}
          aria-labelledby=${`rule-${s.id}-h`}>
          <h2 id=${`rule-${s.id}-h`} tabindex="-1"><button type="button" class="rsec-toggle" data-rules-open=${s.id}
            aria-expanded=${open ? 'true' : 'false'} aria-controls=${`rule-${s.id}-body`}
            onClick=${() => toggle(s.id)}>${s.title}</button></h2>
          <div class="rsec-body" id=${`rule-${s.id}-body`} hidden=${!open}>
            ${s.body.map((b) => html`<${Block} b=${b} R=${R} />`)}</div>
        </section>`;
      })}
      <p><a class="button" href=${backHref()}>${t('learn.back')}</a></p>
    </main></div>`;
}
