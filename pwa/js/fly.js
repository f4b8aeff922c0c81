// The card animations of the game screen: for each step the session shows, a copy of the card
// travels from where it was (the draw pile, a bundle, a hand, a field, a boss) to where it lands, and
// both places light up briefly. Places are found by the data-area hooks of the table screen; a place
// that is not on screen is simply skipped. Nothing here decides anything: it only draws.

const FLY_MS = 280;
const LIT_MS = 700;
const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

const q = (sel) => document.querySelector(sel);

/** The element of a player's seat: their fields' section (own or the other player's strip). */
function seatArea(seat) {
  const f = q(`[data-field="${seat}-0"]`);
  return (f && f.closest('[data-area="fields"], [data-area="other"]')) || null;
}

function bundle(bean) {
  const b = q(`[data-bundle] .bean-${bean}`);
  return (b && b.closest('[data-bundle]')) || q('[data-area="display"]');
}

function handCard(seat, viewer, index) {
  if (seat !== viewer) return seatArea(seat);
  return q(`[data-hand="${index}"]`) || q('[data-area="hand"]');
}

function lastHandCard(seat, viewer) {
  if (seat !== viewer) return seatArea(seat);
  const all = document.querySelectorAll('[data-hand]');
  return all.length ? all[all.length - 1] : q('[data-area="hand"]');
}

const field = (e) => q(`[data-field="${e.seat}-${e.field}"]`) || seatArea(e.seat);
const boss = (name) => q(`[data-boss="${name}"]`) || q('[data-area="mafia"]');
const area = (name) => q(`[data-area="${name}"]`);

/** Where the card of event `e` comes from (measured before the board changes). */
function source(e, viewer) {
  switch (e.type) {
    case 'reveal': case 'capture': case 'draw': return area('deck');
    case 'from_discard': case 'reshuffle': return area('discard');
    case 'boss_harvest': return boss(e.boss);
    case 'plant':
      return e.source === 'hand' ? handCard(e.seat, viewer, 0) : bundle(e.bean);
    case 'discard': return bundle(e.bean);
    case 'give':
      return e.source === 'hand' ? handCard(e.seat, viewer, e.index ?? 0) : bundle(e.bean);
    case 'pay': case 'harvest': return field(e);
    default: return null;
  }
}

/** Where it lands (looked up after the board changed). */
function target(e, viewer) {
  switch (e.type) {
    case 'reveal': case 'from_discard': return bundle(e.bean);
    case 'capture': case 'give': case 'pay': return boss(e.boss);
    case 'boss_harvest': return area('treasury');
    case 'reshuffle': case 'exhausted': return area('deck');
    case 'draw': return lastHandCard(e.seat, viewer);
    case 'plant': return field(e);
    case 'discard': case 'harvest': return area('discard');
    case 'buy_field': return seatArea(e.seat);
    default: return null;
  }
}

function light(el) {
  if (!el || !el.isConnected) return;
  el.classList.remove('lit');
  void el.offsetWidth; // restart the highlight when the same place lights up twice in a row
  el.classList.add('lit');
  setTimeout(() => el.classList.remove('lit'), LIT_MS);
}

// What makes a card's face look as it does in its place: copied onto the flying copy, element by
// element, because the copy lies in <body>, outside the rules of the place (a field, a bundle, the
// table screen) that lay out its picture, name and count.
const LOOK = ['display', 'flexDirection', 'flexWrap', 'alignItems', 'justifyContent', 'justifyItems', 'gap',
  'gridTemplateColumns', 'gridColumn', 'gridRow', 'justifySelf', 'alignSelf', 'fontSize', 'fontWeight',
  'lineHeight', 'textAlign', 'whiteSpace', 'overflowWrap', 'position', 'top', 'right', 'width', 'height',
  'paddingTop', 'paddingRight', 'paddingBottom', 'paddingLeft', 'marginTop', 'marginRight', 'marginBottom',
  'marginLeft', 'maxWidth'];

function copyLook(src, dst) {
  const cs = getComputedStyle(src);
  for (const p of LOOK) dst.style[p] = cs[p];
  dst.style.boxSizing = 'border-box';
  for (let i = 0; i < src.children.length && i < dst.children.length; i += 1) {
    copyLook(src.children[i], dst.children[i]);
  }
}

function flyCard(e, from, to) {
  if (!from || !to || typeof to.animate !== 'function') return;
  // The card's own face where the place shows it (never a hidden hand's card: it is not in the DOM);
  // the copy lands exactly on it. Without a face, a card back lands in the middle of the place.
  const face = e.bean ? to.querySelector(`.bean-${e.bean}`) : null;
  const a = (face || to).getBoundingClientRect();
  if (!a.width || !from.width) return;
  const ghost = document.createElement('div');
  ghost.className = 'flycard';
  ghost.setAttribute('aria-hidden', 'true');
  if (face) {
    // Laid out exactly as in place (its size, its picture, its name on as many lines): never squashed.
    const copy = face.cloneNode(true);
    copyLook(face, copy);
    copy.style.margin = '0';
    ghost.append(copy);
  } else ghost.classList.add('back');
  // Room for the copy's own border and padding around a face.
  const w = face ? a.width + 12 : Math.min(a.width, 48);
  const h = face ? a.height + 12 : Math.min(a.height, 64);
  const left = a.left + (a.width - w) / 2;
  const top = a.top + (a.height - h) / 2;
  // CSSOM properties, not a style attribute: the CSP (style-src 'self') allows these.
  ghost.style.left = `${left}px`;
  ghost.style.top = `${top}px`;
  ghost.style.width = `${w}px`;
  ghost.style.height = `${h}px`;
  document.body.append(ghost);
  const dx = from.left + from.width / 2 - (left + w / 2);
  const dy = from.top + from.height / 2 - (top + h / 2);
  const anim = ghost.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(.8)`, opacity: 0.6 }, { transform: 'none', opacity: 1 }],
    { duration: FLY_MS, easing: 'ease-out' },
  );
  const done = () => ghost.remove();
  anim.onfinish = done;
  anim.oncancel = done;
}

// Bumped when the steps are cut short: flights asked for before then are dropped or cancelled.
let generation = 0;

/** The stage the session calls around each step: before() measures, after() animates, cut() stops
 * every flight at once (the end of the game, Skip: the board jumps to the truth). */
export const stage = {
  cut() {
    generation += 1;
    for (const ghost of document.querySelectorAll('.flycard')) ghost.remove();
  },
  before(e, _view, viewer) {
    if (reducedMotion()) return null;
    const el = source(e, viewer);
    return { el, rect: el ? el.getBoundingClientRect() : null };
  },
  after(e, token, viewer) {
    // Wait for the board of this step to be drawn (Preact renders on the next tick).
    const asked = generation;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      if (asked !== generation) return;
      const to = target(e, viewer);
      if (token.el && token.el.isConnected) light(token.el);
      light(to);
      flyCard(e, token.rect, to);
    }));
  },
};
