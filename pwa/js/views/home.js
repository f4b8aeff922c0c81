// The start screen: new games, join by code (its error right under its button), this device's
// unfinished games, and the finished ones whose result was not put away yet.

import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t } from '../i18n.js';
import * as store from '../store.js';
import { MAX_NAME, myName, seatName, setMyName } from '../names.js';

/** Who plays the game, as this device last saw its seats ("Anna · Computer"); this device's own seat
 * is "You" when it has no name. Empty before the game was first opened here. */
function players(g) {
  const seats = Array.isArray(g.seats) ? g.seats : [];
  const mine = new Set(Object.keys(g.tokens || {}).map(Number));
  return seats.map((x) => (x.name || x.bot || !mine.has(x.seat) || g.hotseat ? seatName(x.seat, seats) : t('who.you')))
    .join(' · ');
}

function modeName(g) {
  if (g.tutorial) return t('learn.mode');
  if (g.mode === 'solo') return t('home.mode.solo');
  if (g.bot) return t('home.mode.bot');
  return g.hotseat ? t('home.mode.hotseat') : t('home.mode.duo');
}

/** `error`: {text, join?, code?}: a failed join shows under the join button (with the code it tried),
 * anything else at the top. */
export function Home({ onNew, onJoin, error, busy, install, onInstall, iosHint }) {
  const [code, setCode] = useState((error && error.code) || '');
  const [name, setName] = useState(myName() || '');
  const all = Object.entries(store.games()).sort((a, b) => b[1].created - a[1].created);
  const games = all.filter(([, g]) => !g.over);
  const finished = all.filter(([, g]) => g.over).slice(0, 5);
  const joinError = error && error.join ? error.text : null;
  // A join link that failed lands here: its code goes into the field, beside the reason.
  useEffect(() => { if (error && error.code) setCode(error.code); }, [error]);
  const streak = store.streak();
  const fmt = new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: 'short', timeStyle: 'short' });
  const submit = (e) => {
    e.preventDefault();
    if (code.trim()) onJoin(code.trim());
  };
  return html`<main class="home" id="main">
    <h1>${t('app.title')}</h1>
    <p class="tagline">${t('app.tagline')}</p>
    <p class="learnlink"><a class="button" href="#/rules" data-learn="rules">${t('learn.rules')}</a></p>
    ${error && !error.join ? html`<p class="notice" role="alert">${error.text}</p>` : null}
    <div class="myname">
      <label for="myname">${t('social.name')}</label>
      <input id="myname" name="myname" autocomplete="nickname" maxlength=${MAX_NAME} spellcheck=${false}
        aria-describedby="myname-hint" placeholder=${t('social.name.placeholder')} value=${name}
        onInput=${(e) => { setName(e.currentTarget.value); setMyName(e.currentTarget.value); }} />
      <p id="myname-hint" class="hint">${t('social.name.hint')}</p>
    </div>
    <div class="newgame">
      <button type="button" class="big primary" data-new="solo" disabled=${busy} onClick=${() => onNew('solo')}>${t('home.new_solo')}</button>
      <button type="button" class="big" data-new="duo" disabled=${busy} onClick=${() => onNew('duo')}>${t('home.new_duo')}</button>
      <button type="button" class="big" data-new="bot" disabled=${busy} onClick=${() => onNew('duo', 'mc')}>${t('home.new_bot')}</button>
    </div>
    <form class="join" onSubmit=${submit}>
      <h2>${t('home.join')}</h2>
      <label for="code">${t('home.code')}</label>
      <div class="row">
        <input id="code" name="code" autocomplete="off" autocapitalize="characters" spellcheck=${false}
          inputmode="text" maxlength="12" aria-describedby=${joinError ? 'code-error code-hint' : 'code-hint'}
          aria-invalid=${joinError ? 'true' : null} value=${code}
          onInput=${(e) => setCode(e.currentTarget.value)} />
        <button type="submit" disabled=${busy}>${t('home.join.go')}</button>
      </div>
      ${joinError ? html`<p id="code-error" class="notice join-error" role="alert" data-join-error>
        ${t('home.join.error')} ${joinError}</p>` : null}
      <p id="code-hint" class="hint">${t('home.code.hint')}</p>
    </form>
    <section class="resume">
      <h2>${t('home.resume.title')}</h2>
      ${games.length ? html`<ul class="games">${games.map(([id, g]) => html`<li>
        <a class="button" href=${`#/g/${id}`} data-resume=${id}>${t('home.resume')}: ${modeName(g)}</a>
        ${players(g) ? html`<span class="players pname" data-players=${id}>${players(g)}</span>` : null}
        <span class="hint">${t('home.started', { when: fmt.format(new Date(g.created)) })}</span></li>`)}</ul>`
        : html`<p class="hint">${t('home.none')}</p>`}
    </section>
    ${finished.length ? html`<section class="resume finished">
      <h2>${t('home.finished.title')}</h2>
      <ul class="games">${finished.map(([id, g]) => html`<li>
        <a class="button" href=${`#/g/${id}`} data-finished=${id}>${t('home.finished.open')}: ${modeName(g)}</a>
        ${players(g) ? html`<span class="players pname" data-players=${id}>${players(g)}</span>` : null}
        <span class="hint">${t('home.started', { when: fmt.format(new Date(g.created)) })}</span></li>`)}</ul>
    </section>` : null}
    ${streak.counted.length ? html`<p class="streak">${t('home.streak', streak)}</p>` : null}
    ${install ? html`<p><button type="button" onClick=${onInstall}>${t('home.install')}</button></p>` : null}
    ${iosHint ? html`<p class="hint">${t('home.ios')}</p>` : null}
    <p class="hint"><a href="/api/docs">${t('learn.api')}</a></p>
  </main>`;
}
