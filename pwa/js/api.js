// The HTTP API of docs/protocol.md §6, nothing else. Errors come back as ApiError (a problem+json answer) or
// NetworkError (no answer at all: the caller keeps the move pending and retries with the same key).

const BASE = '/api/v1';

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.body = body || {};
  }
}

export class NetworkError extends Error {}

/** A UUIDv4 from getRandomValues: crypto.randomUUID exists only in secure contexts (not on LAN http). */
export function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

async function call(method, path, { token, body, headers = {}, timeout = 10000 } = {}) {
  const h = { Accept: 'application/json', ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  // A phone on a failing network can hang a fetch for minutes; abort so the move shows as pending.
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeout);
  let resp;
  try {
    resp = await fetch(BASE + path, {
      method, headers: h, body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store', signal: ctrl.signal,
    });
  } catch (err) {
    throw new NetworkError(String(err));
  } finally {
    clearTimeout(timer);
  }
  let data = null;
  try {
    data = await resp.json();
  } catch {
    data = null;
  }
  if (!resp.ok) throw new ApiError(resp.status, data);
  return data;
}

/** Create a game; with `bot` (random, greedy, mc) the computer takes the second seat at once.
 * `name` is the player's chosen name (null: the seat shows as "Player 1"). */
export function createGame(mode, bot = null, name = null) {
  const body = { mode };
  if (bot) body.bot = bot;
  if (name) body.name = name;
  return call('POST', '/games', { body });
}
/** Take the seat a join code opens. With the `token` of that game the server answers with the
 * caller's own seat instead (the host's phone opening its own join link). */
export function joinGame(code, name = null, token = null) {
  return call('POST', '/games/join', { token, body: name ? { code, name } : { code } });
}
/** The next game after the finished game `id`, the same for every caller: this seat's grant in it. */
export const rematch = (id, token) => call('POST', `/games/${encodeURIComponent(id)}/rematch`, { token });
/** The guided first game ("Learn by playing"): a solo game on the server's fixed tutorial deal. */
export const createTutorial = (name = null) =>
  call('POST', '/games', { body: name ? { mode: 'solo', tutorial: true, name } : { mode: 'solo', tutorial: true } });
export const getGame = (id, token) => call('GET', `/games/${encodeURIComponent(id)}`, { token });
/** A suggested move for the token's seat on its turn: {action, reason_code, reason, version}. */
export const getHint = (id, token) => call('GET', `/games/${encodeURIComponent(id)}/hint`, { token });
export const getEvents = (id, token, since) =>
  call('GET', `/games/${encodeURIComponent(id)}/events?since=${since}`, { token });

/** Send one move; `key` is the move's Idempotency-Key, the same on every retry of that move. */
export const postAction = (id, token, action, version, key) =>
  call('POST', `/games/${encodeURIComponent(id)}/actions`, {
    token, body: { action, version }, headers: { 'Idempotency-Key': key },
  });

/**
 * The join QR code as an object URL. Asked for with the seat token, not `?code=`: checking a code
 * counts against the join limit of the address, and a lobby should not spend that budget.
 */
export async function joinQr(id, token) {
  const resp = await fetch(`${BASE}/games/${encodeURIComponent(id)}/qr.svg`, {
    headers: { Authorization: `Bearer ${token}` }, cache: 'no-store',
  });
  if (!resp.ok) throw new ApiError(resp.status, null);
  return URL.createObjectURL(await resp.blob());
}
export const watchQrUrl = (id) => `/watch/${encodeURIComponent(id)}.svg`;
export const socketUrl = (id) => {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}${BASE}/games/${encodeURIComponent(id)}/ws`;
};
