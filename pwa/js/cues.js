// Things a phone does so nobody misses their turn or loses the screen: the aria-live announcement,
// a badge in the title, a short vibration (Android; after a first tap), an optional sound (off unless
// the player turns it on), a notification while the page is in the background (only once the player
// allowed it: the permission is asked while they wait for the other player, never on first load), and
// the screen wake lock (secure contexts only: on plain LAN http it is simply absent).

import * as store from './store.js';

const TITLE = document.title;
let lock = null;
let wantLock = false;

export function announce(text) {
  const el = document.getElementById('announce');
  if (!el) return;
  el.textContent = '';
  // A new text node after a tick makes screen readers read it even when the text repeats.
  setTimeout(() => { el.textContent = text; }, 50);
}

export function badge(on, text) {
  document.title = on ? `● ${text} – ${TITLE}` : TITLE;
}

/** Turn cues the player can switch: `sound` (default off). */
export const soundOn = () => Boolean(store.prefs().turnSound);

export function setSound(on) {
  store.setPref('turnSound', Boolean(on));
  if (on) beep(); // from the tap that switched it on: the browser allows audio now, and it is a preview
}

let audio = null;

/** Two short soft tones, synthesized (no sound file to download). */
function beep() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    audio = audio || new Ctx();
    if (audio.state === 'suspended') audio.resume();
    const now = audio.currentTime;
    [660, 880].forEach((hz, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = hz;
      gain.gain.setValueAtTime(0.0001, now + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.16 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.16);
      osc.stop(now + i * 0.16 + 0.15);
    });
  } catch {
    // no audio device or refused: the other cues remain
  }
}

/** 'unsupported', 'default' (not asked yet), 'granted' or 'denied'. */
export function notifyState() {
  if (!('Notification' in window) || !window.isSecureContext) return 'unsupported';
  return Notification.permission;
}

/** Ask for the notification permission (call from a tap); returns the new state. */
export async function askNotify() {
  store.setPref('notifyAsked', true);
  if (notifyState() !== 'default') return notifyState();
  try {
    return await Notification.requestPermission();
  } catch {
    return notifyState();
  }
}

async function notify(title, body, tag) {
  if (notifyState() !== 'granted') return;
  const options = { body, tag, renotify: true, icon: '/icons/icon-192.png', badge: '/icons/icon-192.png' };
  try {
    // Through the service worker where there is one: its notification opens the app again on a tap.
    const reg = 'serviceWorker' in navigator && (await navigator.serviceWorker.getRegistration());
    if (reg) await reg.showNotification(title, { ...options, data: { url: location.href } });
    else new Notification(title, options); // eslint-disable-line no-new
  } catch {
    // refused (e.g. the permission was revoked meanwhile): the title badge remains
  }
}

/** @param {string} text  "Your turn!"  @param {{title?: string, tag?: string}} opts  for the notification */
export function yourTurn(text, { title = TITLE, tag = 'turn' } = {}) {
  badge(true, text);
  announce(text);
  if (soundOn()) beep();
  if (document.visibilityState === 'hidden') notify(title, text, tag);
  // Only after a first tap: before it, browsers refuse the call and log an intervention to the console
  // (userActivation is absent on older engines: there we just try).
  const tapped = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  try {
    if (navigator.vibrate && tapped) navigator.vibrate([120, 60, 120]);
  } catch {
    // vibration refused anyway: the badge and announcement remain
  }
}

async function acquire() {
  if (!wantLock || lock || !('wakeLock' in navigator) || document.visibilityState !== 'visible') return;
  try {
    lock = await navigator.wakeLock.request('screen');
    lock.addEventListener('release', () => { lock = null; });
  } catch {
    lock = null; // WebKit wants a fresh tap: the next tap tries again
  }
}

/** Keep the screen on while a game is shown; call from a tap handler so WebKit accepts it. */
export function keepAwake(on) {
  wantLock = on;
  if (on) acquire();
  else if (lock) {
    lock.release();
    lock = null;
  }
}

document.addEventListener('visibilitychange', acquire);
document.addEventListener('pointerdown', acquire, { passive: true });
