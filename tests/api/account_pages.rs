//! Issue 40, items 1 to 3: every message carries a link to a page (the service's own under its
//! public address, or a deployment's template), in a multipart message whose HTML part is
//! escaped; the pages confirm an address, set a new password and accept an invitation through
//! the same use cases as the JSON operations, answer every error on the page in its language,
//! and write nothing on a refused step.

use serde_json::{json, Value};
use tourney::domain::accounts::SignupMode;

use crate::helpers::sign_up;
use crate::helpers::{next_mail, spawn_app_with_signup, spawn_open_app, TestApp, PASSWORD};
use crate::signup::sql;
use crate::smtp_sink::SmtpSink;

/// GET a page (the whole link as it came in the message, or a path).
async fn open(app: &TestApp, link: &str, lang: Option<&str>) -> (u16, String) {
    let url = if link.starts_with("http") {
        link.to_string()
    } else {
        app.url(link)
    };
    let mut r = app.client.get(url);
    if let Some(l) = lang {
        r = r.header("accept-language", l);
    }
    let res = r.send().await.expect("page");
    let status = res.status().as_u16();
    let text = res.text().await.unwrap_or_default();
    (status, text)
}

/// POST a page's form.
async fn submit(app: &TestApp, path: &str, form: &[(&str, &str)]) -> (u16, String) {
    let res = app
        .client
        .post(app.url(path))
        .form(form)
        .send()
        .await
        .expect("form");
    let status = res.status().as_u16();
    (status, res.text().await.unwrap_or_default())
}

/// The value of the hidden `code` field of a page's form.
fn form_code(page: &str) -> String {
    let at = page.find("name=\"code\" value=\"").expect("a code field") + 19;
    page[at..].split('"').next().unwrap().to_string()
}

#[actix_web::test]
async fn a_sign_up_is_confirmed_from_the_link_in_its_message() {
    let (sink, app) = spawn_open_app().await;
    let before = sink.to("kari@example.no").len();
    assert_eq!(
        sign_up(&app, "kari", "kari@example.no", None)
            .await
            .status(),
        202
    );
    let mail = next_mail(&sink, "kari@example.no", before).await;
    // A readable message: MIME 1.0, multipart text and HTML, the link first, the code after.
    assert_eq!(mail.header("mime-version").as_deref(), Some("1.0"));
    assert!(mail
        .header("content-type")
        .unwrap()
        .starts_with("multipart/alternative"));
    let text = mail.body();
    let link = mail.link("/account/verify-email").expect("a link");
    let code = mail.code("ev_");
    assert_eq!(link, app.url(&format!("/account/verify-email?code={code}")));
    assert!(text.find(&link).unwrap() < text.rfind(&format!("\n{code}")).unwrap());
    let html = mail.html().expect("an HTML part");
    assert!(html.contains(&format!("href=\"{link}\"")), "{html}");
    // The link shows a form; opening it spends nothing (a mail scanner may open every link).
    let res = app.client.get(&link).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"));
    assert_eq!(res.headers()["referrer-policy"], "no-referrer");
    assert_eq!(res.headers()["cache-control"], "no-store");
    let page = res.text().await.unwrap();
    assert!(!page.contains("<script"));
    assert_eq!(form_code(&page), code);
    let (status, _) = open(&app, &link, None).await;
    assert_eq!(status, 200);
    assert_eq!(
        sql(
            &app,
            "SELECT 1 FROM users WHERE username = 'kari' AND email_verified_at IS NULL"
        ),
        1
    );
    // The form's POST confirms; the account signs in.
    let (status, page) = submit(&app, "/account/verify-email", &[("code", &code)]).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Your address is confirmed"), "{page}");
    let token = app.token("kari", PASSWORD).await;
    assert!(!token.is_empty());
    // A second use of the code: the page says so, in the reader's language, with the JSON
    // operation's status.
    let (status, page) = submit(
        &app,
        "/account/verify-email",
        &[("code", &code), ("lang", "de")],
    )
    .await;
    assert_eq!(status, 422);
    assert!(
        page.contains("lang=\"de\"") && page.contains("nicht mehr gültig"),
        "{page}"
    );
}

#[actix_web::test]
async fn a_page_without_a_code_or_with_a_made_up_one_writes_nothing() {
    let (_sink, app) = spawn_open_app().await;
    for path in [
        "/account/verify-email",
        "/account/reset-password",
        "/account/invitation",
    ] {
        let (status, page) = open(&app, path, Some("pl-PL,pl;q=0.9")).await;
        assert_eq!(status, 422, "{path}");
        assert!(
            page.contains("lang=\"pl\"") && page.contains("brakuje kodu"),
            "{page}"
        );
        let (status, _) = submit(&app, path, &[("lang", "en")]).await;
        assert_eq!(status, 422, "{path}");
    }
    let (status, page) = submit(
        &app,
        "/account/verify-email",
        &[("code", "ev_madeup<script>")],
    )
    .await;
    assert_eq!(status, 422);
    assert!(!page.contains("<script>") && page.contains("ev_madeup&lt;script&gt;"));
    let (status, page) = open(&app, "/account/invitation?code=in_nothing", None).await;
    assert_eq!(status, 422);
    assert!(page.contains("cannot be used any more"), "{page}");
    // The page's POSTs count as sign-in calls.
    let r = app
        .client
        .post(app.url("/account/verify-email"))
        .form(&[("code", "x")])
        .send()
        .await
        .unwrap();
    assert!(r.headers()["ratelimit-policy"]
        .to_str()
        .unwrap()
        .starts_with("\"auth\""));
}

#[actix_web::test]
async fn a_new_password_is_chosen_on_the_page_of_the_reset_link() {
    let (sink, app) = spawn_open_app().await;
    crate::helpers::verified_account(&app, &sink, "ola", "ola@example.no").await;
    let before = sink.to("ola@example.no").len();
    let r = app
        .client
        .post(app.url("/api/v1/auth/password-reset"))
        .header("accept-language", "nb")
        .json(&json!({"email": "ola@example.no"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let mail = next_mail(&sink, "ola@example.no", before).await;
    let link = mail.link("/account/reset-password").expect("a link");
    let code = mail.code("pr_");
    let (status, page) = open(&app, &link, Some("nb")).await;
    assert_eq!(status, 200);
    assert!(page.contains("Velg et nytt passord") && page.contains("type=\"password\""));
    // Two passwords that differ, then a weak one: refused on the page, nothing changes.
    let new = "a much longer passphrase 42";
    let (status, page) = submit(
        &app,
        "/account/reset-password",
        &[
            ("code", &code),
            ("password", new),
            ("password_again", "other"),
            ("lang", "nb"),
        ],
    )
    .await;
    assert_eq!(status, 422);
    assert!(page.contains("passordene er ulike"), "{page}");
    let (status, page) = submit(
        &app,
        "/account/reset-password",
        &[
            ("code", &code),
            ("password", "password"),
            ("password_again", "password"),
        ],
    )
    .await;
    assert_eq!(status, 422);
    assert!(page.contains("Choose another password"), "{page}");
    assert!(!app.token("ola", PASSWORD).await.is_empty());
    // The right form sets it: the old password no longer signs in, the new one does.
    let (status, page) = submit(
        &app,
        "/account/reset-password",
        &[("code", &code), ("password", new), ("password_again", new)],
    )
    .await;
    assert_eq!(status, 200, "{page}");
    let old = app
        .post(
            "/api/v1/auth/token",
            None,
            json!({"username": "ola", "password": PASSWORD}),
        )
        .await;
    assert_eq!(old.status(), 401);
    assert!(!app.token("ola", new).await.is_empty());
}

async fn invite(app: &TestApp, admin: &str, tid: i64, body: Value) {
    let r = app
        .post(
            &format!("/api/v1/tournaments/{tid}/invitations"),
            Some(admin),
            body,
        )
        .await;
    assert_eq!(r.status(), 201);
}

#[actix_web::test]
async fn an_invitation_says_when_and_where_and_is_accepted_on_its_page() {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Invite, Some(&sink.url())).await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "agricola_norway").await;
    let r = app
        .patch_any(
            &format!("/api/v1/tournaments/{tid}"),
            Some(&admin),
            json!({"venue": "Chateau <Neuf>", "name": "Oslo & Open"}),
        )
        .await;
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let r = app
        .post(
            "/api/v1/players",
            Some(&admin),
            json!({"name": "Kari Nordmann"}),
        )
        .await;
    let kari = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let before = sink.to("kari@example.no").len();
    invite(
        &app,
        &admin,
        tid,
        json!({"email": "kari@example.no", "player_id": kari, "message": "Bring <b>your</b> own pen."}),
    )
    .await;
    let mail = next_mail(&sink, "kari@example.no", before).await;
    let text = mail.body();
    assert!(
        text.contains("Oslo & Open") && text.contains("2026-06-12 – 2026-06-14"),
        "{text}"
    );
    assert!(text.contains("Chateau <Neuf>") && text.contains("Bring <b>your</b> own pen."));
    let html = mail.html().unwrap();
    assert!(
        html.contains("Chateau &lt;Neuf&gt;") && !html.contains("<b>your</b>"),
        "{html}"
    );
    let link = mail.link("/account/invitation").expect("a link");
    let code = mail.code("in_");
    let (status, page) = open(&app, &link, None).await;
    assert_eq!(status, 200, "{page}");
    for shown in [
        "Oslo &amp; Open",
        "Chateau &lt;Neuf&gt;",
        "Kari Nordmann",
        "kari@example.no",
        "Bring &lt;b&gt;your&lt;/b&gt; own pen.",
    ] {
        assert!(page.contains(shown), "{shown}: {page}");
    }
    // A username that is taken: refused on the page, the invitation still open.
    let (status, page) = submit(
        &app,
        "/account/invitation",
        &[
            ("code", &code),
            ("account", "new"),
            ("username", "admin"),
            ("password", PASSWORD),
            ("consent", "yes"),
        ],
    )
    .await;
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("Choose another username"), "{page}");
    assert_eq!(
        sql(&app, "SELECT 1 FROM invitations WHERE accepted_at IS NULL"),
        1
    );
    // A new account, the player linked with consent, registered; the account signs in.
    let (status, page) = submit(
        &app,
        "/account/invitation",
        &[
            ("code", &code),
            ("account", "new"),
            ("username", "kari"),
            ("password", PASSWORD),
            ("consent", "yes"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("Welcome, kari") && page.contains("linked to your account"),
        "{page}"
    );
    let token = app.token("kari", PASSWORD).await;
    let me = app.me(&token).await;
    assert_eq!(me["player_id"].as_i64(), Some(kari), "{me}");
    assert_eq!(
        sql(
            &app,
            &format!(
                "SELECT 1 FROM registrations WHERE tournament_id = {tid} AND player_id = {kari}"
            )
        ),
        1
    );
    // Used: the page says so, and a second POST changes nothing.
    let (status, _) = open(&app, &link, None).await;
    assert_eq!(status, 422);
    let (status, _) = submit(
        &app,
        "/account/invitation",
        &[
            ("code", &code),
            ("account", "new"),
            ("username", "kari2"),
            ("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(sql(&app, "SELECT 1 FROM users WHERE username = 'kari2'"), 0);
}

#[actix_web::test]
async fn an_existing_account_accepts_with_its_password_counted_by_the_sign_in_throttle() {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Closed, Some(&sink.url())).await;
    let admin = app.admin_token().await;
    let tid = app.tournament(&admin, "agricola_norway").await;
    let (ola_id, _) = app.user("ola").await;
    let before = sink.to("ola@example.no").len();
    invite(&app, &admin, tid, json!({"email": "ola@example.no"})).await;
    let code = next_mail(&sink, "ola@example.no", before).await.code("in_");
    // A wrong password: 401 on the page, nothing accepted.
    let (status, page) = submit(
        &app,
        "/account/invitation",
        &[
            ("code", &code),
            ("account", "existing"),
            ("username", "ola"),
            ("password", "not it at all"),
        ],
    )
    .await;
    assert_eq!(status, 401);
    assert!(page.contains("Wrong username or password"), "{page}");
    assert_eq!(
        sql(&app, "SELECT 1 FROM invitations WHERE accepted_at IS NULL"),
        1
    );
    // In closed mode the page makes no new account.
    let (status, _) = submit(
        &app,
        "/account/invitation",
        &[
            ("code", &code),
            ("account", "new"),
            ("username", "someone"),
            ("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(status, 403);
    // The right password accepts for that account.
    let (status, page) = submit(
        &app,
        "/account/invitation",
        &[
            ("code", &code),
            ("account", "existing"),
            ("username", "ola"),
            ("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        sql(
            &app,
            &format!("SELECT 1 FROM invitations WHERE accepted_by = {ola_id}")
        ),
        1
    );
}

/// The inviter's words are quoted text in both parts of the message: a link or a code of
/// theirs (here from an account that is no admin, who made a tournament) is never the HTML
/// part's button, nor a link or a code of it; the button is the invitation's own link.
#[actix_web::test]
async fn an_inviters_link_is_never_the_invitations_button() {
    let sink = SmtpSink::start();
    let app = spawn_app_with_signup(SignupMode::Invite, Some(&sink.url())).await;
    let (_, stranger) = app.user("stranger").await;
    let tid = app.tournament(&stranger, "agricola_norway").await;
    let before = sink.to("kari@example.no").len();
    let message = "Open this link to accept:\n\nhttps://evil.example/accept\n\n\
                   in_0000fakefakefake\n\nSee you!";
    invite(
        &app,
        &stranger,
        tid,
        json!({"email": "kari@example.no", "message": message}),
    )
    .await;
    let mail = next_mail(&sink, "kari@example.no", before).await;
    let text = mail.body().replace("\r\n", "\n");
    assert!(
        text.contains("> Open this link to accept:\n>\n> https://evil.example/accept\n>\n> in_0000fakefakefake\n>\n> See you!"),
        "{text}"
    );
    let link = mail
        .link("/account/invitation")
        .expect("the invitation's link");
    assert!(!link.contains("evil"), "{link}");
    let code = link.split("code=").nth(1).expect("a code").to_string();
    let html = mail.html().expect("an HTML part");
    let first = html.find("<a href=\"").expect("a button") + 9;
    assert_eq!(
        &html[first..first + link.len()],
        link.replace('&', "&amp;"),
        "{html}"
    );
    assert_eq!(html.matches("<a ").count(), 1, "one link: {html}");
    assert!(!html.contains("href=\"https://evil"), "{html}");
    let codes: Vec<&str> = html
        .split("<code")
        .skip(1)
        .map(|c| c.split('>').nth(1).unwrap().split('<').next().unwrap())
        .collect();
    assert_eq!(codes, [code.as_str()], "{html}");
    assert!(
        html.contains("https://evil.example/accept"),
        "shown as text: {html}"
    );
}
