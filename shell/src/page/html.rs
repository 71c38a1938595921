//! Escaping, and the few ways the page writes markup. A record is untrusted input: every piece
//! of it reaches the page through [`Html::text`] or [`Html::attr`], which escape every character
//! that could end a text run, a tag or an attribute.

use std::fmt::Write as _;

/// Values longer than this (in characters or lines) are folded behind their first line.
const FOLD_CHARS: usize = 600;
const FOLD_LINES: usize = 12;

/// A page being written. Markup goes in only through these methods.
#[derive(Default)]
pub struct Html {
    out: String,
}

/// `text` with `& < > " '` as character references: safe in text, in a quoted attribute, inside
/// `<title>` and `<pre>`, and in SVG (`]]>` and `<!--` lose their `>` and `<`).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // NUL is replaced by the parser anyway; saying so keeps the file valid text.
            '\0' => out.push('\u{fffd}'),
            other => out.push(other),
        }
    }
    out
}

impl Html {
    pub fn new() -> Html {
        Html::default()
    }

    pub fn finish(self) -> String {
        self.out
    }

    /// Markup written by mend itself: a constant, never a value from the record.
    pub fn raw(&mut self, markup: &'static str) -> &mut Html {
        self.out.push_str(markup);
        self
    }

    /// Markup mend formats itself from numbers (SVG coordinates); never from record text.
    pub fn markup(&mut self, markup: std::fmt::Arguments) -> &mut Html {
        let _ = self.out.write_fmt(markup);
        self
    }

    pub fn text(&mut self, text: &str) -> &mut Html {
        self.out.push_str(&escape(text));
        self
    }

    /// ` name="value"`, the value escaped; `name` is mend's own constant.
    pub fn attr(&mut self, name: &'static str, value: &str) -> &mut Html {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        self.out.push_str(&escape(value));
        self.out.push('"');
        self
    }

    /// `<tag class="…">text</tag>`.
    pub fn element(&mut self, tag: &'static str, class: &'static str, text: &str) -> &mut Html {
        self.out.push('<');
        self.out.push_str(tag);
        if !class.is_empty() {
            self.attr("class", class);
        }
        self.out.push('>');
        self.text(text);
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// A preformatted value, folded behind its first line when it is long.
    pub fn value(&mut self, text: &str) -> &mut Html {
        let lines = text.lines().count();
        let chars = text.chars().count();
        if chars <= FOLD_CHARS && lines <= FOLD_LINES {
            return self.element("pre", "", text);
        }
        let first: String = text
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(120)
            .collect();
        self.raw("<details class=\"fold\"><summary><code>")
            .text(&first)
            .raw("</code> <span class=\"dim\">")
            .text(&format!("… {lines} lines, {chars} characters"))
            .raw("</span></summary>")
            .element("pre", "", text)
            .raw("</details>")
    }

    /// A row of a two-column table.
    pub fn row(&mut self, name: &str, value: &str) -> &mut Html {
        self.raw("<tr>")
            .element("th", "", name)
            .raw("<td>")
            .value(value)
            .raw("</td></tr>")
    }
}

#[cfg(test)]
mod tests {
    use super::{escape, Html};

    #[test]
    fn every_character_that_can_end_text_a_tag_or_an_attribute_is_escaped() {
        assert_eq!(
            escape(concat!(r#"</script><img src=x onerror='a()'> "q" & ]]> <!-- nul:"#, "\0")),
            "&lt;/script&gt;&lt;img src=x onerror=&#39;a()&#39;&gt; &quot;q&quot; &amp; ]]&gt; &lt;!-- nul:\u{fffd}"
        );
    }

    #[test]
    fn long_values_are_folded_behind_their_first_line_and_short_ones_are_not() {
        let mut short = Html::new();
        short.value("a <b>");
        let long_text = format!("first <line>\n{}", "x\n".repeat(20));
        let mut long = Html::new();
        long.value(&long_text);
        assert_eq!(short.finish(), "<pre>a &lt;b&gt;</pre>");
        assert_eq!(
            long.finish(),
            format!(
                "<details class=\"fold\"><summary><code>first &lt;line&gt;</code> <span class=\"dim\">… 21 lines, {} characters</span></summary><pre>{}</pre></details>",
                long_text.chars().count(),
                escape(&long_text)
            )
        );
    }
}
