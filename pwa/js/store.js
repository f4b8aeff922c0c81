// Everything this device remembers, in localStorage: the seat tokens per game (never in a cookie, so no
// other site's request can carry them), the solo streak, the language and the hand-privacy choice.
// Each call reads and writes the whole small record: two tabs then never keep diverging copies in memory.

const KEY_GAMES = 'alc.games';
const KEY_STREAK = 'alc.streak';
const KEY_PREFS = 'alc.prefs';

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : fallback;
  } catch {
    return fallback; // private mode or a damaged entry: behave like a fresh device
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or blocked: the game still works for this page's lifetime
  }
}

/** All games of this device: {gameId: {mode, tokens: {seat: token}, hotseat, created, pending?}}. */
export function games() {
  return read(KEY_GAMES, {});
}

export function game(id) {
  return games()[id] || null;
}

export function saveGame(id, patch) {
  const all = games();
  all[id] = { ...(all[id] || { created: Date.now(), tokens: {} }), ...patch };
  write(KEY_GAMES, all);
  return all[id];
}

export function addToken(id, seat, token, extra = {}) {
  const g = game(id) || {};
  return saveGame(id, { ...extra, tokens: { ...(g.tokens || {}), [seat]: token } });
}

/** A join code as the server compares it: upper case, without spaces and dashes. */
export const normCode = (code) => String(code || '').toUpperCase().replace(/[\s._-]/g, '');

/** The id of this device's game that `code` opens (its own lobby's code, or the code it joined
 * with), or null: opening that link again resumes the seat this device holds. */
export function gameByCode(code) {
  const want = normCode(code);
  if (!want) return null;
  const hit = Object.entries(games()).find(([, g]) => g.joinCode && normCode(g.joinCode) === want
    && Object.keys(g.tokens || {}).length);
  return hit ? hit[0] : null;
}

/** Forget a game and its tokens (after the end screen was acknowledged). */
export function forgetGame(id) {
  const all = games();
  delete all[id];
  write(KEY_GAMES, all);
}

/** The move that was sent but not yet answered: kept so a reload retries it with the same key. */
export function setPending(id, pending) {
  if (game(id)) saveGame(id, { pending: pending || null });
}

export function streak() {
  return read(KEY_STREAK, { current: 0, best: 0, counted: [] });
}

/** Count a finished solo game once (a reload of the end screen must not count it again). */
export function recordSolo(id, won) {
  const s = streak();
  if (s.counted.includes(id)) return s;
  const current = won ? s.current + 1 : 0;
  const next = { current, best: Math.max(s.best, current), counted: [...s.counted, id].slice(-50) };
  write(KEY_STREAK, next);
  return next;
}

export function prefs() {
  return read(KEY_PREFS, {});
}

export function setPref(name, value) {
  write(KEY_PREFS, { ...prefs(), [name]: value });
}
