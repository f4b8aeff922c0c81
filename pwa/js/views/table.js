// The table. On a phone it is one screen per decision (no page scrolling at 390 x 844): a strip with the
// Mafia, the piles and the display; the other player folded into one line that opens on tap; your
// fields with what a harvest pays now and their beanometer; and, docked at the bottom, the one sentence
// of what to do, its button, and your hand in order. Targets light up where they are.
// On the table screen (#watch) the same parts are laid out for a tablet that lies in the middle of the
// table, landscape or portrait, read from a metre away: whose turn and what phase at the top, the Mafia,
// the piles and the display, every player's fields filling the rest, and what just happened beside
// (landscape) or under (portrait) them.
// Every tappable thing comes from targets(view.legal_actions, selection); nothing else reacts.

import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t, bean, boss as bossName } from '../i18n.js';
import * as store from '../store.js';
import { targets, bundles, actKey } from '../targets.js';
import { BEANOMETER, THRESHOLD } from '../beans.js';
import { Bean, Act, cards } from './bits.js';
import { Steps } from './steps.js';
import { bannerText } from './banner.js';
import { HintText } from './hinttext.js';
import { InfoPop, meterText } from './info.js';
import { HistoryList, AwayPanel, useAway, WaitOffer } from './follow.js';
import { flowMove, flowText, preselect, asksFirst, DockNotes, PassLine } from './flow.js';
import { seatName } from '../names.js';
import { phaseName } from '../history.js';

const BOSS_ORDER = ['al', 'don', 'joe'];
const AUTO_MS = 700; // how long "no choice: ..." stays on screen before the client makes that move
const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

function label(a, view, seat, hidden = false) {
  const me = view.players[seat] || {};
  switch (a.type) {
    case 'harvest': return t(a.then ? 'act.harvest_plant' : 'act.harvest', { n: me.harvest_values ? me.harvest_values[a.field] : 0 });
    case 'pay': {
      const f = me.fields[a.field];
      const holder = BOSS_ORDER.find((b) => view.bosses[b] && f && view.bosses[b][0] === f[0]);
      return t('act.pay', { boss: holder ? bossName(holder) : '' });
    }
    // With the hand hidden the button must not name the card: someone may be looking over the table.
    case 'plant_hand': return hidden ? t('act.plant_front') : t('act.plant_hand', { bean: bean(me.hand[0]) });
    case 'plant_display': return t('act.plant_display', { bean: bean(a.bean) });
    case 'discard_display': return t('act.discard_display', { bean: bean(a.bean) });
    case 'give_display': case 'give_hand': return t('act.give', { boss: bossName(a.boss) });
    case 'end_phase': return t(view.phase === 'plant' ? 'act.end_phase.plant' : 'act.end_phase.use');
    case 'buy_field': return t('act.buy_field');
    default: return a.type;
  }
}

/** The beanometer: how many cards pay 1, 2, 3, 4 coins; the steps reached are filled. */
function Meter({ code, n }) {
  return html`<span class="meter" title=${meterText(code)}>
    ${BEANOMETER[code].map((k) => html`<span class=${`tick${n >= k ? ' on' : ''}`} aria-hidden="true">${k}</span>`)}
    <span class="sr-only">${t('lay.meter', { steps: meterText(code) })}</span></span>`;
}

function Acts({ acts, ctx }) {
  if (!acts || !acts.length) return null;
  return html`<div class="acts">${acts.map((a) => html`<${Act} action=${a}
    label=${label(a, ctx.view, ctx.seat, ctx.hidden)} onAct=${ctx.onAct} disabled=${ctx.locked} />`)}</div>`;
}

function Boss({ name, held, acts, ctx }) {
  const lit = acts && acts.length;
  return html`<li class=${`boss${lit ? ' target' : ''}`} aria-label=${bossName(name)} data-area="boss" data-boss=${name}
    data-info=${`boss:${name}`}>
    <div class="boss-name">${bossName(name)}</div>
    ${held ? html`<${Bean} code=${held[0]} count=${held[1]} small />`
    : html`<span class=${ctx.needy ? 'empty needs' : 'empty'}>${t(ctx.needy ? 'table.boss.needs' : 'table.boss.empty')}</span>`}
    <div class="thresh">${t('lay.threshold', { n: THRESHOLD[name] })}</div>
    <${Acts} acts=${acts} ctx=${ctx} />
  </li>`;
}

function Field({ i, f, worth, acts, ctx, owner }) {
  const lit = acts && acts.length;
  return html`<li class=${`field${lit ? ' target' : ''}`} data-area="field" data-field=${`${owner}-${i}`}
    data-info=${`field:${owner}:${i}`}>
    ${f ? html`<${Bean} code=${f[0]} count=${f[1]} />`
    : html`<div class="field-head">${t('table.field', { n: i + 1 })}</div><span class="empty">${t('table.field.empty')}</span>`}
    ${f && worth !== undefined && worth !== null ? html`<div class=${`worth${worth ? ' pays' : ''}`}>${t('table.field.worth', { n: worth })}</div>` : null}
    ${f ? html`<${Meter} code=${f[0]} n=${f[1]} />` : null}
    <${Acts} acts=${acts} ctx=${ctx} />
  </li>`;
}

/** The place of the third field before it is bought: its price, and "buy" only when it is legal. It sits
 * with the fields and is never styled as the next step. */
function ThirdSlot({ buy, ctx }) {
  return html`<li class="field third" data-info="third">
    <div class="field-head">${t('lay.third')}</div>
    <span class="empty">${t('lay.third.price')}</span>
    ${buy ? html`<div class="acts"><button type="button" class="act quiet" data-act="buy_field" disabled=${ctx.locked}
      onClick=${() => ctx.onAct(buy)}>${t('lay.third.buy')}</button></div>` : null}
  </li>`;
}

function Strip({ view, tg, ctx }) {
  const sel = ctx.sel;
  return html`<section class="mafia" aria-label=${t('table.mafia')} data-area="mafia">
      <h2 class="sub">${t('table.mafia')} <span class="meta" data-area="treasury" data-info="treasury">${t('table.treasury', { n: view.treasury })}</span></h2>
      <ul class="bosses">${BOSS_ORDER.filter((b) => b in view.bosses).map((b) => html`<${Boss} name=${b} held=${view.bosses[b]} acts=${tg.bosses[b]} ctx=${ctx} />`)}</ul>
    </section>
    <section class="middle" aria-label=${t('table.display')}>
      <div class="pile" data-area="deck" data-info="deck"><div class="pile-name">${t('table.deck')}</div>
        <div class="pile-n">${cards(view.deck_size)}</div><${PassLine} view=${view} /></div>
      <div class=${`pile${tg.discard.length ? ' target' : ''}`} data-area="discard" data-info="discard">
        <div class="pile-name">${t('table.discard')}</div>
        ${view.discard_top ? html`<${Bean} code=${view.discard_top} small />` : html`<span class="empty">${t('table.discard.empty')}</span>`}
        <div class="pile-n">${cards(view.discard_size)}</div>
        <${Acts} acts=${tg.discard} ctx=${ctx} />
      </div>
      <div class="display" data-area="display" data-info="display"><div class="pile-name">${t('table.display')}</div>
      ${view.display.length ? html`<ul class="bundles">${bundles(view.display).map((b, bi) => {
        const pickable = tg.bundles.has(b.bean) && !ctx.locked;
        const on = sel && sel.kind === 'bundle' && sel.bean === b.bean;
        return html`<li data-bundle=${bi}>${pickable
          ? html`<button type="button" class=${`pick${on ? ' on' : ''}`} aria-pressed=${on ? 'true' : 'false'}
              data-pick=${`bundle:${b.bean}`} onClick=${() => ctx.setSel(on ? null : { kind: 'bundle', bean: b.bean })}>
              <${Bean} code=${b.bean} count=${b.count} /></button>`
          : html`<div class="bundle" data-info=${`card:${b.bean}`}><${Bean} code=${b.bean} count=${b.count} /></div>`}</li>`;
      })}</ul>` : html`<p class="empty">${t('table.display.empty')}</p>`}</div>
    </section>`;
}

function Hand({ me, tg, ctx }) {
  if (ctx.hidden) {
    return html`<p class="hand-hidden">${t('table.hand.hidden')} · ${cards(me.hand_size)}</p>`;
  }
  const sel = ctx.sel;
  return html`<ol class="hand">${(me.hand || []).map((code, i) => {
    const pickable = tg.hand.has(i) && !ctx.locked;
    const on = sel && sel.kind === 'hand' && sel.index === i;
    const tag = i === 0 ? t('table.hand.front') : i === 1 ? t('lay.hand.next') : null;
    const inner = html`<${Bean} code=${code} />${tag ? html`<span class=${i === 0 ? 'front' : 'next'}>${tag}</span>` : null}`;
    return html`<li class=${i === 0 ? 'first' : i === 1 ? 'second' : ''} data-hand=${i}>${pickable
      ? html`<button type="button" class=${`pick${on ? ' on' : ''}`} aria-pressed=${on ? 'true' : 'false'}
          data-pick=${`hand:${i}`} onClick=${() => ctx.setSel(on ? null : { kind: 'hand', index: i })}>${inner}</button>`
      : html`<div class="card" data-info=${`card:${code}`}>${inner}</div>`}</li>`;
  })}</ol>`;
}

/** The other player: one line (name, coins, hand, fields in small) that opens on tap to full fields.
 * On the table screen every player is shown open. */
function Other({ p, idx, ctx, open, onToggle }) {
  const name = seatName(idx, ctx.seats);
  const seatInfo = (ctx.seats || []).find((x) => x.seat === idx);
  const bot = seatInfo && seatInfo.bot;
  // Presence comes only over the socket; without it we say nothing rather than guess.
  const away = !bot && ctx.online && ctx.online[idx] === false;
  const active = ctx.view.active === idx && ctx.view.phase !== 'over';
  const meta = html`<span class="meta">${t('table.coins', { n: p.coins })} · ${t('table.hand.size', { n: p.hand_size })}${away ? ` · ${t('table.away')}` : ''}</span>`;
  return html`<section class=${`player other${active ? ' active' : ''}${open ? ' open' : ''}`} aria-label=${name}
    data-area="other" data-seat=${idx}>
    ${ctx.watch
      ? html`<h2 class="sub"><span class="pname">${name}</span>${active ? html`<span class="playing">${t('lay.playing')}</span>` : null} ${meta}</h2>`
      : html`<button type="button" class="other-line" aria-expanded=${open ? 'true' : 'false'} onClick=${onToggle}>
        <span class="pname">${name}</span>${meta}
        <span class="minis" aria-hidden="true">${p.fields.map((f) => (f ? html`<span class=${`mini bean-${f[0]}`}>${f[1]}</span>` : html`<span class="mini">·</span>`))}</span>
        <span class="chev" aria-hidden="true">${open ? '▴' : '▾'}</span></button>`}
    ${open ? html`<ul class=${`fields n${p.fields.length}`}>${p.fields.map((f, i) => html`<${Field} i=${i} f=${f} worth=${p.harvest_values ? p.harvest_values[i] : undefined}
      acts=${null} ctx=${ctx} owner=${idx} />`)}</ul>` : null}
  </section>`;
}

function Own({ p, idx, ctx, tg, buy }) {
  const slot = !p.third_field && p.fields.length < 3 && ctx.view.mode === 'duo';
  return html`<section class=${`player own${ctx.view.active === idx ? ' active' : ''}`} aria-label=${t('table.fields')}
    data-area="fields">
    <h2 class="sub">${t('table.fields')} <span class="meta">${t('table.coins', { n: p.coins })}</span></h2>
    <ul class=${`fields n${p.fields.length + (slot ? 1 : 0)}`}>${p.fields.map((f, i) => html`<${Field} i=${i} f=${f}
      worth=${p.harvest_values ? p.harvest_values[i] : undefined} acts=${tg.fields[i]} ctx=${ctx} owner=${idx} />`)}
      ${slot ? html`<${ThirdSlot} buy=${buy} ctx=${ctx} />` : null}</ul>
  </section>`;
}

/** The CSS selectors of what a hint points at: the action's own button, and for a two-tap move the
 * bundle or hand card to pick first. */
function hintTargets(a) {
  const out = [`[data-act="${actKey(a)}"]`];
  if (a.type === 'give_hand') out.push(`[data-pick="hand:${a.index}"]`);
  else if (a.bean) out.push(`[data-pick="bundle:${a.bean}"]`);
  return out.map((x) => `.table ${x}`).join(', ');
}

export function Table({ id, s, sel, setSel, hidden, toggleHidden, onAct, watch, hotseat, onSkip, onHint }) {
  const view = s.view;
  const seat = s.seat;
  const locked0 = Boolean(s.pending || s.busy);
  const offered = locked0 || watch ? [] : view.legal_actions || [];
  // The move without a choice, which the client makes by itself (flow.js).
  const sole = seat !== null ? flowMove(view, offered) : null;
  const locked = locked0 || Boolean(sole);
  const legal = sole ? [] : offered;
  // A hint belongs to the version it was asked at; any newer version makes it stale.
  const [hint, setHint] = useState(null);
  const liveHint = hint && hint.version === s.version && legal.length > 0 && !hidden ? hint : null;
  // A bundle of the display (the hinted one, else one for a field of yours; or the one hand card that
  // can be picked) is picked already, so that one tap on a lit target moves it (flow.js). Picking is
  // not a move: nothing happens until a target is tapped, and another bundle or card is one tap away.
  const free = targets(legal, null, view);
  const only = sel ? null : preselect(free, view, legal, hidden, liveHint && !liveHint.failed ? liveHint.action : null);
  const chosen = sel || only;
  const tg = targets(legal, chosen, view);
  const [confirm, setConfirm] = useState(null); // a harvest that pays nothing, waiting for a yes
  const [openOther, setOpenOther] = useState(false);
  const [info, setInfo] = useState(null);
  const me = seat !== null ? view.players[seat] : null;
  // A harvest that pays nothing throws the field away: ask once more, unless it has a purpose in sight
  // (harvest + plant has one) or the hint on screen proposed it (flow.js asksFirst). Everything else
  // acts at once.
  const act = (a) => {
    const hinted = liveHint && !liveHint.failed && actKey(liveHint.action) === actKey(a);
    if (!a.then && asksFirst(view, a, legal, hinted)) {
      setConfirm(a);
      return;
    }
    setConfirm(null);
    setInfo(null);
    if (a.type === 'plant_hand') store.setPref('handRuleSeen', true);
    onAct(a);
  };
  // An empty boss that must get a card before the turn can end (the server does not offer to end it).
  const needy = view.phase === 'use' && offered.length > 0 && !offered.some((a) => a.type === 'end_phase');
  const ctx = { view, seat, sel: chosen, setSel, onAct: act, locked, hidden, online: s.online, seats: s.seats, watch, needy };
  const selName = !chosen ? '' : chosen.kind === 'bundle' ? bean(chosen.bean) : me && me.hand ? bean(me.hand[chosen.index]) : '';
  // With a card or bundle selected, the one sentence says where it may go.
  const banner = sole ? flowText(sole, view) || t('lay.auto', { what: label(sole, view, seat, hidden) })
    : sel ? t('lay.selected', { what: selName }) : only ? t('lay.picked', { what: selName })
      : bannerText(view, { seat, busy: s.busy, watch, conn: s.conn });
  const myTurn = legal.length > 0;
  const others = view.players.map((p, i) => [p, i]).filter(([, i]) => i !== seat);
  const buy = tg.buttons.find((a) => a.type === 'buy_field');
  const mainButtons = tg.buttons.filter((a) => a.type !== 'buy_field');
  // The move without a choice: shown for a moment ("No choice: ..."), then made. Once per version.
  const autoDone = useRef(0);
  useEffect(() => {
    if (!sole || autoDone.current === s.version) return undefined;
    const v = s.version;
    const id = setTimeout(() => { autoDone.current = v; onAct(sole); }, reducedMotion() ? 0 : AUTO_MS);
    return () => clearTimeout(id);
  }, [s.version, sole ? actKey(sole) : null]);
  useEffect(() => { setConfirm(null); }, [s.version]);
  const askHint = () => onHint().then(setHint, () => setHint({ version: s.version, failed: true }));
  // Mark the hinted targets after rendering, so no target component needs to know about hints.
  useEffect(() => {
    for (const el of document.querySelectorAll('.table .hinted')) el.classList.remove('hinted');
    if (!liveHint || liveHint.failed) return;
    for (const el of document.querySelectorAll(hintTargets(liveHint.action))) el.classList.add('hinted');
  });
  // A tapped target usually disappears with the move; keyboard players would land on <body> and have
  // to tab through the whole page again. Put them on the next thing they can do instead.
  useEffect(() => {
    if (document.activeElement && document.activeElement !== document.body) return;
    const next = document.querySelector('.table [data-pick], .table [data-act]');
    if (next) next.focus({ preventScroll: true });
  }, [s.version, sel, locked]);
  // "What is this?": a tap on a card or an area that is not a button explains it.
  const explain = (ev) => {
    if (ev.target.closest('button, a, input, .infopop')) return;
    const el = ev.target.closest('[data-info]');
    // The explanation shows in the other half of the screen, never over what it explains.
    const low = el ? el.getBoundingClientRect().top < window.innerHeight / 2 : false;
    setInfo(el ? { key: el.dataset.info, low } : null);
  };
  const missed = useAway(id, s, { watch, hotseat });
  const ruleFirst = me && !hidden && me.hand && me.hand.length > 1 && !store.prefs().handRuleSeen;

  const board = html`<div class="board">
    <${Strip} view=${view} tg=${tg} ctx=${ctx} />
    ${others.map(([p, i]) => html`<${Other} p=${p} idx=${i} ctx=${ctx} open=${watch || openOther}
      onToggle=${() => setOpenOther(!openOther)} />`)}
    ${me ? html`<${Own} p=${me} idx=${seat} ctx=${ctx} tg=${tg} buy=${buy} />` : null}
  </div>`;

  // Near the hand: what to do, its button, the notices about your move, the hint, then the hand.
  const dock = html`<div class="dock">
    <div data-area="hint" class="say">
      ${s.busy ? html`<${Steps} s=${s} seat=${seat} hotseat=${hotseat} hidden=${hidden} onSkip=${onSkip} />` : null}
      ${s.pending ? html`<p class="pending" role="status">${t(s.pendingStuck ? 'table.pending.offline' : 'table.pending')}</p>` : null}
      ${s.notice ? html`<p class="notice" role="alert">${t(`err.${s.notice}`) === `err.${s.notice}` ? t('err.generic', { msg: s.notice }) : t(`err.${s.notice}`)}</p>` : null}
      ${confirm ? html`<div class="confirm" role="alertdialog" aria-label=${t('lay.confirm.title')}>
        <p>${t('lay.confirm.zero', { n: me.fields[confirm.field] ? me.fields[confirm.field][1] : 0 })}</p>
        <div class="row"><button type="button" class="primary" data-confirm="yes"
          onClick=${() => { const a = confirm; setConfirm(null); setInfo(null); onAct(a); }}>${t('lay.confirm.yes')}</button>
        <button type="button" data-confirm="no" onClick=${() => setConfirm(null)}>${t('lay.confirm.no')}</button></div></div>` : null}
      <div class="bannerrow">
        <p class=${`banner${myTurn ? ' mine' : ''}${chosen ? ' selhint' : ''}`} role="status">${banner}</p>
        ${sel ? html`<button type="button" class="link cancel" onClick=${() => setSel(null)}>${t('table.cancel')}</button>` : null}
        ${mainButtons.length ? html`<div class="actionbar">${mainButtons.map((a) => html`<${Act} action=${a}
          label=${label(a, view, seat)} onAct=${act} primary=${a.type === 'end_phase'} />`)}</div>` : null}
      </div>
      ${myTurn || watch ? null : html`<${WaitOffer} s=${s} hotseat=${hotseat} />`}
      <${DockNotes} view=${view} />
      ${liveHint ? html`<p class="hint-box" role="status" data-hint=${liveHint.failed ? 'failed' : actKey(liveHint.action)}>${liveHint.failed
        ? t('hint.error')
        : html`<strong>${t('hint.title', { what: label(liveHint.action, view, seat) })}</strong> <${HintText} hint=${liveHint} view=${view} seat=${seat} />`}</p>` : null}
    </div>
    ${me ? html`<section class="handbox" aria-label=${t('table.hand')} data-area="hand" data-info="hand">
      <h2 class="sub">${t('table.hand')} <span class="meta">${cards(me.hand_size)}</span>
        ${ruleFirst ? html`<span class="rule">${t('lay.hand.rule')}</span>` : null}
        ${myTurn && onHint && !hidden && !liveHint ? html`<button type="button" class="link hintbtn" data-hint="ask"
          onClick=${askHint}>${t('hint.button')}</button>` : null}
        <button type="button" class="link hide-hand" aria-pressed=${hidden ? 'true' : 'false'} onClick=${toggleHidden}>
          ${hidden ? t('table.hand.show') : t('table.hand.hide')}</button></h2>
      <${Hand} me=${me} tg=${tg} ctx=${ctx} />
    </section>` : null}
  </div>`;

  // The table screen lays its parts out by how many players there are (tv-1: solo, tv-2: duo).
  return html`<div class=${`table${watch ? ` tv tv-${view.players.length}` : ''}`} data-version=${s.shownVersion ?? s.version} data-busy=${locked ? '1' : '0'}
    data-phase=${view.phase} onClick=${explain}>
    ${info ? html`<${InfoPop} info=${info.key} low=${info.low} view=${view} seat=${seat} onClose=${() => setInfo(null)} />` : null}
    ${board}
    ${watch ? html`<div data-area="hint" class="say" data-tv="turn"><p class="banner" role="status">${banner}</p>
      ${!s.busy && view.phase !== 'over' ? html`<p class="tv-phase" data-tv="phase">${phaseName(view.phase)}</p>` : null}
      ${s.busy ? html`<${Steps} s=${s} seat=${seat} hotseat=${hotseat} hidden=${hidden} onSkip=${onSkip} />` : null}</div>` : null}
    <div data-area="history-slot" class="history-slot" role=${watch ? 'region' : null}
      aria-label=${watch ? t('table.steps') : null} tabindex=${watch ? '0' : null}>
      ${watch ? html`<h2 class="sub">${t('table.steps')}</h2><${HistoryList} log=${s.log || []} limit=${3} />` : null}
      ${missed ? html`<${AwayPanel} away=${missed} />` : null}
      ${s.busy || watch || missed ? null : html`<${Steps} s=${s} seat=${seat} hotseat=${hotseat} hidden=${hidden} onSkip=${onSkip} />`}
    </div>
    ${watch ? null : dock}
  </div>`;
}
