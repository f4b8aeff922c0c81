// Plays one game with a client generated from the served OpenAPI document (schema.d.ts, written by
// openapi-typescript; calls through openapi-fetch), compiled with tsc --strict and no casts: the views,
// actions and events are typed by the document. Usage: node build/play.js BASE_URL solo|duo
// Prints one JSON line: the game id, its final version, the result and how many events of each type.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Action = components["schemas"]["Action"];
type GameEvent = components["schemas"]["Event"];

declare const process: { argv: string[] };  // Node's (no @types/node needed for this one use)

const [base, mode] = process.argv.slice(2);
if (!base || (mode !== "solo" && mode !== "duo")) throw new Error("usage: play.js BASE_URL solo|duo");
const client = createClient<paths>({ baseUrl: base });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

const counts: Record<string, number> = {};
let coinsSeen = 0;

function note(events: GameEvent[]): void {
  for (const event of events) {
    counts[event.type] = (counts[event.type] ?? 0) + 1;
    // The union narrows on `type`: each branch has exactly its own fields.
    switch (event.type) {
      case "harvest":
        coinsSeen += event.coins;
        break;
      case "boss_harvest":
        coinsSeen += event.coins;
        break;
      case "game_over":
        if (event.result.scores.length === 0) throw new Error("a result without scores");
        break;
      case "draw":
        if (event.bean !== undefined && !["BL", "KI", "FI", "PU", "BR", "FR", "RU"].includes(event.bean)) {
          throw new Error(`unknown bean ${event.bean}`);
        }
        break;
      default:
        break;
    }
  }
}

function choose(legal: Action[]): Action {
  // Prefer planting, then anything but ending the phase or buying a field, else the first.
  const first = legal[0];
  if (!first) throw new Error("no legal action");
  const plant = legal.find((a) => a.type === "plant_hand" || a.type === "plant_display");
  if (plant) return plant;
  return legal.find((a) => a.type !== "end_phase" && a.type !== "buy_field") ?? first;
}

const created = await client.POST("/api/v1/games", { body: { mode, name: "TypeScript" } });
if (!created.data) throw new Error(`create: ${JSON.stringify(created.error)}`);
const gameId = created.data.game_id;
const tokens: string[] = [created.data.token];
if (mode === "duo") {
  const code = created.data.join_code;
  if (code === null) throw new Error("a duo game without a join code");
  const joined = await client.POST("/api/v1/games/join", { body: { code } });
  if (!joined.data) throw new Error(`join: ${JSON.stringify(joined.error)}`);
  tokens[joined.data.seat ?? 1] = joined.data.token;
}

// One seat's view of the game (the table's without a token), and the answer to one seat's move.
async function read(token?: string) {
  const got = await client.GET("/api/v1/games/{game_id}", {
    params: { path: { game_id: gameId } }, headers: token === undefined ? {} : bearer(token),
  });
  if (!got.data) throw new Error(`get: ${JSON.stringify(got.error)}`);
  return got.data;
}

async function act(token: string, action: Action, at: number) {
  const answer = await client.POST("/api/v1/games/{game_id}/actions", {
    params: { path: { game_id: gameId }, header: { "Idempotency-Key": crypto.randomUUID() } },
    headers: bearer(token),
    body: { action, version: at },
  });
  if (!answer.data) throw new Error(`act: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

let version = 0;
// The active seat's view: the answer to its last move while its turn goes on (one request per move),
// read again when the turn passed to another seat.
let mine: Awaited<ReturnType<typeof read>> | Awaited<ReturnType<typeof act>> | undefined;
for (let moves = 0; moves < 2000; moves++) {
  if (mine !== undefined && mine.view.phase === "over") {
    version = mine.version;
    break;
  }
  if (mine === undefined || mine.seat !== mine.view.active) {
    const table = await read();
    version = table.version;
    if (table.view.phase === "over") break;
    mine = await read(tokens[table.view.active] ?? "");
  }
  const token = tokens[mine.view.active];
  if (token === undefined) throw new Error("no token for the active seat");
  const answer = await act(token, choose(mine.view.legal_actions), mine.version);
  note(answer.events);
  mine = answer;
}

const log = await client.GET("/api/v1/games/{game_id}/events", {
  params: { path: { game_id: gameId }, query: { since: 0 } },
});
if (!log.data) throw new Error(`events: ${JSON.stringify(log.error)}`);
const final = await client.GET("/api/v1/games/{game_id}", { params: { path: { game_id: gameId } } });
if (!final.data) throw new Error("final read");
const result = final.data.view.result;
if (result === null) throw new Error("not over");
// A refused move: the problem is typed too, with its errors in one shape.
const refused = await client.POST("/api/v1/games/{game_id}/actions", {
  params: { path: { game_id: gameId } }, headers: bearer(tokens[0] ?? ""),
  body: { action: { type: "end_phase" }, version: 0 },
});
const problem = refused.error;
const pointers = problem && "errors" in problem && problem.errors ? problem.errors.map((e) => e.pointer) : [];
console.log(JSON.stringify({ game_id: gameId, version, log_entries: log.data.log.length, result, counts,
                             coins_seen: coinsSeen, refused: refused.response.status, pointers }));
