// Code written against the official JavaScript client (pwa/js/client.js), never run: tsc --noEmit --checkJs
// --strict (tsconfig.jsdoc.json) checks it with the client's JSDoc types, which come from the served
// documents (pwa/js/api-types.d.ts), in tests/clients/test_js_types.py. Every public method is called; the
// line after each `@ts-expect-error` must be a type error (an untyped parameter or answer would let it
// pass, and tsc fails on an unused `@ts-expect-error`).
import { ApiError, Client, Connection, NetworkError, isRetryable, uuid } from '../../../pwa/js/client.js';

/** @typedef {import('../../../pwa/js/client.js').Action} Action */
/** @typedef {import('../../../pwa/js/client.js').Event} GameEvent */
/** @typedef {import('../../../pwa/js/client.js').View} View */

const client = new Client({ baseUrl: 'http://127.0.0.1:8000', timeout: 5000, retries: 2 });
// @ts-expect-error: the options are typed
new Client({ retries: 'twice' });

/** @param {GameEvent[]} events @returns {number} the coins the events name */
function coins(events) {
  let sum = 0;
  for (const event of events) {
    // The union narrows on `type`: each branch has exactly its own fields.
    if (event.type === 'harvest' || event.type === 'boss_harvest') sum += event.coins;
    // @ts-expect-error: a reveal has no coins
    if (event.type === 'reveal') sum += event.coins;
  }
  return sum;
}

/** @param {View} view @returns {Action|undefined} */
const first = (view) => view.legal_actions[0];

export async function play() {
  const game = await client.createGame({ mode: 'duo', name: 'Ada', bot: 'greedy', dealer: 1 });
  /** @type {string} */
  const token = game.token;
  /** @type {string|null} */
  const code = game.join_code;
  /** @type {number|null} */
  const seat = game.seat;
  // @ts-expect-error: a mode the server does not know
  await client.createGame({ mode: 'trio' });
  // @ts-expect-error: the answer is typed
  game.coins.toFixed();

  const guest = await client.join(code ?? '', { name: 'Bob' });
  /** @type {string} */
  const guestToken = guest.token;
  // @ts-expect-error: a join code is a string
  await client.join(123456);

  const seen = await client.getGame(game.game_id, token);
  /** @type {number} */
  const deck = seen.view.deck_size;
  /** @type {'duo'|'solo'} */
  const mode = seen.view.mode;
  // @ts-expect-error: the discard pile may be empty (null)
  seen.view.discard_top.length;
  const table = await client.getGame(game.game_id);
  /** @type {null|undefined|number} */
  const noSeat = table.seat;

  const action = first(seen.view);
  if (action) {
    const moved = await client.act(game.game_id, token, action, seen.version, { key: uuid(), retries: 0 });
    /** @type {number} */
    const total = coins(moved.events);
    // @ts-expect-error: an action is one of the protocol's, with exactly its fields
    await client.act(game.game_id, token, { type: 'plant', field: 'left' }, moved.version);
    console.log(total);
  }

  const log = await client.events(game.game_id, token, 1);
  for (const entry of log.log) coins(entry.events);
  // @ts-expect-error: `since` is a version
  await client.events(game.game_id, token, 'start');

  const hint = await client.hint(game.game_id, guestToken);
  /** @type {Action} */
  const suggested = hint.action;
  const record = await client.record(game.game_id, null);
  /** @type {number} */
  const seed = record.seed;
  const next = await client.rematch(game.game_id, token);
  /** @type {string} */
  const nextToken = next.token;
  const transfer = await client.transfer(game.game_id, token);
  /** @type {string} */
  const transferCode = transfer.transfer_code;
  /** @type {Blob} */
  const qr = await client.joinQr(game.game_id, token);
  /** @type {Response} */
  const raw = await client.request('GET', '/health', { raw: true });
  console.log(deck, mode, noSeat, seat, suggested, seed, nextToken, transferCode, qr, raw);

  try {
    await client.act(game.game_id, token, suggested, hint.version);
  } catch (err) {
    if (err instanceof ApiError) {
      /** @type {string|undefined} */
      const why = err.code;
      /** @type {number|null} */
      const wait = err.retryAfter;
      /** @type {number|undefined} */
      const current = err.problem.version;
      console.log(why, wait, current);
    } else if (err instanceof NetworkError && isRetryable(err)) {
      console.log(err.message);
    }
  }
}

/** @returns {Connection} */
export function follow() {
  /** @type {Connection} */
  const live = client.connect('game', 'token', {
    since: 3,
    onState: (frame) => {
      /** @type {number} */
      const version = frame.version;
      /** @type {View} */
      const view = frame.view;
      coins(frame.events ?? []);
      console.log(version, view, frame.seats?.map((s) => s.name));
    },
    onMessage: (frame) => {
      if (frame.type === 'presence') console.log(frame.seats.map((s) => s.online));
      else if (frame.type === 'rematch') console.log(frame.game_id);
      // @ts-expect-error: states go to onState
      else if (frame.type === 'state') console.log(frame.view);
    },
    onOpen: (open) => console.log(open),
    onError: (err) => console.log(err.code),
    silence: 30000,
    fillEvents: false,
  });
  live.note(4);
  live.kick();
  live.act({ type: 'end_phase' }, 4, { id: uuid() }).then((ack) => {
    /** @type {number} */
    const version = ack.version;
    console.log(version, ack.id);
  });
  // @ts-expect-error: an action needs the version it was chosen at
  live.act({ type: 'end_phase' });
  live.stop();
  return live.start();
}
