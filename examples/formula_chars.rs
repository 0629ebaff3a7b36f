//! Prints every character the page's formulas show, one line, for `make fonts`
//! (scripts/subset-fonts.sh cuts KaTeX's fonts down to them).
fn main() {
    let chars: String = handwave::formulas::characters_of_all_formulas()
        .into_iter()
        .collect();
    println!("{chars}");
}
