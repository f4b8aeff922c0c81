// Following the game: the History drawer (the whole game from the server's log, the same on every
// phone), the "While you were away" summary at the start of your turn (the table shows it), the offer
// of a notification while you wait (in the dock, under the prompt), and the turn-cue settings. Also
// hands the session its stage (the card animations).

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t } from '../i18n.js';
import * as store from '../store.js';
import * as cues from '../cues.js';
import { history, away, phaseName, turns } from '../history.js';
import { stage } from '../fly.js';
import { seatName } from '../names.js';

// Whether the drawer is open: shared by the top-bar button and the drawer itself.
const drawer = { open: false, subs: new Set() };
function setOpen(open) {
  drawer.open = open;
  for (const fn of drawer.subs) fn(open);
}
function useDrawer() {
  const [open, set] = useState(drawer.open);
  useEffect(() => {
    drawer.subs.add(set);
    return () => drawer.subs.delete(set);
  }, []);
  return open;
}

/** The top-bar button that opens the history. */
export function HistoryButton() {
  const open = useDrawer();
  return html`<button type="button" class="link hist-open" data-follow="history" aria-haspopup="dialog"
    aria-expanded=${open ? 'true' : 'false'} onClick=${() => setOpen(!open)}>${t('hist.open')}</button>`;
}

/** The turns, newest first: each a heading and its phases with their lines. */
export function HistoryList({ log, limit }) {
  const turns = useMemo(() => history(log), [log]);
  if (!turns.length) return html`<p class="empty">${t('hist.empty')}</p>`;
  return html`<ol class="history" data-follow="turns">${(limit ? turns.slice(0, limit) : turns).map((turn) => html`
    <li class="hist-turn" data-turn=${turn.n}>
      <h3>${t('hist.turn', { n: turn.n, who: turn.who })}</h3>
      ${turn.phases.length ? html`<dl>${turn.phases.map((p) => html`<dt>${phaseName(p.phase)}</dt>
        <dd><ul>${p.lines.map((l) => html`<li>${l}</li>`)}</ul></dd>`)}</dl>`
        : html`<p class="hint">${t('hist.now')}</p>`}
    </li>`)}</ol>`;
}

function CueSettings() {
  const [sound, setSound] = useState(cues.soundOn());
  const [perm, setPerm] = useState(cues.notifyState());
  return html`<section class="cue-settings" aria-labelledby="cue-title">
    <h3 id="cue-title">${t('cue.title')}</h3>
    <label class="check"><input type="checkbox" data-follow="sound" checked=${sound}
      onChange=${(ev) => { cues.setSound(ev.currentTarget.checked); setSound(ev.currentTarget.checked); }} />
      ${t('cue.sound')}</label>
    ${perm === 'default' ? html`<p><button type="button" data-follow="notify-ask"
        onClick=${async () => setPerm(await cues.askNotify())}>${t('cue.notify.ask')}</button></p>`
      : html`<p class="hint" data-follow="notify-state">${t(`cue.notify.${perm}`)}</p>`}
  </section>`;
}

function Drawer({ s, watch }) {
  const close = useRef(null);
  const box = useRef(null);
  // Layout effects: the dialog takes the focus and Escape as soon as it is drawn, not a frame later.
  useLayoutEffect(() => {
    const opener = document.activeElement;
    if (close.current) close.current.focus();
    const onKey = (ev) => {
      if (ev.key === 'Escape') setOpen(false);
      else if (ev.key === 'Tab' && box.current) {
        // A modal dialog keeps the keyboard inside: Tab past the last control comes back to the first.
        const all = box.current.querySelectorAll('button, input, a[href]');
        const first = all[0];
        const last = all[all.length - 1];
        if (ev.shiftKey && document.activeElement === first) {
          ev.preventDefault();
          last.focus();
        } else if (!ev.shiftKey && document.activeElement === last) {
          ev.preventDefault();
          first.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (opener && opener.isConnected) opener.focus({ preventScroll: true });
    };
  }, []);
  const complete = s.logVersion >= s.version;
  return html`<div class="follow-backdrop" onClick=${() => setOpen(false)}></div>
    <section class="drawer" role="dialog" aria-modal="true" aria-labelledby="hist-title" data-follow="drawer"
      ref=${box}>
      <header class="drawer-head">
        <h2 id="hist-title">${t('hist.title')}</h2>
        <button type="button" ref=${close} onClick=${() => setOpen(false)}>${t('hist.close')}</button>
      </header>
      ${watch ? null : html`<${CueSettings} />`}
      ${complete || s.log.length ? html`<${HistoryList} log=${s.log} />` : html`<p>${t('loading')}</p>`}
    </section>`;
}

// Per game, in the tab's session (a reload keeps them, unlike the page's memory): the turn (its first
// version) whose summary the player put away, so that neither a re-render, the history drawer nor a
// reload brings it back; and the summary shown at this turn's start, since after a move the client
// made by itself the log no longer gives it (history.js away), yet a reload must show it again.
const awayClosed = inSession('alc.awayClosed');
const awayShown = inSession('alc.awayShown');

function inSession(prefix) {
  return {
    get(id) {
      try {
        return JSON.parse(sessionStorage.getItem(`${prefix}.${id}`));
      } catch {
        return null; // storage off: nothing kept, as in a page's life without it
      }
    },
    set(id, value) {
      try {
        sessionStorage.setItem(`${prefix}.${id}`, JSON.stringify(value));
      } catch {
        // storage off: nothing kept
      }
    },
  };
}

/**
 * At the start of your turn in a two-player game: what the other player and the Mafia did, or null.
 * It lies in the free space between the board and the hand (never over a target), so it costs no tap.
 * It stays through a move the client makes by itself and goes at the player's first move (a tap on an
 * action), with its close button, or with Escape. A reload before that shows it again.
 */
export function useAway(id, s, { watch, hotseat }) {
  const [, redraw] = useState(0);
  const kept = useRef(null);
  const view = s.view;
  const duo = Boolean(view) && view.mode === 'duo' && !hotseat && !watch && s.seat !== null;
  const seated = s.seats.length > 0 && s.seats.every((x) => x.taken);
  const mine = duo && seated && view.phase !== 'over' && view.active === s.seat;
  const ready = mine && !s.busy && s.logVersion >= s.version;
  const fresh = useMemo(() => (ready ? away(s.log, s.seat) : null), [ready, s.log, s.seat]);
  // The turn being played (its first version names it, whatever part of the log this page holds).
  const now = useMemo(() => (ready && !fresh ? turns(s.log).at(-1) : null), [ready, fresh, s.log]);
  if (!mine) kept.current = null;
  else if (fresh) {
    if (!kept.current || kept.current.version !== fresh.version) awayShown.set(id, fresh);
    kept.current = fresh;
  } else if (!kept.current && now && now.seat === s.seat) {
    const shown = awayShown.get(id);
    if (shown && shown.version === now.version) kept.current = shown;
  }
  const a = kept.current && awayClosed.get(id) !== kept.current.version ? kept.current : null;
  const turn = a ? a.version : null;
  useEffect(() => {
    if (turn === null) return undefined;
    const close = () => { awayClosed.set(id, turn); redraw((n) => n + 1); };
    const onClick = (ev) => { if (ev.target.closest && ev.target.closest('[data-act]')) close(); };
    const onKey = (ev) => { if (ev.key === 'Escape') close(); };
    document.addEventListener('click', onClick, true);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('click', onClick, true);
      document.removeEventListener('keydown', onKey);
    };
  }, [id, turn]);
  return a ? { a, close: () => { awayClosed.set(id, a.version); redraw((n) => n + 1); } } : null;
}

/** The summary itself: a one-line heading (its close button floats beside it), one line per phase.
 * Every line names who did what, so no sub-heading takes room from them. */
export function AwayPanel({ away: { a, close } }) {
  return html`<section class="away" aria-labelledby="away-title" data-follow="away" data-turn=${a.turn}>
      <button type="button" class="link away-close" data-follow="away-close" onClick=${close}>${t('hist.close')}</button>
      <h2 id="away-title">${t('away.title')}</h2>
      <ul>${a.rows.map((r) => html`<li><strong>${phaseName(r.phase)}:</strong> ${r.text}</li>`)}</ul>
    </section>`;
}

// Answered (or put away) in this page's life: the offer does not come back at the next wait.
let offered = false;

/**
 * While you wait for the other player of a duo game: the offer of a notification when your turn comes.
 * It sits in the dock under the prompt (the hand stays in sight), names the other player, and is never
 * made against the computer, whose turns take a second.
 */
export function WaitOffer({ s, hotseat }) {
  const [, redraw] = useState(0);
  const view = s.view;
  if (!view || offered || hotseat || s.seat === null || view.mode !== 'duo' || view.phase === 'over') return null;
  const other = view.active;
  const seated = s.seats.length > 0 && s.seats.every((x) => x.taken);
  const bot = s.seats.some((x) => x.bot);
  if (!seated || bot || other === s.seat || store.prefs().notifyAsked || cues.notifyState() !== 'default') return null;
  const answer = async (yes) => {
    offered = true;
    if (yes) await cues.askNotify();
    else store.setPref('notifyAsked', true);
    redraw((n) => n + 1);
  };
  return html`<p class="notify-offer" data-follow="notify-offer">${t('cue.offer', { who: seatName(other, s.seats) })}
    <button type="button" onClick=${() => answer(true)}>${t('cue.offer.yes')}</button>
    <button type="button" class="link" onClick=${() => answer(false)}>${t('cue.offer.no')}</button></p>`;
}

/** Everything of this file the game screen shows outside the table: rendered once in the game's <main>. */
export function Follow({ s, session, watch }) {
  useEffect(() => {
    session.stage = stage;
    return () => {
      session.stage = null;
      setOpen(false);
    };
  }, [session]);
  const open = useDrawer();
  // For tests and tools: whether the log (and so the away summary) has caught up with the board;
  // data-follow-playing: the steps are being played out on the board.
  const mark = watch ? null : html`<i hidden data-follow-log=${s.logVersion >= s.version ? 'ok' : 'sync'}
    data-follow-playing=${s.busy ? '1' : '0'}></i>`;
  return html`${mark}${open ? html`<${Drawer} s=${s} watch=${watch} />` : null}`;
}
