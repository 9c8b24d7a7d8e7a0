//! What each archived table holds: its own id and which columns name rows of other tables
//! (ids the import gives anew), and which JSON columns name players.

/// The kinds of ids an archive renames on import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Tournament,
    User,
    Player,
    Registration,
    Team,
    Round,
    Case,
    CaseParty,
    CaseEvent,
    Penalty,
    Withdrawal,
    Message,
    Report,
}

/// How a JSON column names players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonIds {
    /// A stored seating draw (`domain::seating::Draw`).
    Draw,
    /// A stored draw input (`domain::seating::DrawInput`).
    DrawInput,
    /// Any JSON: values under `player_id`, `players`, `player`, `playoff_winner` are players,
    /// under `penalty_id` penalties.
    Keyed,
}

/// One archived table.
#[derive(Debug)]
pub struct TableSpec {
    /// The archive's section.
    pub section: &'static str,
    /// The database table.
    pub table: &'static str,
    /// Its `id` column's kind (`None`: no id of its own).
    pub own: Option<Kind>,
    /// Columns naming other rows.
    pub refs: &'static [(&'static str, Kind)],
    /// JSON columns that name players.
    pub json: &'static [(&'static str, JsonIds)],
}

use JsonIds::{Draw, DrawInput, Keyed};
use Kind::*;

/// The tournament's own row.
pub const TOURNAMENT: TableSpec = TableSpec {
    section: "tournament",
    table: "tournaments",
    own: Some(Tournament),
    refs: &[("created_by", User), ("rating_decided_by", User)],
    json: &[],
};

/// Every table below the tournament, in import order (a row's references come first; a
/// case's `penalty_id` is set after the penalties).
pub const TABLES: &[TableSpec] = &[
    TableSpec {
        section: "staff",
        table: "tournament_staff",
        own: None,
        refs: &[
            ("tournament_id", Tournament),
            ("user_id", User),
            ("appointed_by", User),
        ],
        json: &[],
    },
    TableSpec {
        section: "registrations",
        table: "registrations",
        own: Some(Registration),
        refs: &[
            ("tournament_id", Tournament),
            ("player_id", Player),
            ("registered_by", User),
        ],
        json: &[],
    },
    TableSpec {
        section: "teams",
        table: "teams",
        own: Some(Team),
        refs: &[
            ("tournament_id", Tournament),
            ("pair_a1", Player),
            ("pair_a2", Player),
            ("pair_b1", Player),
            ("pair_b2", Player),
        ],
        json: &[],
    },
    TableSpec {
        section: "rounds",
        table: "rounds",
        own: Some(Round),
        refs: &[("tournament_id", Tournament), ("created_by", User)],
        json: &[("draw", Draw), ("colours", Keyed)],
    },
    TableSpec {
        section: "round_draws",
        table: "round_draws",
        own: None,
        refs: &[("round_id", Round), ("drawn_by", User)],
        json: &[("draw", Draw), ("draw_input", DrawInput)],
    },
    TableSpec {
        section: "cases",
        table: "cases",
        own: Some(Case),
        refs: &[
            ("tournament_id", Tournament),
            ("opened_by", User),
            ("decided_by", User),
            ("appeal_of", Case),
            ("penalty_id", Penalty),
        ],
        json: &[("remedy", Keyed), ("requested_remedies", Keyed)],
    },
    TableSpec {
        section: "case_parties",
        table: "case_parties",
        own: Some(CaseParty),
        refs: &[
            ("case_id", Case),
            ("user_id", User),
            ("player_id", Player),
            ("added_by", User),
        ],
        json: &[],
    },
    TableSpec {
        section: "case_panel",
        table: "case_panel",
        own: None,
        refs: &[("case_id", Case), ("user_id", User)],
        json: &[],
    },
    TableSpec {
        section: "votes",
        table: "votes",
        own: None,
        refs: &[("case_id", Case), ("member_id", User)],
        json: &[("remedy", Keyed)],
    },
    TableSpec {
        section: "case_events",
        table: "case_events",
        own: Some(CaseEvent),
        refs: &[("case_id", Case), ("author", User)],
        json: &[("detail", Keyed)],
    },
    TableSpec {
        section: "penalties",
        table: "penalties",
        own: Some(Penalty),
        refs: &[
            ("tournament_id", Tournament),
            ("player_id", Player),
            ("case_id", Case),
            ("issued_by", User),
            ("annulled_by", User),
        ],
        json: &[],
    },
    TableSpec {
        section: "results",
        table: "results",
        own: None,
        refs: &[
            ("round_id", Round),
            ("case_id", Case),
            ("entered_by", User),
            ("playoff_winner", Player),
        ],
        json: &[("seats", Keyed)],
    },
    TableSpec {
        section: "withdrawals",
        table: "withdrawals",
        own: Some(Withdrawal),
        refs: &[
            ("tournament_id", Tournament),
            ("player_id", Player),
            ("recorded_by", User),
        ],
        json: &[],
    },
    TableSpec {
        section: "game_schedules",
        table: "game_schedules",
        own: None,
        refs: &[
            ("round_id", Round),
            ("tournament_id", Tournament),
            ("waiting_on", Player),
            ("proposed_by", Player),
            ("forfeited_player", Player),
        ],
        json: &[],
    },
    TableSpec {
        section: "schedule_messages",
        table: "schedule_messages",
        own: Some(Message),
        refs: &[
            ("round_id", Round),
            ("player_id", Player),
            ("by_user", User),
        ],
        json: &[],
    },
    TableSpec {
        section: "result_reports",
        table: "result_reports",
        own: Some(Report),
        refs: &[
            ("round_id", Round),
            ("reported_by_player", Player),
            ("reported_by_user", User),
            ("answered_by_user", User),
            ("case_id", Case),
        ],
        json: &[("body", Keyed)],
    },
];

/// The keys whose values name players in a [`JsonIds::Keyed`] column.
pub const PLAYER_KEYS: &[&str] = &["player_id", "players", "player", "playoff_winner"];
/// The keys whose values name penalties in a [`JsonIds::Keyed`] column.
pub const PENALTY_KEYS: &[&str] = &["penalty_id"];
