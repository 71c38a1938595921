//! Keeps the end of a long text, cut on a character boundary, and says how much was cut.

/// Returns at most `max_chars` characters of `text`: its tail, after a marker line that says how
/// many characters were left out. Short texts come back unchanged.
pub(crate) fn keep_tail(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let cut = total - max_chars;
    let start = text
        .char_indices()
        .nth(cut)
        .map_or(text.len(), |(at, _)| at);
    format!("[… {cut} characters cut …]\n{}", &text[start..])
}

#[cfg(test)]
mod tests {
    use super::keep_tail;

    #[test]
    fn short_text_is_unchanged() {
        assert_eq!(keep_tail("abc", 3), "abc");
    }

    #[test]
    fn long_text_keeps_its_tail_on_a_character_boundary() {
        assert_eq!(keep_tail("ééééé✓✓", 3), "[… 4 characters cut …]\né✓✓");
    }
}
