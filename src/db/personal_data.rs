//! Columns that name an account or a player and are deliberately kept out of a person's export
//! (`services::accounts::export`), each with the reason. A column that names a person and is
//! neither exported nor listed here fails
//! `account_theft::every_column_that_names_a_person_is_exported_or_left_out_on_purpose`.

/// `(table.column, why it is not exported)`.
pub const LEFT_OUT: &[(&str, &str)] = &[
    (
        "idempotency_keys.user_id",
        "replayable answers to the account's own requests, which may hold secrets (a new API key's)",
    ),
    (
        "calendar_feeds.player_id",
        "the SHA-256 of the player's calendar token: nothing readable, the token is never kept",
    ),
];
