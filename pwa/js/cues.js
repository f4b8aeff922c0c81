// Things a phone does so nobody misses their turn or loses the screen: the aria-live announcement,
// a badge in the title, a short vibration (Android; after a first tap), and the screen wake lock
// (secure contexts only: on plain LAN http it is simply absent).

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

export function yourTurn(text) {
  badge(true, text);
  announce(text);
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
