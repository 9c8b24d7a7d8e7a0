//! The texts of the messages the service sends, in each language it writes (issue 29): a pure
//! table, filled in when a message is queued (the outbox stores the text as sent).

use crate::domain::accounts::Language;

/// A message's subject and plain-text body.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub subject: String,
    pub body: String,
}

/// What a message says.
#[derive(Debug, Clone)]
pub enum Mail<'a> {
    /// A new account's address: the code that verifies it.
    Verify { username: &'a str, code: &'a str },
    /// Someone signed up with an address that already has an account.
    AlreadyRegistered { username: &'a str },
    /// A password reset was asked for: the code that sets a new password.
    Reset { username: &'a str, code: &'a str },
    /// An invitation to a tournament: the code that accepts it, and the inviter's own words.
    Invitation {
        inviter: &'a str,
        tournament: &'a str,
        code: &'a str,
        message: &'a str,
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

impl Mail<'_> {
    /// What the message is, as the outbox records it for operators (its body goes once sent).
    pub fn kind(&self) -> &'static str {
        match self {
            Mail::Verify { .. } => "verify",
            Mail::AlreadyRegistered { .. } => "already_registered",
            Mail::Reset { .. } => "reset",
            Mail::Invitation { .. } => "invitation",
            Mail::ClaimDecided { .. } => "claim_decided",
        }
    }
}

/// The message in `language`.
// layout: long: one text per message and language
pub fn render(language: Language, mail: &Mail<'_>) -> Text {
    use Language::*;
    let (subject, body) = match (mail, language) {
        (Mail::Verify { username, code }, En) => (
            "Confirm your e-mail address".to_string(),
            format!("Hello {username},\n\nto confirm this address for your tourney account, send this code to POST /api/v1/auth/verify-email (or enter it in your app):\n\n{code}\n\nThe code is valid for 24 hours. If you did not sign up, ignore this message.\n"),
        ),
        (Mail::Verify { username, code }, Nb) => (
            "Bekreft e-postadressen din".to_string(),
            format!("Hei {username},\n\nfor å bekrefte denne adressen for tourney-kontoen din, send denne koden til POST /api/v1/auth/verify-email (eller skriv den inn i appen):\n\n{code}\n\nKoden gjelder i 24 timer. Har du ikke registrert deg, kan du se bort fra denne meldingen.\n"),
        ),
        (Mail::Verify { username, code }, Pl) => (
            "Potwierdź swój adres e-mail".to_string(),
            format!("Dzień dobry {username},\n\naby potwierdzić ten adres dla konta tourney, wyślij ten kod na POST /api/v1/auth/verify-email (lub wpisz go w aplikacji):\n\n{code}\n\nKod jest ważny przez 24 godziny. Jeśli to nie Ty zakładałeś konto, zignoruj tę wiadomość.\n"),
        ),
        (Mail::Verify { username, code }, De) => (
            "Bestätige deine E-Mail-Adresse".to_string(),
            format!("Hallo {username},\n\num diese Adresse für dein tourney-Konto zu bestätigen, sende diesen Code an POST /api/v1/auth/verify-email (oder gib ihn in deiner App ein):\n\n{code}\n\nDer Code ist 24 Stunden gültig. Wenn du dich nicht registriert hast, ignoriere diese Nachricht.\n"),
        ),
        (Mail::Verify { username, code }, ZhHant) => (
            "請確認您的電子郵件地址".to_string(),
            format!("{username} 您好：\n\n若要為您的 tourney 帳號確認此地址，請將以下代碼送至 POST /api/v1/auth/verify-email（或在應用程式中輸入）：\n\n{code}\n\n此代碼 24 小時內有效。若您並未註冊，請忽略此訊息。\n"),
        ),
        (Mail::AlreadyRegistered { username }, En) => (
            "Someone tried to sign up with your address".to_string(),
            format!("Hello {username},\n\nsomeone tried to create a new tourney account with this e-mail address, which already belongs to your account \"{username}\". If it was you, sign in, or set a new password with POST /api/v1/auth/password-reset. If it was not, you need not do anything.\n"),
        ),
        (Mail::AlreadyRegistered { username }, Nb) => (
            "Noen prøvde å registrere seg med adressen din".to_string(),
            format!("Hei {username},\n\nnoen prøvde å opprette en ny tourney-konto med denne e-postadressen, som allerede hører til kontoen din «{username}». Var det deg, logg inn, eller velg et nytt passord med POST /api/v1/auth/password-reset. Var det ikke deg, trenger du ikke gjøre noe.\n"),
        ),
        (Mail::AlreadyRegistered { username }, Pl) => (
            "Ktoś próbował założyć konto z Twoim adresem".to_string(),
            format!("Dzień dobry {username},\n\nktoś próbował założyć nowe konto tourney z tym adresem e-mail, który należy już do Twojego konta „{username}”. Jeśli to Ty, zaloguj się lub ustaw nowe hasło przez POST /api/v1/auth/password-reset. Jeśli nie, nie musisz nic robić.\n"),
        ),
        (Mail::AlreadyRegistered { username }, De) => (
            "Jemand wollte sich mit deiner Adresse registrieren".to_string(),
            format!("Hallo {username},\n\njemand wollte mit dieser E-Mail-Adresse ein neues tourney-Konto anlegen; sie gehört bereits zu deinem Konto „{username}“. Warst du es, melde dich an oder setze ein neues Passwort über POST /api/v1/auth/password-reset. Wenn nicht, musst du nichts tun.\n"),
        ),
        (Mail::AlreadyRegistered { username }, ZhHant) => (
            "有人嘗試以您的地址註冊".to_string(),
            format!("{username} 您好：\n\n有人嘗試以此電子郵件地址建立新的 tourney 帳號，但此地址已屬於您的帳號「{username}」。若是您本人，請登入，或透過 POST /api/v1/auth/password-reset 設定新密碼。若不是，您無需採取任何行動。\n"),
        ),
        (Mail::Reset { username, code }, En) => (
            "Set a new password".to_string(),
            format!("Hello {username},\n\na new password was asked for your tourney account. Send this code with your new password to POST /api/v1/auth/password-reset/confirm (or enter it in your app):\n\n{code}\n\nThe code is valid for one hour and works once; every session of the account ends when it is used. If you did not ask, ignore this message: your password stays as it is.\n"),
        ),
        (Mail::Reset { username, code }, Nb) => (
            "Velg et nytt passord".to_string(),
            format!("Hei {username},\n\ndet ble bedt om et nytt passord for tourney-kontoen din. Send denne koden sammen med det nye passordet til POST /api/v1/auth/password-reset/confirm (eller skriv den inn i appen):\n\n{code}\n\nKoden gjelder i én time og kan brukes én gang; alle økter for kontoen avsluttes når den brukes. Ba du ikke om dette, kan du se bort fra meldingen: passordet ditt er uendret.\n"),
        ),
        (Mail::Reset { username, code }, Pl) => (
            "Ustaw nowe hasło".to_string(),
            format!("Dzień dobry {username},\n\npoproszono o nowe hasło do Twojego konta tourney. Wyślij ten kod razem z nowym hasłem na POST /api/v1/auth/password-reset/confirm (lub wpisz go w aplikacji):\n\n{code}\n\nKod jest ważny przez godzinę i działa raz; po jego użyciu wszystkie sesje konta zostaną zakończone. Jeśli to nie Ty, zignoruj tę wiadomość: hasło pozostaje bez zmian.\n"),
        ),
        (Mail::Reset { username, code }, De) => (
            "Neues Passwort festlegen".to_string(),
            format!("Hallo {username},\n\nfür dein tourney-Konto wurde ein neues Passwort angefordert. Sende diesen Code mit deinem neuen Passwort an POST /api/v1/auth/password-reset/confirm (oder gib ihn in deiner App ein):\n\n{code}\n\nDer Code ist eine Stunde gültig und funktioniert einmal; danach enden alle Sitzungen des Kontos. Wenn du es nicht warst, ignoriere diese Nachricht: dein Passwort bleibt unverändert.\n"),
        ),
        (Mail::Reset { username, code }, ZhHant) => (
            "設定新密碼".to_string(),
            format!("{username} 您好：\n\n有人為您的 tourney 帳號申請了新密碼。請將以下代碼連同新密碼送至 POST /api/v1/auth/password-reset/confirm（或在應用程式中輸入）：\n\n{code}\n\n此代碼一小時內有效且只能使用一次；使用後帳號的所有登入工作階段都會結束。若不是您本人申請，請忽略此訊息，您的密碼不會改變。\n"),
        ),
        (Mail::Invitation { inviter, tournament, code, message }, En) => (
            format!("Invitation to {tournament}"),
            format!("Hello,\n\n{inviter} invites you to the tournament \"{tournament}\".\n{message}\nTo accept, send this code to POST /api/v1/auth/invitations/accept (or enter it in your app), with a new username and password or signed in to your account:\n\n{code}\n\nThe invitation is valid for 14 days and works once. If you do not want to take part, ignore this message.\n"),
        ),
        (Mail::Invitation { inviter, tournament, code, message }, Nb) => (
            format!("Invitasjon til {tournament}"),
            format!("Hei,\n\n{inviter} inviterer deg til turneringen «{tournament}».\n{message}\nFor å takke ja, send denne koden til POST /api/v1/auth/invitations/accept (eller skriv den inn i appen), med nytt brukernavn og passord eller innlogget på kontoen din:\n\n{code}\n\nInvitasjonen gjelder i 14 dager og kan brukes én gang. Vil du ikke delta, kan du se bort fra denne meldingen.\n"),
        ),
        (Mail::Invitation { inviter, tournament, code, message }, Pl) => (
            format!("Zaproszenie na {tournament}"),
            format!("Dzień dobry,\n\n{inviter} zaprasza Cię na turniej „{tournament}”.\n{message}\nAby przyjąć zaproszenie, wyślij ten kod na POST /api/v1/auth/invitations/accept (lub wpisz go w aplikacji), z nową nazwą użytkownika i hasłem albo zalogowany na swoje konto:\n\n{code}\n\nZaproszenie jest ważne przez 14 dni i działa raz. Jeśli nie chcesz wziąć udziału, zignoruj tę wiadomość.\n"),
        ),
        (Mail::Invitation { inviter, tournament, code, message }, De) => (
            format!("Einladung zu {tournament}"),
            format!("Hallo,\n\n{inviter} lädt dich zum Turnier „{tournament}“ ein.\n{message}\nUm anzunehmen, sende diesen Code an POST /api/v1/auth/invitations/accept (oder gib ihn in deiner App ein), mit neuem Benutzernamen und Passwort oder angemeldet mit deinem Konto:\n\n{code}\n\nDie Einladung ist 14 Tage gültig und funktioniert einmal. Wenn du nicht teilnehmen möchtest, ignoriere diese Nachricht.\n"),
        ),
        (Mail::Invitation { inviter, tournament, code, message }, ZhHant) => (
            format!("{tournament} 邀請函"),
            format!("您好：\n\n{inviter} 邀請您參加比賽「{tournament}」。\n{message}\n若要接受，請將以下代碼送至 POST /api/v1/auth/invitations/accept（或在應用程式中輸入），並提供新的使用者名稱與密碼，或以您的帳號登入：\n\n{code}\n\n此邀請 14 天內有效且只能使用一次。若您不想參加，請忽略此訊息。\n"),
        ),
        (Mail::ClaimDecided { username, player, approved, reason }, lang) => claim_text(lang, username, player, *approved, reason),
    };
    Text { subject, body }
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

    #[test]
    fn every_message_exists_in_every_language_with_its_code() {
        for l in Language::ALL {
            for m in [
                Mail::Verify {
                    username: "kari",
                    code: "ev_1234",
                },
                Mail::Reset {
                    username: "kari",
                    code: "pr_5678",
                },
                Mail::AlreadyRegistered { username: "kari" },
                Mail::Invitation {
                    inviter: "kari",
                    tournament: "Oslo Open",
                    code: "in_9abc",
                    message: "",
                },
            ] {
                let t = render(l, &m);
                assert!(!t.subject.is_empty() && t.body.contains("kari"));
                if let Mail::Verify { code, .. }
                | Mail::Reset { code, .. }
                | Mail::Invitation { code, .. } = m
                {
                    assert!(t.body.contains(code), "{l:?} {m:?}");
                }
            }
        }
        let en = render(Language::En, &Mail::AlreadyRegistered { username: "k" });
        let de = render(Language::De, &Mail::AlreadyRegistered { username: "k" });
        assert_ne!(en.subject, de.subject);
    }
}
