//! CSV cells for the exports (standings, leaderboard, league): quoted when needed, and safe to
//! open in a spreadsheet.

/// One CSV cell holding text. A text that a spreadsheet would run as a formula (it starts
/// with `=`, `+`, `-`, `@`, a tab or a carriage return; OWASP "CSV injection") gets a leading
/// `'`, which spreadsheets show as text; a cell with a comma, quote or line break is quoted.
/// Numbers are written by the callers themselves, never through here, so a negative rating
/// stays a number.
pub fn field(s: &str) -> String {
    let neutral = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if neutral.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", neutral.replace('"', "\"\""))
    } else {
        neutral
    }
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn formulas_are_shown_as_text() {
        assert_eq!(field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        for lead in ["+1", "-1+1", "@SUM(A1)", "\tcmd", "\rcmd"] {
            assert!(
                field(lead).trim_start_matches('"').starts_with('\''),
                "{lead:?}"
            );
        }
    }

    #[test]
    fn plain_names_stay_as_they_are_and_commas_are_quoted() {
        assert_eq!(field("Kari Nordmann"), "Kari Nordmann");
        assert_eq!(field("Øyvind, jr."), "\"Øyvind, jr.\"");
        assert_eq!(field("a \"b\""), "\"a \"\"b\"\"\"");
    }
}
