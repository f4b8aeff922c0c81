// Al Cabohne Online: the official JavaScript client of the public API (docs/protocol.md, docs/websocket.md).
// One ES module, no build step, no dependencies: browsers and Node 20+ (fetch is global; WebSocket is global in
// Node 22+, in Node 20 with --experimental-websocket, or pass any WHATWG-style constructor). The PWA uses it too.
// How to use it: docs/clients.md.

const API = '/api/v1';
// Codes of a 503 that make a resend with the same Idempotency-Key safe and useful: nothing was changed
// (store_unavailable, server_busy), or the change may have happened and the same key says which, applying it
// at most once (outcome_unknown).
const RETRY_CODES = new Set(['outcome_unknown', 'store_unavailable', 'server_busy']);
// A socket ended with one of these (error frame, or close 1008 with the code as reason) would be ended again:
// stop instead of reconnecting forever. Other endings (rate_limited, server_busy, store_unavailable, ...)
// reconnect, after `retry_after` when the server gave one.
const FATAL_CODES = new Set(['bad_token', 'unknown_game', 'invalid_request']);

/*
 * Types (JSDoc only: nothing here runs). They come from the server's own documents, the OpenAPI document
 * and the websocket messages' JSON Schema, written out as TypeScript in api-types.d.ts beside this file
 * (generated, never edited by hand), so that editors and `tsc --checkJs` check code against the API.
 */
/**
 * @typedef {import('./api-types').components['schemas']} Schemas
 * @typedef {Schemas['Action']} Action  an action of docs/protocol.md §3 (`type` and exactly its fields)
 * @typedef {Schemas['View']} View  what one seat (or the table) may see (docs/protocol.md §5)
 * @typedef {Schemas['Event']} Event  something that happened (docs/protocol.md §8)
 * @typedef {Schemas['Problem']} Problem  a problem+json answer (docs/protocol.md §9)
 * @typedef {Schemas['CreateGame']} CreateGameOptions  the body of POST /games
 * @typedef {Schemas['CreatedGame']} CreatedGame  createGame's answer: seat 0, its `token`, the join code
 * @typedef {Schemas['SeatGrant']} SeatGrant  the answer of join and rematch: a seat and its `token`
 * @typedef {Schemas['Game']} Game  the answer about one game (docs/protocol.md §5)
 * @typedef {Schemas['ActionResult']} ActionResult  the answer of a move: the version it made, with `events`
 * @typedef {Schemas['Events']} EventLog  the events of every version after `since`
 * @typedef {Schemas['Hint']} Hint  a suggested move
 * @typedef {Schemas['Record']} GameRecord  a finished game's record (`alcabohne-record/1`)
 * @typedef {Schemas['Transfer']} Transfer  a code that moves a seat to another device
 * @typedef {Schemas['clientMessage']} ClientMessage  a websocket message to the server
 * @typedef {Schemas['client_action']} ActionMessage
 * @typedef {Schemas['serverMessage']} ServerMessage  a websocket frame from the server
 * @typedef {Schemas['server_state']} StateFrame
 * @typedef {Schemas['server_ack']} AckFrame
 * @typedef {Schemas['server_error']} ErrorFrame
 * @typedef {Partial<Problem> & Partial<ErrorFrame>} ProblemDocument  a problem or an error frame, as far
 *   as it came (a proxy's error page has none)
 *
 * @typedef {{token?: string|null, body?: unknown, headers?: Record<string, string>, raw?: boolean}} RequestOptions
 * @typedef {new (url: string) => WebSocket} WebSocketClass  a WHATWG-style WebSocket constructor
 * @typedef {object} ConnectionOptions
 * @property {number} [since]  the version held already (default 0: the first state is the current one)
 * @property {(frame: StateFrame) => void} [onState]  each state newer than the version held, in order
 * @property {(frame: Exclude<ServerMessage, StateFrame>) => void} [onMessage]  every other frame
 * @property {(open: boolean) => void} [onOpen]  the channel started (true) or stopped (false) working
 * @property {(err: ApiError) => void} [onError]  the server ended the channel for good
 * @property {number} [silence]  ms without a frame before reconnecting (default 60000)
 * @property {boolean} [fillEvents]  after a gap, read the missing events over HTTP (default true)
 * @typedef {{message: ActionMessage, resolve: (ack: AckFrame) => void, reject: (err: Error) => void,
 *   tries: number}} PendingAction
 */

/** A problem+json answer (or websocket `error` frame): `code`, `status`, `detail`, `retryAfter` (seconds, or
 * null) and the whole `problem` document (`stale_version` carries the current `version` and `view` there). */
export class ApiError extends Error {
  /** @param {number} status @param {ProblemDocument|null} problem */
  constructor(status, problem) {
    /** @type {ProblemDocument} */
    const p = problem || {};
    super(p.detail || p.title || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    /** @type {string|undefined} */
    this.code = p.code;
    this.detail = p.detail;
    /** @type {number|null} */
    this.retryAfter = typeof p.retry_after === 'number' ? p.retry_after : null;
    this.problem = p;
  }
}

/** No answer at all (offline, refused, timed out): a move may or may not have been applied. */
export class NetworkError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** True when resending the same request with the same Idempotency-Key is safe and may succeed: no answer, a
 * retryable 503, or a proxy's 502/503/504 without a problem document (the server may not have seen it).
 * @param {unknown} err @returns {boolean} */
export const isRetryable = (err) => err instanceof NetworkError || (err instanceof ApiError
  && (err.status === 503 ? !err.code || RETRY_CODES.has(err.code) : [502, 504].includes(err.status) && !err.code));

/** A UUIDv4 from getRandomValues (crypto.randomUUID exists only in secure contexts, not on LAN http).
 * @returns {string} */
export function uuid() {
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** @param {number} ms @returns {Promise<void>} */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Exponential backoff with jitter: 0.5 s doubling to 10 s, each drawn from its upper half.
 * @param {number} attempt @returns {number} ms */
const backoff = (attempt) => {
  const base = Math.min(10000, 500 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
};
/** @param {string} id @param {string} [rest] @returns {string} */
const path = (id, rest = '') => `/games/${encodeURIComponent(id)}${rest}`;

export class Client {
  /**
   * @param {object} [options]
   * @param {string} [options.baseUrl]  the server's origin (scheme, host, port); in a page, the page's own
   * @param {typeof fetch} [options.fetch]
   * @param {WebSocketClass} [options.WebSocket]  default globalThis.WebSocket
   * @param {number} [options.timeout]  ms before a request counts as a NetworkError (default 10000)
   * @param {number} [options.retries]  resends of an action with the same key (default 4; 0: none)
   */
  constructor({ baseUrl, fetch: fetchFn, WebSocket: Ws, timeout = 10000, retries = 4 } = {}) {
    const origin = globalThis.location ? globalThis.location.origin : '';
    this.baseUrl = (baseUrl ?? origin).replace(/\/+$/, '');
    /** @type {typeof fetch} */
    this.fetch = fetchFn || ((...args) => globalThis.fetch(...args));
    this.WebSocket = Ws || null;
    this.timeout = timeout;
    this.retries = retries;
  }

  /**
   * One HTTP call. Returns the decoded answer (or the Response with `raw`); throws ApiError or NetworkError.
   * The answer's type is the caller's word (the methods below give each operation's).
   * @overload
   * @param {string} method @param {string} p  the path after /api/v1
   * @param {RequestOptions & {raw: true}} options
   * @returns {Promise<Response>}
   */
  /**
   * @template [T=unknown]
   * @overload
   * @param {string} method @param {string} p  the path after /api/v1
   * @param {RequestOptions & {raw?: false}} [options]
   * @returns {Promise<T>}
   */
  /**
   * @param {string} method @param {string} p @param {RequestOptions} [options]
   * @returns {Promise<unknown>}
   */
  async request(method, p, { token, body, headers = {}, raw = false } = {}) {
    /** @type {Record<string, string>} */
    const h = { Accept: 'application/json', ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    if (body !== undefined) h['Content-Type'] = 'application/json';
    // A phone on a failing network can hang a fetch for minutes: abort, so the caller can retry.
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), this.timeout);
    /** @type {Response} */
    let resp;
    try {
      resp = await this.fetch(this.baseUrl + API + p, {
        method, headers: h, body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store', signal: ctrl.signal,
      });
      if (raw && resp.ok) return resp;
      const text = await resp.text();
      let data = null;
      try {
        data = text ? JSON.parse(text) : null;
      } catch {
        data = null; // a proxy's HTML error page: the status still says what happened
      }
      if (!resp.ok) throw new ApiError(resp.status, data);
      return data;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const { message } = /** @type {{message?: unknown}} */ (err || {});
      throw new NetworkError(String(err && message ? message : err));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Create a game; the creator gets seat 0 and its `token` (keep it: it is the seat).
   * @param {CreateGameOptions} options  `{mode, bot?, name?, dealer?, tutorial?}`
   * @returns {Promise<CreatedGame>}
   */
  createGame(options) {
    return this.request('POST', '/games', { body: options });
  }

  /** Take the free seat of a join code (or claim a transfer code). With a `token` of that game the server
   * answers with that token's own seat instead.
   * @param {string} code @param {{name?: string, token?: string|null}} [options] @returns {Promise<SeatGrant>} */
  join(code, { name, token } = {}) {
    return this.request('POST', '/games/join', { token, body: name ? { code, name } : { code } });
  }

  /** The game as the token's seat sees it; without a token, the table view.
   * @param {string} id @param {string|null} [token] @returns {Promise<Game>} */
  getGame(id, token) {
    return this.request('GET', path(id), { token });
  }

  /**
   * Make a move chosen at `version`. The Idempotency-Key (`key`, a fresh UUID unless given) is resent
   * unchanged on a network error or a retryable 503, so the move is applied at most once; after
   * `retries` resends the last error is thrown. Other refusals (stale_version, illegal_action, ...) are
   * thrown at once. @returns {Promise<ActionResult>} the answer of the version the move made, with `events`
   * @param {string} id @param {string} token @param {Action} action @param {number} version
   * @param {{key?: string, retries?: number}} [options]
   */
  async act(id, token, action, version, { key = uuid(), retries = this.retries } = {}) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.request('POST', path(id, '/actions'), {
          token, body: { action, version }, headers: { 'Idempotency-Key': key },
        });
      } catch (err) {
        if (!isRetryable(err) || attempt >= retries) throw err;
        await sleep(Math.max(backoff(attempt), ((err instanceof ApiError && err.retryAfter) || 0) * 1000));
      }
    }
  }

  /** `{game_id, version, seat, log}`: the events of every version after `since`, as the seat may see them.
   * @param {string} id @param {string|null} [token] @param {number} [since] @returns {Promise<EventLog>} */
  events(id, token, since = 0) {
    return this.request('GET', path(id, `/events?since=${since}`), { token });
  }

  /** On the token's turn: `{action, reason_code, reason, version, ...}`, a suggested move.
   * @param {string} id @param {string} token @returns {Promise<Hint>} */
  hint(id, token) {
    return this.request('GET', path(id, '/hint'), { token });
  }

  /** Once the game is over: its record (`alcabohne-record/1`), for anyone.
   * @param {string} id @param {string|null} [token] @returns {Promise<GameRecord>} */
  record(id, token) {
    return this.request('GET', path(id, '/record'), { token });
  }

  /** Once the game is over: the caller's seat and token in the next game (the same game for every caller).
   * @param {string} id @param {string} token @returns {Promise<SeatGrant>} */
  rematch(id, token) {
    return this.request('POST', path(id, '/rematch'), { token });
  }

  /** A code that moves the token's seat to another device (claimed there with `join`).
   * @param {string} id @param {string} token @returns {Promise<Transfer>} */
  transfer(id, token) {
    return this.request('POST', path(id, '/transfer'), { token });
  }

  /** The join link as a QR code (an SVG Blob), asked for with the seat token.
   * @param {string} id @param {string} token @returns {Promise<Blob>} */
  async joinQr(id, token) {
    return (await this.request('GET', path(id, '/qr.svg'), { token, raw: true })).blob();
  }

  /** The websocket URL of a game. @param {string} id @returns {string} */
  socketUrl(id) {
    const base = this.baseUrl.replace(/^http/, 'ws');
    return `${base}${API}${path(id, '/ws')}`;
  }

  /** Open the live connection of one game (see Connection); it connects at once.
   * @param {string} id @param {string|null} token  null: watch the table view
   * @param {ConnectionOptions} [options] @returns {Connection} */
  connect(id, token, options = {}) {
    const conn = new Connection(this, id, token, options);
    conn.start();
    return conn;
  }
}

/**
 * The live channel of one game (docs/websocket.md): hello with the newest version held, states newer than
 * that only, reconnects with backoff (and at once on `kick()`), resync after a gap, and actions with ack.
 * Callbacks: onState(frame) for each newer state, its `events` filled in over HTTP after a gap when they
 * can be read (else left out); onMessage(frame) for every other frame (presence, rematch, error, ...);
 * onOpen(open) when the channel starts or stops working; onError(err) once when the server ends it for
 * good (bad_token, unknown_game, ...): no more reconnects then.
 */
export class Connection {
  /**
   * @param {Client} client @param {string} id @param {string|null} token  null: watch the table view
   * @param {ConnectionOptions} [options]
   */
  constructor(client, id, token, options = {}) {
    this.client = client;
    this.id = id;
    this.token = token;
    /** The newest version held: states at or below it are dropped. */
    this.version = options.since || 0;
    this.options = { silence: 60000, fillEvents: true, ...options };
    /** @type {WebSocket|null} */
    this.ws = null;
    this.open = false;
    this.stopped = true;
    this.attempt = 0;
    this.wait = 0;
    /** @type {number|null} */
    this.hello = null; // the `since` of the hello whose state has not come yet
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.watchdog = undefined;
    /** @type {Map<string|null, PendingAction>} an error frame's id may be null: nothing is pending under it */
    this.pending = new Map(); // action id -> {message, resolve, reject, tries}
    /** @type {Promise<void>} */
    this.queue = Promise.resolve(); // frames are handed on in order, even while a gap is being filled
  }

  /** @returns {this} */
  start() {
    this.stopped = false;
    this.connect();
    return this;
  }

  /** Close for good. Actions still waiting are rejected with `reason` (by default a NetworkError: they may
   * have been applied; an HTTP read of the game tells). @param {Error} [reason] */
  stop(reason = new NetworkError('connection stopped')) {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
    this.setOpen(false);
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
  }

  /** Reconnect now unless connected (the page became visible, the network came back). */
  kick() {
    if (this.stopped || this.open) return;
    clearTimeout(this.timer);
    this.attempt = 0;
    this.connect();
  }

  /** A version learnt elsewhere (an HTTP answer): states at or below it are no longer news.
   * @param {number} version */
  note(version) {
    if (version > this.version) this.version = version;
  }

  /**
   * Send a move over the socket. Resolves with the ack `{id, version}`; rejects with the ApiError of an
   * `error` frame. The same `id` (the Idempotency-Key) is resent after a reconnect and after a retryable
   * 503, so the move is applied at most once. @param {Action} action @param {number} version
   * @param {{id?: string}} [options] @returns {Promise<AckFrame>}
   */
  act(action, version, { id = uuid() } = {}) {
    return new Promise((resolve, reject) => {
      if (this.stopped) {
        reject(new NetworkError('connection stopped'));
        return;
      }
      /** @type {ActionMessage} */
      const message = { type: 'action', id, version, action };
      this.pending.set(id, { message, resolve, reject, tries: 0 });
      if (this.open) this.send(message); // else sent after the next hello
    });
  }

  /** @param {ClientMessage} message */
  send(message) {
    try {
      /** @type {WebSocket} */ (this.ws).send(JSON.stringify(message));
    } catch {
      // closing: the pending action goes out again after the reconnect
    }
  }

  /** @param {boolean} open */
  setOpen(open) {
    if (this.open === open) return;
    this.open = open;
    if (this.options.onOpen) this.options.onOpen(open);
  }

  connect() {
    const Ws = this.client.WebSocket || globalThis.WebSocket;
    if (this.stopped || !Ws) return; // no websockets here: the caller polls over HTTP
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
    }
    /** @type {WebSocket} */
    let ws;
    try {
      ws = new Ws(this.client.socketUrl(this.id));
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    /** @type {ApiError|null} */
    let fatal = null;
    ws.onopen = () => {
      this.hello = this.version; // the first state after it may be older: the server went back
      this.send({ type: 'hello', token: this.token, since: this.version });
      this.feed();
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      /** @type {ServerMessage} */
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      this.feed();
      if (msg.type === 'error' && !msg.id) {
        // The server ends the socket after this frame: come back later, or never (fatal codes).
        // (invalid_request after the hello's frames answers a bad message and ends nothing.)
        const err = new ApiError(msg.status, msg);
        if (FATAL_CODES.has(msg.code) && (msg.code !== 'invalid_request' || !this.open)) fatal = err;
        else this.wait = (err.retryAfter || 0) * 1000;
        this.deliver(msg);
        return;
      }
      if (!this.open) {
        this.attempt = 0; // a real frame: the server took our hello
        this.setOpen(true);
        for (const p of this.pending.values()) this.send(p.message);
      }
      const since = this.hello;
      this.hello = null; // only the very first frame after a hello can be its state
      if (msg.type === 'state') this.onStateFrame(msg, since);
      else if (msg.type === 'ack' || msg.type === 'error') this.onAnswer(msg);
      else if (msg.type === 'resync') this.reconnect();
      else this.deliver(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      // The close reason is the error's code: enough even if the error frame itself was lost.
      if (!fatal && e.code === 1008 && FATAL_CODES.has(e.reason)) {
        const code = /** @type {ErrorFrame['code']} */ (e.reason);
        fatal = new ApiError(0, { code, detail: `socket closed: 1008 ${e.reason}` });
      }
      this.ws = null;
      clearTimeout(this.watchdog);
      this.setOpen(false);
      if (fatal) {
        this.stop(fatal);
        if (this.options.onError) this.options.onError(fatal);
      } else {
        this.retry();
      }
    };
    ws.onerror = () => {}; // onclose follows and schedules the reconnect
  }

  /** Hand a frame on after the ones before it (a state may be waiting for its events).
   * @param {ServerMessage} msg */
  deliver(msg) {
    this.queue = this.queue.then(() => {
      if (msg.type === 'state' && this.options.onState) this.options.onState(msg);
      else if (msg.type !== 'state' && this.options.onMessage) this.options.onMessage(msg);
    }).catch((err) => console.error(err));
  }

  /** @param {StateFrame} msg @param {number|null} since  the hello's `since` when this is its state */
  onStateFrame(msg, since) {
    if (typeof msg.version !== 'number') return;
    // The hello's state below the `since` sent: the game's store went back (a restored backup). It is the
    // truth now (docs/websocket.md, "Frame order"); everything else at or below the version held is old.
    const rewound = since !== null && msg.version < since;
    if (msg.version <= this.version && !rewound) return;
    const from = rewound ? 0 : this.version;
    this.version = msg.version;
    if (msg.events || !from || !this.options.fillEvents) {
      this.deliver(msg); // one version on with its events, or the first state: nothing to fill in
      return;
    }
    // A gap (the server sends events only to a socket that held the version before): the view is
    // current, the events in between come from the log.
    this.queue = this.queue.then(async () => {
      try {
        const r = await this.client.events(this.id, this.token, from);
        msg.events = r.log.filter((x) => x.version <= msg.version).flatMap((x) => x.events);
      } catch {
        // the view alone still shows the truth
      }
    });
    this.deliver(msg);
  }

  /** @param {AckFrame|ErrorFrame} msg */
  onAnswer(msg) {
    const p = this.pending.get(msg.id);
    if (!p) {
      this.deliver(msg);
      return;
    }
    if (msg.type === 'error' && RETRY_CODES.has(msg.code) && p.tries < this.client.retries) {
      // Maybe applied, or nothing changed: the same id again says which, applying it at most once.
      const delay = Math.max(backoff(p.tries), (msg.retry_after || 0) * 1000);
      p.tries += 1;
      setTimeout(() => {
        if (this.pending.get(msg.id) === p && this.open) this.send(p.message);
      }, delay);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.type === 'ack') p.resolve(msg);
    else p.reject(new ApiError(msg.status, msg));
  }

  feed() {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.reconnect(), this.options.silence);
  }

  /** Drop this socket now and schedule the next one (a resync frame, or silence for too long: a dead
   * network may never finish the closing handshake, so onclose is not waited for). */
  reconnect() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    ws.onclose = null;
    ws.close(4000);
    clearTimeout(this.watchdog);
    this.setOpen(false);
    this.retry();
  }

  retry() {
    if (this.stopped) return;
    const delay = Math.max(this.wait, backoff(this.attempt));
    this.attempt += 1;
    this.wait = 0;
    this.timer = setTimeout(() => this.connect(), delay);
  }
}
