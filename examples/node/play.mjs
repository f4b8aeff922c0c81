// Plays one complete game against an Al Cabohne Online server using only the official JavaScript client
// (pwa/js/client.js), choosing every move at random from the view's legal actions.
//
//   node examples/node/play.mjs [--server http://127.0.0.1:8000] [--mode duo|solo] [--seed 1]
//
// Node 22+ has a global WebSocket; Node 20 needs --experimental-websocket (node --experimental-websocket
// examples/node/play.mjs ...). Duo: the script creates the game (seat 0), joins it with the join code (seat 1)
// and plays both seats: seat 0 follows the game over the live socket and moves over it, seat 1 moves over HTTP
// with an Idempotency-Key per move. Solo: one seat over HTTP. Prints a short summary, the last line as JSON;
// exits 0 once the game is over, 1 on any error.

import { parseArgs } from 'node:util';
import { ApiError, Client } from '../../pwa/js/client.js';

const { values: args } = parseArgs({
  options: { server: { type: 'string', default: 'http://127.0.0.1:8000' },
    mode: { type: 'string', default: 'duo' }, seed: { type: 'string', default: '1' } },
});
const { server, mode } = args;
let seed = Number(args.seed) >>> 0;

/** A small seeded generator (mulberry32), so a seed gives the same choices against the same deal. */
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (view) => view.legal_actions[Math.floor(random() * view.legal_actions.length)];

const client = new Client({ baseUrl: server });
const counts = { http: 0, socket: 0, followed: 0 };
const states = []; // versions of the states seat 0's socket delivered
const acked = new Set(); // versions seat 0's own moves made

/** Play the seat of `grant` over HTTP until it is no longer its turn; return the last answer. */
async function playHttp(grant, answer) {
  let g = answer || (await client.getGame(grant.game_id, grant.token));
  while (g.view.phase !== 'over' && g.view.active === grant.seat) {
    try {
      g = await client.act(grant.game_id, grant.token, pick(g.view), g.version);
      counts.http += 1;
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'stale_version') throw err;
      g = await client.getGame(grant.game_id, grant.token); // the game moved on: look again
    }
  }
  return g;
}

async function solo() {
  const grant = await client.createGame({ mode: 'solo', name: 'Node' });
  const g = await playHttp(grant, grant);
  return { id: grant.game_id, version: g.version, view: g.view };
}

async function duo() {
  const host = await client.createGame({ mode: 'duo', name: 'Node host' });
  const guest = await client.join(host.join_code, { name: 'Node guest' });
  const id = host.game_id;
  // Seat 0's socket: every state, its own moves' and seat 1's, arrives here in version order.
  let latest = null;
  let wake = null;
  let failed = null;
  const live = client.connect(id, host.token, {
    onState: (frame) => {
      latest = frame;
      states.push(frame.version);
      if (wake) wake();
    },
    onError: (err) => {
      failed = err;
      if (wake) wake();
    },
  });
  const newer = (v) => new Promise((resolve) => {
    wake = () => {
      if (failed || (latest && latest.version > v)) resolve();
    };
    wake();
  });
  try {
    let seen = 0;
    for (;;) {
      await newer(seen);
      if (failed) throw failed;
      const { version, view } = latest;
      seen = version;
      if (view.phase === 'over') return { id, version, view };
      if (view.active === host.seat) {
        const ack = await live.act(pick(view), version); // the state of the move follows on the socket
        acked.add(ack.version);
        counts.socket += 1;
      } else {
        const g = await playHttp(guest);
        seen = g.version - 1; // go on once the socket has caught up with seat 1's last move
      }
    }
  } finally {
    live.stop();
    counts.followed = states.filter((v) => !acked.has(v)).length; // seat 1's moves, seen live by seat 0
  }
}

const started = performance.now();
try {
  const { id, version, view } = await (mode === 'solo' ? solo() : duo());
  const seconds = (performance.now() - started) / 1000;
  const r = view.result;
  console.log(`${mode} game ${id} over at version ${version} after ${seconds.toFixed(2)} s`);
  console.log(`moves: ${counts.socket} over the socket, ${counts.http} over HTTP`
    + (mode === 'duo' ? `; seat 0's socket followed ${counts.followed} states of seat 1's moves` : ''));
  console.log(`scores ${r.scores.join(', ')}; Mafia ${r.mafia}; winners: ${r.winners.join(', ')}`);
  console.log(JSON.stringify({ mode, game_id: id, version, moves: counts, seconds, result: r }));
} catch (err) {
  console.error(`failed: ${err.name} ${err.code || ''} ${err.message}`);
  process.exit(1);
}
