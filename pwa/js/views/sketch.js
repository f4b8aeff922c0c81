// The pictures of "How to play": one small drawing of the table (SVG, drawn here), with the areas a
// section talks about lit and the others faded, and arrows for where cards go. Colours come from
// attributes and classes only (the CSP allows no inline styles).

import { html } from '../html.js';
import { boss as bossName } from '../i18n.js';
import { ArtAt } from './art.js';

// Each card shows the bean's own picture, as on the game screen (outline and mark as well as colour),
// never a code: players know the beans by their pictures and names, not by the engine's letters.

/** A label that never runs out of its box: a long word (German) is squeezed to `max` drawing units. */
function Label({ x, y, text, max, cls = 'sk-label' }) {
  const wide = text.length * (cls === 'sk-small' ? 5.6 : 6.6) > max;
  return html`<text x=${x} y=${y} class=${cls} textLength=${wide ? max : null}
    lengthAdjust=${wide ? 'spacingAndGlyphs' : null}>${text}</text>`;
}

function Card({ x, y, code, back }) {
  return html`<g transform=${`translate(${x} ${y})`}>
    <rect width="22" height="30" rx="3" fill=${back ? '#2e5e3e' : '#fffdf6'} stroke="#5b5140" />
    ${back ? html`<circle cx="11" cy="15" r="5" fill="#f2c14e" />` : html`<${ArtAt} code=${code} x=${0} y=${4} size=${22} />`}</g>`;
}

/** A pile of `n` cards of one kind (or an empty slot), with its count. */
function Pile({ x, y, code, n }) {
  if (!code) return html`<rect x=${x} y=${y} width="22" height="30" rx="3" class="sk-slot" />`;
  const shown = Math.min(n, 3);
  return html`<g>${Array.from({ length: shown }, (_, i) => html`<${Card} x=${x + i * 4} y=${y - i * 3} code=${code} />`)}
    ${n > 1 ? html`<text x=${x + 34} y=${y + 22} class="sk-count">×${n}</text>` : null}</g>`;
}

function Coins({ x, y, n }) {
  return html`<g>${Array.from({ length: n }, (_, i) => html`<circle cx=${x + i * 9} cy=${y - i * 2} r="7" fill="#f2c14e" stroke="#8a6100" />`)}</g>`;
}

// Points the arrows start and end at, in the drawing's coordinates (viewBox 0 0 360 300).
const AT = {
  al: [48, 58], don: [134, 58], joe: [220, 58], treasury: [314, 58],
  deck: [46, 140], discard: [136, 140], display: [268, 106],
  field0: [48, 220], field1: [134, 220], field2: [220, 220], coins: [314, 220],
  hand0: [21, 281], hand2: [93, 281], hand4: [165, 281],
};

// What each picture shows: the lit areas, the arrows, and whether the third field is the bought one.
const PICS = {
  overview: { lit: ['mafia', 'treasury', 'deck', 'discard', 'display', 'fields', 'coins', 'hand'], arrows: [] },
  mafia: { lit: ['mafia', 'treasury'], arrows: [['joe', 'treasury']] },
  fields: { lit: ['fields', 'coins'], arrows: [] },
  harvest: { lit: ['fields', 'coins', 'discard'], arrows: [['field0', 'coins'], ['field0', 'discard']] },
  leftovers: { lit: ['display', 'fields', 'discard'], arrows: [['display', 'field2'], ['display', 'discard']] },
  protection: { lit: ['mafia', 'fields'], arrows: [['field0', 'don']] },
  plant: { lit: ['hand', 'fields'], arrows: [['hand0', 'field2']] },
  reveal: { lit: ['deck', 'display', 'mafia', 'discard'], arrows: [['deck', 'display'], ['deck', 'al'], ['discard', 'display']] },
  use: { lit: ['display', 'fields', 'mafia', 'hand'], arrows: [['display', 'field2'], ['display', 'joe'], ['hand2', 'joe']] },
  draw: { lit: ['deck', 'hand'], arrows: [['deck', 'hand4']] },
  third: { lit: ['fields', 'coins'], arrows: [['coins', 'field2']], third: true },
  end: { lit: ['deck', 'discard'], arrows: [['discard', 'deck']] },
};
export const PIC_NAMES = Object.keys(PICS);

function Arrow({ from, to, id }) {
  const [x1, y1] = AT[from];
  const [x2, y2] = AT[to];
  const len = Math.hypot(x2 - x1, y2 - y1);
  // Leave a gap at both ends so the arrow never covers the cards it connects.
  const k1 = 16 / len;
  const k2 = (len - 20) / len;
  const a = [x1 + (x2 - x1) * k1, y1 + (y2 - y1) * k1];
  const b = [x1 + (x2 - x1) * k2, y1 + (y2 - y1) * k2];
  // A slight bend keeps crossing arrows apart.
  const c = [(a[0] + b[0]) / 2 + (b[1] - a[1]) * 0.12, (a[1] + b[1]) / 2 - (b[0] - a[0]) * 0.12];
  return html`<path d=${`M${a[0].toFixed(1)} ${a[1].toFixed(1)} Q${c[0].toFixed(1)} ${c[1].toFixed(1)} ${b[0].toFixed(1)} ${b[1].toFixed(1)}`}
    class="sk-arrow" marker-end=${`url(#${id})`} />`;
}

/** The table drawing for picture `name`; `R` is the rules text (area names, picture descriptions). */
export function Sketch({ name, R }) {
  const pic = PICS[name] || PICS.overview;
  const A = R.areas;
  const on = (area) => (pic.lit.includes(area) ? 'sk-area sk-on' : 'sk-area sk-dim');
  const id = `sk-arrow-${name}`;
  const title = `sk-title-${name}`;
  return html`<svg class="sketch" viewBox="0 0 360 300" role="img" aria-labelledby=${title} data-pic=${name}>
    <title id=${title}>${(R.pics && R.pics[name]) || R.title}</title>
    <defs><marker id=${id} viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
      <path d="M0 0 L10 5 L0 10 z" class="sk-head" /></marker></defs>
    <g class=${on('mafia')}>
      <rect x="2" y="2" width="264" height="88" rx="8" class="sk-zone mafia" />
      <${Label} x=${10} y=${16} text=${A.mafia} max=${250} />
      ${[['al', 'FI', 2], ['don', 'BR', 1], ['joe', 'RU', 1]].map(([b, code, n], i) => html`<g>
        <rect x=${8 + i * 86} y="22" width="80" height="62" rx="6" class="sk-box" />
        <text x=${14 + i * 86} y="36" class="sk-name">${bossName(b).split(' ')[0]}</text>
        <${Pile} x=${20 + i * 86} y=${46} code=${code} n=${n} /></g>`)}
    </g>
    <g class=${on('treasury')}>
      <rect x="272" y="2" width="86" height="88" rx="8" class="sk-zone" />
      <${Label} x=${280} y=${16} text=${A.treasury} max=${72} />
      <${Coins} x=${296} y=${60} n=${3} />
    </g>
    <g class=${on('deck')}>
      <rect x="2" y="98" width="88" height="76" rx="8" class="sk-zone" />
      <${Label} x=${8} y=${112} text=${A.deck} max=${76} />
      <${Card} x=${24} y=${128} back=${true} /><${Card} x=${28} y=${125} back=${true} /><${Card} x=${32} y=${122} back=${true} />
      <${Label} x=${8} y=${168} text=${A.pass} max=${76} cls="sk-small" />
    </g>
    <g class=${on('discard')}>
      <rect x="94" y="98" width="86" height="76" rx="8" class="sk-zone" />
      <${Label} x=${100} y=${112} text=${A.discard} max=${74} />
      <${Card} x=${124} y=${128} code="PU" />
    </g>
    <g class=${on('display')}>
      <rect x="184" y="98" width="174" height="76" rx="8" class="sk-zone" />
      <${Label} x=${192} y=${112} text=${A.display} max=${160} />
      <${Pile} x=${210} y=${128} code="KI" n=${2} /><${Pile} x=${290} y=${128} code="BL" n=${1} />
    </g>
    <g class=${on('fields')}>
      <rect x="2" y="182" width="264" height="72" rx="8" class="sk-zone" />
      <${Label} x=${10} y=${196} text=${A.fields} max=${250} />
      ${[['BR', 3], ['FR', 1], [null, 0]].map(([code, n], i) => html`<g>
        <rect x=${8 + i * 86} y="202" width="80" height="46" rx="6" class=${`sk-box${pic.third && i === 2 ? ' dashed' : ''}`} />
        ${pic.third && i === 2 ? html`<text x=${48 + i * 86} y="229" text-anchor="middle" class="sk-label">${A.third}</text>`
          : html`<${Pile} x=${20 + i * 86} y=${212} code=${code} n=${n} />`}</g>`)}
    </g>
    <g class=${on('coins')}>
      <rect x="272" y="182" width="86" height="72" rx="8" class="sk-zone" />
      <${Label} x=${280} y=${196} text=${A.coins} max=${72} />
      <${Coins} x=${300} y=${228} n=${2} />
    </g>
    <g class=${on('hand')}>
      <${Label} x=${188} y=${286} text=${A.hand} max=${166} />
      ${['PU', 'BL', 'RU', 'KI', 'FR'].map((code, i) => html`<${Card} x=${10 + i * 36} y=${266} code=${code} />`)}
      <text x="10" y="263" class="sk-small">▼ ${A.front}</text>
    </g>
    ${pic.arrows.map(([f, to]) => html`<${Arrow} from=${f} to=${to} id=${id} />`)}
  </svg>`;
}
