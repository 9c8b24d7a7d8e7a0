// The diesel schema, written to match `migrations/` (a test checks the two agree by running
// every query of the service against the migrated database).

diesel::table! {
    users (id) {
        id -> Int8,
        username -> Text,
        password_hash -> Text,
        is_admin -> Bool,
        created_at -> Timestamptz,
        session_epoch -> Int4,
        disabled_at -> Nullable<Timestamptz>,
        deleted_at -> Nullable<Timestamptz>,
        email -> Nullable<Text>,
        email_verified_at -> Nullable<Timestamptz>,
        language -> Text,
    }
}

diesel::table! {
    account_tokens (id) {
        id -> Int8,
        user_id -> Int8,
        purpose -> Text,
        token_hash -> Bytea,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
        /// A verification code's sign-up password (its hash), set when the code is redeemed.
        password_hash -> Nullable<Text>,
        /// An address-change code's new address (the one it confirms).
        email -> Nullable<Text>,
    }
}

diesel::table! {
    invitations (id) {
        id -> Int8,
        tournament_id -> Int8,
        email -> Text,
        player_id -> Nullable<Int8>,
        message -> Nullable<Text>,
        invited_by -> Nullable<Int8>,
        token_hash -> Bytea,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        revoked_at -> Nullable<Timestamptz>,
        accepted_at -> Nullable<Timestamptz>,
        accepted_by -> Nullable<Int8>,
    }
}

diesel::table! {
    player_claims (id) {
        id -> Int8,
        player_id -> Int8,
        user_id -> Int8,
        message -> Text,
        status -> Text,
        reason -> Nullable<Text>,
        decided_by -> Nullable<Int8>,
        created_at -> Timestamptz,
        decided_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    /// Every link of a player to an account and every cut (written by a trigger on
    /// `players.user_id`).
    player_links (id) {
        id -> Int8,
        player_id -> Int8,
        linked -> Bool,
        account_id -> Int8,
        via -> Text,
        claim_id -> Nullable<Int8>,
        invitation_id -> Nullable<Int8>,
        decided_by -> Nullable<Int8>,
        at -> Timestamptz,
    }
}

diesel::table! {
    mail_outbox (id) {
        id -> Int8,
        user_id -> Nullable<Int8>,
        to_address -> Text,
        subject -> Text,
        /// The text as it is sent; `NULL` once sent or given up (codes live only until then).
        body -> Nullable<Text>,
        created_at -> Timestamptz,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        sent_at -> Nullable<Timestamptz>,
        failed_at -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
        /// What the message is (`verify`, `reset`, `invitation`, ...).
        kind -> Text,
        /// The random part of its `Message-ID`.
        message_id -> Text,
    }
}

diesel::table! {
    refresh_tokens (id) {
        id -> Int8,
        family_id -> Int8,
        user_id -> Int8,
        token_hash -> Bytea,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        rotated_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    result_reports (id) {
        id -> Int8,
        round_id -> Int8,
        table_number -> Int4,
        reported_by_player -> Int8,
        reported_by_user -> Nullable<Int8>,
        body -> Jsonb,
        status -> Text,
        created_at -> Timestamptz,
        answer_by -> Timestamptz,
        answered_at -> Nullable<Timestamptz>,
        answered_by_user -> Nullable<Int8>,
        case_id -> Nullable<Int8>,
    }
}

diesel::table! {
    /// A player's private calendar feed (issue 41 item 4): the SHA-256 of its URL's token.
    calendar_feeds (player_id) {
        player_id -> Int8,
        token_hash -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    game_schedules (round_id, table_number) {
        round_id -> Int8,
        table_number -> Int4,
        tournament_id -> Int8,
        state -> Text,
        waiting_on -> Nullable<Int8>,
        waiting_since -> Nullable<Timestamptz>,
        proposed_by -> Nullable<Int8>,
        proposed_times -> Array<Timestamptz>,
        agreed_time -> Nullable<Timestamptz>,
        leader_told_at -> Nullable<Timestamptz>,
        forfeited_player -> Nullable<Int8>,
        forfeited_at -> Nullable<Timestamptz>,
        rescheduled -> Bool,
        unscheduled_told_for -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    schedule_messages (id) {
        id -> Int8,
        round_id -> Int8,
        table_number -> Int4,
        player_id -> Nullable<Int8>,
        kind -> Text,
        times -> Array<Timestamptz>,
        note -> Nullable<Text>,
        by_user -> Nullable<Int8>,
        at -> Timestamptz,
    }
}

diesel::table! {
    pool_events (id) {
        id -> Int8,
        pool_id -> Int8,
        kind -> Text,
        payload -> Jsonb,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> Int8,
        tournament_id -> Nullable<Int8>,
        pool_id -> Nullable<Int8>,
        url -> Text,
        kinds -> Array<Text>,
        secret -> Text,
        cursor_id -> Int8,
        created_by -> Int8,
        created_at -> Timestamptz,
        paused -> Bool,
        previous_secret -> Nullable<Text>,
        previous_secret_until -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
        last_error_at -> Nullable<Timestamptz>,
        last_delivered_at -> Nullable<Timestamptz>,
        deleted_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Int8,
        endpoint_id -> Int8,
        event_id -> Nullable<Int8>,
        kind -> Text,
        body -> Jsonb,
        status -> Text,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        last_status -> Nullable<Int4>,
        last_error -> Nullable<Text>,
        created_at -> Timestamptz,
        delivered_at -> Nullable<Timestamptz>,
        message_id -> Text,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Int8,
        user_id -> Int8,
        name -> Text,
        prefix -> Text,
        key_hash -> Bytea,
        scopes -> Array<Text>,
        tournament_id -> Nullable<Int8>,
        pool_id -> Nullable<Int8>,
        created_at -> Timestamptz,
        expires_at -> Nullable<Timestamptz>,
        last_used_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
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
        /// `tourney_fold(name)`, generated: what search matches.
        name_folded -> Nullable<Text>,
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
        rating_pool_id -> Nullable<Int8>,
        national_rank -> Bool,
        announced_at -> Nullable<Timestamptz>,
        prize_places -> Int4,
        qualification_places -> Int4,
        rating_status -> Nullable<Text>,
        rating_reason -> Nullable<Text>,
        rating_decided_by -> Nullable<Int8>,
        rating_decided_at -> Nullable<Timestamptz>,
        checked_out_to -> Nullable<Text>,
        checked_out_at -> Nullable<Timestamptz>,
        /// `tourney_fold(name)`, generated: what search matches.
        name_folded -> Nullable<Text>,
        country -> Nullable<Text>,
    }
}

diesel::table! {
    tournament_checkouts (id) {
        id -> Int8,
        tournament_id -> Int8,
        runs_at -> Text,
        base -> Jsonb,
        checked_out_by -> Int8,
        checked_out_at -> Timestamptz,
        state -> Text,
        closed_by -> Nullable<Int8>,
        closed_at -> Nullable<Timestamptz>,
        reason -> Nullable<Text>,
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

diesel::table! {
    registrations (id) {
        id -> Int8,
        tournament_id -> Int8,
        player_id -> Int8,
        status -> Text,
        seeding_rating -> Nullable<Float8>,
        seeding_rated_games -> Int4,
        registered_by -> Int8,
        registered_at -> Timestamptz,
        cancelled_at -> Nullable<Timestamptz>,
        colour_first -> Nullable<Text>,
        colour_second -> Nullable<Text>,
    }
}

diesel::table! {
    teams (id) {
        id -> Int8,
        tournament_id -> Int8,
        number -> Int4,
        name -> Text,
        pair_a1 -> Int8,
        pair_a2 -> Int8,
        pair_b1 -> Int8,
        pair_b2 -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    rounds (id) {
        id -> Int8,
        tournament_id -> Int8,
        number -> Int4,
        kind -> Text,
        method -> Text,
        options -> Jsonb,
        weight -> Nullable<Text>,
        metadata -> Jsonb,
        status -> Text,
        seed -> Text,
        seed_commitment -> Text,
        draw -> Json,
        draw_count -> Int4,
        created_by -> Int8,
        created_at -> Timestamptz,
        published_at -> Nullable<Timestamptz>,
        completed_at -> Nullable<Timestamptz>,
        version -> Int4,
        played_at -> Nullable<Timestamptz>,
        played_at_fixed -> Bool,
        colours -> Nullable<Jsonb>,
        self_scheduled_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    round_draws (round_id, attempt) {
        round_id -> Int8,
        attempt -> Int4,
        seed -> Text,
        seed_commitment -> Text,
        draw_input -> Json,
        draw -> Json,
        drawn_by -> Int8,
        drawn_at -> Timestamptz,
    }
}

diesel::table! {
    results (round_id, table_number, version) {
        round_id -> Int8,
        table_number -> Int4,
        version -> Int4,
        seats -> Jsonb,
        double_crash -> Bool,
        reason -> Nullable<Text>,
        case_id -> Nullable<Int8>,
        entered_by -> Int8,
        entered_at -> Timestamptz,
        playoff_winner -> Nullable<Int8>,
    }
}

diesel::table! {
    withdrawals (id) {
        id -> Int8,
        tournament_id -> Int8,
        player_id -> Int8,
        kind -> Text,
        from_round -> Int4,
        reason -> Nullable<Text>,
        recorded_by -> Int8,
        recorded_at -> Timestamptz,
    }
}

diesel::table! {
    penalties (id) {
        id -> Int8,
        tournament_id -> Int8,
        player_id -> Int8,
        kind -> Text,
        round_number -> Nullable<Int4>,
        table_number -> Nullable<Int4>,
        points -> Int4,
        reason -> Text,
        case_id -> Nullable<Int8>,
        issued_by -> Int8,
        issued_at -> Timestamptz,
        annulled_by -> Nullable<Int8>,
        annulled_at -> Nullable<Timestamptz>,
        annul_reason -> Nullable<Text>,
    }
}

diesel::table! {
    idempotency_keys (user_id, key) {
        user_id -> Int8,
        key -> Text,
        request_hash -> Text,
        status -> Int4,
        body -> Text,
        headers -> Jsonb,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    tournament_events (id) {
        id -> Int8,
        tournament_id -> Int8,
        kind -> Text,
        payload -> Jsonb,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    rating_pools (id) {
        id -> Int8,
        name -> Text,
        params -> Jsonb,
        time_zone -> Text,
        seasons -> Jsonb,
        league -> Bool,
        created_by -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        version -> Int4,
        leaderboard_version -> Int8,
        open -> Bool,
        log_rewrites -> Int8,
        log_rewritten_from -> Nullable<Int8>,
        name_folded -> Nullable<Text>,
    }
}

diesel::table! {
    pool_keepers (pool_id, user_id) {
        pool_id -> Int8,
        user_id -> Int8,
        granted_by -> Int8,
        granted_at -> Timestamptz,
    }
}

diesel::table! {
    rating_decisions (id) {
        id -> Int8,
        tournament_id -> Int8,
        pool_id -> Int8,
        rating_status -> Text,
        reason -> Nullable<Text>,
        announced_at -> Nullable<Timestamptz>,
        decided_by -> Int8,
        decided_at -> Timestamptz,
        /// `status` (a request or decision), `time_changed`, `time_change_refused`.
        kind -> Text,
        field -> Nullable<Text>,
        old_value -> Nullable<Text>,
        new_value -> Nullable<Text>,
    }
}

diesel::table! {
    rating_standings (pool_id, player_id) {
        pool_id -> Int8,
        player_id -> Int8,
        rating -> Float8,
        games -> Int8,
        last_played -> Nullable<Timestamptz>,
        trend_games -> Int8,
        trend_delta -> Float8,
        last_delta -> Nullable<Float8>,
    }
}

diesel::table! {
    rating_changes (pool_id, sequence, player_id) {
        pool_id -> Int8,
        sequence -> Int8,
        player_id -> Int8,
        kind -> Text,
        tournament_id -> Int8,
        round_id -> Int8,
        table_number -> Int4,
        result_version -> Int4,
        rated_at -> Timestamptz,
        rating_before -> Float8,
        rating_after -> Float8,
        delta -> Float8,
        games -> Int4,
    }
}

diesel::table! {
    rating_imports (id) {
        id -> Int8,
        pool_id -> Int8,
        applies_at -> Timestamptz,
        source -> Text,
        imported_by -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    rating_import_rows (import_id, player_id) {
        import_id -> Int8,
        player_id -> Int8,
        rating -> Float8,
        games -> Int4,
    }
}

diesel::table! {
    cases (id) {
        id -> Int8,
        tournament_id -> Int8,
        kind -> Text,
        subject -> Text,
        round_number -> Nullable<Int4>,
        table_number -> Nullable<Int4>,
        penalty_id -> Nullable<Int8>,
        statement -> Text,
        evidence_text -> Nullable<Text>,
        evidence_links -> Jsonb,
        requested_remedies -> Jsonb,
        panel_mode -> Text,
        panel_rule -> Text,
        status -> Text,
        opened_by -> Int8,
        opened_at -> Timestamptz,
        decided_by -> Nullable<Int8>,
        decided_at -> Nullable<Timestamptz>,
        outcome -> Nullable<Text>,
        decision_reason -> Nullable<Text>,
        remedy -> Nullable<Jsonb>,
        appeal_of -> Nullable<Int8>,
        version -> Int4,
        appeal_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    case_parties (id) {
        id -> Int8,
        case_id -> Int8,
        user_id -> Nullable<Int8>,
        player_id -> Nullable<Int8>,
        role -> Text,
        added_by -> Int8,
        added_at -> Timestamptz,
    }
}

diesel::table! {
    case_panel (case_id, user_id) {
        case_id -> Int8,
        user_id -> Int8,
        seat -> Text,
    }
}

diesel::table! {
    votes (case_id, member_id) {
        case_id -> Int8,
        member_id -> Int8,
        vote -> Text,
        remedy -> Nullable<Jsonb>,
        reason -> Text,
        at -> Timestamptz,
    }
}

diesel::table! {
    case_events (id) {
        id -> Int8,
        case_id -> Int8,
        author -> Int8,
        at -> Timestamptz,
        what -> Text,
        detail -> Jsonb,
    }
}

diesel::table! {
    /// The registry's search stamp (migration `search_stamp`): one row.
    search_stamp (one) {
        one -> Bool,
        n -> Int8,
    }
}

diesel::joinable!(players -> users (user_id));
diesel::joinable!(api_keys -> users (user_id));
diesel::joinable!(tournament_staff -> tournaments (tournament_id));
diesel::joinable!(pool_keepers -> users (user_id));

diesel::joinable!(registrations -> players (player_id));
diesel::joinable!(registrations -> tournaments (tournament_id));
diesel::joinable!(results -> rounds (round_id));
diesel::joinable!(rounds -> tournaments (tournament_id));
diesel::joinable!(withdrawals -> players (player_id));
diesel::joinable!(penalties -> players (player_id));
diesel::joinable!(rating_changes -> players (player_id));
diesel::joinable!(rating_changes -> rating_pools (pool_id));
diesel::joinable!(rating_import_rows -> rating_imports (import_id));
diesel::joinable!(rating_import_rows -> players (player_id));
diesel::joinable!(rating_imports -> rating_pools (pool_id));
diesel::joinable!(rating_standings -> players (player_id));
diesel::joinable!(rating_standings -> rating_pools (pool_id));
diesel::joinable!(case_parties -> cases (case_id));
diesel::joinable!(case_panel -> cases (case_id));
diesel::joinable!(votes -> cases (case_id));
diesel::joinable!(case_events -> cases (case_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    players,
    tournaments,
    tournament_staff,
    registrations,
    teams,
    rounds,
    round_draws,
    results,
    withdrawals,
    penalties,
    idempotency_keys,
    tournament_events,
    rating_pools,
    rating_changes,
    rating_imports,
    rating_import_rows,
    rating_standings,
    cases,
    case_parties,
    case_panel,
    votes,
    case_events,
    refresh_tokens,
    api_keys,
    result_reports,
    game_schedules,
    schedule_messages,
    pool_events,
    webhook_endpoints,
    webhook_deliveries,
    pool_keepers,
    rating_decisions,
    account_tokens,
    mail_outbox,
    tournament_checkouts,
    invitations,
    player_claims,
    search_stamp,
    calendar_feeds,
);
