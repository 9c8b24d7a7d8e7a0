// The diesel schema, written to match `migrations/` (a test checks the two agree by running
// every query of the service against the migrated database).

diesel::table! {
    users (id) {
        id -> Int8,
        username -> Text,
        password_hash -> Text,
        is_admin -> Bool,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    players (id) {
        id -> Int8,
        name -> Text,
        club -> Nullable<Text>,
        country -> Nullable<Text>,
        user_id -> Nullable<Int8>,
        created_by -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    tournaments (id) {
        id -> Int8,
        name -> Text,
        game -> Text,
        ruleset -> Text,
        ruleset_overrides -> Jsonb,
        table_size -> Int4,
        planned_rounds -> Int4,
        starts_on -> Date,
        ends_on -> Date,
        time_zone -> Text,
        venue -> Nullable<Text>,
        status -> Text,
        registration_deadline -> Nullable<Timestamptz>,
        appeal_window_minutes -> Int4,
        created_by -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        version -> Int4,
    }
}

diesel::table! {
    tournament_staff (tournament_id, user_id, role) {
        tournament_id -> Int8,
        user_id -> Int8,
        role -> Text,
        appointed_by -> Int8,
        appointed_at -> Timestamptz,
    }
}

diesel::joinable!(players -> users (user_id));
diesel::joinable!(tournament_staff -> tournaments (tournament_id));

diesel::allow_tables_to_appear_in_same_query!(users, players, tournaments, tournament_staff);
