//! The texts of an address change (issue 40, item 4): the code to the new address, and the
//! notice to the old one with a reset code that undoes the change.

use super::Phrases;
use crate::domain::accounts::Language;

// layout: long: one text per language
pub(super) fn change_phrases(language: Language) -> Phrases {
    use Language::*;
    match language {
        En => Phrases {
            subject: "Confirm your new e-mail address",
            hello: "Hello {username},",
            intro: "you asked to use this address for your tourney account. It is used once you confirm it.",
            open: "Open this link to confirm it:",
            fallback: "If the link does not open, enter this code in your app (or send it to POST /api/v1/auth/verify-email):",
            api: "Send this code to POST /api/v1/auth/verify-email (or enter it in your app):",
            outro: "The code is valid for 24 hours. If you did not ask for this, ignore this message: the account keeps its address.",
        },
        Nb => Phrases {
            subject: "Bekreft den nye e-postadressen din",
            hello: "Hei {username},",
            intro: "du ba om å bruke denne adressen for tourney-kontoen din. Den tas i bruk når du bekrefter den.",
            open: "Åpne denne lenken for å bekrefte:",
            fallback: "Åpner ikke lenken seg, skriv inn denne koden i appen (eller send den til POST /api/v1/auth/verify-email):",
            api: "Send denne koden til POST /api/v1/auth/verify-email (eller skriv den inn i appen):",
            outro: "Koden gjelder i 24 timer. Ba du ikke om dette, kan du se bort fra meldingen: kontoen beholder adressen sin.",
        },
        Pl => Phrases {
            subject: "Potwierdź swój nowy adres e-mail",
            hello: "Dzień dobry {username},",
            intro: "poproszono o używanie tego adresu dla Twojego konta tourney. Zacznie obowiązywać, gdy go potwierdzisz.",
            open: "Otwórz ten link, aby go potwierdzić:",
            fallback: "Jeśli link się nie otwiera, wpisz ten kod w aplikacji (lub wyślij go na POST /api/v1/auth/verify-email):",
            api: "Wyślij ten kod na POST /api/v1/auth/verify-email (lub wpisz go w aplikacji):",
            outro: "Kod jest ważny przez 24 godziny. Jeśli to nie Ty, zignoruj tę wiadomość: konto zachowa swój adres.",
        },
        De => Phrases {
            subject: "Bestätige deine neue E-Mail-Adresse",
            hello: "Hallo {username},",
            intro: "du möchtest diese Adresse für dein tourney-Konto verwenden. Sie gilt, sobald du sie bestätigst.",
            open: "Öffne diesen Link, um sie zu bestätigen:",
            fallback: "Wenn sich der Link nicht öffnet, gib diesen Code in deiner App ein (oder sende ihn an POST /api/v1/auth/verify-email):",
            api: "Sende diesen Code an POST /api/v1/auth/verify-email (oder gib ihn in deiner App ein):",
            outro: "Der Code ist 24 Stunden gültig. Wenn du das nicht warst, ignoriere diese Nachricht: das Konto behält seine Adresse.",
        },
        ZhHant => Phrases {
            subject: "請確認您的新電子郵件地址",
            hello: "{username} 您好：",
            intro: "您要求為您的 tourney 帳號改用此地址。確認後即開始使用。",
            open: "請開啟以下連結以確認：",
            fallback: "若連結無法開啟，請在應用程式中輸入以下代碼（或將其送至 POST /api/v1/auth/verify-email）：",
            api: "請將以下代碼送至 POST /api/v1/auth/verify-email（或在應用程式中輸入）：",
            outro: "此代碼 24 小時內有效。若不是您本人申請，請忽略此訊息，帳號的地址不會改變。",
        },
    }
}

// layout: long: one text per language
pub(super) fn notice_phrases(language: Language) -> Phrases {
    use Language::*;
    match language {
        En => Phrases {
            subject: "Your e-mail address is being changed",
            hello: "Hello {username},",
            intro: "someone signed in to your tourney account with its password asked to change its address to {new_email}. The change takes effect only when the code sent to that address is used.",
            open: "If this was not you, open this link and choose a new password: it cancels the change and ends every session of the account:",
            fallback: "If the link does not open, send this code with a new password to POST /api/v1/auth/password-reset/confirm:",
            api: "If this was not you, send this code with a new password to POST /api/v1/auth/password-reset/confirm: it cancels the change and ends every session of the account:",
            outro: "The code is valid for one hour. If the change was confirmed already, the new password still gives you the account back: sign in and change the address back. If it was you, ignore this message.",
        },
        Nb => Phrases {
            subject: "E-postadressen din er i ferd med å endres",
            hello: "Hei {username},",
            intro: "noen som er innlogget på tourney-kontoen din med passordet, ba om å endre adressen til {new_email}. Endringen gjelder først når koden som ble sendt dit, brukes.",
            open: "Var det ikke deg, åpne denne lenken og velg et nytt passord: det avbryter endringen og avslutter alle økter for kontoen:",
            fallback: "Åpner ikke lenken seg, send denne koden med et nytt passord til POST /api/v1/auth/password-reset/confirm:",
            api: "Var det ikke deg, send denne koden med et nytt passord til POST /api/v1/auth/password-reset/confirm: det avbryter endringen og avslutter alle økter for kontoen:",
            outro: "Koden gjelder i én time. Er endringen allerede bekreftet, får du kontoen tilbake med det nye passordet: logg inn og endre adressen tilbake. Var det deg, kan du se bort fra meldingen.",
        },
        Pl => Phrases {
            subject: "Twój adres e-mail jest zmieniany",
            hello: "Dzień dobry {username},",
            intro: "ktoś zalogowany na Twoje konto tourney jego hasłem poprosił o zmianę adresu na {new_email}. Zmiana nastąpi dopiero po użyciu kodu wysłanego na ten adres.",
            open: "Jeśli to nie Ty, otwórz ten link i wybierz nowe hasło: to anuluje zmianę i kończy wszystkie sesje konta:",
            fallback: "Jeśli link się nie otwiera, wyślij ten kod z nowym hasłem na POST /api/v1/auth/password-reset/confirm:",
            api: "Jeśli to nie Ty, wyślij ten kod z nowym hasłem na POST /api/v1/auth/password-reset/confirm: to anuluje zmianę i kończy wszystkie sesje konta:",
            outro: "Kod jest ważny przez godzinę. Jeśli zmiana została już potwierdzona, nowe hasło i tak zwróci Ci konto: zaloguj się i przywróć adres. Jeśli to Ty, zignoruj tę wiadomość.",
        },
        De => Phrases {
            subject: "Deine E-Mail-Adresse wird geändert",
            hello: "Hallo {username},",
            intro: "jemand, der mit dem Passwort an deinem tourney-Konto angemeldet ist, möchte die Adresse in {new_email} ändern. Die Änderung gilt erst, wenn der an diese Adresse gesendete Code verwendet wird.",
            open: "Wenn du das nicht warst, öffne diesen Link und wähle ein neues Passwort: das bricht die Änderung ab und beendet alle Sitzungen des Kontos:",
            fallback: "Wenn sich der Link nicht öffnet, sende diesen Code mit einem neuen Passwort an POST /api/v1/auth/password-reset/confirm:",
            api: "Wenn du das nicht warst, sende diesen Code mit einem neuen Passwort an POST /api/v1/auth/password-reset/confirm: das bricht die Änderung ab und beendet alle Sitzungen des Kontos:",
            outro: "Der Code ist eine Stunde gültig. Ist die Änderung schon bestätigt, bekommst du das Konto mit dem neuen Passwort trotzdem zurück: melde dich an und ändere die Adresse zurück. Wenn du es warst, ignoriere diese Nachricht.",
        },
        ZhHant => Phrases {
            subject: "您的電子郵件地址即將變更",
            hello: "{username} 您好：",
            intro: "有人以密碼登入您的 tourney 帳號，要求將地址改為 {new_email}。只有在使用寄至該地址的代碼後，變更才會生效。",
            open: "若不是您本人，請開啟以下連結並設定新密碼：這會取消變更，並結束帳號的所有登入工作階段：",
            fallback: "若連結無法開啟，請將以下代碼連同新密碼送至 POST /api/v1/auth/password-reset/confirm：",
            api: "若不是您本人，請將以下代碼連同新密碼送至 POST /api/v1/auth/password-reset/confirm：這會取消變更，並結束帳號的所有登入工作階段：",
            outro: "此代碼一小時內有效。若變更已被確認，新密碼仍能讓您取回帳號：請登入並將地址改回。若是您本人，請忽略此訊息。",
        },
    }
}
