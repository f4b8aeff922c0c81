// The table: the Mafia, the middle (deck, discard, display), the other player, own fields and hand.
// While the Mafia's steps play out they sit right under the banner, where the eye is; afterwards they
// move to the bottom as a record of the last move.
// Every tappable thing comes from targets(view.legal_actions, selection); nothing else reacts.

import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { t, bean, boss as bossName } from '../i18n.js';
import { targets, bundles, actKey } from '../targets.js';
import { Bean, Act, cards } from './bits.js';
import { Steps } from './steps.js';
import { bannerText } from './banner.js';
import { HintText } from './hinttext.js';
import { seatName } from '../names.js';

const BOSS_ORDER = ['al', 'don', 'joe'];

function label(a, view, seat, hidden = false) {
  const me = view.players[seat] || {};
  switch (a.type) {
    case 'harvest': return t('act.harvest', { n: me.harvest_values ? me.harvest_values[a.field] : 0 });
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

function Boss({ name, held, acts, ctx }) {
  const lit = acts && acts.length;
  return html`<li class=${`boss${lit ? ' target' : ''}`} aria-label=${bossName(name)} data-area="boss" data-boss=${name}>
    <div class="boss-name">${bossName(name)}</div>
    ${held ? html`<${Bean} code=${held[0]} count=${held[1]} />` : html`<span class="empty">${t('table.boss.empty')}</span>`}
    ${lit ? acts.map((a) => html`<${Act} action=${a} label=${label(a, ctx.view, ctx.seat, ctx.hidden)} onAct=${ctx.onAct} disabled=${ctx.locked} />`) : null}
  </li>`;
}

function Field({ i, f, worth, acts, ctx, owner }) {
  const lit = acts && acts.length;
  return html`<li class=${`field${lit ? ' target' : ''}`} data-area="field" data-field=${`${owner}-${i}`}>
    <div class="field-head">${t('table.field', { n: i + 1 })}</div>
    ${f ? html`<${Bean} code=${f[0]} count=${f[1]} />` : html`<span class="empty">${t('table.field.empty')}</span>`}
    ${f && ctx.seat !== null && worth !== undefined ? html`<div class="worth">${t('table.field.worth', { n: worth })}</div>` : null}
    ${lit ? html`<div class="acts">${acts.map((a) => html`<${Act} action=${a} label=${label(a, ctx.view, ctx.seat, ctx.hidden)} onAct=${ctx.onAct} disabled=${ctx.locked} />`)}</div>` : null}
  </li>`;
}

function Middle({ view, tg, ctx }) {
  const sel = ctx.sel;
  return html`<section class="middle" aria-label=${t('table.display')}>
    <div class="piles">
      <div class="pile" data-area="deck"><div class="pile-name">${t('table.deck')}</div>
        <div>${cards(view.deck_size)}</div><div class="pass">${t('table.pass', { n: view.pass })}</div></div>
      <div class=${`pile${tg.discard.length ? ' target' : ''}`} data-area="discard"><div class="pile-name">${t('table.discard')}</div>
        ${view.discard_top ? html`<${Bean} code=${view.discard_top} small />` : html`<span class="empty">${t('table.discard.empty')}</span>`}
        <div>${cards(view.discard_size)}</div>
        ${tg.discard.map((a) => html`<${Act} action=${a} label=${label(a, view, ctx.seat)} onAct=${ctx.onAct} disabled=${ctx.locked} />`)}
      </div>
    </div>
    <div data-area="display"><h2 class="sub">${t('table.display')}</h2>
    ${view.display.length ? html`<ul class="bundles">${bundles(view.display).map((b, bi) => {
      const pickable = tg.bundles.has(b.bean) && !ctx.locked;
      const on = sel && sel.kind === 'bundle' && sel.bean === b.bean;
      return html`<li data-bundle=${bi}>${pickable
        ? html`<button type="button" class=${`pick${on ? ' on' : ''}`} aria-pressed=${on ? 'true' : 'false'}
            data-pick=${`bundle:${b.bean}`} onClick=${() => ctx.setSel(on ? null : { kind: 'bundle', bean: b.bean })}>
            <${Bean} code=${b.bean} count=${b.count} /></button>`
        : html`<div class="bundle"><${Bean} code=${b.bean} count=${b.count} /></div>`}</li>`;
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
    const inner = html`<${Bean} code=${code} />${i === 0 ? html`<span class="front">${t('table.hand.front')}</span>` : null}`;
    return html`<li class=${i === 0 ? 'first' : ''} data-hand=${i}>${pickable
      ? html`<button type="button" class=${`pick${on ? ' on' : ''}`} aria-pressed=${on ? 'true' : 'false'}
          data-pick=${`hand:${i}`} onClick=${() => ctx.setSel(on ? null : { kind: 'hand', index: i })}>${inner}</button>`
      : html`<div class="card">${inner}</div>`}</li>`;
  })}</ol>`;
}

function Player({ p, idx, ctx, tg, own }) {
  // The other players by name (names.js: the chosen name, Computer for the bot, else Player n).
  const title = own ? t('table.fields') : seatName(idx, ctx.seats);
  // Presence comes only over the socket; without it we say nothing rather than guess.
  const seatInfo = (ctx.seats || []).find((x) => x.seat === idx);
  const bot = !own && seatInfo && seatInfo.bot;
  const away = !own && !bot && ctx.online && ctx.online[idx] === false;
  return html`<section class=${`player${own ? ' own' : ''}${ctx.view.active === idx ? ' active' : ''}`} aria-label=${title}
    data-area=${own ? 'fields' : 'other'}>
    <h2 class="sub"><span class=${own ? '' : 'pname'}>${title}</span> <span class="meta">${t('table.coins', { n: p.coins })}${own ? '' : ` · ${t('table.hand.size', { n: p.hand_size })}`}${away ? ` · ${t('table.away')}` : ''}</span></h2>
    <ul class="fields">${p.fields.map((f, i) => html`<${Field} i=${i} f=${f} worth=${p.harvest_values ? p.harvest_values[i] : undefined}
      acts=${own ? tg.fields[i] : null} ctx=${ctx} owner=${idx} />`)}</ul>
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

export function Table({ s, sel, setSel, hidden, toggleHidden, onAct, watch, hotseat, onSkip, onHint }) {
  const view = s.view;
  const seat = s.seat;
  const locked = Boolean(s.pending || s.busy);
  const legal = locked ? [] : view.legal_actions || [];
  const tg = targets(legal, sel);
  const ctx = { view, seat, sel, setSel, onAct, locked, hidden, online: s.online, seats: s.seats };
  const banner = bannerText(view, { seat, busy: s.busy, watch });
  const myTurn = legal.length > 0;
  const others = view.players.map((p, i) => [p, i]).filter(([, i]) => i !== seat);
  // A hint belongs to the version it was asked at; any newer version makes it stale.
  const [hint, setHint] = useState(null);
  const liveHint = hint && hint.version === s.version && myTurn && !hidden ? hint : null;
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
  return html`<div class="table" data-version=${s.version} data-busy=${locked ? '1' : '0'} data-phase=${view.phase}>
    <div data-area="hint"><p class=${`banner${myTurn ? ' mine' : ''}`} role="status">${banner}</p>
    ${sel ? html`<p class="selhint">${t('table.selected', { what: sel.kind === 'bundle' ? bean(sel.bean) : bean(view.players[seat].hand[sel.index]) })}
      <button type="button" class="link" onClick=${() => setSel(null)}>${t('table.cancel')}</button></p>` : null}
    ${s.busy ? html`<${Steps} s=${s} seat=${seat} hotseat=${hotseat} hidden=${hidden} onSkip=${onSkip} />` : null}
    ${myTurn && onHint && !hidden && !liveHint ? html`<p class="hintbar"><button type="button" class="link" data-hint="ask"
      onClick=${askHint}>${t('hint.button')}</button></p>` : null}
    ${liveHint ? html`<p class="hint-box" role="status" data-hint=${liveHint.failed ? 'failed' : actKey(liveHint.action)}>${liveHint.failed
      ? t('hint.error')
      : html`<strong>${t('hint.title', { what: label(liveHint.action, view, seat) })}</strong> <${HintText} hint=${liveHint} view=${view} seat=${seat} />`}</p>` : null}
    </div>
    ${s.pending ? html`<p class="pending" role="status">${t(s.pendingStuck ? 'table.pending.offline' : 'table.pending')}</p>` : null}
    ${s.notice ? html`<p class="notice" role="alert">${t(`err.${s.notice}`) === `err.${s.notice}` ? t('err.generic', { msg: s.notice }) : t(`err.${s.notice}`)}</p>` : null}
    <section class="mafia" aria-label=${t('table.mafia')} data-area="mafia">
      <h2 class="sub">${t('table.mafia')} <span class="meta" data-area="treasury">${t('table.treasury', { n: view.treasury })}</span></h2>
      <ul class="bosses">${BOSS_ORDER.filter((b) => b in view.bosses).map((b) => html`<${Boss} name=${b} held=${view.bosses[b]} acts=${tg.bosses[b]} ctx=${ctx} />`)}</ul>
    </section>
    <${Middle} view=${view} tg=${tg} ctx=${ctx} />
    ${others.map(([p, i]) => html`<${Player} p=${p} idx=${i} ctx=${ctx} tg=${tg} own=${false} />`)}
    ${seat !== null ? html`
      <${Player} p=${view.players[seat]} idx=${seat} ctx=${ctx} tg=${tg} own=${true} />
      <section class="handbox" aria-label=${t('table.hand')} data-area="hand">
        <h2 class="sub">${t('table.hand')} <span class="meta">${cards(view.players[seat].hand_size)}</span>
          <button type="button" class="link hide-hand" aria-pressed=${hidden ? 'true' : 'false'} onClick=${toggleHidden}>
            ${hidden ? t('table.hand.show') : t('table.hand.hide')}</button></h2>
        <${Hand} me=${view.players[seat]} tg=${tg} ctx=${ctx} />
      </section>` : null}
    ${tg.buttons.length ? html`<div class="actionbar">${tg.buttons.map((a) => html`<${Act} action=${a}
      label=${label(a, view, seat)} onAct=${onAct} primary=${a.type === 'end_phase'} />`)}</div>` : null}
    ${s.busy ? null : html`<${Steps} s=${s} seat=${seat} hotseat=${hotseat} hidden=${hidden} onSkip=${onSkip} />`}
    <div data-area="history-slot"></div>
  </div>`;
}
