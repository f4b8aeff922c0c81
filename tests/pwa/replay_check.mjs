// Reads games (one JSON object a line: {mode, seed, seat, views: [view per version], events: [events
// per version, as the seat receives them]}) from stdin and replays every step with pwa/js/replay.js and
// pwa/js/present.js, as the phone does: from each view with the next version's events (and with the
// events of a few versions at once, as after a gap), the board must end exactly at the server's view.
// Prints one JSON line: {games, checked, bad: [...first disagreements], overBoards}.
import { createInterface } from 'node:readline';
import { step, agrees } from '../../pwa/js/replay.js';
import { framesOf } from '../../pwa/js/present.js';

const bad = [];
let games = 0;
let checked = 0;
let overBoards = 0; // boards in phase "over" without a result: must stay 0

function replay(from, events, to) {
  let v = from;
  events.forEach((e, k) => {
    v = step(v, e, events.slice(k + 1), to);
    if (v.phase === 'over' && !v.result) overBoards += 1;
  });
  return v;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const g = JSON.parse(line);
  games += 1;
  const { views, events } = g;
  for (let i = 0; i + 1 < views.length; i += 1) {
    // One version after the other, and spans of 2..6 versions (a phone that was behind).
    for (const span of [1, 2 + (i % 5)]) {
      const j = Math.min(views.length - 1, i + span);
      if (span > 1 && j === i + 1) continue;
      const evs = events.slice(i + 1, j + 1).flat();
      const end = replay(views[i], evs, views[j]);
      checked += 1;
      const frames = framesOf(views[i], views[j], evs);
      if (!agrees(end, views[j]) || !frames) {
        if (bad.length < 5) {
          bad.push({ mode: g.mode, seed: g.seed, seat: g.seat, from: i, to: j, events: evs.map((e) => e.type) });
        }
      }
    }
  }
}
console.log(JSON.stringify({ games, checked, bad, overBoards }));
