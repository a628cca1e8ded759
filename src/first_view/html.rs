//! Text and attribute values as HTML: every user text (chip and op names, anything a link
//! carries) goes through [`esc`], so none of it becomes markup.

/// `s` with `& < > " '` as character references: safe as text and in a quoted attribute.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}
