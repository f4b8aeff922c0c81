// Reads seats' views (one JSON object a line: {id, view}) from stdin and prints, one JSON line each,
// every move of several steps the phone offers at that view ({id, chains: [[move, move, ...], ...]}):
// "harvest + plant" on a field for the front card or for any bundle that can be picked
// (pwa/js/targets.js). The test makes each chain in the engine, move after move.
import { createInterface } from 'node:readline';
import { targets, actKey } from '../../pwa/js/targets.js';

function unchain(a) {
  const out = [];
  for (let x = a; x; x = x.then) out.push({ ...x, then: undefined });
  return out.map((m) => JSON.parse(JSON.stringify(m)));
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const { id, view } = JSON.parse(line);
  const legal = view.legal_actions;
  const seen = new Map();
  const picks = [null, ...[...targets(legal, null, view).bundles].map((bean) => ({ kind: 'bundle', bean }))];
  for (const sel of picks) {
    const tg = targets(legal, sel, view);
    for (const a of [...Object.values(tg.fields).flat(), ...tg.buttons]) { // any button that chains
      if (a.then) seen.set(actKey(a), unchain(a));
    }
  }
  process.stdout.write(`${JSON.stringify({ id, chains: [...seen.values()] })}\n`);
}
