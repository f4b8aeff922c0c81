// Duo lobby: the join link as a large QR code, the short code and a Share button; the table replaces
// it as soon as the second seat is taken (the session sees the new version live, or by polling).

import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t } from '../i18n.js';
import * as store from '../store.js';
import { MAX_NAME, cleanName, seatName } from '../names.js';

const OWN_LINK = 'alc.ownlink'; // set by app.js when this phone opened its own join link

/** Copy `text` to the clipboard: the async Clipboard API where the page may use it (secure contexts),
 * else a selected off-screen textarea and execCommand (plain-http LAN addresses). */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // permission refused: try the old way below
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** Share the join link with the phone's share sheet; without one, copy it. Feedback: 'shared',
 * 'copied', 'failed' (the link stays visible to copy by hand), or null when the player cancelled. */
async function shareLink(link, code) {
  const data = { title: t('app.title'), text: t('social.share.text', { code }), url: link };
  if (navigator.share && (!navigator.canShare || navigator.canShare(data))) {
    try {
      await navigator.share(data);
      return 'shared';
    } catch (err) {
      if (err && err.name === 'AbortError') return null; // the player closed the share sheet
      // no share target or not allowed here: fall back to copying
    }
  }
  return (await copyText(link)) ? 'copied' : 'failed';
}

/** `refused`: {name, why} when the server refused the second player's name (the lobby shows it again). */
export function Lobby({ id, s, token, joinQr, onHotseat, refused, onHome }) {
  const code = s.joinCode;
  const link = code ? `${location.origin}/#join=${code}` : '';
  const [qr, setQr] = useState(null);
  const [shared, setShared] = useState(null);
  const [name2, setName2] = useState((refused && refused.name) || ''); // pass-and-play: the second player
  const name2Error = refused && refused.name === cleanName(name2) ? refused.why : null;
  const [ownLink] = useState(() => {
    try {
      if (sessionStorage.getItem(OWN_LINK) !== id) return false;
      sessionStorage.removeItem(OWN_LINK);
      return true;
    } catch {
      return false;
    }
  });
  const rec = store.game(id) || {};
  const me = s.seat;
  const other = s.seats.find((x) => x.seat !== me);
  useEffect(() => {
    if (!code) return undefined; // a rematch reserves the seat: no code, no picture
    let url = null;
    let live = true;
    joinQr().then((blob) => {
      const u = URL.createObjectURL(blob);
      url = u;
      if (live) setQr(u);
      else URL.revokeObjectURL(u);
    }).catch(() => {}); // no picture: the code and the link below still work
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [id, token, code]);
  const share = async () => setShared(await shareLink(link, code));
  const iAm = me === null || me === undefined ? null : seatName(me, s.seats);

  if (rec.rematchOf && !code) {
    // The next game of a finished one: the other seat is kept for the other player, who joins from
    // their end screen with one tap.
    return html`<section class="lobby" data-lobby="rematch">
      <h2>${t('social.rematch.waiting', { name: other ? seatName(other.seat, s.seats) : t('who.seat', { n: 2 }) })}</h2>
      <p>${t('social.rematch.waiting.hint')}</p>
      <div class="row"><button type="button" class="link" onClick=${onHome}>${t('lobby.cancel')}</button></div>
    </section>`;
  }
  return html`<section class="lobby">
    <h2>${t('lobby.title')}</h2>
    ${ownLink ? html`<p class="own-link" role="status">${t('social.ownlink')}</p>` : null}
    ${iAm ? html`<p class="playing-as">${t('social.playing_as')} <strong class="pname">${iAm}</strong></p>` : null}
    <p>${t('lobby.scan')}</p>
    ${code ? html`${qr ? html`<img class="qr" src=${qr} alt=${t('lobby.qr')} width="264" height="264" />` : null}
      <p class="code-label">${t('lobby.code')}</p>
      <p class="code" data-code=${code}>${code}</p>
      <div class="share-row">
        <button type="button" class="primary" data-share="link" onClick=${share}>${t('social.share')}</button>
        <p class="share-state" role="status" data-shared=${shared || ''}>${shared ? t(`social.share.${shared}`) : ''}</p>
      </div>
      <p class="hint"><span>${t('lobby.link')}: </span><a href=${link} data-join-link>${link}</a></p>` : null}
    ${code ? html`<div class="hotseat-box">
      <label for="name2">${t('lobby.hotseat.name')}</label>
      <input id="name2" name="name2" autocomplete="off" maxlength=${MAX_NAME} spellcheck=${false}
        placeholder=${t('lobby.hotseat.placeholder')} value=${name2} onInput=${(e) => setName2(e.currentTarget.value)}
        aria-invalid=${name2Error ? 'true' : null} aria-describedby=${name2Error ? 'name2-error' : null} />
      ${name2Error ? html`<p id="name2-error" class="notice" role="alert" data-name-error>${name2Error}</p>` : null}
      <button type="button" data-lobby="hotseat" onClick=${() => onHotseat(cleanName(name2))}>${t('lobby.hotseat')}</button>
    </div>` : null}
    <div class="row">
      <button type="button" class="link" onClick=${onHome}>${t('lobby.cancel')}</button>
    </div>
  </section>`;
}
