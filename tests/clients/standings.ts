// A club website reading a tournament's standings and a rating pool's leaderboard with the
// types openapi-typescript generates from the service's document. CI type-checks it
// (`tsc --noEmit --strict`) against the types generated in the same run: a renamed or
// retyped field breaks the build here before it breaks a site.
import type { components, paths } from "./schema";

type Standings = components["schemas"]["StandingsOut"];
type StandingsQuery = NonNullable<paths["/api/v1/tournaments/{id}/standings"]["get"]["parameters"]["query"]>;
type LeaderboardPage =
  paths["/api/v1/rating-pools/{id}/leaderboard"]["get"]["responses"][200]["content"]["application/json"];
type Problem = components["schemas"]["Problem"];

export async function standings(base: string, tournament: number, query: StandingsQuery = {}): Promise<Standings> {
  const params = new URLSearchParams();
  if (query.after_round !== undefined && query.after_round !== null) params.set("after_round", String(query.after_round));
  if (query.purpose) params.set("purpose", query.purpose);
  const r = await fetch(`${base}/api/v1/tournaments/${tournament}/standings?${params}`);
  if (!r.ok) {
    const problem = (await r.json()) as Problem;
    throw new Error(`${problem.status}: ${problem.detail ?? problem.title}`);
  }
  return (await r.json()) as Standings;
}

/** One table row per player: place, name, TP with two decimals, and the tie flag if any. */
export function rows(s: Standings): string[] {
  return s.rows.map((row) => {
    const tie = row.tie === "decided_by_lot" ? " (lot)" : row.tie === "playoff_needed" ? " (play-off)" : "";
    const perRound = row.tp_by_round.map((tp) => (tp === null ? "-" : tp.toFixed(2))).join(" ");
    const firstKey = Object.entries(row.tie_breaks)[0];
    const key = firstKey ? ` ${firstKey[0]}=${Array.isArray(firstKey[1]) ? firstKey[1].join("/") : firstKey[1]}` : "";
    return `${row.place}. ${row.player_name} ${row.tp.toFixed(2)} [${perRound}]${key}${tie}`;
  });
}

export function leaders(page: LeaderboardPage): string[] {
  return page.items.map((r) => `${r.rank}. ${r.player_name} (${r.country ?? "-"}) ${r.rating.toFixed(1)}`);
}
