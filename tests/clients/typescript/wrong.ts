// Must NOT compile (tests/clients/test_generated_clients.py): the generated event union has no `coins`
// on a reveal, and a view's `discard_top` may be null.
import type { components } from "./schema.js";

export function wrong(event: components["schemas"]["Event"], view: components["schemas"]["View"]): number {
  if (event.type === "reveal") return event.coins;
  return view.discard_top.length;
}
