// KaTeX's style sheet cut down to what the page's formulas use. Included by build.rs
// (which writes style/katex.css from npm's katex.min.css) and by the library (for the
// test that style/katex.css is current): one text, two users.

/// The class names that `markup` uses (every word of every `class="…"` attribute).
pub fn classes_in_markup(markup: &str) -> std::collections::BTreeSet<String> {
    markup
        .split("class=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .flat_map(|list| list.split_whitespace().map(str::to_string))
        .collect()
}

/// `css` (KaTeX's minified style sheet) with only the rules some formula can match: a
/// selector stays when every class it names is in `used`, a rule when one of its
/// selectors stays. `@font-face` rules stay, each naming only its WOFF2 file (the only
/// format the page ships); other at-rules stay whole.
pub fn purged_katex_css(css: &str, used: &std::collections::BTreeSet<String>) -> String {
    let mut out = String::new();
    let mut rest = css;
    while let Some(open) = rest.find('{') {
        let head = rest[..open].trim();
        let body_len = block_length(&rest[open..]);
        let body = &rest[open..open + body_len];
        if head.starts_with("@font-face") {
            out.push_str(head);
            out.push_str(&woff2_only(body));
        } else if head.starts_with('@') {
            out.push_str(head);
            out.push_str(body);
        } else {
            let kept: Vec<&str> = head
                .split(',')
                .filter(|selector| classes_in_selector(selector).all(|c| used.contains(c)))
                .collect();
            if !kept.is_empty() {
                out.push_str(&kept.join(","));
                out.push_str(body);
            }
        }
        rest = &rest[open + body_len..];
    }
    out.push('\n');
    out
}

/// The length of the `{…}` block `text` starts with, nested blocks included.
fn block_length(text: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// The class names a selector requires (`.a .b.c:hover` → a, b, c); a class inside
/// `:not(…)` is one it requires absent, so it does not count.
fn classes_in_selector(selector: &str) -> impl Iterator<Item = &str> {
    let required = match selector.find(":not(") {
        Some(at) => &selector[..at],
        None => selector,
    };
    required.split('.').skip(1).map(|s| {
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(s.len());
        &s[..end]
    })
}

/// An `@font-face` body without the WOFF and TrueType fallbacks after its WOFF2 source.
fn woff2_only(body: &str) -> String {
    const WOFF2: &str = "format(\"woff2\")";
    match body.find(WOFF2) {
        Some(at) => {
            let cut = at + WOFF2.len();
            let end = body[cut..].find([';', '}']).map_or(body.len(), |e| cut + e);
            format!("{}{}", &body[..cut], &body[end..])
        }
        None => body.to_string(),
    }
}
