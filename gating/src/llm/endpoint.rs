//! The endpoint URL: checked when the config is read (scheme, host, a port that exists)
//! and shown only with its credentials and query hidden: a password or token written
//! into `--llm-url` (`https://user:sk-...@host/v1`, `?key=...`) must never reach a
//! warning or `gatecrew adjudicate`'s output.

use url::Url;

/// What replaces a hidden part.
const HIDDEN: &str = "***";

/// Why an endpoint URL is refused. The text never holds the URL's credentials.
pub fn check_url(raw: &str) -> Result<Url, String> {
    let shown = redact_url(raw);
    let url = Url::parse(raw).map_err(|e| format!("\"{shown}\" is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("must start with http:// or https://, got \"{shown}\""));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("\"{shown}\" names no host"));
    }
    Ok(url)
}

/// The URL as it may be shown: user name, password and query replaced by `***`. Text
/// that does not parse as a URL is shown up to a userinfo `@` or query `?` only.
pub fn redact_url(raw: &str) -> String {
    match Url::parse(raw).ok().filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host()) {
        Some(mut url) => {
            if !url.username().is_empty() {
                let _ = url.set_username(HIDDEN);
            }
            if url.password().is_some() {
                let _ = url.set_password(Some(HIDDEN));
            }
            if url.query().is_some() {
                url.set_query(Some(HIDDEN));
            }
            if url.fragment().is_some() {
                url.set_fragment(None);
            }
            url.to_string()
        }
        None => {
            // Unparsable (a port past 65535, a stray space): keep the scheme, hide
            // everything up to the last `@` of the authority, cut at `?`.
            let (scheme, rest) = raw.split_once("://").map_or(("", raw), |(s, r)| (s, r));
            let rest = rest.split(['?', '#']).next().unwrap_or("");
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let rest = match rest[..authority_end].rfind('@') {
                Some(at) => format!("{HIDDEN}@{}", &rest[at + 1..]),
                None => rest.to_owned(),
            };
            if scheme.is_empty() { rest } else { format!("{scheme}://{rest}") }
        }
    }
}

/// Same scheme, host and port: the only redirects the client follows (a reply that
/// sends the request, with its key, to another host is refused).
pub fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn credentials_and_queries_are_hidden() {
        for (raw, shown) in [
            ("https://user:sk-secret@api.example.com/v1", "https://***:***@api.example.com/v1"),
            ("http://sk-secret@127.0.0.1:8080/v1", "http://***@127.0.0.1:8080/v1"),
            ("http://127.0.0.1:8080/v1?key=sk-secret#frag", "http://127.0.0.1:8080/v1?***"),
            ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
            ("http://u:sk-secret@127.0.0.1:99999/v1", "http://***@127.0.0.1:99999/v1"),
            ("u:sk-secret@host?x=sk-secret", "***@host"),
        ] {
            assert_eq!(redact_url(raw), shown, "{raw}");
        }
    }

    #[test]
    fn ports_past_65535_and_hostless_urls_are_refused_without_the_secret() {
        let e = check_url("http://u:sk-secret@127.0.0.1:99999/v1").unwrap_err();
        assert!(e.contains("invalid port"), "{e}");
        assert!(!e.contains("sk-secret"), "{e}");
        assert!(check_url("http://").is_err());
        assert!(check_url("ftp://host/v1").is_err());
        assert!(check_url("http://127.0.0.1:65535/v1").is_ok());
    }

    #[test]
    fn only_same_origin_redirects() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(same_origin(&u("http://h:80/a"), &u("http://h/b")));
        assert!(!same_origin(&u("http://h/a"), &u("http://evil/a")));
        assert!(!same_origin(&u("http://h/a"), &u("https://h/a")));
        assert!(!same_origin(&u("http://h:8080/a"), &u("http://h:8081/a")));
    }
}
