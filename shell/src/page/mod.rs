//! One self-contained HTML page for a record: inline CSS and SVG, no script, no request of any
//! kind (a Content-Security-Policy of `default-src 'none'` says so to the browser, and only the
//! page's own stylesheet is allowed, by its hash). Every value from the record is escaped.
//!
//! Parts, one module each, so that other reports (an eval's) can reuse them: [`html`]
//! (escaping and folding), [`timeline`] (the SVG), [`bars`] (a chart of shares),
//! [`conversation`], [`diff`], [`facts`].

pub(crate) mod bars;
pub(crate) mod conversation;
pub(crate) mod diff;
pub(crate) mod facts;
pub(crate) mod html;
pub(crate) mod timeline;
pub mod view;

use camino::Utf8Path;
use html::Html;
use sha2::{Digest, Sha256};
use timeline::Timeline;
use view::Shown;

use crate::error::MendError;
use crate::record::Record;

const STYLE: &str = include_str!("style.css");

/// A link at the top of a record's page back to the page that lists it (an eval's report), and
/// what that page lists the record as.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Back<'a> {
    /// Relative to the record's page, already percent-encoded where a file name needs it.
    pub href: &'a str,
    /// The record's name on that page, for the link's text.
    pub listed_as: &'a str,
}

/// The page of the record at `path` (a run or a chat), which the page names as its source;
/// with `back`, a link to the page that lists it.
pub fn record_file_page(path: &Utf8Path, back: Option<Back>) -> Result<String, MendError> {
    let record = Record::read(path)?;
    let shown = Shown::of(&record);
    Ok(match back {
        Some(back) => listed_record_page(&shown, path.as_str(), back),
        None => record_page(&shown, path.as_str()),
    })
}

/// Writes a page whole or not at all (a kill leaves the old file or the new one); `-` is
/// standard output.
pub fn write_page(out: &Utf8Path, page: &str) -> Result<(), MendError> {
    crate::atomic::write_output(out, |file| file.write_all(page.as_bytes()))
        .map_err(|err| MendError::harness(format!("cannot write the page {out}: {err}")))
}

/// As [`write_page`], without waiting for the disk: for pages made again by rerunning the
/// command that wrote them (an eval's attempt pages).
pub fn write_derived_page(out: &Utf8Path, page: &str) -> Result<(), MendError> {
    crate::atomic::write_derived_file(out, |file| file.write_all(page.as_bytes()))
        .map_err(|err| MendError::harness(format!("cannot write the page {out}: {err}")))
}

/// The whole page for a run or a chat. `source` is where the record was read from.
pub fn record_page(shown: &Shown, source: &str) -> String {
    page_of(shown, source, None)
}

/// As [`record_page`], opening with a link back to the page that lists the record.
pub fn listed_record_page(shown: &Shown, source: &str, back: Back) -> String {
    page_of(shown, source, Some(back))
}

fn page_of(shown: &Shown, source: &str, back: Option<Back>) -> String {
    let mut page = Html::new();
    let title = format!("mend {}: {} — {source}", shown.kind, shown.settings.model);
    document_start(&title, &mut page);
    if let Some(back) = back {
        back_opening(back.href, &mut page);
        page.raw("← the report</a> · ")
            .text(back.listed_as)
            .raw("</nav>");
    }
    page.element("h1", "", &title);
    if let Some(description) = shown.description {
        page.element("p", "description", description);
    }
    facts::verdict(shown, &mut page);

    page.raw("<section><h2>Timeline</h2><div class=\"chart\">");
    let timeline = Timeline::of(shown);
    timeline::draw(&timeline, &mut page);
    let split = timeline.split();
    page.raw("</div>").element(
        "p",
        "dim",
        &format!(
            "{} · total {}. Hover or focus a bar to see what it was.",
            split.describe(),
            timeline::seconds(timeline.total_ms)
        ),
    );
    page.raw("</section><section><h2>Tests</h2>");
    facts::tests(shown, &mut page);
    page.raw("</section><section><h2>Change</h2>");
    match &shown.ending {
        Some(ending) => diff::draw(&ending.after.diff, &mut page),
        None => {
            page.element("p", "dim", "No diff: the conversation never ended.");
        }
    }
    page.raw("</section><section><h2>Conversation</h2>");
    let protocol = shown.settings.protocol;
    for (number, session) in shown.sessions.iter().enumerate() {
        page.raw("<div class=\"session\">").element(
            "h3",
            "",
            &if shown.sessions.len() > 1 {
                format!("Message {}", number + 1)
            } else {
                "Task".to_owned()
            },
        );
        page.raw("<div class=\"said user\">")
            .value(session.prompt)
            .raw("</div>");
        conversation::draw(protocol, session, &mut page);
        page.raw("</div>");
    }
    page.raw("</section><section><h2>Settings</h2>");
    facts::settings(shown, &mut page);
    page.raw("</section>");
    document_end(&mut page);
    page.finish()
}

fn back_opening(href: &str, page: &mut Html) {
    page.raw("<nav class=\"back\"><a")
        .attr("href", href)
        .raw(">");
}

/// The markup that opens the link back to `href` on every page listed by it: how an eval's
/// report knows the pages it wrote from another report's in the same folder.
pub fn back_link_opening(href: &str) -> String {
    let mut page = Html::new();
    back_opening(href, &mut page);
    page.finish()
}

/// The policy: nothing may load or run; only the page's own stylesheet applies.
pub fn content_security_policy() -> String {
    format!(
        "default-src 'none'; style-src 'sha256-{}'; base-uri 'none'; form-action 'none'",
        base64(&Sha256::digest(STYLE.as_bytes()))
    )
}

/// How every page mend writes begins, whatever its stylesheet: a file that does not begin so is
/// not one of mend's pages (and an eval's report never removes it).
pub const DOCUMENT_OPENING: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\"";

/// `<!doctype html>` through `<body>`: the policy first, before anything could load.
pub fn document_start(title: &str, page: &mut Html) {
    page.raw(DOCUMENT_OPENING)
        .attr("content", &content_security_policy())
        .raw("><meta name=\"referrer\" content=\"no-referrer\">")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .element("title", "", title)
        .raw("<style>")
        .raw(STYLE)
        .raw("</style></head><body>");
}

pub(crate) fn document_end(page: &mut Html) {
    page.raw("</body></html>\n");
}

/// Standard base64 with padding (RFC 4648), for the stylesheet's hash in the policy.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().enumerate().fold(0u32, |word, (at, byte)| {
            word | u32::from(*byte) << (16 - 8 * at)
        });
        for position in 0..4 {
            if position <= chunk.len() {
                out.push(char::from(
                    ALPHABET[(word >> (18 - 6 * position)) as usize & 63],
                ));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        let encoded: Vec<String> = ["", "f", "fo", "foo", "foob", "fooba", "foobar"]
            .iter()
            .map(|text| base64(text.as_bytes()))
            .collect();
        assert_eq!(
            encoded,
            ["", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"]
        );
    }
}

#[cfg(test)]
mod page_tests;
