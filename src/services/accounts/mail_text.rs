//! The texts of the messages the service sends, in each language it writes (issue 29): a pure
//! table, filled in when a message is queued (the outbox stores the text as sent).

use chrono::NaiveDate;

use crate::domain::accounts::Language;

mod address;

/// A message's subject and plain-text body.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub subject: String,
    pub body: String,
}

/// What a message says.
#[derive(Debug, Clone)]
pub enum Mail<'a> {
    /// A new account's address: the code that verifies it, and the link that carries it (if
    /// the deployment has one: `links::MailLinks`).
    Verify {
        username: &'a str,
        code: &'a str,
        link: Option<&'a str>,
    },
    /// Someone signed up with an address that already has an account.
    AlreadyRegistered { username: &'a str },
    /// A password reset was asked for: the code that sets a new password, and its link.
    Reset {
        username: &'a str,
        code: &'a str,
        link: Option<&'a str>,
    },
    /// An invitation to a tournament: the code that accepts it, when and where the tournament
    /// is, and the inviter's own words.
    Invitation(Invitation<'a>),
    /// An address change asked for (issue 40, item 4), sent to the new address: the code that
    /// confirms it, and its link.
    AddressChange {
        username: &'a str,
        code: &'a str,
        link: Option<&'a str>,
    },
    /// An address change asked for, sent to the old address: what the new one is, and a reset
    /// code (with its link) that undoes it.
    AddressChangeNotice {
        username: &'a str,
        new_email: &'a str,
        code: &'a str,
        link: Option<&'a str>,
    },
    /// A claim on a player was decided: approved (the player is linked) or refused, with the
    /// decider's reason.
    ClaimDecided {
        username: &'a str,
        player: &'a str,
        approved: bool,
        reason: &'a str,
    },
}

/// What an invitation says.
#[derive(Debug, Clone)]
pub struct Invitation<'a> {
    pub inviter: &'a str,
    pub tournament: &'a str,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    pub venue: Option<&'a str>,
    pub code: &'a str,
    /// The link that carries the code, if the deployment has one.
    pub link: Option<&'a str>,
    /// The organiser's own words (may be empty).
    pub message: &'a str,
}

impl Mail<'_> {
    /// What the message is, as the outbox records it for operators (its body goes once sent).
    pub fn kind(&self) -> &'static str {
        match self {
            Mail::Verify { .. } => "verify",
            Mail::AlreadyRegistered { .. } => "already_registered",
            Mail::Reset { .. } => "reset",
            Mail::Invitation(_) => "invitation",
            Mail::ClaimDecided { .. } => "claim_decided",
            Mail::AddressChange { .. } => "email_change",
            Mail::AddressChangeNotice { .. } => "email_change_notice",
        }
    }
}

/// The message in `language`, its link (if the deployment has one for the flow) before its
/// code.
pub fn render(language: Language, mail: &Mail<'_>) -> Text {
    let (subject, body) = match mail {
        Mail::Verify {
            username,
            code,
            link,
        } => {
            let p = verify_phrases(language);
            (
                p.subject.to_string(),
                coded(&p, username, p.intro, code, *link),
            )
        }
        Mail::Reset {
            username,
            code,
            link,
        } => {
            let p = reset_phrases(language);
            (
                p.subject.to_string(),
                coded(&p, username, p.intro, code, *link),
            )
        }
        Mail::Invitation(inv) => invitation_text(language, inv),
        Mail::AlreadyRegistered { username } => already_registered(language, username),
        Mail::ClaimDecided {
            username,
            player,
            approved,
            reason,
        } => claim_text(language, username, player, *approved, reason),
        Mail::AddressChange {
            username,
            code,
            link,
        } => {
            let p = address::change_phrases(language);
            (
                p.subject.to_string(),
                coded(&p, username, p.intro, code, *link),
            )
        }
        Mail::AddressChangeNotice {
            username,
            new_email,
            code,
            link,
        } => {
            let p = address::notice_phrases(language);
            let intro = p.intro.replace("{new_email}", new_email);
            (
                p.subject.to_string(),
                coded(&p, username, &intro, code, *link),
            )
        }
    };
    Text { subject, body }
}

/// The words of a message that carries a code: greeting, what it is for, the line above the
/// link, the line above the code when a link came first, the line above the code when none
/// did (the JSON operation), and what to know.
struct Phrases {
    subject: &'static str,
    hello: &'static str,
    intro: &'static str,
    open: &'static str,
    fallback: &'static str,
    api: &'static str,
    outro: &'static str,
}

/// The body: greeting, purpose, the link first and the code as the fallback.
fn coded(p: &Phrases, username: &str, intro: &str, code: &str, link: Option<&str>) -> String {
    let hello = p.hello.replace("{username}", username);
    let mut body = format!("{hello}\n\n{intro}\n\n");
    match link {
        Some(link) => body.push_str(&format!(
            "{}\n\n{link}\n\n{}\n\n{code}\n\n",
            p.open, p.fallback
        )),
        None => body.push_str(&format!("{}\n\n{code}\n\n", p.api)),
    }
    body.push_str(p.outro);
    body.push('\n');
    body
}

// layout: long: one text per language
fn verify_phrases(language: Language) -> Phrases {
    use Language::*;
    match language {
        En => Phrases {
            subject: "Confirm your e-mail address",
            hello: "Hello {username},",
            intro: "this message is to confirm this address for your tourney account.",
            open: "Open this link to confirm it:",
            fallback: "If the link does not open, enter this code in your app (or send it to POST /api/v1/auth/verify-email):",
            api: "Send this code to POST /api/v1/auth/verify-email (or enter it in your app):",
            outro: "The code is valid for 24 hours. If you did not sign up, ignore this message.",
        },
        Nb => Phrases {
            subject: "Bekreft e-postadressen din",
            hello: "Hei {username},",
            intro: "denne meldingen er for å bekrefte denne adressen for tourney-kontoen din.",
            open: "Åpne denne lenken for å bekrefte:",
            fallback: "Åpner ikke lenken seg, skriv inn denne koden i appen (eller send den til POST /api/v1/auth/verify-email):",
            api: "Send denne koden til POST /api/v1/auth/verify-email (eller skriv den inn i appen):",
            outro: "Koden gjelder i 24 timer. Har du ikke registrert deg, kan du se bort fra denne meldingen.",
        },
        Pl => Phrases {
            subject: "Potwierdź swój adres e-mail",
            hello: "Dzień dobry {username},",
            intro: "ta wiadomość służy do tego, aby potwierdzić ten adres dla Twojego konta tourney.",
            open: "Otwórz ten link, aby go potwierdzić:",
            fallback: "Jeśli link się nie otwiera, wpisz ten kod w aplikacji (lub wyślij go na POST /api/v1/auth/verify-email):",
            api: "Wyślij ten kod na POST /api/v1/auth/verify-email (lub wpisz go w aplikacji):",
            outro: "Kod jest ważny przez 24 godziny. Jeśli to nie Ty zakładałeś konto, zignoruj tę wiadomość.",
        },
        De => Phrases {
            subject: "Bestätige deine E-Mail-Adresse",
            hello: "Hallo {username},",
            intro: "diese Nachricht dient dazu, die Adresse für dein tourney-Konto zu bestätigen.",
            open: "Öffne diesen Link, um sie zu bestätigen:",
            fallback: "Wenn sich der Link nicht öffnet, gib diesen Code in deiner App ein (oder sende ihn an POST /api/v1/auth/verify-email):",
            api: "Sende diesen Code an POST /api/v1/auth/verify-email (oder gib ihn in deiner App ein):",
            outro: "Der Code ist 24 Stunden gültig. Wenn du dich nicht registriert hast, ignoriere diese Nachricht.",
        },
        ZhHant => Phrases {
            subject: "請確認您的電子郵件地址",
            hello: "{username} 您好：",
            intro: "此訊息用於為您的 tourney 帳號確認此地址。",
            open: "請開啟以下連結以確認：",
            fallback: "若連結無法開啟，請在應用程式中輸入以下代碼（或將其送至 POST /api/v1/auth/verify-email）：",
            api: "請將以下代碼送至 POST /api/v1/auth/verify-email（或在應用程式中輸入）：",
            outro: "此代碼 24 小時內有效。若您並未註冊，請忽略此訊息。",
        },
    }
}

// layout: long: one text per language
fn reset_phrases(language: Language) -> Phrases {
    use Language::*;
    match language {
        En => Phrases {
            subject: "Set a new password",
            hello: "Hello {username},",
            intro: "a new password was asked for your tourney account.",
            open: "Open this link to choose it:",
            fallback: "If the link does not open, enter this code with your new password in your app (or send both to POST /api/v1/auth/password-reset/confirm):",
            api: "Send this code with your new password to POST /api/v1/auth/password-reset/confirm (or enter it in your app):",
            outro: "The code is valid for one hour and works once; every session of the account ends when it is used. If you did not ask, ignore this message: your password stays as it is.",
        },
        Nb => Phrases {
            subject: "Velg et nytt passord",
            hello: "Hei {username},",
            intro: "det ble bedt om et nytt passord for tourney-kontoen din.",
            open: "Åpne denne lenken for å velge det:",
            fallback: "Åpner ikke lenken seg, skriv inn denne koden og det nye passordet i appen (eller send begge til POST /api/v1/auth/password-reset/confirm):",
            api: "Send denne koden sammen med det nye passordet til POST /api/v1/auth/password-reset/confirm (eller skriv den inn i appen):",
            outro: "Koden gjelder i én time og kan brukes én gang; alle økter for kontoen avsluttes når den brukes. Ba du ikke om dette, kan du se bort fra meldingen: passordet ditt er uendret.",
        },
        Pl => Phrases {
            subject: "Ustaw nowe hasło",
            hello: "Dzień dobry {username},",
            intro: "poproszono o nowe hasło do Twojego konta tourney.",
            open: "Otwórz ten link, aby je wybrać:",
            fallback: "Jeśli link się nie otwiera, wpisz ten kod i nowe hasło w aplikacji (lub wyślij oba na POST /api/v1/auth/password-reset/confirm):",
            api: "Wyślij ten kod razem z nowym hasłem na POST /api/v1/auth/password-reset/confirm (lub wpisz go w aplikacji):",
            outro: "Kod jest ważny przez godzinę i działa raz; po jego użyciu wszystkie sesje konta zostaną zakończone. Jeśli to nie Ty, zignoruj tę wiadomość: hasło pozostaje bez zmian.",
        },
        De => Phrases {
            subject: "Neues Passwort festlegen",
            hello: "Hallo {username},",
            intro: "für dein tourney-Konto wurde ein neues Passwort angefordert.",
            open: "Öffne diesen Link, um es zu wählen:",
            fallback: "Wenn sich der Link nicht öffnet, gib diesen Code mit deinem neuen Passwort in deiner App ein (oder sende beides an POST /api/v1/auth/password-reset/confirm):",
            api: "Sende diesen Code mit deinem neuen Passwort an POST /api/v1/auth/password-reset/confirm (oder gib ihn in deiner App ein):",
            outro: "Der Code ist eine Stunde gültig und funktioniert einmal; danach enden alle Sitzungen des Kontos. Wenn du es nicht warst, ignoriere diese Nachricht: dein Passwort bleibt unverändert.",
        },
        ZhHant => Phrases {
            subject: "設定新密碼",
            hello: "{username} 您好：",
            intro: "有人為您的 tourney 帳號申請了新密碼。",
            open: "請開啟以下連結以設定：",
            fallback: "若連結無法開啟，請在應用程式中輸入以下代碼與新密碼（或將兩者送至 POST /api/v1/auth/password-reset/confirm）：",
            api: "請將以下代碼連同新密碼送至 POST /api/v1/auth/password-reset/confirm（或在應用程式中輸入）：",
            outro: "此代碼一小時內有效且只能使用一次；使用後帳號的所有登入工作階段都會結束。若不是您本人申請，請忽略此訊息，您的密碼不會改變。",
        },
    }
}

// layout: long: one text per language
fn invitation_phrases(language: Language) -> (Phrases, &'static str, &'static str, &'static str) {
    use Language::*;
    match language {
        En => (
            Phrases {
                subject: "Invitation to {tournament}",
                hello: "Hello,",
                intro: "{inviter} invites you to the tournament \"{tournament}\".",
                open: "Open this link to accept, with a new account or the one you have:",
                fallback: "If the link does not open, enter this code in your app (or send it to POST /api/v1/auth/invitations/accept, with a new username and password or signed in to your account):",
                api: "To accept, send this code to POST /api/v1/auth/invitations/accept (or enter it in your app), with a new username and password or signed in to your account:",
                outro: "The invitation is valid for 14 days and works once. If you do not want to take part, ignore this message.",
            },
            "When",
            "Where",
            "A message from the organiser",
        ),
        Nb => (
            Phrases {
                subject: "Invitasjon til {tournament}",
                hello: "Hei,",
                intro: "{inviter} inviterer deg til turneringen «{tournament}».",
                open: "Åpne denne lenken for å takke ja, med en ny konto eller den du har:",
                fallback: "Åpner ikke lenken seg, skriv inn denne koden i appen (eller send den til POST /api/v1/auth/invitations/accept, med nytt brukernavn og passord eller innlogget på kontoen din):",
                api: "For å takke ja, send denne koden til POST /api/v1/auth/invitations/accept (eller skriv den inn i appen), med nytt brukernavn og passord eller innlogget på kontoen din:",
                outro: "Invitasjonen gjelder i 14 dager og kan brukes én gang. Vil du ikke delta, kan du se bort fra denne meldingen.",
            },
            "Når",
            "Hvor",
            "En hilsen fra arrangøren",
        ),
        Pl => (
            Phrases {
                subject: "Zaproszenie na {tournament}",
                hello: "Dzień dobry,",
                intro: "{inviter} zaprasza Cię na turniej „{tournament}”.",
                open: "Otwórz ten link, aby przyjąć zaproszenie, z nowym kontem lub swoim dotychczasowym:",
                fallback: "Jeśli link się nie otwiera, wpisz ten kod w aplikacji (lub wyślij go na POST /api/v1/auth/invitations/accept, z nową nazwą użytkownika i hasłem albo zalogowany na swoje konto):",
                api: "Aby przyjąć zaproszenie, wyślij ten kod na POST /api/v1/auth/invitations/accept (lub wpisz go w aplikacji), z nową nazwą użytkownika i hasłem albo zalogowany na swoje konto:",
                outro: "Zaproszenie jest ważne przez 14 dni i działa raz. Jeśli nie chcesz wziąć udziału, zignoruj tę wiadomość.",
            },
            "Kiedy",
            "Gdzie",
            "Wiadomość od organizatora",
        ),
        De => (
            Phrases {
                subject: "Einladung zu {tournament}",
                hello: "Hallo,",
                intro: "{inviter} lädt dich zum Turnier „{tournament}“ ein.",
                open: "Öffne diesen Link, um anzunehmen, mit einem neuen Konto oder deinem bestehenden:",
                fallback: "Wenn sich der Link nicht öffnet, gib diesen Code in deiner App ein (oder sende ihn an POST /api/v1/auth/invitations/accept, mit neuem Benutzernamen und Passwort oder angemeldet mit deinem Konto):",
                api: "Um anzunehmen, sende diesen Code an POST /api/v1/auth/invitations/accept (oder gib ihn in deiner App ein), mit neuem Benutzernamen und Passwort oder angemeldet mit deinem Konto:",
                outro: "Die Einladung ist 14 Tage gültig und funktioniert einmal. Wenn du nicht teilnehmen möchtest, ignoriere diese Nachricht.",
            },
            "Wann",
            "Wo",
            "Eine Nachricht der Veranstalter",
        ),
        ZhHant => (
            Phrases {
                subject: "{tournament} 邀請函",
                hello: "您好：",
                intro: "{inviter} 邀請您參加比賽「{tournament}」。",
                open: "請開啟以下連結以接受邀請（可建立新帳號或使用既有帳號）：",
                fallback: "若連結無法開啟，請在應用程式中輸入以下代碼（或將其送至 POST /api/v1/auth/invitations/accept，並提供新的使用者名稱與密碼，或以您的帳號登入）：",
                api: "若要接受，請將以下代碼送至 POST /api/v1/auth/invitations/accept（或在應用程式中輸入），並提供新的使用者名稱與密碼，或以您的帳號登入：",
                outro: "此邀請 14 天內有效且只能使用一次。若您不想參加，請忽略此訊息。",
            },
            "時間",
            "地點",
            "主辦單位的話",
        ),
    }
}

/// An invitation: who invites to what, when and where, the organiser's own words, then the
/// link and the code.
fn invitation_text(language: Language, inv: &Invitation<'_>) -> (String, String) {
    let (p, when, where_, says) = invitation_phrases(language);
    let subject = p.subject.replace("{tournament}", inv.tournament);
    let intro = p
        .intro
        .replace("{inviter}", inv.inviter)
        .replace("{tournament}", inv.tournament);
    let mut details = format!("{when}: {}", inv.starts_on);
    if inv.ends_on != inv.starts_on {
        details.push_str(&format!(" – {}", inv.ends_on));
    }
    if let Some(venue) = inv.venue.filter(|v| !v.trim().is_empty()) {
        details.push_str(&format!("\n{where_}: {venue}"));
    }
    let message = quoted(inv.message);
    let mut intro = format!("{intro}\n\n{details}");
    if !message.is_empty() {
        intro.push_str(&format!("\n\n{says}:\n\n{message}"));
    }
    (subject, coded(&p, "", &intro, inv.code, inv.link))
}

/// The inviter's own words, every line after `>` as mail quotes them, in one paragraph: the
/// HTML part (`infra::mail::html_of`) shows them as text, never as the message's button, a
/// link or a code of ours (a stranger who made a tournament could otherwise send anyone the
/// service's "accept" button leading to a site of their own, above the real link).
fn quoted(words: &str) -> String {
    words
        .trim()
        .lines()
        .map(|l| match l.trim_end() {
            "" => ">".to_string(),
            l => format!("> {l}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Someone signed up with an address that already has an account.
fn already_registered(language: Language, username: &str) -> (String, String) {
    use Language::*;
    let (subject, body) = match language {
        En => ("Someone tried to sign up with your address", format!("Hello {username},\n\nsomeone tried to create a new tourney account with this e-mail address, which already belongs to your account \"{username}\". If it was you, sign in, or set a new password with POST /api/v1/auth/password-reset. If it was not, you need not do anything.\n")),
        Nb => ("Noen prøvde å registrere seg med adressen din", format!("Hei {username},\n\nnoen prøvde å opprette en ny tourney-konto med denne e-postadressen, som allerede hører til kontoen din «{username}». Var det deg, logg inn, eller velg et nytt passord med POST /api/v1/auth/password-reset. Var det ikke deg, trenger du ikke gjøre noe.\n")),
        Pl => ("Ktoś próbował założyć konto z Twoim adresem", format!("Dzień dobry {username},\n\nktoś próbował założyć nowe konto tourney z tym adresem e-mail, który należy już do Twojego konta „{username}”. Jeśli to Ty, zaloguj się lub ustaw nowe hasło przez POST /api/v1/auth/password-reset. Jeśli nie, nie musisz nic robić.\n")),
        De => ("Jemand wollte sich mit deiner Adresse registrieren", format!("Hallo {username},\n\njemand wollte mit dieser E-Mail-Adresse ein neues tourney-Konto anlegen; sie gehört bereits zu deinem Konto „{username}“. Warst du es, melde dich an oder setze ein neues Passwort über POST /api/v1/auth/password-reset. Wenn nicht, musst du nichts tun.\n")),
        ZhHant => ("有人嘗試以您的地址註冊", format!("{username} 您好：\n\n有人嘗試以此電子郵件地址建立新的 tourney 帳號，但此地址已屬於您的帳號「{username}」。若是您本人，請登入，或透過 POST /api/v1/auth/password-reset 設定新密碼。若不是，您無需採取任何行動。\n")),
    };
    (subject.to_string(), body)
}

/// A claim's decision in `language`.
fn claim_text(
    language: Language,
    username: &str,
    player: &str,
    approved: bool,
    reason: &str,
) -> (String, String) {
    use Language::*;
    // The decider's words, quoted as the inviter's are: never the message's button, a link or
    // a code of ours (whoever made the player decides claims on it).
    let reason = &match reason.trim() {
        "" => String::new(),
        words => quoted(words),
    };
    match (language, approved) {
        (En, true) => ("Your claim was approved".into(), format!("Hello {username},\n\nyour account is now linked to the player \"{player}\".\n{reason}\n")),
        (En, false) => ("Your claim was refused".into(), format!("Hello {username},\n\nyour claim on the player \"{player}\" was refused. The reason given:\n\n{reason}\n")),
        (Nb, true) => ("Kravet ditt er godkjent".into(), format!("Hei {username},\n\nkontoen din er nå knyttet til spilleren «{player}».\n{reason}\n")),
        (Nb, false) => ("Kravet ditt er avslått".into(), format!("Hei {username},\n\nkravet ditt på spilleren «{player}» ble avslått. Begrunnelse:\n\n{reason}\n")),
        (Pl, true) => ("Twoje zgłoszenie zostało przyjęte".into(), format!("Dzień dobry {username},\n\nTwoje konto jest teraz powiązane z graczem „{player}”.\n{reason}\n")),
        (Pl, false) => ("Twoje zgłoszenie zostało odrzucone".into(), format!("Dzień dobry {username},\n\nTwoje zgłoszenie dotyczące gracza „{player}” zostało odrzucone. Uzasadnienie:\n\n{reason}\n")),
        (De, true) => ("Dein Anspruch wurde bestätigt".into(), format!("Hallo {username},\n\ndein Konto ist jetzt mit dem Spieler „{player}“ verknüpft.\n{reason}\n")),
        (De, false) => ("Dein Anspruch wurde abgelehnt".into(), format!("Hallo {username},\n\ndein Anspruch auf den Spieler „{player}“ wurde abgelehnt. Begründung:\n\n{reason}\n")),
        (ZhHant, true) => ("您的認領已核准".into(), format!("{username} 您好：\n\n您的帳號現已連結至選手「{player}」。\n{reason}\n")),
        (ZhHant, false) => ("您的認領未獲核准".into(), format!("{username} 您好：\n\n您對選手「{player}」的認領未獲核准。理由：\n\n{reason}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::accounts::links::{Flow, MailLinks};

    fn invitation<'a>(message: &'a str, venue: Option<&'a str>, link: Option<&'a str>) -> Mail<'a> {
        Mail::Invitation(Invitation {
            inviter: "kari",
            tournament: "Oslo Open",
            starts_on: NaiveDate::from_ymd_opt(2027, 3, 6).unwrap(),
            ends_on: NaiveDate::from_ymd_opt(2027, 3, 7).unwrap(),
            venue,
            code: "in_9abc",
            link,
            message,
        })
    }

    /// Each message that carries a code, with its code and (given `links`) its link.
    fn all_coded(links: &MailLinks) -> Vec<(Mail<'static>, &'static str, Option<String>)> {
        let leak = |s: Option<String>| -> Option<&'static str> { s.map(|s| &*s.leak()) };
        let verify = links.link(Flow::Verify, "ev_1234");
        let reset = links.link(Flow::Reset, "pr_5678");
        let invite = links.link(Flow::Invitation, "in_9abc");
        vec![
            (
                Mail::Verify {
                    username: "kari",
                    code: "ev_1234",
                    link: leak(verify.clone()),
                },
                "ev_1234",
                verify,
            ),
            (
                Mail::Reset {
                    username: "kari",
                    code: "pr_5678",
                    link: leak(reset.clone()),
                },
                "pr_5678",
                reset,
            ),
            (
                invitation("Welcome!", Some("Chateau Neuf"), leak(invite.clone())),
                "in_9abc",
                invite,
            ),
        ]
    }

    #[test]
    fn every_message_exists_in_every_language_with_its_code() {
        let none = MailLinks::default();
        for l in Language::ALL {
            for (m, code, _) in all_coded(&none) {
                let t = render(l, &m);
                assert!(
                    !t.subject.is_empty() && t.body.contains("kari"),
                    "{l:?} {m:?}"
                );
                assert!(t.body.contains(code), "{l:?} {m:?}");
                assert!(t.body.contains("POST /api/v1/"), "{l:?} {m:?}");
                assert!(!t.body.contains("http"), "no link without one: {l:?} {m:?}");
            }
            let t = render(l, &Mail::AlreadyRegistered { username: "kari" });
            assert!(t.body.contains("kari"));
        }
        let en = render(Language::En, &Mail::AlreadyRegistered { username: "k" });
        let de = render(Language::De, &Mail::AlreadyRegistered { username: "k" });
        assert_ne!(en.subject, de.subject);
    }

    /// With a link, the link comes first and the code after it, as the fallback.
    #[test]
    fn the_link_comes_before_the_code() {
        let links = MailLinks::new(Some("https://t.example"), None, None, None).unwrap();
        for l in Language::ALL {
            for (m, code, link) in all_coded(&links) {
                let link = link.expect("a link");
                let body = render(l, &m).body;
                let at_link = body.find(&link).unwrap_or_else(|| panic!("{l:?}: {body}"));
                let at_code = body
                    .rfind(&format!("\n{code}\n"))
                    .expect("the code on its own line");
                assert!(at_link < at_code, "{l:?}: {body}");
                assert_eq!(body.matches(&link).count(), 1);
            }
        }
    }

    #[test]
    fn a_claims_reason_is_quoted_never_the_messages_button_or_code() {
        let decided = |approved, reason| Mail::ClaimDecided {
            username: "kari",
            player: "Kari Nordmann",
            approved,
            reason,
        };
        for l in Language::ALL {
            for approved in [true, false] {
                let t = render(
                    l,
                    &decided(approved, "See\n\nhttps://x.example\n\nAB12CD34EF"),
                );
                assert!(t.body.contains("> https://x.example"), "{l:?}: {}", t.body);
                let html = crate::infra::mail::html_of(&t.subject, &t.body);
                assert!(!html.contains("<a href"), "{l:?}: {html}");
                assert!(!html.contains("<code"), "{l:?}: {html}");
                let none = render(l, &decided(approved, "  ")).body;
                assert!(!none.contains('>'), "{l:?}: {none}");
            }
        }
    }

    #[test]
    fn an_invitation_says_when_where_and_what_the_organiser_wrote() {
        let body = render(
            Language::En,
            &invitation("Bring a pen.", Some("Chateau Neuf"), None),
        )
        .body;
        assert!(
            body.contains("kari invites you to the tournament \"Oslo Open\""),
            "{body}"
        );
        assert!(body.contains("When: 2027-03-06 – 2027-03-07"), "{body}");
        assert!(body.contains("Where: Chateau Neuf"), "{body}");
        assert!(
            body.contains("A message from the organiser:\n\n> Bring a pen."),
            "{body}"
        );
        // Their words stay one quoted paragraph, blank lines and links included.
        let body = render(
            Language::En,
            &invitation(" Hi!\r\n\r\nhttps://x.example \n", None, None),
        )
        .body;
        assert!(
            body.contains("organiser:\n\n> Hi!\n>\n> https://x.example\n\n"),
            "{body}"
        );
        let bare = render(Language::Nb, &invitation("  ", None, None)).body;
        assert!(
            !bare.contains("Hvor") && !bare.contains("arrangøren"),
            "{bare}"
        );
        let subject = render(Language::De, &invitation("", None, None)).subject;
        assert_eq!(subject, "Einladung zu Oslo Open");
    }

    /// The address change's two messages, in every language: the code (and its link first) to
    /// the new address; the new address and a reset code to the old one.
    #[test]
    fn an_address_change_sends_a_code_and_a_notice_in_every_language() {
        for l in Language::ALL {
            for link in [
                None,
                Some("https://t.example/account/verify-email?code=ec_77"),
            ] {
                let t = render(
                    l,
                    &Mail::AddressChange {
                        username: "kari",
                        code: "ec_77",
                        link,
                    },
                );
                assert!(
                    t.body.contains("kari") && t.body.contains("\nec_77\n"),
                    "{l:?}"
                );
                assert!(t.body.contains("POST /api/v1/auth/verify-email"), "{l:?}");
                if let Some(link) = link {
                    assert!(t.body.find(link) < t.body.find("\nec_77\n"), "{l:?}");
                }
                let n = render(
                    l,
                    &Mail::AddressChangeNotice {
                        username: "kari",
                        new_email: "kari@club.example",
                        code: "pr_88",
                        link: None,
                    },
                );
                assert!(n.body.contains("kari@club.example"), "{l:?}: {}", n.body);
                assert!(n.body.contains("\npr_88\n"), "{l:?}");
                assert!(n.body.contains("password-reset/confirm"), "{l:?}");
                assert_ne!(t.subject, n.subject);
            }
        }
    }
}
