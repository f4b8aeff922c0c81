// A tiny translation layer: JSON catalogs per language (i18n/<lang>.json), `t(key, vars)` with
// {name} placeholders and plural forms chosen by Intl.PluralRules (keys "x.one" / "x.other").

import * as store from './store.js';

export const LANGS = ['de', 'en'];
let lang = 'en';
let catalog = {};
let fallback = {};
let plural = new Intl.PluralRules('en');

/** The language from the saved choice, else the browser's list, else English. */
export function negotiate() {
  const saved = store.prefs().lang;
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const base = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(base)) return base;
  }
  return 'en';
}

async function fetchCatalog(l) {
  const resp = await fetch(`/i18n/${l}.json`);
  return resp.json();
}

export async function setLang(l, save = false) {
  const [cat, fb] = await Promise.all([fetchCatalog(l), l === 'en' ? null : fetchCatalog('en')]);
  catalog = cat;
  fallback = fb || cat;
  lang = l;
  plural = new Intl.PluralRules(l);
  document.documentElement.lang = l;
  if (save) store.setPref('lang', l);
}

export const currentLang = () => lang;

export const has = (key) => key in catalog || key in fallback;

export function t(key, vars = {}) {
  let msg = catalog[key] ?? fallback[key];
  if (msg === undefined && typeof vars.n === 'number') {
    const form = plural.select(vars.n);
    msg = catalog[`${key}.${form}`] ?? catalog[`${key}.other`] ?? fallback[`${key}.other`];
  }
  if (msg === undefined) return key;
  return msg.replace(/\{(\w+)\}/g, (_, k) => (vars[k] === undefined ? `{${k}}` : String(vars[k])));
}

/** The canonical bean names (German, as on the cards of the game), whatever the language. */
export const CANONICAL = {
  BL: 'Blaue Bohne', KI: 'Kidneybohne', FI: 'Feuerbohne', PU: 'Puffbohne', BR: 'Saubohne',
  FR: 'Brechbohne', RU: 'Stangenbohne',
};

/** A bean's name in the current language, for sentences and button labels. */
export const bean = (code) => t(`bean.${code}`);
export const boss = (name) => t(`boss.${name}`);
