// Maps view.legal_actions onto what the player can tap. No rules here (the server decides, docs/protocol.md §3): a target
// exists only because the server listed an action for it. Two-part moves (a bundle or a hand card, then
// where it goes) use a selection; everything else is one tap on the thing it concerns.

/** A stable string for an action: used as a key and as `data-act` for tests and keyboard focus. A
 * harvest that makes room for a planting (`then`, see harvestThenPlant) is `harvest:1+plant_hand:1`. */
export function actKey(a) {
  if (a.then) return `${actKey({ ...a, then: undefined })}+${actKey(a.then)}`;
  switch (a.type) {
    case 'harvest': case 'pay': case 'plant_hand': return `${a.type}:${a.field}`;
    case 'plant_display': return `${a.type}:${a.bean}:${a.field}`;
    case 'discard_display': return `${a.type}:${a.bean}`;
    case 'give_display': return `${a.type}:${a.bean}:${a.boss}`;
    case 'give_hand': return `${a.type}:${a.index}:${a.boss}`;
    default: return a.type;
  }
}

/**
 * @param {object[]} legal  view.legal_actions
 * @param {null|{kind:'bundle',bean:string}|{kind:'hand',index:number}} sel
 * @param {object} [view]  the seat's view: with it, a field also offers "harvest + plant" (harvestThenPlant)
 */
export function targets(legal, sel, view = null) {
  const t = { fields: {}, bosses: {}, discard: [], buttons: [], bundles: new Set(), hand: new Set() };
  const add = (map, k, a) => { (map[k] = map[k] || []).push(a); };
  for (const a of legal) {
    switch (a.type) {
      case 'harvest': case 'pay': case 'plant_hand':
        add(t.fields, a.field, a);
        break;
      case 'plant_display':
        t.bundles.add(a.bean);
        if (sel && sel.kind === 'bundle' && sel.bean === a.bean) add(t.fields, a.field, a);
        break;
      case 'discard_display':
        t.bundles.add(a.bean);
        if (sel && sel.kind === 'bundle' && sel.bean === a.bean) t.discard.push(a);
        break;
      case 'give_display':
        t.bundles.add(a.bean);
        if (sel && sel.kind === 'bundle' && sel.bean === a.bean) add(t.bosses, a.boss, a);
        break;
      case 'give_hand':
        t.hand.add(a.index);
        if (sel && sel.kind === 'hand' && sel.index === a.index) add(t.bosses, a.boss, a);
        break;
      default:
        t.buttons.push(a); // end_phase, buy_field
    }
  }
  if (view) {
    // A bundle that can go nowhere now but onto a field a harvest makes room on can be picked too.
    for (const b of new Set(view.display || [])) {
      if (!t.bundles.has(b) && Object.keys(harvestThenPlant(view, legal, { kind: 'bundle', bean: b })).length) {
        t.bundles.add(b);
      }
    }
    for (const [field, a] of Object.entries(harvestThenPlant(view, legal, sel))) add(t.fields, field, a);
  }
  return t;
}

/**
 * "Harvest + plant": one tap on a field that makes room by harvesting it and then plants there. What
 * would be planted is the front card while planting, or the selected display bundle; it is offered
 * only while that bean has nowhere to go (the server lists no planting of it: none of your fields grows
 * it, and none is empty), on each field of yours the server lets you harvest. This is a guess about
 * the next move, not a rule: the client sends the harvest, and the planting only if the server's
 * answer then lists it (sync.js act).
 * Returns {field: harvest action with `then`, the planting}.
 */
export function harvestThenPlant(view, legal, sel) {
  const me = view.players[view.seat];
  if (!me || !me.fields) return {};
  let bean = null;
  let plant = null;
  if (view.phase === 'plant' && me.hand && me.hand.length && view.planted < 2) {
    bean = me.hand[0];
    plant = (field) => ({ type: 'plant_hand', field });
  } else if ((view.phase === 'leftovers' || view.phase === 'use') && sel && sel.kind === 'bundle') {
    bean = sel.bean;
    plant = (field) => ({ type: 'plant_display', bean, field });
  }
  if (!bean) return {};
  const type = plant(0).type;
  if (legal.some((a) => a.type === type && (type === 'plant_hand' || a.bean === bean))) return {};
  const out = {};
  for (const a of legal) {
    if (a.type === 'harvest') out[a.field] = { ...a, then: plant(a.field) };
  }
  return out;
}

/** Keep a selection only while it still names something selectable (`view` as for targets). */
export function validSelection(legal, sel, view = null) {
  if (!sel) return null;
  const t = targets(legal, null, view);
  if (sel.kind === 'bundle' && t.bundles.has(sel.bean)) return sel;
  if (sel.kind === 'hand' && t.hand.has(sel.index)) return sel;
  return null;
}

/** The display as bundles in arrival order of their first card: [{bean, count}]. */
export function bundles(display) {
  const out = [];
  for (const b of display) {
    const found = out.find((x) => x.bean === b);
    if (found) found.count += 1;
    else out.push({ bean: b, count: 1 });
  }
  return out;
}
