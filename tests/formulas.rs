//! The build-time formulas carry no inline style (a strict CSP would block it): every
//! KaTeX style became a class of style/katex-inline.css, and every class used is defined.

use handwave::formulas::ALL;

fn classes_used(markup: &str) -> Vec<String> {
    markup
        .split("class=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .flat_map(|list| list.split_whitespace().map(str::to_string))
        .filter(|c| c.starts_with("kx-"))
        .collect()
}

#[test]
fn no_formula_has_an_inline_style_attribute() {
    assert!(!ALL.is_empty());
    for markup in ALL {
        assert!(
            !markup.contains(" style=\""),
            "inline style left in {markup:.120}"
        );
    }
}

#[test]
fn every_style_class_a_formula_uses_is_defined_in_the_style_sheet() {
    let css = std::fs::read_to_string("style/katex-inline.css").expect("style sheet");
    let used: Vec<String> = ALL.iter().flat_map(|m| classes_used(m)).collect();
    assert!(!used.is_empty(), "KaTeX laid something out with a style");
    for class in used {
        assert!(css.contains(&format!(".{class}{{")), "{class} missing");
    }
}

#[test]
fn a_struts_height_survives_as_an_important_declaration() {
    let css = std::fs::read_to_string("style/katex-inline.css").expect("style sheet");
    assert!(css
        .lines()
        .any(|l| l.contains("height:") && l.contains("!important")));
}

#[test]
fn the_subset_fonts_cover_every_character_a_formula_shows() {
    let recorded = std::fs::read_to_string("assets/font-chars.txt").expect("font-chars.txt");
    let missing: String = handwave::formulas::characters_of_all_formulas()
        .into_iter()
        .filter(|c| !recorded.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "formulas show {missing:?}, which assets/fonts/ was not cut for: run `make fonts`"
    );
}

#[test]
fn characters_shown_are_the_text_outside_tags_with_entities_decoded() {
    let shown = handwave::formulas::characters_shown("<span class=\"x\">a&lt;b</span> &amp;");
    assert_eq!(shown.into_iter().collect::<String>(), " &<ab");
}

#[test]
fn style_katex_css_is_katex_css_cut_to_the_classes_the_formulas_use() {
    let full = std::fs::read_to_string("node_modules/katex/dist/katex.min.css")
        .expect("npm's katex (run `make setup`)");
    let used = ALL
        .iter()
        .flat_map(|m| handwave::katex_css::classes_in_markup(m))
        .collect();
    let committed = std::fs::read_to_string("style/katex.css").expect("style/katex.css");
    assert_eq!(
        committed,
        handwave::katex_css::purged_katex_css(&full, &used),
        "style/katex.css is not current: build once (build.rs rewrites it) and commit it"
    );
}

#[test]
fn a_rule_stays_when_one_of_its_selectors_names_only_used_classes() {
    let used = ["katex", "mord"].iter().map(|s| s.to_string()).collect();
    let css = ".katex .mord,.katex .mbin{color:red}.katex .mop{x:1}.katex svg{y:2}.katex .mord:not(.mop){w:0}@media screen{.x{z:3}}";
    assert_eq!(
        handwave::katex_css::purged_katex_css(css, &used),
        ".katex .mord{color:red}.katex svg{y:2}.katex .mord:not(.mop){w:0}@media screen{.x{z:3}}\n"
    );
}

#[test]
fn a_font_face_keeps_only_its_woff2_source() {
    let css = r#"@font-face{font-family:KaTeX_AMS;src:url(fonts/KaTeX_AMS-Regular.woff2) format("woff2"),url(fonts/KaTeX_AMS-Regular.woff) format("woff"),url(fonts/KaTeX_AMS-Regular.ttf) format("truetype")}"#;
    assert_eq!(
        handwave::katex_css::purged_katex_css(css, &Default::default()),
        "@font-face{font-family:KaTeX_AMS;src:url(fonts/KaTeX_AMS-Regular.woff2) format(\"woff2\")}\n"
    );
}
