// Maps view.legal_actions onto what the player can tap. No rules here (the server decides, docs/protocol.md §3): a target
// exists only because the server listed an action for it. Two-part moves (a bundle or a hand card, then
// where it goes) use a selection; everything else is one tap on the thing it concerns.

/** A stable string for an action: used as a key and as `data-act` for tests and keyboard focus. */
export function actKey(a) {
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
 */
export function targets(legal, sel) {
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
  return t;
}

/** Keep a selection only while it still names something selectable. */
export function validSelection(legal, sel) {
  if (!sel) return null;
  const t = targets(legal, null);
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
