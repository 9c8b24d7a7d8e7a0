//! What a case's decision may touch: its remedies stay within the case.
//!
//! Source: `domain.md` section 1: "Nobody decides a case in which they are a party (as a player
//! at the table concerned, as the person complained about, ...)". The panel is computed from
//! the case's parties, so a remedy that reached a table or a player outside the case would be
//! decided by officials whose conflicts of interest were never checked against the people it
//! touches, and those people were never heard. Hence:
//!
//! - a table remedy (`correct_result`, `replay_table`) names the table the case is about (the
//!   round and table of a `table` or `result` case, whose seated players are its parties); a
//!   case about no table (a penalty, a person's conduct) orders no table remedy;
//! - a player remedy (`add_penalty`, and `annul_penalty` through the penalised player) names a
//!   player who is a party of the case or sits at its table;
//! - a penalty that names its game, in a case about a table, names that table.
//!
//! Everything is within the case's tournament: the service applies remedies to the case's
//! tournament only.

use crate::domain::entries::Remedy;

/// The table and players a case is about.
#[derive(Debug, Clone, Default)]
pub struct CaseScope {
    /// `(round, table)` of a case about a table or a result.
    pub table: Option<(i32, i32)>,
    /// The players who are parties (directly or through their account) or sit at its table.
    pub players: Vec<i64>,
}

/// A remedy outside its case: the field at fault (relative to the remedy) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfCase {
    /// `""` (the remedy as a whole), `"round"`, `"table"`, `"player_id"` or `"penalty_id"`.
    pub field: &'static str,
    pub message: String,
}

fn out(field: &'static str, message: String) -> Result<(), OutOfCase> {
    Err(OutOfCase { field, message })
}

impl CaseScope {
    /// Whether `(round, table)` is the case's table.
    fn same_table(&self, round: i32, table: i32) -> Result<(), OutOfCase> {
        let Some((r, t)) = self.table else {
            return out(
                "",
                "the case concerns no table: only a case about a table or a result orders a remedy at a table".into(),
            );
        };
        if round != r {
            return out(
                "round",
                format!("the case concerns round {r} table {t}, not round {round}"),
            );
        }
        if table != t {
            return out(
                "table",
                format!("the case concerns round {r} table {t}, not table {table}"),
            );
        }
        Ok(())
    }

    fn has_player(&self, field: &'static str, player: i64, what: &str) -> Result<(), OutOfCase> {
        if self.players.contains(&player) {
            return Ok(());
        }
        out(
            field,
            format!("{what} player {player}, who is neither a party to the case nor seated at its table"),
        )
    }

    /// Whether `remedy` stays within the case; `penalised` is the player of the penalty an
    /// `annul_penalty` names (`None` when the tournament has no such penalty).
    pub fn admits(&self, remedy: &Remedy, penalised: Option<i64>) -> Result<(), OutOfCase> {
        match remedy {
            Remedy::CorrectResult { round, table, .. } | Remedy::ReplayTable { round, table } => {
                self.same_table(*round, *table)
            }
            Remedy::AddPenalty {
                player_id,
                round,
                table,
                ..
            } => {
                self.has_player("player_id", *player_id, "the penalty names")?;
                match (self.table, round, table) {
                    (Some(_), Some(r), Some(t)) => self.same_table(*r, *t),
                    (Some((r, _)), Some(round), None) if *round != r => self.same_table(*round, 0),
                    _ => Ok(()),
                }
            }
            Remedy::AnnulPenalty { penalty_id } => match penalised {
                None => out(
                    "penalty_id",
                    format!("no penalty {penalty_id} in this tournament"),
                ),
                Some(p) => self.has_player("penalty_id", p, "the penalty was given to"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::entries::PenaltyKind;

    fn scope(table: Option<(i32, i32)>) -> CaseScope {
        CaseScope {
            table,
            players: vec![1, 2],
        }
    }

    fn penalty(player_id: i64, round: Option<i32>, table: Option<i32>) -> Remedy {
        Remedy::AddPenalty {
            player_id,
            penalty: PenaltyKind::Warning,
            round,
            table,
            points: None,
        }
    }

    #[test]
    fn table_remedies_name_the_cases_table() {
        let s = scope(Some((1, 2)));
        let replay = |round, table| Remedy::ReplayTable { round, table };
        assert!(s.admits(&replay(1, 2), None).is_ok());
        assert_eq!(s.admits(&replay(2, 2), None).unwrap_err().field, "round");
        assert_eq!(s.admits(&replay(1, 1), None).unwrap_err().field, "table");
        assert_eq!(
            scope(None).admits(&replay(1, 2), None).unwrap_err().field,
            ""
        );
        let correct = Remedy::CorrectResult {
            round: 1,
            table: 1,
            seats: vec![],
            double_crash: None,
        };
        assert_eq!(s.admits(&correct, None).unwrap_err().field, "table");
    }

    #[test]
    fn player_remedies_name_the_cases_players() {
        let s = scope(Some((1, 2)));
        assert!(s.admits(&penalty(1, None, None), None).is_ok());
        assert!(s.admits(&penalty(2, Some(1), Some(2)), None).is_ok());
        assert_eq!(
            s.admits(&penalty(3, None, None), None).unwrap_err().field,
            "player_id"
        );
        assert_eq!(
            s.admits(&penalty(1, Some(1), Some(3)), None)
                .unwrap_err()
                .field,
            "table"
        );
        assert_eq!(
            s.admits(&penalty(1, Some(2), None), None)
                .unwrap_err()
                .field,
            "round"
        );
        // A case about no table: the penalty's game is the penalised party's own (checked
        // where it is recorded).
        assert!(scope(None)
            .admits(&penalty(1, Some(3), Some(4)), None)
            .is_ok());
        let annul = Remedy::AnnulPenalty { penalty_id: 9 };
        assert!(s.admits(&annul, Some(2)).is_ok());
        assert_eq!(s.admits(&annul, Some(5)).unwrap_err().field, "penalty_id");
        assert_eq!(s.admits(&annul, None).unwrap_err().field, "penalty_id");
    }
}
