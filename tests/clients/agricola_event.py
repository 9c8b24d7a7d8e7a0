"""A whole small Agricola event driven only through the Python client that
openapi-python-client generates from the service's OpenAPI document with its default
settings: no raw HTTP. A new integrator's first afternoon, as a test.

Usage: python agricola_event.py BASE_URL ADMIN_USERNAME ADMIN_PASSWORD
"""

import datetime
import sys
import uuid

from tourney_client import AuthenticatedClient, Client
from tourney_client.api.auth import issue_token, read_me
from tourney_client.api.cases import open_case, read_case
from tourney_client.api.players import create_player, list_players
from tourney_client.api.ratings import create_rating_pool, read_leaderboard
from tourney_client.api.registrations import list_registrations, register_player
from tourney_client.api.results import enter_result, read_result
from tourney_client.api.rounds import create_round, publish_round, read_round
from tourney_client.api.standings import read_standings
from tourney_client.api.tournaments import appoint_staff, create_tournament, read_tournament, update_tournament
from tourney_client.models import (
    AppointStaff,
    CaseEventOutType0,
    CaseEventOutType0What,
    CaseOut,
    CaseSubject,
    CreatePlayer,
    CreatePool,
    CreateRoundRandom,
    CreateRoundRandomMethod,
    CreateTournament,
    EnterResult,
    OpenCase,
    PageLeaderboardRowOut,
    PagePlayerOut,
    PageRegistrationOut,
    PageStaffOut,
    PlayerOut,
    PoolOut,
    PoolPreset,
    Problem,
    RegistrationOut,
    RegistrationStatus,
    Register,
    ResultSeat,
    ResultWithHistory,
    RoundOut,
    RoundStatus,
    RulesetPreset,
    StandingsOut,
    StaffRole,
    StandingsPurpose,
    TokenRequest,
    TournamentOut,
    TournamentStatus,
    UpdateTournament,
)


def expect(value, kind):
    """The call answered the documented success type, or the run stops with what it got."""
    if not isinstance(value, kind):
        detail = value.to_dict() if isinstance(value, Problem) else value
        raise SystemExit(f"expected {kind.__name__}, got {detail!r}")
    return value


def main(base: str, username: str, password: str) -> None:
    anonymous = Client(base_url=base, raise_on_unexpected_status=True)
    token = issue_token.sync(client=anonymous, body=TokenRequest(username=username, password=password))
    client = AuthenticatedClient(base_url=base, token=token.access_token, raise_on_unexpected_status=True)
    me = read_me.sync(client=client)
    assert me.is_admin, "the CI account is an admin"

    run = uuid.uuid4().hex[:8]
    pool = expect(
        create_rating_pool.sync(
            client=client,
            body=CreatePool(name=f"Agricola Norway {run}", preset=PoolPreset.AGRICOLA_NORWAY, time_zone="Europe/Oslo"),
        ),
        PoolOut,
    )

    players = []
    for i in range(8):
        p = expect(
            create_player.sync(
                client=client,
                body=CreatePlayer(name=f"Spiller {run} {i + 1}", club="Oslo Brettspillklubb", country="NO"),
                idempotency_key=f"player-{run}-{i}",
            ),
            PlayerOut,
        )
        players.append(p)
    found = expect(list_players.sync(client=anonymous, q=f"spiller {run}", limit=5), PagePlayerOut)
    assert found.total == 8 and len(found.items) == 5, found
    assert isinstance(found.items[0], PlayerOut)

    tournament = expect(
        create_tournament.sync(
            client=client,
            body=CreateTournament(
                name=f"Oslo Open {run}",
                game="Agricola",
                ruleset=RulesetPreset.AGRICOLA_NORWAY,
                planned_rounds=2,
                starts_on=datetime.date(2026, 3, 6),
                time_zone="Europe/Oslo",
                rating_pool_id=pool.id,
            ),
        ),
        TournamentOut,
    )
    opened = expect(
        update_tournament.sync(
            tournament.id,
            client=client,
            body=UpdateTournament(status=TournamentStatus.REGISTRATION_OPEN),
            if_match=f'"{tournament.version}"',
        ),
        TournamentOut,
    )
    assert opened.status == TournamentStatus.REGISTRATION_OPEN

    for i, p in enumerate(players):
        registered = expect(
            register_player.sync(
                tournament.id,
                client=client,
                body=Register(player_id=p.id, seeding_rating=1500.0 + 10 * i, seeding_rated_games=6),
            ),
            RegistrationOut,
        )
        assert registered.player_id == p.id, registered
    regs = expect(list_registrations.sync(tournament.id, client=anonymous), PageRegistrationOut)
    assert regs.total == 8
    assert all(r.status == RegistrationStatus.CONFIRMED for r in regs.items), regs

    strength = {p.id: 8 - i for i, p in enumerate(players)}
    for number in (1, 2):
        draft = expect(
            create_round.sync(
                tournament.id,
                client=client,
                body=CreateRoundRandom(method=CreateRoundRandomMethod.RANDOM),
                idempotency_key=f"round-{run}-{number}",
            ),
            RoundOut,
        )
        assert draft.status == RoundStatus.DRAFT and draft.effective_weight == "1"
        published = expect(publish_round.sync(tournament.id, draft.number, client=client), RoundOut)
        assert published.seed is not None
        for table in published.draw.tables:
            seats = [ResultSeat(player_id=pid, score=20 + 3 * strength[pid]) for pid in table.seats]
            result = expect(
                enter_result.sync(tournament.id, draft.number, table.number, client=client, body=EnterResult(seats=seats)),
                ResultWithHistory,
            )
            assert result.current.version == 1
        done = expect(read_round.sync(tournament.id, draft.number, client=anonymous), RoundOut)
        assert done.status == RoundStatus.COMPLETED, done.status

    # Correct one result with the ETag the read served: read, edit, send back.
    read = expect(read_result.sync(tournament.id, 1, 1, client=client), ResultWithHistory)
    seats = read.current.seats
    seats[0].bonus = 2
    corrected = expect(
        enter_result.sync(
            tournament.id,
            1,
            1,
            client=client,
            body=EnterResult(seats=seats, reason="bonus points were left out"),
            if_match=f'"{read.current.version}"',
        ),
        ResultWithHistory,
    )
    assert corrected.current.version == 2 and len(corrected.versions) == 2

    # A complaint about the corrected table: its history reads back as typed steps (a case's
    # step was left out of the generated client until 1.5.2).
    # The organiser referees and opens it for a player at the table: the referee decides.
    expect(
        appoint_staff.sync(tournament.id, client=client, body=AppointStaff(role=StaffRole.REFEREE, user_id=me.id)),
        PageStaffOut,
    )
    complaint = expect(
        open_case.sync(
            tournament.id,
            client=client,
            body=OpenCase(subject=CaseSubject.RESULT, round_=1, table=1,
                          complainant_player_id=read.current.seats[0].player_id,
                          statement="The bonus points were entered late."),
        ),
        CaseOut,
    )
    case = expect(read_case.sync(tournament.id, complaint.id, client=client), CaseOut)
    first_step = case.history[0]
    assert isinstance(first_step, CaseEventOutType0) and first_step.what == CaseEventOutType0What.OPENED, first_step
    assert first_step.author == me.id and first_step.at.year >= 2026, first_step

    standings = expect(
        read_standings.sync(tournament.id, client=anonymous, purpose=StandingsPurpose.FINAL), StandingsOut
    )
    assert standings.after_round == 2 and len(standings.rows) == 8
    tps = [row.tp for row in standings.rows]
    assert tps == sorted(tps, reverse=True), tps
    # The strongest player won both tables: 10 + 10 TP (another may tie on TP and lead on the
    # relative score, so the place is not asserted).
    strongest = next(row for row in standings.rows if row.player_id == players[0].id)
    assert strongest.tp == 20.0 and strongest.place <= 2, strongest
    expect(read_tournament.sync(tournament.id, client=anonymous), TournamentOut)

    board = expect(
        read_leaderboard.sync(pool.id, client=anonymous, include_provisional=True), PageLeaderboardRowOut
    )
    assert board.total == 8, board.total
    ratings = [row.rating for row in board.items]
    assert ratings == sorted(ratings, reverse=True), ratings
    by_player = {row.player_id: row.rating for row in board.items}
    # The strongest gained from both games; the weakest lost in both.
    assert by_player[players[0].id] > by_player[players[-1].id], by_player
    print(f"event {tournament.id}: 8 players, 2 rounds, 1 correction, 1 complaint; leader {standings.rows[0].player_name}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
