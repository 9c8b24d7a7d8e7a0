//! The document's view of `CreateRound`: one variant per seating method, each with its own
//! options, discriminated by `method`. The request is read as `CreateRound` (method + options)
//! and the options are checked by the seating engine, which accepts exactly the names below
//! (`SeatingMethod::accepted_options`; a test keeps the two in step).

use serde_json::{json, Value};
use utoipa::openapi::{RefOr, Schema};

use crate::domain::scoring::RoundKind;
use crate::domain::seating::SeatingMethod;
use crate::services::running::rounds::CreateRound;

/// Every method with what it does and where the rule comes from.
pub const METHODS: [(SeatingMethod, &str); 14] = [
    (
        SeatingMethod::Random,
        "Random tables planned over the event so that players meet as many different opponents \
         as possible (seed 000, Bordsammensetning 1).",
    ),
    (
        SeatingMethod::RandomSeeded,
        "Seeding groups by rating, one player of each group per table, by lot \
         (seed 000, Bordsammensetning 2).",
    ),
    (
        SeatingMethod::FixedSeeded,
        "A fixed rotation of the seeding groups that avoids repeat meetings \
         (seed 000, Bordsammensetning 3).",
    ),
    (
        SeatingMethod::PlacementEven,
        "Equal sums of placements on every table, fewest repeat meetings among those \
         (seed 000, Bordsammensetning 4).",
    ),
    (
        SeatingMethod::Swiss,
        "Swiss for 4-player tables (seed 000, Bordsammensetning 5).",
    ),
    (
        SeatingMethod::Danish,
        "Places 1-4 on table 1, 5-8 on table 2, ... (seed 000, Bordsammensetning 6).",
    ),
    (
        SeatingMethod::Clarification,
        "Clarification game: places 1, 2, second-to-last and last on table 1, then 3-6, ... \
         (seed 000, Bordsammensetning 7).",
    ),
    (
        SeatingMethod::ClarificationBonus,
        "Clarification game with bonus/malus and fixed seats (seed 000, Bordsammensetning 8).",
    ),
    (
        SeatingMethod::FinalGroups,
        "The final in placement groups of 4 by the qualification standings \
         (seed 000, Bordsammensetning 9).",
    ),
    (
        SeatingMethod::Bridge,
        "Bridge-Agricola: tables plus bridge groups playing a shared deal (seed 001).",
    ),
    (
        SeatingMethod::TeamDuplicate,
        "Team duplicate 2v2 on tables A and B (seed 002).",
    ),
    (
        SeatingMethod::Swiss2p,
        "2-player Swiss with score groups, floaters and byes (seeds 003 and 004).",
    ),
    (
        SeatingMethod::RoundRobin,
        "2-player round robin by the circle method (seed 003).",
    ),
    (
        SeatingMethod::Knockout,
        "2-player knockout bracket seeded by rating (seed 003).",
    ),
];

/// The schema of one option name.
fn option_schema(name: &str) -> Value {
    match name {
        "rounds_remaining" => json!({
            "type": "integer", "minimum": 1, "maximum": 100,
            "description": "Plan this many rounds (this one included) so that players meet as \
                many different opponents as possible; default: the rounds left of the \
                tournament's planned rounds."
        }),
        "min_rated_games" => json!({
            "type": "integer", "minimum": 0, "maximum": 1000,
            "description": "Rated games a rating needs to count for seeding (default 5, seed 000)."
        }),
        "final" => json!({
            "type": "boolean",
            "description": "Draw the final: placement groups spread over bridge groups (seed 001)."
        }),
        "format" => json!({
            "type": "string", "enum": ["best_of_3", "knockout"],
            "description": "`best_of_3` (two teams, the default for two) or `knockout` (the \
                default for more teams)."
        }),
        "game" => json!({
            "type": "integer", "minimum": 1, "maximum": 3,
            "description": "Best of 3: which game, 1-3 (default: the round number); pairs swap \
                tables in game 2."
        }),
        "games_per_match" => json!({
            "type": "integer", "minimum": 1, "maximum": 9,
            "description": "`knockout`: games each cup match plays (default 1); match k sits at \
                tables (k-1)N+1 to kN and is decided by TP, then games won, then tiles, then \
                5-minute play-off games (seed 003, Tie-Breaks 1)."
        }),
        other => json!({ "description": other }),
    }
}

fn variant(method: SeatingMethod, about: &str) -> Value {
    let options: serde_json::Map<String, Value> = method
        .accepted_options()
        .iter()
        .map(|o| (o.to_string(), option_schema(o)))
        .collect();
    let name = method.to_string();
    let options_schema = if options.is_empty() {
        json!({
            "type": ["object", "null"],
            "maxProperties": 0,
            "description": "This method takes no options."
        })
    } else {
        json!({
            "type": ["object", "null"],
            "additionalProperties": false,
            "properties": options,
            "description": "This method's options; any other name is refused with 422."
        })
    };
    json!({
        "type": "object",
        "description": about,
        "required": ["method"],
        "additionalProperties": false,
        "properties": {
            "method": { "type": "string", "enum": [name] },
            "kind": {
                "oneOf": [{ "type": "null" }, { "$ref": "#/components/schemas/RoundKind" }],
                "description": "`preliminary` (default), `final`, `voluntary` or `playoff`."
            },
            "options": options_schema,
            "weight": {
                "type": ["string", "null"], "maxLength": 20, "example": "5/4",
                "description": "The round's weight as a decimal or fraction; absent = the \
                    ruleset's default for the kind."
            },
            "metadata": {
                "type": ["object", "null"],
                "additionalProperties": true,
                "description": "Free metadata: draft variant, card pool, time limit."
            },
            "played_at": {
                "type": ["string", "null"], "format": "date-time",
                "example": "2027-03-06T13:00:00Z",
                "description": "When the round is (or was) played, within the tournament's \
                    playing days; ratings follow this time. Absent: the time its last result \
                    arrives, held within the playing days (a round entered after the event \
                    counts as played at 22:00 on its last day)."
            }
        }
    })
}

/// The component name of a method's variant: `CreateRoundRandomSeeded`.
fn variant_name(method: SeatingMethod) -> String {
    let pascal: String = method
        .to_string()
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("CreateRound{pascal}")
}

impl utoipa::PartialSchema for CreateRound {
    fn schema() -> RefOr<Schema> {
        let refs: Vec<Value> = METHODS
            .iter()
            .map(|(m, _)| json!({ "$ref": format!("#/components/schemas/{}", variant_name(*m)) }))
            .collect();
        let mapping: serde_json::Map<String, Value> = METHODS
            .iter()
            .map(|(m, _)| {
                let target = format!("#/components/schemas/{}", variant_name(*m));
                (m.to_string(), Value::String(target))
            })
            .collect();
        let schema = json!({
            "description": "Create the next round: a seating method and that method's options \
                (one variant per method, told apart by `method`).",
            "oneOf": refs,
            "discriminator": { "propertyName": "method", "mapping": mapping },
            "example": { "method": "random", "kind": "preliminary" }
        });
        serde_json::from_value(schema).expect("the CreateRound schema is valid")
    }
}

impl utoipa::ToSchema for CreateRound {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        use utoipa::PartialSchema;
        schemas.push(("RoundKind".into(), RoundKind::schema()));
        for (m, about) in METHODS {
            let schema = serde_json::from_value(variant(m, about)).expect("a valid variant");
            schemas.push((variant_name(m), schema));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_documented_once() {
        let all: std::collections::BTreeSet<String> =
            METHODS.iter().map(|(m, _)| m.to_string()).collect();
        assert_eq!(all.len(), METHODS.len());
        for (m, _) in METHODS {
            assert_eq!(SeatingMethod::parse(&m.to_string()), Some(m));
            for o in m.accepted_options() {
                assert!(
                    option_schema(o).get("type").is_some(),
                    "option {o} of {m} has no schema"
                );
            }
        }
    }

    #[test]
    fn the_schema_builds() {
        let s = serde_json::to_value(<CreateRound as utoipa::PartialSchema>::schema()).unwrap();
        assert_eq!(s["oneOf"].as_array().unwrap().len(), 14);
        assert_eq!(variant_name(SeatingMethod::Swiss2p), "CreateRoundSwiss2p");
        assert_eq!(
            s["discriminator"]["mapping"]["random_seeded"],
            "#/components/schemas/CreateRoundRandomSeeded"
        );
    }
}
