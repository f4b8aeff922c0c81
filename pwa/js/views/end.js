// End of game, as an overlay over whatever was on screen: who won and why (a tie goes to the Mafia),
// where every score came from (coins before the final harvest + what it paid), the solo streak, and
// "Play again". In a duo game the other phone learns of the next game over the socket (or from the old
// game's answer after a reload) and joins it with one tap. The overlay folds into a bar to look at the
// final table.

import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { nameOf } from '../names.js';
import * as store from '../store.js';

/**
 * The score lines from view.result: [{who, before, final, total}] for the players, then the Mafia.
 * `final` is what the final harvest added; without the server's breakdown only totals are known.
 */
export function breakdown(result, mode) {
  const b = result.breakdown || null;
  const players = result.scores.map((total, i) => {
    const p = b && b.players && b.players[i];
    return { seat: i, total, before: p ? p.coins_before : null, final: p ? p.final_harvest : null };
  });
  const m = b && b.mafia;
  const mafia = {
    total: result.mafia,
    before: m ? m.treasury_before : null,
    final: m ? m.final_harvest : null,
    // Solo: the treasury counts double (the rules); the server says so with `factor`.
    doubled: m && m.factor ? m.factor > 1 : mode === 'solo',
    factor: m && m.factor ? m.factor : (mode === 'solo' ? 2 : 1),
  };
  return { players, mafia };
}

/** Did the Mafia win only because a tie goes to it? (The server says so; older answers: compute.) */
export function tieToMafia(result) {
  if (typeof result.tie_to_mafia === 'boolean') return result.tie_to_mafia;
  return result.winners.includes('mafia') && Math.max(...result.scores) === result.mafia;
}

export function winnerText(result, seat, mode, hotseat, seats) {
  const w = result.winners;
  if (w.includes('mafia')) return t('end.win.mafia');
  if (mode === 'solo') return t('end.win.you');
  if (w.length > 1) return t('end.win.both');
  if (w[0] === seat && !hotseat) return t('end.win.you');
  return t('social.end.wins', { name: nameOf(w[0], seats) });
}

/** One sentence: why this is the result. */
export function whyText(result, mode, seats, seat, hotseat) {
  const best = Math.max(...result.scores);
  const mafia = result.mafia;
  if (tieToMafia(result)) return t('social.end.why.tie', { n: best });
  if (result.winners.includes('mafia')) {
    return t(mode === 'solo' ? 'social.end.why.mafia_solo' : 'social.end.why.mafia', { n: mafia, best });
  }
  if (mode === 'solo') return t('social.end.why.you', { n: best, mafia });
  if (result.winners.length > 1) return t('social.end.why.both', { n: best, mafia });
  return t(result.winners[0] === seat && !hotseat ? 'social.end.why.you' : 'social.end.why.seat',
    { name: nameOf(result.winners[0], seats), n: best, mafia });
}

const num = (x) => (x === null || x === undefined ? '–' : String(x));
const plus = (x) => (x === null || x === undefined ? '–' : `+${x}`);

function Scores({ view, s, hotseat }) {
  const r = view.result;
  const { players, mafia } = breakdown(r, view.mode);
  return html`<table class="end-scores">
    <caption class="sr-only">${t('social.end.caption')}</caption>
    <thead><tr><th scope="col"><span class="sr-only">${t('social.end.col.who')}</span></th>
      <th scope="col">${t('social.end.col.before')}</th><th scope="col">${t('social.end.col.final')}</th>
      <th scope="col">${t('social.end.col.total')}</th></tr></thead>
    <tbody>
      ${players.map((p) => html`<tr data-score=${p.seat} class=${r.winners.includes(p.seat) ? 'won' : ''}>
        <th scope="row" class="pname">${nameOf(p.seat, s.seats, s.seat, hotseat)}</th>
        <td>${num(p.before)}</td><td>${plus(p.final)}</td><td class="total">${p.total}</td></tr>`)}
      <tr data-score="mafia" class=${r.winners.includes('mafia') ? 'won' : ''}>
        <th scope="row">${t('table.mafia')}</th>
        <td>${num(mafia.before)}</td><td>${plus(mafia.final)}</td>
        <td class="total">${mafia.doubled && mafia.before !== null && mafia.final !== null
          ? t('social.end.doubled', { sum: mafia.before + mafia.final, factor: mafia.factor, n: mafia.total }) : mafia.total}</td></tr>
    </tbody>
  </table>
  ${mafia.doubled ? html`<p class="hint">${t('social.end.solo_double')}</p>` : null}`;
}

export function End({ id, s, streak, onRematch, onHome, hotseat }) {
  const view = s.truth; // the server's final view (with its result), whatever the board shows
  const r = view.result;
  const [open, setOpen] = useState(true);
  const [asked, setAsked] = useState(false);
  const box = useRef(null);
  const offer = Boolean(s.rematch) && s.seat !== null;
  const other = s.seats.find((x) => x.seat !== s.seat);
  const otherName = other ? nameOf(other.seat, s.seats) : '';
  // This device has seen the result: its start screen lists the game among the finished ones, no longer
  // among the unfinished (the seats' tokens stay until the end is put away: a rematch needs them).
  useEffect(() => {
    if (id && s.seat !== null && store.game(id)) store.saveGame(id, { over: true });
  }, [id]);
  // The other phone started the next game: bring the overlay back, wherever this player was looking.
  useEffect(() => { if (s.rematch) setOpen(true); }, [s.rematch]);
  // A layout effect: the overlay takes the focus and Escape as soon as it is drawn (a plain effect
  // runs only after the next paint, and an Escape pressed before that was lost).
  useLayoutEffect(() => {
    if (!open) return undefined;
    if (box.current) box.current.focus({ preventScroll: true });
    // Escape folds the overlay, wherever the focus is (it may still be on the button that opened it).
    const onKey = (e) => { if (e.key === 'Escape') setOpen(false); };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  const again = () => {
    setAsked(true);
    onRematch();
  };
  if (!open) {
    return html`<div class="end-bar" role="region" aria-label=${t('end.title')}>
      <span class="winner" data-winner=${r.winners.join(',')}>${winnerText(r, s.seat, view.mode, hotseat, s.seats)}</span>
      <button type="button" class="primary" data-end="show" onClick=${() => setOpen(true)}>${t('social.end.show')}</button>
    </div>`;
  }
  return html`<div class="end-overlay">
    <section class="end" role="dialog" aria-modal="true" aria-labelledby="end-title" tabindex="-1" ref=${box}>
      <h2 id="end-title">${t('end.title')}</h2>
      <p class="winner" data-winner=${r.winners.join(',')}>${winnerText(r, s.seat, view.mode, hotseat, s.seats)}</p>
      <p class="why" data-tie=${tieToMafia(r) ? '1' : '0'}>${whyText(r, view.mode, s.seats, s.seat, hotseat)}</p>
      <${Scores} view=${view} s=${s} hotseat=${hotseat} />
      ${streak ? html`<p class="streak">${t('end.streak', streak)}</p>` : null}
      ${offer ? html`<p class="rematch-offer" role="status">${t('social.rematch.offer', { name: otherName })}</p>` : null}
      ${s.seat !== null ? html`<div class="row">
        <button type="button" class="primary" data-end=${offer ? 'join-rematch' : 'rematch'} disabled=${asked}
          onClick=${again}>${offer ? t('social.rematch.join') : t('end.rematch')}</button>
        <button type="button" data-end="home" onClick=${onHome}>${t('end.home')}</button>
      </div>` : null}
      ${s.seat === null && s.rematch ? html`<p><a class="button primary" href=${`#watch=${s.rematch}`}
        data-end="watch-next">${t('social.rematch.watch')}</a></p>` : null}
      <button type="button" class="link" data-end="table" onClick=${() => setOpen(false)}>${t('social.end.table')}</button>
    </section>
  </div>`;
}
