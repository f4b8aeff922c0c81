// Composition root: language, routing (#/ home, #/g/<id> a game, #join=<code>, #watch=<id>), the
// service worker, and the install prompt. The app makes the one API client (each game's session opens
// the one live connection with it); screens only render and call back.

import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { t, setLang, negotiate, currentLang } from './i18n.js';
import { Client, NetworkError } from './client.js';
import * as store from './store.js';
import { myName, nameRefusal } from './names.js';
import { Home } from './views/home.js';
import { Game } from './views/game.js';
import { RulesRoute, startTutorial } from './learn.js';

const api = new Client();

function parseHash() {
  const h = location.hash;
  let m = h.match(/^#join=([A-Za-z0-9-]+)/);
  if (m) return { name: 'join', code: m[1] };
  m = h.match(/^#watch=([A-Za-z0-9_-]+)/);
  if (m) return { name: 'watch', id: m[1] };
  m = h.match(/^#\/g\/([A-Za-z0-9_-]+)/);
  if (m) return { name: 'game', id: m[1] };
  m = h.match(/^#\/rules(?:\/([a-z]+))?$/);
  if (m) return { name: 'rules', section: m[1] || null };
  return { name: 'home' };
}

const go = (hash, replace = false) => {
  if (replace) location.replace(hash);
  else location.hash = hash;
};

let installEvent = null;
const OWN_LINK = 'alc.ownlink'; // sessionStorage: the lobby says "this is your own link" once

function App() {
  const [route, setRoute] = useState(parseHash());
  const [, setLangTick] = useState(0);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [install, setInstall] = useState(Boolean(installEvent));

  useEffect(() => {
    const onHash = () => setRoute(parseHash());
    const onInstall = (e) => {
      e.preventDefault();
      installEvent = e;
      setInstall(true);
    };
    window.addEventListener('hashchange', onHash);
    window.addEventListener('beforeinstallprompt', onInstall);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('beforeinstallprompt', onInstall);
    };
  }, []);

  const failText = (err) => {
    if (err instanceof NetworkError) return t('err.network');
    const refused = nameRefusal(err); // a name of the game, or one the server cannot take
    if (refused) return refused;
    const key = `err.${err.code}`;
    return t(key) === key ? t('err.generic', { msg: err.message }) : t(key);
  };

  const newGame = async (mode, hotseat = false, bot = null) => {
    setBusy(true);
    setError(null);
    try {
      const name = myName();
      const r = await api.createGame({ mode, ...(bot && { bot }), ...(name && { name }) });
      // The join code is kept with the token: this phone opening its own join link resumes its seat.
      store.addToken(r.game_id, r.seat, r.token, { mode, bot, created: Date.now(), joinCode: r.join_code || null });
      if (hotseat && r.join_code) {
        const j = await api.join(r.join_code);
        store.addToken(r.game_id, j.seat, j.token, { hotseat: true });
      }
      go(`#/g/${r.game_id}`);
    } catch (err) {
      setError({ text: failText(err) });
      go('#/');
    } finally {
      setBusy(false);
    }
  };

  const join = async (code) => {
    // A link this device made (the host scanning its own QR code) or already used: go back to the seat
    // it holds. Asking the server would take the other seat and leave the game without its guest.
    const own = store.gameByCode(code);
    if (own) {
      try { sessionStorage.setItem(OWN_LINK, own); } catch { /* the notice is a nicety */ }
      go(`#/g/${own}`, true);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await api.join(code, { name: myName() });
      store.addToken(r.game_id, r.seat, r.token, { mode: r.view.mode, created: Date.now(), joinCode: code });
      go(`#/g/${r.game_id}`, true);
    } catch (err) {
      setError({ text: failText(err), join: true, code }); // shown under the Join button
      go('#/', true);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (route.name === 'join') join(route.code);
  }, [route.name, route.code]);

  /** "Play again": solo starts a fresh game; a duo game asks the server for its one next game (the
   * same for both phones, whoever asks first), for every seat this device holds. */
  const playAgain = async (mode, hotseat, bot, oldId) => {
    const old = oldId ? store.game(oldId) : null;
    if (mode === 'solo' || !old) {
      if (oldId) store.forgetGame(oldId);
      newGame(mode, hotseat, bot);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      let next = null;
      for (const [, token] of Object.entries(old.tokens || {}).sort()) {
        const g = await api.rematch(oldId, token);
        next = g.game_id;
        store.addToken(g.game_id, g.seat, g.token, { mode, bot, hotseat, created: Date.now(), rematchOf: oldId });
      }
      store.forgetGame(oldId); // the end was acknowledged: this device forgets the game and its tokens
      go(`#/g/${next}`);
    } catch (err) {
      setError({ text: failText(err) });
      go('#/');
    } finally {
      setBusy(false);
    }
  };

  const other = currentLang() === 'de' ? 'en' : 'de';
  const langSwitch = html`<button type="button" class="link lang" lang=${other} aria-label=${t('lang.switch.label')}
    onClick=${async () => { await setLang(other, true); setLangTick((n) => n + 1); }}>${t('lang.switch')}</button>`;

  if (route.name === 'rules') {
    return html`<${RulesRoute} section=${route.section} langSwitch=${langSwitch} onTutorial=${() => startTutorial(api)} />`;
  }
  if (route.name === 'game' || route.name === 'watch') {
    const id = route.id;
    return html`<${Game} key=${`${route.name}:${id}`} api=${api} id=${id} watch=${route.name === 'watch'} langSwitch=${langSwitch}
      onHome=${() => go('#/')} onRematch=${playAgain} />`;
  }
  const ios = /iphone|ipad/i.test(navigator.userAgent) && !navigator.standalone;
  return html`<div class="shell"><header class="bar"><span></span>${langSwitch}</header>
    <${Home} onNew=${(m, bot) => newGame(m, false, bot)} onJoin=${join} error=${error} busy=${busy || route.name === 'join'}
      install=${install} iosHint=${ios} onInstall=${async () => {
        if (!installEvent) return;
        installEvent.prompt();
        installEvent = null;
        setInstall(false);
      }} /></div>`;
}

function registerServiceWorker() {
  // Service workers need a secure context; on a plain-http LAN address the app is simply a web page.
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const hadController = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    // A new release took over while this page runs old modules: offer a reload, never force one
    // (a reload in the middle of a move would only cost a resync, but it surprises the player).
    if (hadController) showUpdate();
  });
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
}

function showUpdate() {
  const bar = document.createElement('div');
  bar.className = 'update';
  bar.setAttribute('role', 'status');
  const text = document.createElement('span');
  text.textContent = t('update.ready');
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = t('update.reload');
  button.addEventListener('click', () => location.reload());
  bar.append(text, button);
  document.body.append(bar);
}

await setLang(negotiate());
const root = document.getElementById('app');
root.textContent = ''; // drop the boot placeholder: Preact appends to what is there
render(html`<${App} />`, root);
registerServiceWorker();
