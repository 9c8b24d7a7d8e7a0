// A club website written the way its developer would: openapi-fetch's `createClient<paths>()`
// over the types openapi-typescript generates from the service's document, no casts. It shows a
// tournament's standings, the rating list and the league table, and offers the rating list as a
// spreadsheet download. CI type-checks it (`tsc --noEmit --strict`) against the types generated
// in the same run: while one operation answered JSON or CSV, `data` was `Page | string` and
// `data.items` did not type-check (issue 30 item 4); the CSV now has operations of its own.
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export function clubClient(baseUrl: string, apiKey?: string) {
  return createClient<paths>({
    baseUrl,
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
  });
}

type Client = ReturnType<typeof clubClient>;

/** The standings after the last round: "1. Ada 21.00 (lot)" per player. */
export async function standingsLines(client: Client, tournament: number): Promise<string[]> {
  const { data, error } = await client.GET("/api/v1/tournaments/{id}/standings", {
    params: { path: { id: tournament }, query: { purpose: "final" } },
  });
  if (error) throw new Error(`${error.status}: ${error.detail ?? error.title}`);
  return data.rows.map((row) => {
    const tie = row.tie === "decided_by_lot" ? " (lot)" : row.tie === "playoff_needed" ? " (play-off)" : "";
    return `${row.place}. ${row.player_name} ${row.tp.toFixed(2)}${tie}`;
  });
}

/** The club's members on the rating list, a page at a time, with the total for a pager. */
export async function clubLeaderboard(
  client: Client,
  pool: number,
  club: string,
  page = 0,
): Promise<{ lines: string[]; total: number }> {
  const limit = 25;
  const { data, error } = await client.GET("/api/v1/rating-pools/{id}/leaderboard", {
    params: { path: { id: pool }, query: { club, include_provisional: true, limit, offset: page * limit } },
  });
  if (error) throw new Error(`${error.status}: ${error.detail ?? error.title}`);
  const lines = data.items.map((r) => {
    const mark = r.provisional ? "*" : "";
    return `${r.rank}. ${r.player_name}${mark} (${r.country ?? "-"}) ${r.rating.toFixed(1)} [${r.games}]`;
  });
  return { lines, total: data.total };
}

/** The league winner and the ranked table. */
export async function leagueTable(client: Client, pool: number): Promise<string[]> {
  const { data, error } = await client.GET("/api/v1/rating-pools/{id}/league", {
    params: { path: { id: pool } },
  });
  if (error) throw new Error(`${error.status}: ${error.detail ?? error.title}`);
  return data.rows.map((r) => `${r.rank ?? "-"}. ${r.player_name} ${r.average?.toFixed(1) ?? ""}`);
}

/** The whole rating list as CSV, for a "download as spreadsheet" link. */
export async function leaderboardCsv(client: Client, pool: number): Promise<Blob> {
  const { data, error } = await client.GET("/api/v1/rating-pools/{id}/leaderboard.csv", {
    params: { path: { id: pool }, query: { include_provisional: true } },
    parseAs: "text",
  });
  if (error) throw new Error(`${error.status}: ${error.detail ?? error.title}`);
  const text: string = data;
  return new Blob([text], { type: "text/csv" });
}

/** The standings as CSV, the first line its header. */
export async function standingsCsvHeader(client: Client, tournament: number): Promise<string[]> {
  const { data, error } = await client.GET("/api/v1/tournaments/{id}/standings.csv", {
    params: { path: { id: tournament } },
    parseAs: "text",
  });
  if (error) throw new Error(`${error.status}: ${error.detail ?? error.title}`);
  return (data.split("\n")[0] ?? "").split(",");
}
