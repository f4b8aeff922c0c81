// Duo lobby: the join link as a large QR code and the short code; the table replaces it as soon as the
// second seat is taken (the session sees the new version live, or by polling).

import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { joinQr } from '../api.js';

export function Lobby({ id, s, token, onHotseat, onHome }) {
  const code = s.joinCode;
  const link = code ? `${location.origin}/#join=${code}` : '';
  const [qr, setQr] = useState(null);
  useEffect(() => {
    let url = null;
    let live = true;
    joinQr(id, token).then((u) => {
      url = u;
      if (live) setQr(u);
      else URL.revokeObjectURL(u);
    }).catch(() => {}); // no picture: the code and the link below still work
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [id, token, code]);
  return html`<section class="lobby">
    <h2>${t('lobby.title')}</h2>
    <p>${t('lobby.scan')}</p>
    ${code ? html`${qr ? html`<img class="qr" src=${qr} alt=${t('lobby.qr')} width="264" height="264" />` : null}
      <p class="code-label">${t('lobby.code')}</p>
      <p class="code" data-code=${code}>${code}</p>
      <p class="hint"><span>${t('lobby.link')}: </span><a href=${link}>${link}</a></p>` : null}
    <div class="row">
      <button type="button" onClick=${onHotseat} disabled=${!code}>${t('lobby.hotseat')}</button>
      <button type="button" class="link" onClick=${onHome}>${t('lobby.cancel')}</button>
    </div>
  </section>`;
}
