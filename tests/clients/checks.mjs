// The JavaScript client's promises, checked against a live server (run by tests/clients/test_js_client.py
// with the server's address as the only argument). Prints one JSON object per check: {check, ok, ...}.
// Exits 1 if any check failed or threw.

import { ApiError, Client, NetworkError, isRetryable, uuid } from '../../pwa/js/client.js';

const server = process.argv[2];
const client = new Client({ baseUrl: server });
let failed = false;

async function check(name, fn) {
  try {
    const facts = await fn();
    const ok = Object.values(facts).every((v) => v === true);
    if (!ok) failed = true;
    console.log(JSON.stringify({ check: name, ok, ...facts }));
  } catch (err) {
    failed = true;
    console.log(JSON.stringify({ check: name, ok: false, threw: `${err.name}: ${err.message}` }));
  }
}

/** Resolve with the first value of `list` (filled by callbacks) that matches, waiting as long as it takes. */
function when(list, match) {
  return new Promise((resolve) => {
    const look = () => {
      const hit = list.find(match);
      if (hit) resolve(hit);
      else setTimeout(look, 10);
    };
    look();
  });
}

await check('problems become ApiError with code, status, detail and the problem', async () => {
  const g = await client.createGame({ mode: 'solo' });
  const illegal = await client.act(g.game_id, g.token, { type: 'pay', field: 0 }, g.version).catch((e) => e);
  const stale = await client.act(g.game_id, g.token, g.view.legal_actions[0], g.version + 7).catch((e) => e);
  const unknown = await client.getGame('no-such-game').catch((e) => e);
  return {
    illegal: illegal instanceof ApiError && illegal.status === 422 && illegal.code === 'illegal_action'
      && /^R\d+/.test(illegal.detail) && illegal.message === illegal.detail,
    stale: stale instanceof ApiError && stale.code === 'stale_version' && stale.problem.version === g.version
      && typeof stale.problem.view === 'object' && !isRetryable(stale),
    unknown: unknown instanceof ApiError && unknown.status === 404 && unknown.code === 'unknown_game',
  };
});

await check('no answer is a NetworkError, retryable', async () => {
  const dead = new Client({ baseUrl: 'http://127.0.0.1:9', timeout: 2000 });
  const err = await dead.getGame('x').catch((e) => e);
  return { network: err instanceof NetworkError && isRetryable(err) };
});

await check('act resends the same Idempotency-Key when the answer is lost: applied once', async () => {
  const g = await client.createGame({ mode: 'solo' });
  // A fetch that delivers the request but loses the first answer, as a dropped connection would.
  const keys = [];
  const lossy = new Client({
    baseUrl: server,
    fetch: async (url, init) => {
      const resp = await fetch(url, init);
      if (url.endsWith('/actions')) {
        keys.push(init.headers['Idempotency-Key']);
        if (keys.length === 1) throw new TypeError('fetch failed');
      }
      return resp;
    },
  });
  const answer = await lossy.act(g.game_id, g.token, g.view.legal_actions[0], g.version);
  const after = await client.getGame(g.game_id, g.token);
  return {
    resent: keys.length === 2 && keys[0] === keys[1] && keys[0].length === 36,
    once: answer.version === g.version + 1 && after.version === g.version + 1,
  };
});

await check('a gap: the state is handed on with the events in between, read over HTTP', async () => {
  const g = await client.createGame({ mode: 'solo' });
  let a = g;
  for (let i = 0; i < 3; i += 1) a = await client.act(g.game_id, g.token, a.view.legal_actions[0], a.version);
  const states = [];
  const conn = client.connect(g.game_id, g.token, { since: g.version, onState: (f) => states.push(f) });
  const first = await when(states, () => true);
  conn.stop();
  const { log } = await client.events(g.game_id, g.token, g.version);
  return {
    current: first.version === a.version,
    events: JSON.stringify(first.events) === JSON.stringify(log.flatMap((x) => x.events)) && log.length === 3,
  };
});

/** A WebSocket that delivers every frame twice, as a confused proxy might: the client must drop the copies. */
class Twice {
  constructor(url) {
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = (e) => this.onopen && this.onopen(e);
    ws.onclose = (e) => this.onclose && this.onclose(e);
    ws.onerror = (e) => this.onerror && this.onerror(e);
    ws.onmessage = (e) => {
      if (this.onmessage) this.onmessage(e);
      if (this.onmessage && JSON.parse(e.data).type === 'state') this.onmessage({ data: e.data });
    };
  }

  send(data) {
    this.ws.send(data);
  }

  close(code) {
    this.ws.close(code);
  }
}

await check('states at or below the version held are dropped, also after a reconnect', async () => {
  const g = await client.createGame({ mode: 'solo' });
  const states = [];
  const opens = [];
  const conn = new Client({ baseUrl: server, WebSocket: Twice }).connect(g.game_id, g.token, {
    onState: (f) => states.push(f), onOpen: (open) => opens.push(open),
  });
  await when(states, (f) => f.version === g.version);
  const ack = await conn.act(g.view.legal_actions[0], g.version);
  await when(states, (f) => f.version === ack.version);
  conn.reconnect(); // as after a drop: hello again with the version held
  await when(opens, (o, i) => o && i >= 2);
  const b = await client.getGame(g.game_id, g.token);
  const next = await client.act(g.game_id, g.token, b.view.legal_actions[0], b.version);
  await when(states, (f) => f.version === next.version);
  conn.stop();
  const versions = states.map((f) => f.version);
  return {
    inOrderOnce: JSON.stringify(versions) === JSON.stringify([g.version, ack.version, next.version]),
    reconnected: JSON.stringify(opens.slice(0, 3)) === '[true,false,true]',
    eventsOneOn: Array.isArray(states[1].events) && Array.isArray(states[2].events),
  };
});

await check('an action resent on the socket with the same id is acked once, not applied twice', async () => {
  const g = await client.createGame({ mode: 'solo' });
  const conn = client.connect(g.game_id, g.token, {});
  const id = uuid();
  const first = await conn.act(g.view.legal_actions[0], g.version, { id });
  const again = await conn.act(g.view.legal_actions[0], g.version, { id });
  const refused = await conn.act(g.view.legal_actions[0], g.version).catch((e) => e);
  conn.stop();
  const after = await client.getGame(g.game_id, g.token);
  return {
    ack: first.version === g.version + 1 && again.version === first.version,
    once: after.version === g.version + 1,
    staleIsApiError: refused instanceof ApiError && refused.code === 'stale_version',
  };
});

await check('silence for longer than `silence` replaces the socket, which says hello with the version held', async () => {
  const g = await client.createGame({ mode: 'solo' });
  const states = [];
  const opens = [];
  // The server's keepalive comes after its ping interval (2 s in tests/clients): 1 s of silence comes first.
  const conn = client.connect(g.game_id, g.token, {
    silence: 1000, onState: (f) => states.push(f), onOpen: (open) => opens.push(open),
  });
  await when(opens, (o, i) => o && i >= 2);
  conn.stop();
  return {
    replaced: JSON.stringify(opens.slice(0, 3)) === '[true,false,true]',
    noRepeat: states.length === 1 && states[0].version === g.version,
  };
});

await check('a socket ended for good (bad token) calls onError once and stops reconnecting', async () => {
  const g = await client.createGame({ mode: 'solo' });
  const errors = [];
  const conn = client.connect(g.game_id, 'not-the-token-of-this-game', { onError: (e) => errors.push(e) });
  const err = await when(errors, () => true);
  return { code: err instanceof ApiError && err.code === 'bad_token', stopped: conn.stopped && conn.ws === null };
});

await check('a watcher (no token) follows the table view and may not act', async () => {
  const g = await client.createGame({ mode: 'solo' });
  const states = [];
  const conn = client.connect(g.game_id, null, { onState: (f) => states.push(f) });
  const first = await when(states, () => true);
  const refused = await conn.act(g.view.legal_actions[0], g.version).catch((e) => e);
  conn.stop();
  return {
    table: first.view.seat === null && first.view.players.every((p) => p.hand === null),
    refused: refused instanceof ApiError && refused.code === 'bad_token',
  };
});

await check('hint, record, rematch and transfer', async () => {
  const g = await client.createGame({ mode: 'duo' });
  const guest = await client.join(g.join_code, { name: 'Bo' });
  const active = [g, guest].find((s) => s.seat === guest.view.active);
  const hint = await client.hint(g.game_id, active.token);
  const early = await client.record(g.game_id).catch((e) => e);
  const early2 = await client.rematch(g.game_id, g.token).catch((e) => e);
  const t = await client.transfer(g.game_id, g.token);
  const moved = await client.join(t.transfer_code);
  const old = await client.getGame(g.game_id, g.token).catch((e) => e);
  const qr = await client.joinQr(g.game_id, moved.token).catch((e) => e);
  return {
    hint: hint.seat === active.seat && typeof hint.action.type === 'string',
    notOver: early.code === 'game_not_over' && early2.code === 'game_not_over',
    transferred: moved.seat === 0 && old instanceof ApiError && old.code === 'bad_token',
    qr: qr instanceof ApiError && qr.status === 404, // no free seat: nothing to join
  };
});

process.exit(failed ? 1 : 0);
