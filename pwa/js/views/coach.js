// "Learn by playing": the coach of a tutorial game (created from "How to play"). This part is in every
// first load, so it only checks whether the game on screen is a tutorial; the coach itself
// (views/coachcard.js) and its texts are fetched then.

import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import * as store from '../store.js';

export function Coach({ id, s }) {
  const rec = store.game(id);
  const on = Boolean(rec && rec.tutorial && !(rec.coach && rec.coach.done) && s.view && s.seat !== null);
  const [Card, setCard] = useState(null);
  useEffect(() => {
    if (on && !Card) import('./coachcard.js').then((m) => setCard(() => m.CoachCard), () => {});
  }, [on]);
  return on && Card ? html`<${Card} id=${id} s=${s} />` : null;
}
