// Player names: the one the player chose on this device, and how each seat is called on screen.
// A name is only ever text (rendered as a text node, never markup) and at most MAX_NAME characters;
// the server checks the same rules, the client trims first so a typed name never comes back refused.

import { t, currentLang } from './i18n.js';
import * as store from './store.js';

export const MAX_NAME = 24;

// Control characters (C0, DEL, C1), line and paragraph separators, the bidi marks, overrides and
// isolates that could turn the text around a name on screen, and invisible characters (zero-width
// spaces, word joiner, soft hyphen, Hangul fillers, Braille blank, tags): the server refuses the same set
// (api/game/names.py, which also keeps the names of the game: Computer, Mafia, the bosses).
const UNWANTED = /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;
/** A name as shown inside a sentence: always between first-strong and pop-directional isolates
 * (U+2068 ... U+2069), so whatever script it is written in, it cannot reorder the words, numbers or
 * marks around it ("Turn 3 · <name>", "<name> 3× Blue"), and the sentence cannot pull it apart. The
 * isolates are invisible; the server refuses every bidi control inside names. */
export const isolate = (name) => `\u2068${name}\u2069`;

/** The name as the server accepts it (NFC, trimmed, no control or invisible characters, <= MAX_NAME),
 * or null. */
export function cleanName(raw) {
  const s = String(raw ?? '').normalize('NFC').replace(UNWANTED, '').trim();
  const cut = [...s].slice(0, MAX_NAME).join('').trim(); // by code points: never half an emoji
  return cut || null;
}

/** Why the server refused a name (an ApiError whose problem points at /name), in the player's language,
 * or null. The server says it in English and German, separated by " / ". */
export function nameRefusal(err) {
  const errors = (err && err.problem && Array.isArray(err.problem.errors)) ? err.problem.errors : [];
  const e = errors.find((x) => x && x.pointer === '/name' && x.detail);
  if (!e) return null;
  const parts = e.detail.split(' / ');
  return parts.length === 2 && currentLang() === 'de' ? parts[1] : parts[0];
}

/** The name chosen on this device (remembered in localStorage), or null. */
export const myName = () => cleanName(store.prefs().name);
export const setMyName = (name) => store.setPref('name', cleanName(name));

// The seats of the game on screen; the session sets them, so a sentence can name a seat without
// every caller passing the seats along.
let current = [];
export const setSeats = (seats) => { current = Array.isArray(seats) ? seats : []; };
export const currentSeats = () => current;

/** What a seat is called for everyone: its name, "Computer" for the bot, else "Player n". */
export function seatName(seat, seats = current) {
  const info = (seats || []).find((x) => x.seat === seat);
  const name = info && cleanName(info.name);
  if (name) return isolate(name);
  if (info && info.bot) return t('social.computer');
  return t('who.seat', { n: seat + 1 });
}

/** Like seatName, but "You" for the viewer's own seat (not when two players share the phone). */
export function nameOf(seat, seats = current, viewer = null, hotseat = false) {
  if (seat === viewer && !hotseat) return t('who.you');
  return seatName(seat, seats);
}
