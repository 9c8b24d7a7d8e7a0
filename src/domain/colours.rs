//! Tantrix colours (seed 003, "5. Farben"; domain.md section 8): "Diese werden folgendermaßen
//! zugeordnet: Farben erster Wahl, wenn diese sich unterscheiden, ansonsten Farben zweiter Wahl.
//! Wenn sich erste und zweite Wahl bei beiden Spielern entsprechen, werden die übrigen beiden
//! Farben den Spielern durch den Leiter zufällig zugeteilt."
//!
//! The leader's lot is drawn from the round's committed seed (a stream per table), so anyone
//! holding the revealed seed can check it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::DrawRng;

/// A Tantrix colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Red,
    Yellow,
    Blue,
    Green,
}

impl Colour {
    pub const ALL: [Colour; 4] = [Colour::Red, Colour::Yellow, Colour::Blue, Colour::Green];

    pub fn as_str(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Yellow => "yellow",
            Colour::Blue => "blue",
            Colour::Green => "green",
        }
    }

    pub fn parse(s: &str) -> Option<Colour> {
        Colour::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// A player's stated first and second choice (different colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Choices {
    pub first: Colour,
    pub second: Colour,
}

/// Which branch of the rule gave a game its colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ColourRule {
    /// The first choices differ.
    FirstChoices,
    /// The first choices are equal, the second choices differ.
    SecondChoices,
    /// Both choices are equal (or a player stated none): the leader's lot.
    ByLot,
}

/// The colours of a game's two players, in seat order, and the branch that decided them.
/// Where a player stated no choices, the lot gives them a colour other than the opponent's
/// (the opponent keeps a first choice).
pub fn assign(
    a: Option<Choices>,
    b: Option<Choices>,
    rng: &mut DrawRng,
) -> ([Colour; 2], ColourRule) {
    match (a, b) {
        (Some(a), Some(b)) if a.first != b.first => ([a.first, b.first], ColourRule::FirstChoices),
        (Some(a), Some(b)) if a.second != b.second => {
            ([a.second, b.second], ColourRule::SecondChoices)
        }
        (Some(a), Some(_)) => {
            // Both stated the same two colours: the other two, by lot.
            let mut rest: Vec<Colour> = Colour::ALL
                .into_iter()
                .filter(|c| *c != a.first && *c != a.second)
                .collect();
            rng.shuffle(&mut rest);
            ([rest[0], rest[1]], ColourRule::ByLot)
        }
        (Some(a), None) => ([a.first, lot_other(a.first, rng)], ColourRule::ByLot),
        (None, Some(b)) => ([lot_other(b.first, rng), b.first], ColourRule::ByLot),
        (None, None) => {
            let mut all = Colour::ALL.to_vec();
            rng.shuffle(&mut all);
            ([all[0], all[1]], ColourRule::ByLot)
        }
    }
}

fn lot_other(taken: Colour, rng: &mut DrawRng) -> Colour {
    let rest: Vec<Colour> = Colour::ALL.into_iter().filter(|c| *c != taken).collect();
    rest[rng.index(rest.len())]
}

/// One game's colours.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TableColours {
    pub table: u32,
    /// The two players in seat order.
    pub players: [i64; 2],
    /// Their colours, in the same order.
    pub colours: [Colour; 2],
    /// Which branch of the rule decided: first choices, second choices, or the leader's lot
    /// (drawn from SHA-256(seed hex, "/colours/", table) as the key of the round's ChaCha20
    /// stream).
    pub rule: ColourRule,
    /// The choices the rule read, in seat order.
    pub choices: [Option<Choices>; 2],
}

#[cfg(test)]
mod tests {
    use super::Colour::*;
    use super::*;

    fn c(first: Colour, second: Colour) -> Option<Choices> {
        Some(Choices { first, second })
    }

    fn rng(n: u8) -> DrawRng {
        DrawRng::from_seed([n; 32])
    }

    #[test]
    fn first_choices_when_they_differ() {
        let (colours, rule) = assign(c(Red, Blue), c(Yellow, Blue), &mut rng(1));
        assert_eq!((colours, rule), ([Red, Yellow], ColourRule::FirstChoices));
        // Even when one's first is the other's second.
        let (colours, _) = assign(c(Red, Blue), c(Blue, Red), &mut rng(1));
        assert_eq!(colours, [Red, Blue]);
    }

    #[test]
    fn second_choices_when_the_first_are_equal() {
        let (colours, rule) = assign(c(Red, Blue), c(Red, Green), &mut rng(1));
        assert_eq!((colours, rule), ([Blue, Green], ColourRule::SecondChoices));
    }

    #[test]
    fn the_other_two_colours_by_lot_when_both_choices_are_equal() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..32 {
            let (colours, rule) = assign(c(Red, Blue), c(Red, Blue), &mut rng(n));
            assert_eq!(rule, ColourRule::ByLot);
            assert_ne!(colours[0], colours[1]);
            for col in colours {
                assert!(col == Yellow || col == Green, "{col:?}");
            }
            seen.insert(colours);
        }
        assert_eq!(seen.len(), 2, "both orders occur");
        // The same seed gives the same lot.
        assert_eq!(
            assign(c(Red, Blue), c(Red, Blue), &mut rng(9)),
            assign(c(Red, Blue), c(Red, Blue), &mut rng(9))
        );
    }

    #[test]
    fn a_player_without_choices_gets_a_colour_the_opponent_does_not_have() {
        for n in 0..16 {
            let (colours, rule) = assign(c(Green, Red), None, &mut rng(n));
            assert_eq!(rule, ColourRule::ByLot);
            assert_eq!(colours[0], Green);
            assert_ne!(colours[1], Green);
            let (colours, _) = assign(None, c(Green, Red), &mut rng(n));
            assert_eq!(colours[1], Green);
            assert_ne!(colours[0], Green);
            let (colours, _) = assign(None, None, &mut rng(n));
            assert_ne!(colours[0], colours[1]);
        }
    }
}
