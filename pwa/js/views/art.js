// Our own bean pictures: one small inline SVG per bean. Each bean differs in outline, colour and a
// mark of its own (a shine, a flame, stripes, speckles), so no one needs colour alone to tell them apart.

import { html } from '../html.js';

// A kidney-shaped bean in a 40 x 40 box; `squash` stretches it for the long and the round beans.
const KIDNEY = 'M13 7C23 2 35 9 33 21C31 32 21 37 13 33C5 29 4 21 9 19C13 17 15 15 12 12C10 10 10 8 13 7Z';
const ROUND = 'M20 5C30 5 35 12 35 20C35 29 28 35 20 35C11 35 5 29 5 20C5 12 11 5 20 5Z';
const LONG = 'M6 25C4 17 12 7 24 6C33 5 37 10 34 15C31 20 22 19 17 24C13 28 8 32 6 25Z';
const BROAD = 'M9 11C15 4 30 4 34 13C38 22 33 33 21 34C9 35 3 27 4 20C4 16 6 13 9 11Z';

const FACE = html`<circle cx="16" cy="18" r="1.8" fill="#1d1d1b" /><circle cx="24" cy="17" r="1.8" fill="#1d1d1b" />
  <path d="M16 24q4 3 8 0" stroke="#1d1d1b" stroke-width="1.6" fill="none" stroke-linecap="round" />`;

const ART = {
  BL: html`<path d=${KIDNEY} fill="#4a7fd0" stroke="#1d3f73" stroke-width="1.5" />
    <ellipse cx="24" cy="11" rx="5" ry="2.2" fill="#fff" opacity=".7" />${FACE}`,
  KI: html`<path d=${KIDNEY} fill="#a3283a" stroke="#5a1020" stroke-width="1.5" />
    <path d="M11 16q3 2 1 5" stroke="#f6c9cf" stroke-width="2" fill="none" stroke-linecap="round" />
    <circle cx="16" cy="18" r="1.8" fill="#fff" /><circle cx="24" cy="17" r="1.8" fill="#fff" />
    <path d="M16 24q4 3 8 0" stroke="#fff" stroke-width="1.6" fill="none" stroke-linecap="round" />`,
  FI: html`<path d=${KIDNEY} fill="#e8632b" stroke="#7a2a08" stroke-width="1.5" />
    <path d="M22 1c4 4 5 7 2 10c-1-2-2-2-3-1c-2-3-1-6 1-9Z" fill="#f6c232" stroke="#7a2a08" stroke-width="1" />${FACE}`,
  PU: html`<path d=${ROUND} fill="#b9d66a" stroke="#4f6a12" stroke-width="1.5" />
    <circle cx="11" cy="13" r="2" fill="#eef7cf" /><circle cx="29" cy="26" r="2.4" fill="#eef7cf" />
    <circle cx="27" cy="11" r="1.4" fill="#eef7cf" />${FACE}`,
  BR: html`<path d=${BROAD} fill="#cfa979" stroke="#6b4a22" stroke-width="1.5" />
    <path d="M31 12q3 4 1 9" stroke="#3b2710" stroke-width="2.4" fill="none" stroke-linecap="round" />${FACE}`,
  FR: html`<path d=${LONG} fill="#5cb85c" stroke="#1f5e1f" stroke-width="1.5" />
    <path d="M9 24C14 17 22 13 31 11" stroke="#c9efc9" stroke-width="1.6" fill="none" stroke-dasharray="3 3" />
    <circle cx="20" cy="17" r="1.6" fill="#1d1d1b" /><circle cx="26" cy="15" r="1.6" fill="#1d1d1b" />`,
  RU: html`<path d=${LONG} fill="#8a5bb8" stroke="#3d1f5c" stroke-width="1.5" />
    <circle cx="12" cy="22" r="1.3" fill="#e6d4f5" /><circle cx="30" cy="12" r="1.3" fill="#e6d4f5" />
    <circle cx="16" cy="26" r="1" fill="#e6d4f5" /><circle cx="33" cy="15" r="1" fill="#e6d4f5" />
    <circle cx="20" cy="17" r="1.6" fill="#fff" /><circle cx="26" cy="15" r="1.6" fill="#fff" />`,
};

/** The picture of a bean (decorative: its name is always written next to it). */
export function Art({ code }) {
  return html`<svg class="art" viewBox="0 0 40 40" aria-hidden="true" focusable="false">${ART[code] || null}</svg>`;
}

/** The same picture placed inside another drawing (the rules' sketches): at x, y, `size` units wide. */
export function ArtAt({ code, x, y, size }) {
  return html`<svg x=${x} y=${y} width=${size} height=${size} viewBox="0 0 40 40" aria-hidden="true"
    focusable="false">${ART[code] || null}</svg>`;
}
