//! Component tests: widgets mounted into a real DOM in headless Chromium
//! (`wasm-bindgen-test`; run by `make test` through wasm-bindgen-test-runner).
#![cfg(target_arch = "wasm32")]

use handwave::math::backprop::sample_raw_scores;
use handwave::state::registry::FigureId;
use handwave::widgets::{
    use_figure_readings, ColorMap, ColorScale, Figure, FigureReadings, Grid, Heatmap, Readout,
    ReadoutRow, Scale, Slider, Toggle,
};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Lets scheduled effects run and a frame pass.
async fn tick() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 30);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The page's occasional parts as the page binary hands them over (there from a module
/// of their own; here linked in): the embed form and the notices.
fn register_chrome() {
    use handwave::widgets::chrome::{register_chrome_loader, Chrome};
    register_chrome_loader(|| {
        Box::pin(async {
            Some(Chrome {
                embed_form: |id, title, root, base, query| {
                    view! { <handwave::widgets::share::EmbedForm id=id title=title root=root base=base query=query /> }
                        .into_any()
                },
                notices: |notices| {
                    view! { <handwave::app::notices::Notices notices=notices /> }.into_any()
                },
            })
        })
    });
}

/// A fresh container in the document body.
fn container() -> HtmlElement {
    let el = document()
        .create_element("div")
        .unwrap()
        .dyn_into::<HtmlElement>()
        .unwrap();
    el.style().set_property("width", "600px").unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
}

fn query(root: &HtmlElement, selector: &str) -> HtmlElement {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
        .dyn_into()
        .unwrap()
}

include!("pinned_scores.in");

#[wasm_bindgen_test]
fn seeded_scores_are_bit_identical_to_the_native_build() {
    // tests/determinism.rs checks the same constants natively.
    assert_eq!(sample_raw_scores(1, 3, 4), PINNED_SCORES.to_vec());
}

#[wasm_bindgen_test]
async fn readout_shows_the_value_and_full_precision_data_value() {
    let root = container();
    let (value, set_value) = signal(0.1234567891234);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <Readout name="test" label="Test" value=value unit="nats" /> }
    });
    tick().await;
    let el = query(&root, "[data-readout=\"test\"]");
    assert_eq!(el.get_attribute("data-value").unwrap(), "0.1234567891234");
    assert!(el.text_content().unwrap().contains("0.1235"));
    assert!(el.text_content().unwrap().contains("nats"));
    set_value.set(f64::INFINITY);
    tick().await;
    assert!(
        el.text_content().unwrap().contains("overflow"),
        "infinity is named, not drawn"
    );
    assert_eq!(el.get_attribute("data-value").unwrap(), "overflow");
    set_value.set(f64::NAN);
    tick().await;
    assert_eq!(el.get_attribute("data-value").unwrap(), "undefined");
}

#[wasm_bindgen_test]
async fn slider_reports_values_through_its_scale_and_labels_itself() {
    let root = container();
    let (value, set_value) = signal(64.0);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <Slider key="dk" label="Key dimension" value=value on_change=Callback::new(move |v| set_value.set(v))
                scale=Scale::Pow2 { min_exp: 0, max_exp: 10 } />
        }
    });
    tick().await;
    let input: HtmlInputElement = query(&root, "input[data-control=\"dk\"]")
        .dyn_into()
        .unwrap();
    assert_eq!(input.value(), "6");
    assert_eq!(input.get_attribute("aria-valuetext").unwrap(), "64");
    let label = query(&root, "label");
    assert_eq!(label.get_attribute("for").unwrap(), input.id());
    input.set_value("9");
    input
        .dispatch_event(
            &web_sys::Event::new_with_event_init_dict("input", &{
                let init = web_sys::EventInit::new();
                init.set_bubbles(true);
                init
            })
            .unwrap(),
        )
        .unwrap();
    tick().await;
    assert_eq!(value.get_untracked(), 512.0);
    assert_eq!(input.get_attribute("aria-valuetext").unwrap(), "512");
}

#[wasm_bindgen_test]
async fn toggle_reports_its_state() {
    let root = container();
    let (on, set_on) = signal(true);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <Toggle key="div" label="Divide" value=on on_change=Callback::new(move |v| set_on.set(v)) /> }
    });
    tick().await;
    let input: HtmlInputElement = query(&root, "input[data-control=\"div\"]")
        .dyn_into()
        .unwrap();
    assert!(input.checked());
    input.click();
    tick().await;
    assert!(!on.get_untracked());
}

#[wasm_bindgen_test]
async fn heatmap_draws_crisply_and_reads_cells_by_keyboard() {
    let root = container();
    let grid = Grid {
        rows: 2,
        cols: 3,
        values: vec![-0.25, 0.0, 0.25, 0.1, -0.1, 0.0],
    };
    let scale = ColorScale {
        map: ColorMap::Diverging,
        min: -0.25,
        max: 0.25,
    };
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let g = grid.clone();
        let describe = Callback::new(move |(i, j): (usize, usize)| {
            format!("cell {i},{j} = {}", g.get(i, j).unwrap_or(0.0))
        });
        let grid = grid.clone();
        view! {
            <Heatmap name="t" grid=Signal::derive(move || grid.clone()) scale=scale describe=describe
                summary=Signal::derive(|| "a test heatmap".to_string()) max_width=300.0 />
        }
    });
    tick().await;
    tick().await;
    let canvas: web_sys::HtmlCanvasElement = query(&root, "canvas[data-canvas=\"t\"]")
        .dyn_into()
        .unwrap();
    assert!(canvas.get_attribute("data-draws").is_some(), "drew");
    let css_w = canvas.get_bounding_client_rect().width();
    let dpr = window().device_pixel_ratio();
    assert!(
        (canvas.width() as f64 - css_w * dpr).abs() <= 1.0,
        "backing {} css {css_w} dpr {dpr}",
        canvas.width()
    );
    assert_eq!(
        canvas.get_attribute("aria-label").unwrap(),
        "a test heatmap"
    );
    // Top-left pixel has the colour of −¼ (dark blue, #053061).
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let px = ctx.get_image_data(2.0, 2.0, 1.0, 1.0).unwrap().data();
    assert_eq!((px[0], px[1], px[2]), (0x05, 0x30, 0x61));
    canvas.focus().unwrap();
    tick().await;
    let key = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &{
        let init = web_sys::KeyboardEventInit::new();
        init.set_key("ArrowRight");
        init.set_bubbles(true);
        init
    })
    .unwrap();
    canvas.dispatch_event(&key).unwrap();
    tick().await;
    let readout = query(&root, "[data-cell-readout=\"t\"]");
    assert_eq!(readout.text_content().unwrap(), "cell 0,1 = 0");
    assert_eq!(readout.get_attribute("aria-live").unwrap(), "polite");
}

#[wasm_bindgen_test]
async fn figure_has_its_id_title_caption_summary_and_actions() {
    register_chrome();
    let root = container();
    let (caption, set_caption) = signal("first caption".to_string());
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <Figure id=FigureId::Jacobian caption=caption summary=Signal::derive(|| "summary".to_string())
                csv=Callback::new(|_| "a,b\n1,2\n".to_string()) controls=|| view! { <span class="ctl">"controls"</span> }>
                <p>"body"</p>
            </Figure>
        }
    });
    tick().await;
    let fig = query(&root, "[data-figure=\"jacobian\"]");
    assert_eq!(fig.tag_name().to_lowercase(), "figure");
    for action in ["png", "csv", "copy-link", "copy-embed"] {
        query(&fig, &format!("[data-action=\"{action}\"]"));
    }
    query(&fig, ".ctl");
    assert_eq!(
        query(&fig, "figcaption").text_content().unwrap(),
        "first caption"
    );
    set_caption.set("second caption".into());
    tick().await;
    assert_eq!(
        query(&fig, "figcaption").text_content().unwrap(),
        "second caption",
        "caption follows the state"
    );
    assert_eq!(
        query(&fig, ".figure-body")
            .get_attribute("aria-label")
            .unwrap(),
        "The softmax Jacobian J = diag(p) − ppᵀ. summary",
        "the title comes from the registry of passes"
    );
    query(&fig, "[data-action=\"copy-embed\"]").click();
    // The embed form's code is fetched on this first press (here: linked in).
    tick().await;
    tick().await;
    let share: HtmlInputElement = query(&fig, "[data-share=\"embed\"]").dyn_into().unwrap();
    assert!(
        share.value().contains("embed=jacobian"),
        "{}",
        share.value()
    );
}

#[wasm_bindgen_test]
async fn slider_range_follows_a_signal_scale() {
    let root = container();
    let (n, set_n) = signal(32.0);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <Slider key="rdk" label="d_k" value=Signal::derive(|| 4.0) on_change=Callback::new(|_| {})
                scale=Signal::derive(move || Scale::Linear { min: 1.0, max: n.get(), step: 1.0 }) />
        }
    });
    tick().await;
    let input: HtmlInputElement = query(&root, "input[type=range]").dyn_into().unwrap();
    assert_eq!(input.max(), "32");
    set_n.set(256.0);
    tick().await;
    assert_eq!(input.max(), "256");
}

#[wasm_bindgen_test]
async fn heatmap_leaves_non_finite_cells_transparent() {
    let root = container();
    let grid = Grid {
        rows: 1,
        cols: 3,
        values: vec![1.0, f64::NAN, -1.0],
    };
    let scale = ColorScale {
        map: ColorMap::Diverging,
        min: -1.0,
        max: 1.0,
    };
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <Heatmap name="gaps" grid=Signal::derive(move || grid.clone()) scale=scale
                describe=Callback::new(|_| String::new()) summary=Signal::derive(String::new) max_width=300.0 height=30.0 />
        }
    });
    tick().await;
    let canvas: web_sys::HtmlCanvasElement =
        query(&root, "canvas[data-canvas=gaps]").dyn_into().unwrap();
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let alpha = |x: f64| ctx.get_image_data(x, 10.0, 1.0, 1.0).unwrap().data()[3];
    let w = canvas.width() as f64;
    assert_eq!(alpha(w * 0.15), 255);
    assert_eq!(alpha(w * 0.5), 0, "the NaN cell is not painted");
    assert_eq!(alpha(w * 0.85), 255);
}

/// Polls until `selector` under `root` has `data-value` satisfying `ok`, for up to 20 s.
async fn wait_for_value(root: &HtmlElement, selector: &str, ok: impl Fn(&str) -> bool) -> String {
    for _ in 0..400 {
        tick().await;
        if let Ok(Some(el)) = root.query_selector(selector) {
            if let Some(v) = el.get_attribute("data-value") {
                if ok(&v) {
                    return v;
                }
            }
        }
    }
    panic!("{selector} never settled");
}

#[wasm_bindgen_test]
async fn score_rank_figure_reads_out_rank_at_most_dk() {
    let root = container();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        handwave::passes::linear_algebra::score_rank::alone(true)
    });
    let rank_s = wait_for_value(&root, "[data-readout=rank-s]", |v| !v.is_empty()).await;
    assert_eq!(rank_s, "4", "default d_k = 4");
    // σ(A) is asked for only on screen.
    root.scroll_into_view();
    // No worker script is served here: the figure falls back to computing inline.
    let rank_a: f64 = wait_for_value(&root, "[data-readout=rank-a]", |v| v.parse::<f64>().is_ok())
        .await
        .parse()
        .unwrap();
    assert!(rank_a > 4.0);
}

#[wasm_bindgen_test]
async fn gradient_flow_figure_computes_the_stack_off_the_event() {
    let root = container();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        handwave::passes::stability::gradient_flow::alone(true)
    });
    // It computes only on screen.
    root.scroll_into_view();
    wait_for_value(&root, "[data-readout=depth]", |v| v == "32").await;
    let ratio: f64 = query(&root, "[data-readout=grad-ratio]")
        .get_attribute("data-value")
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        ratio > 0.0 && ratio < 1e-3,
        "no residual, no norm: vanished ({ratio})"
    );
    let caption = query(&root, "[data-caption=gradient-flow]")
        .text_content()
        .unwrap();
    assert!(caption.contains("Vanished"), "{caption}");
}

#[wasm_bindgen_test]
async fn work_started_now_runs_to_its_first_wait_before_returning() {
    use handwave::widgets::timing::{run_now_then_spawn, yield_to_browser};
    use std::cell::Cell;
    use std::rc::Rc;
    // Mounting starts Leptos's executor, which the rest of the task is handed to.
    let _handle = leptos::mount::mount_to(container(), || view! { <span></span> });
    let steps = Rc::new(Cell::new(0));
    let seen = steps.clone();
    run_now_then_spawn(async move {
        seen.set(1);
        yield_to_browser().await;
        seen.set(2);
    });
    assert_eq!(steps.get(), 1, "the part before the first wait ran at once");
    tick().await;
    assert_eq!(steps.get(), 2, "the rest ran once the browser answered");
}

#[wasm_bindgen_test]
async fn work_started_now_inside_an_effect_does_not_subscribe_it() {
    use handwave::widgets::timing::run_now_then_spawn;
    let _handle = leptos::mount::mount_to(container(), || view! { <span></span> });
    let (read_in_task, set_read_in_task) = signal(0);
    let runs = StoredValue::new(0);
    Effect::new(move |_| {
        runs.update_value(|r| *r += 1);
        run_now_then_spawn(async move {
            let _ = read_in_task.get();
        });
    });
    tick().await;
    set_read_in_task.set(1);
    tick().await;
    assert_eq!(
        runs.get_value(),
        1,
        "a read inside the task is not the effect's"
    );
}

/// Sample entries without a generator: sin of a mix of the indices.
fn sample_matrix(rows: usize, cols: usize, salt: f64) -> nalgebra::DMatrix<f64> {
    nalgebra::DMatrix::from_fn(rows, cols, |i, j| ((i * 7 + j * 3) as f64 + salt).sin())
}

#[wasm_bindgen_test]
fn thin_products_in_wasm_simd_equal_the_materialised_product() {
    use handwave::math::products::{scaled_times, scaled_times_transpose};
    // Eight-row tiles (the SIMD kernel), the rows after them, and odd column counts.
    for m in [1, 7, 8, 9, 16, 17, 64] {
        for (k, n) in [(1, 1), (5, 2), (13, 7), (32, 128)] {
            let (a, b) = (sample_matrix(m, k, 0.2), sample_matrix(k, n, 0.8));
            let product = scaled_times(-1.5, &a, &b);
            assert!(
                (product - (&a * &b) * -1.5).abs().max() < 1e-12,
                "m={m} k={k} n={n}"
            );
            let c = sample_matrix(n, k, 0.4);
            let product = scaled_times_transpose(0.5, &a, &c);
            assert!((product - (&a * c.transpose()) * 0.5).abs().max() < 1e-12);
        }
    }
}

#[wasm_bindgen_test]
fn a_default_stack_gives_the_gradient_norms_computed_natively() {
    use handwave::math::stability::reference::gradient_profile;
    use handwave::math::stability::{StackShape, Wiring};
    // Six blocks of the default stack (d_model 32, 2 heads, 8 tokens, gain 1, seed 1,
    // pre-norm), as computed by the native build (x86_64): the browser's SIMD
    // products and its own libm must agree to rounding.
    let shape = StackShape {
        d_model: 32,
        heads: 2,
        seq_len: 8,
        gain: 1.0,
        seed: 1,
        wiring: Wiring::PRE_NORM,
    };
    let native_input = [
        34.02255426311372,
        22.095174389774385,
        17.23027309475546,
        14.276155951059335,
        11.399045212154077,
        9.379781641140545,
    ];
    let native_weights = [
        255.57970058372442,
        198.01367953130855,
        165.271901468669,
        139.1560408072045,
        118.61248944354624,
        105.00119055415487,
    ];
    let profile = gradient_profile(&shape, 6);
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y.abs();
    for (got, want) in profile.input_grad_norm.iter().zip(native_input) {
        assert!(close(*got, want), "input gradient {got} against {want}");
    }
    for (got, want) in profile.weight_grad_norm.iter().zip(native_weights) {
        assert!(close(*got, want), "weight gradient {got} against {want}");
    }
    assert!(
        close(profile.loss, -7.782898115856594),
        "loss {}",
        profile.loss
    );
}

#[wasm_bindgen_test]
fn wasm_simd_exp_gives_the_bits_of_the_scalar_exp_and_stays_within_two_ulps() {
    use handwave::math::exp::{exp_clamped, exp_clamped_in_place};
    let xs: Vec<f64> = (0..=20_001)
        .map(|i| -708.0 + 1417.0 * f64::from(i) / 20_001.0)
        .chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0])
        .collect();
    let mut ys = xs.clone();
    exp_clamped_in_place(&mut ys);
    for (x, y) in xs.iter().zip(&ys) {
        let scalar = exp_clamped(*x);
        assert!(
            y.to_bits() == scalar.to_bits() || (y.is_nan() && scalar.is_nan()),
            "x = {x}"
        );
        if x.is_finite() {
            assert!(
                (y - x.exp()).abs() <= 4.5e-16 * x.exp(),
                "x = {x}: {y} against {}",
                x.exp()
            );
        }
    }
}

#[wasm_bindgen_test]
fn numbers_parse_in_the_browser_to_the_bits_str_parse_gives() {
    // In the browser, handwave::state::parse_number takes its value from JavaScript's
    // parseFloat (so that the page does not carry core's dec2flt tables); both round
    // correctly, so they must agree to the bit on every decimal numeral.
    use handwave::state::parse_number;
    let mut texts: Vec<String> = [
        "0",
        "-0",
        "12",
        "-2.5",
        "+3",
        ".5",
        "3.",
        "0.1",
        "0.2",
        "0.3",
        "1e3",
        "1.5E-7",
        "0.30000000000000004",
        "123456789012345678901234567890",
        "1e308",
        "1.7976931348623157e308",
        "4.9e-324",
        "2.4703282292062327e-324",
        "2.2250738585072014e-308",
        "9007199254740993",
        "0.95",
        "0.05",
        "1048576",
        "999999",
        "1e400",
        "-1e400",
        "1e-400",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Values a slider or URL gives: every gain, α and ρ step, and pseudo-random numerals.
    for k in 0..=2000 {
        texts.push(format!("{}", f64::from(k) * 0.05));
        texts.push(format!("{:.3}", f64::from(k) * 0.025 + 0.05));
    }
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mantissa = x % 10_000_000_000_000_000;
        let exponent = (x >> 54) as i32 - 512;
        texts.push(format!("{mantissa}e{exponent}"));
        texts.push(format!("0.{mantissa:017}"));
    }
    for text in &texts {
        let ours = parse_number(text).map(f64::to_bits);
        let std = text.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(ours, std, "{text}");
    }
    assert_eq!(parse_number("NaN"), None);
    assert_eq!(parse_number("0x10"), None);
}

/// Hands the readings of the figure it is mounted in to the test.
#[component]
fn ReadingsProbe(out: RwSignal<Option<FigureReadings>>) -> impl IntoView {
    out.set(use_figure_readings());
}

#[wasm_bindgen_test]
async fn a_figures_readings_are_its_readouts_busy_rows_and_step_as_signals() {
    let root = container();
    let value = RwSignal::new(2.5_f64);
    let busy = RwSignal::new(true);
    let shown = RwSignal::new(true);
    let out = RwSignal::new(None::<FigureReadings>);
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <Figure id=FigureId::Jacobian caption=Signal::derive(String::new) summary=Signal::derive(String::new)
                csv=Callback::new(|_| String::new()) controls=|| ()>
                <ReadoutRow busy=busy>
                    <Readout name="ratio" label="ratio" value=value format=|x: f64| format!("{x:.1}×") />
                    <Show when=move || shown.get()>
                        <Readout name="gone-later" label="later" value=Signal::derive(|| 1.0) />
                    </Show>
                </ReadoutRow>
                <ReadingsProbe out=out />
            </Figure>
        }
    });
    tick().await;
    let readings = out.get_untracked().expect("the probe is inside the figure");
    let names = |r: FigureReadings| r.readouts().into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(names(readings), ["ratio", "gone-later"]);
    assert_eq!(readings.readouts()[0].1, ("2.5×".to_string(), 2.5));
    assert!(!readings.settled(), "a busy row: not caught up");
    busy.set(false);
    value.set(4.0);
    tick().await;
    assert!(readings.settled());
    assert_eq!(readings.readouts()[0].1, ("4.0×".to_string(), 4.0));
    // A readout taken off the page leaves the readings with it.
    shown.set(false);
    tick().await;
    assert_eq!(names(readings), ["ratio"]);
    // The step reached shows on the figure's root.
    let fig = query(&root, "[data-figure=\"jacobian\"]");
    assert_eq!(fig.get_attribute("data-step-at"), None);
    readings.step_at.set(2);
    tick().await;
    assert_eq!(fig.get_attribute("data-step-at").as_deref(), Some("2"));
}
