//! CSV cells for the exports (standings, leaderboard, league): quoted when needed, and safe to
//! open in a spreadsheet.

/// What a spreadsheet runs as a formula when a cell starts with it (OWASP "CSV injection").
const LEADS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// One CSV cell holding text. A text that a spreadsheet would run as a formula (it starts
/// with `=`, `+`, `-`, `@`, a tab or a carriage return; OWASP "CSV injection") gets a `'`
/// before that character, which spreadsheets show as text. So does every part of the text
/// that a spreadsheet may open as a cell of its own: after a `;` (the list separator Excel
/// splits a CSV on in the Norwegian, Polish and German settings, where the file's commas and
/// quotes mean nothing), a tab or a line break, with any spaces in between (OWASP: "take care
/// of the field separator"). A cell with a comma, quote or line break is quoted. Numbers are
/// written by the callers themselves, never through here, so a negative rating stays a
/// number.
pub fn field(s: &str) -> String {
    let mut neutral = String::with_capacity(s.len() + 1);
    let mut cell_starts = true;
    for c in s.chars() {
        if cell_starts && LEADS.contains(&c) {
            neutral.push('\'');
        }
        neutral.push(c);
        cell_starts = match c {
            ';' | '\t' | '\n' | '\r' => true,
            ' ' => cell_starts,
            _ => false,
        };
    }
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
    fn a_formula_after_a_separator_or_a_line_break_is_shown_as_text() {
        assert_eq!(field("Kari;=1+1"), "Kari;'=1+1");
        assert_eq!(field("Ola; +2"), "Ola; '+2");
        assert_eq!(field("Per;-3;@SUM(A1)"), "Per;'-3;'@SUM(A1)");
        assert_eq!(field("a\t=1"), "a\t'=1");
        assert_eq!(field("a\t\t"), "a\t'\t");
        assert_eq!(field("a\n=1"), "\"a\n'=1\"");
        assert_eq!(field("a\r\n-1"), "\"a\r\n'-1\"");
        assert_eq!(field("  =1"), "  '=1");
    }

    #[test]
    fn plain_names_stay_as_they_are_and_commas_are_quoted() {
        assert_eq!(field("Kari Nordmann"), "Kari Nordmann");
        assert_eq!(field("Anne-Marie Berg-Olsen"), "Anne-Marie Berg-Olsen");
        assert_eq!(field("Liv; Oslo"), "Liv; Oslo");
        assert_eq!(field("Øyvind, jr."), "\"Øyvind, jr.\"");
        assert_eq!(field("Øyvind, -jr."), "\"Øyvind, -jr.\"");
        assert_eq!(field("a \"b\""), "\"a \"\"b\"\"\"");
    }
}
