// One game on screen: owns its GameSession and the local choices (selection, hidden hand, dialogs),
// and picks the screen: lobby, curtain, table, end, or an error.

import { useEffect, useErrorBoundary, useMemo, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t } from '../i18n.js';
import * as store from '../store.js';
import * as cues from '../cues.js';
import { GameSession } from '../session.js';
import { validSelection } from '../targets.js';
import { Conn } from './bits.js';
import { Table } from './table.js';
import { Lobby } from './lobby.js';
import { End } from './end.js';
import { Curtain } from './curtain.js';
import { Coach } from './coach.js';
import { Follow, HistoryButton } from './follow.js';
import { nameRefusal, seatName } from '../names.js';

function WatchDialog({ id, onClose }) {
  const link = `${location.origin}/#watch=${id}`;
  return html`<section class="watchbox" aria-label=${t('watch.show')}>
    <img class="qr" src=${`/watch/${encodeURIComponent(id)}.svg`} alt=${t('watch.qr')} width="264" height="264" />
    <p>${t('watch.hint')}</p>
    <p class="hint"><a href=${link}>${link}</a></p>
    <button type="button" onClick=${onClose}>${t('watch.close')}</button>
  </section>`;
}

/**
 * A screen that fails to draw must not freeze the game: the error is reported (console), the steps
 * being told give way to the server's view, and the screen is drawn again from it, once per version.
 * Only if that fails too does the player see the error, with a reload.
 */
function Guard({ version, onError, children }) {
  const [error, reset] = useErrorBoundary((err) => {
    console.error(err);
    onError();
  });
  const retried = useRef(null);
  useEffect(() => {
    if (error && retried.current !== version) {
      retried.current = version;
      reset();
    }
  }, [error, version]);
  if (!error) return children;
  return html`<p class="notice" role="alert">${t('err.generic', { msg: String(error.message || error) })}
    <button type="button" onClick=${() => location.reload()}>${t('update.reload')}</button></p>`;
}

export function Game({ api, id, watch, onHome, onRematch, langSwitch }) {
  const [gen, setGen] = useState(0);
  const session = useMemo(() => new GameSession(api, id, { watch }), [api, id, watch, gen]);
  const [s, setS] = useState(session.s);
  const [sel, setSel] = useState(null);
  const [hidden, setHidden] = useState(Boolean(store.prefs().hideHand));
  const [showWatch, setShowWatch] = useState(false);
  const [streak, setStreak] = useState(null);
  // Pass-and-play: the second seat is being taken. Until the new session reads the game, this one's
  // socket would show the first seat's table (the guest has joined) just before the curtain.
  const [joining, setJoining] = useState(false);
  const [refused, setRefused] = useState(null); // pass-and-play: the second name the server refused, and why
  const wasMyTurn = useRef(null);

  useEffect(() => {
    setS(session.s);
    setJoining(false);
    const off = session.subscribe(setS);
    session.start();
    return () => {
      off();
      session.stop();
    };
  }, [session]);

  // Privacy: the hand hides itself whenever the phone is put away or the app is switched.
  useEffect(() => {
    const onVis = () => { if (document.visibilityState === 'hidden') setHidden(true); };
    document.addEventListener('visibilitychange', onVis);
    return () => document.removeEventListener('visibilitychange', onVis);
  }, []);

  // While the second seat is taken, nothing of this session's view shows (see `joining`).
  const view = joining ? null : s.view;
  const myTurn = Boolean(view && view.legal_actions.length && !s.busy && s.curtain === null);
  useEffect(() => {
    if (myTurn && wasMyTurn.current === false && view.mode === 'duo' && !session.hotseat) {
      cues.yourTurn(t('table.yourturn'));
    } else if (!myTurn) cues.badge(false);
    wasMyTurn.current = myTurn;
  }, [myTurn]);
  useEffect(() => () => {
    cues.badge(false);
    cues.keepAwake(false); // the screen may sleep again once no game is shown
  }, []);

  // The end comes from the server's latest view (with its result), never from a step shown before it.
  // The guided game is a prepared deal: its result does not count for the solo streak.
  const over = !joining && s.over;
  useEffect(() => {
    const rec = store.game(id);
    if (over && s.truth.mode === 'solo' && s.seat !== null && !(rec && rec.tutorial)) {
      setStreak(store.recordSolo(id, s.truth.result.winners.includes(0)));
    }
  }, [over]);

  const liveSel = view ? validSelection(view.legal_actions, sel, view) : null;
  const onAct = (a) => {
    setSel(null);
    cues.keepAwake(true);
    session.act(a);
  };
  const hotseat = async (name) => {
    setJoining(true);
    try {
      await session.takeSecondSeat(name);
      setGen(gen + 1);
    } catch (err) {
      setJoining(false);
      const why = nameRefusal(err);
      if (why) setRefused({ name, why }); // the lobby says why, beside the name
      else session.fail(err);
    }
  };
  const done = () => {
    store.forgetGame(id); // the end was acknowledged: this device forgets the game and its tokens
    onHome();
  };
  const rematch = () => {
    // app.js forgets this game once the next one exists (PWA-SOCIAL: a duo rematch needs its tokens).
    const bot = s.seats.find((x) => x.bot);
    onRematch(s.truth.mode, session.hotseat, bot ? bot.bot : null, id);
  };

  // Who this phone plays, in the top bar (not on the table screen, nor behind the pass-and-play curtain).
  const me = !watch && view && s.seat !== null && s.curtain === null ? seatName(s.seat, s.seats) : null;
  let body;
  if (s.error) {
    body = html`<p class="notice" role="alert">${t(`err.${s.error}`)}</p>
      <button type="button" onClick=${done}>${t('table.home')}</button>`;
  } else if (!view) {
    body = html`<p>${t('loading')}</p>`;
  } else if (!watch && s.seats.some((x) => !x.taken)) {
    body = html`<${Lobby} id=${id} s=${s} token=${session.token} joinQr=${() => api.joinQr(id, session.token)}
      onHotseat=${hotseat} refused=${refused} onHome=${onHome} />`;
  } else if (s.curtain !== null) {
    body = html`<${Curtain} seat=${s.curtain} onReveal=${() => { setSel(null); session.reveal(); }} />`;
  } else {
    body = html`${over ? html`<${End} id=${id} s=${s} streak=${streak} onRematch=${rematch} onHome=${done} hotseat=${session.hotseat} />` : null}
      <${Table} id=${id} s=${s} sel=${liveSel} setSel=${setSel} hidden=${hidden} onAct=${onAct} watch=${watch}
        hotseat=${session.hotseat} onSkip=${() => session.finishHold()}
        onHint=${watch ? null : () => session.hint()}
        toggleHidden=${() => { store.setPref('hideHand', !hidden); setHidden(!hidden); }} />`;
  }
  return html`<div class=${`game${watch ? ' watch' : ''}`}>
    <header class="bar" data-area="topbar">
      <a class="button link" href="#/">${t('table.home')}</a>
      <${Conn} conn=${s.conn} />
      ${me ? html`<span class="bar-me pname" data-me=${s.seat} title=${me}><span class="sr-only">${t('pol.me')} </span>${me}</span>` : null}
      ${!watch && view ? html`<button type="button" class="link watch-open" aria-expanded=${showWatch ? 'true' : 'false'}
        onClick=${() => setShowWatch(!showWatch)}>${t('watch.show')}</button>` : null}
      ${view && !s.error && s.seats.every((x) => x.taken) ? html`<${HistoryButton} />` : null}
      ${watch ? null : html`<a class="button link" href="#/rules" data-learn="rules">${t('learn.rules.short')}</a>`}
      ${langSwitch}
    </header>
    <main id="main">
      ${watch ? html`<h1 class="sr-only">${t('watch.title')}</h1>` : html`<h1 class="sr-only">${t('app.title')}</h1>`}
      ${showWatch ? html`<${WatchDialog} id=${id} onClose=${() => setShowWatch(false)} />` : null}
      ${view && !s.error && s.curtain === null ? html`<${Follow} s=${s} session=${session} watch=${watch} />` : null}
      <${Guard} version=${s.version} onError=${() => session.cut()}>${body}<//>
      ${!watch && view && !s.error && s.curtain === null ? html`<${Coach} id=${id} s=${s} />` : null}
    </main>
  </div>`;
}
